package dev.baton.bench;

import dev.baton.BatonConfig;
import dev.baton.cli.bench.BenchOptions;
import dev.baton.cli.bench.OptionWords;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The command line of the soak benchmark: {@code soak [--rate R] [--minutes M | --seconds S]
 * [--sample-s S] [--workers W] [--work-ms MS] [--retention-s S] [--csv PATH] [--database-url URL]
 * [--keep-schemas]}. Options take their value as the next word or after {@code =}; each may be
 * given in any order, the last one wins.
 *
 * @param rate jobs enqueued per second
 * @param duration how long jobs are produced and sampled
 * @param sampleInterval time between two sample rows
 * @param workers concurrency of the worked queue
 * @param work how long each handler sleeps; zero for a no-op
 * @param retention how long completed jobs are kept before the leader's cleaner deletes them
 * @param csv where the sample rows are also written as CSV, or null
 * @param databaseUrl the server's JDBC URL, or null for an embedded PostgreSQL
 * @param keepSchemas whether the run's schema is kept at exit
 * @param rawArgs the arguments as given after {@code soak}, for the rerun line
 */
record SoakOptions(
    int rate,
    Duration duration,
    Duration sampleInterval,
    int workers,
    Duration work,
    Duration retention,
    Path csv,
    String databaseUrl,
    boolean keepSchemas,
    List<String> rawArgs) {

  /** Jobs enqueued per second when none is given: 2,000 (the soak target of the issue). */
  static final int DEFAULT_RATE = 2_000;

  /** How long the soak runs when neither {@code --minutes} nor {@code --seconds} is given. */
  static final Duration DEFAULT_DURATION = Duration.ofMinutes(30);

  /** Time between two sample rows when none is given: 30 seconds (60 rows in 30 minutes). */
  static final Duration DEFAULT_SAMPLE_INTERVAL = Duration.ofSeconds(30);

  /** Concurrency of the worked queue when none is given, as the other benchmarks. */
  static final int DEFAULT_WORKERS = BenchOptions.DEFAULT_WORKERS;

  /**
   * Completed-job retention when none is given: 5 minutes. Baton's own default, 24 hours, would
   * keep the table growing for the whole run: the steady state (as many jobs deleted as completed
   * per clean interval) begins only once the oldest completed job is older than the retention, so
   * the retention must be a small part of the run. 5 minutes leaves 25 of 30 minutes of steady
   * state while still holding 600,000 completed rows at 2,000 jobs/s, a history large enough for
   * vacuum, index bloat and the cleaner's deletes to matter.
   */
  static final Duration DEFAULT_RETENTION = Duration.ofMinutes(5);

  /** Most jobs per second {@code --rate} accepts. */
  static final int MAX_RATE = 1_000_000;

  static final String USAGE =
      """
      usage: java -jar baton-benchmarks/target/baton-benchmarks.jar soak [options]
        Produces jobs at a fixed rate for a long time, works them with no-op handlers and, every
        sample interval, prints throughput, queue depth, the job table's live and dead tuples, its
        heap, index, TOAST and total size and its autovacuum count; at the end, the min, median,
        max, slope and drift of each series over the steady part. Prints figures, asserts nothing.
        options:
          --rate R              jobs enqueued per second (default 2000)
          --minutes M           run for M minutes (default 30)
          --seconds S           run for S seconds instead (short runs)
          --sample-s S          seconds between two sample rows (default 30)
          --workers W           concurrency of the worked queue (default 64)
          --work-ms MS          each handler sleeps MS milliseconds (default 0: a no-op)
          --retention-s S       completed jobs are deleted by the leader's cleaner S seconds after
                                they completed (default 300; Baton's own default is 24 h). The
                                clean interval is min(30 s, S / 10), at least 1 s. 0: each
                                completion deletes its job (completedRetention zero)
          --csv PATH            also write the sample rows to PATH as CSV
          --database-url URL    JDBC URL of the server; default: an embedded PostgreSQL with the
                                server's defaults (autovacuum on)
          --keep-schemas        keep the bench_* schema (default: dropped at exit)
      """;

  /**
   * Parses the arguments after {@code soak}; throws {@link IllegalArgumentException} with a
   * one-line message naming the option and what it expects. {@code --help} is not an option here:
   * the caller handles it.
   */
  static SoakOptions parse(List<String> args) {
    int rate = DEFAULT_RATE;
    Duration minutes = null;
    Duration seconds = null;
    Duration sample = DEFAULT_SAMPLE_INTERVAL;
    int workers = DEFAULT_WORKERS;
    Duration work = Duration.ZERO;
    Duration retention = DEFAULT_RETENTION;
    Path csv = null;
    String url = null;
    boolean keep = false;
    List<String> known =
        List.of(
            "--rate",
            "--minutes",
            "--seconds",
            "--sample-s",
            "--workers",
            "--work-ms",
            "--retention-s",
            "--csv",
            "--database-url");
    List<OptionWords.Option> options =
        OptionWords.split(
            args,
            Set.of("--keep-schemas"),
            name -> {
              if (!known.contains(name)) {
                throw new IllegalArgumentException(
                    "unknown option " + name + " (see soak --help for the options)");
              }
            });
    for (OptionWords.Option o : options) {
      String name = o.name();
      String value = o.value();
      if (name.equals("--keep-schemas")) {
        if (value != null) {
          throw new IllegalArgumentException(
              "option --keep-schemas takes no value, got " + o.word());
        }
        keep = true;
        continue;
      }
      switch (name) {
        case "--rate" -> rate = whole(name, value, 1, MAX_RATE, "jobs per second");
        case "--minutes" -> minutes = Duration.ofMinutes(whole(name, value, 1, 10_080, "minutes"));
        case "--seconds" -> seconds = Duration.ofSeconds(whole(name, value, 1, 604_800, "seconds"));
        case "--sample-s" -> sample = Duration.ofSeconds(whole(name, value, 1, 3_600, "seconds"));
        case "--workers" -> workers = whole(name, value, 1, 10_000, "workers");
        case "--work-ms" -> work = Duration.ofMillis(whole(name, value, 0, 60_000, "milliseconds"));
        case "--retention-s" ->
            retention = Duration.ofSeconds(whole(name, value, 0, 86_400, "seconds"));
        case "--csv" -> {
          if (value.isBlank()) {
            throw new IllegalArgumentException("option --csv expects a file path, got \"\"");
          }
          csv = Path.of(value);
        }
        case "--database-url" -> {
          if (!value.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException(
                "option --database-url expects a jdbc:postgresql: URL, got \"" + value + "\"");
          }
          url = value;
        }
        default -> throw new IllegalStateException("unreachable: " + name);
      }
    }
    if (minutes != null && seconds != null) {
      throw new IllegalArgumentException(
          "options --minutes and --seconds both given; give one of them");
    }
    Duration duration = seconds != null ? seconds : minutes != null ? minutes : DEFAULT_DURATION;
    if (sample.compareTo(duration) > 0) {
      throw new IllegalArgumentException(
          "option --sample-s expects at most the run's length ("
              + duration.toSeconds()
              + " s), got "
              + sample.toSeconds());
    }
    return new SoakOptions(
        rate, duration, sample, workers, work, retention, csv, url, keep, List.copyOf(args));
  }

  /**
   * How often the leader's cleaner runs: a tenth of the retention, so a completed job is deleted at
   * most 10% later than its retention says; at most Baton's default (30 s) and at least 1 s. With
   * the default retention it is Baton's default.
   */
  Duration cleanInterval() {
    Duration tenth = retention.dividedBy(10);
    if (tenth.compareTo(BatonConfig.DEFAULT_CLEAN_INTERVAL) > 0) {
      return BatonConfig.DEFAULT_CLEAN_INTERVAL;
    }
    return tenth.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : tenth;
  }

  /**
   * Rows the cleaner deletes per statement: Baton's default (1,000) unless one pass could not
   * delete half again the jobs completed in one clean interval. A pass runs at most 100 statements
   * per state (the cleaner's {@code MAX_BATCHES}), so at the default batch one pass deletes at most
   * 100,000 jobs; above about 66,700 jobs per interval (2,222 jobs/s at a 30 s interval) the batch
   * grows, so that the cleaner keeps up and the soak measures the table, not a cleaner left behind.
   */
  int cleanBatchSize() {
    long perInterval = (long) Math.ceil(rate * (cleanInterval().toMillis() / 1000.0));
    long needed = (long) Math.ceil(perInterval * 1.5 / CLEANER_MAX_BATCHES);
    return (int) Math.min(100_000, Math.max(BatonConfig.DEFAULT_CLEAN_BATCH_SIZE, needed));
  }

  /** The cleaner's most statements per state in one pass ({@code Cleaner.MAX_BATCHES}). */
  static final int CLEANER_MAX_BATCHES = 100;

  /**
   * When the steady part begins: the retention plus one clean interval after the start. Before it
   * the table only grows (no completed job is old enough to be deleted); from then on every pass of
   * the cleaner deletes about what one interval completed.
   */
  Duration steadyFrom() {
    return retention.plus(cleanInterval());
  }

  /**
   * Pool size of the working client: the workers plus Baton's own threads (producer, completer,
   * heartbeater, notifier, maintenance) and a little slack, as the other benchmarks.
   */
  int poolSize() {
    return workers + 8;
  }

  /**
   * {@code v} as a whole number in {@code min..max}; else an error naming the option, the range and
   * its unit, and what was given.
   */
  private static int whole(String name, String v, int min, int max, String unit) {
    long n;
    try {
      n = Long.parseLong(v.trim().replace("_", ""));
    } catch (NumberFormatException e) {
      n = Long.MIN_VALUE;
    }
    if (n < min || n > max) {
      throw new IllegalArgumentException(
          String.format(
              java.util.Locale.ROOT,
              "option %s expects a whole number of %s from %,d to %,d, got \"%s\"",
              name,
              unit,
              min,
              max,
              v));
    }
    return (int) n;
  }
}
