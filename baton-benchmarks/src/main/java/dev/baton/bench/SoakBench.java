package dev.baton.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.Counters;
import dev.baton.JobArgs;
import dev.baton.JobKind;
import dev.baton.JobRequest;
import dev.baton.cli.bench.Bench;
import dev.baton.cli.bench.BenchDatabase;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * Soak: jobs produced at a fixed rate for a long time (default 2,000 jobs/s for 30 minutes) and
 * worked by no-op handlers, while the job table is sampled at a fixed interval; the question is
 * whether throughput, dead tuples and the table's and indexes' size stay bounded with no growth
 * trend, under the autovacuum settings the migrations give the job table. It prints figures and
 * never asserts them.
 *
 * <p>Two Baton clients on pools of their own, in one new migrated schema:
 *
 * <ul>
 *   <li><b>the worker</b>: one queue of concurrency {@code --workers}, maintenance on, so it is the
 *       leader and runs the rescuer, the scheduler and the cleaner. Completed jobs are kept {@code
 *       --retention-s} (default 300 s; see {@link SoakOptions#DEFAULT_RETENTION}) and cleaned every
 *       {@link SoakOptions#cleanInterval()}. Its handlers do nothing (or sleep {@code --work-ms}).
 *   <li><b>the producer</b>: enqueues only (no queues, no maintenance, never started), from one
 *       thread. Every {@link #TICK} on an absolute schedule it enqueues, in one {@code
 *       enqueueMany}, the jobs owed so far (rate × time since the start, minus the jobs already
 *       enqueued), but at most {@link #MAX_TICKS_PER_CALL} ticks' share: after a stall (a slow
 *       commit, a checkpoint, a GC pause) it catches up at up to twice the rate over the next ticks
 *       instead of in one burst. Ticks that passed during a call are not replayed one by one; the
 *       next call takes what is owed by then. If the server cannot take the rate the debt grows:
 *       every row shows it ({@code behind}). A failed call is counted and retried at the next tick
 *       (the debt stays); any failure makes the run end with exit code 1.
 * </ul>
 *
 * <p>Every {@code --sample-s} (absolute schedule from the producer's start) a row is taken: the
 * jobs enqueued and completed in the interval (the clients' exact counts: jobs whose {@code
 * enqueueMany} returned, and {@link Counters#completed()}), and, from one query on a connection of
 * the benchmark's own, the job counts of the live states and of the completed jobs kept (exact,
 * each served by a partial index), {@code n_tup_del}, {@code n_live_tup}, {@code n_dead_tup},
 * {@code autovacuum_count}, {@code autoanalyze_count} (from {@code pg_stat_user_tables}, which the
 * server updates a little late: a busy backend reports its counts about once a second, an idle one
 * within 10 s), and the heap, index, TOAST and total size of the table ({@link SoakSample}). Rows
 * go to stderr as they are taken, optionally to a CSV file, and all together to stdout at the end.
 *
 * <p>After {@code --minutes}/{@code --seconds} the producer stops, the worker stops gracefully
 * (running handlers finish, completions are written, jobs claimed ahead are handed back), and a
 * last row ({@code stop}) covers that, so the rows' completed counts add up to every completion.
 * Then the totals: jobs enqueued and completed, the rows left in the table by state, and the rows
 * the cleaner deleted (enqueued minus rows left, exact once both clients stopped).
 *
 * <p>The summary ({@link SoakTrend}) covers the steady part: from the retention plus one clean
 * interval on ({@link SoakOptions#steadyFrom()}), when the cleaner deletes about as many jobs per
 * pass as completed in one interval. Before that the table can only grow.
 *
 * <p>The server matters: autovacuum must be on for the question to make sense. The embedded
 * PostgreSQL (no {@code --database-url}) runs with the server's defaults, autovacuum on; the output
 * names the server's autovacuum settings and the job table's storage parameters, and a loud warning
 * when autovacuum (or {@code track_counts}, which it needs) is off.
 */
final class SoakBench {
  /** The job of the soak: a sequence number, nothing else. */
  @JobKind("bench_soak")
  public record SoakJob(long i) implements JobArgs {}

  /** How often the producer enqueues. */
  static final Duration TICK = Duration.ofMillis(50);

  /** Most ticks' share of jobs in one producer call, when it is behind. */
  static final int MAX_TICKS_PER_CALL = 2;

  /** The producer's pool: its one thread makes one call at a time; one spare. */
  private static final int PRODUCER_POOL = 2;

  /** How long the worker's graceful stop may take. */
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  /** How long to wait for the worker to lead (a lone node leads when {@code start()} returns). */
  private static final Duration LEADER_WAIT = Duration.ofSeconds(15);

  /**
   * One row's gauges. Each count reads one index: the partial indexes of the live states ({@code
   * job_claim_idx}, {@code job_running_idx}, {@code job_waiting_idx}) hold only live jobs, and the
   * finished jobs are counted from {@code job_finalized_idx} (its predicate is repeated so that the
   * planner may use it). Formatted with the schema, a name this benchmark generated.
   */
  private static final String SAMPLE =
      """
      SELECT
        (SELECT count(*) FROM %1$s.job WHERE state = 'available'),
        (SELECT count(*) FROM %1$s.job WHERE state = 'running'),
        (SELECT count(*) FROM %1$s.job WHERE state IN ('scheduled', 'retryable')),
        (SELECT count(*) FROM %1$s.job
          WHERE state = 'completed' AND finalized_at IS NOT NULL),
        (SELECT count(*) FROM %1$s.job
          WHERE state IN ('cancelled', 'discarded') AND finalized_at IS NOT NULL),
        s.n_tup_del, s.n_live_tup, s.n_dead_tup,
        pg_relation_size(c.oid), pg_indexes_size(c.oid),
        coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0),
        pg_total_relation_size(c.oid),
        s.autovacuum_count, s.autoanalyze_count
      FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
      WHERE c.oid = '%1$s.job'::regclass
      """;

  /** The server settings that decide whether and how often the job table is vacuumed. */
  private static final String VACUUM_SETTINGS =
      """
      SELECT name, current_setting(name) FROM pg_settings
      WHERE name IN ('autovacuum', 'track_counts', 'autovacuum_naptime', 'autovacuum_max_workers',
                     'autovacuum_vacuum_cost_delay', 'autovacuum_vacuum_cost_limit',
                     'autovacuum_vacuum_scale_factor', 'autovacuum_vacuum_threshold')
      ORDER BY name
      """;

  /** The job table's storage parameters (the migrations set its autovacuum thresholds). */
  private static final String TABLE_OPTIONS =
      "SELECT coalesce(array_to_string(reloptions, ', '), '(none)') FROM pg_class"
          + " WHERE oid = '%s.job'::regclass";

  private final SoakOptions opts;
  private final PrintStream out;
  private final PrintStream err;
  private final BufferedWriter csv;
  private final List<SoakSample> rows = new ArrayList<>();
  private final Map<String, String> header = new LinkedHashMap<>();
  private final List<String> totals = new ArrayList<>();
  private final List<String> warnings = new ArrayList<>();

  private long startNanos;
  private long lastNanos;
  private long lastEnqueued;
  private long lastCompleted;

  private SoakBench(SoakOptions opts, PrintStream out, PrintStream err, BufferedWriter csv) {
    this.opts = opts;
    this.out = out;
    this.err = err;
    this.csv = csv;
  }

  /**
   * Runs {@code soak} with the arguments that follow the command word: progress and the rows as
   * they come to {@code err}, the report to {@code out}. Returns 0 when the soak ran to its end
   * (whatever its figures), 1 when it failed (the server unreachable, a sample query or an enqueue
   * failed), 2 on bad usage, with a one-line message naming the option first. {@code --help} prints
   * the options to {@code out} and returns 0.
   */
  static int run(List<String> args, PrintStream out, PrintStream err) {
    if (args.contains("--help") || args.contains("-h")) {
      out.print(SoakOptions.USAGE);
      return 0;
    }
    SoakOptions opts;
    try {
      opts = SoakOptions.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("baton-benchmarks soak: " + e.getMessage());
      err.print(SoakOptions.USAGE);
      return 2;
    }
    BufferedWriter csv = null;
    if (opts.csv() != null) {
      try {
        csv = Files.newBufferedWriter(opts.csv());
        csv.write(SoakSample.CSV_HEADER);
        csv.newLine();
        csv.flush();
      } catch (IOException e) {
        err.println(
            "baton-benchmarks soak: option --csv expects a writable file path, cannot write "
                + opts.csv()
                + ": "
                + e);
        return 2;
      }
    }
    return new SoakBench(opts, out, err, csv).run();
  }

  private int run() {
    String started = Instant.now().toString();
    String load0 = Bench.loadAverage();
    Throwable failure = null;
    Producer producer = null;
    try (BenchDatabase db = BenchDatabase.open(opts.databaseUrl(), opts.keepSchemas())) {
      header.put("server", Bench.describe(db));
      err.println("[soak] server: " + header.get("server"));
      producer = soak(db);
    } catch (Throwable e) {
      failure = e;
      e.printStackTrace(err);
    } finally {
      if (csv != null) {
        try {
          csv.close();
        } catch (IOException e) {
          err.println("[soak] cannot close " + opts.csv() + ": " + e);
        }
      }
    }
    if (failure == null && producer != null && producer.errors.get() > 0) {
      failure =
          new IllegalStateException(
              producer.errors.get()
                  + " enqueue calls failed, so the run did not apply the load it reports; first: "
                  + producer.firstError);
    }
    header.put("load avg", "before " + load0 + ", after " + Bench.loadAverage());
    out.print(report(started, failure));
    return failure == null ? 0 : 1;
  }

  /** The soak itself; returns the producer, for its error count. */
  private Producer soak(BenchDatabase db) throws Exception {
    try (HikariDataSource workerDs = db.pool("baton-soak-worker", opts.poolSize());
        HikariDataSource producerDs = db.pool("baton-soak-producer", PRODUCER_POOL);
        Connection mon = db.connect()) {
      String schema = db.newMigratedSchema(workerDs, "soak");
      header.put("schema", schema + (opts.keepSchemas() ? " (kept)" : " (dropped at exit)"));
      describeVacuum(mon, schema);
      for (String w : warnings) {
        err.println(w);
      }
      header.put("settings", settings());
      err.println("[soak] settings: " + header.get("settings"));
      long workNanos = opts.work().toNanos();
      Baton worker =
          Baton.builder(workerDs)
              .config(
                  BatonConfig.builder()
                      .schema(schema)
                      .queue("default", opts.workers())
                      .completedRetention(opts.retention())
                      .cleanInterval(opts.cleanInterval())
                      .cleanBatchSize(opts.cleanBatchSize())
                      .build())
              .handler(
                  SoakJob.class,
                  (ctx, job) -> {
                    if (workNanos > 0) {
                      Thread.sleep(workNanos / 1_000_000, (int) (workNanos % 1_000_000));
                    }
                  })
              .build();
      // Enqueues only: no handlers, no queues, no maintenance; never started.
      Baton producerClient =
          Baton.builder(producerDs)
              .config(
                  BatonConfig.builder()
                      .schema(schema)
                      .knownKinds(SoakJob.class)
                      .maintenanceEnabled(false)
                      .build())
              .build();
      Producer producer = new Producer(producerClient, opts.rate(), err);
      String sampleSql = SAMPLE.formatted(schema);
      boolean stopped = false;
      try {
        worker.start();
        awaitLeader(worker);
        err.println("[soak] " + SoakSample.TABLE_HEADER);
        startNanos = producer.start();
        lastNanos = startNanos;
        long interval = opts.sampleInterval().toNanos();
        long duration = opts.duration().toNanos();
        long steadyFrom = opts.steadyFrom().toNanos();
        for (long k = 1; k <= duration / interval; k++) {
          sleepUntil(startNanos + k * interval);
          SoakSample.Phase phase =
              k * interval >= steadyFrom ? SoakSample.Phase.STEADY : SoakSample.Phase.WARM_UP;
          add(take(phase, mon, sampleSql, worker, producer.enqueued(), producer.behind()));
        }
        sleepUntil(startNanos + duration);
        long behindAtStop = producer.stop();
        worker.stop(STOP_TIMEOUT);
        stopped = true;
        SoakSample last =
            take(SoakSample.Phase.STOP, mon, sampleSql, worker, producer.enqueued(), behindAtStop);
        add(last);
        addTotals(producer, worker.counters(), last);
      } finally {
        if (!stopped) {
          producer.stop();
          worker.stop(STOP_TIMEOUT);
        }
      }
      return producer;
    }
  }

  private void awaitLeader(Baton worker) throws InterruptedException {
    long deadline = System.nanoTime() + LEADER_WAIT.toNanos();
    while (!worker.isLeader() && System.nanoTime() - deadline < 0) {
      Thread.sleep(50);
    }
    if (!worker.isLeader()) {
      String w =
          "!!!! WARNING: the worker did not become the leader within "
              + LEADER_WAIT.toSeconds()
              + " s: the cleaner does not run on it and completed jobs may never be deleted";
      warnings.add(w);
      err.println(w);
    }
  }

  /** Reads the clients' counts, then the gauges; the counts first, so no gauge predates them. */
  private SoakSample take(
      SoakSample.Phase phase,
      Connection mon,
      String sql,
      Baton worker,
      long enqueuedTotal,
      long behind)
      throws SQLException {
    long now = System.nanoTime();
    long completedTotal = worker.counters().completed();
    try (Statement st = mon.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      if (!rs.next()) {
        throw new IllegalStateException("no statistics row for the job table");
      }
      SoakSample s =
          new SoakSample(
              phase,
              (now - startNanos) / 1e9,
              (now - lastNanos) / 1e9,
              enqueuedTotal - lastEnqueued,
              completedTotal - lastCompleted,
              behind,
              rs.getLong(1),
              rs.getLong(2),
              rs.getLong(3),
              rs.getLong(4),
              rs.getLong(5),
              rs.getLong(6),
              rs.getLong(7),
              rs.getLong(8),
              rs.getLong(9),
              rs.getLong(10),
              rs.getLong(11),
              rs.getLong(12),
              rs.getLong(13),
              rs.getLong(14));
      lastNanos = now;
      lastEnqueued = enqueuedTotal;
      lastCompleted = completedTotal;
      return s;
    }
  }

  private void add(SoakSample s) throws IOException {
    rows.add(s);
    err.println("[soak] " + s.tableRow());
    if (csv != null) {
      csv.write(s.csvRow());
      csv.newLine();
      // A long run stopped early keeps its rows so far.
      csv.flush();
    }
  }

  private void addTotals(Producer producer, Counters c, SoakSample last) {
    long enqueued = producer.enqueued();
    long completed = rows.stream().mapToLong(SoakSample::completed).sum();
    long left = last.available() + last.running() + last.waiting();
    long kept = last.completedKept() + last.failedKept();
    double seconds = opts.duration().toMillis() / 1000.0;
    totals.add(
        String.format(
            Locale.ROOT,
            "enqueued %,d (%,.1f jobs/s over %,.0f s; enqueue calls failed: %d); completed %,d"
                + " (the rows' sum; client counters: claimed %,d, completed %,d, retried %d,"
                + " discarded %d, rescued %d, handed back %d)",
            enqueued,
            enqueued / seconds,
            seconds,
            producer.errors.get(),
            completed,
            c.claimed(),
            c.completed(),
            c.retried(),
            c.discarded(),
            c.rescued(),
            c.handedBack()));
    totals.add(
        String.format(
            Locale.ROOT,
            "left in the table: available %,d, running %,d, scheduled or retryable %,d; completed"
                + " kept %,d, cancelled or discarded %,d",
            last.available(),
            last.running(),
            last.waiting(),
            last.completedKept(),
            last.failedKept()));
    totals.add(
        String.format(
            Locale.ROOT,
            "deleted by the cleaner: %,d (jobs enqueued minus rows left; pg_stat n_tup_del says"
                + " %,d, counted a little late)",
            enqueued - left - kept,
            last.deleted()));
  }

  private void describeVacuum(Connection mon, String schema) throws SQLException {
    Map<String, String> settings = new LinkedHashMap<>();
    try (Statement st = mon.createStatement()) {
      try (ResultSet rs = st.executeQuery(VACUUM_SETTINGS)) {
        while (rs.next()) {
          settings.put(rs.getString(1), rs.getString(2));
        }
      }
      try (ResultSet rs = st.executeQuery(TABLE_OPTIONS.formatted(schema))) {
        rs.next();
        header.put("job table", rs.getString(1) + " (storage parameters set by the migrations)");
      }
    }
    String autovacuum = settings.getOrDefault("autovacuum", "?");
    header.put(
        "autovacuum",
        autovacuum
            + "; "
            + settings.entrySet().stream()
                .filter(e -> !e.getKey().equals("autovacuum"))
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(", ")));
    if (!autovacuum.equals("on")) {
      warnings.add(
          "!!!! WARNING: autovacuum is "
              + autovacuum.toUpperCase(Locale.ROOT)
              + " on this server: dead tuples are never reclaimed and the table can only grow;"
              + " these figures say nothing about a server with autovacuum on (drop"
              + " --database-url to use the embedded server, which has it on) !!!!");
    }
    if (!settings.getOrDefault("track_counts", "?").equals("on")) {
      warnings.add(
          "!!!! WARNING: track_counts is "
              + settings.getOrDefault("track_counts", "?")
              + " on this server: autovacuum cannot see dead tuples and pg_stat columns stay 0"
              + " !!!!");
    }
  }

  private String settings() {
    double perTick = opts.rate() * (TICK.toMillis() / 1000.0);
    return String.format(
        Locale.ROOT,
        "rate %,d jobs/s for %s (enqueueMany every %d ms: %,.1f jobs per tick, at most %,d when"
            + " behind); workers %d (%s); retention %d s, clean interval %s, clean batch %,d;"
            + " sample every %d s; steady part from %d s (retention + one clean interval)",
        opts.rate(),
        human(opts.duration()),
        TICK.toMillis(),
        perTick,
        Producer.maxPerCall(opts.rate()),
        opts.workers(),
        opts.work().isZero()
            ? "no-op handlers"
            : "handlers sleep " + opts.work().toMillis() + " ms",
        opts.retention().toSeconds(),
        human(opts.cleanInterval()),
        opts.cleanBatchSize(),
        opts.sampleInterval().toSeconds(),
        opts.steadyFrom().toSeconds());
  }

  private static String human(Duration d) {
    if (d.toMillis() % 60_000 == 0) {
      return d.toMinutes() + " min";
    }
    if (d.toMillis() % 1_000 == 0) {
      return d.toSeconds() + " s";
    }
    return d.toMillis() + " ms";
  }

  private String report(String started, Throwable failure) {
    StringBuilder sb = new StringBuilder();
    sb.append('\n').append("==== Baton benchmark: soak (").append(started).append(") ====\n");
    for (Map.Entry<String, String> e : header.entrySet()) {
      if (e.getKey().equals("settings")) {
        line(sb, "client", client());
        line(sb, "core", Bench.coreFingerprint());
      }
      line(sb, e.getKey(), e.getValue());
      if (e.getKey().equals("autovacuum")) {
        for (String w : warnings) {
          sb.append(w).append('\n');
        }
      }
    }
    sb.append('\n').append(SoakSample.TABLE_HEADER).append('\n');
    for (SoakSample s : rows) {
      sb.append(s.tableRow()).append('\n');
    }
    sb.append('\n');
    for (String t : totals) {
      line(sb, "totals", t);
    }
    summary(sb);
    if (opts.csv() != null) {
      line(sb, "csv", opts.csv() + " (" + rows.size() + " rows)");
    }
    if (failure != null) {
      line(sb, "FAILED", String.valueOf(failure));
    }
    List<String> words = new ArrayList<>();
    words.add("soak");
    words.addAll(opts.rawArgs());
    line(
        sb,
        "rerun",
        "java -jar baton-benchmarks/target/baton-benchmarks.jar " + Bench.shellWords(words));
    line(
        sb, "    or", "baton-benchmarks/bench.sh " + Bench.shellWords(words) + "   (builds first)");
    return sb.toString();
  }

  private void summary(StringBuilder sb) {
    List<SoakSample> steady =
        rows.stream().filter(s -> s.phase() == SoakSample.Phase.STEADY).toList();
    if (steady.isEmpty()) {
      line(
          sb,
          "summary",
          "no steady part: the run ended before the retention plus one clean interval ("
              + opts.steadyFrom().toSeconds()
              + " s); run longer or lower --retention-s");
      return;
    }
    line(
        sb,
        "summary",
        String.format(
            Locale.ROOT,
            "steady part: %d rows from %.0f s to %.0f s; slopes by least squares, per 10 minutes"
                + " (and as %% of the median); last/1st = mean of the last third over the mean"
                + " of the first third",
            steady.size(),
            steady.get(0).elapsedS(),
            steady.get(steady.size() - 1).elapsedS()));
    double[] t = steady.stream().mapToDouble(SoakSample::elapsedS).toArray();
    int width = 18;
    sb.append("  ").append(SoakTrend.header(width)).append('\n');
    series(sb, "completed/s", steady, t, SoakSample::completedPerSecond, 0, width);
    series(sb, "queue depth", steady, t, s -> s.available(), 0, width);
    series(sb, "completed kept", steady, t, s -> s.completedKept(), 0, width);
    series(sb, "n_live_tup", steady, t, s -> s.liveTuples(), 0, width);
    series(sb, "n_dead_tup", steady, t, s -> s.deadTuples(), 0, width);
    series(sb, "heap MiB", steady, t, s -> SoakSample.mib(s.heapBytes()), 1, width);
    series(sb, "index MiB", steady, t, s -> SoakSample.mib(s.indexBytes()), 1, width);
    series(sb, "total MiB", steady, t, s -> SoakSample.mib(s.totalBytes()), 1, width);
    SoakSample first = steady.get(0);
    SoakSample last = steady.get(steady.size() - 1);
    line(
        sb,
        "",
        String.format(
            Locale.ROOT,
            "autovacuum runs on the job table in the steady part: %d (%d in all), autoanalyze: %d"
                + " (%d in all)",
            last.autovacuumCount() - first.autovacuumCount(),
            last.autovacuumCount(),
            last.autoanalyzeCount() - first.autoanalyzeCount(),
            last.autoanalyzeCount()));
  }

  private static void series(
      StringBuilder sb,
      String name,
      List<SoakSample> steady,
      double[] t,
      ToDoubleFunction<SoakSample> value,
      int decimals,
      int width) {
    double[] v = steady.stream().mapToDouble(value).toArray();
    sb.append("  ").append(SoakTrend.of(t, v).row(name, width, decimals)).append('\n');
  }

  private String client() {
    return Bench.jvm() + "; worker pool " + opts.poolSize() + ", producer pool " + PRODUCER_POOL;
  }

  private static void line(StringBuilder sb, String label, String text) {
    sb.append(String.format(Locale.ROOT, "%-10s", label))
        .append(label.isEmpty() ? "  " : ": ")
        .append(text)
        .append('\n');
  }

  private static void sleepUntil(long deadline) {
    long d;
    while ((d = deadline - System.nanoTime()) > 0) {
      LockSupport.parkNanos(d);
    }
  }

  /**
   * The producer's thread: every {@link #TICK} enqueues the jobs owed by then, at most {@link
   * #MAX_TICKS_PER_CALL} ticks' share, with one {@code enqueueMany} (see {@link SoakBench}).
   */
  private static final class Producer {
    private final Baton client;
    private final int rate;
    private final PrintStream err;
    private final AtomicLong enqueued = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private volatile String firstError;
    private volatile boolean running;
    private volatile long startNanos;
    private Thread thread;

    Producer(Baton client, int rate, PrintStream err) {
      this.client = client;
      this.rate = rate;
      this.err = err;
    }

    /** Most jobs in one call: {@link #MAX_TICKS_PER_CALL} ticks' share, at least 1. */
    static int maxPerCall(int rate) {
      return (int) Math.max(1, Math.ceil(rate * (TICK.toNanos() / 1e9) * MAX_TICKS_PER_CALL));
    }

    /** Starts the thread; returns the start of its schedule ({@link System#nanoTime()}). */
    long start() {
      startNanos = System.nanoTime();
      running = true;
      thread = new Thread(this::produce, "bench-soak-producer");
      thread.setDaemon(true);
      thread.start();
      return startNanos;
    }

    /** Jobs whose enqueue call returned. */
    long enqueued() {
      return enqueued.get();
    }

    /**
     * Jobs owed for more than one tick and not enqueued yet: 0 while the producer keeps up (the
     * share of the tick under way is not counted, so a row taken on a tick's boundary shows 0).
     */
    long behind() {
      return Math.max(0, due(System.nanoTime() - TICK.toNanos()) - enqueued.get());
    }

    /**
     * Stops after the call under way (without interrupting it: an interrupt could break the pool's
     * connection); returns the jobs owed at the moment of the request. Stopping twice, or before
     * start, is fine.
     */
    long stop() throws InterruptedException {
      long owed = running ? behind() : 0;
      running = false;
      Thread t = thread;
      if (t != null) {
        LockSupport.unpark(t);
        t.join();
      }
      return owed;
    }

    /** Jobs owed by {@code now}: rate × time since the start. */
    private long due(long now) {
      return (long) Math.floor(rate * (Math.max(0, now - startNanos) / 1e9));
    }

    private void produce() {
      long tick = TICK.toNanos();
      int max = maxPerCall(rate);
      long next = startNanos + tick;
      while (running) {
        sleepUntilOrStopped(next);
        if (!running) {
          return;
        }
        long owed = due(System.nanoTime()) - enqueued.get();
        int n = (int) Math.min(owed, max);
        if (n > 0) {
          List<JobRequest> batch = new ArrayList<>(n);
          long first = enqueued.get();
          for (int i = 0; i < n; i++) {
            batch.add(JobRequest.of(new SoakJob(first + i)));
          }
          try {
            client.enqueueMany(batch);
            enqueued.addAndGet(n);
          } catch (RuntimeException e) {
            long k = errors.incrementAndGet();
            if (k == 1) {
              firstError = String.valueOf(e);
            }
            if (k <= 5 || k % 100 == 0) {
              err.println("[soak] enqueue of " + n + " jobs failed (" + k + " so far): " + e);
            }
          }
        }
        // The next tick in the future: ticks missed during a slow call are not replayed.
        long now = System.nanoTime();
        next += tick;
        if (next - now < 0) {
          next = now + tick - Math.floorMod(now - startNanos, tick);
        }
      }
    }

    private void sleepUntilOrStopped(long deadline) {
      long d;
      while (running && (d = deadline - System.nanoTime()) > 0) {
        LockSupport.parkNanos(d);
      }
    }
  }
}
