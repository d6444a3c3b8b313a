package dev.baton.internal;

import java.time.Instant;

/**
 * The clocks of the cluster services: the time their SQL compares leases and due times with, and a
 * monotonic clock for local trust windows.
 *
 * <p>In production {@link #dbNow()} is {@code null}, which the statements read as the database's
 * {@code now()}: the clock every lease was written with, so nodes with skewed clocks still agree.
 * Tests set both clocks with {@link SettableTime} and drive the services with {@code runOnce()},
 * without sleeping. Not public API.
 */
public interface TimeSource {

  /** The database clock. */
  TimeSource SYSTEM =
      new TimeSource() {
        @Override
        public Instant dbNow() {
          return null;
        }

        @Override
        public long nanoTime() {
          return System.nanoTime();
        }
      };

  /** The time to use in SQL, or {@code null} for the database's {@code now()}. */
  Instant dbNow();

  /** A monotonic clock in nanoseconds, as {@link System#nanoTime()}. */
  long nanoTime();
}
