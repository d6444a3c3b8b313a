package dev.baton.internal;

import java.time.Duration;
import java.time.Instant;

/**
 * A {@link TimeSource} that moves only when told: both its database time and its monotonic clock
 * advance by {@link #advance}. For tests. Not public API.
 */
public final class SettableTime implements TimeSource {
  private volatile Instant now;
  private volatile long nanos;

  /** A clock reading {@code start}, cut to microseconds (the database's precision). */
  public SettableTime(Instant start) {
    this.now = start.truncatedTo(java.time.temporal.ChronoUnit.MICROS);
    this.nanos = 0;
  }

  @Override
  public Instant dbNow() {
    return now;
  }

  @Override
  public long nanoTime() {
    return nanos;
  }

  /** Moves both clocks forward by {@code d}. */
  public synchronized void advance(Duration d) {
    if (d.isNegative()) {
      throw new IllegalArgumentException("time only moves forward, got " + d);
    }
    now = now.plus(d);
    nanos += d.toNanos();
  }

  /** The current time. */
  public Instant now() {
    return now;
  }
}
