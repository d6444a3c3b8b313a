package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.awt.Color;
import java.awt.Font;
import java.awt.Rectangle;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart is checked as an image: pixels of a series' colour must be where its values put them,
 * relative to the plot area and to the other series (no test here knows the pixel mapping the chart
 * uses, so an inverted or shifted scale, or a series left out, fails).
 */
class ThroughputPlotTest {
  private static final List<Integer> WORKERS = List.of(1, 4, 16, 64);

  @TempDir Path dir;

  @Test
  void writesAPngOfTheDocumentedSizeThatDecodes() throws Exception {
    Path png = dir.resolve("chart.png");
    ThroughputPlot.write(chart(List.of(flat("a", 5_000)), List.of()), png);

    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image).as("a PNG ImageIO can read").isNotNull();
    assertThat(image.getWidth()).isEqualTo(900);
    assertThat(image.getHeight()).isEqualTo(560);
  }

  @Test
  void aSeriesWithHigherValuesIsDrawnHigherAndEverySeriesIsDrawn() {
    ThroughputPlot.Rendered r =
        ThroughputPlot.render(
            chart(
                List.of(flat("low", 1_000), flat("high", 10_000), flat("middle", 5_000)),
                List.of()));
    Rectangle area = r.plotArea();

    Pixels low = pixels(r, colour(0));
    Pixels high = pixels(r, colour(1));
    Pixels middle = pixels(r, colour(2));
    assertThat(low.count()).as("pixels of the first series").isGreaterThan(100);
    assertThat(high.count()).as("pixels of the second series").isGreaterThan(100);
    assertThat(middle.count()).as("pixels of the third series").isGreaterThan(100);

    // The y axis starts at 0 at the bottom: 10,000 near the top, 1,000 near the bottom, 5,000 in
    // between, whatever the rounded top of the scale is (at most 1.5 times the largest value).
    assertThat(high.meanY()).isLessThan(middle.meanY());
    assertThat(middle.meanY()).isLessThan(low.meanY());
    assertThat(fractionFromBottom(area, high.meanY())).isBetween(0.62, 1.0);
    assertThat(fractionFromBottom(area, low.meanY())).isBetween(0.0, 0.12);
    assertThat(fractionFromBottom(area, middle.meanY()) * 2)
        .as("5,000 is half of 10,000: half the height")
        .isCloseTo(fractionFromBottom(area, high.meanY()), within(0.03));
  }

  @Test
  void workerCountsRunLeftToRightOnALogScale() {
    // jobs/s = 100 x workers: rising to the right, evenly spaced along x (1, 4, 16, 64).
    List<ThroughputPlot.Point> points = new ArrayList<>();
    for (int w : WORKERS) {
      points.add(new ThroughputPlot.Point(w, 100.0 * w, 100.0 * w, 100.0 * w, 1));
    }
    ThroughputPlot.Rendered r =
        ThroughputPlot.render(
            chart(List.of(new ThroughputPlot.Series("rising", points)), List.of()));
    Rectangle area = r.plotArea();
    Pixels left = pixels(r, colour(0), x -> x < area.x + area.width / 3);
    Pixels right = pixels(r, colour(0), x -> x > area.x + area.width * 2 / 3);
    assertThat(left.count()).isPositive();
    assertThat(right.count()).isPositive();
    assertThat(left.meanY())
        .as("small worker counts, small rates: low on the left")
        .isGreaterThan(right.meanY());

    // On a flat series the markers are the only tall runs of the colour: their four columns are
    // evenly spaced, as on a log2 axis of 1, 4, 16, 64.
    ThroughputPlot.Rendered flat =
        ThroughputPlot.render(chart(List.of(flat("flat", 1_000)), List.of()));
    List<Integer> columns = markerColumns(flat, colour(0));
    assertThat(columns).hasSize(4);
    int step = columns.get(1) - columns.get(0);
    assertThat(step).isGreaterThan(area.width / 6);
    assertThat(columns.get(2) - columns.get(1)).isCloseTo(step, within(3));
    assertThat(columns.get(3) - columns.get(2)).isCloseTo(step, within(3));
  }

  @Test
  void severalRoundsGetWhiskersFromMinimumToMaximum() {
    ThroughputPlot.Series spread =
        new ThroughputPlot.Series(
            "three rounds", List.of(new ThroughputPlot.Point(8, 5_000, 2_000, 9_000, 3)));
    ThroughputPlot.Series single =
        new ThroughputPlot.Series(
            "one round", List.of(new ThroughputPlot.Point(8, 5_000, 5_000, 5_000, 1)));
    ThroughputPlot.Rendered r = ThroughputPlot.render(chart(List.of(spread, single), List.of()));
    Rectangle area = r.plotArea();

    Pixels whiskers = pixels(r, colour(0));
    Pixels marker = pixels(r, colour(1));
    double height = whiskers.maxY() - whiskers.minY();
    assertThat(height / area.height)
        .as("2,000 to 9,000 on a scale of at most 13,500")
        .isGreaterThan(0.5);
    assertThat(fractionFromBottom(area, whiskers.maxY()))
        .as("the 2,000 end: 2,000 / 9,360 to 2,000 / 13,500 of the height")
        .isBetween(0.14, 0.22);
    assertThat(marker.maxY() - marker.minY()).as("a lone marker").isLessThan(14);
  }

  @Test
  void aReferenceIsAHorizontalLineAcrossThePlotAtItsValue() {
    List<ThroughputPlot.Series> series = List.of(flat("a", 10_000));
    ThroughputPlot.Rendered without = ThroughputPlot.render(chart(series, List.of()));
    ThroughputPlot.Rendered with =
        ThroughputPlot.render(
            chart(series, List.of(new ThroughputPlot.Reference("graphile", 5_000))));
    Rectangle area = with.plotArea();

    // The row that changed most is the line: drawn over most of the width, at half of 10,000.
    int[] changedPerRow = new int[with.image().getHeight()];
    for (int y = area.y; y < area.y + area.height; y++) {
      for (int x = area.x; x < area.x + area.width; x++) {
        if (with.image().getRGB(x, y) != without.image().getRGB(x, y)) {
          changedPerRow[y]++;
        }
      }
    }
    int row = 0;
    for (int y = 0; y < changedPerRow.length; y++) {
      if (changedPerRow[y] > changedPerRow[row]) {
        row = y;
      }
    }
    assertThat(changedPerRow[row])
        .as("a dashed line: more than half the width")
        .isGreaterThan(area.width / 2);
    double seriesY = pixels(with, colour(0)).meanY();
    assertThat(fractionFromBottom(area, row) * 2)
        .isCloseTo(fractionFromBottom(area, seriesY), within(0.03));
  }

  @Test
  void withoutFontsTheChartIsDrawnWithoutTextAndAWarning() {
    Font noFonts =
        new Font(Font.SANS_SERIF, Font.PLAIN, 12) {
          @Override
          public Font deriveFont(int style, float size) {
            // What a JDK on a machine without fonts throws at the first text it draws.
            throw new Error("Probable fatal error: No physical fonts found.");
          }
        };
    ThroughputPlot.Rendered r =
        ThroughputPlot.render(
            chart(
                List.of(flat("a", 1_000), flat("b", 2_000)),
                List.of(new ThroughputPlot.Reference("ref", 1_500))),
            noFonts);

    assertThat(r.warning()).contains("cannot draw text").contains("No physical fonts found");
    assertThat(pixels(r, colour(0)).count()).isGreaterThan(100);
    assertThat(pixels(r, colour(1)).count()).isGreaterThan(100);
    for (int y = 0; y < r.plotArea().y - 2; y++) {
      for (int x = 0; x < r.image().getWidth(); x++) {
        assertThat(r.image().getRGB(x, y) & 0xffffff)
            .as("no title and no legend: white above the plot at (%d, %d)", x, y)
            .isEqualTo(0xffffff);
      }
    }
  }

  @Test
  void aPointIsTheMedianMinimumAndMaximumOfItsRoundsPerLabel() {
    List<SweepCsv.Row> rows =
        List.of(
            row("Baton, Java 17", 1, 4, 300),
            row("Baton, Java 25", 1, 4, 500),
            row("Baton, Java 17", 2, 4, 100),
            row("Baton, Java 17", 3, 4, 200),
            row("Baton, Java 17", 1, 1, 50),
            row("Baton, Java 25", 2, 4, 700));

    List<ThroughputPlot.Series> series = ThroughputPlot.series(rows);

    assertThat(series)
        .extracting(ThroughputPlot.Series::label)
        .containsExactly("Baton, Java 17", "Baton, Java 25");
    assertThat(series.get(0).points())
        .containsExactly(
            new ThroughputPlot.Point(1, 50, 50, 50, 1),
            new ThroughputPlot.Point(4, 200, 100, 300, 3));
    assertThat(series.get(1).points())
        .as("an even count: the mean of the middle two")
        .containsExactly(new ThroughputPlot.Point(4, 600, 500, 700, 2));
    assertThat(ThroughputPlot.subtitle(rows))
        .isEqualTo("Drain of 20,000 no-op jobs per point; median of 1–3 rounds, whiskers: min–max");
  }

  @Test
  void theYScaleStepsAreRoundNumbers() {
    assertThat(ThroughputPlot.niceStep(2_400)).isEqualTo(2_500);
    assertThat(ThroughputPlot.niceStep(1_000)).isEqualTo(1_000);
    assertThat(ThroughputPlot.niceStep(3_100)).isEqualTo(5_000);
    assertThat(ThroughputPlot.niceStep(0.17)).isEqualTo(0.2, within(1e-12));
    assertThat(ThroughputPlot.number(25_000)).isEqualTo("25,000");
    assertThat(ThroughputPlot.number(0.25)).isEqualTo("0.25");
  }

  // ---------------------------------------------------------------- helpers

  private static ThroughputPlot.Chart chart(
      List<ThroughputPlot.Series> series, List<ThroughputPlot.Reference> refs) {
    return new ThroughputPlot.Chart("a title", "a subtitle", series, refs);
  }

  /** The same rate at every worker count of {@link #WORKERS}. */
  private static ThroughputPlot.Series flat(String label, double jobsPerSecond) {
    return new ThroughputPlot.Series(
        label,
        WORKERS.stream()
            .map(w -> new ThroughputPlot.Point(w, jobsPerSecond, jobsPerSecond, jobsPerSecond, 1))
            .toList());
  }

  private static SweepCsv.Row row(String label, int round, int workers, double jobsPerSecond) {
    return new SweepCsv.Row(label, round, workers, 20_000, jobsPerSecond, jobsPerSecond, 1.0);
  }

  private static Color colour(int series) {
    return ThroughputPlot.SERIES_COLOURS.get(series);
  }

  /** 0 at the bottom of the plot area, 1 at its top. */
  private static double fractionFromBottom(Rectangle area, double y) {
    return (area.y + area.height - y) / area.height;
  }

  private record Pixels(int count, double meanY, int minY, int maxY) {}

  /** Pixels inside the plot area within a small distance of {@code c}. */
  private static Pixels pixels(ThroughputPlot.Rendered r, Color c) {
    return pixels(r, c, x -> true);
  }

  private static Pixels pixels(ThroughputPlot.Rendered r, Color c, IntPredicate column) {
    Rectangle area = r.plotArea();
    int count = 0;
    long sumY = 0;
    int minY = Integer.MAX_VALUE;
    int maxY = Integer.MIN_VALUE;
    for (int y = area.y; y < area.y + area.height; y++) {
      for (int x = area.x; x < area.x + area.width; x++) {
        if (column.test(x) && near(r.image().getRGB(x, y), c)) {
          count++;
          sumY += y;
          minY = Math.min(minY, y);
          maxY = Math.max(maxY, y);
        }
      }
    }
    return new Pixels(count, count == 0 ? Double.NaN : (double) sumY / count, minY, maxY);
  }

  /** The middle x of each run of columns with 5 or more pixels of {@code c}: markers, not lines. */
  private static List<Integer> markerColumns(ThroughputPlot.Rendered r, Color c) {
    Rectangle area = r.plotArea();
    List<Integer> runs = new ArrayList<>();
    int start = -1;
    for (int x = area.x; x <= area.x + area.width; x++) {
      int inColumn = 0;
      for (int y = area.y; y < area.y + area.height && x < area.x + area.width; y++) {
        if (near(r.image().getRGB(x, y), c)) {
          inColumn++;
        }
      }
      boolean marker = inColumn >= 5;
      if (marker && start < 0) {
        start = x;
      } else if (!marker && start >= 0) {
        runs.add((start + x - 1) / 2);
        start = -1;
      }
    }
    return runs;
  }

  private static boolean near(int rgb, Color c) {
    int r = (rgb >> 16) & 0xff;
    int g = (rgb >> 8) & 0xff;
    int b = rgb & 0xff;
    return Math.abs(r - c.getRed()) + Math.abs(g - c.getGreen()) + Math.abs(b - c.getBlue()) <= 40;
  }
}
