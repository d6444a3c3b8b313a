package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.TestDatabase;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class GlobalOptionsCliTest {
  private static final List<List<String>> COMMANDS =
      List.of(
          List.of(),
          List.of("migrate"),
          List.of("migrate", "up"),
          List.of("migrate", "down"),
          List.of("migrate", "print"),
          List.of("enqueue"),
          List.of("jobs"),
          List.of("jobs", "list"),
          List.of("jobs", "show"),
          List.of("jobs", "retry"),
          List.of("jobs", "cancel"),
          List.of("jobs", "delete"),
          List.of("queues"),
          List.of("queues", "list"),
          List.of("queues", "pause"),
          List.of("queues", "resume"),
          List.of("nodes"));

  @Test
  void everyCommandHasHelpThatExitsZero() {
    for (List<String> command : COMMANDS) {
      String[] args = concat(command, "--help");
      CliRunner.Result r = CliRunner.runRaw(Map.of(), args);
      assertThat(r.exitCode()).as("exit of %s", command).isZero();
      assertThat(r.out()).as("help of %s", command).startsWith("Usage: baton");
      assertThat(r.err()).isEmpty();
    }
  }

  @Test
  void missingDatabaseUrlIsOneLineSayingHowToSetIt() {
    CliRunner.Result r = CliRunner.runRaw(Map.of(), "jobs", "list");
    assertThat(r.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(r.out()).isEmpty();
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("--database-url").contains("BATON_DATABASE_URL");
  }

  @Test
  void databaseUrlDefaultsToTheEnvironmentVariable() {
    String schema = TestDatabase.get().newMigratedSchema();
    CliRunner.Result r =
        CliRunner.runRaw(
            Map.of("BATON_DATABASE_URL", TestDatabase.get().jdbcUrl()),
            "jobs",
            "list",
            "--schema",
            schema,
            "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.json().isArray()).isTrue();
  }

  @Test
  void globalOptionsWorkBeforeTheCommandToo() {
    String schema = TestDatabase.get().newMigratedSchema();
    CliRunner.Result r =
        CliRunner.runRaw(
            Map.of(),
            "--database-url",
            TestDatabase.get().jdbcUrl(),
            "--schema",
            schema,
            "--json",
            "queues",
            "list");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.json().isArray()).isTrue();
  }

  @Test
  void aUrlThatIsNotJdbcIsAUsageErrorThatHidesThePassword() {
    CliRunner.Result r =
        CliRunner.runRaw(
            Map.of(), "nodes", "--database-url", "postgres://app:hunter2@db.example.com/app");
    assertThat(r.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("jdbc:postgresql:").doesNotContain("hunter2");
  }

  @Test
  void aUserAndPasswordBeforeTheHostAreAUsageErrorSayingHowToPassThemAndNeverPrinted() {
    for (String url :
        List.of(
            "jdbc:postgresql://app:hunter2@db.invalid:5432/app",
            "jdbc:postgresql://app:hunter2@db.invalid/app?sslmode=disable",
            "jdbc:postgresql:app:hunter2@db.invalid/app")) {
      for (boolean verbose : List.of(false, true)) {
        CliRunner.Result r =
            verbose
                ? CliRunner.runRaw(Map.of(), "jobs", "list", "--verbose", "--database-url", url)
                : CliRunner.runRaw(Map.of("BATON_DATABASE_URL", url), "jobs", "list");
        assertThat(r.exitCode()).as(r.err()).isEqualTo(BatonCli.USAGE);
        assertThat(r.err())
            .as(url)
            .contains(
                "must name the user and password as parameters, not as user info before the host")
            .contains("?user=baton&password=secret")
            .contains("app:***@db.invalid")
            .doesNotContain("hunter2");
        if (!verbose) {
          assertThat(r.errLines()).hasSize(1);
        }
      }
    }
  }

  @Test
  void aPasswordIsMaskedWhateverFormTheUrlTakesWithAndWithoutVerbose() {
    for (String url :
        List.of(
            "jdbc:postgresql://app:hun@ter2@db.invalid/app",
            "jdbc:postgresql://app:hun/ter2@db.invalid/app",
            "jdbc:postgresql://app:hun ter2@db.invalid/app",
            "postgres://app:hun@ter2@db.invalid/app",
            "jdbc:postgresql://db.invalid/app?user=u&password=hun ter2",
            "jdbc:postgresql://db.invalid/app?user=u&password=hun%20ter2",
            "jdbc:postgresql://db.invalid:notaport/app?password=hun@ter2")) {
      for (boolean verbose : List.of(false, true)) {
        CliRunner.Result r =
            verbose
                ? CliRunner.runRaw(Map.of(), "nodes", "--verbose", "--database-url", url)
                : CliRunner.runRaw(Map.of("BATON_DATABASE_URL", url), "nodes");
        assertThat(r.exitCode()).as(r.err()).isNotZero();
        assertThat(r.err()).as(url).contains("***").doesNotContain("ter2");
      }
    }
  }

  @Test
  void theExampleUrlIsShownAsItIsWhileTheGivenPasswordIsMasked() {
    assertThat(Database.redact("got 'x?password=hunter2'; e.g. " + Database.EXAMPLE_URL, null))
        .isEqualTo("got 'x?password=***'; e.g. " + Database.EXAMPLE_URL);
  }

  @Test
  void aMalformedJdbcUrlIsAUsageError() {
    CliRunner.Result r =
        CliRunner.runRaw(
            Map.of(),
            "nodes",
            "--database-url",
            "jdbc:postgresql://localhost:notaport/app?password=hunter2");
    assertThat(r.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("not a valid PostgreSQL JDBC URL").doesNotContain("hunter2");
  }

  @Test
  void anUnreachableDatabaseFailsWithOneLineAndNoStackTrace() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    CliRunner.Result r =
        CliRunner.runRaw(
            Map.of(),
            "jobs",
            "list",
            "--database-url",
            "jdbc:postgresql://127.0.0.1:" + port + "/app?user=u&password=hunter2");
    assertThat(r.exitCode()).isEqualTo(BatonCli.FAILED);
    assertThat(r.out()).isEmpty();
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err())
        .startsWith("baton: cannot connect to PostgreSQL at jdbc:postgresql://127.0.0.1:" + port)
        .contains("BATON_DATABASE_URL")
        .doesNotContain("hunter2")
        .doesNotContain("\tat ");
  }

  @Test
  void aServerThatAcceptsAndNeverAnswersFailsWithinTheLoginTimeout() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      List<Socket> accepted = new CopyOnWriteArrayList<>();
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    accepted.add(silent.accept()); // held open, never read nor answered
                  }
                } catch (IOException e) {
                  // closed at the end of the test
                }
              },
              "silent-server");
      acceptor.setDaemon(true);
      acceptor.start();
      String url = "jdbc:postgresql://127.0.0.1:" + silent.getLocalPort() + "/app?user=u";
      CompletableFuture<CliRunner.Result> run =
          CompletableFuture.supplyAsync(
              () -> CliRunner.runRaw(Map.of(), "jobs", "list", "--database-url", url));
      try {
        // The documented login timeout is 10 s; the bound leaves room for a loaded machine.
        await().atMost(Duration.ofSeconds(Database.LOGIN_TIMEOUT_S + 20)).until(run::isDone);
        CliRunner.Result r = run.get();
        assertThat(r.exitCode()).isEqualTo(BatonCli.FAILED);
        assertThat(r.errLines()).hasSize(1);
        assertThat(r.err())
            .startsWith("baton: cannot connect to PostgreSQL at " + url)
            .contains("no answer within the login timeout of 10 s")
            .contains("loginTimeout=");
        assertThat(accepted).isNotEmpty();
      } finally {
        for (Socket s : accepted) {
          s.close();
        }
      }
    }
  }

  @Test
  void verboseAddsTheStackTrace() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    CliRunner.Result r =
        CliRunner.runRaw(
            Map.of(),
            "jobs",
            "list",
            "--verbose",
            "--database-url",
            "jdbc:postgresql://127.0.0.1:" + port + "/app");
    assertThat(r.exitCode()).isEqualTo(BatonCli.FAILED);
    assertThat(r.err()).contains("\tat ");
  }

  @Test
  void aSchemaThatIsNotMigratedSaysToMigrate() {
    CliRunner cli = new CliRunner(TestDatabase.get().newSchemaName());
    CliRunner.Result r = cli.run("jobs", "list");
    assertThat(r.exitCode()).isEqualTo(BatonCli.FAILED);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("baton migrate up").contains(cli.schema);
  }

  @Test
  void anInvalidSchemaNameIsAUsageError() {
    CliRunner.Result r =
        CliRunner.runRaw(
            Map.of(),
            "jobs",
            "list",
            "--database-url",
            TestDatabase.get().jdbcUrl(),
            "--schema",
            "Bad-Name");
    assertThat(r.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("schema").contains("Bad-Name");
  }

  @Test
  void anUnknownOptionOrMissingCommandIsAUsageError() {
    CliRunner.Result unknown = CliRunner.runRaw(Map.of(), "jobs", "list", "--colour");
    assertThat(unknown.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(unknown.errLines()).hasSize(1);
    assertThat(unknown.err()).contains("--colour").contains("baton jobs list --help");

    CliRunner.Result none = CliRunner.runRaw(Map.of());
    assertThat(none.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(none.errLines()).hasSize(1);

    CliRunner.Result noSub = CliRunner.runRaw(Map.of(), "jobs");
    assertThat(noSub.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(noSub.err()).contains("list, show, retry, cancel, delete");
  }

  private static String[] concat(List<String> command, String... more) {
    List<String> all = new java.util.ArrayList<>(command);
    all.addAll(List.of(more));
    return all.toArray(new String[0]);
  }

  /**
   * Every command's help renders without picocli falling back to the raw text (it warns on stderr
   * when a description is not a valid format string, e.g. a lone '%').
   */
  @Test
  void everyCommandsHelpIsAValidFormatString() {
    java.io.PrintStream original = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true));
    List<String> names = new java.util.ArrayList<>();
    try {
      picocli.CommandLine root =
          BatonCli.commandLine(
              new java.io.PrintWriter(java.io.Writer.nullWriter()),
              new java.io.PrintWriter(java.io.Writer.nullWriter()),
              Map.of());
      java.util.Deque<picocli.CommandLine> todo = new java.util.ArrayDeque<>(List.of(root));
      while (!todo.isEmpty()) {
        picocli.CommandLine c = todo.pop();
        names.add(c.getCommandSpec().qualifiedName());
        assertThat(c.getUsageMessage()).isNotBlank();
        todo.addAll(c.getSubcommands().values());
      }
    } finally {
      System.setErr(original);
    }
    assertThat(names).contains("baton demo", "baton lab", "baton worker", "baton stats");
    assertThat(captured.toString()).as("picocli warnings").isEmpty();
  }

  @Test
  void textThatWasNotUtf8OnTheCommandLineIsRefusedNotStoredReplaced() {
    // The JVM decodes the command line before main: bytes that are not UTF-8 arrive as U+FFFD.
    CliRunner cli = CliRunner.onNewMigratedSchema();
    CliRunner.Result r =
        cli.run("enqueue", "--kind", "k", "--args", "{}", "--idempotency-key", "order-\uFFFD");
    assertThat(r.exitCode()).as(r.err()).isEqualTo(BatonCli.USAGE);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err())
        .contains("argument 7 is not valid UTF-8 text: 'order-\\uFFFD'")
        .contains("U+FFFD");
    assertThat(cli.db.queryLong("SELECT count(*) FROM " + cli.schema + ".job")).isZero();
    // Where it also fails to parse (a number), the text is named all the same.
    CliRunner.Result p = cli.run("enqueue", "--kind", "k", "--args", "{}", "--priority", "1\uFFFD");
    assertThat(p.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(p.err()).contains("is not valid UTF-8 text");
  }

  @Test
  void aDatabaseUrlInTheEnvironmentThatWasNotUtf8IsRefused() {
    CliRunner.Result r =
        CliRunner.runRaw(
            Map.of("BATON_DATABASE_URL", "jdbc:postgresql://db.invalid/app?password=p\uFFFD"),
            "nodes");
    assertThat(r.exitCode()).as(r.err()).isEqualTo(BatonCli.USAGE);
    assertThat(r.err()).contains("BATON_DATABASE_URL is not valid UTF-8 text");
  }

  @Test
  void aHugeArgumentIsNotEchoedWholeInTheOneLineError() {
    String huge = "x".repeat(10 * 1024 * 1024);
    CliRunner.Result r = CliRunner.runRaw(Map.of(), "nodes", "--database-url", huge);
    assertThat(r.exitCode()).isEqualTo(BatonCli.USAGE);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err().length()).isLessThan(Errors.MAX_LINE + 100);
    assertThat(r.err())
        .contains("--database-url must be a JDBC URL")
        .contains("characters left out")
        .contains("e.g. jdbc:postgresql:");
  }

  @Test
  void aUrlParameterTheDriverRefusesIsAUsageErrorNotBlamedOnReachability() {
    CliRunner.Result r =
        CliRunner.runRaw(
            Map.of(),
            "nodes",
            "--database-url",
            "jdbc:postgresql://127.0.0.1:1/app?user=u&password=hunter2&sslmode=bogus");
    assertThat(r.exitCode()).as(r.err()).isEqualTo(BatonCli.USAGE);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err())
        .contains("has a parameter the driver refuses")
        .contains("sslmode")
        .doesNotContain("reachable")
        .doesNotContain("hunter2");
  }
}
