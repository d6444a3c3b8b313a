package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.testing.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * W2 with {@code BATON_ENQUEUE_VIA=process}, as the peer harness runs it: {@code BenchMain harness}
 * in a JVM of its own, which starts {@link W2ProducerProcess} in another; the result line must
 * count every job, and the database must hold them all completed.
 */
class HarnessW2ProcessIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aSeparateProducerProcessEnqueuesEveryMeasuredJobAndTheWorkerRunsEach() throws Exception {
    TestDatabase db = TestDatabase.get();
    // The adapter works in schema "baton" of the database it is given: a database of its own.
    String dbName =
        "harness_w2_" + ProcessHandle.current().pid() + "_" + System.nanoTime() % 100_000;
    db.execute("CREATE DATABASE " + dbName);
    String url = db.jdbcUrl().replaceFirst("/[^/?]+(\\?|$)", "/" + dbName + "$1");

    ProcessBuilder pb =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "-cp",
            System.getProperty("java.class.path"),
            BenchMain.class.getName(),
            "harness");
    Map<String, String> env = pb.environment();
    env.put("JDBC_URL", url);
    env.put("WORKLOAD", "w2");
    env.put("ROUND", "1");
    env.put("W2_N", "100");
    env.put("W2_RATE", "200");
    env.put("W2_WARM", "10");
    env.put("W2_IDLE_MS", "200");
    env.put("TIMEOUT_MS", "60000");
    env.put("BATON_ENQUEUE_VIA", "process");
    Path out = Files.createTempFile("harness-w2-", ".stdout");
    Path err = Files.createTempFile("harness-w2-", ".stderr");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    Process p = pb.start();
    try {
      assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("the adapter finished").isTrue();
      List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
      String result =
          lines.stream()
              .filter(l -> l.startsWith("BENCH_RESULT "))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no BENCH_RESULT; stderr:\n" + tail(err)));
      JsonNode r = JSON.readTree(result.substring("BENCH_RESULT ".length()));
      assertThat(r.path("ok").asBoolean()).as("ok in %s\nstderr:\n%s", r, tail(err)).isTrue();
      assertThat(p.exitValue()).isZero();
      assertThat(r.path("latency_ms").path("count").asInt()).isEqualTo(100);
      assertThat(r.path("enqueue_call_ms").has("p50")).isTrue();
      assertThat(r.path("duplicates").asInt()).isZero();
      assertThat(r.path("info").path("tuning").path("enqueueVia").asText()).isEqualTo("process");
      assertThat(r.path("info").path("wakeup").asText()).contains("separate producer process");
      assertThat(lines).contains("BENCH_PHASE measure_start", "BENCH_PHASE measure_end");
      try (Connection c = DriverManager.getConnection(url);
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT count(*) FILTER (WHERE state = 'completed'), count(*) FROM baton.job")) {
        rs.next();
        assertThat(rs.getLong(1)).as("completed jobs (warm-up + measured)").isEqualTo(110);
        assertThat(rs.getLong(2)).as("jobs").isEqualTo(110);
      }
    } finally {
      p.destroyForcibly();
    }
  }

  /** The last 30 lines of {@code f}, for a failure message. */
  private static String tail(Path f) {
    try {
      List<String> l = Files.readAllLines(f, StandardCharsets.UTF_8);
      return String.join("\n", l.subList(Math.max(0, l.size() - 30), l.size()));
    } catch (IOException e) {
      return "(cannot read " + f + ": " + e + ")";
    }
  }
}
