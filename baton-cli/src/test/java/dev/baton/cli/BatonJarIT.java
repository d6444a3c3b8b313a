package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.testing.TestDatabase;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The packaged jar, as ./baton runs it: its own JVM, the database from the environment. */
class BatonJarIT {
  private static final Path JAR = Path.of("target", "baton.jar");

  record Run(int exitCode, String out, String err) {}

  private static Run baton(String schema, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-jar");
    cmd.add(JAR.toString());
    cmd.addAll(List.of(args));
    cmd.add("--schema");
    cmd.add(schema);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("BATON_DATABASE_URL", TestDatabase.get().jdbcUrl());
    File out = Files.createTempFile("baton-out", ".txt").toFile();
    File err = Files.createTempFile("baton-err", ".txt").toFile();
    pb.redirectOutput(out).redirectError(err);
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Run(
        p.exitValue(),
        Files.readString(out.toPath(), StandardCharsets.UTF_8),
        Files.readString(err.toPath(), StandardCharsets.UTF_8));
  }

  /**
   * The README's first command, as a newcomer runs it (smaller): no database given, so the demo
   * starts its own embedded PostgreSQL, and the pods are JVMs on the jar's own class path.
   */
  @Test
  void theDemoRunsOnItsOwnEmbeddedPostgresAndExitsZero() throws Exception {
    assertThat(JAR).exists();
    ProcessBuilder pb =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-jar",
            JAR.toString(),
            "demo",
            "--orders",
            "200",
            "--lease-ms",
            "2000");
    pb.environment().remove("BATON_DATABASE_URL");
    File out = Files.createTempFile("baton-demo-out", ".txt").toFile();
    File err = Files.createTempFile("baton-demo-err", ".txt").toFile();
    pb.redirectOutput(out).redirectError(err);
    Process p = pb.start();
    assertThat(p.waitFor(240, TimeUnit.SECONDS)).isTrue();
    String stdout = Files.readString(out.toPath(), StandardCharsets.UTF_8);
    String stderr = Files.readString(err.toPath(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("stderr:%n%s%nstdout:%n%s", stderr, stdout).isZero();
    assertThat(stderr).contains("starting an embedded PostgreSQL");
    assertThat(stdout)
        .contains("Baton demo: a shop, 3 worker pods, 200 orders")
        .contains("OK: every invariant held")
        .doesNotContain("BROKEN");
  }

  @Test
  void theJarMigratesEnqueuesListsAndExitsWithTheRightCodes() throws Exception {
    assertThat(JAR).exists();
    String schema = TestDatabase.get().newSchemaName();

    Run migrate = baton(schema, "migrate", "up");
    assertThat(migrate.exitCode()).as(migrate.err()).isZero();
    assertThat(migrate.out()).contains("applied version 1, 2");

    Run enqueue = baton(schema, "enqueue", "--kind", "jar_kind", "--args", "{\"n\": 1}", "--json");
    assertThat(enqueue.exitCode()).as(enqueue.err()).isZero();
    long id = new ObjectMapper().readTree(enqueue.out()).path("job").path("id").asLong();

    Run list = baton(schema, "jobs", "list", "--json");
    assertThat(list.exitCode()).as(list.err()).isZero();
    JsonNode jobs = new ObjectMapper().readTree(list.out());
    assertThat(jobs.findValuesAsText("id")).containsExactly("" + id);
    assertThat(list.err()).isEmpty();

    Run badJson = baton(schema, "enqueue", "--kind", "k", "--args", "{");
    assertThat(badJson.exitCode()).isEqualTo(2);
    assertThat(badJson.err().lines().count()).isEqualTo(1);

    Run unknown = baton(schema, "jobs", "show", "999999");
    assertThat(unknown.exitCode()).isEqualTo(1);
    assertThat(unknown.err().lines().count()).isEqualTo(1);
  }
}
