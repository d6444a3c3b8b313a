package dev.baton.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.JobArgs;
import dev.baton.JobKind;
import dev.baton.JobRequest;
import dev.baton.cli.bench.BenchDatabase;
import dev.baton.cli.bench.BenchOptions;
import dev.baton.cli.bench.Figures;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Memory of a node with many jobs in flight at once: W jobs whose handlers all block until every
 * one of them has started, so the node holds W claimed jobs, W handler threads (virtual on Java
 * 21+), their leases and heartbeats. Reports the heap used after a full GC, the committed heap, the
 * process's resident set (VmRSS) and its live threads, before the client starts (baseline) and with
 * all W in flight; the difference is what the jobs in flight cost.
 */
final class MemoryBench {
  /** A job that waits, in its handler, until the benchmark releases every handler at once. */
  @JobKind("bench_hold")
  public record Hold(int i) implements JobArgs {}

  private final BenchDatabase db;
  private final BenchOptions opts;
  private final Figures figures;

  MemoryBench(BenchDatabase db, BenchOptions opts, Figures figures) {
    this.db = db;
    this.opts = opts;
    this.figures = figures;
  }

  /** One measurement with {@code n} jobs in flight (the queue's concurrency is {@code n}). */
  void run(int n) throws Exception {
    String label = "memory " + n;
    System.err.printf(Locale.ROOT, "[bench] %s: %d jobs held in flight at once%n", label, n);
    try (HikariDataSource ds = db.pool("baton-bench", Math.min(opts.poolSize(), 20))) {
      String schema = db.newMigratedSchema(ds, "memory_" + n);
      CountDownLatch started = new CountDownLatch(n);
      CountDownLatch release = new CountDownLatch(1);
      Baton baton =
          Baton.builder(ds)
              .config(BatonConfig.builder().schema(schema).queue("default", n).build())
              .handler(
                  Hold.class,
                  (ctx, args) -> {
                    started.countDown();
                    release.await();
                  })
              .build();
      List<JobRequest> jobs = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        jobs.add(JobRequest.of(new Hold(i)));
      }
      baton.enqueueMany(jobs);
      Snapshot before = Snapshot.take();
      baton.start();
      try {
        if (!started.await(120, TimeUnit.SECONDS)) {
          throw new IllegalStateException(
              "only " + (n - started.getCount()) + " of " + n + " handlers started in 120 s");
        }
        Snapshot during = Snapshot.take();
        figures.add(
            label,
            String.format(
                Locale.ROOT,
                "%d jobs in flight (%s handler threads): heap used after GC %.1f MiB (%+.1f MiB,"
                    + " %.1f KiB per job), heap committed %.0f MiB, RSS %.0f MiB (%+.0f MiB), platform"
                    + " threads %d (%+d)",
                n,
                Runtime.version().feature() >= 21 ? "virtual" : "platform",
                during.heapUsedMiB,
                during.heapUsedMiB - before.heapUsedMiB,
                (during.heapUsedMiB - before.heapUsedMiB) * 1024 / n,
                during.heapCommittedMiB,
                during.rssMiB,
                during.rssMiB - before.rssMiB,
                during.threads,
                during.threads - before.threads));
        figures.add(
            "",
            String.format(
                Locale.ROOT,
                "baseline (client built, not started): heap used after GC %.1f MiB, RSS %.0f MiB,"
                    + " platform threads %d",
                before.heapUsedMiB,
                before.rssMiB,
                before.threads));
      } finally {
        release.countDown();
        baton.stop();
      }
    }
  }

  private record Snapshot(double heapUsedMiB, double heapCommittedMiB, double rssMiB, int threads) {
    static Snapshot take() throws IOException {
      MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
      System.gc();
      System.gc();
      double used = mem.getHeapMemoryUsage().getUsed() / 1048576.0;
      double committed = mem.getHeapMemoryUsage().getCommitted() / 1048576.0;
      double rss = -1;
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          rss = Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
        }
      }
      return new Snapshot(
          used, committed, rss, ManagementFactory.getThreadMXBean().getThreadCount());
    }
  }
}
