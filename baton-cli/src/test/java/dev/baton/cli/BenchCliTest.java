package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.TestDatabase;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code baton bench} hands its arguments, in order, to its benchmarks ({@code
 * dev.baton.cli.bench}).
 */
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
  void withoutTheOptionItBenchmarksTheDatabaseOfBatonDatabaseUrl() {
    // Nothing listens on port 1: a run that used the variable fails to connect (exit 1); one that
    // ignored it would start an embedded server and succeed.
    CliRunner.Result r =
        CliRunner.runRaw(
            Map.of("BATON_DATABASE_URL", "jdbc:postgresql://127.0.0.1:1/nowhere?connectTimeout=2"),
            "bench",
            "enqueue",
            "--jobs",
            "10",
            "--warmup",
            "0");
    assertThat(r.exitCode()).isEqualTo(1);
  }

  @Test
  void aDrainOfJobsThatWorkRuns() {
    CliRunner.Result r =
        CliRunner.runRaw(
            Map.of(),
            "bench",
            "drain",
            "--jobs",
            "12",
            "--workers",
            "4",
            "--warmup",
            "0",
            "--work-ms",
            "20",
            "--concurrency-limit",
            "2",
            "--database-url",
            TestDatabase.get().jdbcUrl());
    assertThat(r.exitCode()).as(r.err()).isZero();
  }

  @Test
  void aNegativeWorkTimeIsAUsageErrorNamingTheOption() {
    // The benchmarks print to System.err themselves.
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.PrintStream saved = System.err;
    CliRunner.Result r;
    System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      r = CliRunner.runRaw(Map.of(), "bench", "drain", "--work-ms", "-1");
    } finally {
      System.setErr(saved);
    }
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8))
        .contains("--work-ms must not be negative, got -1");
  }

  @Test
  void anUnknownBenchmarkIsAUsageError() {
    CliRunner.Result r = CliRunner.runRaw(Map.of(), "bench", "sprint");
    assertThat(r.exitCode()).isEqualTo(2);
  }
}
