package dev.baton.testing;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.lang.conditions.ArchConditions.callMethodWhere;
import static com.tngtech.archunit.lang.conditions.ArchConditions.never;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The architecture rules of Baton's modules, for each module's own test. A module outside
 * baton-core checks that it uses core's public API only with one line:
 *
 * <pre>{@code
 * @Test
 * void usesCorePublicApiOnly() {
 *   ArchitectureRules.usesCorePublicApiOnly().check(ArchitectureRules.thisModule());
 * }
 * }</pre>
 *
 * <p>The rules read compiled classes, so they see what the compiler linked (imports, calls, field
 * and type references, string constants), not what a class finds by reflection or in resources.
 */
public final class ArchitectureRules {

  /** The packages that are not public API. */
  public static final String INTERNAL = "dev.baton.internal..";

  /** The one package that may hold SQL. */
  public static final String DB = "dev.baton.internal.db..";

  // What SQL text looks like in a string constant: a statement's opening words, as the stores
  // write them (upper-case keywords). Log and exception messages of the product are prose, which
  // these do not match.
  private static final List<Pattern> SQL =
      List.of(
          Pattern.compile("\\bSELECT\\b[\\s\\S]*\\bFROM\\b"),
          Pattern.compile("\\bINSERT\\s+INTO\\b"),
          Pattern.compile("\\bUPDATE\\s+\\S+(\\s+\\w+)?\\s+SET\\b"),
          Pattern.compile("\\bDELETE\\s+FROM\\b"),
          Pattern.compile("\\b(CREATE|ALTER|DROP)\\s+(TABLE|SCHEMA|INDEX|VIEW|SEQUENCE)\\b"),
          Pattern.compile("\\b(UN)?LISTEN\\s+[\"*]"),
          Pattern.compile("\\bpg_notify\\s*\\("));

  private static JavaClasses mainClasses; // imported once per test JVM, which runs in one module

  private ArchitectureRules() {}

  /**
   * The compiled main and test classes of the module whose test is running ({@code target/classes}
   * and {@code target/test-classes} below the working directory, which surefire sets to the
   * module's folder): not its dependencies, baton-core among them.
   */
  public static JavaClasses thisModule() {
    List<Path> paths = new ArrayList<>();
    for (String dir : List.of("target/classes", "target/test-classes")) {
      Path p = Path.of(dir);
      if (Files.isDirectory(p)) {
        paths.add(p);
      }
    }
    if (paths.isEmpty()) {
      throw new IllegalStateException(
          "no compiled classes below " + Path.of("").toAbsolutePath() + "/target");
    }
    return new ClassFileImporter().importPaths(paths);
  }

  /** The compiled main classes of the running module ({@code target/classes}). */
  public static synchronized JavaClasses thisModulesMainClasses() {
    if (mainClasses == null) {
      mainClasses =
          new ClassFileImporter()
              .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
              .importPath(Path.of("target/classes"));
    }
    return mainClasses;
  }

  /** No class uses {@code dev.baton.internal..}: for every module but baton-core. */
  public static ArchRule usesCorePublicApiOnly() {
    return noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage(INTERNAL)
        .because("modules outside baton-core use its public API only (STYLE.md, Modules)");
  }

  /**
   * No class names {@code dev.baton.internal..} in a string constant (as {@code Class.forName}
   * takes a class) nor opens a member with {@code setAccessible}: the ways past {@link
   * #usesCorePublicApiOnly()}, which sees only what the compiler linked. For every module but
   * baton-core, whose own tests are where core's internals may be read.
   */
  public static ArchRule readsNoCoreInternalsByReflection() {
    return classes()
        .should(nameNoInternalClass())
        .andShould(never(callMethodWhere(target(name("setAccessible")))))
        .because(
            "modules outside baton-core use its public API only (STYLE.md, Modules); a test that"
                + " needs core's internals belongs in baton-core's tests");
  }

  /** No class outside {@code dev.baton.internal.db} holds SQL text in a string constant. */
  public static ArchRule sqlOnlyInInternalDb() {
    return classes()
        .that()
        .resideOutsideOfPackage(DB)
        .should(holdNoSqlText())
        .because("dev.baton.internal.db is the only package with SQL");
  }

  /** {@code dev.baton.internal.db} depends on no other internal package. */
  public static ArchRule internalDbDependsOnNoOtherInternalPackage() {
    return noClasses()
        .that()
        .resideInAPackage(DB)
        .should()
        .dependOnClassesThat(resideInAPackage(INTERNAL).and(not(resideInAPackage(DB))))
        .because("the services use the stores, never the other way round");
  }

  /**
   * No cycle between the packages below {@code dev.baton}. The root package is no slice: it is the
   * public API whose types (Job, JobContext, BatonException, ...) every package uses, and whose
   * client, {@code Baton}, hands the node runtime its config, so a package cycle through it cannot
   * be avoided; {@link #noCyclesBetweenFiles()} covers it file by file instead.
   */
  public static ArchRule noCyclesBetweenPackages() {
    return slices().matching("dev.baton.(**)").should().beFreeOfCycles();
  }

