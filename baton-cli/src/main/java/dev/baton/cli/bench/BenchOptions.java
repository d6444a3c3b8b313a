package dev.baton.cli.bench;

import dev.baton.BatonConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The options of {@code baton bench}: {@code <command> [--jobs N[,N...]] [--workers W] [--rate R]
 * [--warmup N] [--idle-ms MS] [--bulk N] [--pool P] [--timeout-s S] [--database-url URL]
 * [--keep-schemas] [--trace-sql] [--heartbeat-ms MS] [--prefetch N] [--concurrency-limit N]
 * [--key-limit N --keys K] [--work-ms MS]}, for the commands {@code drain}, {@code latency}, {@code
 * enqueue} and {@code all}.
 *
 * <p>Defaults depend on the command (see {@link Bench}); a value left unset is null here. Public
 * for the benchmarks module, which runs its own measurements with these options and reads them,
 * beside options of its own, with a {@link Parser}; not a library API.
 */
public record BenchOptions(
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
    Integer concurrencyLimit,
    KeyLimit keyLimit,
    Duration work,
    List<String> rawArgs) {

  /**
   * A limit per key on the worked queue: the drain's jobs carry one of {@code keys} keys in their
   * args field {@link #FIELD}, and at most {@code limit} jobs of a key run at once.
   */
  public record KeyLimit(int limit, int keys) {
    /** The args field the drain's keyed jobs carry their key in. */
    public static final String FIELD = "k";
  }

  /** Workers (the queue's concurrency) when none is given. */
  public static final int DEFAULT_WORKERS = 64;

  /** Jobs enqueued per second by the latency benchmark when no rate is given. */
  public static final int DEFAULT_RATE = 50;

  /** Size of one enqueueMany call (drain chunks, and the enqueue benchmark's bulk call). */
  public static final int DEFAULT_BULK = 10_000;

  /** How long one drain may take before it is reported as stuck. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

  /** How long the latency benchmark lets the workers idle before measuring. */
  public static final Duration DEFAULT_IDLE = Duration.ofSeconds(3);

  /** The commands of {@code baton bench}. */
  public static final Set<String> COMMANDS = Set.of("drain", "latency", "enqueue", "all");

  /** The options that take no value. */
  public static final Set<String> FLAGS = Set.of("--keep-schemas", "--trace-sql");

  /** The commands of {@code baton bench}, one line each, for a usage message. */
  public static final String USAGE_COMMANDS =
      """
          drain     bulk-enqueue N no-op jobs, start a client, time until all are completed
                    (default --jobs 20000,100000)
          latency   pickup latency at a fixed enqueue rate: enqueued by the working client itself
                    (claim on enqueue), then by a second client on its own pool (LISTEN/NOTIFY only)
                    (default --jobs 500 --rate 50)
          enqueue   one-at-a-time enqueue rate, then one enqueueMany of --bulk jobs
                    (default --jobs 2000)
          all       drain, latency and enqueue with their defaults (--jobs applies to drain)
      """;

  /** The options of those commands, for a usage message. */
  public static final String USAGE_OPTIONS =
      """
          --jobs N[,N...]       jobs per run; several values = several runs
          --workers W           concurrency of the worked queue (default 64)
          --rate R              latency: enqueues per second (default 50)
          --warmup N            warm-up jobs (drain 2000, latency 200, enqueue 200 + bulk 1000)
          --idle-ms MS          latency: idle time before each measured phase (default 3000)
          --bulk N              chunk size of bulk enqueues (default 10000)
          --pool P              HikariCP pool size of the working client (default workers + 8)
          --timeout-s S         give up on one drain after S seconds (default 600)
          --database-url URL    JDBC URL of the server; default: an embedded PostgreSQL
                                (e.g. 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres')
          --prefetch N          jobs the worked queue claims ahead of its free slots while it
                                has a backlog (BatonConfig prefetch; default: adaptive)
          --concurrency-limit N the worked queue's cluster-wide concurrency limit
                                (BatonConfig concurrencyLimit; default: none)
          --key-limit N         drain: at most N jobs of a key running at once, cluster-wide
                                (BatonAdmin limitConcurrencyPerKey; needs --keys)
          --keys K              drain: the jobs carry one of K keys (default: no key)
          --work-ms MS          drain: each handler sleeps MS ms, a job that waits on I/O
                                (default 0: no-op jobs)
          --heartbeat-ms MS     heartbeat interval of the working client (default: Baton's,
                                a third of the 30 s lease)
          --keep-schemas        keep the bench_* schemas (default: dropped at exit)
          --trace-sql           drain, enqueue: also print, per statement Baton ran, calls,
                                time and rows per call (a diagnostic; adds a little overhead)
      """;

  /** The usage message of {@code baton bench}. */
  static final String USAGE =
      "usage: baton bench <command> [options]\n  commands:\n"
          + USAGE_COMMANDS
          + "  options:\n"
          + USAGE_OPTIONS;

  /**
   * Parses the arguments of one of {@link #COMMANDS}; throws {@link IllegalArgumentException} with
   * a message on bad input.
   */
  public static BenchOptions parse(String[] args) {
    String command = command(args, COMMANDS);
    Parser parser = new Parser();
    for (OptionWords.Option o :
        OptionWords.split(List.of(args).subList(1, args.length), FLAGS, name -> {})) {
      parser.take(o.name(), o.value());
    }
    return parser.build(command, List.of(args));
  }

  /**
   * The command of a command line, its first word, checked to be one of {@code commands}; throws
   * {@link IllegalArgumentException} with a message when there is none or another one.
   */
  public static String command(String[] args, Set<String> commands) {
    if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help")) {
      throw new IllegalArgumentException("no command given");
    }
    String command = args[0];
    if (!commands.contains(command)) {
      throw new IllegalArgumentException("unknown command \"" + command + "\"");
    }
    return command;
  }

  /**
   * Reads the options of a command line one at a time, in the order given, into a {@link
   * BenchOptions}. A caller with options of its own (the benchmarks module) hands over each one it
   * does not take itself.
   */
  public static final class Parser {
    private List<Integer> jobs = null;
    private int workers = DEFAULT_WORKERS;
    private int rate = DEFAULT_RATE;
    private Integer warmup = null;
    private Duration idle = DEFAULT_IDLE;
    private int bulk = DEFAULT_BULK;
    private Integer pool = null;
    private Duration timeout = DEFAULT_TIMEOUT;
    private String url = null;
    private boolean keep = false;
    private boolean trace = false;
    private Duration heartbeat = null;
    private Integer prefetch = null;
    private Integer concurrencyLimit = null;
    private Integer keyLimit = null;
    private Integer keys = null;
    private Duration work = Duration.ZERO;

    /** No option read yet: every value its default. */
    public Parser() {}

    /**
     * Reads option {@code name} with {@code value} (null for a flag of {@link BenchOptions#FLAGS});
     * throws {@link IllegalArgumentException} with a message for a name it does not know or a bad
     * value.
     */
    public void take(String name, String value) {
      if (name.equals("--keep-schemas")) {
        keep = true;
        return;
      }
      if (name.equals("--trace-sql")) {
        trace = true;
        return;
      }
      switch (name) {
        case "--jobs" -> {
          jobs = new ArrayList<>();
          for (String part : value.split(",")) {
            jobs.add(positive(name, part.replace("_", "")));
          }
        }
        case "--workers" -> workers = positive(name, value);
        case "--rate" -> rate = positive(name, value);
        case "--warmup" -> warmup = nonNegative(name, value);
        case "--idle-ms" -> idle = Duration.ofMillis(nonNegative(name, value));
        case "--bulk" -> bulk = positive(name, value);
        case "--pool" -> pool = positive(name, value);
        case "--timeout-s" -> timeout = Duration.ofSeconds(positive(name, value));
        case "--database-url" -> url = value;
        case "--heartbeat-ms" -> heartbeat = Duration.ofMillis(positive(name, value));
        case "--prefetch" -> prefetch = nonNegative(name, value);
        case "--concurrency-limit" -> concurrencyLimit = positive(name, value);
        case "--key-limit" -> keyLimit = positive(name, value);
        case "--keys" -> keys = positive(name, value);
        case "--work-ms" -> work = Duration.ofMillis(nonNegative(name, value));
        default -> throw new IllegalArgumentException("unknown option " + name);
      }
    }

    /** The options of {@code command}, given on the command line as {@code rawArgs}. */
    public BenchOptions build(String command, List<String> rawArgs) {
      if (keyLimit != null && keys == null) {
        throw new IllegalArgumentException(
            "--key-limit needs --keys K, the number of keys the drain's jobs carry");
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
          concurrencyLimit,
          keys == null ? null : new KeyLimit(keyLimit == null ? 0 : keyLimit, keys),
          work,
          rawArgs);
    }
  }

  /** The same options with each benchmark's own warm-up default (for {@code all}). */
  public BenchOptions withoutWarmup() {
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
        concurrencyLimit,
        keyLimit,
        work,
        rawArgs);
  }

  /** The config of a client that works queue {@code default} of {@code schema}. */
  public BatonConfig workerConfig(String schema) {
    BatonConfig.Builder b = BatonConfig.builder().schema(schema).queue("default", workers);
    if (heartbeat != null) {
      b.heartbeatInterval(heartbeat);
    }
    if (prefetch != null) {
      b.prefetch(prefetch);
    }
    if (concurrencyLimit != null) {
      b.concurrencyLimit("default", concurrencyLimit);
    }
    return b.build();
  }

  /**
   * Pool size of a working client: the workers plus Baton's own threads (producer, completer,
   * heartbeater, notifier, maintenance) and a little slack.
   */
  public int poolSize() {
    return pool != null ? pool : workers + 8;
  }

  /** {@code v} as a positive int; the message names option {@code name} and the value. */
  public static int positive(String name, String v) {
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
