package dev.baton;

/**
 * An enqueue was refused because it would take its queue over the queue's backlog cap: the most
 * jobs that may wait (available, scheduled and retryable) in it at once (docs/backlog-caps.md).
 * Nothing of the refused call was written: a single enqueue inserted no job, a bulk enqueue
 * inserted none of its jobs (a bulk is all or nothing). Thrown without a database error, so a
 * caller's transaction on its own connection is not aborted: its other writes stay, and it may go
 * on, commit or roll back as it chooses.
 *
 * <p>The caps are read in the database under a per-queue lock, so concurrent producers never take a
 * queue over its cap (see docs/backlog-caps.md for the exact guarantee); a later enqueue succeeds
 * once workers have taken jobs from the queue or the cap was raised.
 */
public class BacklogCapExceededException extends BatonException {
  private static final long serialVersionUID = 1L;

  /**
   * The SQLSTATE that the database function {@code <schema>.check_backlog_cap(queue, jobs)} raises
   * for a refusal, for callers that enqueue in SQL: {@value}.
   */
  public static final String SQL_STATE = "BT001";

  private final String queue;
  private final int cap;
  private final int waiting;
  private final int jobs;

  /**
   * Creates the exception for a refusal of {@code jobs} jobs to {@code queue}, which had {@code
   * waiting} jobs waiting (counted up to its cap) under a cap of {@code cap}.
   */
  public BacklogCapExceededException(String queue, int cap, int waiting, int jobs) {
    super(
        "cannot enqueue "
            + jobs
            + (jobs == 1 ? " job" : " jobs")
            + " (queue="
            + queue
            + "): the queue has "
            + waiting
            + " waiting jobs and a backlog cap of "
            + cap
            + "; retry later or raise the cap");
    this.queue = queue;
    this.cap = cap;
    this.waiting = waiting;
    this.jobs = jobs;
  }

  /** The queue whose cap refused the enqueue. */
  public String queue() {
    return queue;
  }

  /** The queue's backlog cap at the check. */
  public int cap() {
    return cap;
  }

  /**
   * The queue's waiting jobs (available, scheduled, retryable) at the check, counted up to the cap:
   * a queue with more waiting (retries come back over a cap) reads as its cap.
   */
  public int waiting() {
    return waiting;
  }

  /** How many jobs of the queue the refused call asked to enqueue. */
  public int jobs() {
    return jobs;
  }
}
