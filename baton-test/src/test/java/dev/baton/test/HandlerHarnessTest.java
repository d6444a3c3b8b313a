package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.CancelJob;
import dev.baton.JobArgs;
import dev.baton.SnoozeJob;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** One handler run with a test context, no database. */
class HandlerHarnessTest {

  record Charge(long orderId) implements JobArgs {}

  @Test
  void aReturnCompletesAndTheHandlerSeesTheContextItWasGiven() {
    Instant deadline = Instant.parse("2030-01-01T00:00:00Z");
    TestJobContext ctx =
        TestJobContext.builder(Charge.class)
            .jobId(9)
            .queue("payments")
            .attempt(2, 5)
            .fence(77)
            .idempotencyKey("charge-9")
            .deadline(deadline)
            .metadata("tenant", "acme")
            .build();
    AtomicReference<String> seen = new AtomicReference<>();

    HandlerResult r =
        HandlerHarness.run(
            (c, charge) ->
                seen.set(
                    c.jobId()
                        + " "
                        + c.kind()
                        + " "
                        + c.queue()
                        + " "
                        + c.attempt()
                        + "/"
                        + c.maxAttempts()
                        + " "
                        + c.fence()
                        + " "
                        + c.idempotencyKey()
                        + " "
                        + c.deadline()
                        + " "
                        + c.metadata().path("tenant").asText()
                        + " "
                        + charge.orderId()),
            new Charge(9),
            ctx);

    assertThat(r.outcome()).isEqualTo(Outcome.COMPLETED);
    assertThat(r.error()).isNull();
    assertThat(seen).hasValue("9 charge payments 2/5 77 charge-9 " + deadline + " acme 9");
  }

  @Test
  void aThrowIsRetryableBeforeTheLastAttemptAndDiscardedOnIt() {
    RuntimeException boom = new RuntimeException("card declined");
    HandlerResult early =
        HandlerHarness.run(
            (c, a) -> {
              throw boom;
            },
            new Charge(1),
            TestJobContext.builder(Charge.class).attempt(2, 3).build());
    HandlerResult last =
        HandlerHarness.run(
            (c, a) -> {
              throw boom;
            },
            new Charge(1),
            TestJobContext.builder(Charge.class).attempt(3, 3).build());

    assertThat(early.outcome()).isEqualTo(Outcome.RETRYABLE);
    assertThat(early.error()).isSameAs(boom);
    assertThat(last.outcome()).isEqualTo(Outcome.DISCARDED);
  }

  @Test
  void snoozeAndCancelJobAreReportedAsSuch() {
    HandlerResult snoozed =
        HandlerHarness.run(
            (c, a) -> {
              throw SnoozeJob.of(Duration.ofSeconds(30));
            },
            new Charge(1));
    HandlerResult cancelled =
        HandlerHarness.run(
            (c, a) -> {
              throw CancelJob.because("refunded");
            },
            new Charge(1));

    assertThat(snoozed.outcome()).isEqualTo(Outcome.SNOOZED);
    assertThat(snoozed.snoozeDelay()).isEqualTo(Duration.ofSeconds(30));
    assertThat(cancelled.outcome()).isEqualTo(Outcome.CANCELLED);
    assertThat(cancelled.error()).hasMessage("refunded");
  }

  @Test
  void cancellingTheContextInterruptsABlockedHandlerAndCancelsTheJob() throws Exception {
    TestJobContext ctx = TestJobContext.builder(Charge.class).build();
    CountDownLatch started = new CountDownLatch(1);
    Thread canceller =
        new Thread(
            () -> {
              try {
                if (started.await(30, TimeUnit.SECONDS)) {
                  ctx.cancel();
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    canceller.start();

    HandlerResult r =
        HandlerHarness.run(
            (c, a) -> {
              started.countDown();
              new CountDownLatch(1).await(); // a blocking call that honours interruption
            },
            new Charge(1),
            ctx);
    canceller.join();

    assertThat(r.outcome()).isEqualTo(Outcome.CANCELLED);
    assertThat(r.error()).isInstanceOf(InterruptedException.class);
    assertThat(ctx.isCancelled()).isTrue();
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void extendLeaseMovesTheDeadlineByTheContextsClock() {
    TestClock clock = TestClock.at(Instant.parse("2030-01-01T00:00:00Z"));
    TestJobContext ctx =
        TestJobContext.builder(Charge.class)
            .clock(clock)
            .deadline(clock.instant().plusSeconds(10))
            .build();

    HandlerHarness.run((c, a) -> c.extendLease(Duration.ofMinutes(5)), new Charge(1), ctx);

    assertThat(ctx.deadline()).isEqualTo(clock.instant().plus(Duration.ofMinutes(5)));
  }
}
