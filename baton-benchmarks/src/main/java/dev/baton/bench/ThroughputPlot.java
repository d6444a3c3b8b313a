package dev.baton.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.Rectangle;
import java.awt.RenderingHints;
import java.awt.Shape;
import java.awt.geom.AffineTransform;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.Path2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;

/**
 * A PNG chart of drain throughput against worker count, drawn with {@code java.awt} alone
 * (headless, no dependency): the worker count on a log2 x axis, jobs/s from 0 on the y axis, one
 * series per label (a line through the median of each worker count, with whiskers from the minimum
 * to the maximum when the point was measured in several rounds), and dashed, labelled horizontal
 * reference lines (e.g. a peer's W1 figure).
 *
 * <p>Text needs fonts. On a machine with none (a bare CI image), Java's font lookup throws an
 * {@link Error} at every string drawn; the chart is then finished without any text and {@link
 * Rendered#warning()} says so, so a missing font never fails the run whose figures it shows.
 * Rendering is confined to the calling thread; nothing is shared.
 */
final class ThroughputPlot {
  static {
    // Before any AWT class looks for a display: this runs on servers and CI machines without one.
    System.setProperty("java.awt.headless", "true");
  }

  /** Width of the image in pixels. */
  static final int WIDTH = 900;

  /** Height of the image in pixels. */
  static final int HEIGHT = 560;

  /** Series colours, in series order, repeated beyond eight series (Tableau 10's). */
  static final List<Color> SERIES_COLOURS =
      List.of(
          new Color(0x1f77b4),
          new Color(0xff7f0e),
          new Color(0x2ca02c),
          new Color(0xd62728),
          new Color(0x9467bd),
          new Color(0x17becf),
          new Color(0xe377c2),
          new Color(0x8c564b));

  /** Reference line colours, in order, muted so the series stay in front. */
  static final List<Color> REFERENCE_COLOURS =
      List.of(new Color(0x4d4d4d), new Color(0x8a8a00), new Color(0x5b7083), new Color(0x9c6b30));

  /** The default title of a chart. */
  static final String DEFAULT_TITLE = "Baton: drain throughput by worker count";

  private static final Color AXIS = new Color(0x444444);
  private static final Color GRID = new Color(0xe3e3e3);
  private static final Color MUTED_TEXT = new Color(0x555555);
  private static final int PLOT_LEFT = 88;
  private static final int PLOT_RIGHT = WIDTH - 28;
  private static final int PLOT_BOTTOM = HEIGHT - 64;
  private static final int LEGEND_TOP = 62;
  private static final int LEGEND_ROW = 20;
  private static final int MARKER = 9;

  /** One worker count of a series: the median, minimum and maximum jobs/s over its rounds. */
  record Point(int workers, double median, double min, double max, int rounds) {}

  /** A named line of points, sorted by worker count. */
  record Series(String label, List<Point> points) {}

  /** A dashed horizontal line at {@code jobsPerSecond}, labelled with {@code name}. */
  record Reference(String name, double jobsPerSecond) {}

  /** What to draw; {@code subtitle} may be empty. */
  record Chart(String title, String subtitle, List<Series> series, List<Reference> references) {}

  /**
   * The drawn image, the rectangle of its plot area (inside the axes), and a warning when the text
   * could not be drawn (null when it could).
   */
  record Rendered(BufferedImage image, Rectangle plotArea, String warning) {}

  private ThroughputPlot() {}

  /**
   * The series of {@code rows}: one per label, in the order labels first appear (rows of one label
   * form one series even across files), each with one point per worker count (median, min, max of
   * its rounds; the median of an even count is the mean of the middle two).
   */
  static List<Series> series(List<SweepCsv.Row> rows) {
    Map<String, TreeMap<Integer, List<Double>>> byLabel = new LinkedHashMap<>();
    for (SweepCsv.Row r : rows) {
      byLabel
          .computeIfAbsent(r.label(), l -> new TreeMap<>())
          .computeIfAbsent(r.workers(), w -> new ArrayList<>())
          .add(r.jobsPerSecond());
    }
    List<Series> out = new ArrayList<>();
    byLabel.forEach(
        (label, byWorkers) -> {
          List<Point> points = new ArrayList<>();
          byWorkers.forEach(
              (workers, values) -> {
                double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
                int n = v.length;
                double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
                points.add(new Point(workers, median, v[0], v[n - 1], n));
              });
          out.add(new Series(label, List.copyOf(points)));
        });
    return out;
  }

