package dev.baton.bench;

import dev.baton.cli.bench.BenchDatabase;
import dev.baton.cli.bench.DrainBench;
import dev.baton.cli.bench.Figures;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Throughput against worker count: the drain benchmark ({@link DrainBench}: bulk-enqueue N no-op
 * jobs, then time their drain, after a warm-up drain) at each worker count of a list. With several
 * rounds the whole list runs once per round, so a change of the shared machine's load during the
 * sweep spreads over every worker count instead of bending the curve; the chart shows the median of
 * the rounds with whiskers from the minimum to the maximum.
 *
 * <p>Every point drains in a schema of its own, with a client of its own whose pool is the worker
 * count plus 8 (or {@code --pool}). The CSV is rewritten after every point, so a sweep that fails
 * or is stopped keeps the rows measured; on a failure the table and the chart of those rows are
 * still produced before the failure is reported.
 */
final class SweepBench {
  private final BenchDatabase db;
  private final BenchMainOptions opts;
  private final Figures figures;

  SweepBench(BenchDatabase db, BenchMainOptions opts, Figures figures) {
    this.db = db;
    this.opts = opts;
    this.figures = figures;
  }

  /** Drains at every point, then adds the table to the figures and writes the CSV and PNG. */
  void run() throws Exception {
    BenchMainOptions.Sweep sweep = opts.sweep();
    int n = sweep.jobs();
    int points = sweep.rounds() * sweep.workers().size();
    List<SweepCsv.Row> rows = new ArrayList<>();
    try {
      for (int round = 1; round <= sweep.rounds(); round++) {
        for (int w : sweep.workers()) {
          System.err.printf(
              Locale.ROOT,
              "[bench] sweep: point %d of %d: round %d, workers %d, %,d jobs%n",
              rows.size() + 1,
              points,
              round,
              w,
              n);
          // The drain's own lines (several per point) go to stderr as progress only; the final
          // block gets the table.
          DrainBench.Result r =
              new DrainBench(db, opts.withWorkers(w).bench(), new Figures()).run(n);
          rows.add(
              new SweepCsv.Row(
                  sweep.label(),
                  round,
                  w,
                  n,
                  r.jobsPerSecond(),
                  r.jobsPerSecondInclStart(),
                  r.cpuSeconds() * 1e3));
          if (sweep.csv() != null) {
            SweepCsv.write(sweep.csv(), rows);
          }
        }
      }
    } catch (Exception e) {
      if (!rows.isEmpty()) {
        try {
          report(n, rows);
        } catch (Exception reportFailed) {
          e.addSuppressed(reportFailed);
        }
      }
      throw e;
    }
    report(n, rows);
  }

  private void report(int n, List<SweepCsv.Row> rows) throws Exception {
    BenchMainOptions.Sweep sweep = opts.sweep();
    figures.add(
        "sweep " + n,
        String.format(
            Locale.ROOT,
            "drain of %,d no-op jobs per point, workers %s, %d round(s), label \"%s\"",
            n,
            sweep.workers().stream().map(String::valueOf).collect(Collectors.joining(",")),
            sweep.rounds(),
            sweep.label()));
    figures.add(
        "",
        String.format(
            Locale.ROOT,
            "%5s %8s %10s %12s %14s %11s",
            "round",
            "workers",
            "jobs/s",
            "incl. start",
            "client CPU ms",
            "CPU us/job"));
    for (SweepCsv.Row r : rows) {
      figures.add(
          "",
          String.format(
              Locale.ROOT,
              "%5d %8d %,10.0f %,12.0f %,14.0f %11.1f",
              r.round(),
              r.workers(),
              r.jobsPerSecond(),
              r.jobsPerSecondInclStart(),
              r.clientCpuMs(),
              r.clientCpuMs() * 1e3 / r.jobs()));
    }
    if (sweep.rounds() > 1) {
      figures.add("", "jobs/s, median over the rounds (min-max):");
      for (String line : medianTable(ThroughputPlot.series(rows))) {
        figures.add("", line);
      }
    }
    if (sweep.csv() != null) {
      figures.add("csv", sweep.csv().toString());
    }
    if (sweep.png() != null) {
      ThroughputPlot.Rendered png =
          ThroughputPlot.write(
              new ThroughputPlot.Chart(
                  sweep.title(),
                  ThroughputPlot.subtitle(rows),
                  ThroughputPlot.series(rows),
                  sweep.references()),
              sweep.png());
      figures.add("png", sweep.png().toString());
      if (png.warning() != null) {
        figures.add("", "WARNING: " + png.warning());
      }
    }
  }

  /**
   * One line per worker count, one column per series: the median jobs/s, and (min-max) where a
   * point has several rounds.
   */
  static List<String> medianTable(List<ThroughputPlot.Series> series) {
    TreeSet<Integer> workers = new TreeSet<>();
    series.forEach(s -> s.points().forEach(p -> workers.add(p.workers())));
    List<List<String>> cells = new ArrayList<>();
    List<String> header = new ArrayList<>(List.of("workers"));
    series.forEach(s -> header.add(s.label()));
    cells.add(header);
    for (int w : workers) {
      List<String> line = new ArrayList<>(List.of(Integer.toString(w)));
      for (ThroughputPlot.Series s : series) {
        line.add(
            s.points().stream()
                .filter(p -> p.workers() == w)
                .findFirst()
                .map(
                    p ->
                        p.rounds() > 1
                            ? String.format(
                                Locale.ROOT, "%,.0f (%,.0f-%,.0f)", p.median(), p.min(), p.max())
                            : String.format(Locale.ROOT, "%,.0f", p.median()))
                .orElse("-"));
      }
      cells.add(line);
    }
    int[] width = new int[header.size()];
    for (List<String> line : cells) {
      for (int c = 0; c < line.size(); c++) {
        width[c] = Math.max(width[c], line.get(c).length());
      }
    }
    List<String> out = new ArrayList<>();
    for (List<String> line : cells) {
      StringBuilder sb = new StringBuilder();
      for (int c = 0; c < line.size(); c++) {
        String cell = line.get(c);
        String pad = " ".repeat(width[c] - cell.length());
        // Worker counts left, figures right-aligned under their series' name.
        sb.append(c == 0 ? cell + pad : "   " + pad + cell);
      }
      out.add(sb.toString().stripTrailing());
    }
    return out;
  }
}
