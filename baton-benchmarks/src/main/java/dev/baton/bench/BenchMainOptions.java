package dev.baton.bench;

import dev.baton.cli.bench.BenchOptions;
import dev.baton.cli.bench.OptionWords;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The command line of {@link BenchMain}'s measuring commands: those of {@code baton bench} ({@link
 * BenchOptions}: drain, latency, enqueue, all) and {@code memory} with the same options, and {@code
 * sweep}, which also takes a list of worker counts and {@code [--rounds R] [--csv PATH] [--png
 * PATH] [--label TEXT] [--title TEXT] [--ref NAME=JOBS_PER_S,...]} (see {@link Sweep}). The {@code
 * plot} command has its own, {@link PlotOptions}; {@code soak} too, {@link SoakOptions}.
 *
 * @param bench the options every measuring command takes; for {@code sweep}, {@code workers} is the
 *     first count of the list
 * @param sweep what {@code sweep} does beyond one drain; null for the other commands
 */
record BenchMainOptions(BenchOptions bench, Sweep sweep) {

  /** The measuring commands of {@link BenchMain}. */
  static final Set<String> COMMANDS =
      Set.of("drain", "latency", "enqueue", "memory", "long-jobs", "pickup", "all", "sweep");

  /** The worker counts of a sweep when none are given. */
  static final List<Integer> DEFAULT_SWEEP_WORKERS = List.of(1, 2, 4, 8, 16, 32, 64, 128, 256);

  /** Jobs drained at each point of a sweep when no count is given. */
  static final int DEFAULT_SWEEP_JOBS = 20_000;

  /** Options of every command that {@code sweep} reads differently: a list, one count. */
  private static final Set<String> SWEEP_LISTS = Set.of("--workers", "--jobs");

  /** The options only {@code sweep} takes. */
  private static final Set<String> SWEEP_OPTIONS =
      Set.of("--rounds", "--csv", "--png", "--label", "--title", "--ref");

  /**
   * What {@code sweep} does beyond one drain: the {@code workers} to drain at, in order, each
   * round; {@code rounds} (at least 1) of all of them, interleaved so that drift of the machine's
   * load spreads over every worker count; the series' {@code label} in the CSV and the plot
   * (default {@code Baton, Java <feature version>}); and where to write the CSV and the PNG (null:
   * not written), with the plot's {@code title} and reference lines; {@code jobs} drained at every
   * point.
   */
  record Sweep(
      List<Integer> workers,
      int rounds,
      String label,
      Path csv,
      Path png,
      String title,
      List<ThroughputPlot.Reference> references,
      int jobs) {}

