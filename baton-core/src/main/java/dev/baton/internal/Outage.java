package dev.baton.internal;

import dev.baton.Secrets;
import java.io.EOFException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a client's database connections work, shared by its threads, so that an outage is logged
 * once when it starts (one WARN line, no stack trace) and once when it ends (INFO, with its
 * length), however many threads fail and retry meanwhile. A routine connection loss (a backend
 * terminated, a connection cut by a restart) is such an outage, a short one.
 *
 * <p>A failure within {@link #SETTLE} after an outage ended continues it, silently (a connection
 * that broke in the outage fails on its first use after it): it is logged at WARN only if it lasts
 * longer than that.
 *
 * <p>Only connection losses count ({@link #isConnectionLoss}); any other failure is for the caller
 * to log as before. Lock-free: a success costs one volatile read while there is no outage. Not
 * public API.
 */
public final class Outage {
  private static final Logger log = LoggerFactory.getLogger(Outage.class);

  /** How long after an outage's end a failure continues it instead of starting a new one: 5 s. */
  public static final java.time.Duration SETTLE = java.time.Duration.ofSeconds(5);

  private final AtomicLong startedAtNanos = new AtomicLong(); // 0: none
  private volatile String firstFailure;
  private volatile long endedAtNanos = System.nanoTime() - SETTLE.toNanos() - 1;
  private volatile boolean silent; // the outage under way continues one that ended, unlogged

  /**
   * Records that {@code what} failed with {@code e}. Returns false, logging nothing, unless {@code
   * e} is a connection loss; the first one of an outage is logged at WARN, the rest at DEBUG.
   */
  public boolean failed(String what, Throwable e) {
    if (!isConnectionLoss(e)) {
      return false;
    }
    long now = System.nanoTime();
    if (startedAtNanos.compareAndSet(0, now == 0 ? 1 : now)) {
      firstFailure = what;
      silent = now - endedAtNanos < SETTLE.toNanos();
      if (silent) {
        log.debug("{} failed just after an outage ended; continuing it", what, Secrets.mask(e));
        return true;
      }
      log.warn(
          "database unreachable: {} failed: {}; retrying until it answers (further failures at"
              + " DEBUG)",
          what,
          message(e));
    } else if (silent && now - startedAtNanos.get() > SETTLE.toNanos()) {
      silent = false;
      log.warn(
          "database unreachable again: {} failed: {}; retrying until it answers (further failures"
              + " at DEBUG)",
          what,
          message(e));
    } else {
      log.debug("{} failed during the outage", what, Secrets.mask(e));
    }
    return true;
  }

  /** Records that a database call succeeded; ends the outage, if any, with one INFO line. */
  public void answered() {
    long started = startedAtNanos.get();
    if (started != 0 && startedAtNanos.compareAndSet(started, 0)) {
      endedAtNanos = System.nanoTime();
      if (silent) {
        log.debug("database reachable again after a short relapse");
        return;
      }
      log.info(
          "database reachable again after {} ms (since {} failed)",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
          firstFailure);
    }
  }

  /** Whether an outage is under way. */
  public boolean ongoing() {
    return startedAtNanos.get() != 0;
  }

  /**
   * Whether {@code e} (or a cause) says the connection was lost or none could be had: SQL state
   * class 08, a server shutting down or starting (57P01..57P03), a pool's timeout, or a socket
   * error.
   */
  public static boolean isConnectionLoss(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientConnectionException
          || t instanceof SocketException
          || t instanceof SocketTimeoutException
          || t instanceof ConnectException
          || t instanceof EOFException) {
        return true;
      }
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        if (state.startsWith("08") || state.matches("57P0[123]")) {
          return true;
        }
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /** The innermost message, which names the actual cause (refused, reset, timed out, shut down). */
  private static String message(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String m = root.getMessage();
    return Secrets.mask(
        root == e
            ? String.valueOf(m)
            : e.getMessage() + " (" + root.getClass().getSimpleName() + ": " + m + ")");
  }
}
