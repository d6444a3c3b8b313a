package dev.baton.test;

import dev.baton.Job;
import dev.baton.JobError;
import java.time.Instant;

/**
 * One job run by {@link TestBaton#drain}, and what became of it.
 *
 * @param id the job id
 * @param kind its kind
 * @param attempt the attempt that ran, 1-based
 * @param outcome what the run did
 * @param error the error recorded for this attempt (retryable, discarded, cancelled), else null
 * @param job the job's row afterwards, or null when its completion deleted it ({@code
 *     completedRetention} zero)
 */
public record JobOutcome(
    long id, String kind, int attempt, Outcome outcome, JobError error, Job job) {

  /**
   * When the job may run next (retryable or snoozed), by the drain's clock: advance the clock to it
   * and drain again. Null for a final outcome.
   */
  public Instant nextRunAt() {
    return outcome == Outcome.RETRYABLE || outcome == Outcome.SNOOZED ? job.scheduledAt() : null;
  }
}
