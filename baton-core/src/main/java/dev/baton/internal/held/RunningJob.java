package dev.baton.internal.held;

import dev.baton.internal.db.ClaimedJob;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A job this node holds, from claim until its finish is written or dropped. Shared by the producer
 * (creates it), the executor thread (runs it), the heartbeater and notifier (may stop it) and the
 * completer (writes its finish).
 *
 * <p>The lock guards only the thread and the stop reason, so an interrupt can never hit a thread
 * that has moved on to other work; nothing blocking happens under it. A {@link ReentrantLock}, not
 * {@code synchronized}, so a virtual thread holding it never pins its carrier.
 *
 * <p>Not public API.
 */
public final class RunningJob {
  private final ClaimedJob job;
  private final Consumer<RunningJob> releaseSlot;
  private final ReentrantLock lock = new ReentrantLock();
  private Thread thread;
  private BatchCall batch; // the batch call this job is part of, while it runs in one
  private StopReason stopReason;
  private volatile boolean handlerDone;
  private volatile boolean started;
  private volatile boolean completedInTransaction;
  private final long claimedAtNanos;
  private volatile long
      startedAtNanos; // local monotonic clock; 0 until the handler is about to run
  private volatile long deadlineNanos; // local monotonic clock; 0 until the executor sets it
  private volatile long leaseKnownUntilNanos;
  private volatile boolean timed; // the handler runs under its deadline (TimeoutSweeper)

  /**
   * Tracks {@code job}; {@code releaseSlot} gives its producer slot back once. {@code
   * claimedAtNanos} is {@link System#nanoTime()} taken before the claim statement was sent: the
   * holder's lease and deadline are counted from it on the local monotonic clock, never from the
   * database's timestamps, so clock skew between node and database cannot make a timeout fire early
   * or late, and the holder's lease starts no later than the stored one.
   */
  public RunningJob(ClaimedJob job, Runnable releaseSlot, long claimedAtNanos, Duration lease) {
    this(job, rj -> releaseSlot.run(), claimedAtNanos, lease);
  }

  /**
   * As {@link #RunningJob(ClaimedJob, Runnable, long, Duration)}, with a {@code releaseSlot} that
   * is given this job, so its producer can read {@link #startedAtNanos()} when the slot comes back.
   */
  public RunningJob(
      ClaimedJob job, Consumer<RunningJob> releaseSlot, long claimedAtNanos, Duration lease) {
    this.job = job;
    this.releaseSlot = releaseSlot;
    this.claimedAtNanos = claimedAtNanos;
    this.leaseKnownUntilNanos = claimedAtNanos + lease.toNanos();
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
      // Interrupt once per change of reason, not on every call: a heartbeat repeats a cancel
      // request every beat, and a handler that cleared its interrupt to finish some I/O must not
      // be interrupted again for the same reason.
      boolean changed =
          stopReason == null || (reason == StopReason.LOST && stopReason != StopReason.LOST);
      if (changed) {
        boolean first = stopReason == null;
        stopReason = reason;
        if (batch != null) {
          batch.stopped(first, reason); // the batch's call decides whether to interrupt
        } else if (thread != null) {
          thread.interrupt();
        }
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

  /** The executor runs the handler on {@code t}: a stop from now on interrupts {@code t}. */
  public void attach(Thread t) {
    lock.lock();
    try {
      started = true;
      thread = t;
      if (stopReason != null) {
        t.interrupt();
      }
    } finally {
      lock.unlock();
    }
  }

  /** As {@link #attach}, for a job of the batch call {@code run} on {@code t}. */
  public void attach(Thread t, BatchCall run) {
    lock.lock();
    try {
      started = true;
      thread = t;
      batch = run;
      if (stopReason != null) {
        run.stopped(true, stopReason);
      }
    } finally {
      lock.unlock();
    }
  }

  /** The handler has returned: a stop from now on interrupts no thread. */
  public void detach() {
    lock.lock();
    try {
      thread = null;
      batch = null;
      // Clear an interrupt aimed at this job so it cannot leak into the thread's next task.
      Thread.interrupted();
    } finally {
      lock.unlock();
    }
  }

  /** Whether a worker has started this job (a prefetched job waits in its producer first). */
  public boolean started() {
    return started;
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

  /** Records that the handler completed the job in its own transaction. */
  public void markCompletedInTransaction() {
    completedInTransaction = true;
  }

  /** Records that the handler has returned. */
  public void markHandlerDone() {
    handlerDone = true;
  }

  /** {@link System#nanoTime()} taken before the claim statement was sent. */
  public long claimedAtNanos() {
    return claimedAtNanos;
  }

  /**
   * {@link System#nanoTime()} taken just before the handler was called, or 0 when it was not (the
   * job was dropped, cancelled or refused before its handler ran).
   */
  public long startedAtNanos() {
    return startedAtNanos;
  }

  /** Records when the handler is about to be called ({@link System#nanoTime()}). */
  public void startedAtNanos(long nanos) {
    this.startedAtNanos = nanos;
  }

  /** When the current attempt times out, on the wall clock (from the local monotonic deadline). */
  public Instant deadline() {
    long d = deadlineNanos;
    return d == 0 ? null : Instant.now().plusNanos(d - System.nanoTime());
  }

  /** The attempt's deadline on the local monotonic clock ({@link System#nanoTime()}). */
  public long deadlineNanos() {
    return deadlineNanos;
  }

  /** Sets the attempt's deadline on the local monotonic clock. */
  public void deadlineNanos(long nanos) {
    this.deadlineNanos = nanos;
  }

  /** Until when (System.nanoTime) the lease is known to hold, from the last good heartbeat. */
  public long leaseKnownUntilNanos() {
    return leaseKnownUntilNanos;
  }

  /** Records a successful lease extension. */
  public void leaseKnownUntilNanos(long nanos) {
    this.leaseKnownUntilNanos = nanos;
  }

  /** Puts the handler under its deadline: a sweep past it stops the job as timed out. */
  public void startTimeout() {
    timed = true;
  }

  /** Whether the handler runs under its deadline (started, not yet returned). */
  public boolean timed() {
    return timed;
  }

  /** Takes the handler out from under its deadline: it has returned. */
  public void cancelTimeout() {
    timed = false;
  }

  /** Gives this job's producer slot back. */
  public void releaseSlot() {
    releaseSlot.accept(this);
  }
}
