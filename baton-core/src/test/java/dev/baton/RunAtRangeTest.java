package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testing.Fixture;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The run-at range is one rule for every enqueue path: every time from {@link
 * EnqueueOptions#MIN_RUN_AT} to {@link EnqueueOptions#MAX_RUN_AT} is stored exactly by {@code
 * enqueue} and {@code enqueueMany} alike, and a time outside it is refused before any SQL.
 */
class RunAtRangeTest {

  record Tick(int n) implements JobArgs {}

  private static final List<Instant> EDGES =
      List.of(
          EnqueueOptions.MIN_RUN_AT,
          EnqueueOptions.MIN_RUN_AT.plusNanos(1_000),
          Instant.parse("-4712-01-01T00:00:00Z"),
          Instant.parse("-0001-06-30T12:00:00.5Z"),
          Instant.parse("0000-01-01T00:00:00Z"),
          Instant.parse("0001-01-01T00:00:00Z"),
          Instant.parse("1582-10-10T00:00:00Z"),
          Instant.parse("+10000-01-01T00:00:00.000001Z"),
          EnqueueOptions.MAX_RUN_AT);

  private static EnqueueOptions at(Instant t) {
    return EnqueueOptions.builder().runAt(t).build();
  }

  @Test
  void everyTimeOfTheRangeIsStoredExactlyByEnqueueAndEnqueueMany() {
    try (Fixture f = new Fixture()) {
      Baton baton = f.reader();
      for (Instant t : EDGES) {
        assertThat(baton.enqueue(new Tick(1), at(t)).job().scheduledAt())
            .as("enqueue")
            .isEqualTo(t);
        EnqueueManyResult many =
            baton.enqueueMany(
                List.of(JobRequest.of(new Tick(2), at(t)), JobRequest.of(new Tick(3))));
        assertThat(baton.job(many.jobIds()[0]).orElseThrow().scheduledAt())
            .as("enqueueMany")
            .isEqualTo(t);
      }
    }
  }

  @Test
  void aTimeOutsideTheRangeIsRefusedNamingTheRange() {
    for (Instant t :
        List.of(
            EnqueueOptions.MIN_RUN_AT.minusNanos(1_000),
            EnqueueOptions.MAX_RUN_AT.plusNanos(1_000))) {
      assertThatThrownBy(() -> at(t))
          .isInstanceOf(InvalidJobException.class)
          .hasMessageContaining("runAt must be between " + EnqueueOptions.MIN_RUN_AT);
    }
  }
}
