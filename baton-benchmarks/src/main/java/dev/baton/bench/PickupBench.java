package dev.baton.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.Job;
import dev.baton.JobArgs;
import dev.baton.JobKind;
import dev.baton.cli.bench.BenchDatabase;
import dev.baton.cli.bench.BenchOptions;
import dev.baton.cli.bench.Figures;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Where the pickup of a job enqueued by another client goes: one job at a time, 20 ms apart, from
 * an enqueue-only client on a pool of its own into an idle worker client (defaults, concurrency
 * 24), as a web process enqueues for a worker process. Each job is split into four spans on the
 * machine's wall clock: the enqueue call; its return to the NOTIFY's arrival at a plain LISTEN
 * connection of this process (a bystander, so the delivery itself is measured apart from Baton's
 * notifier); that arrival to the start of the claim statement ({@code attempted_at}, the claim
 * transaction's start by the database clock of the same machine); and the claim's start to the
 * handler's first line (the claim statement and its commit, the hand-off to a worker thread and
 * reading the args). Medians and 90th percentiles.
 */
final class PickupBench {
  /** A job whose handler records when it started. */
  @JobKind("bench_pickup")
  public record Pick(int i) implements JobArgs {}

  private final BenchDatabase db;
  private final BenchOptions opts;
  private final Figures figures;

  PickupBench(BenchDatabase db, BenchOptions opts, Figures figures) {
    this.db = db;
    this.opts = opts;
    this.figures = figures;
  }

  void run(int n) throws Exception {
    int warm = 200;
    int total = warm + n;
    Instant[] started = new Instant[total];
    Instant[] notified = new Instant[total];
    Instant[] before = new Instant[total];
    Instant[] after = new Instant[total];
    long[] ids = new long[total];
    try (HikariDataSource workerPool = db.pool("baton-bench-worker", 10);
        HikariDataSource producerPool = db.pool("baton-bench-producer", 2)) {
      String schema = db.newMigratedSchema(workerPool, "pickup");
      Baton worker =
          Baton.builder(workerPool)
              .config(BatonConfig.builder().schema(schema).queue("default", 24).build())
              .handler(Pick.class, (ctx, args) -> started[args.i()] = Instant.now())
              .build();
      Baton producer =
          Baton.builder(producerPool)
              .config(BatonConfig.builder().schema(schema).allowUnknownKinds(true).build())
              .build();
      worker.start();
      // The insert channel's name is the schema's, as the migrations create it.
      try (Connection listen = workerPool.getConnection();
          Statement st = listen.createStatement()) {
        st.execute("LISTEN \"" + schema + "_insert\"");
        PGConnection pg = listen.unwrap(PGConnection.class);
        for (int i = 0; i < total; i++) {
          before[i] = Instant.now();
          ids[i] = producer.enqueue(new Pick(i)).id();
          after[i] = Instant.now();
          PGNotification[] got = pg.getNotifications(1000);
          notified[i] = got != null && got.length > 0 ? Instant.now() : null;
          TimeUnit.MILLISECONDS.sleep(20);
        }
      } finally {
        worker.stop();
      }
      List<Double> call = new ArrayList<>();
      List<Double> delivery = new ArrayList<>();
      List<Double> toClaim = new ArrayList<>();
      List<Double> claimToHandler = new ArrayList<>();
      List<Double> totalMs = new ArrayList<>();
      for (int i = warm; i < total; i++) {
        Job job = producer.job(ids[i]).orElseThrow();
        if (started[i] == null || notified[i] == null || job.attemptedAt() == null) {
          continue;
        }
        call.add(ms(before[i], after[i]));
        delivery.add(ms(after[i], notified[i]));
        toClaim.add(ms(notified[i], job.attemptedAt()));
        claimToHandler.add(ms(job.attemptedAt(), started[i]));
        totalMs.add(ms(before[i], started[i]));
      }
      figures.add("pickup", String.format(Locale.ROOT, "%d jobs, one every 20 ms", call.size()));
      figures.add("", line("enqueue call", call));
      figures.add("", line("return -> NOTIFY at a listener", delivery));
      figures.add("", line("NOTIFY -> claim starts", toClaim));
      figures.add("", line("claim starts -> handler", claimToHandler));
      figures.add("", line("enqueue call -> handler", totalMs));
    }
  }

  private static double ms(Instant a, Instant b) {
    return a.until(b, ChronoUnit.MICROS) / 1000.0;
  }

  private static String line(String what, List<Double> v) {
    List<Double> s = new ArrayList<>(v);
    Collections.sort(s);
    return String.format(
        Locale.ROOT,
        "%-32s p50 %6.2f ms  p90 %6.2f ms",
        what,
        s.get(s.size() / 2),
        s.get(s.size() * 9 / 10));
  }
}
