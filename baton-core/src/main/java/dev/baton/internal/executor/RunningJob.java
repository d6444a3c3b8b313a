package dev.baton.internal.executor;

import dev.baton.internal.db.ClaimedJob;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A job this node holds, from claim until its finish is written or dropped. Shared by the producer
 * (creates it), the executor thread (runs it), the heartbeater and notifier (may stop it) and the
 * completer (writes its finish).
 *
 * <p>The lock guards only the thread, the stop reason and the timeout timer, so an interrupt can never hit a
 * thread that has moved on to other work; nothing blocking happens under it. A {@link
 * ReentrantLock}, not {@code synchronized}, so a virtual thread holding it never pins its carrier.
 *
 * <p>Not public API.
 */
public final class RunningJob {
  private final ClaimedJob job;
  private final Runnable releaseSlot;
  private final ReentrantLock lock = new ReentrantLock();
  private Thread thread;
  private StopReason stopReason;
  private volatile boolean handlerDone;
  private volatile boolean completedInTransaction;
  private volatile Instant deadline;
  private volatile long leaseKnownUntilNanos;
  private ScheduledFuture<?> timeout;

  /**
   * Tracks {@code job}; {@code releaseSlot} gives its producer slot back once. The holder's
   * deadline is the stored one less {@code deadlineGrace}: the holder acts at its timeout, the
   * rescuer only a grace later.
   */
  public RunningJob(
      ClaimedJob job, Runnable releaseSlot, long leaseKnownUntilNanos, Duration deadlineGrace) {
    this.job = job;
    this.releaseSlot = releaseSlot;
    this.deadline = job.deadlineAt() == null ? null : job.deadlineAt().minus(deadlineGrace);
    this.leaseKnownUntilNanos = leaseKnownUntilNanos;
  }

  /** The claimed row. */
  public ClaimedJob job() {
    return job;
  }

  /** The job id. */
  public long id() {
    return job.id();
  }

  /** The holder's fence. */
  public long fence() {
    return job.fence();
  }

  /**
   * Tells the handler to stop for {@code reason} and interrupts its thread if it is running. The
   * first reason wins, except {@link StopReason#LOST}, which overrides any other.
   */
  public void stop(StopReason reason) {
    lock.lock();
    try {
      if (stopReason == null || reason == StopReason.LOST) {
        stopReason = reason;
      }
      if (thread != null) {
        thread.interrupt();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Why the handler was told to stop, or null. */
  public StopReason stopReason() {
    lock.lock();
    try {
      return stopReason;
    } finally {
      lock.unlock();
    }
  }

  void attach(Thread t) {
    lock.lock();
    try {
      thread = t;
      if (stopReason != null) {
        t.interrupt();
      }
    } finally {
      lock.unlock();
    }
  }

  void detach() {
    lock.lock();
    try {
      thread = null;
      // Clear an interrupt aimed at this job so it cannot leak into the thread's next task.
      Thread.interrupted();
    } finally {
      lock.unlock();
    }
  }

  /** Whether the handler has returned (its finish may still be waiting to be written). */
  public boolean handlerDone() {
    return handlerDone;
  }

  /**
   * Whether the handler completed the job in its own transaction: the row may then be {@code
   * completed} before the handler returns, which is not a lost job.
   */
  public boolean completedInTransaction() {
    return completedInTransaction;
  }

  void markCompletedInTransaction() {
    completedInTransaction = true;
  }

  void markHandlerDone() {
    handlerDone = true;
  }

  /** When the current attempt times out. */
  public Instant deadline() {
    return deadline;
  }

  void deadline(Instant deadline) {
    this.deadline = deadline;
  }

  /** Until when (System.nanoTime) the lease is known to hold, from the last good heartbeat. */
  public long leaseKnownUntilNanos() {
    return leaseKnownUntilNanos;
  }

  /** Records a successful lease extension. */
  public void leaseKnownUntilNanos(long nanos) {
    this.leaseKnownUntilNanos = nanos;
  }

  void replaceTimeout(ScheduledFuture<?> next) {
    lock.lock();
    try {
      if (timeout != null) {
        timeout.cancel(false);
      }
      timeout = next;
    } finally {
      lock.unlock();
    }
  }

  void cancelTimeout() {
    replaceTimeout(null);
  }

  void releaseSlot() {
    releaseSlot.run();
  }
}
