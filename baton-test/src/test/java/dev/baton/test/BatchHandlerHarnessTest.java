package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.BatchJob;
import dev.baton.CancelJob;
import dev.baton.JobArgs;
import dev.baton.SnoozeJob;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A batch handler run with test contexts, no database: one call, a result per job. */
class BatchHandlerHarnessTest {

  record Charge(long orderId) implements JobArgs {}

  @Test
  void eachJobGetsTheOutcomeFailGaveItAndTheRestComplete() {
    List<HandlerResult> r =
        HandlerHarness.runBatch(
            batch -> {
              for (BatchJob<Charge> job : batch) {
                if (job.args().orderId() == 2) {
                  job.fail(new IllegalStateException("card declined"));
                } else if (job.args().orderId() == 3) {
                  job.fail(SnoozeJob.of(Duration.ofMinutes(5)));
                }
              }
            },
            List.of(new Charge(1), new Charge(2), new Charge(3)));

    assertThat(r)
        .extracting(HandlerResult::outcome)
        .containsExactly(Outcome.COMPLETED, Outcome.RETRYABLE, Outcome.SNOOZED);
    assertThat(r.get(1).error()).hasMessage("card declined");
    assertThat(r.get(2).snoozeDelay()).isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void aThrowGoesToEveryJobNotGivenAnOutcomeByTheRulesOfItsOwnContext() {
    TestJobContext last = TestJobContext.builder(Charge.class).jobId(2).attempt(3, 3).build();
    TestJobContext cancelled = TestJobContext.builder(Charge.class).jobId(3).build();
    cancelled.cancel();
    List<HandlerResult> r =
        HandlerHarness.runBatch(
            batch -> {
              batch.get(0).fail(CancelJob.because("refunded"));
              throw new IllegalStateException("payment API down");
            },
            List.of(new Charge(1), new Charge(2), new Charge(3), new Charge(4)),
            List.of(
                TestJobContext.builder(Charge.class).jobId(1).build(),
                last,
                cancelled,
                TestJobContext.builder(Charge.class).jobId(4).build()));

    assertThat(r)
        .extracting(HandlerResult::outcome)
        .containsExactly(
            Outcome.CANCELLED, Outcome.DISCARDED, Outcome.CANCELLED, Outcome.RETRYABLE);
    assertThat(r.get(0).error()).hasMessage("refunded");
    assertThat(r.get(3).error()).hasMessage("payment API down");
  }

  @Test
  void listsOfDifferentSizesAreRefusedSayingWhatWasGiven() {
    assertThatThrownBy(
            () -> HandlerHarness.<Charge>runBatch(batch -> {}, List.of(new Charge(1)), List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("got 1 args and 0 contexts");
  }
}
