package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * "A handler failure is data: it is recorded on the row and never escapes the worker thread", for
 * every outcome: a failure whose exception cannot print its message, and a snooze longer than
 * {@code Long.MAX_VALUE} milliseconds, are recorded: the job leaves {@code running} instead of
 * staying held until its deadline.
 */
class EveryHandlerOutcomeIsRecordedTest {

  record Job1(int n) implements JobArgs {}

  /** An exception whose message cannot be computed (a lazy message that fails). */
  static final class OpaqueException extends RuntimeException {
    @Override
    public String getMessage() {
      throw new IllegalStateException("message unavailable");
    }
  }

  @Test
  void aFailureWhoseCauseCannotBePrintedIsStillRecorded() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          f.start(
              f.config().queue("default", 2).build(),
              b ->
                  b.handler(
                      Job1.class,
                      (ctx, a) -> {
                        throw new RuntimeException("outer", new OpaqueException());
                      }));
      long id =
          baton.enqueue(new Job1(1), EnqueueOptions.builder().maxAttempts(1).build()).job().id();
      await()
          .dontCatchUncaughtExceptions()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(f.job(id).state()).isEqualTo(JobState.DISCARDED));
      assertThat(f.job(id).errors())
          .singleElement()
          .satisfies(e -> assertThat(e.message()).isEqualTo("outer"));
    }
  }

  @Test
  void aSnoozeLongerThanLongMaxMillisIsStillRecorded() {
    try (Fixture f = new Fixture()) {
      Baton baton =
          f.start(
              f.config().queue("default", 2).build(),
              b ->
                  b.handler(
                      Job1.class,
                      (ctx, a) -> {
                        throw SnoozeJob.of(Duration.ofSeconds(Long.MAX_VALUE)); // accepted: >= 0
                      }));
      long id = baton.enqueue(new Job1(1)).job().id();
      await()
          .dontCatchUncaughtExceptions()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(f.job(id).state()).isNotEqualTo(JobState.RUNNING));
      assertThat(baton.counters().running()).isZero();
    }
  }
}
