package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * {@link PeriodicJob#nextDue}: the first due time strictly after the given instant, for five- and
 * six-field expressions, evaluated in the given zone (its offset, summer time included); empty for
 * an expression that is never due; an invalid expression refused naming what was expected.
 */
class PeriodicJobNextDueTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  @Test
  void nextDueIsStrictlyAfterTheGivenInstant() {
    assertThat(next("0 3 * * *", ZoneOffset.UTC, "2026-03-01T02:59:59Z"))
        .isEqualTo("2026-03-01T03:00:00Z");
    assertThat(next("0 3 * * *", ZoneOffset.UTC, "2026-03-01T03:00:00Z"))
        .as("a due time equal to after is not after it")
        .isEqualTo("2026-03-02T03:00:00Z");
    assertThat(next("0 3 * * *", ZoneOffset.UTC, "2026-12-31T03:00:00.001Z"))
        .isEqualTo("2027-01-01T03:00:00Z");
  }

  @Test
  void sixFieldsHaveALeadingSecondField() {
    assertThat(next("*/10 * * * * *", ZoneOffset.UTC, "2026-03-01T12:00:05Z"))
        .isEqualTo("2026-03-01T12:00:10Z");
    assertThat(next("*/10 * * * * *", ZoneOffset.UTC, "2026-03-01T12:00:50Z"))
        .isEqualTo("2026-03-01T12:01:00Z");
    assertThat(next("*/15 * * * *", ZoneOffset.UTC, "2026-03-01T12:00:05Z"))
        .as("five fields: minutes")
        .isEqualTo("2026-03-01T12:15:00Z");
  }

  @Test
  void dueTimesAreWallClockTimesOfTheZone() {
    // 03:00 in Berlin is 02:00 UTC in winter (CET) and 01:00 UTC in summer (CEST).
    assertThat(next("0 3 * * *", BERLIN, "2026-01-10T00:00:00Z")).isEqualTo("2026-01-10T02:00:00Z");
    assertThat(next("0 3 * * *", BERLIN, "2026-07-10T00:00:00Z")).isEqualTo("2026-07-10T01:00:00Z");
    // Across the change to summer time (29 March 2026): one day is 23 hours long.
    assertThat(next("0 3 * * *", BERLIN, "2026-03-28T02:00:00Z")).isEqualTo("2026-03-29T01:00:00Z");
    assertThat(next("0 9 * * 1", BERLIN, "2026-03-27T12:00:00Z"))
        .as("Monday 09:00 after the change")
        .isEqualTo("2026-03-30T07:00:00Z");
  }

  @Test
  void anExpressionThatIsNeverDueHasNoNextDueTime() {
    assertThat(
            PeriodicJob.nextDue(
                "0 0 30 2 *", ZoneOffset.UTC, Instant.parse("2026-01-01T00:00:00Z")))
        .isEmpty();
  }

  @Test
  void anInvalidExpressionIsRefusedNamingWhatWasExpected() {
    for (String bad : new String[] {"", "* * * *", "61 * * * *", "0 3 * * * * *"}) {
      assertThatThrownBy(
              () -> PeriodicJob.nextDue(bad, ZoneOffset.UTC, Instant.parse("2026-01-01T00:00:00Z")))
          .as(bad)
          .isInstanceOf(InvalidConfigException.class)
          .hasMessageContaining("a cron expression of 5 fields");
    }
  }

  private static String next(String expression, ZoneId zone, String after) {
    return PeriodicJob.nextDue(expression, zone, Instant.parse(after)).orElseThrow().toString();
  }
}
