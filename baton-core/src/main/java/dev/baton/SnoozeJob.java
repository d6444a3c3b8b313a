package dev.baton;

import java.time.Duration;
import java.util.Objects;

/**
 * Thrown by a handler to run the job again after a delay without using up an attempt. The job goes
 * to {@code scheduled} (or straight to {@code available} for a zero delay); its fence check still
 * applies.
 */
public final class SnoozeJob extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final Duration delay;

  private SnoozeJob(Duration delay) {
    super("snooze for " + delay, null, false, false);
    this.delay = delay;
  }

  /**
   * Snoozes for {@code delay}.
   *
   * @throws IllegalArgumentException if the delay is negative
   */
  public static SnoozeJob of(Duration delay) {
    Objects.requireNonNull(delay, "delay");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("snooze delay must be >= 0, got " + delay);
    }
    return new SnoozeJob(delay);
  }

  /** How long to wait before the job becomes available again. */
  public Duration delay() {
    return delay;
  }
}
