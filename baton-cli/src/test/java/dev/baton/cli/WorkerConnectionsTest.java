package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The server connections a {@code baton worker} holds, counted in {@code pg_stat_activity} by its
 * application name, are exactly what docs/cli.md states: the queues' slots, plus 2 per queue, plus
 * 6 (at most 100). HikariCP opens the whole pool at start and keeps it (its {@code minimumIdle}
 * defaults to the pool's size), so the count is the pool's size, whether or not jobs run.
 */
class WorkerConnectionsTest {
  private static final Duration START = Duration.ofSeconds(90);

  private static CliRunner cli;

  @BeforeAll
  static void schema() {
    cli = CliRunner.onNewMigratedSchema();
  }

  @Test
  void aWorkerHoldsItsSlotsPlusTwoPerQueuePlusSixConnections() throws Exception {
    // queue specs -> documented count
    Map<List<String>, Integer> cases =
        Map.of(
            List.of("one:1"), 1 + 2 + 6,
            List.of("a:3", "b:2"), 5 + 2 * 2 + 6,
            List.of("q1:5", "q2:5", "q3:5", "q4:5"), 20 + 2 * 4 + 6);
    List<String> classPath = new ArrayList<>(WorkerProcess.testClassPath());
    classPath.add(testClasses().resolve("worker-provider").toString());
    int n = 0;
    for (Map.Entry<List<String>, Integer> c : cases.entrySet()) {
      String app = "baton-conn-" + ProcessHandle.current().pid() + "-" + n++;
      String node = app;
      List<String> args = new ArrayList<>();
      for (String q : c.getKey()) {
        args.add("--queue");
        args.add(q);
      }
      args.addAll(
          List.of(
              "--node-id",
              node,
              "--database-url",
              withApplicationName(cli.db.jdbcUrl(), app),
              "--schema",
              cli.schema));
      try (WorkerProcess worker = WorkerProcess.start(classPath, args)) {
        worker.awaitLine("baton worker " + node + " running", START);
        int expected = c.getValue();
        await("connections of " + c.getKey())
            .atMost(Duration.ofSeconds(30))
            .failFast("the worker exited", () -> !worker.isAlive())
            .until(() -> connections(app), k -> k >= expected);
        // A connection opened late would show within this second: the count must hold through it.
        await("no more connections of " + c.getKey())
            .during(Duration.ofSeconds(1))
            .atMost(Duration.ofSeconds(5))
            .until(() -> connections(app), k -> k == expected);
        worker.terminate();
        assertThat(worker.awaitExit(Duration.ofSeconds(30))).as(worker.describe()).isZero();
      }
    }
  }

  private static long connections(String app) {
    return cli.db.queryLong(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + app + "'");
  }

  /** The URL with its ApplicationName parameter, which the driver prefers to the pool's. */
  private static String withApplicationName(String url, String app) {
    return url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + app;
  }

  private static Path testClasses() throws Exception {
    return Path.of(
        WorkerConnectionsTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }
}
