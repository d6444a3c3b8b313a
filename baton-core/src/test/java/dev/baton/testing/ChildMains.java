package dev.baton.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.Counters;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * What the child mains ({@link WorkerMain}, {@link ClusterWorkerMain}, {@link PeriodicNodeMain})
 * share: their pool's configuration, their stdin command loop, their stdout lines, and their final
 * counters.
 */
final class ChildMains {

  private ChildMains() {}

  /**
   * A pool of at most {@code maxSize} connections to {@code url}, none kept idle, whose sessions
   * carry {@code nodeId} as {@code application_name}.
   */
  static HikariConfig poolConfig(String url, String poolName, String nodeId, int maxSize) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(url);
    cfg.setMaximumPoolSize(maxSize);
    cfg.setMinimumIdle(0);
    cfg.setPoolName(poolName);
    cfg.addDataSourceProperty("ApplicationName", nodeId);
    return cfg;
  }

  /** The pool of {@link #poolConfig}, started. */
  static HikariDataSource pool(String url, String poolName, String nodeId, int maxSize) {
    return new HikariDataSource(poolConfig(url, poolName, nodeId, maxSize));
  }

  /**
   * Reads stdin commands until {@code stop} or the end of input, handing each other line to {@code
   * onCommand}.
   */
  static void awaitStop(Consumer<String> onCommand) throws IOException {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.equals("stop")) {
        break;
      }
      onCommand.accept(line);
    }
  }

  /** Reads stdin until {@code stop} or the end of input, ignoring other lines. */
  static void awaitStop() throws IOException {
    awaitStop(line -> {});
  }

  /**
   * Counters once every claimed job has an outcome: a handler's result is counted on its worker
   * thread just after {@link Baton#stop()} stops waiting for it. Bounded; returns what it has.
   */
  static Counters awaitSettled(Baton baton) {
    try {
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> outcomes(baton.counters()) >= baton.counters().claimed());
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      // bounded: report what there is
    }
    return baton.counters();
  }

  private static long outcomes(Counters c) {
    return c.completed()
        + c.retried()
        + c.discarded()
        + c.cancelled()
        + c.snoozed()
        + c.fenced()
        + c.handedBack();
  }

  /** Prints one stdout line for the test, flushed at once; lines of two threads do not mix. */
  static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
