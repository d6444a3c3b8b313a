package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * The benchmarks module's own commands ({@code memory}, {@code soak}) run with their options and
 * the database given, and a bad option is a usage error; {@code baton bench} does not have them.
 */
class BenchMainCommandsTest {

  @Test
  void theMemoryBenchmarkHoldsItsJobsInFlightAndFinishes() {
    int code = BenchMain.run(new String[] {"memory", "--jobs", "30", "--database-url", url()});
    assertThat(code).isZero();
  }

  @Test
  void theSoakBenchmarkTakesItsOwnOptionsAndTheDatabaseOption() {
    int code =
        BenchMain.run(
            new String[] {
              "soak",
              "--rate",
              "50",
              "--seconds",
              "2",
              "--sample-s",
              "1",
              "--retention-s",
              "1",
              "--database-url",
              url()
            });
    assertThat(code).isZero();
  }

  @Test
  void aBadSoakOptionIsAUsageError() {
    assertThat(BenchMain.run(new String[] {"soak", "--rate", "fast"})).isEqualTo(2);
  }

  private static String url() {
    return TestDatabase.get().jdbcUrl();
  }
}
