package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The example of docs/testing.md is the source of {@code example/OrderEmailTest}, which runs with
 * these tests: docs/testing.md quotes the text between that file's markers verbatim.
 */
class ReadmeExampleIsInSyncTest {

  @Test
  void theReadmeQuotesTheExampleTestVerbatim() throws Exception {
    String source =
        Files.readString(
            Path.of("src/test/java/dev/baton/test/example/OrderEmailTest.java"),
            StandardCharsets.UTF_8);
    String readme = Files.readString(Path.of("../docs/testing.md"), StandardCharsets.UTF_8);
    String example =
        source.substring(
            source.indexOf("// README-BEGIN\n") + "// README-BEGIN\n".length(),
            source.indexOf("// README-END"));

    assertThat(readme)
        .as(
            "docs/testing.md must quote"
                + " baton-test/src/test/java/dev/baton/test/example/OrderEmailTest.java"
                + " between its README markers, in a java block")
        .contains("```java\n" + example + "```\n");
  }
}
