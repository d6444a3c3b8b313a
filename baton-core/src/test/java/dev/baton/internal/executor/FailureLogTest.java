package dev.baton.internal.executor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.CapturedLog;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A kind failing in a flood writes at most {@link FailureLog#LINES_PER_WINDOW} lines a minute, then
 * one summary line naming what was left out; another kind keeps its own lines.
 */
class FailureLogTest {
  private static final String LOGGER = "dev.baton.failures.test";

  private static FailureLog.Failure failure(long id, String kind, boolean discarded) {
    return new FailureLog.Failure(
        new FailureLog.Attempt(id, kind, "default", 1, discarded ? 1 : 20),
        discarded ? null : 1_000L,
        "java.lang.IllegalStateException",
        "flood " + id,
        new IllegalStateException("flood " + id));
  }

  @Test
  void aFloodOfOneKindIsCutToTheLimitPerMinuteAndSummed() {
    AtomicLong now = new AtomicLong(0);
    FailureLog fl = new FailureLog(LoggerFactory.getLogger(LOGGER), now::get);
    try (CapturedLog log = new CapturedLog()) {
      boolean scheduled = false;
      for (int i = 1; i <= 500; i++) {
        scheduled |= fl.failed(failure(i, "flood", i > 400));
      }
      assertThat(scheduled).as("the first failure left out asks for a flush").isTrue();
      fl.failed(failure(1_000, "other", false));
      assertThat(log.lines("INFO", LOGGER)).hasSize(FailureLog.LINES_PER_WINDOW + 1);
      assertThat(log.lines("INFO", LOGGER)).last().asString().contains("job 1000 (kind other");
      assertThat(log.lines("WARN", LOGGER)).isEmpty();

      fl.flushEnded();
      assertThat(log.lines("WARN", LOGGER)).as("the window has not ended").isEmpty();
      now.addAndGet(FailureLog.WINDOW.plus(Duration.ofSeconds(1)).toNanos());
      fl.flushEnded();
      assertThat(log.lines("WARN", LOGGER))
          .singleElement()
          .asString()
          .contains("kind flood: 490 more failed attempts in the last 61 s were not logged")
          .contains(
              "100 of them discarded: jobs [401, 402, 403, 404, 405, 406, 407, 408, 409, 410]")
          .contains("and more");
      // A new window: lines again.
      fl.failed(failure(501, "flood", false));
      assertThat(log.lines("INFO", LOGGER)).last().asString().contains("job 501 (kind flood");
    }
  }
}
