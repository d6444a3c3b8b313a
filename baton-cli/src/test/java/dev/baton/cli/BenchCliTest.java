package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.TestDatabase;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code baton bench} hands its arguments, in order, to the benchmarks of baton-benchmarks. */
class BenchCliTest {

  @Test
  void runsABenchmarkWithItsOwnOptionsAndTheDatabaseOfTheRootOption() {
    CliRunner.Result r =
        CliRunner.runRaw(
            Map.of(),
            "bench",
            "enqueue",
            "--jobs",
            "40",
            "--warmup",
            "0",
            "--bulk",
            "200",
            "--database-url",
            TestDatabase.get().jdbcUrl());
    // BenchMain prints to System.out itself; its exit code says whether every run finished.
    assertThat(r.exitCode()).as(r.err()).isZero();
  }

  @Test
  void theMemoryBenchmarkHoldsItsJobsInFlightAndFinishes() {
    CliRunner.Result r =
        CliRunner.runRaw(
            Map.of(),
            "bench",
            "memory",
            "--jobs",
            "30",
            "--database-url",
            TestDatabase.get().jdbcUrl());
    assertThat(r.exitCode()).as(r.err()).isZero();
  }

  @Test
  void theSoakBenchmarkTakesItsOwnOptionsAndTheDatabaseOfTheRootOption() {
    CliRunner.Result r =
        CliRunner.runRaw(
            Map.of(),
            "bench",
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
            TestDatabase.get().jdbcUrl());
    assertThat(r.exitCode()).as(r.err()).isZero();
  }

  @Test
  void aBadSoakOptionIsAUsageError() {
    CliRunner.Result r = CliRunner.runRaw(Map.of(), "bench", "soak", "--rate", "fast");
    assertThat(r.exitCode()).isEqualTo(2);
  }

  @Test
  void anUnknownBenchmarkIsAUsageError() {
    CliRunner.Result r = CliRunner.runRaw(Map.of(), "bench", "sprint");
    assertThat(r.exitCode()).isEqualTo(2);
  }
}
