package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A failed attempt's error entry is bounded: its message is cut like its stack trace, so a huge
 * exception message does not grow the job's row by its size on every attempt.
 */
class ErrorTextIsCappedPerAttemptTest {

  record Loud(int n) implements JobArgs {}

  @Test
  void aHugeExceptionMessageIsStoredCutWithItsLength() {
    String huge = "\ud83d\ude00" + "m".repeat(5 << 20);
    try (Fixture f = new Fixture()) {
      f.start(
          f.config().queue("default", 1).retryPolicy((attempt, e) -> Duration.ofMillis(10)).build(),
          b ->
              b.handler(
                  Loud.class,
                  (ctx, a) -> {
                    throw new IllegalStateException(huge);
                  }));
      long id =
          f.reader()
              .enqueue(new Loud(1), EnqueueOptions.builder().maxAttempts(3).build())
              .job()
              .id();
      await().atMost(Duration.ofSeconds(30)).until(() -> f.job(id).state() == JobState.DISCARDED);
      Job job = f.job(id);
      assertThat(job.errors()).hasSize(3);
      for (JobError e : job.errors()) {
        assertThat(e.message())
            .startsWith("\ud83d\ude00mmm")
            .endsWith("... (cut: " + huge.length() + " characters)")
            .hasSizeLessThan(4_100);
        assertThat(e.trace()).hasSizeLessThanOrEqualTo(4_000);
      }
      assertThat(f.count("SELECT octet_length(errors::text) FROM %s.job WHERE id = " + id))
          .isLessThan(30_000);
    }
  }
}
