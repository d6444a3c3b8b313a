package dev.baton.cli.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.EnqueueOptions;
import dev.baton.JobRequest;
import dev.baton.UniqueOptions;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Enqueue rate with no workers (the peer harness's W3): after a warm-up (200 single enqueues and
 * one bulk call of 1,000), N sequential {@code enqueue} calls from one thread, each its own
 * transaction on the pool, timed one by one; then one {@code enqueueMany} of {@code --bulk} jobs.
 * With the environment variable {@code BATON_BENCH_UNIQUE=1}, every job is unique by its args
 * ({@code UniqueOptions.byArgs()}; the args all differ, so every enqueue inserts).
 */
final class EnqueueBench {
  private final BenchDatabase db;
  private final BenchOptions opts;
  private final Figures figures;

  EnqueueBench(BenchDatabase db, BenchOptions opts, Figures figures) {
    this.db = db;
    this.opts = opts;
    this.figures = figures;
  }

  void run(int n) throws Exception {
    EnqueueOptions options =
        "1".equals(System.getenv("BATON_BENCH_UNIQUE"))
            ? EnqueueOptions.builder().unique(UniqueOptions.byArgs().build()).build()
            : EnqueueOptions.defaults();
    int warm = opts.warmup() != null ? opts.warmup() : 200;
    int bulk = opts.bulk();
    System.err.printf(
        Locale.ROOT,
        "[bench] enqueue: single=%d bulk=%d warmup=%d unique=%b%n",
        n,
        bulk,
        warm,
        options.unique() != null);
    try (HikariDataSource ds = db.pool("baton-bench", 4);
        Connection mon = db.connect()) {
      String schema = db.newMigratedSchema(ds, "enqueue");
      SqlTrace trace = opts.traceSql() ? new SqlTrace() : null;
      Baton client =
          Baton.builder(trace != null ? trace.wrap(ds) : ds)
              .config(BatonConfig.builder().schema(schema).knownKinds(BenchJobs.Noop.class).build())
              .build();
      for (int i = 0; i < warm; i++) {
        client.enqueue(new BenchJobs.Noop(-1 - i), options);
      }
      client.enqueueMany(requests(-1_000_000, 1_000, options));

      if (trace != null) {
        trace.reset();
      }
      String load0 = Bench.loadAverage();
      List<Long> calls = new ArrayList<>(n);
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        long t = System.nanoTime();
        client.enqueue(new BenchJobs.Noop(i), options);
        calls.add(System.nanoTime() - t);
      }
      long singleNs = System.nanoTime() - t0;

      List<JobRequest> requests = requests(n, bulk, options);
      long tb = System.nanoTime();
      client.enqueueMany(requests);
      long bulkNs = System.nanoTime() - tb;

      long total = BenchDatabase.queryLong(mon, "SELECT count(*) FROM " + schema + ".job");
      long expected = warm + 1_000L + n + bulk;
      if (total != expected) {
        throw new IllegalStateException(
            "enqueue: expected " + expected + " jobs in the table, found " + total);
      }
      Samples s = Samples.ofNanos(calls);
      figures.add(
          "enqueue single",
          String.format(
              Locale.ROOT,
              "%,.0f jobs/s (n=%d, one transaction each); call p50 %s ms, p99 %s ms, max %s ms",
              n / (singleNs / 1e9),
              n,
              Samples.ms(s.percentile(50)),
              Samples.ms(s.percentile(99)),
              Samples.ms(s.max())));
      figures.add(
          "enqueue bulk",
          String.format(
              Locale.ROOT,
              "one enqueueMany of %,d: %,.0f ms (%,.0f jobs/s)",
              bulk,
              bulkNs / 1e6,
              bulk / (bulkNs / 1e9)));
      figures.add("", "load average before: " + load0 + ", after: " + Bench.loadAverage());
      if (trace != null) {
        figures.add("", "--trace-sql, single enqueues and the bulk call:");
        for (String line : trace.table((singleNs + bulkNs) / 1e9)) {
          figures.add("", "  " + line);
        }
      }
    }
  }

  /** {@code n} requests of no-op jobs numbered from {@code first}, with {@code options}. */
  private static List<JobRequest> requests(int first, int n, EnqueueOptions options) {
    List<JobRequest> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(JobRequest.of(new BenchJobs.Noop(first + i), options));
    }
    return out;
  }
}
