package dev.baton.bench;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;

/**
 * A small benchmark entry point: drain rate, pickup latency and enqueue rate of Baton against one
 * PostgreSQL server. It prints figures and the exact command to rerun them; it never asserts a
 * time.
 *
 * <pre>
 * java -jar baton-benchmarks/target/baton-benchmarks.jar drain [--jobs 20000,100000] [--workers 64]
 * java -jar baton-benchmarks/target/baton-benchmarks.jar latency [--jobs 500] [--rate 50]
 * java -jar baton-benchmarks/target/baton-benchmarks.jar enqueue [--jobs 2000]
 * java -jar baton-benchmarks/target/baton-benchmarks.jar sweep [--workers 1,2,4,...,256]
 *     [--jobs 20000] [--rounds 1] [--csv sweep.csv] [--png sweep.png] [--label TEXT]
 *     ... [--database-url 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres']
 * java -jar baton-benchmarks/target/baton-benchmarks.jar plot --csv a.csv,b.csv --png out.png
 *     [--title TEXT] [--ref graphile=13288,...]   (no database: draws what sweeps wrote)
 * java -jar baton-benchmarks/target/baton-benchmarks.jar soak [--rate 2000] [--minutes 30] [--csv PATH]
 *     (options of its own, see SoakOptions; soak --help lists them)
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
   * Runs one command: {@code drain}, {@code latency}, {@code enqueue}, {@code all}, {@code sweep}
   * (drain at a list of worker counts, with a CSV and a PNG chart), {@code plot} (one chart from
   * sweeps' CSVs); {@code soak} (a fixed rate for a long time, with options of its own, {@link
   * SoakOptions}); {@code harness} (the peers harness's external-command contract, settings from
   * the environment) or {@code hardbyte} (hardbyte/postgresql-job-queue-benchmarking's adapter
   * contract). Returns 0 when every run finished, 1 when one failed, 2 on bad usage.
   */
  public static int run(String[] args) {
    if (args.length > 0 && args[0].equals("soak")) {
      return SoakBench.run(Arrays.asList(args).subList(1, args.length), System.out, System.err);
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
    BenchOptions opts;
    try {
      opts = BenchOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("baton-benchmarks: " + e.getMessage());
      System.err.print(BenchOptions.USAGE);
      return 2;
    }
    Figures figures = new Figures();
    String started = Instant.now().toString();
    String server = "?";
    Throwable failure = null;
    try (BenchDatabase db = BenchDatabase.open(opts.databaseUrl(), opts.keepSchemas())) {
      server = describe(db);
      System.err.println("[bench] server: " + server);
      switch (opts.command()) {
        case "drain" ->
            drain(db, opts, figures, opts.jobs() != null ? opts.jobs() : List.of(20_000, 100_000));
        case "latency" ->
            latency(db, opts, figures, opts.jobs() != null ? opts.jobs() : List.of(500));
        case "enqueue" ->
            enqueue(db, opts, figures, opts.jobs() != null ? opts.jobs() : List.of(2_000));
        case "memory" -> {
          MemoryBench b = new MemoryBench(db, opts, figures);
          for (int n : opts.jobs() != null ? opts.jobs() : List.of(1_000)) {
            b.run(n);
          }
        }
        case "all" -> {
          drain(db, opts, figures, opts.jobs() != null ? opts.jobs() : List.of(20_000, 100_000));
          latency(db, opts.withoutWarmup(), figures, List.of(500));
          enqueue(db, opts.withoutWarmup(), figures, List.of(2_000));
        }
        case "sweep" -> new SweepBench(db, opts, figures).run();
        default -> throw new IllegalStateException("unreachable: " + opts.command());
      }
    } catch (Throwable e) {
      failure = e;
      e.printStackTrace();
    }
    System.out.println();
    System.out.println("==== Baton benchmark: " + opts.command() + " (" + started + ") ====");
    System.out.println("server  : " + server);
    System.out.println(
        "client  : "
            + jvm()
            + "; workers "
            + (opts.sweep() != null
                ? opts.sweep().workers().stream()
                    .map(String::valueOf)
                    .collect(Collectors.joining(","))
                : opts.workers())
            + " ("
            + (Runtime.version().feature() >= 21 ? "virtual threads" : "platform threads")
            + "), pool of the working client "
            + (opts.sweep() != null && opts.pool() == null ? "workers + 8" : opts.poolSize()));
    System.out.println("core    : " + coreFingerprint());
    System.out.print(figures.render());
    if (failure != null) {
      System.out.println("FAILED  : " + failure);
    }
    System.out.println(
        "rerun   : java -jar baton-benchmarks/target/baton-benchmarks.jar "
            + shellWords(opts.rawArgs()));
    System.out.println(
        "    or  : baton-benchmarks/bench.sh " + shellWords(opts.rawArgs()) + "   (builds first)");
    return failure == null ? 0 : 1;
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
      System.err.print(BenchOptions.USAGE);
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
            + shellWords(List.of(args)));
    return 0;
  }

  private static void drain(BenchDatabase db, BenchOptions opts, Figures f, List<Integer> jobs)
      throws Exception {
    DrainBench b = new DrainBench(db, opts, f);
    for (int n : jobs) {
      b.run(n);
    }
  }

  private static void latency(BenchDatabase db, BenchOptions opts, Figures f, List<Integer> jobs)
      throws Exception {
    LatencyBench b = new LatencyBench(db, opts, f);
    for (int n : jobs) {
      b.run(n);
    }
  }

  private static void enqueue(BenchDatabase db, BenchOptions opts, Figures f, List<Integer> jobs)
      throws Exception {
    EnqueueBench b = new EnqueueBench(db, opts, f);
    for (int n : jobs) {
      b.run(n);
    }
  }

  /** The server's version, where it is, and the settings of {@link BenchDatabase#describe()}. */
  static String describe(BenchDatabase db) {
    Map<String, String> d = db.describe();
    String where = db.embedded() ? "embedded" : redact(db.jdbcUrl());
    return "PostgreSQL "
        + d.getOrDefault("server_version", "?")
        + " ("
        + where
        + "); "
        + d.entrySet().stream()
            .filter(e -> !e.getKey().equals("server_version"))
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(", "));
  }

  /**
   * This JVM and what it may use: {@code Java 17.0.15 (OpenJDK ...), 2 cores, max heap 6028 MiB}.
   */
  static String jvm() {
    return "Java "
        + System.getProperty("java.version")
        + " ("
        + System.getProperty("java.vm.name")
        + "), "
        + Runtime.getRuntime().availableProcessors()
        + " cores, max heap "
        + Runtime.getRuntime().maxMemory() / (1 << 20)
        + " MiB";
  }

  /** The first three fields of /proc/loadavg, or "?" where there is none. */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }

  /**
   * Which Baton was measured: a CRC over the names and CRCs of the Baton classes in this jar (not
   * the benchmark's own). Several people build the core at once; two runs with the same fingerprint
   * measured the same code.
   */
  static String coreFingerprint() {
    try {
      File jar =
          new File(BenchMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (!jar.isFile()) {
        return "(classes directory, no fingerprint)";
      }
      try (JarFile jf = new JarFile(jar)) {
        List<ZipEntry> entries =
            jf.stream()
                .filter(e -> e.getName().startsWith("dev/baton/"))
                .filter(e -> !e.getName().startsWith("dev/baton/bench/"))
                .filter(e -> !e.isDirectory())
                .sorted(Comparator.comparing(ZipEntry::getName))
                .collect(Collectors.toList());
        CRC32 crc = new CRC32();
        for (ZipEntry e : entries) {
          crc.update(e.getName().getBytes(java.nio.charset.StandardCharsets.UTF_8));
          crc.update(Long.toString(e.getCrc()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        return String.format(
            Locale.ROOT,
            "baton-core classes %08x (%d files in %s)",
            crc.getValue(),
            entries.size(),
            jar.getName());
      }
    } catch (Exception e) {
      return "? (" + e + ")";
    }
  }

  /** The URL without a password parameter. */
  private static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&]*", "$1***");
  }

  /** The words, quoted for a POSIX shell where needed. */
  static String shellWords(List<String> words) {
    return words.stream()
        .map(w -> w.matches("[A-Za-z0-9_./:=,@%+-]+") ? w : "'" + w.replace("'", "'\\''") + "'")
        .collect(Collectors.joining(" "));
  }
}
