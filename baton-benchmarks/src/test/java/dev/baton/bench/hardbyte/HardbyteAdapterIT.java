package dev.baton.bench.hardbyte;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.bench.BenchMain;
import dev.baton.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The adapter as the hardbyte harness runs it: {@code BenchMain hardbyte} in a JVM of its own, the
 * contract's environment, JSONL read from its stdout, then SIGTERM.
 */
class HardbyteAdapterIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> REQUIRED =
      Set.of(
          "claim_p50_ms",
          "claim_p95_ms",
          "claim_p99_ms",
          "enqueue_rate",
          "completion_rate",
          "queue_depth");

  @Test
  void writesADescriptorThenAlignedSamplesOfEveryMetricAndExitsZeroOnSigterm() throws Exception {
    TestDatabase db = TestDatabase.get();
    String schema = db.newSchemaName();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx256m");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(BenchMain.class.getName());
    cmd.add("hardbyte");
    ProcessBuilder pb = new ProcessBuilder(cmd);
    Map<String, String> env = pb.environment();
    env.put("DATABASE_URL", libpqUrl(db.jdbcUrl()));
    env.put("SCENARIO", "long_horizon");
    env.put("PRODUCER_MODE", "fixed");
    env.put("PRODUCER_RATE", "200");
    env.put("TARGET_DEPTH", "1000");
    env.put("WORKER_COUNT", "8");
    env.put("JOB_PAYLOAD_BYTES", "256");
    env.put("JOB_WORK_MS", "1");
    env.put("SAMPLE_EVERY_S", "1");
    env.put("BATON_SCHEMA", schema);
    Path stderr = Files.createTempFile("hardbyte-adapter-", ".stderr");
    pb.redirectError(stderr.toFile());
    Process p = pb.start();
    List<String> lines = new CopyOnWriteArrayList<>();
    Thread reader = readLines(p, lines);
    try {
      // The descriptor, then two ticks of samples after at least one job was completed.
      await("two ticks with completions")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .failFast("the adapter exited", () -> !p.isAlive())
          .until(() -> ticksWithCompletions(lines) >= 2);

      List<JsonNode> records = new ArrayList<>();
      for (String line : lines) {
        records.add(JSON.readTree(line)); // every stdout line is one JSON object
      }
      JsonNode descriptor = records.get(0);
      assertThat(descriptor.path("kind").asText()).isEqualTo("descriptor");
      assertThat(descriptor.path("system").asText()).isEqualTo("baton");
      assertThat(descriptor.path("event_tables").toString()).isEqualTo("[\"" + schema + ".job\"]");
      assertThat(descriptor.path("extensions").toString()).isEqualTo("[]");
      assertThat(descriptor.path("version").asText()).startsWith("baton-core ");
      assertThat(descriptor.path("schema_version").asText())
          .isEqualTo(Integer.toString(dev.baton.migrate.Migrator.QUEUE_VERSION));
      assertThat(descriptor.path("db_name").asText()).isEqualTo(databaseName(db.jdbcUrl()));
      assertThat(Instant.parse(descriptor.path("started_at").asText())).isBefore(Instant.now());
      assertThat(records.stream().skip(1).filter(r -> r.path("kind").asText().equals("descriptor")))
          .isEmpty();

      Map<String, Map<String, JsonNode>> ticks = ticks(records);
      // A tick's lines are written together, but the last one may be only partly read yet.
      String last = List.copyOf(ticks.keySet()).get(ticks.size() - 1);
      if (!ticks.get(last).keySet().containsAll(REQUIRED)) {
        ticks.remove(last);
      }
      List<Instant> times = new ArrayList<>();
      for (Map.Entry<String, Map<String, JsonNode>> tick : ticks.entrySet()) {
        // Aligned to the wall clock: whole seconds (SAMPLE_EVERY_S=1), written as ...:ss.000Z.
        assertThat(tick.getKey()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.000Z");
        times.add(Instant.parse(tick.getKey()));
        Map<String, JsonNode> m = tick.getValue();
        assertThat(m.keySet()).as("metrics at " + tick.getKey()).containsAll(REQUIRED);
        for (JsonNode r : m.values()) {
          assertThat(r.path("kind").asText()).isEqualTo("adapter");
          assertThat(r.path("subject_kind").asText()).isEqualTo("adapter");
          assertThat(r.path("system").asText()).isEqualTo("baton");
          assertThat(r.path("value").isNumber()).as(r.toString()).isTrue();
          assertThat(r.path("value").asDouble()).as(r.toString()).isFinite().isNotNegative();
        }
        assertThat(m.get("claim_p50_ms").path("window_s").asDouble()).isEqualTo(30.0);
        assertThat(m.get("enqueue_rate").path("window_s").asDouble()).isEqualTo(1.0);
        assertThat(m.get("completion_rate").path("window_s").asDouble()).isEqualTo(1.0);
        assertThat(m.get("queue_depth").path("window_s").asDouble()).isEqualTo(0.0);
        double p50 = m.get("claim_p50_ms").path("value").asDouble();
        double p95 = m.get("claim_p95_ms").path("value").asDouble();
        double p99 = m.get("claim_p99_ms").path("value").asDouble();
        assertThat(p50).isLessThanOrEqualTo(p95);
        assertThat(p95).isLessThanOrEqualTo(p99);
        if (m.get("completion_rate").path("value").asDouble() > 0) {
          assertThat(p50).as("pickups happened, so a latency was measured").isPositive();
        }
      }
      for (int i = 1; i < times.size(); i++) {
        assertThat(Duration.between(times.get(i - 1), times.get(i)).toMillis() % 1000)
            .as("ticks a whole number of SAMPLE_EVERY_S apart")
            .isZero();
      }
      assertThat(ticks.values())
          .anySatisfy(
              m -> {
                assertThat(m.get("enqueue_rate").path("value").asDouble()).isPositive();
                assertThat(m.get("completion_rate").path("value").asDouble()).isPositive();
              });

      long signalled = System.nanoTime();
      p.destroy(); // SIGTERM
      assertThat(p.waitFor(5, TimeUnit.SECONDS))
          .as("exited within 5 s of SIGTERM; stderr:\n" + Files.readString(stderr))
          .isTrue();
      assertThat(p.exitValue()).as("exit code; stderr:\n" + Files.readString(stderr)).isZero();
      System.out.printf(
          "adapter exited %d ms after SIGTERM%n",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - signalled));
      reader.join(5_000);
      assertThat(
              db.queryLong("SELECT count(*) FROM \"" + schema + "\".job WHERE state = 'completed'"))
          .isPositive();
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly();
        System.out.println("adapter stderr:\n" + Files.readString(stderr));
      }
      Files.deleteIfExists(stderr);
    }
  }

  /** The sample records by tick time, then by metric (the descriptor left out). */
  private static Map<String, Map<String, JsonNode>> ticks(List<JsonNode> records) {
    Map<String, Map<String, JsonNode>> ticks = new LinkedHashMap<>();
    for (JsonNode r : records) {
      if (r.path("kind").asText().equals("adapter")) {
        ticks
            .computeIfAbsent(r.path("t").asText(), t -> new LinkedHashMap<>())
            .put(r.path("metric").asText(), r);
      }
    }
    return ticks;
  }

  /** Complete ticks (all required metrics), counted from the first one with completions. */
  private static int ticksWithCompletions(List<String> lines) throws IOException {
    List<JsonNode> records = new ArrayList<>();
    for (String line : lines) {
      records.add(JSON.readTree(line));
    }
    List<Map<String, JsonNode>> complete =
        ticks(records).values().stream()
            .filter(m -> m.keySet().containsAll(REQUIRED))
            .collect(Collectors.toList());
    for (int i = 0; i < complete.size(); i++) {
      if (complete.get(i).get("completion_rate").path("value").asDouble() > 0) {
        return complete.size() - i;
      }
    }
    return 0;
  }

  private static Thread readLines(Process p, List<String> lines) {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  lines.add(line);
                }
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            },
            "adapter-stdout");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /**
   * {@code jdbcUrl} as the libpq URL the harness passes ({@code
   * postgres://user:password@host:port/db}), so the adapter's conversion is exercised too.
   */
  private static String libpqUrl(String jdbcUrl) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile(
                "jdbc:postgresql://([^/?]+)/([^?]*)\\?user=([^&]+)(?:&password=([^&]*))?.*")
            .matcher(jdbcUrl);
    if (!m.matches()) {
      return jdbcUrl; // some other shape: the adapter takes JDBC URLs as well
    }
    String auth = m.group(3) + (m.group(4) != null ? ":" + m.group(4) : "");
    return "postgres://" + auth + "@" + m.group(1) + "/" + m.group(2);
  }

  /** The database {@code jdbcUrl} names. */
  private static String databaseName(String jdbcUrl) {
    String rest = jdbcUrl.substring(jdbcUrl.indexOf("//") + 2);
    String name = rest.substring(rest.indexOf('/') + 1);
    return name.contains("?") ? name.substring(0, name.indexOf('?')) : name;
  }
}
