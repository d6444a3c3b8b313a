package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code baton dashboard} as a process of its own, as {@code ./baton dashboard} runs it: it starts,
 * says where, serves pages and the API, and stops on SIGTERM with exit 0; a database it cannot
 * reach, a schema nobody migrated, or an address beyond loopback without authentication (and
 * without {@code --allow-anonymous}) fail it at start with a clear message and a non-zero exit,
 * rather than a dashboard that answers every page with an error.
 */
class DashboardCliTest {
  private static final Duration START = Duration.ofSeconds(60);
  private static final TestDatabase DB = TestDatabase.get();
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void startsServesAndStopsOnSigterm() throws Exception {
    CliRunner cli = CliRunner.onNewMigratedSchema();
    try (WorkerProcess p = dashboard(cli.schema, DB.jdbcUrl(), "--port", "0")) {
      String line = p.awaitLine("dashboard on ", START);
      URI root = URI.create(line.replaceAll("^dashboard on (\\S+) .*$", "$1"));
      assertThat(root.getHost()).isEqualTo("127.0.0.1");
      assertThat(line).contains("(schema " + cli.schema + ")");

      HttpResponse<String> page = get(root.resolve("/"));
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.body()).contains("<title>Queues · Baton</title>");
      assertThat(get(root.resolve("/nodes")).statusCode()).isEqualTo(200);
      HttpResponse<String> api = get(root.resolve("/api/overview"));
      assertThat(api.statusCode()).isEqualTo(200);
      assertThat(api.body()).contains("\"queues\":[");

      p.terminate();
      assertThat(p.awaitExit(Duration.ofSeconds(30))).as(p.describe()).isZero();
    }
  }

  @Test
  void servesBeyondLoopbackWithoutAuthenticationOnlyWhenAllowedByName() throws Exception {
    CliRunner cli = CliRunner.onNewMigratedSchema();
    try (WorkerProcess refused = dashboard(cli.schema, DB.jdbcUrl(), "--bind", "0.0.0.0")) {
      assertThat(refused.awaitExit(START)).as(refused.describe()).isEqualTo(BatonCli.USAGE);
      assertThat(refused.describe())
          .contains("cannot serve the dashboard on 0.0.0.0 without authentication")
          .contains("--token")
          .contains("--allow-anonymous");
      assertThat(refused.lines()).noneMatch(l -> l.startsWith("dashboard on "));
    }
    try (WorkerProcess allowed =
        dashboard(
            cli.schema, DB.jdbcUrl(), "--bind", "0.0.0.0", "--port", "0", "--allow-anonymous")) {
      String line = allowed.awaitLine("dashboard on ", START);
      int port = URI.create(line.replaceAll("^dashboard on (\\S+) .*$", "$1")).getPort();
      assertThat(get(URI.create("http://127.0.0.1:" + port + "/")).statusCode()).isEqualTo(200);
      allowed.terminate();
      assertThat(allowed.awaitExit(Duration.ofSeconds(30))).isZero();
      assertThat(allowed.describe()).contains("without authentication (--allow-anonymous)");
    }
  }

  @Test
  void refusesASchemaNobodyMigratedAtStart() throws Exception {
    String schema = DB.newSchemaName();
    try (WorkerProcess p = dashboard(schema, DB.jdbcUrl(), "--port", "0")) {
      assertThat(p.awaitExit(START)).as(p.describe()).isNotZero();
      assertThat(p.lines()).noneMatch(l -> l.startsWith("dashboard on "));
      assertThat(p.describe()).contains(schema).contains("baton migrate");
    }
  }

  @Test
  void refusesADatabaseItCannotReachAtStart() throws Exception {
    String nobodyListens = "jdbc:postgresql://127.0.0.1:1/baton?user=postgres&connectTimeout=5";
    try (WorkerProcess p = dashboard("baton", nobodyListens, "--port", "0")) {
      assertThat(p.awaitExit(START)).as(p.describe()).isNotZero();
      assertThat(p.lines()).noneMatch(l -> l.startsWith("dashboard on "));
      assertThat(p.describe()).contains("cannot connect to PostgreSQL at");
    }
  }

  @Test
  void refusesAnAllowedOriginThatIsNotAnOrigin() {
    CliRunner cli = CliRunner.onNewMigratedSchema();
    CliRunner.Result r = cli.run("dashboard", "--port", "0", "--allowed-origin", "ops.example.com");

    assertThat(r.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(r.err())
        .contains("invalid --allowed-origin: expected a scheme (http or https), a host")
        .contains("got \"ops.example.com\"");
  }

  @Test
  void aTokenFileNamesTheTokensAndABadLineIsRefusedByItsNumberNeverItsToken() throws Exception {
    CliRunner cli = CliRunner.onNewMigratedSchema();
    java.nio.file.Path bad = java.nio.file.Files.createTempFile("tokens", ".txt");
    java.nio.file.Files.writeString(bad, "# ops\nanna:0123456789abcdef0123\nsecret-without-name\n");
    CliRunner.Result r = cli.run("dashboard", "--port", "0", "--token-file", bad.toString());
    assertThat(r.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(r.err())
        .contains("line 3: expected NAME:TOKEN")
        .doesNotContain("secret-without-name", "0123456789abcdef0123");
    java.nio.file.Files.writeString(bad, "ci:too-short\n");
    assertThat(cli.run("dashboard", "--port", "0", "--token-file", bad.toString()).err())
        .contains("token ci: expected at least 16 characters")
        .doesNotContain("too-short");

    java.nio.file.Path good = java.nio.file.Files.createTempFile("tokens", ".txt");
    java.nio.file.Files.writeString(
        good, "anna:0123456789abcdef0123\nci-bot:fedcba9876543210fedc\n");
    try (WorkerProcess p =
        dashboard(cli.schema, DB.jdbcUrl(), "--port", "0", "--token-file", good.toString())) {
      String line = p.awaitLine("dashboard on ", START);
      URI root = URI.create(line.replaceAll("^dashboard on (\\S+) .*$", "$1"));
      assertThat(get(root.resolve("/")).statusCode()).isEqualTo(401);
      HttpResponse<String> bot =
          http.send(
              java.net.http.HttpRequest.newBuilder(root.resolve("/api/overview"))
                  .header("Authorization", "Bearer fedcba9876543210fedc")
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(bot.statusCode()).isEqualTo(200);
      p.terminate();
      assertThat(p.awaitExit(Duration.ofSeconds(30))).isZero();
      assertThat(p.describe()).doesNotContain("0123456789abcdef0123", "fedcba9876543210fedc");
    }
  }

  private static WorkerProcess dashboard(String schema, String url, String... args)
      throws Exception {
    List<String> all = new java.util.ArrayList<>(List.of(args));
    all.addAll(List.of("--database-url", url, "--schema", schema));
    return WorkerProcess.start(WorkerProcess.testClassPath(), "dashboard", all);
  }

  private HttpResponse<String> get(URI uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
  }
}
