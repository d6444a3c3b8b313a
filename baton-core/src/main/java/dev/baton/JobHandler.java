package dev.baton;

/**
 * Does the work of one kind of job.
 *
 * <p>Outcome: returning completes the job; throwing fails this attempt, which is retried with
 * backoff until the job's max attempts, then discarded. Throw {@link SnoozeJob} to run again later
 * without using an attempt, or {@link CancelJob} to stop for good.
 *
 * <p>Concurrency and failure: many jobs of one kind run at once, on virtual threads on Java 21+ and
 * on a bounded pool on Java 17, so a handler must be thread-safe. No database transaction of Baton
 * is open while it runs. The thread is interrupted when the job is cancelled, its timeout passes,
 * this client stops, or the job's lease was lost to another holder; a handler that blocks should
 * let {@link InterruptedException} propagate. On a virtual thread (Java 21+), that interrupt also
 * closes a socket the handler is blocked on (a JDBC or HTTP call then fails at once), as it does
 * for any virtual thread. Delivery is at least once: use {@link JobContext#idempotencyKey()} and
 * {@link JobContext#fence()} toward external systems, or {@link
 * JobContext#completeIn(java.sql.Connection)} for writes to the same database.
 *
 * @param <A> the args type
 */
@FunctionalInterface
public interface JobHandler<A extends JobArgs> {

  /** Works one job. */
  void work(JobContext context, A args) throws Exception;
}
