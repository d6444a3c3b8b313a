package dev.baton.internal;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The lifecycle of a service with one thread: new, running, stopped, in that order only. {@link
 * #start} runs its action once, and never after a stop; {@link #stop} says whether there is a
 * thread to wait for. Safe from any number of threads at once; the actions run under a lock and
 * must not block. Not public API.
 */
public final class ServiceState {
  private enum State {
    NEW,
    RUNNING,
    STOPPED
  }

  private final ReentrantLock lock = new ReentrantLock();
  private State state = State.NEW;

  /**
   * Runs {@code action} (which starts the thread) if the service is new, and marks it running.
   * Returns whether it did: a second start, or a start after a stop, does nothing.
   */
  public boolean start(Runnable action) {
    lock.lock();
    try {
      if (state != State.NEW) {
        return false;
      }
      action.run();
      state = State.RUNNING;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Marks the service stopped, running {@code action} (which tells the thread to end) if it was
   * running. Returns whether it was, i.e. whether there is a thread to wait for.
   */
  public boolean stop(Runnable action) {
    lock.lock();
    try {
      boolean wasRunning = state == State.RUNNING;
      state = State.STOPPED;
      if (wasRunning) {
        action.run();
      }
      return wasRunning;
    } finally {
      lock.unlock();
    }
  }
}
