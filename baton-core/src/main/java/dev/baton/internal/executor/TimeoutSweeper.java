package dev.baton.internal.executor;

import dev.baton.internal.held.HeldJobs;
import dev.baton.internal.held.RunningJob;
import dev.baton.internal.held.StopReason;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Interrupts handlers that overrun their timeout with one timer task armed at the earliest deadline
 * among the running handlers, not one task per job. Most jobs finish long before their deadline,
 * and a task per job costs a schedule and a cancel, each under the timer queue's one lock, taken by
 * every worker: about a tenth of a drain's client CPU. Jobs of one kind start in deadline order, so
 * once a sweep is armed a new job rarely re-arms it; a sweep stops the handlers past their deadline
 * and arms the next at the earliest deadline left.
 *
 * <p>The lock guards only the armed time and task; nothing blocking runs under it.
 *
 * <p>Not public API.
 */
final class TimeoutSweeper {
  private final ScheduledExecutorService timer;
  private final HeldJobs held;
  private final ReentrantLock lock = new ReentrantLock();
  private boolean armed; // guarded by lock
  private long armedAtNanos; // guarded by lock
  private ScheduledFuture<?> task; // guarded by lock

  TimeoutSweeper(ScheduledExecutorService timer, HeldJobs held) {
    this.timer = timer;
    this.held = held;
  }

  /** Makes sure a sweep runs no later than {@code deadlineNanos} ({@link System#nanoTime()}). */
  void arm(long deadlineNanos) {
    lock.lock();
    try {
      if (armed && deadlineNanos - armedAtNanos >= 0) {
        return; // a sweep at or before this deadline is already due
      }
      if (task != null) {
        task.cancel(false);
      }
      long delay = Math.max(0, deadlineNanos - System.nanoTime());
      task = timer.schedule(this::sweep, delay, TimeUnit.NANOSECONDS);
      armed = true;
      armedAtNanos = deadlineNanos;
    } catch (RejectedExecutionException stopping) {
      // the client is stopping: its handlers are interrupted by the stop itself
    } finally {
      lock.unlock();
    }
  }

  private void sweep() {
    lock.lock();
    try {
      armed = false;
      task = null;
    } finally {
      lock.unlock();
    }
    long now = System.nanoTime();
    boolean any = false;
    long next = 0;
    for (RunningJob rj : held.snapshot()) {
      if (!rj.timed()) {
        continue; // not started, or its handler has returned
      }
      long d = rj.deadlineNanos();
      if (d - now <= 0) {
        rj.stop(StopReason.TIMED_OUT);
      } else if (!any || d - next < 0) {
        next = d;
        any = true;
      }
    }
    if (any) {
      arm(next);
    }
  }
}
