package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A handler's transaction left open after {@code ctx.completeIn(conn)} (which locks its job's row
 * until it commits) holds up only that job: the heartbeat keeps the leases of the node's other
 * jobs, which are not rescued while their handlers run, and {@code stop()} returns within its
 * timeout even when that handler ignores interrupts.
 */
class AnOpenCompletionTransactionDoesNotHoldUpTheNodeTest {

  record Tx(int n) implements JobArgs {}

  record Slow(int n) implements JobArgs {}

  @Test
  void anOpenTransactionalCompletionDoesNotStopTheLeasesOfOtherJobs() throws Exception {
    try (Fixture f = new Fixture()) {
      CountDownLatch completedIn = new CountDownLatch(1);
      CountDownLatch slowStarted = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Baton baton =
          f.start(
              f.config()
                  .queue("default", 2)
                  .lease(Duration.ofSeconds(1))
                  .heartbeatInterval(Duration.ofMillis(100))
                  .build(),
              b ->
                  b.handler(
                          Tx.class,
                          (ctx, a) -> {
                            try (Connection c = f.dataSource().getConnection()) {
                              c.setAutoCommit(false);
                              ctx.completeIn(c);
                              completedIn.countDown();
                              release.await(); // a slow commit, or a last statement that waits
                              c.commit();
                            }
                          })
                      .handler(
                          Slow.class,
                          (ctx, a) -> {
                            slowStarted.countDown();
                            release.await();
                          }));
      try {
        long tx = baton.enqueue(new Tx(1)).job().id(); // the lower id: locked first by the beat
        long slow = baton.enqueue(new Slow(1)).job().id();
        assertThat(completedIn.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
        await("the slow job keeps its lease while its handler runs (3 leases)")
            .during(Duration.ofSeconds(3))
            .atMost(Duration.ofSeconds(4))
            .untilAsserted(
                () -> {
                  assertThat(f.job(slow).state()).isEqualTo(JobState.RUNNING);
                  assertThat(f.job(slow).metadata().has("rescue_count")).isFalse();
                });
        assertThat(tx).isPositive();
      } finally {
        release.countDown();
      }
    }
  }

  @Test
  void stopReturnsWhileAHandlerThatIgnoresInterruptsHoldsItsCompletionTransaction()
      throws Exception {
    try (Fixture f = new Fixture()) {
      CountDownLatch completedIn = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Baton baton =
          f.start(
              f.config()
                  .queue("default", 1)
                  .lease(Duration.ofSeconds(1))
                  .heartbeatInterval(Duration.ofMillis(100))
                  .stopTimeout(Duration.ofMillis(100))
                  .maintenanceEnabled(false)
                  .build(),
              b ->
                  b.handler(
                      Tx.class,
                      (ctx, a) -> {
                        try (Connection c = f.dataSource().getConnection()) {
                          c.setAutoCommit(false);
                          ctx.completeIn(c);
                          completedIn.countDown();
                          awaitUninterruptibly(release);
                          c.commit();
                        }
                      }));
      try {
        baton.enqueue(new Tx(1));
        assertThat(completedIn.await(10, TimeUnit.SECONDS)).isTrue();
        // Heartbeats every 100 ms skip the locked row instead of waiting for it.
        await("no heartbeat waits for the job's row lock")
            .during(Duration.ofSeconds(1))
            .atMost(Duration.ofSeconds(5))
            .until(
                () ->
                    f.count("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
                        == 0);
        CompletableFuture<Void> stop = CompletableFuture.runAsync(baton::stop);
        // stop(): 0.1 s for handlers, interrupt, 5 s more, then completer, heartbeater, notifier.
        await("stop() returns").atMost(Duration.ofSeconds(12)).until(stop::isDone);
      } finally {
        release.countDown();
      }
    }
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
