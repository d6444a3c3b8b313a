package dev.baton.examples.springboot;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The Spring example of docs/testing.md is {@link OrderEmailTest}, which runs with these tests: the
 * page quotes the text between that file's markers verbatim.
 */
class TestingDocQuotesThisExampleTest {

  @Test
  void theTestingPageQuotesTheSpringExampleVerbatim() throws Exception {
    String source =
        Files.readString(
            Path.of("src/test/java/dev/baton/examples/springboot/OrderEmailTest.java"),
            StandardCharsets.UTF_8);
    String page = Files.readString(Path.of("../../docs/testing.md"), StandardCharsets.UTF_8);
    String example =
        source.substring(
            source.indexOf("// README-BEGIN\n") + "// README-BEGIN\n".length(),
            source.indexOf("// README-END"));

    assertThat(page)
        .as(
            "docs/testing.md must quote"
                + " examples/spring-boot/src/test/java/dev/baton/examples/springboot/OrderEmailTest.java"
                + " between its README markers, in a java block")
        .contains("```java\n" + example + "```\n");
  }
}