  /** The node runtime: what assembles, starts and stops a client's services. */
  public static final String NODE = "dev.baton.internal.node..";

  /** The node's held-job state, shared by the worker-side services and the metrics binder. */
  public static final String HELD = "dev.baton.internal.held..";

  /** The most parameters a constructor of core may take; more take a settings record. */
  public static final int MAX_CONSTRUCTOR_PARAMETERS = 6;

  /**
   * Only the client, in the root package, reaches the node runtime: the node is how a client works,
   * never something another package drives.
   */
  public static ArchRule onlyTheClientUsesTheNode() {
    return noClasses()
        .that()
        .resideOutsideOfPackages("dev.baton", NODE)
        .should()
        .dependOnClassesThat()
        .resideInAPackage(NODE)
        .because("the client hands the node its config, handlers and schedules; nothing else does");
  }

  /** The node runtime never reaches back to the client that made it. */
  public static ArchRule nodeDoesNotUseTheClient() {
    return noClasses()
        .that()
        .resideInAPackage(NODE)
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.baton.Baton")
        .because("the client hands the node what it needs; the node is not a second client");
  }

  /** The held-job state depends on the stores' types only, besides the JDK and logging. */
  public static ArchRule heldStateUsesOnlyInternalDb() {
    return classes()
        .that()
        .resideInAPackage(HELD)
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(HELD, DB, "java..", "javax..", "org.slf4j..")
        .because(
            "the held-job state is shared by every worker-side service and so depends on none");
  }

  /** Leader-side maintenance reaches no worker-side package. */
  public static ArchRule maintenanceUsesNothingWorkerSide() {
    return noClasses()
        .that()
        .resideInAPackage("dev.baton.internal.maintenance..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.baton.internal.producer..",
            "dev.baton.internal.executor..",
            "dev.baton.internal.completer..")
        .because("the leader's maintenance works on rows, never on what a node holds");
  }

  /**
   * No constructor (a record's canonical one included) takes more than {@value
   * #MAX_CONSTRUCTOR_PARAMETERS} parameters, except the public types in {@code exempt}, whose
   * signatures are public API. Constructors the compiler writes for nested and anonymous classes
   * count what the source declares.
   */
  public static ArchRule noLongConstructors(String... exempt) {
    List<String> exempted = List.of(exempt);
    return classes()
        .that(
            new DescribedPredicate<JavaClass>("are not exempt") {
              @Override
              public boolean test(JavaClass c) {
                return !exempted.contains(c.getName());
              }
            })
        .should(
            new ArchCondition<>(
                "have no constructor of more than " + MAX_CONSTRUCTOR_PARAMETERS + " parameters") {
              @Override
              public void check(JavaClass c, ConditionEvents events) {
                for (JavaConstructor k : c.getConstructors()) {
                  int n = declaredParameters(k);
                  if (n > MAX_CONSTRUCTOR_PARAMETERS) {
                    events.add(
                        SimpleConditionEvent.violated(
                            k,
                            k.getFullName()
                                + " takes "
                                + n
                                + " parameters; pass a settings record instead"));
                  }
                }
              }
            })
        .because("long positional parameter lists hide which value is which (STYLE.md, Names)");
  }

  /**
   * A constructor's parameters as the source declares them: without the enclosing instance javac
   * passes to an inner class, or the name and ordinal it passes to an enum.
   */
  private static int declaredParameters(JavaConstructor k) {
    JavaClass owner = k.getOwner();
    List<JavaClass> types = k.getRawParameterTypes();
    int n = types.size();
    if (owner.isEnum()) {
      n -= 2;
    } else if (owner.isInnerClass()
        && !types.isEmpty()
        && owner.getEnclosingClass().map(types.get(0)::equals).orElse(false)) {
      n -= 1;
    }
    return n;
  }

  /**
   * No cycle between top-level classes (a nested class counts as its top-level one), root package
   * included: a file that needs another which needs it back cannot be read, changed or tested on
   * its own. The rule's message names each cycle found.
   */
  public static ArchRule noCyclesBetweenFiles() {
    return classes()
        .should(
            new ArchCondition<>("be in no cycle of top-level classes") {
              private final Map<String, Set<String>> edges = new TreeMap<>();

              @Override
              public void check(JavaClass c, ConditionEvents events) {
                String from = topLevel(c).getName();
                Set<String> to = edges.computeIfAbsent(from, k -> new TreeSet<>());
                for (Dependency d : c.getDirectDependenciesFromSelf()) {
                  JavaClass target = d.getTargetClass().getBaseComponentType();
                  if (target.getPackageName().startsWith("dev.baton")) {
                    String name = topLevel(target).getName();
                    if (!name.equals(from)) {
                      to.add(name);
                    }
                  }
                }
              }

              @Override
              public void finish(ConditionEvents events) {
                for (List<String> cycle : cycles(edges)) {
                  events.add(
                      SimpleConditionEvent.violated(
                          cycle, "cycle between files: " + String.join(" -> ", cycle)));
                }
              }
            })
        .because("files depend on each other in one direction only");
  }

