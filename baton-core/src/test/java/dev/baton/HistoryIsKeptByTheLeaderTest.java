package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.admin.BatonAdmin;
import dev.baton.admin.StatsAdmin;
import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A client that becomes leader counts the jobs that finished into the history at once (its tallier
 * runs with the other passes when it is elected): completions, also those that deleted their row,
 * and failures, each once, read back through {@link BatonAdmin#history}.
 */
class HistoryIsKeptByTheLeaderTest {

  record Mail(int n) implements JobArgs {}

  private static Baton startMailer(Fixture f, BatonConfig config) {
    return f.start(
        config,
        b ->
            b.handler(
                Mail.class,
                (ctx, args) -> {
                  if (args.n() < 0) {
                    throw new IllegalStateException("mailbox does not exist");
                  }
                }));
  }

  private static long total(List<StatsAdmin.QueueHistory> h, String queue, String what) {
    return h.stream()
        .filter(q -> q.queue().equals(queue))
        .flatMap(
            q ->
                switch (what) {
                  case "completed" -> q.completed().stream();
                  default -> q.failed().stream();
                })
        .mapToLong(Long::longValue)
        .sum();
  }

  @Test
  void aNewLeaderCountsTheJobsThatFinishedBeforeIt() {
    try (Fixture f = new Fixture()) {
      // no maintenance: nothing counts the jobs while they finish
      Baton kept = startMailer(f, f.config().queue("kept", 4).maintenanceEnabled(false).build());
      for (int i = 0; i < 7; i++) {
        kept.enqueue(new Mail(i), EnqueueOptions.builder().queue("kept").build());
      }
      kept.enqueue(new Mail(-1), EnqueueOptions.builder().queue("kept").maxAttempts(1).build());
      Baton deleting =
          startMailer(
              f,
              f.config()
                  .queue("deleting", 4)
                  .completedRetention(Duration.ZERO)
                  .maintenanceEnabled(false)
                  .build());
      for (int i = 0; i < 5; i++) {
        deleting.enqueue(new Mail(i), EnqueueOptions.builder().queue("deleting").build());
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  f.count(
                              "SELECT count(*) FROM %s.job WHERE queue = 'kept'"
                                  + " AND state IN ('completed', 'discarded')")
                          == 8
                      && f.count("SELECT count(*) FROM %s.job WHERE queue = 'deleting'") == 0);
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      assertThat(admin.history(Duration.ofHours(1), Duration.ofMinutes(1))).isEmpty();

      startMailer(f, f.config().queue("other", 1).build()); // leads, and tallies at once

      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  total(
                          admin.history(Duration.ofHours(1), Duration.ofMinutes(1)),
                          "deleting",
                          "completed")
                      == 5);
      List<StatsAdmin.QueueHistory> h = admin.history(Duration.ofHours(1), Duration.ofMinutes(1));
      assertThat(total(h, "kept", "completed")).isEqualTo(7);
      assertThat(total(h, "kept", "failed")).isEqualTo(1);
      assertThat(admin.kinds("kept")).hasSize(1);
    }
  }
}
