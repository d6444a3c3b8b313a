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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Long jobs spread over several nodes: {@code jobs} jobs whose handlers each sleep {@code seconds},
 * inserted in one call while {@code nodes} clients of concurrency {@code concurrency} (defaults
 * otherwise) wait for them, each on a pool of its own. Reports the time from the insert to the last
 * handler's end against the ideal (every slot of the fleet busy from the start: {@code ceil(jobs /
 * (nodes x concurrency)) x seconds}), the jobs each node ran, and how many handler starts there
 * were beyond one per job (none without a fault): the claim depth must not let one node hoard long
 * jobs that the others could run.
 */
final class LongJobsBench {
  /** A job whose handler sleeps for the benchmark's job length. */
  @JobKind("bench_long")
  public record Sleep(int i) implements JobArgs {}

  private final BenchDatabase db;
  private final BenchOptions opts;
  private final Figures figures;

  LongJobsBench(BenchDatabase db, BenchOptions opts, Figures figures) {
    this.db = db;
    this.opts = opts;
    this.figures = figures;
  }

  void run(int jobs, int nodes, int concurrency, int seconds) throws Exception {
    String label = "long jobs";
    System.err.printf(
        Locale.ROOT,
        "[bench] %s: %d jobs of %d s on %d nodes of concurrency %d%n",
        label,
        jobs,
        seconds,
        nodes,
        concurrency);
    List<HikariDataSource> pools = new ArrayList<>();
    List<Baton> clients = new ArrayList<>();
    try {
      HikariDataSource first = db.pool("baton-bench-0", concurrency + 4);
      pools.add(first);
      String schema = db.newMigratedSchema(first, "long_jobs");
      CountDownLatch done = new CountDownLatch(jobs);
      AtomicInteger starts = new AtomicInteger();
      ConcurrentHashMap<Integer, Integer> perJob = new ConcurrentHashMap<>();
      int[] perNode = new int[nodes];
      for (int n = 0; n < nodes; n++) {
        HikariDataSource ds = n == 0 ? first : db.pool("baton-bench-" + n, concurrency + 4);
        if (n > 0) {
          pools.add(ds);
        }
        int node = n;
        Baton b =
            Baton.builder(ds)
                .config(
                    BatonConfig.builder()
                        .schema(schema)
                        .nodeId("long-" + n)
                        .queue("default", concurrency)
                        .build())
                .handler(
                    Sleep.class,
                    (ctx, args) -> {
                      starts.incrementAndGet();
                      perJob.merge(args.i(), 1, Integer::sum);
                      synchronized (perNode) {
                        perNode[node]++;
                      }
                      Thread.sleep(seconds * 1000L);
                      done.countDown();
                    })
                .build();
        b.start();
        clients.add(b);
      }
      List<JobRequest> batch = new ArrayList<>(jobs);
      for (int i = 0; i < jobs; i++) {
        batch.add(JobRequest.of(new Sleep(i)));
      }
      long t0 = System.nanoTime();
      clients.get(0).enqueueMany(batch);
      if (!done.await(jobs * (long) seconds + 120, TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            "only " + (jobs - done.getCount()) + " of " + jobs + " long jobs finished");
      }
      double wall = (System.nanoTime() - t0) / 1e9;
      int slots = nodes * concurrency;
      double ideal = Math.ceil((double) jobs / slots) * seconds;
      int repeats = starts.get() - perJob.size();
      StringBuilder spread = new StringBuilder();
      for (int n = 0; n < nodes; n++) {
        spread.append(n == 0 ? "" : "/").append(perNode[n]);
      }
      figures.add(
          label,
          String.format(
              Locale.ROOT,
              "%d jobs of %d s on %d nodes x %d: %.2f s (ideal %.0f s, %.2fx); jobs per node %s;"
                  + " handler starts beyond one per job: %d",
              jobs,
              seconds,
              nodes,
              concurrency,
              wall,
              ideal,
              wall / ideal,
              spread,
              repeats));
    } finally {
      for (Baton b : clients) {
        b.stop();
      }
      for (HikariDataSource ds : pools) {
        ds.close();
      }
    }
  }
}
