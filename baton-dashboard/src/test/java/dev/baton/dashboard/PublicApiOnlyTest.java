package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The dashboard is built on baton-core's public API: no source of it names an internal package. */
class PublicApiOnlyTest {

  @Test
  void noDashboardSourceUsesCoreInternals() throws IOException {
    Path main = Path.of("src/main/java");
    assertThat(main).isDirectory();
    List<Path> offending;
    try (Stream<Path> files = Files.walk(main)) {
      offending =
          files
              .filter(p -> p.toString().endsWith(".java"))
              .filter(
                  p -> {
                    try {
                      return Files.readString(p).contains("dev.baton.internal");
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  })
              .toList();
    }
    assertThat(offending).isEmpty();
  }
}
