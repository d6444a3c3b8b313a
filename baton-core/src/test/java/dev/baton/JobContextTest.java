package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** What a handler sees in its {@link JobContext}, across attempts. */
class JobContextTest {

  record Seen(int n) implements JobArgs {}

  record Snapshot(long id, int attempt, long fence, String key, Instant deadline) {}

  @Test
  void idempotencyKeyIsStableAcrossAttemptsAndFenceGrows() {
    try (Fixture f = new Fixture()) {
      List<Snapshot> seen = new CopyOnWriteArrayList<>();
      f.start(
          f.config().queue("default", 2).retryPolicy((a, e) -> Duration.ofMillis(10)).build(),
          b ->
              b.handler(
                  Seen.class,
                  (ctx, a) -> {
                    seen.add(
                        new Snapshot(
                            ctx.jobId(),
                            ctx.attempt(),
                            ctx.fence(),
                            ctx.idempotencyKey(),
                            ctx.deadline()));
                    if (ctx.attempt() < 3) {
                      throw new IllegalStateException("again");
                    }
                  }));
      long derived = f.reader().enqueue(new Seen(1)).job().id();
      long keyed =
          f.reader()
              .enqueue(new Seen(2), EnqueueOptions.builder().idempotencyKey("order-7").build())
              .job()
              .id();
      await().atMost(Duration.ofSeconds(15)).until(() -> seen.size() == 6);

      List<Snapshot> a = seen.stream().filter(s -> s.id() == derived).toList();
      assertThat(a).extracting(Snapshot::attempt).containsExactly(1, 2, 3);
      assertThat(a).extracting(Snapshot::key).containsOnly("baton:" + f.schema() + ":" + derived);
      assertThat(a.get(1).fence()).isGreaterThan(a.get(0).fence());
      assertThat(a.get(2).fence()).isGreaterThan(a.get(1).fence());
      assertThat(a)
          .allSatisfy(s -> assertThat(s.deadline()).isAfter(Instant.now().minusSeconds(60)));
      assertThat(seen.stream().filter(s -> s.id() == keyed))
          .extracting(Snapshot::key)
          .containsOnly("order-7");
    }
  }

  @Test
  void extendLeaseMovesLeaseAndDeadline() {
    try (Fixture f = new Fixture()) {
      List<Instant> deadlines = new CopyOnWriteArrayList<>();
      f.start(
          f.config().queue("default", 1).build(),
          b ->
              b.handler(
                  Seen.class,
                  Duration.ofSeconds(5),
                  (ctx, a) -> {
                    deadlines.add(ctx.deadline());
                    ctx.extendLease(Duration.ofMinutes(10));
                    deadlines.add(ctx.deadline());
                    Job row = f.job(ctx.jobId());
                    deadlines.add(row.leaseExpiresAt());
                    deadlines.add(row.deadlineAt());
                  }));
      long id = f.reader().enqueue(new Seen(1)).job().id();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.COMPLETED);
      Instant before = deadlines.get(0);
      assertThat(deadlines.get(1)).isAfter(before.plus(Duration.ofMinutes(9)));
      assertThat(deadlines.get(2)).isAfter(before.plus(Duration.ofMinutes(9)));
      // The stored deadline, which the rescuer acts on, is a lease later than the holder's own
      // (the holder's is kept on the local monotonic clock, so equal up to clock noise).
      assertThat(deadlines.get(3))
          .isCloseTo(
              deadlines.get(1).plus(BatonConfig.DEFAULT_LEASE),
              org.assertj.core.api.Assertions.within(1, java.time.temporal.ChronoUnit.SECONDS));
    }
  }
}
