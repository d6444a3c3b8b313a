package dev.baton.bench;

import dev.baton.BatonConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The command line: {@code <command> [--jobs N[,N...]] [--workers W] [--rate R] [--warmup N]
 * [--idle-ms MS] [--bulk N] [--pool P] [--timeout-s S] [--database-url URL] [--keep-schemas]
 * [--trace-sql] [--heartbeat-ms MS]}; {@code sweep} also takes a list of worker counts and {@code
 * [--rounds R] [--csv PATH] [--png PATH] [--label TEXT] [--title TEXT] [--ref NAME=JOBS_PER_S,...]}
 * (see {@link Sweep}). The {@code plot} command has its own, {@link PlotOptions}.
 *
 * <p>Defaults depend on the command (see {@link BenchMain}); a value left unset is null here.
 */
record BenchOptions(
    String command,
    List<Integer> jobs,
    int workers,
    int rate,
    Integer warmup,
    Duration idle,
    int bulk,
    Integer pool,
    Duration timeout,
    String databaseUrl,
    boolean keepSchemas,
    boolean traceSql,
    Duration heartbeat,
    Integer prefetch,
    Sweep sweep,
    List<String> rawArgs) {

  /** Workers (the queue's concurrency) when none is given. */
  static final int DEFAULT_WORKERS = 64;

  /** Jobs enqueued per second by the latency benchmark when no rate is given. */
  static final int DEFAULT_RATE = 50;

  /** Size of one enqueueMany call (drain chunks, and the enqueue benchmark's bulk call). */
  static final int DEFAULT_BULK = 10_000;

  /** How long one drain may take before it is reported as stuck. */
  static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

  /** How long the latency benchmark lets the workers idle before measuring. */
  static final Duration DEFAULT_IDLE = Duration.ofSeconds(3);

  /** The worker counts of a sweep when none are given. */
  static final List<Integer> DEFAULT_SWEEP_WORKERS = List.of(1, 2, 4, 8, 16, 32, 64, 128, 256);

  /** Jobs drained at each point of a sweep when no count is given. */
  static final int DEFAULT_SWEEP_JOBS = 20_000;

  /** The options only {@code sweep} takes. */
  private static final Set<String> SWEEP_OPTIONS =
      Set.of("--rounds", "--csv", "--png", "--label", "--title", "--ref");

  /**
   * What {@code sweep} does beyond one drain: the {@code workers} to drain at, in order, each
   * round; {@code rounds} (at least 1) of all of them, interleaved so that drift of the machine's
   * load spreads over every worker count; the series' {@code label} in the CSV and the plot
   * (default {@code Baton, Java <feature version>}); and where to write the CSV and the PNG (null:
   * not written), with the plot's {@code title} and reference lines.
   */
  record Sweep(
      List<Integer> workers,
      int rounds,
      String label,
      Path csv,
      Path png,
      String title,
      List<ThroughputPlot.Reference> references) {}

  static final String USAGE =
      """
      usage: java -jar baton-benchmarks/target/baton-benchmarks.jar <command> [options]
        commands:
          drain     bulk-enqueue N no-op jobs, start a client, time until all are completed
                    (default --jobs 20000,100000)
          latency   pickup latency at a fixed enqueue rate: enqueued by the working client itself
                    (claim on enqueue), then by a second client on its own pool (LISTEN/NOTIFY only)
                    (default --jobs 500 --rate 50)
          enqueue   one-at-a-time enqueue rate, then one enqueueMany of --bulk jobs
                    (default --jobs 2000)
          memory    heap and RSS of a node holding N jobs in flight at once (handlers blocked
                    until all N started; virtual threads on Java 21+) (default --jobs 1000)
          all       drain, latency and enqueue with their defaults (--jobs applies to drain)
          soak      jobs at a fixed rate for a long time; throughput, dead tuples and table size
                    over time (default 2000 jobs/s for 30 min; options of its own: soak --help)
          sweep     drain at each worker count of a list, all of them once per round; prints a
                    table, writes a CSV row per (round, workers) and a PNG of jobs/s against
                    workers (default --jobs 20000 --workers 1,2,4,8,16,32,64,128,256 --rounds 1)
          plot      one PNG from the CSVs of sweeps, one series per label (e.g. two JDKs); no
                    database: plot --csv A.csv[,B.csv...] --png OUT.png [--title T] [--ref ...]
          harness   one run of the peers harness's external-command contract (settings from the
                    environment; see docs/BENCHMARKS.md)
          hardbyte  the adapter of hardbyte/postgresql-job-queue-benchmarking (settings from the
                    environment: DATABASE_URL, SCENARIO, PRODUCER_MODE, ...; JSONL on stdout)
        options:
          --jobs N[,N...]       jobs per run; several values = several runs
          --workers W           concurrency of the worked queue (default 64);
                                sweep: a list W,W,... (default 1,2,4,8,16,32,64,128,256)
          --rate R              latency: enqueues per second (default 50)
          --warmup N            warm-up jobs (drain 2000, latency 200, enqueue 200 + bulk 1000)
          --idle-ms MS          latency: idle time before each measured phase (default 3000)
          --bulk N              chunk size of bulk enqueues (default 10000)
          --pool P              HikariCP pool size of the working client (default workers + 8)
          --timeout-s S         give up on one drain after S seconds (default 600)
          --database-url URL    JDBC URL of the server; default: an embedded PostgreSQL
                                (e.g. 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres')
          --prefetch N          jobs the worked queue claims ahead of its free slots while it
                                has a backlog (BatonConfig prefetch; default: --workers)
          --heartbeat-ms MS     heartbeat interval of the working client (default: Baton's,
                                a third of the 30 s lease); short values stress the
                                heartbeat's overlap with the completer
          --keep-schemas        keep the bench_* schemas (default: dropped at exit)
          --trace-sql           drain, enqueue: also print, per statement Baton ran, calls,
                                time and rows per call (a diagnostic; adds a little overhead)
          --rounds R            sweep: drain at every worker count R times, round by round
                                (default 1); the plot shows medians with min-max whiskers
          --csv PATH            sweep: write one row per (round, workers), rewritten after
                                each point; plot: the sweep CSVs to draw (a list, or repeat)
          --png PATH            sweep, plot: write the chart of jobs/s against workers
          --label TEXT          sweep: the series' name in CSV and chart
                                (default "Baton, Java <feature version>", e.g. "Baton, Java 17")
          --title TEXT          sweep, plot: the chart's title
          --ref NAME=V[,...]    sweep, plot: dashed reference lines at V jobs/s, e.g.
                                graphile=13288,simple-java-batch=25282 (peers' W1 figures)
      """;

  /** Parses {@code args}; throws {@link IllegalArgumentException} with a message on bad input. */
  static BenchOptions parse(String[] args) {
    if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help")) {
      throw new IllegalArgumentException("no command given");
    }
    String command = args[0];
    if (!List.of("drain", "latency", "enqueue", "memory", "all", "sweep").contains(command)) {
      throw new IllegalArgumentException("unknown command \"" + command + "\"");
    }
    boolean isSweep = command.equals("sweep");
    List<Integer> jobs = null;
    int workers = DEFAULT_WORKERS;
    int rate = DEFAULT_RATE;
    Integer warmup = null;
    Duration idle = DEFAULT_IDLE;
    int bulk = DEFAULT_BULK;
    Integer pool = null;
    Duration timeout = DEFAULT_TIMEOUT;
    String url = null;
    boolean keep = false;
    boolean trace = false;
    Duration heartbeat = null;
    Integer prefetch = null;
    List<Integer> sweepWorkers = DEFAULT_SWEEP_WORKERS;
    int rounds = 1;
    String label = defaultLabel();
    Path csv = null;
    Path png = null;
    String title = ThroughputPlot.DEFAULT_TITLE;
    List<ThroughputPlot.Reference> refs = List.of();
    List<OptionWords.Option> options =
        OptionWords.split(
            List.of(args).subList(1, args.length),
            Set.of("--keep-schemas", "--trace-sql"),
            name -> {
              if (!isSweep && SWEEP_OPTIONS.contains(name)) {
                throw new IllegalArgumentException(
                    "option " + name + " is for sweep (and plot), not for " + command);
              }
            });
    for (OptionWords.Option o : options) {
      String name = o.name();
      String value = o.value();
      if (name.equals("--keep-schemas")) {
        keep = true;
        continue;
      }
      if (name.equals("--trace-sql")) {
        trace = true;
        continue;
      }
      switch (name) {
        case "--jobs" -> {
          jobs = new ArrayList<>();
          for (String part : value.split(",")) {
            jobs.add(positive(name, part.replace("_", "")));
          }
          if (isSweep && jobs.size() > 1) {
            throw new IllegalArgumentException(
                "--jobs of sweep is one count, drained at every point; got \"" + value + "\"");
          }
        }
        case "--workers" -> {
          if (isSweep) {
            sweepWorkers = workerList(name, value);
          } else {
            workers = positive(name, value);
          }
        }
        case "--rate" -> rate = positive(name, value);
        case "--warmup" -> warmup = nonNegative(name, value);
        case "--idle-ms" -> idle = Duration.ofMillis(nonNegative(name, value));
        case "--bulk" -> bulk = positive(name, value);
        case "--pool" -> pool = positive(name, value);
        case "--timeout-s" -> timeout = Duration.ofSeconds(positive(name, value));
        case "--database-url" -> url = value;
        case "--heartbeat-ms" -> heartbeat = Duration.ofMillis(positive(name, value));
        case "--prefetch" -> prefetch = nonNegative(name, value);
        case "--rounds" -> rounds = positive(name, value);
        case "--csv" -> csv = PlotOptions.outputFile(name, value);
        case "--png" -> png = PlotOptions.pngFile(name, value);
        case "--label" -> label = PlotOptions.oneLine(name, value);
        case "--title" -> title = PlotOptions.oneLine(name, value);
        case "--ref" -> refs = PlotOptions.references(name, value);
        default -> throw new IllegalArgumentException("unknown option " + name);
      }
    }
    Sweep sweepOptions = null;
    if (isSweep) {
      if (csv != null && png != null && csv.toAbsolutePath().equals(png.toAbsolutePath())) {
        throw new IllegalArgumentException("--csv and --png name the same file: " + csv);
      }
      sweepOptions = new Sweep(sweepWorkers, rounds, label, csv, png, title, refs);
      workers = sweepWorkers.get(0);
    }
    return new BenchOptions(
        command,
        jobs,
        workers,
        rate,
        warmup,
        idle,
        bulk,
        pool,
        timeout,
        url,
        keep,
        trace,
        heartbeat,
        prefetch,
        sweepOptions,
        List.of(args));
  }

  /** The same options with each benchmark's own warm-up default (for {@code all}). */
  BenchOptions withoutWarmup() {
    return new BenchOptions(
        command,
        jobs,
        workers,
        rate,
        null,
        idle,
        bulk,
        pool,
        timeout,
        databaseUrl,
        keepSchemas,
        traceSql,
        heartbeat,
        prefetch,
        sweep,
        rawArgs);
  }

  /** The same options with {@code w} workers: one point of a sweep. */
  BenchOptions withWorkers(int w) {
    return new BenchOptions(
        command,
        jobs,
        w,
        rate,
        warmup,
        idle,
        bulk,
        pool,
        timeout,
        databaseUrl,
        keepSchemas,
        traceSql,
        heartbeat,
        prefetch,
        sweep,
        rawArgs);
  }

  /** {@code Baton, Java 17}: the series name of a sweep run on this JVM. */
  static String defaultLabel() {
    return "Baton, Java " + Runtime.version().feature();
  }

  /** The config of a client that works queue {@code default} of {@code schema}. */
  BatonConfig workerConfig(String schema) {
    BatonConfig.Builder b = BatonConfig.builder().schema(schema).queue("default", workers);
    if (heartbeat != null) {
      b.heartbeatInterval(heartbeat);
    }
    if (prefetch != null) {
      b.prefetch(prefetch);
    }
    return b.build();
  }

  /**
   * Pool size of a working client: the workers plus Baton's own threads (producer, completer,
   * heartbeater, notifier, maintenance) and a little slack.
   */
  int poolSize() {
    return pool != null ? pool : workers + 8;
  }

  /** Distinct positive worker counts, in the order given, e.g. {@code 1,2,4,8}. */
  private static List<Integer> workerList(String name, String value) {
    Set<Integer> out = new LinkedHashSet<>();
    for (String part : value.split(",", -1)) {
      int n;
      try {
        n = Integer.parseInt(part.strip().replace("_", ""));
      } catch (NumberFormatException e) {
        n = -1;
      }
      if (n <= 0) {
        throw new IllegalArgumentException(
            name
                + " of sweep expects a list of positive whole numbers such as 1,2,4,8; got \""
                + part
                + "\" in \""
                + value
                + "\"");
      }
      if (!out.add(n)) {
        throw new IllegalArgumentException(
            name + " of sweep lists " + n + " twice in \"" + value + "\"; give each count once");
      }
    }
    return List.copyOf(out);
  }

  private static int positive(String name, String v) {
    int n = nonNegative(name, v);
    if (n == 0) {
      throw new IllegalArgumentException(name + " must be positive, got 0");
    }
    return n;
  }

  private static int nonNegative(String name, String v) {
    try {
      int n = Integer.parseInt(v.trim());
      if (n < 0) {
        throw new IllegalArgumentException(name + " must not be negative, got " + v);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " expects a whole number, got \"" + v + "\"");
    }
  }
}
