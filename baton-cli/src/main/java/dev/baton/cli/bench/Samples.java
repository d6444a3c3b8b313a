package dev.baton.cli.bench;

import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;

/**
 * A sorted set of durations in milliseconds and its nearest-rank percentiles ({@code
 * sorted[ceil(p/100 * n) - 1]}), the definition the peer benchmark harness uses.
 */
public final class Samples {
  private final double[] sorted;

  private Samples(double[] sorted) {
    this.sorted = sorted;
  }

  /** Samples of nanosecond durations, reported in milliseconds. */
  public static Samples ofNanos(Collection<Long> nanos) {
    double[] ms = nanos.stream().mapToDouble(n -> n / 1e6).sorted().toArray();
    return new Samples(ms);
  }

  int count() {
    return sorted.length;
  }

  /** The nearest-rank percentile {@code p} (0 < p <= 100), or NaN when there are no samples. */
  double percentile(double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int idx = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.min(sorted.length - 1, Math.max(0, idx))];
  }

  double max() {
    return sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1];
  }

  double min() {
    return sorted.length == 0 ? Double.NaN : sorted[0];
  }

  double mean() {
    return sorted.length == 0 ? Double.NaN : Arrays.stream(sorted).sum() / sorted.length;
  }

  /** {@code p50 1.23 ms, p90 ..., p99 ..., max ...}. */
  public String summary() {
    return String.format(
        Locale.ROOT,
        "p50 %s ms, p90 %s ms, p99 %s ms, max %s ms (min %s, mean %s, n=%d)",
        ms(percentile(50)),
        ms(percentile(90)),
        ms(percentile(99)),
        ms(max()),
        ms(min()),
        ms(mean()),
        count());
  }

  static String ms(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    return v < 10 ? String.format(Locale.ROOT, "%.2f", v) : String.format(Locale.ROOT, "%.1f", v);
  }
}
