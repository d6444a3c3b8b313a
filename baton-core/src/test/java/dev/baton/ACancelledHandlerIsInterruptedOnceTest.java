package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A cancelled job's handler is interrupted once (docs/concurrency.md): a handler that clears the
 * interrupt to finish some I/O is not interrupted again while it finishes, by later heartbeats
 * (which still see the cancel request) or by the stop of its job.
 */
class ACancelledHandlerIsInterruptedOnceTest {

  record Upload(int n) implements JobArgs {}

  @Test
  void aCancelledHandlerThatClearsTheInterruptIsNotInterruptedAgain() throws Exception {
    try (Fixture f = new Fixture()) {
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch done = new CountDownLatch(1);
      AtomicInteger laterInterrupts = new AtomicInteger();
      Baton baton =
          f.start(
              f.config()
                  .queue("default", 1)
                  .lease(Duration.ofSeconds(3))
                  .heartbeatInterval(Duration.ofMillis(100))
                  .build(),
              b ->
                  b.handler(
                      Upload.class,
                      (ctx, a) -> {
                        started.countDown();
                        try {
                          Fixture.blockUntilInterrupted();
                        } catch (InterruptedException first) {
                          // cancelled: finish the current chunk regardless (interrupt cleared)
                        }
                        long until = System.nanoTime() + Duration.ofMillis(1500).toNanos();
                        while (System.nanoTime() < until) {
                          try {
                            Thread.sleep(Math.max(1, (until - System.nanoTime()) / 1_000_000));
                          } catch (InterruptedException again) {
                            laterInterrupts.incrementAndGet();
                          }
                        }
                        done.countDown();
                        throw new InterruptedException("stopped after the chunk");
                      }));
      long id = baton.enqueue(new Upload(1)).job().id();
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(baton.cancel(id)).contains(JobState.RUNNING);
      assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
      await().atMost(Duration.ofSeconds(10)).until(() -> f.job(id).state() == JobState.CANCELLED);
      assertThat(laterInterrupts).as("interrupts after the first one").hasValue(0);
    }
  }
}
