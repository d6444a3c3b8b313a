package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.EnqueueOptions;
import dev.baton.admin.JobAdmin;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton worker} as a real child JVM: handlers from a provider on the class path or in a jar
 * given with {@code --handlers}, jobs completed, every documented meter on the metrics URL it
 * prints, a graceful exit 0 on SIGTERM with its node deregistered; and the wrong-input cases.
 */
class WorkerCliTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration START = Duration.ofSeconds(90);
  private static final String SERVICES = "META-INF/services/dev.baton.spi.HandlerProvider";

  private static CliRunner cli;
  private static JobAdmin admin;
  private static HttpClient http;

  @TempDir static Path tmp;

  @BeforeAll
  static void schema() {
    cli = CliRunner.onNewMigratedSchema();
    admin = new JobAdmin(cli.db.admin(), cli.schema);
    cli.db.execute(
        "CREATE TABLE "
            + cli.schema
            + ".worker_note (job_id bigint PRIMARY KEY, text text NOT NULL, node text NOT NULL)");
    http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  }

  /** The Prometheus series of each meter in docs/metrics.md's meter table, by meter name. */
  static Map<String, String> documentedSeries() throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "metrics.md"));
    Map<String, String> series = new LinkedHashMap<>();
    Matcher m =
        Pattern.compile(
                "(?m)^\\| `(baton\\.[a-z.]+)` \\| (gauge|counter|timer) \\|[^|]*\\| ([^|]*)\\|")
            .matcher(doc);
    while (m.find()) {
      String base = m.group(1).replace('.', '_');
      String type = m.group(2);
      String unit = m.group(3).strip();
      String name =
          switch (type) {
            case "counter" -> base + "_total";
            case "timer" -> base + "_seconds_count";
            default -> unit.equals("seconds") ? base + "_seconds" : base;
          };
      series.put(m.group(1), name);
    }
    return series;
  }

  private static long enqueue(String kind, String queue, String args) throws IOException {
    return admin
        .enqueue(kind, MAPPER.readTree(args), EnqueueOptions.builder().queue(queue).build())
        .job()
        .id();
  }

  private static long count(String where) {
    return cli.db.queryLong("SELECT count(*) FROM " + cli.schema + "." + where);
  }

  private static List<String> args(String... extra) {
    List<String> a = new ArrayList<>(List.of(extra));
    a.addAll(List.of("--database-url", cli.db.jdbcUrl(), "--schema", cli.schema));
    return a;
  }

  /** The directory holding the test classes (and WorkerTestHandlers). */
  private static Path testClasses() throws Exception {
    return Path.of(
        WorkerTestHandlers.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  /** A jar of WorkerTestHandlers and its records, with the services entry naming it. */
  static Path handlersJar(Path dir) throws Exception {
    Path classes = testClasses();
    Path jar = dir.resolve("worker-test-handlers.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
        Stream<Path> files = Files.list(classes.resolve("dev/baton/cli"))) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (f.getFileName().toString().startsWith("WorkerTestHandlers")) {
          put(out, "dev/baton/cli/" + f.getFileName(), Files.readAllBytes(f));
        }
      }
      put(out, SERVICES, Files.readAllBytes(classes.resolve("worker-provider").resolve(SERVICES)));
    }
    return jar;
  }

  private static void put(JarOutputStream out, String name, byte[] bytes) throws IOException {
    out.putNextEntry(new JarEntry(name));
    out.write(bytes);
    out.closeEntry();
  }

  private static HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static double sample(String body, String series, String... tags) {
    for (String line : body.lines().toList()) {
      if (line.startsWith(series + "{") && Stream.of(tags).allMatch(line::contains)) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return Double.NaN;
  }

  @Test
  void runsHandlersFromTheClassPathServesEveryMeterAndStopsGracefullyOnSigterm() throws Exception {
    String node = "worker-cp-" + ProcessHandle.current().pid();
    List<String> classPath = new ArrayList<>(WorkerProcess.testClassPath());
    classPath.add(testClasses().resolve("worker-provider").toString());
    // a backlog cap and limits of every kind (none of them reached), so that their gauges are
    // served too
    cli.db.execute(
        "INSERT INTO "
            + cli.schema
            + ".queue (name, backlog_cap, concurrency_limit, key_field, key_limit, rate_limit,"
            + " rate_period_ms) VALUES ('mail', 100, 100, 'text', 100, 1000, 1000)"
            + " ON CONFLICT (name) DO UPDATE SET backlog_cap = 100, concurrency_limit = 100,"
            + " key_field = 'text', key_limit = 100, rate_limit = 1000, rate_period_ms = 1000");
    try (WorkerProcess worker =
        WorkerProcess.start(
            classPath,
            args(
                "--queue",
                "default:2",
                "--queue",
                "mail:2",
                "--node-id",
                node,
                "--metrics-port",
                "0"))) {
      String started = worker.awaitLine("baton worker " + node + " running", START);
      assertThat(started)
          .contains("kinds worker_ping, worker_sleep, worker_note")
          .contains("on queues default:2, mail:2")
          .contains("in schema " + cli.schema);
      Matcher url =
          Pattern.compile("metrics at (http://127\\.0\\.0\\.1:\\d+/metrics);").matcher(started);
      assertThat(url.find()).as(started).isTrue();
      URI metrics = URI.create(url.group(1));
      assertThat(count("node WHERE id = '" + node + "'")).as(worker.describe()).isEqualTo(1);

      long note = enqueue("worker_note", "mail", "{\"text\": \"hello\"}");
      enqueue("worker_ping", "default", "{\"n\": 1}");
      enqueue("worker_ping", "default", "{\"n\": 2}");
      enqueue("worker_ping", "mail", "{\"n\": 3}");
      await()
          .atMost(Duration.ofSeconds(30))
          .failFast("the worker exited", () -> !worker.isAlive())
          .until(() -> count("job WHERE state = 'completed'") == 4);
      assertThat(
              cli.db.queryString(
                  "SELECT node FROM " + cli.schema + ".worker_note WHERE job_id = " + note))
          .isEqualTo(node);

      // Every documented meter, with this node's figures.
      Map<String, String> documented = documentedSeries();
      assertThat(documented).hasSizeGreaterThanOrEqualTo(18).containsKey("baton.jobs.fenced");
      String nodeTag = "node=\"" + node + "\"";
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> sample(get(metrics).body(), "baton_jobs_completed_total", nodeTag) == 4.0);
      HttpResponse<String> scrape = get(metrics);
      assertThat(scrape.statusCode()).isEqualTo(200);
      assertThat(scrape.headers().firstValue("Content-Type"))
          .hasValue("text/plain; version=0.0.4; charset=utf-8");
      String body = scrape.body();
      List<String> missing = new ArrayList<>();
      documented.forEach(
          (meter, series) -> {
            if (body.lines()
                .noneMatch(l -> l.startsWith(series + "{") || l.startsWith(series + " "))) {
              missing.add(meter + " (" + series + ")");
            }
          });
      assertThat(missing).as("documented meters missing from the scrape:\n" + body).isEmpty();
      assertThat(sample(body, "baton_jobs_claimed_total", nodeTag)).isEqualTo(4.0);
      assertThat(
              sample(
                  body,
                  "baton_job_run_time_seconds_count",
                  nodeTag,
                  "kind=\"worker_ping\"",
                  "queue=\"default\""))
          .isEqualTo(2.0);
      assertThat(
              sample(
                  body,
                  "baton_job_run_time_seconds_count",
                  nodeTag,
                  "kind=\"worker_ping\"",
                  "queue=\"mail\""))
          .isEqualTo(1.0);
      assertThat(
              sample(
                  body,
                  "baton_job_pickup_latency_seconds_count",
                  nodeTag,
                  "kind=\"worker_note\"",
                  "queue=\"mail\""))
          .isEqualTo(1.0);
      assertThat(sample(body, "baton_queue_depth", "queue=\"mail\"", "state=\"running\"")).isZero();

      worker.terminate();
      assertThat(worker.awaitExit(Duration.ofSeconds(60))).as(worker.describe()).isZero();
      assertThat(worker.line("baton worker " + node + " stopped"))
          .as(worker.describe())
          .hasValueSatisfying(l -> assertThat(l).contains("claimed 4, completed 4"));
      assertThat(count("node WHERE id = '" + node + "'")).isZero();
      assertThatThrownBy(() -> get(metrics)).isInstanceOf(ConnectException.class);
    }
  }

  @Test
  void runsHandlersFromAJarGivenWithHandlersMigratesAndPrintsJsonLines() throws Exception {
    Path jar = handlersJar(tmp);
    String node = "worker-jar-" + ProcessHandle.current().pid();
    String fresh = cli.db.newSchemaName(); // not created: --migrate creates it
    // Without the test classes: the provider and its handlers can only come from the jar.
    Path classes = testClasses();
    List<String> classPath =
        WorkerProcess.testClassPath().stream().filter(e -> !Path.of(e).equals(classes)).toList();
    assertThat(classPath).hasSize(WorkerProcess.testClassPath().size() - 1);
    List<String> args =
        new ArrayList<>(
            List.of(
                "--handlers",
                jar.toString(),
                "--queue",
                "jarq:1",
                "--node-id",
                node,
                "--json",
                "--migrate",
                "--database-url",
                cli.db.jdbcUrl(),
                "--schema",
                fresh));
    try (WorkerProcess worker = WorkerProcess.start(classPath, args)) {
      JsonNode started = MAPPER.readTree(worker.awaitLine("{\"event\":\"started\"", START));
      assertThat(started.path("node_id").asText()).isEqualTo(node);
      assertThat(started.path("schema").asText()).isEqualTo(fresh);
      assertThat(started.path("migrated").toString())
          .isEqualTo(
              "["
                  + java.util.stream.IntStream.rangeClosed(
                          1, dev.baton.migrate.Migrator.QUEUE_VERSION)
                      .mapToObj(Integer::toString)
                      .collect(java.util.stream.Collectors.joining(","))
                  + "]");
      assertThat(started.path("kinds").toString())
          .isEqualTo("[\"worker_ping\",\"worker_sleep\",\"worker_note\"]");
      assertThat(started.path("providers").toString())
          .isEqualTo("[\"dev.baton.cli.WorkerTestHandlers\"]");
      assertThat(started.path("queues").toString())
          .isEqualTo("[{\"name\":\"jarq\",\"concurrency\":1}]");
      assertThat(started.path("metrics_url").isNull()).isTrue();

      long ping =
          new JobAdmin(cli.db.admin(), fresh)
              .enqueue(
                  "worker_ping",
                  MAPPER.readTree("{\"n\": 7}"),
                  EnqueueOptions.builder().queue("jarq").build())
              .job()
              .id();
      String job = "SELECT %s FROM " + fresh + ".job WHERE id = " + ping;
      await()
          .atMost(Duration.ofSeconds(30))
          .failFast("the worker exited", () -> !worker.isAlive())
          .until(() -> "completed".equals(cli.db.queryString(job.formatted("state"))));
      assertThat(cli.db.queryString(job.formatted("attempted_by"))).isEqualTo(node);

      worker.terminate();
      assertThat(worker.awaitExit(Duration.ofSeconds(60))).as(worker.describe()).isZero();
      JsonNode stopped =
          MAPPER.readTree(
              worker
                  .line("{\"event\":\"stopped\"")
                  .orElseThrow(() -> new AssertionError(worker.describe())));
      assertThat(stopped.path("node_id").asText()).isEqualTo(node);
      assertThat(stopped.path("completed").asLong()).isEqualTo(1);
      assertThat(worker.lines()).as("stdout is JSON lines only").hasSize(2);
      assertThat(cli.db.queryLong("SELECT count(*) FROM " + fresh + ".node")).isZero();
    }
  }

  @Test
  void anUnmigratedSchemaFailsWithOneLineAndLeavesNoNodeBehind() throws Exception {
    Path jar = handlersJar(tmp);
    String fresh = cli.db.newSchemaName();
    ClassLoader before = Thread.currentThread().getContextClassLoader();
    CliRunner.Result r =
        new CliRunner(fresh).run("worker", "--handlers", jar.toString(), "--metrics-port", "0");
    assertThat(r.exitCode()).as(r.err()).isEqualTo(BatonCli.FAILED);
    assertThat(r.out()).isEmpty();
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains(fresh).contains("baton migrate up").contains("--migrate");
    assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(before);
  }

  @Test
  void noProviderIsAUsageErrorNamingTheInterfaceAndHowToRegister() {
    assertThat(Collections.list(uncheckedResources(SERVICES)))
        .as("no provider on the test class path")
        .isEmpty();
    CliRunner.Result r = cli.run("worker");
    assertThat(r.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(r.out()).isEmpty();
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err())
        .contains("no handler provider found")
        .contains("dev.baton.spi.HandlerProvider")
        .contains("META-INF/services/dev.baton.spi.HandlerProvider")
        .contains("--handlers");
  }

  private static java.util.Enumeration<java.net.URL> uncheckedResources(String name) {
    try {
      return WorkerCliTest.class.getClassLoader().getResources(name);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aMissingOrBrokenHandlersJarIsAUsageError() throws IOException {
    Path missing = tmp.resolve("no-such-handlers.jar");
    CliRunner.Result r = cli.run("worker", "--handlers", missing.toString());
    assertThat(r.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("--handlers: no such file: " + missing);

    Path notAJar = Files.writeString(tmp.resolve("not-a.jar"), "just text");
    CliRunner.Result broken = cli.run("worker", "--handlers", notAJar.toString());
    assertThat(broken.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(broken.errLines()).hasSize(1);
    assertThat(broken.err()).contains(notAJar + " is not a readable jar");
  }

  @Test
  void aBadQueueSpecIsAUsageError() {
    for (String[] bad :
        List.of(
            new String[] {"--queue", "mail:abc"},
            new String[] {"--queue", "mail:"},
            new String[] {"--queue", "mail:0"},
            new String[] {"--queue", "mail:10001"},
            new String[] {"--queue", "bad queue"},
            new String[] {"--queue", ":4"},
            new String[] {"--queue", "mail", "--queue", "mail:2"})) {
      List<String> a = new ArrayList<>(List.of("worker"));
      a.addAll(List.of(bad));
      CliRunner.Result r = cli.run(a.toArray(new String[0]));
      assertThat(r.exitCode()).as(String.join(" ", bad) + ": " + r.err()).isEqualTo(BatonCli.USAGE);
      assertThat(r.errLines()).as(r.err()).hasSize(1);
      assertThat(r.err()).as(r.err()).doesNotContain("no handler provider").contains("queue");
    }
  }

  @Test
  void aStopWaitsTheStopTimeoutThenHandsTheRunningJobBack() throws Exception {
    // A job that sleeps far longer than the client's default stop timeout (10 s): with
    // --stop-timeout-s 1 the stop interrupts it after about a second, hands it back to its queue
    // with its attempt given back, and exits 0 well before the default would have let it.
    String node = "worker-stop-" + ProcessHandle.current().pid();
    List<String> classPath = new ArrayList<>(WorkerProcess.testClassPath());
    classPath.add(testClasses().resolve("worker-provider").toString());
    try (WorkerProcess worker =
        WorkerProcess.start(
            classPath, args("--queue", "slow:1", "--node-id", node, "--stop-timeout-s", "1"))) {
      worker.awaitLine("baton worker " + node + " running", START);
      long job = enqueue("worker_sleep", "slow", "{\"ms\": 60000}");
      String row = "job WHERE id = " + job + " AND ";
      await()
          .atMost(Duration.ofSeconds(30))
          .failFast("the worker exited", () -> !worker.isAlive())
          .until(() -> count(row + "state = 'running'") == 1);
      worker.terminate();
      assertThat(worker.awaitExit(Duration.ofSeconds(7))).as(worker.describe()).isZero();
      assertThat(count(row + "state = 'available' AND attempt = 0"))
          .as("the job, handed back")
          .isEqualTo(1);
      assertThat(count("node WHERE id = '" + node + "'")).isZero();
    }
  }

  @Test
  void aBadStopTimeoutIsAUsageError() {
    for (String bad : List.of("-1", "3601", "ten")) {
      CliRunner.Result r = cli.run("worker", "--stop-timeout-s", bad);
      assertThat(r.exitCode()).as(bad + ": " + r.err()).isEqualTo(BatonCli.USAGE);
      assertThat(r.errLines()).as(r.err()).hasSize(1);
      assertThat(r.err()).contains("--stop-timeout-s").contains(bad);
    }
  }

  @Test
  void aBadMetricsPortIsAUsageError() {
    for (String port : List.of("-1", "65536", "http")) {
      CliRunner.Result r = cli.run("worker", "--metrics-port", port);
      assertThat(r.exitCode()).as(port + ": " + r.err()).isEqualTo(BatonCli.USAGE);
      assertThat(r.errLines()).hasSize(1);
      assertThat(r.err()).contains("--metrics-port");
    }
  }

  @Test
  void aMetricsPortInUseFailsWithOneLineAndLeavesNoNodeBehind() throws Exception {
    Path jar = handlersJar(tmp);
    String node = "worker-busy-port-" + ProcessHandle.current().pid();
    ClassLoader before = Thread.currentThread().getContextClassLoader();
    try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = busy.getLocalPort();
      CliRunner.Result r =
          cli.run(
              "worker",
              "--handlers",
              jar.toString(),
              "--node-id",
              node,
              "--metrics-port",
              Integer.toString(port));
      assertThat(r.exitCode()).as(r.err()).isEqualTo(BatonCli.FAILED);
      assertThat(r.out()).isEmpty();
      assertThat(r.errLines()).hasSize(1);
      assertThat(r.err())
          .contains("cannot serve metrics on 127.0.0.1:" + port)
          .contains("pass another --metrics-port");
    }
    assertThat(count("node WHERE id = '" + node + "'")).isZero();
    // The command's thread gets its class loader back.
    assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(before);
  }

  @Test
  void aMetricsHostThatIsNotOfThisMachineIsAUsageErrorThatBlamesTheHostNotThePort()
      throws Exception {
    Path jar = handlersJar(tmp);
    String node = "worker-foreign-host-" + ProcessHandle.current().pid();
    // TEST-NET-1 (RFC 5737): an address no interface of this machine has.
    CliRunner.Result r =
        cli.run(
            "worker",
            "--handlers",
            jar.toString(),
            "--node-id",
            node,
            "--metrics-host",
            "192.0.2.1",
            "--metrics-port",
            "0");
    assertThat(r.exitCode()).as(r.err()).isEqualTo(BatonCli.USAGE);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err())
        .contains("--metrics-host 192.0.2.1 is not an address of this machine")
        .doesNotContain("pass another --metrics-port");
    assertThat(count("node WHERE id = '" + node + "'")).isZero();
  }
}
