package dev.baton;

/**
 * One job of a {@link BatchJobHandler}'s batch: its context, its args, and a way to give it an
 * outcome of its own.
 *
 * @param <A> the args type
 */
public interface BatchJob<A extends JobArgs> {

  /** This job's context: its id, fence, idempotency key, lease and cancellation. */
  JobContext context();

  /** This job's args. */
  A args();

  /**
   * Gives this job the outcome a {@link JobHandler} throwing {@code cause} would give it: its
   * attempt failed (retried with backoff, discarded at its max attempts), or it is snoozed ({@link
   * SnoozeJob}) or cancelled ({@link CancelJob}). The other jobs of the batch are not affected. The
   * first call counts; later ones are ignored.
   *
   * @throws IllegalStateException if the handler's call has already returned
   */
  void fail(Throwable cause);
}
