package dev.baton.internal.executor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * The log lines of failed attempts, limited per kind so that a kind failing in a flood cannot flood
 * the log: per kind, the first {@link #LINES_PER_WINDOW} failed attempts of each {@link #WINDOW}
 * are logged one line each with their exception (a retry at INFO, a discard at WARN); the rest are
 * counted, and one WARN line when the window ends says how many were left out, how many of them
 * were discarded, and the first {@link #IDS_PER_SUMMARY} discarded job ids. Kinds never share a
 * budget: a flood of one kind leaves the lines of the others. Thread-safe. Not public API.
 */
final class FailureLog {

  /** Lines with an exception per kind per window: 10. */
  static final int LINES_PER_WINDOW = 10;

  /** The window of {@link #LINES_PER_WINDOW}: 1 minute. */
  static final Duration WINDOW = Duration.ofMinutes(1);

  /** Discarded job ids named in a summary line: 10. */
  static final int IDS_PER_SUMMARY = 10;

  /** The attempt that failed. */
  record Attempt(long id, String kind, String queue, int attempt, int maxAttempts) {}

  /**
   * A failed attempt to log.
   *
   * @param retryInMillis the delay before the retry; null when the job was discarded
   * @param error the recorded error: the exception class, or a label such as invalid_args
   * @param cause what the handler threw, or null (a label, or an exception a logger cannot print)
   */
  record Failure(
      Attempt attempt, Long retryInMillis, String error, String message, Throwable cause) {
    boolean discarded() {
      return retryInMillis == null;
    }

    long id() {
      return attempt.id();
    }

    String kind() {
      return attempt.kind();
    }
  }

  private final Logger log;
  private final LongSupplier nanos;
  private final Map<String, Window> windows = new HashMap<>(); // by kind; guarded by this

  /** What one kind logged and left out in its current window. */
  private static final class Window {
    final long startNanos;
    int lines;
    long leftOut;
    long leftOutDiscarded;
    final List<Long> discardedIds = new ArrayList<>();

    Window(long startNanos) {
      this.startNanos = startNanos;
    }
  }

  FailureLog(Logger log, LongSupplier nanos) {
    this.log = log;
    this.nanos = nanos;
  }

  /**
   * Logs {@code f} or counts it. Returns true when this failure is the first left out of its
   * window: the caller then calls {@link #flushEnded()} once {@link #WINDOW} has passed, so the
   * summary is written even if the kind fails no more.
   */
  boolean failed(Failure f) {
    Window w;
    String summary;
    boolean firstLeftOut = false;
    synchronized (this) {
      long now = nanos.getAsLong();
      w = windows.get(f.kind());
      summary = null;
      if (w != null && now - w.startNanos >= WINDOW.toNanos()) {
        summary = summaryOf(f.kind(), windows.remove(f.kind()), now);
        w = null;
      }
      if (w == null) {
        w = new Window(now);
        windows.put(f.kind(), w);
      }
      if (w.lines < LINES_PER_WINDOW) {
        w.lines++;
        w = null; // log it
      } else {
        firstLeftOut = w.leftOut == 0;
        w.leftOut++;
        if (f.discarded()) {
          w.leftOutDiscarded++;
          if (w.discardedIds.size() < IDS_PER_SUMMARY) {
            w.discardedIds.add(f.id());
          }
        }
      }
    }
    if (summary != null) {
      log.warn(summary);
    }
    if (w == null) {
      write(f);
    }
    return firstLeftOut;
  }

  /** Writes the summary of every window that has ended with failures left out. */
  void flushEnded() {
    List<String> lines = new ArrayList<>();
    synchronized (this) {
      long now = nanos.getAsLong();
      windows
          .entrySet()
          .removeIf(
              e -> {
                if (now - e.getValue().startNanos < WINDOW.toNanos()) {
                  return false;
                }
                String s = summaryOf(e.getKey(), e.getValue(), now);
                if (s != null) {
                  lines.add(s);
                }
                return true;
              });
    }
    lines.forEach(log::warn);
  }

  private static String summaryOf(String kind, Window w, long now) {
    if (w.leftOut == 0) {
      return null;
    }
    return "kind "
        + kind
        + ": "
        + w.leftOut
        + " more failed attempts in the last "
        + Duration.ofNanos(now - w.startNanos).toSeconds()
        + " s were not logged (at most "
        + LINES_PER_WINDOW
        + " lines per kind per "
        + WINDOW.toSeconds()
        + " s), "
        + w.leftOutDiscarded
        + " of them discarded"
        + (w.discardedIds.isEmpty()
            ? ""
            : ": jobs "
                + w.discardedIds
                + (w.leftOutDiscarded > w.discardedIds.size() ? " and more" : ""))
        + "; the jobs' errors hold each one";
  }

  private void write(Failure f) {
    String what =
        "job "
            + f.id()
            + " (kind "
            + f.kind()
            + ", queue "
            + f.attempt().queue()
            + ") failed attempt "
            + f.attempt().attempt()
            + " of "
            + f.attempt().maxAttempts()
            + " with "
            + f.error()
            + (f.message() == null ? "" : ": " + f.message());
    if (f.discarded()) {
      if (f.cause() != null) {
        log.warn("{}; discarded", what, f.cause());
      } else {
        log.warn("{}; discarded", what);
      }
    } else {
      String retry = "; retrying in " + f.retryInMillis() + " ms";
      if (f.cause() != null) {
        log.info("{}{}", what, retry, f.cause());
      } else {
        log.info("{}{}", what, retry);
      }
    }
  }
}
