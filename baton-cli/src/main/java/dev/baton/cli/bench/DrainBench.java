package dev.baton.cli.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.Counters;
import dev.baton.JobRequest;
import dev.baton.admin.BatonAdmin;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Drain rate: bulk-enqueue N no-op jobs (or jobs whose handler sleeps {@code --work-ms}) with no
 * client working, start a client with W workers, and time until the database shows every job
 * completed. Mirrors the peer harness's W1: a warm-up drain (separate client, same schema) first,
 * then the measured one.
 *
 * <p>Reported: {@code jobs/s} = N / (first handler start to last completion visible in the
 * database) and {@code jobs/s incl. start} = N / (the {@code start()} call to last completion).
 * Completion is read on a connection of the benchmark's own, every 2 ms once every handler has run.
 */
public final class DrainBench {
  /** Unfinished jobs; served by the partial indexes, so polling it is cheap at any table size. */
  private static final String PENDING_SQL =
      "SELECT count(*) FROM %s.job WHERE state IN ('available', 'running', 'scheduled',"
          + " 'retryable')";

  private final BenchDatabase db;
  private final BenchOptions opts;
  private final Figures figures;

  /** A drain benchmark on {@code db} with {@code opts}, adding its lines to {@code figures}. */
  public DrainBench(BenchDatabase db, BenchOptions opts, Figures figures) {
    this.db = db;
    this.opts = opts;
    this.figures = figures;
  }

  /**
   * One measured drain of {@code n} jobs (after a warm-up drain) in a new schema; adds its figures
   * and returns them.
   */
  public Result run(int n) throws Exception {
    int warm = opts.warmup() != null ? opts.warmup() : 2_000;
    String label = "drain " + n;
    System.err.printf(
        Locale.ROOT,
        "[bench] %s: workers=%d pool=%d warmup=%d work=%d ms%n",
        label,
        opts.workers(),
        opts.poolSize(),
        warm,
        opts.work().toMillis());
    SqlTrace trace = opts.traceSql() ? new SqlTrace() : null;
    try (HikariDataSource ds = db.pool("baton-bench", opts.poolSize());
        Connection mon = db.connect()) {
      String schema = db.newMigratedSchema(ds, "drain_" + n);
      BenchOptions.KeyLimit keyed = opts.keyLimit();
      if (keyed != null && keyed.limit() > 0) {
        new BatonAdmin(ds, schema)
            .limitConcurrencyPerKey("default", BenchOptions.KeyLimit.FIELD, keyed.limit(), "bench");
      }
      if (warm > 0) {
        Result w = drain(ds, mon, schema, warm, label + " warm-up", trace);
        System.err.printf(
            Locale.ROOT, "[bench] %s warm-up: %,.0f jobs/s%n", label, w.jobsPerSecond());
      }
      if (trace != null) {
        trace.reset();
      }
      String load0 = Bench.loadAverage();
      Result r = drain(ds, mon, schema, n, label, trace);
      String load1 = Bench.loadAverage();
      String states = BenchDatabase.stateCounts(mon, schema);
      figures.add(
          label,
          String.format(
              Locale.ROOT,
              "%,.0f jobs/s (first handler -> last completion), %,.0f jobs/s incl. start;"
                  + " total %,.0f ms, start() %,.1f ms, first job %,.1f ms, handlers done %,.0f ms",
              r.jobsPerSecond(),
              r.jobsPerSecondInclStart(),
              r.totalMs,
              r.startMs,
              r.firstJobMs,
              r.handlersDoneMs));
      figures.add(
          "",
          String.format(
              Locale.ROOT,
              "bulk enqueue %,d in %d chunk(s): %,.0f ms (%,.0f jobs/s); client CPU %.2f s;"
                  + " duplicates %d; counters: claimed %d completed %d retried %d fenced %d",
              n,
              (n + opts.bulk() - 1) / opts.bulk(),
              r.bulkMs,
              n / (r.bulkMs / 1e3),
              r.cpuSeconds,
              r.duplicates,
              r.counters.claimed(),
              r.counters.completed(),
              r.counters.retried(),
              r.counters.fenced()));
      figures.add("", "final states (warm-up included): " + states);
      figures.add("", "load average (1, 5, 15 min) before: " + load0 + ", after: " + load1);
      if (trace != null) {
        figures.add("", "--trace-sql, measured drain only (includes the start-up and the tail):");
        for (String line : trace.table(r.totalMs / 1e3)) {
          figures.add("", "  " + line);
        }
      }
      return r;
    }
  }

  /**
   * The figures of one drain: times in ms from the {@code start()} call, and the CPU time of this
   * whole process over the same span (the working client, and this benchmark's polling).
   */
  public record Result(
      int n,
      double bulkMs,
      double startMs,
      double firstJobMs,
      double handlersDoneMs,
      double totalMs,
      double cpuSeconds,
      long duplicates,
      Counters counters) {
    /** Jobs per second from the first handler start to the last completion. */
    public double jobsPerSecond() {
      return n / ((totalMs - firstJobMs) / 1e3);
    }

    /** Jobs per second from the {@code start()} call to the last completion. */
    public double jobsPerSecondInclStart() {
      return n / (totalMs / 1e3);
    }
  }