  /**
   * A subtitle saying what the points of {@code rows} are: jobs per point, and median of how many
   * rounds, e.g. {@code Drain of 20,000 no-op jobs per point; median of 3 rounds, whiskers:
   * min–max}.
   */
  static String subtitle(List<SweepCsv.Row> rows) {
    String jobs =
        rows.stream()
            .map(SweepCsv.Row::jobs)
            .collect(Collectors.toCollection(TreeSet::new))
            .stream()
            .map(n -> String.format(Locale.ROOT, "%,d", n))
            .collect(Collectors.joining(" / "));
    TreeSet<Integer> rounds =
        series(rows).stream()
            .flatMap(s -> s.points().stream())
            .map(Point::rounds)
            .collect(Collectors.toCollection(TreeSet::new));
    String summary;
    if (rounds.isEmpty() || rounds.last() == 1) {
      summary = "one round per point";
    } else {
      String counts =
          rounds.first().equals(rounds.last())
              ? rounds.first().toString()
              : rounds.first() + "–" + rounds.last();
      summary = "median of " + counts + " rounds, whiskers: min–max";
    }
    return "Drain of " + jobs + " no-op jobs per point; " + summary;
  }

  /** Draws {@code chart} and writes it to {@code png} (through a temporary file beside it). */
  static Rendered write(Chart chart, Path png) throws IOException {
    Rendered r = render(chart);
    Path abs = png.toAbsolutePath();
    // Not Files.createTempFile: its owner-only permissions would stay on the result.
    Path tmp = abs.resolveSibling("." + abs.getFileName() + ".tmp");
    try {
      if (!ImageIO.write(r.image(), "png", tmp.toFile())) {
        throw new IOException("no PNG writer in this JVM (javax.imageio)");
      }
      Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
    return r;
  }

  /** Draws {@code chart} with the JVM's sans-serif font. */
  static Rendered render(Chart chart) {
    return render(chart, new Font(Font.SANS_SERIF, Font.PLAIN, 12));
  }

  /** Draws {@code chart} with sizes and styles of {@code font} (a test passes one that fails). */
  static Rendered render(Chart chart, Font font) {
    BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      Painter p = new Painter(g, font, chart);
      p.paint();
      return new Rendered(image, p.plotArea(), p.warning);
    } finally {
      g.dispose();
    }
  }

  /** Where text goes relative to its anchor. */
  private enum Align {
    LEFT,
    CENTRE,
    RIGHT
  }

  /** A {@link Font} style ({@link Font#PLAIN}, {@link Font#BOLD}), size in points and colour. */
  private record TextStyle(int style, float size, Color colour) {
    static final TextStyle TITLE = new TextStyle(Font.BOLD, 18f, AXIS);
    static final TextStyle SUBTITLE = new TextStyle(Font.PLAIN, 13f, MUTED_TEXT);
    static final TextStyle LEGEND = new TextStyle(Font.PLAIN, 13f, AXIS);
    static final TextStyle AXIS_TITLE = new TextStyle(Font.PLAIN, 13f, AXIS);
    static final TextStyle TICK = new TextStyle(Font.PLAIN, 12f, AXIS);

    TextStyle in(Color c) {
      return new TextStyle(style, size, c);
    }
  }

  /** One drawing: the scales, then the layers back to front. */
  private static final class Painter {
    private final Graphics2D g;
    private final Font font;
    private final Chart chart;
    private final double yTop;
    private final double yStep;
    private final double log2Min;
    private final double log2Max;
    private int plotTop;
    private String warning;

