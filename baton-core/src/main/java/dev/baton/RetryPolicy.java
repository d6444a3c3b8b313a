package dev.baton;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Decides how long a failed attempt waits before the job is available again.
 *
 * <p>Called on the worker thread that ran the attempt; must be thread-safe and fast.
 */
@FunctionalInterface
public interface RetryPolicy {

  /** Base delay of {@link #exponential()}: 1 second. */
  Duration DEFAULT_BASE = Duration.ofSeconds(1);

  /** Cap of {@link #exponential()}: 1 hour. */
  Duration DEFAULT_CAP = Duration.ofHours(1);

  /**
   * The delay before the next attempt.
   *
   * @param attempt the attempt that just failed, 1-based
   * @param error what it threw
   */
  Duration nextDelay(int attempt, Throwable error);

  /**
   * The default: {@code min(cap, base * 2^(attempt-1))}, then a random jitter of +-20% so that jobs
   * that failed together do not retry together. With the defaults (1 s, cap 1 h), the 19 waits
   * between 20 attempts add up to about 8 hours.
   */
  static RetryPolicy exponential() {
    return exponential(DEFAULT_BASE, DEFAULT_CAP);
  }

  /**
   * Exponential backoff with +-20% jitter.
   *
   * @param base the delay after the first failure, > 0
   * @param cap the longest delay, >= base
   */
  static RetryPolicy exponential(Duration base, Duration cap) {
    if (base.isNegative() || base.isZero() || cap.compareTo(base) < 0) {
      throw new IllegalArgumentException(
          "exponential retry needs 0 < base <= cap, got base=" + base + ", cap=" + cap);
    }
    return (attempt, error) -> {
      int shift = Math.max(0, Math.min(attempt - 1, 40));
      double millis = Math.min((double) cap.toMillis(), base.toMillis() * Math.pow(2, shift));
      double jitter = 0.8 + 0.4 * ThreadLocalRandom.current().nextDouble();
      return Duration.ofMillis(Math.max(1, Math.round(millis * jitter)));
    };
  }
}
