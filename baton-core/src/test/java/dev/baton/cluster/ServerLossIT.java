package dev.baton.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.EnqueueOptions;
import dev.baton.inbox.Inbox;
import dev.baton.migrate.Migrator;
import dev.baton.testing.BlackHoleProxy;
import dev.baton.testing.ChildProcess;
import dev.baton.testing.InboxWorkerMain;
import dev.baton.testing.LocalPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The database server dies under load, and nothing acknowledged is lost or applied twice:
 *
 * <ul>
 *   <li><b>failover</b>: a primary with a synchronous streaming standby (made with {@code
 *       pg_basebackup}); the primary's postmaster and all its processes are SIGKILLed, the standby
 *       is promoted ({@code pg_ctl promote}), and every client finds it by itself through a
 *       multi-host URL with {@code targetServerType=primary};
 *   <li><b>crash restart</b>: one server stopped with {@code pg_ctl stop -m immediate} (no shutdown
 *       checkpoint: crash recovery at start) and started again on the same data;
 *   <li><b>asynchronous failover</b>: as the first, with an asynchronous standby cut off from the
 *       primary's WAL for a few seconds before the kill, which shows what such a failover loses of
 *       the acknowledged work, and that the rest still holds.
 * </ul>
 *
 * <p>Two worker JVMs ({@link InboxWorkerMain}, cluster members) apply each job's effect through an
 * {@link Inbox} in the same database while this JVM enqueues, one job at a time, each with an
 * idempotency key, retrying a failed enqueue with the same key. Afterwards: every acknowledged
 * enqueue is one job, completed; each key's effect was applied exactly once; a leader holds an
 * unexpired lease; the workers recovered without being restarted and stop cleanly. The time from
 * the server's death to the first completion after it is printed (never asserted).
 *
 * <p>The servers run from this machine's PostgreSQL binaries ({@link LocalPostgres}); without any,
 * the test fails under {@code CI=true} (CI installs them) and is skipped elsewhere. {@code fsync}
 * is off (the machine does not crash, only the server's processes), {@code synchronous_commit}
 * stays on: a commit is acknowledged only once its WAL is written (and, with the standby, flushed
 * there).
 */
class ServerLossIT {
  private static final String SCHEMA = "loss";
  private static final int WORKERS = 2;
  private static final int CONCURRENCY = 4;
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final int BEFORE = 100; // completions before the fault
  private static final Duration AFTER = Duration.ofSeconds(3); // enqueueing after the recovery
  private static final List<String> SERVER =
      List.of("fsync=off", "synchronous_commit=on", "max_connections=100");

  private static Path bin;

  @BeforeAll
  static void binaries() {
    bin = LocalPostgres.binaries().orElse(null);
    if (bin == null) {
      String missing =
          "no PostgreSQL server binaries with pg_basebackup under /usr/lib/postgresql; install"
              + " them with: apt-get install -y postgresql-15 (or set BATON_PG_BIN)";
      // CI installs them (.ci/run), so there their absence is a failure; a developer's machine
      // without them skips the failover test and says why.
      if ("true".equals(System.getenv("CI"))) {
        throw new AssertionError(missing);
      }
      Assumptions.abort(missing);
    }
  }

  @Test
  void acknowledgedWorkSurvivesThePrimaryKilledAndTheStandbyPromoted() throws Exception {
    Path dir = Files.createTempDirectory("baton-failover-");
    List<String> primarySettings = new ArrayList<>(SERVER);
    primarySettings.add("synchronous_standby_names=standby1");
    try (LocalPostgres primary = LocalPostgres.startPrimary(bin, dir, "primary", primarySettings);
        LocalPostgres standby =
            primary.startStandby(dir, "standby", withSetting("cluster_name=standby1"))) {
      awaitStandby(primary, "sync");
      // hostRecheckSeconds: how long the driver trusts what it learnt of a host (that the standby
      // was not a primary); its default of 10 s would delay the reconnect by that much.
      String url =
          "jdbc:postgresql://"
              + primary.hostAndPort()
              + ","
              + standby.hostAndPort()
              + "/postgres?user=postgres&targetServerType=primary&hostRecheckSeconds=1"
              + "&connectTimeout=5";
      Duration recovery =
          new Run(url, standby.jdbcUrl(), Loss.NONE).run(primary::killHard, standby::promote);
      System.out.println(
          "failover: primary SIGKILLed -> first completion on the promoted standby after "
              + recovery.toMillis()
              + " ms");
    } finally {
      Files.deleteIfExists(dir);
    }
  }

  /**
   * Asynchronous replication: the standby stops receiving WAL (its replication connection runs
   * through a proxy of the test's, which stops forwarding) for about 4 s while work goes on (200
   * jobs it has become due and run meanwhile), then the primary is SIGKILLed and the standby
   * promoted. What the standby had not received is lost: enqueues that returned to their caller
   * (the jobs are gone; enqueued again with the same idempotency keys, they run) and completions
   * (those jobs run again, at least once still holding; an effect in the same database was lost
   * with its completion, so it is applied once on the promoted server). Every job on the promoted
   * server completes, once per key.
   */
  @Test
  void asynchronousStandbyPromotedLosesTheLastAcknowledgedWorkAndJobsRunAgain() throws Exception {
    Path dir = Files.createTempDirectory("baton-async-failover-");
    try (LocalPostgres primary = LocalPostgres.startPrimary(bin, dir, "primary", SERVER);
        BlackHoleProxy replication = BlackHoleProxy.to(primary.jdbcUrl())) {
      String conninfo =
          "primary_conninfo='host=127.0.0.1 port="
              + replication.port()
              + " user=postgres application_name=standby1'";
      try (LocalPostgres standby = primary.startStandby(dir, "standby", withSetting(conninfo))) {
        awaitStandby(primary, "async");
        String url =
            "jdbc:postgresql://"
                + primary.hostAndPort()
                + ","
                + standby.hostAndPort()
                + "/postgres?user=postgres&targetServerType=primary&hostRecheckSeconds=1"
                + "&connectTimeout=5";
        Map<String, Long> appliedOnThePrimary = new HashMap<>();
        Map<String, Long> completedOnThePrimary = new HashMap<>();
        Run run = new Run(url, standby.jdbcUrl(), Loss.ASYNCHRONOUS_STANDBY);
        Duration recovery =
            run.run(
                () -> {
                  // Jobs the standby has, due only after the cut: they complete during it, and
                  // their completions are what it loses.
                  Instant due = Instant.now().plusSeconds(2);
                  run.enqueueBatch(200, due);
                  awaitReplayed(primary, standby);
                  replication.blackHole();
                  // Work the standby does not receive, the batch's included.
                  Thread.sleep(Duration.between(Instant.now(), due.plusSeconds(2)).toMillis());
                  appliedOnThePrimary.putAll(longs(primary.jdbcUrl(), APPLIED_AT));
                  completedOnThePrimary.putAll(
                      longs(
                          primary.jdbcUrl(),
                          "SELECT idempotency_key, id FROM %s.job WHERE state = 'completed'"));
                  primary.killHard();
                },
                standby::promote);
        // Completed on the old primary, yet run again on the promoted standby: a completion lost.
        Map<String, Long> appliedAfter = longs(standby.jdbcUrl(), APPLIED_AT);
        List<String> ranAgain =
            completedOnThePrimary.keySet().stream()
                .filter(
                    k ->
                        appliedAfter.containsKey(k)
                            && !appliedAfter.get(k).equals(appliedOnThePrimary.get(k)))
                .toList();
        long completionLost = ranAgain.stream().filter(k -> !run.lostEnqueues.contains(k)).count();
        System.out.printf(
            "asynchronous failover: %d acknowledged enqueues lost (enqueued again with their keys;"
                + " %d of them had completed on the old primary), %d completions lost (those jobs"
                + " ran again); first completion %d ms after the death%n",
            run.lostEnqueues.size(),
            ranAgain.size() - completionLost,
            completionLost,
            recovery.toMillis());
        assertThat(run.lostEnqueues)
            .as("acknowledged enqueues the standby never received")
            .isNotEmpty();
        assertThat(completionLost)
            .as("completions the standby never received: their jobs ran again")
            .isPositive();
      } finally {
        replication.resume();
      }
    } finally {
      Files.deleteIfExists(dir);
    }
  }

  @Test
  void acknowledgedWorkSurvivesACrashRestart() throws Exception {
    Path dir = Files.createTempDirectory("baton-crash-");
    try (LocalPostgres server = LocalPostgres.startPrimary(bin, dir, "server", SERVER)) {
      Duration recovery =
          new Run(server.jdbcUrl(), server.jdbcUrl(), Loss.NONE)
              .run(server::stopImmediately, server::start);
      System.out.println(
          "crash restart: stop -m immediate -> first completion after restart after "
              + recovery.toMillis()
              + " ms");
    } finally {
      Files.deleteIfExists(dir);
    }
  }

  private static List<String> withSetting(String setting) {
    List<String> s = new ArrayList<>(SERVER);
    s.add(setting);
    return s;
  }

  /** Awaits the standby streaming from {@code primary} with {@code syncState}. */
  private static void awaitStandby(LocalPostgres primary, String syncState) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              try (Connection c = java.sql.DriverManager.getConnection(primary.jdbcUrl());
                  Statement st = c.createStatement();
                  ResultSet rs =
                      st.executeQuery(
                          "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'"
                              + " AND sync_state = '"
                              + syncState
                              + "'")) {
                rs.next();
                return rs.getLong(1) == 1;
              }
            });
  }

  /** Each key's effect and when it was applied, in microseconds (a fence may be issued again). */
  private static final String APPLIED_AT =
      "SELECT idempotency_key, (extract(epoch FROM applied_at) * 1000000)::bigint FROM %s.effect";

  /** What a run's fault may lose of what was acknowledged. */
  private enum Loss {
    /** Nothing: every acknowledged enqueue is a completed job. */
    NONE,
    /**
     * What an asynchronous standby had not received: acknowledged enqueues whose jobs are gone (the
     * run enqueues them again with their keys) and completions (those jobs run again).
     */
    ASYNCHRONOUS_STANDBY
  }

  /** Awaits the standby having replayed all the primary's WAL written so far. */
  private static void awaitReplayed(LocalPostgres primary, LocalPostgres standby)
      throws SQLException {
    String lsn;
    try (Connection c = java.sql.DriverManager.getConnection(primary.jdbcUrl());
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT pg_current_wal_lsn()::text")) {
      rs.next();
      lsn = rs.getString(1);
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              try (Connection c = java.sql.DriverManager.getConnection(standby.jdbcUrl());
                  PreparedStatement ps =
                      c.prepareStatement("SELECT pg_last_wal_replay_lsn() >= ?::pg_lsn")) {
                ps.setString(1, lsn);
                try (ResultSet rs = ps.executeQuery()) {
                  return rs.next() && rs.getBoolean(1);
                }
              }
            });
  }

  /** A key-to-number map read on its own connection; {@code %s} is the schema. */
  private static Map<String, Long> longs(String jdbcUrl, String sql) throws SQLException {
    Map<String, Long> out = new HashMap<>();
    try (Connection c = java.sql.DriverManager.getConnection(jdbcUrl);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql.replace("%s", SCHEMA))) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getLong(2));
      }
    }
    return out;
  }

  /** A step of the fault: the server's death, or what brings a server back. */
  private interface Step {
    void take() throws Exception;
  }

  /** One run: workers, an enqueuer, the fault, the recovery and the checks. */
  private static final class Run {
    private final String url;
    private final String afterUrl;
    private final Map<Integer, String> acknowledged = new ConcurrentHashMap<>();
    private final AtomicBoolean enqueueing = new AtomicBoolean(true);
    private final Loss loss;
    private final Set<String> lostEnqueues = new java.util.HashSet<>();
    private volatile Baton client;

    /**
     * @param url what the clients use
     * @param afterUrl the server that holds the data after the fault, for the checks
     * @param loss what the fault may lose
     */
    Run(String url, String afterUrl, Loss loss) {
      this.url = url;
      this.afterUrl = afterUrl;
      this.loss = loss;
    }

    /**
     * Runs it; returns the time from the server's death (once {@code death} returned) to the first
     * completion after it.
     */
    Duration run(Step death, Step recovery) throws Exception {
      try (HikariDataSource setup = pool(url, "loss-setup")) {
        new Migrator(setup, SCHEMA).up();
        Inbox.migrator(setup, SCHEMA).up();
        try (Connection c = setup.getConnection();
            Statement st = c.createStatement()) {
          st.execute(
              "CREATE TABLE "
                  + SCHEMA
                  + ".effect (idempotency_key text NOT NULL, node text NOT NULL,"
                  + " fence bigint NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
        }
      }
      List<ChildProcess> workers = new ArrayList<>();
      boolean passed = false;
      try (HikariDataSource enqueuePool = pool(url, "loss-enqueuer")) {
        for (int i = 0; i < WORKERS; i++) {
          workers.add(
              ChildProcess.start(
                  "loss-" + i,
                  InboxWorkerMain.class,
                  List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                  url,
                  SCHEMA,
                  "loss-" + i,
                  Integer.toString(CONCURRENCY),
                  Long.toString(LEASE.toMillis())));
        }
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> workers.stream().allMatch(w -> ready(w)));
        Baton client =
            Baton.builder(enqueuePool)
                .config(
                    BatonConfig.builder()
                        .schema(SCHEMA)
                        .knownKinds(InboxWorkerMain.Effect.class)
                        .maintenanceEnabled(false)
                        .build())
                .build();
        this.client = client;
        Thread enqueuer = new Thread(() -> enqueue(client), "loss-enqueuer");
        enqueuer.start();
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> count(url, "SELECT count(*) FROM %s.job WHERE state = 'completed'"),
                n -> n >= BEFORE);

        death.take();
        Instant faultAt = Instant.now();
        recovery.take();
        System.out.println(
            "server back "
                + Duration.between(faultAt, Instant.now()).toMillis()
                + " ms after its death");
        Instant firstAfter =
            await()
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> firstCompletionSince(faultAt), t -> t != null);
        Thread.sleep(AFTER.toMillis()); // keep enqueueing on the recovered server
        enqueueing.set(false);
        enqueuer.join(30_000);
        if (loss == Loss.ASYNCHRONOUS_STANDBY) {
          // What the caller can do about an acknowledged enqueue that was lost: enqueue again with
          // the same key (a job that survived is returned, not doubled).
          Map<String, Long> jobs = longs(afterUrl, "SELECT idempotency_key, id FROM %s.job");
          for (Map.Entry<Integer, String> a : acknowledged.entrySet()) {
            if (!jobs.containsKey(a.getValue())) {
              lostEnqueues.add(a.getValue());
              client.enqueue(
                  new InboxWorkerMain.Effect(a.getKey()),
                  EnqueueOptions.builder()
                      .queue(InboxWorkerMain.QUEUE)
                      .idempotencyKey(a.getValue())
                      .build());
            }
          }
        }

        await()
            .atMost(Duration.ofSeconds(90))
            .until(
                () -> count(afterUrl, "SELECT count(*) FROM %s.job WHERE state <> 'completed'"),
                n -> n == 0);
        check(workers);
        for (ChildProcess w : workers) {
          assertThat(w.isAlive()).as("worker %s still runs\n%s", w.name(), w.describe()).isTrue();
          w.send("stop");
        }
        for (ChildProcess w : workers) {
          assertThat(w.awaitExit(Duration.ofSeconds(30))).as(w.describe()).isZero();
          System.out.println(w.line("counters ").orElse(w.name() + ": no counters"));
        }
        passed = true;
        return Duration.between(faultAt, firstAfter);
      } finally {
        enqueueing.set(false);
        for (ChildProcess w : workers) {
          w.close(passed);
        }
      }
    }

    /** Enqueues {@code n} jobs due at {@code runAt}, each with its own key. */
    void enqueueBatch(int n, Instant runAt) {
      List<dev.baton.JobRequest> batch = new ArrayList<>();
      Map<Integer, String> keys = new HashMap<>();
      for (int i = 0; i < n; i++) {
        int number = 1_000_000 + i;
        String key = "loss-batch-" + i;
        batch.add(
            dev.baton.JobRequest.of(
                new InboxWorkerMain.Effect(number),
                EnqueueOptions.builder()
                    .queue(InboxWorkerMain.QUEUE)
                    .idempotencyKey(key)
                    .runAt(runAt)
                    .build()));
        keys.put(number, key);
      }
      client.enqueueMany(batch);
      acknowledged.putAll(keys);
    }

    /** Enqueues job after job, each with its own key; a failed enqueue is tried again as is. */
    private void enqueue(Baton client) {
      int n = 0;
      while (enqueueing.get()) {
        String key = "loss-" + n;
        try {
          client.enqueue(
              new InboxWorkerMain.Effect(n),
              EnqueueOptions.builder().queue(InboxWorkerMain.QUEUE).idempotencyKey(key).build());
          acknowledged.put(n, key);
          n++;
          Thread.sleep(5);
        } catch (InterruptedException e) {
          return;
        } catch (RuntimeException e) {
          try {
            Thread.sleep(100); // the server is away; the same key again
          } catch (InterruptedException ie) {
            return;
          }
        }
      }
    }

    private Instant firstCompletionSince(Instant since) {
      try (Connection c = java.sql.DriverManager.getConnection(afterUrl);
          PreparedStatement ps =
              c.prepareStatement(
                  "SELECT min(finalized_at) FROM "
                      + SCHEMA
                      + ".job WHERE state = 'completed' AND finalized_at > ?")) {
        ps.setObject(1, since.atOffset(ZoneOffset.UTC));
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          OffsetDateTime t = rs.getObject(1, OffsetDateTime.class);
          return t == null ? null : t.toInstant();
        }
      } catch (SQLException e) {
        return null; // not up yet
      }
    }

    private void check(List<ChildProcess> workers) throws SQLException {
      Map<String, String> jobs = new HashMap<>(); // key -> state
      Map<String, Integer> effects = new HashMap<>(); // key -> times applied
      Set<String> inboxKeys = new java.util.HashSet<>();
      try (Connection c = java.sql.DriverManager.getConnection(afterUrl);
          Statement st = c.createStatement()) {
        try (ResultSet rs =
            st.executeQuery("SELECT idempotency_key, state FROM " + SCHEMA + ".job")) {
          while (rs.next()) {
            assertThat(jobs.put(rs.getString(1), rs.getString(2)))
                .as("a second job for key %s", rs.getString(1))
                .isNull();
          }
        }
        try (ResultSet rs =
            st.executeQuery(
                "SELECT idempotency_key, count(*) FROM "
                    + SCHEMA
                    + ".effect GROUP BY idempotency_key")) {
          while (rs.next()) {
            effects.put(rs.getString(1), rs.getInt(2));
          }
        }
        try (ResultSet rs = st.executeQuery("SELECT idempotency_key FROM " + SCHEMA + ".inbox")) {
          while (rs.next()) {
            inboxKeys.add(rs.getString(1));
          }
        }
        try (ResultSet rs =
            st.executeQuery(
                "SELECT leader_id FROM "
                    + SCHEMA
                    + ".leader WHERE role = 'maintenance' AND expires_at > now()")) {
          assertThat(rs.next()).as("an unexpired maintenance leader after the fault").isTrue();
          assertThat(rs.getString(1)).isIn(workers.stream().map(ChildProcess::name).toList());
        }
      }
      System.out.println(
          "acknowledged enqueues: "
              + acknowledged.size()
              + ", jobs: "
              + jobs.size()
              + ", effects: "
              + effects.values().stream().mapToInt(Integer::intValue).sum());
      for (String key : acknowledged.values()) {
        assertThat(jobs.get(key)).as("state of acknowledged job %s", key).isEqualTo("completed");
      }
      // Jobs whose enqueue was not acknowledged (its commit's answer lost) count too: all ran.
      for (Map.Entry<String, String> job : jobs.entrySet()) {
        assertThat(effects.get(job.getKey()))
            .as("times the effect of %s was applied", job.getKey())
            .isEqualTo(1);
      }
      assertThat(effects.keySet()).isEqualTo(jobs.keySet());
      assertThat(inboxKeys).isEqualTo(jobs.keySet());
    }

    private static long count(String jdbcUrl, String sql) {
      try (Connection c = java.sql.DriverManager.getConnection(jdbcUrl);
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery(sql.replace("%s", SCHEMA))) {
        rs.next();
        return rs.getLong(1);
      } catch (SQLException e) {
        return -1; // not up yet
      }
    }
  }

  private static boolean ready(ChildProcess w) {
    if (!w.isAlive()) {
      throw new IllegalStateException("child " + w.name() + " exited\n" + w.describe());
    }
    return w.line("ready ").isPresent();
  }

  private static HikariDataSource pool(String jdbcUrl, String name) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(jdbcUrl);
    cfg.setMaximumPoolSize(4);
    cfg.setMinimumIdle(0);
    cfg.setConnectionTimeout(5_000);
    cfg.setPoolName(name);
    return new HikariDataSource(cfg);
  }
}