  private Result drain(
      HikariDataSource ds, Connection mon, String schema, int n, String label, SqlTrace trace)
      throws Exception {
    // Bulk enqueue while no client works the queue, by a client that only enqueues. Timed: the
    // enqueueMany calls, not building the requests.
    Baton enqueueOnly =
        Baton.builder(ds)
            .config(
                BatonConfig.builder()
                    .schema(schema)
                    .knownKinds(BenchJobs.Noop.class, BenchJobs.KeyedNoop.class)
                    .build())
            .build();
    List<List<JobRequest>> chunks = new ArrayList<>();
    for (int from = 0; from < n; from += opts.bulk()) {
      int to = Math.min(n, from + opts.bulk());
      List<JobRequest> chunk = new ArrayList<>(to - from);
      for (int i = from; i < to; i++) {
        BenchOptions.KeyLimit keyed = opts.keyLimit();
        chunk.add(
            JobRequest.of(
                keyed == null
                    ? new BenchJobs.Noop(i)
                    : new BenchJobs.KeyedNoop(i, "k" + (i % keyed.keys()))));
      }
      chunks.add(chunk);
    }
    long tb = System.nanoTime();
    for (List<JobRequest> chunk : chunks) {
      enqueueOnly.enqueueMany(chunk);
    }
    double bulkMs = (System.nanoTime() - tb) / 1e6;
    String pendingSql = PENDING_SQL.formatted(schema);
    long queued = BenchDatabase.queryLong(mon, pendingSql);
    if (queued != n) {
      throw new IllegalStateException(
          label + ": expected " + n + " pending jobs after the bulk enqueue, found " + queued);
    }

    AtomicLong seen = new AtomicLong();
    AtomicLong first = new AtomicLong();
    CountDownLatch all = new CountDownLatch(1);
    long workNanos = opts.work().toNanos();
    Runnable ran =
        () -> {
          first.compareAndSet(0, System.nanoTime());
          if (workNanos > 0) {
            LockSupport.parkNanos(workNanos);
          }
          if (seen.incrementAndGet() == n) {
            all.countDown();
          }
        };
    Baton worker =
        Baton.builder(trace != null ? trace.wrap(ds) : ds)
            .config(opts.workerConfig(schema))
            .handler(BenchJobs.Noop.class, (ctx, args) -> ran.run())
            .handler(BenchJobs.KeyedNoop.class, (ctx, args) -> ran.run())
            .build();
    Progress progress = new Progress(label, n, seen, worker, trace);
    try {
      long cpu0 = cpuNanos();
      long t0 = System.nanoTime();
      worker.start();
      long tStarted = System.nanoTime();
      progress.start();
      long deadline = t0 + opts.timeout().toNanos();
      if (!all.await(opts.timeout().toNanos(), TimeUnit.NANOSECONDS)) {
        throw stuck(
            label, mon, schema, "only " + seen.get() + " of " + n + " handlers ran", worker);
      }
      long tHandlers = System.nanoTime();
      while (BenchDatabase.queryLong(mon, pendingSql) > 0) {
        if (System.nanoTime() - deadline > 0) {
          throw stuck(
              label, mon, schema, "every handler ran but not every completion was written", worker);
        }
        Thread.sleep(2);
      }
      long tEnd = System.nanoTime();
      long cpu1 = cpuNanos();
      progress.stop();
      Counters counters = worker.counters();
      return new Result(
          n,
          bulkMs,
          (tStarted - t0) / 1e6,
          (first.get() - t0) / 1e6,
          (tHandlers - t0) / 1e6,
          (tEnd - t0) / 1e6,
          (cpu1 - cpu0) / 1e9,
          seen.get() - n,
          counters);
    } finally {
      progress.stop();
      worker.stop(Duration.ofSeconds(30));
    }
  }

  private IllegalStateException stuck(
      String label, Connection mon, String schema, String what, Baton worker) throws SQLException {
    return new IllegalStateException(
        label
            + ": not done after "
            + opts.timeout().toSeconds()
            + " s: "
            + what
            + "; states: "
            + BenchDatabase.stateCounts(mon, schema)
            + "; counters: "
            + worker.counters());
  }

  static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /**
   * Prints handler and completion counts to stderr every 5 s, so a stall is visible as it happens.
   */
  private static final class Progress {
    private final Thread thread;
    private volatile boolean running = true;

    Progress(String label, int n, AtomicLong seen, Baton worker, SqlTrace trace) {
      this.thread =
          new Thread(
              () -> {
                long t0 = System.nanoTime();
                long lastSeen = 0;
                SqlTrace.Totals lastClaim = trace == null ? null : trace.totals(SqlTrace.CLAIM);
                SqlTrace.Totals lastComplete =
                    trace == null ? null : trace.totals(SqlTrace.COMPLETE);
                while (running) {
                  try {
                    Thread.sleep(5_000);
                  } catch (InterruptedException e) {
                    return;
                  }
                  long s = seen.get();
                  Counters c = worker.counters();
                  System.err.printf(
                      Locale.ROOT,
                      "[bench] %s: %5.1f s: handlers %,d/%,d (+%,d/5s), completed %,d, running"
                          + " %d%n",
                      label,
                      (System.nanoTime() - t0) / 1e9,
                      s,
                      n,
                      s - lastSeen,
                      c.completed(),
                      c.running());
                  lastSeen = s;
                  if (trace != null) {
                    SqlTrace.Totals claim = trace.totals(SqlTrace.CLAIM);
                    SqlTrace.Totals complete = trace.totals(SqlTrace.COMPLETE);
                    System.err.printf(
                        Locale.ROOT,
                        "[bench] %s:          last 5 s: claim %s; complete %s%n",
                        label,
                        claim.minus(lastClaim).describe(),
                        complete.minus(lastComplete).describe());
                    lastClaim = claim;
                    lastComplete = complete;
                  }
                }
              },
              "bench-progress");
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    void stop() {
      running = false;
      thread.interrupt();
    }
  }
}
