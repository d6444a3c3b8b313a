package dev.baton.cli.bench;

import java.util.concurrent.locks.LockSupport;

/**
 * Calls made one at a time on a fixed schedule (open loop): call {@code i} starts at its absolute
 * deadline, {@code start + i / rate}, whatever earlier calls took, so a slow call does not lower
 * the offered rate (no coordinated omission). The first deadline is 5 ms after {@link #run} is
 * called.
 */
public final class OpenLoop {
  private OpenLoop() {}

  /** One call; {@code startNanos} is {@link System#nanoTime()} taken just before it. */
  public interface Call {
    void at(int i, long startNanos) throws Exception;
  }

  /** When the calls ran: the first deadline, the end of the last call, each call's duration. */
  public record Timing(long startNanos, long endNanos, long[] callNanos) {}

  /** Makes {@code n} calls at {@code rate} per second. */
  public static Timing run(int n, int rate, Call call) throws Exception {
    long interval = 1_000_000_000L / rate;
    long start = System.nanoTime() + 5_000_000L;
    long[] calls = new long[n];
    for (int i = 0; i < n; i++) {
      long target = start + i * interval;
      long d;
      while ((d = target - System.nanoTime()) > 0) {
        LockSupport.parkNanos(d);
      }
      long t = System.nanoTime();
      call.at(i, t);
      calls[i] = System.nanoTime() - t;
    }
    return new Timing(start, System.nanoTime(), calls);
  }
}
