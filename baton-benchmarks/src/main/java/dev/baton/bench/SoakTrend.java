package dev.baton.bench;

import java.util.Arrays;
import java.util.Locale;

/**
 * The figures of one series of the soak over its steady part, to judge "bounded, with no growth
 * trend" by eye: its range, its least-squares slope (per 10 minutes) over the whole steady part and
 * over its second half, and the mean of its last third over the mean of its first third.
 *
 * <p>A bounded series has a range that does not widen, a slope near zero relative to its median (a
 * sawtooth, such as dead tuples between two autovacuum runs, gives slopes of either sign that
 * shrink as the run gets longer), a second-half slope no steeper than the whole one, and a ratio of
 * thirds near 1. A series that grows shows the same sign of slope in both and a ratio above 1.
 *
 * @param n samples in the steady part
 * @param min smallest value
 * @param median median value (the mean of the two middle ones for an even count)
 * @param max largest value
 * @param slopePer10Min least-squares slope over all steady samples, per 10 minutes; NaN with fewer
 *     than two samples
 * @param slopePer10MinSecondHalf the same over the second half of the steady samples (the later
 *     {@code ceil(n / 2)}); NaN with fewer than two
 * @param lastToFirstThird mean of the last {@code n / 3} samples over the mean of the first {@code
 *     n / 3}; NaN with fewer than three samples or a first-third mean of zero
 */
record SoakTrend(
    int n,
    double min,
    double median,
    double max,
    double slopePer10Min,
    double slopePer10MinSecondHalf,
    double lastToFirstThird) {

  /** The figures of {@code values} taken at {@code seconds} (same length, time ascending). */
  static SoakTrend of(double[] seconds, double[] values) {
    if (seconds.length != values.length) {
      throw new IllegalArgumentException(
          "times and values differ in length: " + seconds.length + " and " + values.length);
    }
    int n = values.length;
    if (n == 0) {
      return new SoakTrend(
          0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    int third = n / 3;
    double ratio = Double.NaN;
    if (third > 0) {
      double first = mean(values, 0, third);
      double last = mean(values, n - third, n);
      ratio = first == 0 ? Double.NaN : last / first;
    }
    return new SoakTrend(
        n,
        sorted[0],
        median,
        sorted[n - 1],
        slope(seconds, values, 0, n) * 600,
        slope(seconds, values, n / 2, n) * 600,
        ratio);
  }

  /**
   * The least-squares slope of {@code values[from..to)} against {@code seconds[from..to)}, per
   * second; NaN with fewer than two points or when all their times are equal.
   */
  static double slope(double[] seconds, double[] values, int from, int to) {
    int k = to - from;
    if (k < 2) {
      return Double.NaN;
    }
    double meanT = mean(seconds, from, to);
    double meanV = mean(values, from, to);
    double cov = 0;
    double var = 0;
    for (int i = from; i < to; i++) {
      double dt = seconds[i] - meanT;
      cov += dt * (values[i] - meanV);
      var += dt * dt;
    }
    return var == 0 ? Double.NaN : cov / var;
  }

  private static double mean(double[] a, int from, int to) {
    double sum = 0;
    for (int i = from; i < to; i++) {
      sum += a[i];
    }
    return sum / (to - from);
  }

  /** The header of {@link #row}'s lines, for a name column {@code width} wide. */
  static String header(int width) {
    return String.format(
        Locale.ROOT,
        "%-" + width + "s %10s %10s %10s %24s %24s %9s",
        "series",
        "min",
        "median",
        "max",
        "slope/10 min (steady)",
        "slope/10 min (2nd half)",
        "last/1st");
  }

  /**
   * One line: {@code name}, then the figures with {@code decimals} decimals; each slope also as a
   * percentage of the median (omitted when the median is 0).
   */
  String row(String name, int width, int decimals) {
    return String.format(
        Locale.ROOT,
        "%-" + width + "s %10s %10s %10s %24s %24s %9s",
        name,
        number(min, decimals),
        number(median, decimals),
        number(max, decimals),
        slopeText(slopePer10Min, decimals),
        slopeText(slopePer10MinSecondHalf, decimals),
        Double.isFinite(lastToFirstThird)
            ? String.format(Locale.ROOT, "%.3f", lastToFirstThird)
            : "-");
  }

  private String slopeText(double slope, int decimals) {
    if (!Double.isFinite(slope)) {
      return "-";
    }
    String s = (slope >= 0 ? "+" : "") + number(slope, decimals);
    if (median != 0 && Double.isFinite(median)) {
      s += String.format(Locale.ROOT, " (%+.1f%%)", slope / Math.abs(median) * 100);
    }
    return s;
  }

  private static String number(double v, int decimals) {
    if (!Double.isFinite(v)) {
      return "-";
    }
    return String.format(Locale.ROOT, "%,." + decimals + "f", v);
  }
}
