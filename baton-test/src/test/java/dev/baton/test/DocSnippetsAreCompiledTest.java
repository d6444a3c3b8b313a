package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code ```java} block in README.md and docs/**.md is either quoted verbatim from a file
 * that the build compiles and its tests run, or says why it is not. The line before the block's
 * opening fence is one of:
 *
 * <ul>
 *   <li>{@code <!-- quoted from PATH#NAME -->}: PATH (from the repository's root) holds one or more
 *       regions between the lines {@code // docs:begin NAME} and {@code // docs:end NAME} ({@code
 *       #} or {@code --} comments work too); the block is those regions in order, each without the
 *       indentation its lines share. A block of another language may be quoted the same way (a
 *       properties file, SQL) and is then checked alike;
 *   <li>{@code <!-- not compiled: REASON -->}: a fragment that cannot compile alone (a signature,
 *       an outline), with the reason.
 * </ul>
 *
 * A page edited by hand then fails here until its source changes with it, and a quoted source that
 * stops compiling or passing fails the build where it lives.
 */
class DocSnippetsAreCompiledTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static final Pattern QUOTED =
      Pattern.compile("^<!--\\s*quoted from\\s+(\\S+?)#(\\S+)\\s*-->$");
  private static final Pattern NOT_COMPILED =
      Pattern.compile("^<!--\\s*not compiled:\\s*(\\S.*?)\\s*-->$");
  private static final Pattern MARKER =
      Pattern.compile("^\\s*(?://|#|--)\\s*docs:(begin|end)\\s+(\\S+)\\s*$");

  @Test
  void everyJavaBlockInTheDocsIsQuotedFromCompiledSourceOrSaysWhyNot() throws IOException {
    List<String> problems = new ArrayList<>();
    int quoted = 0;
    for (Path page : pages()) {
      List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (!line.startsWith("```")) {
          continue;
        }
        int close = i + 1;
        while (close < lines.size() && !lines.get(close).startsWith("```")) {
          close++;
        }
        String where = ROOT.relativize(page) + ":" + (i + 1);
        String language = line.substring(3).trim();
        String before = i == 0 ? "" : lines.get(i - 1).trim();
        String block = String.join("\n", lines.subList(i + 1, close)) + "\n";
        Matcher q = QUOTED.matcher(before);
        if (q.matches()) {
          String problem = compare(q.group(1), q.group(2), block);
          if (problem != null) {
            problems.add(where + ": " + problem);
          }
          quoted++;
        } else if (language.equals("java") && !NOT_COMPILED.matcher(before).matches()) {
          problems.add(
              where
                  + ": a java block without a marker on the line before it; expected"
                  + " <!-- quoted from PATH#NAME --> or <!-- not compiled: REASON -->, found \""
                  + before
                  + "\"");
        }
        i = close;
      }
    }
    assertThat(problems).as("doc blocks that do not match the sources they quote").isEmpty();
    assertThat(quoted).as("quoted blocks found in README.md and docs/").isGreaterThanOrEqualTo(2);
  }

  @Test
  void regionsJoinInOrderAndLoseOnlyTheIndentationTheyAllShare() {
    String source =
        String.join(
            "\n",
            "class A {",
            "  // docs:begin x",
            "  record R() {}",
            "",
            "  // docs:end x",
            "  void m() {",
            "    // docs:begin x",
            "    if (true) {",
            "      run();",
            "    }",
            "    // docs:end x",
            "  }",
            "}");

    assertThat(regions(source, "x")).isEqualTo("record R() {}\n\n  if (true) {\n    run();\n  }\n");
    assertThat(regions(source, "y")).isNull();
  }

  private static String compare(String path, String name, String block) throws IOException {
    Path source = ROOT.resolve(path).normalize();
    if (!source.startsWith(ROOT) || !Files.isRegularFile(source)) {
      return "quotes " + path + ", which is not a file of this repository";
    }
    String expected = regions(Files.readString(source, StandardCharsets.UTF_8), name);
    if (expected == null) {
      return "quotes region \"" + name + "\" of " + path + ", which has no docs:begin " + name;
    }
    if (!expected.equals(block)) {
      return "differs from region \""
          + name
          + "\" of "
          + path
          + "; copy the region here (or change both)."
          + " Expected:\n"
          + expected
          + "but the page has:\n"
          + block;
    }
    return null;
  }

  /**
   * The regions named {@code name} in order, without the indentation all their lines share (so a
   * method's body quoted beside its class keeps its place); null if there is none.
   */
  static String regions(String source, String name) {
    List<String> lines = new ArrayList<>();
    boolean found = false;
    boolean inRegion = false;
    for (String line : source.split("\n", -1)) {
      Matcher m = MARKER.matcher(line);
      if (m.matches() && m.group(2).equals(name)) {
        inRegion = m.group(1).equals("begin");
        found |= inRegion;
      } else if (inRegion) {
        lines.add(line);
      }
    }
    if (!found) {
      return null;
    }
    int indent = Integer.MAX_VALUE;
    for (String line : lines) {
      if (!line.isBlank()) {
        indent = Math.min(indent, line.length() - line.stripLeading().length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String line : lines) {
      out.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
    }
    // The formatter keeps a blank line between a class member and the end marker after it.
    while (out.length() > 1 && out.charAt(out.length() - 2) == '\n') {
      out.setLength(out.length() - 1);
    }
    return out.toString();
  }

  private static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(ROOT.resolve("README.md"));
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    return pages;
  }
}