  static final String USAGE =
      "usage: java -jar baton-benchmarks/target/baton-benchmarks.jar <command> [options]\n"
          + "  commands:\n"
          + BenchOptions.USAGE_COMMANDS
          + """
              memory    heap and RSS of a node holding N jobs in flight at once (handlers blocked
                        until all N started; virtual threads on Java 21+) (default --jobs 1000)
              long-jobs jobs of 2 s each on 3 nodes of concurrency 16 (defaults otherwise): time
                        against the ideal, jobs per node, repeated starts (default --jobs 200)
              pickup    where the pickup of a job enqueued by another client goes: enqueue call,
                        NOTIFY delivery, wake-up to claim, claim to handler (default --jobs 1000)
              soak      jobs at a fixed rate for a long time; throughput, dead tuples and table size
                        over time (default 2000 jobs/s for 30 min; options of its own: soak --help)
              idle      what an idle fleet of nodes x queues costs the server (statements/s,
                        commits/s, server CPU) and its pickup latency (options of its own:
                        idle --help)
              fleet     node JVMs competing for 1 and 50 queues: claim latency, drain rate and
                        starvation for 1, 5 and 20 nodes (options of its own: fleet --help)
              sweep     drain at each worker count of a list, all of them once per round; prints a
                        table, writes a CSV row per (round, workers) and a PNG of jobs/s against
                        workers (default --jobs 20000 --workers 1,2,4,8,16,32,64,128,256 --rounds 1)
              plot      one PNG from the CSVs of sweeps, one series per label (e.g. two JDKs); no
                        database: plot --csv A.csv[,B.csv...] --png OUT.png [--title T] [--ref ...]
              harness   one run of the peers harness's external-command contract (settings from the
                        environment; see harness.sh)
              hardbyte  the adapter of hardbyte/postgresql-job-queue-benchmarking (settings from the
                        environment: DATABASE_URL, SCENARIO, PRODUCER_MODE, ...; JSONL on stdout)
            options:
          """
          + BenchOptions.USAGE_OPTIONS
          + """
              sweep:
              --workers W,W,...     the worker counts (default 1,2,4,8,16,32,64,128,256)
              --rounds R            drain at every worker count R times, round by round
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
  static BenchMainOptions parse(String[] args) {
    String command = BenchOptions.command(args, COMMANDS);
    SweepParts parts = new SweepParts();
    BenchOptions.Parser common = new BenchOptions.Parser();
    // One pass in the order given, so that of two bad options the first is reported, whichever
    // of the two parsers reads it; a sweep option of another command is refused before its value.
    for (OptionWords.Option o :
        OptionWords.split(
            List.of(args).subList(1, args.length),
            BenchOptions.FLAGS,
            name -> parts.takes(command, name))) {
      if (parts.takes(command, o.name())) {
        parts.accept(o.name(), o.value());
      } else {
        common.take(o.name(), o.value());
      }
    }
    BenchOptions bench = common.build(command, List.of(args));
    if (!bench.command().equals("sweep")) {
      return new BenchMainOptions(bench, null);
    }
    if (parts.csv != null
        && parts.png != null
        && parts.csv.toAbsolutePath().equals(parts.png.toAbsolutePath())) {
      throw new IllegalArgumentException("--csv and --png name the same file: " + parts.csv);
    }
    Sweep sweep =
        new Sweep(
            parts.workers,
            parts.rounds,
            parts.label,
            parts.csv,
            parts.png,
            parts.title,
            parts.references,
            parts.jobs);
    return new BenchMainOptions(withWorkers(bench, parts.workers.get(0)), sweep);
  }

  /** The command: one of {@link #COMMANDS}. */
  String command() {
    return bench.command();
  }

  /** The jobs per run, or null when not given. */
  List<Integer> jobs() {
    return bench.jobs();
  }

  /** The worker count (for a sweep, the first of the list). */
  int workers() {
    return bench.workers();
  }

  /** Pool size of a working client: {@link BenchOptions#poolSize()}. */
  int poolSize() {
    return bench.poolSize();
  }

  /** The same options with {@code w} workers: one point of a sweep. */
  BenchMainOptions withWorkers(int w) {
    return new BenchMainOptions(withWorkers(bench, w), sweep);
  }

  /** {@code b} with {@code w} workers. */
  private static BenchOptions withWorkers(BenchOptions b, int w) {
    return new BenchOptions(
        b.command(),
        b.jobs(),
        w,
        b.rate(),
        b.warmup(),
        b.idle(),
        b.bulk(),
        b.pool(),
        b.timeout(),
        b.databaseUrl(),
        b.keepSchemas(),
        b.traceSql(),
        b.heartbeat(),
        b.prefetch(),
        b.concurrencyLimit(),
        b.keyLimit(),
        b.work(),
        b.rawArgs());
  }

  /** {@code Baton, Java 17}: the series name of a sweep run on this JVM. */
  static String defaultLabel() {
    return "Baton, Java " + Runtime.version().feature();
  }

  /** The sweep's own options, read beside the common ones by {@link #parse}. */
  private static final class SweepParts {
    List<Integer> workers = DEFAULT_SWEEP_WORKERS;
    int rounds = 1;
    String label = defaultLabel();
    Path csv;
    Path png;
    String title = ThroughputPlot.DEFAULT_TITLE;
    List<ThroughputPlot.Reference> references = List.of();
    int jobs = DEFAULT_SWEEP_JOBS;

    /**
     * Whether {@code name} is this command's sweep option; throws for a sweep option of another
     * command. Asked before the option's value is read, so a refusal comes before a missing value.
     */
    boolean takes(String command, String name) {
      boolean isSweep = command.equals("sweep");
      if (!isSweep && SWEEP_OPTIONS.contains(name)) {
        throw new IllegalArgumentException(
            "option " + name + " is for sweep (and plot), not for " + command);
      }
      return isSweep && (SWEEP_OPTIONS.contains(name) || SWEEP_LISTS.contains(name));
    }

    /** The value of an option {@link #takes} said yes to. */
    void accept(String name, String value) {
      switch (name) {
        case "--workers" -> workers = workerList(name, value);
        case "--jobs" -> {
          if (value.contains(",")) {
            throw new IllegalArgumentException(
                "--jobs of sweep is one count, drained at every point; got \"" + value + "\"");
          }
          jobs = BenchOptions.positive(name, value.replace("_", ""));
        }
        case "--rounds" -> rounds = BenchOptions.positive(name, value);
        case "--csv" -> csv = PlotOptions.outputFile(name, value);
        case "--png" -> png = PlotOptions.pngFile(name, value);
        case "--label" -> label = PlotOptions.oneLine(name, value);
        case "--title" -> title = PlotOptions.oneLine(name, value);
        case "--ref" -> references = PlotOptions.references(name, value);
        default -> throw new IllegalStateException("unreachable: " + name);
      }
    }
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
}
