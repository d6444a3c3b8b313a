package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The completer and the heartbeater of one node update overlapping rows at the same time. Both lock
 * their rows in id order, so they wait for each other instead of deadlocking. Drains jobs with a
 * heartbeat every 50 ms and counts the server's deadlocks.
 */
class HeartbeatAndCompletionDoNotDeadlockTest {

  record Quick(int n) implements JobArgs {}

  @Test
  void drainingWithAFastHeartbeatCausesNoDeadlock() {
    int jobs = 30_000;
    try (Fixture f = new Fixture(8)) {
      long deadlocksBefore = deadlocks(f);
      Baton baton =
          f.startOnOwnPool(
              40,
              f.config()
                  .queue("default", 128)
                  .lease(Duration.ofSeconds(2))
                  .heartbeatInterval(Duration.ofMillis(50))
                  .completerBatchSize(300)
                  .build(),
              b -> b.handler(Quick.class, (ctx, a) -> {}));
      List<JobRequest> requests = new ArrayList<>(jobs);
      for (int i = 0; i < jobs; i++) {
        requests.add(JobRequest.of(new Quick(i)));
      }
      for (int from = 0; from < jobs; from += 10_000) {
        f.reader().enqueueMany(requests.subList(from, from + 10_000));
      }
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> f.count("SELECT count(*) FROM %s.job WHERE state = 'completed'") == jobs);
      assertThat(deadlocks(f) - deadlocksBefore).as("deadlocks detected by the server").isZero();
      await().atMost(Duration.ofSeconds(10)).until(() -> baton.counters().completed() == jobs);
      assertThat(baton.counters().fenced()).isZero();
    }
  }

  private static long deadlocks(Fixture f) {
    return f.db()
        .queryLong("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()");
  }
}
