package dev.baton.internal.held;

import dev.baton.internal.db.ClaimedJob;

/**
 * Per-job timings for an observer (the metrics binder), called on the worker thread around the
 * handler. Set on {@link NodeCounters#listener}; while none is set the executor skips the calls and
 * reads no clock for them, so the hot path allocates nothing for it.
 *
 * <p>Implementations must be fast, must not block and must not throw: they run on the worker thread
 * before and after the handler. Not public API.
 */
public interface JobListener {

  /**
   * The handler of {@code job} is about to start. {@code pickupNanos}: from the job becoming due
   * ({@code scheduled_at}: enqueue, run-at, retry or snooze time) to now; the part up to the claim
   * is measured by the database clock in the claim statement, the rest on this node's monotonic
   * clock.
   */
  void handlerStarting(ClaimedJob job, long pickupNanos);

  /**
   * The handler of {@code job} returned or threw {@code runNanos} after it started, its attempt
   * ending as {@code end}.
   */
  void handlerReturned(ClaimedJob job, long runNanos, AttemptEnd end);
}
