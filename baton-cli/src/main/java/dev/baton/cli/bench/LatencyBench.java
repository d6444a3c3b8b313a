package dev.baton.cli.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Pickup latency: a started client sits idle, then jobs are enqueued one at a time at a fixed rate
 * (open loop, absolute deadlines), and each job's latency is its handler's start minus {@link
 * System#nanoTime()} taken just before its enqueue call, in the same JVM. So it includes the
 * enqueue's round trip and commit, the wake-up, the claim and the dispatch to a worker.
 *
 * <p>Two measured phases on one working client:
 *
 * <ol>
 *   <li><b>same client</b>: enqueued by the working client itself, on its own pool: with a slot
 *       free and nothing ahead, the insert claims the job and the client hands it to a worker as
 *       the enqueue returns (claim on enqueue); otherwise its producer is woken locally;
 *   <li><b>separate client</b>: enqueued by a second client on a pool of its own, with no handlers
 *       or queues ({@code knownKinds}); it has no producer to wake, so pickup relies on the working
 *       client's LISTEN connection receiving the NOTIFY sent at commit (or, failing that, the 1 s
 *       poll). This is what a web process enqueueing for a worker process sees.
 * </ol>
 */
final class LatencyBench {
  private static final int PHASE_WARMUP = 0;
  private static final int PHASE_SAME = 1;
  private static final int PHASE_SEPARATE = 2;

  private final BenchDatabase db;
  private final BenchOptions opts;
  private final Figures figures;

  LatencyBench(BenchDatabase db, BenchOptions opts, Figures figures) {
    this.db = db;
    this.opts = opts;
    this.figures = figures;
  }

  void run(int n) throws Exception {
    int warm = opts.warmup() != null ? opts.warmup() : 200;
    int rate = opts.rate();
    System.err.printf(
        Locale.ROOT,
        "[bench] latency: n=%d rate=%d/s workers=%d warmup=%d%n",
        n,
        rate,
        opts.workers(),
        warm);
    List<ConcurrentLinkedQueue<Long>> latencies =
        List.of(
            new ConcurrentLinkedQueue<>(),
            new ConcurrentLinkedQueue<>(),
            new ConcurrentLinkedQueue<>());
    AtomicLong seen = new AtomicLong();
    try (HikariDataSource ds = db.pool("baton-bench", opts.poolSize());
        HikariDataSource otherDs = db.pool("baton-bench-producer", 4);
        Connection mon = db.connect()) {
      String schema = db.newMigratedSchema(ds, "latency");
      Baton worker =
          Baton.builder(ds)
              .config(opts.workerConfig(schema))
              .handler(
                  BenchJobs.Ping.class,
                  (ctx, p) -> {
                    long now = System.nanoTime();
                    latencies.get(p.phase()).add(now - p.enqueuedNanos());
                    seen.incrementAndGet();
                  })
              .build();
      // Enqueues only: no handlers, no queues, no maintenance; never started.
      Baton other =
          Baton.builder(otherDs)
              .config(
                  BatonConfig.builder()
                      .schema(schema)
                      .knownKinds(BenchJobs.Ping.class)
                      .maintenanceEnabled(false)
                      .build())
              .build();
      try {
        worker.start();
        long expected = 0;
        // Warm-up through both paths, then let the workers sit idle.
        for (int i = 0; i < warm; i++) {
          Baton via = i % 2 == 0 ? worker : other;
          via.enqueue(new BenchJobs.Ping(System.nanoTime(), PHASE_WARMUP, i));
        }
        expected += warm;
        await(seen, expected);

        String load0 = Bench.loadAverage();
        Phase same = measure(worker, PHASE_SAME, n, rate, seen, expected, latencies);
        expected += n;
        Phase separate = measure(other, PHASE_SEPARATE, n, rate, seen, expected, latencies);
        expected += n;

        report(
            "latency same client", "enqueued by the working client (claim on enqueue)", same, rate);
        report(
            "latency separate client",
            "enqueued by a second client on its own pool (LISTEN/NOTIFY wake-up)",
            separate,
            rate);
        figures.add(
            "",
            "warm-up "
                + warm
                + " jobs, idle "
                + opts.idle().toMillis()
                + " ms before each phase; final states: "
                + BenchDatabase.stateCounts(mon, schema)
                + "; duplicates "
                + (seen.get() - expected));
        figures.add("", "load average before: " + load0 + ", after: " + Bench.loadAverage());
      } finally {
        worker.stop(Duration.ofSeconds(30));
        other.stop();
      }
    }
  }

  private record Phase(Samples latency, Samples enqueueCall, double achievedRate) {}

  private Phase measure(
      Baton via,
      int phase,
      int n,
      int rate,
      AtomicLong seen,
      long seenBefore,
      List<ConcurrentLinkedQueue<Long>> latencies)
      throws Exception {
    Thread.sleep(opts.idle().toMillis());
    OpenLoop.Timing t =
        OpenLoop.run(n, rate, (i, at) -> via.enqueue(new BenchJobs.Ping(at, phase, i)));
    List<Long> calls = new ArrayList<>(n);
    for (long c : t.callNanos()) {
      calls.add(c);
    }
    await(seen, seenBefore + n);
    return new Phase(
        Samples.ofNanos(latencies.get(phase)),
        Samples.ofNanos(calls),
        n / ((t.endNanos() - t.startNanos()) / 1e9));
  }

  private void report(String label, String what, Phase p, int rate) {
    figures.add(label, "pickup " + p.latency().summary());
    figures.add(
        "",
        String.format(
            Locale.ROOT,
            "%s; target %d/s, achieved %.1f/s; enqueue call p50 %s ms, p99 %s ms",
            what,
            rate,
            p.achievedRate(),
            Samples.ms(p.enqueueCall().percentile(50)),
            Samples.ms(p.enqueueCall().percentile(99))));
  }

  private void await(AtomicLong seen, long target) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (seen.get() < target) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "latency: waited 120 s for " + target + " handler calls, saw " + seen.get());
      }
      Thread.sleep(1);
    }
  }
}