    Painter(Graphics2D g, Font font, Chart chart) {
      this.g = g;
      this.font = font;
      this.chart = chart;
      double max = 0;
      int minWorkers = Integer.MAX_VALUE;
      int maxWorkers = 0;
      for (Series s : chart.series()) {
        for (Point p : s.points()) {
          max = Math.max(max, Math.max(p.max(), p.median()));
          minWorkers = Math.min(minWorkers, p.workers());
          maxWorkers = Math.max(maxWorkers, p.workers());
        }
      }
      for (Reference r : chart.references()) {
        max = Math.max(max, r.jobsPerSecond());
      }
      if (max <= 0 || !Double.isFinite(max)) {
        max = 1;
      }
      if (maxWorkers == 0) {
        minWorkers = 1;
        maxWorkers = 1;
      }
      this.yStep = niceStep(max * 1.04 / 6);
      this.yTop = yStep * Math.ceil(max * 1.04 / yStep);
      double lo = log2(minWorkers);
      double hi = log2(maxWorkers);
      // Half a doubling of room on each side, so the end points and their labels are clear of
      // the frame; a single worker count sits in the middle.
      double pad = hi > lo ? 0.4 : 1;
      this.log2Min = lo - pad;
      this.log2Max = hi + pad;
    }

    Rectangle plotArea() {
      return new Rectangle(PLOT_LEFT, plotTop, PLOT_RIGHT - PLOT_LEFT, PLOT_BOTTOM - plotTop);
    }

    void paint() {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(
          RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_STROKE_CONTROL, RenderingHints.VALUE_STROKE_PURE);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, WIDTH, HEIGHT);

      // The legend's height decides where the plot area starts; without fonts it has no rows.
      List<List<Integer>> legendRows = legendRows();
      plotTop = LEGEND_TOP + Math.max(1, legendRows.size()) * LEGEND_ROW + 8;

      paintGrid();
      paintReferenceLines();
      paintSeries();
      paintAxes();
      paintReferenceLabels();
      paintLegend(legendRows);
      text(chart.title(), WIDTH / 2f, 30, Align.CENTRE, TextStyle.TITLE);
      if (!chart.subtitle().isEmpty()) {
        text(chart.subtitle(), WIDTH / 2f, 50, Align.CENTRE, TextStyle.SUBTITLE);
      }
    }

    private void paintGrid() {
      g.setStroke(new BasicStroke(1f));
      g.setColor(GRID);
      for (double v = yStep; v <= yTop + yStep / 1e6; v += yStep) {
        double y = y(v);
        g.draw(new Line2D.Double(PLOT_LEFT, y, PLOT_RIGHT, y));
      }
      for (int w : xTicks()) {
        double x = x(w);
        g.draw(new Line2D.Double(x, plotTop, x, PLOT_BOTTOM));
      }
    }

    private void paintAxes() {
      g.setColor(AXIS);
      g.setStroke(new BasicStroke(1.2f));
      g.draw(new Line2D.Double(PLOT_LEFT, plotTop, PLOT_LEFT, PLOT_BOTTOM));
      g.draw(new Line2D.Double(PLOT_LEFT, PLOT_BOTTOM, PLOT_RIGHT, PLOT_BOTTOM));
      for (double v = 0; v <= yTop + yStep / 1e6; v += yStep) {
        double y = y(v);
        g.setColor(AXIS);
        g.draw(new Line2D.Double(PLOT_LEFT - 5, y, PLOT_LEFT, y));
        text(number(v), PLOT_LEFT - 8, (float) y + 4, Align.RIGHT, TextStyle.TICK);
      }
      for (int w : xTicks()) {
        double x = x(w);
        g.setColor(AXIS);
        g.draw(new Line2D.Double(x, PLOT_BOTTOM, x, PLOT_BOTTOM + 5));
        text(Integer.toString(w), (float) x, PLOT_BOTTOM + 19, Align.CENTRE, TextStyle.TICK);
      }
      text(
          "workers (the queue's concurrency; log scale)",
          (PLOT_LEFT + PLOT_RIGHT) / 2f,
          PLOT_BOTTOM + 44,
          Align.CENTRE,
          TextStyle.AXIS_TITLE);
      AffineTransform saved = g.getTransform();
      try {
        g.rotate(-Math.PI / 2);
        // Rotated a quarter turn back: (x, y) here is (-y, x) on the page.
        text(
            "jobs/s (first handler to last completion)",
            -(plotTop + PLOT_BOTTOM) / 2f,
            24,
            Align.CENTRE,
            TextStyle.AXIS_TITLE);
      } finally {
        g.setTransform(saved);
      }
    }

