package dev.baton.bench.hardbyte;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Pickup latencies (enqueue to handler start) over a rolling window of about 30 s, in bounded
 * memory: handlers record into an HdrHistogram {@link Recorder} (wait-free, 3 significant digits,
 * microseconds); at every sample tick the tick's interval histogram is kept and the oldest dropped,
 * so the window is the last {@code ceil(30 s / tick)} ticks, and its percentiles are those of their
 * sum. Memory: that many histograms, each as large as the range of latencies it saw needs.
 *
 * <p>{@link #record} is called by any handler thread; {@link #roll} only by the sampler thread.
 */
final class ClaimLatency {
  /** The window the protocol asks for ("rolling 30s"). */
  static final Duration WINDOW = Duration.ofSeconds(30);

  private static final int SIGNIFICANT_DIGITS = 3;

  private final Recorder recorder = new Recorder(SIGNIFICANT_DIGITS);
  private final Deque<Histogram> ticks = new ArrayDeque<>();
  private final int windowTicks;
  private final Duration window;

  /** A window of whole ticks of {@code tick} covering at least {@link #WINDOW}. */
  ClaimLatency(Duration tick) {
    this.windowTicks =
        (int) Math.max(1, (WINDOW.toMillis() + tick.toMillis() - 1) / tick.toMillis());
    this.window = tick.multipliedBy(windowTicks);
  }

  /** The window the percentiles cover once the adapter has run that long. */
  Duration window() {
    return window;
  }

  /** Records one pickup latency; a negative one (clock step) counts as 0. */
  void record(long micros) {
    recorder.recordValue(Math.max(0, micros));
  }

  /** Percentiles of the window, in milliseconds; 0 when no job was picked up in it. */
  record Snapshot(long count, double p50, double p95, double p99) {}

  /** Closes the current tick, drops the tick that left the window, returns the window's figures. */
  Snapshot roll() {
    ticks.addLast(recorder.getIntervalHistogram());
    while (ticks.size() > windowTicks) {
      ticks.removeFirst();
    }
    Histogram sum = new Histogram(SIGNIFICANT_DIGITS);
    for (Histogram h : ticks) {
      sum.add(h);
    }
    return new Snapshot(
        sum.getTotalCount(),
        sum.getValueAtPercentile(50) / 1000.0,
        sum.getValueAtPercentile(95) / 1000.0,
        sum.getValueAtPercentile(99) / 1000.0);
  }
}
