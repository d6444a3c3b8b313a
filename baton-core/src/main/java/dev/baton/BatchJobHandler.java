package dev.baton;

import java.util.List;

/**
 * Does the work of many jobs of one kind in one call: for kinds whose jobs are so small that the
 * cost of running each on its own (a worker thread, a handler call, its bookkeeping) outweighs the
 * work, or whose work is cheaper in bulk (one request to a bulk API, one multi-row write). Register
 * it with {@link Baton.Builder#batchHandler(Class, int, BatchJobHandler)}.
 *
 * <p>Batches: every job is claimed, leased, fenced and finished on its own, exactly as for a {@link
 * JobHandler}; only the call is shared. A batch holds the jobs of the kind that are ready on this
 * node when a call starts, up to the handler's maximum, so batches form when jobs arrive faster
 * than calls return, and a lone job runs at once in a batch of one. Every job of a batch holds one
 * of its queue's slots, so a batch is also at most the queue's concurrency. A call waits for no
 * other call to finish: a new call starts whenever a full batch is ready.
 *
 * <p>Outcome, per job:
 *
 * <ul>
 *   <li>returning completes every job of the batch not given an outcome by {@link
 *       BatchJob#fail(Throwable)};
 *   <li>{@link BatchJob#fail(Throwable)} gives one job the outcome a {@link JobHandler} throwing
 *       that exception would give it: an attempt failed (retried with backoff, discarded at its max
 *       attempts), or snoozed ({@link SnoozeJob}), or cancelled ({@link CancelJob});
 *   <li>throwing gives that outcome to every job of the batch not given one already.
 * </ul>
 *
 * <p>Stopping: the thread of a call is interrupted when the batch's timeout passes (the kind's
 * timeout, counted for every job from the call's start), when this client stops, or once every job
 * of the batch was cancelled or lost. A cancel or a lost lease of some of its jobs interrupts
 * nothing: those jobs' {@link JobContext#isCancelled()} turns true, a lost job's outcome is dropped
 * (its new holder's counts), and a cancelled job is recorded as cancelled unless the batch
 * completed it. Client interceptors ({@link dev.baton.spi.JobInterceptor}) wrap one job's attempt,
 * so they are not applied to batch calls, nor are the job fields put in the logging MDC; metrics
 * count every job as usual.
 *
 * @param <A> the args type
 */
@FunctionalInterface
public interface BatchJobHandler<A extends JobArgs> {

  /**
   * Works {@code batch}: at least one job, all of this handler's kind, in claim order. The list
   * cannot be modified.
   */
  void work(List<BatchJob<A>> batch) throws Exception;
}