    private void paintReferenceLines() {
      List<Reference> refs = chart.references();
      for (int i = 0; i < refs.size(); i++) {
        g.setColor(REFERENCE_COLOURS.get(i % REFERENCE_COLOURS.size()));
        g.setStroke(
            new BasicStroke(
                1.6f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {9f, 6f}, 0f));
        double y = y(refs.get(i).jobsPerSecond());
        g.draw(new Line2D.Double(PLOT_LEFT, y, PLOT_RIGHT, y));
      }
    }

    private void paintReferenceLabels() {
      List<Reference> refs = chart.references();
      List<Rectangle2D> taken = new ArrayList<>();
      List<Shape> data = dataShapes();
      for (int i = 0; i < refs.size(); i++) {
        Reference r = refs.get(i);
        TextStyle f = TextStyle.TICK.in(REFERENCE_COLOURS.get(i % REFERENCE_COLOURS.size()));
        String label = r.name() + ": " + number(r.jobsPerSecond()) + " jobs/s";
        double width = textWidth(label, f);
        if (width == 0) {
          continue;
        }
        double y = y(r.jobsPerSecond());
        double centre = (PLOT_LEFT + PLOT_RIGHT - width) / 2;
        // Along the line, above or below it: the first place clear of the data and of the other
        // labels, else the one over the least data.
        double[][] anchors = {
          {PLOT_RIGHT - 6 - width, y - 5},
          {PLOT_LEFT + 8, y - 5},
          {PLOT_RIGHT - 6 - width, y + 15},
          {PLOT_LEFT + 8, y + 15},
          {centre, y - 5},
          {centre, y + 15}
        };
        Rectangle2D box = null;
        long best = Long.MAX_VALUE;
        for (double[] a : anchors) {
          Rectangle2D candidate = new Rectangle2D.Double(a[0] - 3, a[1] - 12, width + 6, 16);
          long overlaps =
              1000 * taken.stream().filter(candidate::intersects).count()
                  + data.stream().filter(d -> d.intersects(candidate)).count();
          if (overlaps < best) {
            best = overlaps;
            box = candidate;
          }
        }
        taken.add(box);
        g.setColor(new Color(255, 255, 255, 210));
        g.fill(box);
        text(label, (float) box.getX() + 3, (float) box.getY() + 12, Align.LEFT, f);
      }
    }

    /** Where series {@code i} is drawn relative to its worker counts, in pixels. */
    private double dx(int i) {
      int n = chart.series().size();
      // Series side by side at one worker count are nudged apart so their whiskers stay visible.
      double spread = n > 1 ? Math.min(6, 30.0 / (n - 1)) : 0;
      return (i - (n - 1) / 2.0) * spread;
    }

    /** The markers, whiskers and line segments of every series, slightly enlarged. */
    private List<Shape> dataShapes() {
      List<Shape> out = new ArrayList<>();
      for (int i = 0; i < chart.series().size(); i++) {
        double dx = dx(i);
        double lastX = Double.NaN;
        double lastY = Double.NaN;
        for (Point p : chart.series().get(i).points()) {
          double x = x(p.workers()) + dx;
          double y = y(p.median());
          out.add(new Rectangle2D.Double(x - 7, y - 7, 14, 14));
          if (p.rounds() > 1) {
            out.add(new Rectangle2D.Double(x - 5, y(p.max()) - 2, 10, y(p.min()) - y(p.max()) + 4));
          }
          if (!Double.isNaN(lastX)) {
            out.add(new BasicStroke(5f).createStrokedShape(new Line2D.Double(lastX, lastY, x, y)));
          }
          lastX = x;
          lastY = y;
        }
      }
      return out;
    }

