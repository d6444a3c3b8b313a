package dev.baton.internal;

import dev.baton.Secrets;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;

/**
 * The log of one loop's failures that repeat until someone acts (a revoked grant, an exhausted
 * sequence): the first is logged at WARN with its stack trace, later ones only as a WARN line once
 * per {@link #INTERVAL} saying how often it failed meanwhile and the latest message, and the first
 * success after them at INFO. A different failure (another class or message) is logged as a first
 * one. Thread-safe: the threads of one loop may share it. Not public API.
 */
public final class RepeatingFailure {

  /** Least time between two lines about the same repeating failure: 60 s. */
  public static final Duration INTERVAL = Duration.ofSeconds(60);

  private final Logger log;
  private final String what;
  private String signature; // class and message of the failure repeating, or null
  private long failures;
  private long sinceLine;
  private long lastLineNanos;

  /**
   * The log of the loop doing {@code what} (e.g. "cannot claim jobs of queue mail"), on {@code
   * log}.
   */
  public RepeatingFailure(Logger log, String what) {
    this.log = Objects.requireNonNull(log, "log");
    this.what = Objects.requireNonNull(what, "what");
  }

  /** Records a failure {@code e}, retried after {@code retry}. */
  public synchronized void failed(Throwable e, Duration retry) {
    String s = e.getClass().getName() + ": " + e.getMessage();
    long now = System.nanoTime();
    failures++;
    if (!s.equals(signature)) {
      signature = s;
      failures = 1;
      sinceLine = 0;
      lastLineNanos = now;
      log.warn(
          "{}; retrying every {} ms (while it fails the same way, one line per {} s)",
          what,
          retry.toMillis(),
          INTERVAL.toSeconds(),
          Secrets.mask(e));
      return;
    }
    sinceLine++;
    if (now - lastLineNanos >= INTERVAL.toNanos()) {
      log.warn(
          "{}: still failing, {} times in the last {} s ({} in all): {}",
          what,
          sinceLine,
          Duration.ofNanos(now - lastLineNanos).toSeconds(),
          failures,
          Secrets.mask(e.toString()));
      sinceLine = 0;
      lastLineNanos = now;
    }
  }

  /** Records a success; ends a repeating failure with one INFO line. */
  public synchronized void succeeded() {
    if (signature != null) {
      log.info("{}: works again after failing {} times", what, failures);
      signature = null;
      failures = 0;
    }
  }
}
