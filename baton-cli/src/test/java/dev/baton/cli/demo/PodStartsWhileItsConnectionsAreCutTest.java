package dev.baton.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A pod started while the demo terminates every pod connection (the replacement pod can start
 * during the backend kill) must still come up: a CI run once saw it exit when its pool's first
 * connection was cut.
 */
class PodStartsWhileItsConnectionsAreCutTest {

  @Test
  void aPodWhoseFirstConnectionsAreTerminatedStillStarts() throws Exception {
    TestDatabase db = TestDatabase.get();
    String schema = db.newMigratedSchema();
    String node = "pod-cut-" + schema;
    try (PodProcess pod =
        PodProcess.start(
            node,
            List.of(
                "--url", db.jdbcUrl(),
                "--schema", schema,
                "--node", node,
                "--provider", "http://127.0.0.1:9/v1/emails",
                "--concurrency", "2",
                "--lease-ms", "3000",
                "--metrics-host", "127.0.0.1",
                "--metrics-port", "0"))) {
      // Cut every connection of the pod as soon as it appears, for the first 4 seconds.
      AtomicInteger cut = new AtomicInteger();
      long until = System.nanoTime() + Duration.ofSeconds(4).toNanos();
      while (System.nanoTime() < until && pod.isAlive()) {
        cut.addAndGet(
            (int)
                db.queryLong(
                    "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM"
                        + " pg_stat_activity WHERE application_name = 'baton-demo-"
                        + node
                        + "'"));
      }
      assertThat(cut.get()).as("connections cut while the pod started").isPositive();
      assertThat(pod.awaitReady(Duration.ofSeconds(60)))
          .as("the pod came up; its log: %s", pod.stderrTail())
          .isTrue();
      assertThat(pod.stop(Duration.ofSeconds(20))).as(pod.stderrTail()).isTrue();
    }
  }
}
