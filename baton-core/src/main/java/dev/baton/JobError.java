package dev.baton;

import java.time.Instant;

/**
 * One entry in a job's {@code errors} column: what went wrong in one attempt.
 *
 * @param attempt the attempt that failed (1-based)
 * @param at when it was recorded
 * @param error the exception class, or a label such as {@code lease_expired} for a rescue
 * @param message the message
 * @param trace a trimmed stack trace, or null
 */
public record JobError(int attempt, Instant at, String error, String message, String trace) {

  /**
   * The {@link #error()} of a rescue of a job whose lease ran out without a heartbeat: {@code
   * lease_expired}.
   */
  public static final String LEASE_EXPIRED = "lease_expired";

  /**
   * The {@link #error()} of a rescue of a job whose node is gone (no database session of it holds
   * its lock): {@code node_gone}.
   */
  public static final String NODE_GONE = "node_gone";

  private static final String CAUSED_BY = "Caused by: ";

  /**
   * Whether {@code error} names a rescue ({@link #LEASE_EXPIRED}, {@link #NODE_GONE}): the node or
   * its lease was lost, no handler failed, and the attempt was given back (it does not count
   * against {@code maxAttempts}). A {@code deadline_exceeded} entry is a failure: the handler ran
   * past its timeout.
   */
  public static boolean isRescue(String error) {
    return LEASE_EXPIRED.equals(error) || NODE_GONE.equals(error);
  }

  /** Whether this entry records a rescue, not a failure of the handler; see {@link #isRescue}. */
  public boolean isRescue() {
    return isRescue(error);
  }

  /**
   * The last {@code Caused by:} line of the trace (the innermost cause the trace kept), without its
   * prefix, e.g. {@code java.net.ConnectException: Connection refused}; null when the trace has
   * none.
   */
  public String rootCause() {
    if (trace == null) {
      return null;
    }
    int at = trace.lastIndexOf(CAUSED_BY);
    if (at < 0) {
      return null;
    }
    int end = trace.indexOf('\n', at);
    return trace.substring(at + CAUSED_BY.length(), end < 0 ? trace.length() : end).strip();
  }
}
