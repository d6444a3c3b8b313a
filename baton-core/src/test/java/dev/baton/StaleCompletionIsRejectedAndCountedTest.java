package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Invariant 4: no job is completed twice; a stale worker's completion is rejected and counted. The
 * stale holder's lease is made to run out while its handler is blocked (as if its node stalled);
 * another client re-claims and completes the job; then the first handler returns normally.
 */
class StaleCompletionIsRejectedAndCountedTest {

  record Slow(String id) implements JobArgs {}

  @Test
  void staleWorkerCannotCompleteAfterLeaseLost() throws Exception {
    try (Fixture f = new Fixture()) {
      CountDownLatch firstStarted = new CountDownLatch(1);
      CountDownLatch releaseFirst = new CountDownLatch(1);
      AtomicInteger runsOnB = new AtomicInteger();
      // A: one slot, a long lease (no heartbeat during the test), and its handler blocks.
      Baton a =
          f.start(
              f.config()
                  .nodeId("A")
                  .queue("default", 1)
                  .lease(Duration.ofMinutes(2))
                  .maintenanceEnabled(false)
                  .build(),
              b ->
                  b.handler(
                      Slow.class,
                      (ctx, args) -> {
                        firstStarted.countDown();
                        // Ignores interruption, like a handler stuck in a blocking call would.
                        while (true) {
                          try {
                            releaseFirst.await();
                            return;
                          } catch (InterruptedException ignored) {
                            // keep waiting
                          }
                        }
                      }));
      long id = a.enqueue(new Slow("x")).job().id();
      assertThat(firstStarted.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      long firstFence = f.job(id).fence();

      // A stalls past its lease.
      f.execute(
          "UPDATE %s.job SET lease_expires_at = now() - interval '1 second' WHERE id = " + id);
      CountDownLatch secondStarted = new CountDownLatch(1);
      CountDownLatch releaseSecond = new CountDownLatch(1);
      Baton b =
          f.start(
              f.config().nodeId("B").queue("default", 4).build(),
              bb ->
                  bb.handler(
                      Slow.class,
                      (ctx, args) -> {
                        runsOnB.incrementAndGet();
                        secondStarted.countDown();
                        releaseSecond.await();
                      }));
      // B's rescuer returns the job to the queue and B claims it under a new fence.
      assertThat(secondStarted.await(15, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      long secondFence = f.job(id).fence();
      assertThat(secondFence).isGreaterThan(firstFence);

      // While B holds the job, A's handler returns normally: its completion must change nothing.
      releaseFirst.countDown();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> a.counters().fenced() + a.counters().completed() > 0);
      assertThat(a.counters().completed()).as("stale completion went through").isZero();
      assertThat(a.counters().fenced()).isEqualTo(1);
      assertThat(f.job(id).state()).isEqualTo(JobState.RUNNING);
      assertThat(f.job(id).fence()).isEqualTo(secondFence);

      releaseSecond.countDown();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.COMPLETED);
      await().atMost(Duration.ofSeconds(5)).until(() -> b.counters().completed() == 1);

      Job job = f.job(id);
      assertThat(job.state()).isEqualTo(JobState.COMPLETED);
      assertThat(job.fence()).isEqualTo(secondFence);
      assertThat(job.attempt()).as("the rescue gave A's attempt back").isEqualTo(1);
      assertThat(job.attemptedBy()).isEqualTo("B");
      assertThat(job.errors())
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.error()).isEqualTo("lease_expired");
                assertThat(e.message()).contains("lease expired on node A");
              });
      assertThat(job.metadata().path("rescue_count").asInt()).isEqualTo(1);
      assertThat(runsOnB).hasValue(1);
      assertThat(a.counters().completed()).isZero();
      assertThat(a.counters().fenced()).isEqualTo(1);
      assertThat(b.counters().completed()).isEqualTo(1);
    }
  }
}
