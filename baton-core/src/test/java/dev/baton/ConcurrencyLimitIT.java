package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.admin.BatonAdmin;
import dev.baton.testing.ChildProcess;
import dev.baton.testing.LimitedWorkerMain;
import dev.baton.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A queue's cluster-wide concurrency limit across worker processes (invariant 11 of DESIGN.md):
 * four child JVMs of 16 slots each work a queue limited to 5, while one is killed with SIGKILL, one
 * is frozen with SIGSTOP past its lease (its jobs are rescued and run elsewhere), and every server
 * session of the children is terminated, twice. The queue's running jobs, sampled from the database
 * every 10 ms, never exceed 5; and the limit is used: whenever 5 or more jobs were available, fewer
 * than 5 ran for no longer than {@link #LAG} at a stretch (the longest stretch is printed).
 */
class ConcurrencyLimitIT {
  private static final int LIMIT = 5;
  private static final int NODES = 4;
  private static final int SLOTS = 16;
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final Duration LEADER_TTL = Duration.ofSeconds(2);
  private static final Duration WORK = Duration.ofMillis(100);

  /**
   * The longest the limit may go unused while jobs wait: a claim's retry after a failed statement
   * (the children's connections are terminated) plus a poll interval, with room for a loaded
   * machine. A killed or frozen node's jobs are not unused capacity: they count as running until
   * they are rescued.
   */
  private static final Duration LAG = Duration.ofSeconds(3);

  private record Sample(long atNanos, int running, boolean fiveAvailable) {}

  @Test
  void aLimitedQueueNeverRunsMoreThanItsLimitThroughKillsFreezesAndTerminatedSessions()
      throws Exception {
    TestDatabase db = TestDatabase.get();
    String schema = db.newMigratedSchema();
    String tag = Long.toString(ProcessHandle.current().pid());
    List<Sample> samples = new ArrayList<>();
    AtomicBoolean sampling = new AtomicBoolean(true);
    List<ChildProcess> children = new ArrayList<>();

    try (HikariDataSource ds = db.dataSource(3)) {
      new BatonAdmin(ds, schema).limitConcurrency(LimitedWorkerMain.QUEUE, LIMIT, "test");
      db.execute(
          "INSERT INTO "
              + schema
              + ".job (queue, kind, args) SELECT '"
              + LimitedWorkerMain.QUEUE
              + "', 'work', jsonb_build_object('n', g) FROM generate_series(1, 4000) g");
      Thread sampler = new Thread(() -> sample(ds, schema, samples, sampling), "test-sampler");
      sampler.start();
      try {
        startWorkers(db, schema, "limited-", tag, "plain", children);
        for (ChildProcess c : children) {
          await(c.name() + " ready")
              .atMost(Duration.ofSeconds(60))
              .until(() -> c.line("ready").isPresent());
        }
        await("the limit is reached")
            .atMost(Duration.ofSeconds(30))
            .until(() -> running(db, schema) == LIMIT);
        Thread.sleep(2_000); // steady work

        // 1. SIGKILL a node that holds jobs: they count until the leader rescues them.
        ChildProcess killed = holding(db, schema, children, List.of());
        killed.killHard();
        System.out.println("killed " + killed.name());
        Thread.sleep(4_000);

        // 2. SIGSTOP another past its lease: its jobs count until they are rescued, then run
        // elsewhere; thawed, it finds them lost.
        ChildProcess frozen = holding(db, schema, children, List.of(killed));
        frozen.signal("STOP");
        System.out.println("froze " + frozen.name());
        Thread.sleep(LEASE.plusSeconds(3).toMillis());
        frozen.signal("CONT");
        System.out.println("thawed " + frozen.name());
        Thread.sleep(2_000);

        // 3. Terminate every server session of the children, twice.
        for (int round = 0; round < 2; round++) {
          long terminated =
              db.queryLong(
                  "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                      + " WHERE application_name LIKE 'limited-%-"
                      + tag
                      + "'");
          System.out.println("terminated " + terminated + " sessions");
          Thread.sleep(1_500);
        }
        Thread.sleep(3_000);
      } finally {
        sampling.set(false);
        sampler.join(10_000);
        for (ChildProcess c : children) {
          if (c.isAlive()) {
            c.send("stop");
          }
        }
        for (ChildProcess c : children) {
          c.close();
        }
      }
    }

    int most = 0;
    long longestUnusedNanos = 0;
    long unusedSince = -1;
    boolean reached = false;
    for (Sample s : samples) {
      most = Math.max(most, s.running());
      reached |= s.running() == LIMIT;
      boolean unused = reached && s.fiveAvailable() && s.running() < LIMIT;
      if (unused && unusedSince < 0) {
        unusedSince = s.atNanos();
      } else if (!unused && unusedSince >= 0) {
        longestUnusedNanos = Math.max(longestUnusedNanos, s.atNanos() - unusedSince);
        unusedSince = -1;
      }
    }
    long full = samples.stream().filter(s -> s.running() == LIMIT).count();
    System.out.printf(
        "limit %d over %d nodes x %d slots: %d samples, most running at once %d, at the limit in"
            + " %d samples, longest stretch below the limit with >= %d available %d ms%n",
        LIMIT,
        NODES,
        SLOTS,
        samples.size(),
        most,
        full,
        LIMIT,
        Duration.ofNanos(longestUnusedNanos).toMillis());
    assertThat(samples).as("samples taken").hasSizeGreaterThan(500);
    assertThat(most).as("most jobs of the queue running at once").isLessThanOrEqualTo(LIMIT);
    assertThat(reached).as("the limit was reached").isTrue();
    assertThat(Duration.ofNanos(longestUnusedNanos))
        .as("longest stretch below the limit while jobs waited")
        .isLessThan(LAG);
  }

  /**
   * A queue limited to one running job per key (the args' {@code customer}), 20 keys, four worker
   * processes of 16 slots: no two jobs of a key overlap, by the start and end times the handlers
   * record in the database; and the keys do run side by side.
   */
  @Test
  void aQueueLimitedPerKeyNeverRunsTwoJobsOfAKeyAtOnceAcrossProcesses() throws Exception {
    TestDatabase db = TestDatabase.get();
    String schema = db.newMigratedSchema();
    String tag = Long.toString(ProcessHandle.current().pid());
    int keys = 20;
    int perKey = 12;
    db.execute(
        "CREATE TABLE "
            + schema
            + ".limit_runs (job_id bigint, customer text, node text, started_at timestamptz,"
            + " ended_at timestamptz)");
    List<ChildProcess> children = new ArrayList<>();
    try (HikariDataSource ds = db.dataSource(2)) {
      new BatonAdmin(ds, schema)
          .limitConcurrencyPerKey(LimitedWorkerMain.QUEUE, "customer", 1, "test");
      db.execute(
          "INSERT INTO "
              + schema
              + ".job (queue, kind, args) SELECT '"
              + LimitedWorkerMain.QUEUE
              + "', 'work', jsonb_build_object('n', g, 'customer', 'c' || (g % "
              + keys
              + ")) FROM generate_series(1, "
              + keys * perKey
              + ") g");
      try {
        startWorkers(db, schema, "keyed-", tag, "record", children);
        await("every job completed")
            .atMost(Duration.ofSeconds(90))
            .until(
                () ->
                    db.queryLong(
                            "SELECT count(*) FROM " + schema + ".job WHERE state = 'completed'")
                        == (long) keys * perKey);
      } finally {
        for (ChildProcess c : children) {
          c.send("stop");
        }
        for (ChildProcess c : children) {
          c.close();
        }
      }
    }
    long runs = db.queryLong("SELECT count(*) FROM " + schema + ".limit_runs");
    long overlaps =
        db.queryLong(
            "SELECT count(*) FROM "
                + schema
                + ".limit_runs a JOIN "
                + schema
                + ".limit_runs b ON a.customer = b.customer AND a.job_id < b.job_id"
                + " AND a.started_at < coalesce(b.ended_at, 'infinity')"
                + " AND b.started_at < coalesce(a.ended_at, 'infinity')");
    long nodes = db.queryLong("SELECT count(DISTINCT node) FROM " + schema + ".limit_runs");
    // the most keys running at one start: keys are not run one after another
    long sideBySide =
        db.queryLong(
            "SELECT max(n) FROM (SELECT (SELECT count(*) FROM "
                + schema
                + ".limit_runs b WHERE b.started_at <= a.started_at"
                + " AND coalesce(b.ended_at, 'infinity') > a.started_at) AS n FROM "
                + schema
                + ".limit_runs a) m");
    System.out.printf(
        "per key limit 1 over %d keys, %d nodes x %d slots: %d runs on %d nodes, %d overlapping"
            + " pairs of one key, at most %d keys running at once%n",
        keys, NODES, SLOTS, runs, nodes, overlaps, sideBySide);
    assertThat(runs).isGreaterThanOrEqualTo((long) keys * perKey);
    assertThat(overlaps).as("pairs of runs of one key that overlap").isZero();
    assertThat(nodes).as("nodes that ran jobs").isGreaterThan(1);
    assertThat(sideBySide).as("keys running at once").isGreaterThan(1);
  }

  /**
   * A queue limited to 50 starts per second (sliding window), four worker processes of 16 slots, a
   * backlog far larger than the rate: in the 10 s from the first start, 500 +- 50 jobs start, and
   * no one-second window, slid over the recorded start times, holds more than 50.
   */
  @Test
  void aRateLimitedQueueNeverStartsMoreThanTheRateInAnyWindow() throws Exception {
    TestDatabase db = TestDatabase.get();
    String schema = db.newMigratedSchema();
    try (HikariDataSource ds = db.dataSource(2)) {
      new BatonAdmin(ds, schema)
          .limitRate(LimitedWorkerMain.QUEUE, 50, Duration.ofSeconds(1), "test");
      db.execute(
          "INSERT INTO "
              + schema
              + ".job (queue, kind, args) SELECT '"
              + LimitedWorkerMain.QUEUE
              + "', 'work', jsonb_build_object('n', g) FROM generate_series(1, 3000) g");
      runStartsForTenSeconds(db, schema, "rated-");
    }
    String job = schema + ".job";
    long inTen = startsInTheFirstTenSeconds(db, job);
    long mostInAWindow =
        db.queryLong(
            "SELECT max(n) FROM (SELECT (SELECT count(*) FROM "
                + job
                + " b WHERE b.attempted_at >= a.attempted_at"
                + " AND b.attempted_at < a.attempted_at + interval '1 second') AS n FROM "
                + job
                + " a WHERE a.attempted_at IS NOT NULL) w");
    System.out.printf(
        "rate 50/s over %d nodes x %d slots: %d starts in the first 10 s, at most %d in any"
            + " one-second window%n",
        NODES, SLOTS, inTen, mostInAWindow);
    assertThat(mostInAWindow).as("most starts in a one-second window").isLessThanOrEqualTo(50);
    assertThat(inTen).as("starts in the first 10 s").isBetween(450L, 550L);
  }

  /**
   * A queue limited to 10 starts per second per key (the args' {@code customer}, 5 keys; sliding
   * window), four worker processes of 16 slots, a backlog far larger than the rate: in the 10 s
   * from the first start, 500 +- 50 jobs start, and no one-second window of one key, slid over the
   * recorded start times, holds more than 10.
   */
  @Test
  void aQueueRateLimitedPerKeyNeverStartsMoreThanTheRateOfAKeyInAnyWindow() throws Exception {
    TestDatabase db = TestDatabase.get();
    String schema = db.newMigratedSchema();
    try (HikariDataSource ds = db.dataSource(2)) {
      new BatonAdmin(ds, schema)
          .limitRatePerKey(LimitedWorkerMain.QUEUE, "customer", 10, Duration.ofSeconds(1), "test");
      db.execute(
          "INSERT INTO "
              + schema
              + ".job (queue, kind, args) SELECT '"
              + LimitedWorkerMain.QUEUE
              + "', 'work', jsonb_build_object('n', g, 'customer', 'c' || (g % 5))"
              + " FROM generate_series(1, 3000) g");
      runStartsForTenSeconds(db, schema, "rated-key-");
    }
    String job = schema + ".job";
    long inTen = startsInTheFirstTenSeconds(db, job);
    long mostOfAKeyInAWindow =
        db.queryLong(
            "SELECT max(n) FROM (SELECT (SELECT count(*) FROM "
                + job
                + " b WHERE b.args ->> 'customer' = a.args ->> 'customer'"
                + " AND b.attempted_at >= a.attempted_at"
                + " AND b.attempted_at < a.attempted_at + interval '1 second') AS n FROM "
                + job
                + " a WHERE a.attempted_at IS NOT NULL) w");
    System.out.printf(
        "rate 10/s per key, 5 keys, over %d nodes x %d slots: %d starts in the first 10 s, at most"
            + " %d of a key in any one-second window%n",
        NODES, SLOTS, inTen, mostOfAKeyInAWindow);
    assertThat(mostOfAKeyInAWindow)
        .as("most starts of a key in a one-second window")
        .isLessThanOrEqualTo(10);
    assertThat(inTen).as("starts in the first 10 s").isBetween(450L, 550L);
  }

  /**
   * Runs {@link #NODES} plain workers named {@code <prefix><i>-<pid>} on the schema's queue from
   * its first start for eleven seconds (ten of starts, and one for the last of them to show), then
   * stops them.
   */
  private static void runStartsForTenSeconds(TestDatabase db, String schema, String prefix)
      throws Exception {
    String tag = Long.toString(ProcessHandle.current().pid());
    String started = "SELECT count(*) FROM " + schema + ".job WHERE attempted_at IS NOT NULL";
    List<ChildProcess> children = new ArrayList<>();
    try {
      startWorkers(db, schema, prefix, tag, "plain", children);
      await("a first start").atMost(Duration.ofSeconds(60)).until(() -> db.queryLong(started) > 0);
      Thread.sleep(11_000);
    } finally {
      for (ChildProcess c : children) {
        c.send("stop");
      }
      for (ChildProcess c : children) {
        c.close();
      }
    }
  }

  /** The jobs of {@code job} (a qualified table) started in the 10 s from the first start. */
  private static long startsInTheFirstTenSeconds(TestDatabase db, String job) {
    return db.queryLong(
        "SELECT count(*) FROM "
            + job
            + " WHERE attempted_at < (SELECT min(attempted_at) FROM "
            + job
            + ") + interval '10 seconds'");
  }

  /**
   * Starts {@link #NODES} workers named {@code <prefix><i>-<tag>}, in {@code mode}, adding each to
   * {@code out} as it starts (so that a failed start leaves the others to be closed).
   */
  private static void startWorkers(
      TestDatabase db,
      String schema,
      String prefix,
      String tag,
      String mode,
      List<ChildProcess> out)
      throws Exception {
    for (int i = 0; i < NODES; i++) {
      String node = prefix + i + "-" + tag;
      out.add(
          ChildProcess.start(
              node,
              LimitedWorkerMain.class,
              List.of(),
              db.jdbcUrl(),
              schema,
              node,
              Integer.toString(SLOTS),
              Long.toString(LEASE.toMillis()),
              Long.toString(LEADER_TTL.toMillis()),
              Long.toString(WORK.toMillis()),
              mode));
    }
  }

  /** Samples the queue's running count, and whether 5 jobs are available, every 10 ms. */
  private static void sample(
      HikariDataSource ds, String schema, List<Sample> out, AtomicBoolean sampling) {
    String sql =
        "SELECT (SELECT count(*) FROM "
            + schema
            + ".job WHERE state = 'running' AND queue = ?),"
            + " (SELECT count(*) FROM (SELECT 1 FROM "
            + schema
            + ".job WHERE state = 'available' AND queue = ? LIMIT "
            + LIMIT
            + ") a)";
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, LimitedWorkerMain.QUEUE);
      ps.setString(2, LimitedWorkerMain.QUEUE);
      while (sampling.get()) {
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          synchronized (out) {
            out.add(new Sample(System.nanoTime(), rs.getInt(1), rs.getInt(2) >= LIMIT));
          }
        }
        Thread.sleep(10);
      }
    } catch (Exception e) {
      throw new IllegalStateException("sampling failed", e);
    }
  }

  private static long running(TestDatabase db, String schema) {
    return db.queryLong(
        "SELECT count(*) FROM "
            + schema
            + ".job WHERE state = 'running' AND queue = '"
            + LimitedWorkerMain.QUEUE
            + "'");
  }

  /** A child, not in {@code except}, that holds a running job now (waits for one). */
  private static ChildProcess holding(
      TestDatabase db, String schema, List<ChildProcess> children, List<ChildProcess> except) {
    ChildProcess[] found = new ChildProcess[1];
    await("a node holding a job")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              for (ChildProcess c : children) {
                if (!except.contains(c)
                    && db.queryLong(
                            "SELECT count(*) FROM "
                                + schema
                                + ".job WHERE state = 'running' AND attempted_by = '"
                                + c.name()
                                + "'")
                        > 0) {
                  found[0] = c;
                  return true;
                }
              }
              return false;
            });
    return found[0];
  }
}
