package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in README.md and docs/**.md leads somewhere: its file or directory exists,
 * and its {@code #anchor} names a heading of the page it points to (as GitHub derives anchors from
 * headings). Pages are moved and split often; a link left behind fails here instead of on a reader.
 */
class DocLinksResolveTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  // [text](target) and ![alt](target), with an optional "title"; the text may hold `code`.
  private static final Pattern LINK =
      Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*\\s*$");
  private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

  @Test
  void everyRelativeLinkAndAnchorInTheDocsResolves() throws IOException {
    List<String> broken = new ArrayList<>();
    List<Path> pages = pages();
    for (Path page : pages) {
      for (String target : links(page)) {
        String problem = check(page, target);
        if (problem != null) {
          broken.add(ROOT.relativize(page) + ": (" + target + ") " + problem);
        }
      }
    }
    assertThat(pages).as("README.md and the pages under docs/").hasSizeGreaterThan(5);
    assertThat(broken).as("links in README.md and docs/ that lead nowhere").isEmpty();
  }

  @Test
  void anchorsFollowGitHubsRules() {
    assertThat(
            slugs(List.of("## `max_connections` across nodes", "## Many nodes and queues: sizing")))
        .contains("max_connections-across-nodes", "many-nodes-and-queues-sizing");
    assertThat(slugs(List.of("## Pool settings", "### Pool settings")))
        .contains("pool-settings", "pool-settings-1");
    assertThat(slugs(List.of("```", "# not a heading", "```"))).isEmpty();
  }

  private static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(ROOT.resolve("README.md"));
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    return pages;
  }

  /** The targets of the page's links, outside code blocks and code spans. */
  private static List<String> links(Path page) throws IOException {
    List<String> targets = new ArrayList<>();
    boolean inCode = false;
    for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
      if (line.stripLeading().startsWith("```")) {
        inCode = !inCode;
        continue;
      }
      if (inCode) {
        continue;
      }
      Matcher m = LINK.matcher(line.replaceAll("`[^`]*`", "``"));
      while (m.find()) {
        targets.add(m.group(1));
      }
    }
    return targets;
  }

  /** What is wrong with {@code target} as a link from {@code page}, or null when nothing is. */
  private static String check(Path page, String target) throws IOException {
    if (SCHEME.matcher(target).find()) {
      return null; // a web address: not this repository's to check
    }
    int hash = target.indexOf('#');
    String path = hash < 0 ? target : target.substring(0, hash);
    String anchor = hash < 0 ? null : target.substring(hash + 1);
    Path file = path.isEmpty() ? page : page.getParent().resolve(path).normalize();
    if (!file.startsWith(ROOT)) {
      return "leads out of the repository";
    }
    if (!Files.exists(file)) {
      return "no such file or directory: " + ROOT.relativize(file);
    }
    if (anchor == null) {
      return null;
    }
    if (!file.toString().endsWith(".md")) {
      return "an anchor into a file that is not markdown";
    }
    Set<String> slugs = slugs(Files.readAllLines(file, StandardCharsets.UTF_8));
    return slugs.contains(anchor) ? null : "no heading of " + ROOT.relativize(file) + " has it";
  }

  /**
   * The anchors of a page's headings: lower case, everything but letters, digits, spaces, hyphens
   * and underscores dropped, spaces made hyphens; a repeated one gets {@code -1}, {@code -2}, ...
   */
  private static Set<String> slugs(List<String> lines) {
    Set<String> slugs = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean inCode = false;
    for (String line : lines) {
      if (line.stripLeading().startsWith("```")) {
        inCode = !inCode;
        continue;
      }
      Matcher m = HEADING.matcher(line);
      if (inCode || !m.matches()) {
        continue;
      }
      String slug =
          m.group(1)
              .toLowerCase(Locale.ROOT)
              .replaceAll("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]", "")
              .replace(' ', '-');
      int n = seen.merge(slug, 1, Integer::sum) - 1;
      slugs.add(n == 0 ? slug : slug + "-" + n);
    }
    return slugs;
  }
}
