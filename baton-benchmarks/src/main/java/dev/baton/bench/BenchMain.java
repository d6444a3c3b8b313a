package dev.baton.bench;

import dev.baton.cli.bench.Bench;
import dev.baton.cli.bench.BenchOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The benchmarks of this repository in one entry point: {@code baton bench}'s drain rate, pickup
 * latency and enqueue rate ({@link Bench}, from the command line's jar), and the lab's own: memory
 * per job in flight, sweeps of worker counts and their plots, the soak, and the adapters of two
 * peer benchmarks. It prints figures and the exact command to rerun them; it never asserts a time.
 *
 * <pre>
 * java -jar baton-benchmarks/target/baton-benchmarks.jar drain [--jobs 20000,100000] [--workers 64]
 * java -jar baton-benchmarks/target/baton-benchmarks.jar latency [--jobs 500] [--rate 50]
 * java -jar baton-benchmarks/target/baton-benchmarks.jar enqueue [--jobs 2000]
 * java -jar baton-benchmarks/target/baton-benchmarks.jar memory [--jobs 1000]
 * java -jar baton-benchmarks/target/baton-benchmarks.jar long-jobs [--jobs 200]
 * java -jar baton-benchmarks/target/baton-benchmarks.jar pickup [--jobs 1000]
 * java -jar baton-benchmarks/target/baton-benchmarks.jar sweep [--workers 1,2,4,...,256]
 *     [--jobs 20000] [--rounds 1] [--csv sweep.csv] [--png sweep.png] [--label TEXT]
 *     ... [--database-url 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres']
 * java -jar baton-benchmarks/target/baton-benchmarks.jar plot --csv a.csv,b.csv --png out.png
 *     [--title TEXT] [--ref graphile=13288,...]   (no database: draws what sweeps wrote)
 * java -jar baton-benchmarks/target/baton-benchmarks.jar soak [--rate 2000] [--minutes 30] [--csv PATH]
 *     (options of its own, see SoakOptions; soak --help lists them)
 * java -jar baton-benchmarks/target/baton-benchmarks.jar idle [--shapes 1x1,10x1,10x10,10x100]
 *     (what an idle fleet of nodes x queues costs the server; options of its own, see IdleBench)
 * java -jar baton-benchmarks/target/baton-benchmarks.jar fleet [--nodes 1,5,20] [--queues 1,50]
 *     (node JVMs competing: claim latency, drain rate, starvation; options of its own, FleetBench)
 * java -jar baton-benchmarks/target/baton-benchmarks.jar hardbyte   (settings from the environment:
 *     hardbyte/postgresql-job-queue-benchmarking's adapter protocol, see HardbyteAdapter)
 * </pre>
 *
 * <p>Without {@code --database-url} an embedded PostgreSQL is started with the server's durability
 * defaults ({@code fsync} and {@code synchronous_commit} on). Every run works in a new schema
 * migrated with {@link dev.baton.migrate.Migrator}, dropped at exit unless {@code --keep-schemas}.
 * Progress goes to stderr; the final block of figures goes to stdout.
 */
public final class BenchMain {
  private BenchMain() {}

  /** Runs one command and exits with {@link #run}'s code. */
  public static void main(String[] args) {
    System.exit(run(args));
  }

  /**
   * Runs one command: {@code drain}, {@code latency}, {@code enqueue}, {@code all}, {@code memory},
   * {@code sweep} (drain at a list of worker counts, with a CSV and a PNG chart), {@code plot} (one
   * chart from sweeps' CSVs); {@code soak} (a fixed rate for a long time, with options of its own,
   * {@link SoakOptions}); {@code harness} (the peers harness's external-command contract, settings
   * from the environment) or {@code hardbyte} (hardbyte/postgresql-job-queue-benchmarking's adapter
   * contract). Returns 0 when every run finished, 1 when one failed, 2 on bad usage.
   */
  public static int run(String[] args) {
    if (args.length > 0 && args[0].equals("soak")) {
      return SoakBench.run(Arrays.asList(args).subList(1, args.length), System.out, System.err);
    }
    if (args.length > 0 && args[0].equals("fleet")) {
      return FleetBench.run(Arrays.asList(args).subList(1, args.length), System.out, System.err);
    }
    if (args.length > 0 && args[0].equals("idle")) {
      return IdleBench.run(Arrays.asList(args).subList(1, args.length), System.out, System.err);
    }
    if (args.length > 0 && args[0].equals("harness")) {
      return HarnessAdapter.run();
    }
    if (args.length > 0 && args[0].equals("plot")) {
      return plot(args);
    }
    if (args.length > 0 && args[0].equals("hardbyte")) {
      return dev.baton.bench.hardbyte.HardbyteAdapter.run(
          Arrays.copyOfRange(args, 1, args.length), System.getenv());
    }
    BenchMainOptions opts;
    try {
      opts = BenchMainOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("baton-benchmarks: " + e.getMessage());
      System.err.print(BenchMainOptions.USAGE);
      return 2;
    }
    BenchOptions bench = opts.bench();
    String words = Bench.shellWords(bench.rawArgs());
    return Bench.measure(
        bench,
        opts.sweep() != null
            ? opts.sweep().workers().stream().map(String::valueOf).collect(Collectors.joining(","))
            : String.valueOf(bench.workers()),
        opts.sweep() != null && bench.pool() == null
            ? "workers + 8"
            : String.valueOf(bench.poolSize()),
        List.of(
            "rerun   : java -jar baton-benchmarks/target/baton-benchmarks.jar " + words,
            "    or  : baton-benchmarks/bench.sh " + words + "   (builds first)"),
        (db, figures) -> {
          switch (opts.command()) {
            case "memory" -> {
              MemoryBench b = new MemoryBench(db, bench, figures);
              for (int n : opts.jobs() != null ? opts.jobs() : List.of(1_000)) {
                b.run(n);
              }
            }
            case "pickup" ->
                new PickupBench(db, bench, figures)
                    .run(opts.jobs() != null ? opts.jobs().get(0) : 1_000);
            case "long-jobs" ->
                new LongJobsBench(db, bench, figures)
                    .run(opts.jobs() != null ? opts.jobs().get(0) : 200, 3, 16, 2);
            case "sweep" -> new SweepBench(db, opts, figures).run();
            default -> Bench.measureStandard(db, bench, figures);
          }
        });
  }

  /**
   * {@code plot}: reads the CSVs, draws one chart, prints a table of the medians. Exit 2 on bad
   * usage or a file that is not a sweep CSV, 1 when the PNG cannot be written.
   */
  private static int plot(String[] args) {
    PlotOptions opts;
    try {
      opts = PlotOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("baton-benchmarks: " + e.getMessage());
      System.err.print(BenchMainOptions.USAGE);
      return 2;
    }
    List<SweepCsv.Row> rows = new ArrayList<>();
    try {
      for (Path csv : opts.csvs()) {
        rows.addAll(SweepCsv.read(csv));
      }
    } catch (IllegalArgumentException e) {
      System.err.println("baton-benchmarks: plot: " + e.getMessage());
      return 2;
    } catch (IOException e) {
      System.err.println("baton-benchmarks: plot: cannot read the CSVs: " + e);
      return 1;
    }
    List<ThroughputPlot.Series> series = ThroughputPlot.series(rows);
    ThroughputPlot.Rendered png;
    try {
      png =
          ThroughputPlot.write(
              new ThroughputPlot.Chart(
                  opts.title(), ThroughputPlot.subtitle(rows), series, opts.references()),
              opts.png());
    } catch (IOException | RuntimeException e) {
      System.err.println("baton-benchmarks: plot: cannot write " + opts.png() + ": " + e);
      return 1;
    }
    System.out.println();
    System.out.println("==== Baton benchmark: plot (" + Instant.now() + ") ====");
    System.out.println(
        "series  : "
            + series.size()
            + " from "
            + opts.csvs().stream().map(Path::toString).collect(Collectors.joining(", "))
            + "; jobs/s, median over the rounds (min-max):");
    SweepBench.medianTable(series).forEach(line -> System.out.println("          " + line));
    for (ThroughputPlot.Reference r : opts.references()) {
      System.out.printf(Locale.ROOT, "ref     : %s: %,.0f jobs/s%n", r.name(), r.jobsPerSecond());
    }
    System.out.println("png     : " + opts.png());
    if (png.warning() != null) {
      System.err.println("baton-benchmarks: plot: WARNING: " + png.warning());
      System.out.println("WARNING : " + png.warning());
    }
    System.out.println(
        "rerun   : java -jar baton-benchmarks/target/baton-benchmarks.jar "
            + Bench.shellWords(List.of(args)));
    return 0;
  }
}