  private static JavaClass topLevel(JavaClass c) {
    JavaClass t = c;
    while (t.getEnclosingClass().isPresent()) {
      t = t.getEnclosingClass().get();
    }
    return t;
  }

  /**
   * The strongly connected components of more than one node in {@code edges} (Tarjan's algorithm),
   * each as its members in order and the first again at the end.
   */
  static List<List<String>> cycles(Map<String, Set<String>> edges) {
    List<List<String>> out = new ArrayList<>();
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new HashSet<>();
    for (String v : edges.keySet()) {
      if (!index.containsKey(v)) {
        strongConnect(v, edges, index, low, stack, onStack, out);
      }
    }
    return out;
  }

  private static void strongConnect(
      String v,
      Map<String, Set<String>> edges,
      Map<String, Integer> index,
      Map<String, Integer> low,
      Deque<String> stack,
      Set<String> onStack,
      List<List<String>> out) {
    index.put(v, index.size());
    low.put(v, index.get(v));
    stack.push(v);
    onStack.add(v);
    for (String w : edges.getOrDefault(v, Set.of())) {
      if (!index.containsKey(w)) {
        strongConnect(w, edges, index, low, stack, onStack, out);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      List<String> component = new ArrayList<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        component.add(w);
      } while (!w.equals(v));
      if (component.size() > 1) {
        Collections.reverse(component);
        component.add(component.get(0));
        out.add(component);
      }
    }
  }

  /** The string constants of a class file that read as SQL (see {@link #SQL}). */
  static List<String> sqlConstants(JavaClass c) {
    List<String> out = new ArrayList<>();
    for (String s : stringConstants(c.getSource().orElseThrow().getUri())) {
      for (Pattern p : SQL) {
        if (p.matcher(s).find()) {
          out.add(s);
          break;
        }
      }
    }
    return out;
  }

  private static ArchCondition<JavaClass> holdNoSqlText() {
    return new ArchCondition<>("hold no SQL text") {
      @Override
      public void check(JavaClass c, ConditionEvents events) {
        for (String sql : sqlConstants(c)) {
          events.add(
              SimpleConditionEvent.violated(
                  c,
                  c.getName()
                      + " holds SQL text: \""
                      + sql.strip().lines().findFirst().orElse("")
                      + "\"; move the statement into a store of dev.baton.internal.db"));
        }
      }
    };
  }

  private static ArchCondition<JavaClass> nameNoInternalClass() {
    return new ArchCondition<>("name no class of " + INTERNAL + " in a string constant") {
      @Override
      public void check(JavaClass c, ConditionEvents events) {
        for (String s : stringConstants(c.getSource().orElseThrow().getUri())) {
          if (s.contains("dev.baton.internal") || s.contains("dev/baton/internal")) {
            events.add(
                SimpleConditionEvent.violated(
                    c, c.getName() + " names a core internal in \"" + s.strip() + "\""));
          }
        }
      }
    };
  }

  /**
   * Every {@code CONSTANT_String} of a class file: its string literals, constant fields and the
   * recipes of its string concatenations (JVMS 4.4).
   */
  static List<String> stringConstants(URI classFile) {
    try (InputStream raw = classFile.toURL().openStream();
        DataInputStream in = new DataInputStream(raw)) {
      if (in.readInt() != 0xCAFEBABE) {
        throw new IllegalArgumentException("not a class file: " + classFile);
      }
      in.readUnsignedShort(); // minor version
      in.readUnsignedShort(); // major version
      int count = in.readUnsignedShort();
      String[] utf8 = new String[count];
      int[] strings = new int[count];
      int nStrings = 0;
      for (int i = 1; i < count; i++) {
        int tag = in.readUnsignedByte();
        switch (tag) {
          case 1 -> utf8[i] = in.readUTF();
          case 8 -> strings[nStrings++] = in.readUnsignedShort();
          case 7, 16, 19, 20 -> in.skipNBytes(2);
          case 15 -> in.skipNBytes(3);
          case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4);
          case 5, 6 -> {
            in.skipNBytes(8);
            i++; // a long or double takes two entries
          }
          default ->
              throw new IllegalArgumentException(
                  "unknown constant pool tag " + tag + " in " + classFile);
        }
      }
      List<String> out = new ArrayList<>(nStrings);
      for (int k = 0; k < nStrings; k++) {
        out.add(utf8[strings[k]]);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + classFile, e);
    }
  }
}
