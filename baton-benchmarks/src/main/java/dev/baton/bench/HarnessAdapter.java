package dev.baton.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.Counters;
import dev.baton.JobRequest;
import dev.baton.cli.bench.Bench;
import dev.baton.cli.bench.BenchDatabase;
import dev.baton.cli.bench.BenchJobs;
import dev.baton.cli.bench.OpenLoop;
import dev.baton.migrate.Migrator;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Baton as an external system of the peer-queue benchmark ({@code ../shared/bench/peers}, README
 * "Adding a system from another repository (external command)", contract version 1). One process
 * performs one measurement, W1, W2 or W3, on the fresh, empty database the harness created, then
 * exits; {@code baton-benchmarks/harness.sh} starts it.
 *
 * <p>Protocol on stdout (nothing else is printed there; Baton and HikariCP log to stderr at warn):
 *
 * <ul>
 *   <li>{@code BENCH_VERIFY {...}} once, right after the schema is migrated: the SQL with which the
 *       harness counts, on its own connection after the process exited, completed jobs (Baton keeps
 *       completed rows), pending jobs and failed ones;
 *   <li>{@code BENCH_PHASE measure_start} / {@code measure_end} around the measured phase of W1 and
 *       W2 (not the warm-up);
 *   <li>{@code BENCH_RESULT {...}} once at the end, with the fields of the built-in drivers and
 *       {@code info}; {@code ok: false} and {@code error} on a failure, with exit code 1.
 * </ul>
 *
 * <p>The workloads follow the harness's {@code Main.java} and the reference adapter ({@code
 * external/simple-java/BenchMain.java}) line by line, through Baton's public API only:
 *
 * <ul>
 *   <li><b>w1</b>: a warm-up drain of {@code W1_WARM} jobs, then the measured drain of {@code
 *       W1_N}. Each drain: {@link Baton#enqueueMany} of all the jobs while no client works the
 *       queue (timed), a check that they are all pending, then a new working client is started (a
 *       stopped Baton client cannot start again, so each drain builds one; the JVM, the pool and
 *       the JIT are warm), the handler calls are counted, then the pending count is polled every 2
 *       ms on a connection of its own until 0; then the client is stopped gracefully.
 *   <li><b>w2</b>: one working client; {@code W2_WARM} warm-up jobs; {@code W2_IDLE_MS} idle; then
 *       {@code W2_N} single {@link Baton#enqueue} calls on absolute deadlines {@code W2_RATE}/s
 *       apart. Latency = handler start − {@link System#nanoTime()} taken just before the enqueue
 *       call, carried in the job's args. {@code BATON_ENQUEUE_VIA=client} enqueues through a second
 *       client instead (see {@link HarnessSettings}).
 *   <li><b>w3</b>: no workers: a client that only enqueues; 200 single + one bulk of 1,000 warm-up,
 *       then {@code W3_SINGLE} single enqueues timed one by one, then one {@code enqueueMany} of
 *       {@code W3_BULK}.
 * </ul>
 *
 * <p>Percentiles are nearest-rank, in ms. {@code client_cpu_s} is this JVM's CPU time between the
 * markers (the harness also measures it from /proc).
 */
public final class HarnessAdapter {
  private static final String JOB = HarnessSettings.SCHEMA + ".job";

  /**
   * Jobs the queue's own tables record as completed: the completed rows kept, plus the completions
   * that deleted their row ({@code BATON_KEEP_COMPLETED=false}), counted in job_completions.
   */
  static final String COMPLETED_SQL =
      "SELECT ((SELECT count(*) FROM "
          + JOB
          + " WHERE state = 'completed') + (SELECT coalesce(sum(n), 0) FROM "
          + HarnessSettings.SCHEMA
          + ".job_completions))::bigint";

  /**
   * Jobs enqueued and not finished: waiting, available, running or waiting for a retry. Served by
   * Baton's partial indexes, so the 2 ms poll of W1 stays cheap at any table size.
   */
  static final String PENDING_SQL =
      "SELECT count(*) FROM "
          + JOB
          + " WHERE state IN ('available', 'running', 'scheduled', 'retryable')";

  /**
   * Jobs that ended without success, or that failed at least one attempt (the no-op handler never
   * throws, so any is a fault).
   */
  static final String FAILED_SQL =
      "SELECT count(*) FROM "
          + JOB
          + " WHERE state IN ('discarded', 'cancelled') OR errors <> '[]'::jsonb";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HarnessSettings s;
  private final HikariDataSource ds;
  private final Connection mon;
  private final long timeoutNanos;

  private HarnessAdapter(HarnessSettings s, HikariDataSource ds, Connection mon) {
    this.s = s;
    this.ds = ds;
    this.mon = mon;
    this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(s.timeoutMs());
  }

  /** Runs one measurement as the environment says and exits with {@link #run}'s code. */
  public static void main(String[] args) {
    System.exit(run());
  }

  /** Runs one measurement as the environment says; returns 0 on success, 1 on failure. */
  public static int run() {
    Map<String, Object> result = new LinkedHashMap<>();
    int rc = 0;
    HarnessSettings s = null;
    HikariDataSource ds = null;
    Connection mon = null;
    try {
      s = HarnessSettings.fromEnvironment();
      result.put("workload", s.workload());
      result.put("round", s.round());
      result.put("info", s.info());
      System.err.printf(
          "[baton harness] %s round %d: %s, concurrency=%d pool=%d enqueueVia=%s load=%s%n",
          s.workload(),
          s.round(),
          s.configuration(),
          s.concurrency(),
          s.poolSize(),
          s.enqueueVia(),
          Bench.loadAverage());
      ds = s.pool("baton", s.poolSize());
      // Schema: untimed, in this process, on the empty database (Baton's own migrator).
      new Migrator(ds, HarnessSettings.SCHEMA).up();
      Map<String, Object> verify = new LinkedHashMap<>();
      verify.put("completed_sql", COMPLETED_SQL);
      verify.put("pending_sql", PENDING_SQL);
      verify.put("failed_sql", FAILED_SQL);
      protocol("BENCH_VERIFY", JSON.writeValueAsString(verify));
      mon = DriverManager.getConnection(s.jdbcUrl());
      HarnessAdapter h = new HarnessAdapter(s, ds, mon);
      switch (s.workload()) {
        case "w1" -> result.putAll(h.w1());
        case "w2" -> result.putAll(h.w2());
        case "w3" -> result.putAll(h.w3());
        default -> throw new IllegalArgumentException("unknown WORKLOAD " + s.workload());
      }
      result.put("ok", true);
    } catch (Throwable e) {
      e.printStackTrace();
      result.put("ok", false);
      result.put("error", String.valueOf(e));
      rc = 1;
    }
    try {
      if (mon != null) {
        mon.close();
      }
      if (ds != null) {
        ds.close();
      }
    } catch (Exception e) {
      System.err.println("[baton harness] close: " + e);
    }
    try {
      protocol("BENCH_RESULT", JSON.writeValueAsString(result));
    } catch (Exception e) {
      e.printStackTrace();
      rc = 1;
    }
    return rc;
  }

  // ---------------------------------------------------------------- W1: drain a pre-filled queue

  private Map<String, Object> w1() throws Exception {
    if (s.w1Warm() > 0) {
      Map<String, Object> w = drain(s.w1Warm(), false);
      System.err.printf(
          "[baton harness] w1 warm-up: %d jobs, %.0f jobs/s%n", s.w1Warm(), w.get("jobs_per_s"));
    }
    Map<String, Object> r = drain(s.w1N(), true);
    r.put("warmup_jobs", s.w1Warm());
    return r;
  }

  private Map<String, Object> drain(int count, boolean measured) throws Exception {
    AtomicLong seen = new AtomicLong();
    AtomicLong first = new AtomicLong(Long.MIN_VALUE);
    CountDownLatch all = new CountDownLatch(1);
    // The client that works the queue; it also does the bulk enqueue (before it is started: with
    // the workers stopped, as W1 asks).
    Baton.Builder builder = Baton.builder(ds).config(s.workerConfig());
    if (s.batchHandler() > 0) {
      builder.batchHandler(
          BenchJobs.Noop.class,
          s.batchHandler(),
          batch -> {
            long now = System.nanoTime(); // first action: record the jobs
            first.compareAndSet(Long.MIN_VALUE, now);
            if (seen.addAndGet(batch.size()) == count) {
              all.countDown();
            }
          });
    } else {
      builder.handler(
          BenchJobs.Noop.class,
          (ctx, args) -> {
            long now = System.nanoTime(); // first action: record the job
            first.compareAndSet(Long.MIN_VALUE, now);
            if (seen.incrementAndGet() == count) {
              all.countDown();
            }
          });
    }
    Baton worker = builder.build();
    int chunk = s.bulkChunk() > 0 ? s.bulkChunk() : count;
    List<List<JobRequest>> chunks = new ArrayList<>();
    for (int from = 0; from < count; from += chunk) {
      int to = Math.min(count, from + chunk);
      List<JobRequest> part = new ArrayList<>(to - from);
      for (int i = from; i < to; i++) {
        part.add(JobRequest.of(new BenchJobs.Noop(i)));
      }
      chunks.add(part);
    }
    long ti0 = System.nanoTime();
    for (List<JobRequest> part : chunks) {
      worker.enqueueMany(part);
    }
    long insertNs = System.nanoTime() - ti0;
    long queued = count(PENDING_SQL);
    if (queued != count) {
      throw new IllegalStateException(
          "expected " + count + " pending jobs after the bulk enqueue, found " + queued);
    }

    if (measured) {
      protocol("BENCH_PHASE", "measure_start");
    }
    long cpu0 = cpuNanos();
    long t0 = System.nanoTime();
    long tStarted;
    long tHandlers;
    long tEnd;
    long cpu1;
    try {
      worker.start();
      tStarted = System.nanoTime();
      if (!all.await(timeoutNanos, TimeUnit.NANOSECONDS)) {
        throw new IllegalStateException(
            "timeout: only " + seen.get() + " of " + count + " handlers ran; " + states());
      }
      tHandlers = System.nanoTime();
      while (count(PENDING_SQL) > 0) {
        if (System.nanoTime() - t0 > timeoutNanos) {
          throw new IllegalStateException(
              "timeout waiting for the completions to be written; " + states());
        }
        Thread.sleep(2);
      }
      tEnd = System.nanoTime();
      cpu1 = cpuNanos();
      if (measured) {
        protocol("BENCH_PHASE", "measure_end");
      }
    } finally {
      worker.stop(Duration.ofSeconds(30));
    }
    Counters c = worker.counters();
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("n", count);
    r.put("bulk_insert_ms", ms(insertNs));
    r.put("bulk_calls", chunks.size());
    r.put("start_ms", ms(tStarted - t0));
    r.put("first_job_ms", ms(first.get() - t0));
    r.put("handlers_done_ms", ms(tHandlers - t0));
    r.put("total_ms", ms(tEnd - t0));
    r.put("jobs_per_s", count / ((tEnd - first.get()) / 1e9));
    r.put("jobs_per_s_incl_start", count / ((tEnd - t0) / 1e9));
    r.put("client_cpu_s", (cpu1 - cpu0) / 1e9);
    r.put("duplicates", seen.get() - count);
    r.put("failed", count(FAILED_SQL));
    r.put("baton_counters", counters(c));
    return r;
  }

  // ---------------------------------------------------------------- W2: pickup latency

  private Map<String, Object> w2() throws Exception {
    int n = s.w2N();
    int rate = s.w2Rate();
    int warm = s.w2Warm();
    ConcurrentLinkedQueue<Double> lat = new ConcurrentLinkedQueue<>();
    AtomicLong seen = new AtomicLong();
    Baton worker =
        Baton.builder(ds)
            .config(s.workerConfig())
            .handler(
                BenchJobs.Ping.class,
                (ctx, p) -> {
                  long now = System.nanoTime(); // first action: record the job
                  if (p.phase() == 1) {
                    lat.add((now - p.enqueuedNanos()) / 1e6);
                  }
                  seen.incrementAndGet();
                })
            .build();
    // BATON_ENQUEUE_VIA=client: a second client, on its own pool, that works nothing and is
    // never started; it only enqueues, as a web process would.
    boolean separate = s.enqueueVia().equals("client");
    HikariDataSource producerDs = separate ? s.pool("baton-producer", 2) : null;
    Baton via = separate ? Baton.builder(producerDs).config(s.enqueueOnlyConfig()).build() : worker;
    List<Double> enq = new ArrayList<>(n);
    long start;
    long tEnq;
    long cpu0;
    long cpu1;
    try {
      worker.start();
      if (s.enqueueVia().equals("process")) {
        long[] window = enqueueInChild(seen, warm, enq);
        cpu0 = window[0];
        start = window[1];
        tEnq = window[2];
      } else {
        for (int i = 0; i < warm; i++) {
          via.enqueue(new BenchJobs.Ping(System.nanoTime(), 0, i));
        }
        awaitSeen(seen, warm);
        Thread.sleep(s.w2IdleMs()); // workers idle and waiting

        protocol("BENCH_PHASE", "measure_start");
        cpu0 = cpuNanos();
        OpenLoop.Timing t =
            OpenLoop.run(n, rate, (i, at) -> via.enqueue(new BenchJobs.Ping(at, 1, i)));
        for (long c : t.callNanos()) {
          enq.add(c / 1e6);
        }
        start = t.startNanos();
        tEnq = t.endNanos();
      }
      awaitSeen(seen, (long) warm + n);
      cpu1 = cpuNanos();
      protocol("BENCH_PHASE", "measure_end");
    } finally {
      worker.stop(Duration.ofSeconds(30)); // writes the last completions: the harness counts them
      if (producerDs != null) {
        producerDs.close();
      }
    }
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("n", n);
    r.put("target_rate", rate);
    r.put("achieved_rate", n / ((tEnq - start) / 1e9));
    r.put("latency_ms", summarize(new ArrayList<>(lat)));
    r.put("enqueue_call_ms", summarize(enq));
    r.put("client_cpu_s", (cpu1 - cpu0) / 1e9);
    r.put("duplicates", seen.get() - warm - n);
    r.put("baton_counters", counters(worker.counters()));
    return r;
  }

  /**
   * BATON_ENQUEUE_VIA=process: runs {@link W2ProducerProcess} in a JVM of its own (this one's java
   * and class path) through its warm-up, the idle time and the measured enqueues; fills {@code enq}
   * with its enqueue call times. Returns {this process's CPU at measure_start, the child's first
   * deadline, the child's time after its last enqueue call}, all {@code nanoTime}.
   */
  private long[] enqueueInChild(AtomicLong seen, int warm, List<Double> enq) throws Exception {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(System.getProperty("java.home") + "/bin/java");
    Process child =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                W2ProducerProcess.class.getName())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try (BufferedReader out =
            new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        Writer in = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8)) {
      String ready = out.readLine();
      long now = System.nanoTime();
      if (ready == null || !ready.startsWith("READY ")) {
        throw new IllegalStateException("the producer process did not start: " + ready);
      }
      long skew = now - Long.parseLong(ready.substring(6));
      if (skew < 0 || skew > 1_000_000_000L) {
        throw new IllegalStateException(
            "the producer process's nanoTime is "
                + skew / 1e6
                + " ms behind this one's: not one machine-wide monotonic clock, so latencies across"
                + " the two processes cannot be computed");
      }
      awaitSeen(seen, warm);
      Thread.sleep(s.w2IdleMs()); // workers idle and waiting
      protocol("BENCH_PHASE", "measure_start");
      long cpu0 = cpuNanos();
      in.write("GO\n");
      in.flush();
      String line;
      long[] done = null;
      while ((line = out.readLine()) != null) {
        if (line.startsWith("ENQUEUE_MS ")) {
          for (String v : line.substring(11).split(",")) {
            enq.add(Double.parseDouble(v));
          }
        } else if (line.startsWith("DONE ")) {
          String[] f = line.split(" ");
          done = new long[] {cpu0, Long.parseLong(f[1]), Long.parseLong(f[2])};
        }
      }
      if (!child.waitFor(timeoutNanos, TimeUnit.NANOSECONDS)
          || child.exitValue() != 0
          || done == null) {
        throw new IllegalStateException("the producer process failed (see stderr)");
      }
      return done;
    } finally {
      child.destroyForcibly();
    }
  }

  private void awaitSeen(AtomicLong seen, long target) throws Exception {
    long t0 = System.nanoTime();
    while (seen.get() < target) {
      if (System.nanoTime() - t0 > timeoutNanos) {
        throw new IllegalStateException(
            "timeout: " + seen.get() + " of " + target + " handlers ran; " + states());
      }
      Thread.sleep(1);
    }
  }

  // ---------------------------------------------------------------- W3: enqueue rate

  private Map<String, Object> w3() throws Exception {
    int single = s.w3Single();
    int bulk = s.w3Bulk();
    // No workers: a client that only enqueues, never started.
    Baton client = Baton.builder(ds).config(s.enqueueOnlyConfig()).build();
    for (int i = 0; i < 200; i++) {
      client.enqueue(new BenchJobs.Noop(i));
    }
    client.enqueueMany(requests(1_000));

    List<Double> per = new ArrayList<>(single);
    long t0 = System.nanoTime();
    for (int i = 0; i < single; i++) {
      long t = System.nanoTime();
      client.enqueue(new BenchJobs.Noop(i));
      per.add((System.nanoTime() - t) / 1e6);
    }
    long singleNs = System.nanoTime() - t0;

    List<JobRequest> payloads = requests(bulk);
    long tb = System.nanoTime();
    client.enqueueMany(payloads);
    long bulkNs = System.nanoTime() - tb;
    long total = count(PENDING_SQL);
    long expected = 200L + 1_000 + single + bulk;
    if (total != expected) {
      throw new IllegalStateException("expected " + expected + " pending jobs, found " + total);
    }
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("single_n", single);
    r.put("single_per_s", single / (singleNs / 1e9));
    r.put("single_call_ms", summarize(per));
    r.put("bulk_n", bulk);
    r.put("bulk_ms", ms(bulkNs));
    r.put("bulk_per_s", bulk / (bulkNs / 1e9));
    return r;
  }

  private static List<JobRequest> requests(int n) {
    List<JobRequest> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(JobRequest.of(new BenchJobs.Noop(i)));
    }
    return out;
  }

  // ---------------------------------------------------------------- helpers

  private long count(String sql) throws SQLException {
    try (Statement st = mon.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Job counts by state, for error messages. */
  private String states() {
    try {
      return "states: " + BenchDatabase.stateCounts(mon, HarnessSettings.SCHEMA);
    } catch (SQLException e) {
      return "states unknown (" + e.getMessage() + ")";
    }
  }

  private static Map<String, Object> counters(Counters c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("claimed", c.claimed());
    m.put("completed", c.completed());
    m.put("retried", c.retried());
    m.put("fenced", c.fenced());
    m.put("leases_lost", c.leasesLost());
    return m;
  }

  /** One protocol line on stdout, flushed. */
  private static void protocol(String tag, String body) {
    System.out.println(tag + " " + body);
    System.out.flush();
  }

  /** count, mean, min, nearest-rank p50/p95/p99 ({@code sorted[ceil(p/100·n) − 1]}), max, in ms. */
  static Map<String, Object> summarize(List<Double> values) {
    double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("count", v.length);
    m.put("mean", v.length == 0 ? null : Arrays.stream(v).sum() / v.length);
    m.put("min", v.length == 0 ? null : v[0]);
    m.put("p50", pct(v, 50));
    m.put("p95", pct(v, 95));
    m.put("p99", pct(v, 99));
    m.put("max", v.length == 0 ? null : v[v.length - 1]);
    return m;
  }

  static Double pct(double[] sorted, double p) {
    if (sorted.length == 0) {
      return null;
    }
    int idx = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.min(sorted.length - 1, Math.max(0, idx))];
  }

  static double ms(long nanos) {
    return nanos / 1e6;
  }

  static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
