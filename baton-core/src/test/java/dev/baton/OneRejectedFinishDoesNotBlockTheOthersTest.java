package dev.baton;

import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One finish that PostgreSQL rejects (a NUL in the error text, a snooze too long for an interval)
 * does not stop the completer from writing every other finish of the node (invariant 9).
 */
class OneRejectedFinishDoesNotBlockTheOthersTest {

  record Poison(int n) implements JobArgs {}

  record Plain(int n) implements JobArgs {}

  @Test
  void aNulCharacterInAnExceptionMessageDoesNotBlockOtherFinishes() throws Exception {
    try (Fixture f = new Fixture()) {
      CountDownLatch poisoned = new CountDownLatch(1);
      Baton baton =
          f.start(
              f.config().queue("default", 4).retryPolicy((a, e) -> Duration.ofHours(1)).build(),
              b ->
                  b.handler(
                          Poison.class,
                          (ctx, a) -> {
                            poisoned.countDown();
                            // e.g. a parser reporting the byte it choked on
                            throw new IllegalStateException("unexpected byte \u0000 at offset 7");
                          })
                      .handler(
                          Plain.class,
                          (ctx, a) -> {
                            throw new IllegalStateException("an ordinary failure");
                          }));
      long poison = baton.enqueue(new Poison(1)).job().id();
      poisoned.await(10, TimeUnit.SECONDS);
      long plain = baton.enqueue(new Plain(1)).job().id();
      await("the ordinary failure is recorded")
          .atMost(Duration.ofSeconds(10))
          .until(() -> f.job(plain).state() == JobState.RETRYABLE);
      await("the NUL failure is recorded")
          .atMost(Duration.ofSeconds(10))
          .until(() -> f.job(poison).state() == JobState.RETRYABLE);
    }
  }

  @Test
  void aSnoozeTooLongForAnIntervalDoesNotBlockOtherFinishes() throws Exception {
    try (Fixture f = new Fixture()) {
      CountDownLatch poisoned = new CountDownLatch(1);
      Baton baton =
          f.start(
              f.config().queue("default", 4).retryPolicy((a, e) -> Duration.ofHours(1)).build(),
              b ->
                  b.handler(
                          Poison.class,
                          (ctx, a) -> {
                            poisoned.countDown();
                            // SnoozeJob.of accepts it: not negative
                            throw SnoozeJob.of(Duration.ofDays(200_000_000L));
                          })
                      .handler(
                          Plain.class,
                          (ctx, a) -> {
                            throw new IllegalStateException("an ordinary failure");
                          }));
      baton.enqueue(new Poison(1));
      poisoned.await(10, TimeUnit.SECONDS);
      long plain = baton.enqueue(new Plain(1)).job().id();
      await("the ordinary failure is recorded")
          .atMost(Duration.ofSeconds(10))
          .until(() -> f.job(plain).state() == JobState.RETRYABLE);
    }
  }
}
