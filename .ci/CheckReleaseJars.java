import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.jar.JarFile;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Checks what a release would upload, after `mvn verify` (or `mvn -P release verify`) has built the
 * reactor: run from the repository root as {@code java .ci/CheckReleaseJars.java [--release]}.
 *
 * <p>A module is published unless its pom sets {@code maven.deploy.skip} to true. For each published
 * module with a jar it checks that target/ARTIFACT-VERSION.jar exists and that its manifest's
 * Automatic-Module-Name is the module's {@code baton.module.name}; with --release, that the sources
 * and Javadoc jars exist too. It checks that baton-bom has the parent's version and manages exactly
 * the published jar modules. It lists the artifacts and exits 1 on any failure.
 */
public class CheckReleaseJars {
  public static void main(String[] args) throws Exception {
    boolean release = List.of(args).contains("--release");
    Path root = Path.of(".").toAbsolutePath().normalize();
    Element parent = read(root.resolve("pom.xml"));
    String version = text(parent, "version");
    List<String> failures = new ArrayList<>();
    Map<String, String> publishedJars = new LinkedHashMap<>();
    List<String> listing = new ArrayList<>();
    listing.add("dev.baton:baton-parent:" + version + " pom.xml");

    for (Element module : children(child(parent, "modules"), "module")) {
      Path dir = root.resolve(module.getTextContent().trim());
      Element pom = read(dir.resolve("pom.xml"));
      String artifactId = text(pom, "artifactId");
      String packaging = text(pom, "packaging");
      Element properties = child(pom, "properties");
      boolean skipped =
          properties != null && "true".equals(text(properties, "maven.deploy.skip"));
      if (skipped) {
        continue;
      }
      if ("pom".equals(packaging)) {
        listing.add("dev.baton:" + artifactId + ":" + version + " " + root.relativize(dir.resolve("pom.xml")));
        continue;
      }
      String moduleName = properties == null ? null : text(properties, "baton.module.name");
      publishedJars.put(artifactId, moduleName);
      Path jar = dir.resolve("target").resolve(artifactId + "-" + version + ".jar");
      if (!Files.isRegularFile(jar)) {
        failures.add(artifactId + ": no " + root.relativize(jar) + "; build the reactor first (mvn -B verify)");
        continue;
      }
      String named;
      try (JarFile file = new JarFile(jar.toFile())) {
        named = file.getManifest() == null ? null : file.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
      }
      if (moduleName == null || !moduleName.equals(named)) {
        failures.add(artifactId + ": the manifest of " + root.relativize(jar) + " names module " + named
            + ", expected " + moduleName + " (the pom's baton.module.name)");
      }
      listing.add("dev.baton:" + artifactId + ":" + version + " " + root.relativize(jar) + " (module " + named + ")");
      for (String classifier : List.of("sources", "javadoc")) {
        Path attached = dir.resolve("target").resolve(artifactId + "-" + version + "-" + classifier + ".jar");
        if (Files.isRegularFile(attached)) {
          listing.add("dev.baton:" + artifactId + ":" + version + ":" + classifier + " " + root.relativize(attached));
        } else if (release) {
          failures.add(artifactId + ": no " + root.relativize(attached) + " (mvn -B -P release verify builds it)");
        }
      }
    }

    Element bom = read(root.resolve("baton-bom/pom.xml"));
    if (!version.equals(text(bom, "version"))) {
      failures.add("baton-bom: version " + text(bom, "version") + ", expected the parent's " + version);
    }
    List<String> managed = new ArrayList<>();
    for (Element dependency : children(child(child(bom, "dependencyManagement"), "dependencies"), "dependency")) {
      managed.add(text(dependency, "artifactId"));
    }
    if (!new TreeSet<>(managed).equals(new TreeSet<>(publishedJars.keySet()))) {
      failures.add("baton-bom: manages " + managed + ", expected the published jar modules " + publishedJars.keySet());
    }

    listing.forEach(line -> System.out.println("  " + line));
    if (!failures.isEmpty()) {
      failures.forEach(failure -> System.out.println("FAILED: " + failure));
      System.exit(1);
    }
    System.out.println("every published jar names its module; baton-bom manages them all at " + version);
  }

  private static Element read(Path pom) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    if (parent == null) {
      return found;
    }
    for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
      if (node instanceof Element element && element.getTagName().equals(name)) {
        found.add(element);
      }
    }
    return found;
  }

  private static Element child(Element parent, String name) {
    List<Element> found = children(parent, name);
    return found.isEmpty() ? null : found.get(0);
  }

  private static String text(Element parent, String name) {
    Element element = child(parent, name);
    return element == null ? null : element.getTextContent().trim();
  }
}