    private void paintSeries() {
      List<Series> all = chart.series();
      int n = all.size();
      for (int i = 0; i < n; i++) {
        Series s = all.get(i);
        double dx = dx(i);
        Color c = SERIES_COLOURS.get(i % SERIES_COLOURS.size());
        g.setColor(c);
        g.setStroke(new BasicStroke(2.2f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
        Path2D line = new Path2D.Double();
        for (Point p : s.points()) {
          double x = x(p.workers()) + dx;
          if (line.getCurrentPoint() == null) {
            line.moveTo(x, y(p.median()));
          } else {
            line.lineTo(x, y(p.median()));
          }
        }
        g.draw(line);
        g.setStroke(new BasicStroke(1.5f));
        for (Point p : s.points()) {
          if (p.rounds() > 1 && p.max() > p.min()) {
            double x = x(p.workers()) + dx;
            g.draw(new Line2D.Double(x, y(p.min()), x, y(p.max())));
            g.draw(new Line2D.Double(x - 4, y(p.min()), x + 4, y(p.min())));
            g.draw(new Line2D.Double(x - 4, y(p.max()), x + 4, y(p.max())));
          }
        }
        for (Point p : s.points()) {
          marker(i, x(p.workers()) + dx, y(p.median()), c);
        }
      }
    }

    /** A filled marker of series {@code i}'s shape, outlined in white to stand off the lines. */
    private void marker(int i, double x, double y, Color c) {
      Shape shape = markerShape(i, x, y, MARKER);
      g.setColor(c);
      g.fill(shape);
      g.setColor(Color.WHITE);
      g.setStroke(new BasicStroke(1.2f));
      g.draw(shape);
    }

    private static Shape markerShape(int i, double x, double y, double size) {
      double r = size / 2;
      switch (i % 5) {
        case 0:
          return new Ellipse2D.Double(x - r, y - r, size, size);
        case 1:
          return new Rectangle2D.Double(x - r * 0.9, y - r * 0.9, size * 0.9, size * 0.9);
        case 2:
          return polygon(x, y - r * 1.15, x + r * 1.1, y + r * 0.8, x - r * 1.1, y + r * 0.8);
        case 3:
          return polygon(x, y - r * 1.2, x + r * 1.2, y, x, y + r * 1.2, x - r * 1.2, y);
        default:
          return polygon(x, y + r * 1.15, x + r * 1.1, y - r * 0.8, x - r * 1.1, y - r * 0.8);
      }
    }

    private static Shape polygon(double... xy) {
      Path2D p = new Path2D.Double();
      p.moveTo(xy[0], xy[1]);
      for (int k = 2; k < xy.length; k += 2) {
        p.lineTo(xy[k], xy[k + 1]);
      }
      p.closePath();
      return p;
    }

    /** The series' indexes per legend row, wrapped to the image's width; none without fonts. */
    private List<List<Integer>> legendRows() {
      List<List<Integer>> rows = new ArrayList<>();
      double rowWidth = 0;
      List<Integer> row = new ArrayList<>();
      for (int i = 0; i < chart.series().size(); i++) {
        double w = legendEntryWidth(chart.series().get(i).label());
        if (w == 0) {
          return List.of();
        }
        if (!row.isEmpty() && rowWidth + w > WIDTH - 60) {
          rows.add(row);
          row = new ArrayList<>();
          rowWidth = 0;
        }
        row.add(i);
        rowWidth += w;
      }
      if (!row.isEmpty()) {
        rows.add(row);
      }
      return rows;
    }

    private double legendEntryWidth(String label) {
      double text = textWidth(label, TextStyle.LEGEND);
      return text == 0 ? 0 : 34 + text + 26;
    }

    private void paintLegend(List<List<Integer>> rows) {
      for (int r = 0; r < rows.size(); r++) {
        List<Integer> row = rows.get(r);
        double total = row.stream().mapToDouble(i -> legendEntryWidth(label(i))).sum() - 26;
        double x = (WIDTH - total) / 2;
        double y = LEGEND_TOP + r * LEGEND_ROW + 12;
        for (int i : row) {
          Color c = SERIES_COLOURS.get(i % SERIES_COLOURS.size());
          g.setColor(c);
          g.setStroke(new BasicStroke(2.2f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
          g.draw(new Line2D.Double(x, y - 4, x + 28, y - 4));
          marker(i, x + 14, y - 4, c);
          text(label(i), (float) x + 34, (float) y + 1, Align.LEFT, TextStyle.LEGEND);
          x += legendEntryWidth(label(i));
        }
      }
    }

    private String label(int i) {
      return chart.series().get(i).label();
    }

    /** Powers of two in range, and the measured worker counts that are not, where there is room. */
    private List<Integer> xTicks() {
      TreeSet<Integer> ticks = new TreeSet<>();
      for (int k = 0; k <= 30; k++) {
        double l = k;
        if (l >= log2Min && l <= log2Max) {
          ticks.add(1 << k);
        }
      }
      List<Integer> measured =
          chart.series().stream()
              .flatMap(s -> s.points().stream())
              .map(Point::workers)
              .distinct()
              .sorted()
              .toList();
      for (int w : measured) {
        if (ticks.stream().allMatch(t -> Math.abs(x(t) - x(w)) >= 28)) {
          ticks.add(w);
        }
      }
      return new ArrayList<>(ticks);
    }

    private double x(int workers) {
      return PLOT_LEFT + (log2(workers) - log2Min) / (log2Max - log2Min) * (PLOT_RIGHT - PLOT_LEFT);
    }

    private double y(double jobsPerSecond) {
      return PLOT_BOTTOM - jobsPerSecond / yTop * (PLOT_BOTTOM - plotTop);
    }

    /**
     * Draws {@code s}; after the first failure of the font system no text is drawn any more, and
     * the warning says why.
     */
    private void text(String s, float x, float y, Align align, TextStyle style) {
      if (warning != null) {
        return;
      }
      try {
        g.setFont(font.deriveFont(style.style(), style.size()));
        g.setColor(style.colour());
        FontMetrics m = g.getFontMetrics();
        float w = m.stringWidth(s);
        float left = align == Align.LEFT ? x : align == Align.CENTRE ? x - w / 2 : x - w;
        g.drawString(s, left, y);
      } catch (Throwable e) {
        fontsFailed(e);
      }
    }

    /** The width of {@code s} in pixels, or 0 once text cannot be drawn. */
    private double textWidth(String s, TextStyle style) {
      if (warning != null) {
        return 0;
      }
      try {
        return g.getFontMetrics(font.deriveFont(style.style(), style.size())).stringWidth(s);
      } catch (Throwable e) {
        fontsFailed(e);
        return 0;
      }
    }

    private void fontsFailed(Throwable e) {
      if (e instanceof VirtualMachineError vme) {
        throw vme;
      }
      warning =
          "cannot draw text, the plot has none: "
              + e
              + "; install a font (e.g. the fontconfig and fonts-dejavu-core packages) for labels";
    }
  }

  /** The smallest of 1, 2, 2.5, 5 times a power of ten that is at least {@code raw}. */
  static double niceStep(double raw) {
    double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    for (double m : new double[] {1, 2, 2.5, 5}) {
      if (m * magnitude >= raw * (1 - 1e-9)) {
        return m * magnitude;
      }
    }
    return 10 * magnitude;
  }

  /** {@code 12,500} from 100 up and for whole numbers, {@code 0.25} for smaller fractions. */
  static String number(double v) {
    if (Math.abs(v) >= 100 || Math.abs(v - Math.rint(v)) < 1e-9) {
      return String.format(Locale.ROOT, "%,d", Math.round(v));
    }
    return new BigDecimal(v).round(new MathContext(3)).stripTrailingZeros().toPlainString();
  }

  private static double log2(int workers) {
    return Math.log(workers) / Math.log(2);
  }
}
