package dev.baton.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.EnqueueOptions;
import dev.baton.JobRequest;
import dev.baton.LeaderInfo;
import dev.baton.migrate.Migrator;
import dev.baton.testing.ChildProcess;
import dev.baton.testing.ClusterWorkerMain;
import dev.baton.testing.RestartablePostgres;
import dev.baton.testing.TestDatabase;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * A cluster of three worker JVMs survives every fault at once and still makes each job's effect
 * happen exactly once, proved against a real receiver over HTTP.
 *
 * <p>The test JVM enqueues 20,000 jobs (with idempotency keys, retrying batches across faults) and
 * runs an HTTP receiver on loopback that applies each key at most once and refuses a fence lower
 * than the highest it has seen for the key. Three children ({@link ClusterWorkerMain}, maintenance
 * on, 2 s lease and leader TTL) deliver the jobs. Meanwhile the test kills the current leader with
 * SIGKILL (and measures how long until another node holds the role under a new term), freezes
 * another child with SIGSTOP for three leases while it holds jobs it has already delivered,
 * restarts PostgreSQL (a server of the test's own, same port and data directory), and terminates
 * every client backend of the database with {@code pg_terminate_backend}.
 *
 * <p>Then: every job is {@code completed}, none is missing or extra; each completed in exactly one
 * attempt (every other attempt left an error entry); the receiver applied every key exactly once,
 * and the highest fence it saw for each key is the fence the job completed under (so no stale
 * holder completed a job); the frozen node's late results were fenced; the role moved within two
 * leader TTLs of the kill. Invariants 1, 3, 4, 5 and 8 of the design, across processes and outages.
 *
 * <p>With {@code BATON_TEST_DATABASE_URL} set, the server is not the test's to restart: that step
 * is skipped (and said so); the rest runs.
 */
class ClusterChaosIT {
  private static final int JOBS = 20_000;
  private static final int NODES = 3;
  private static final int CONCURRENCY = 16;
  // How long one phase may take before the test calls it stuck: generous, so that a loaded CI box
  // is not mistaken for a hang (a phase takes 1-5 s on an idle one).
  private static final Duration PHASE_LIMIT = Duration.ofSeconds(90);
  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final Duration LEADER_TTL = Duration.ofSeconds(2);
  private static final Duration WORK = Duration.ofMillis(10);
  private static final int ENQUEUE_BATCH = 100;
  private static final Duration ENQUEUE_EVERY = Duration.ofMillis(125);
  private static final int MOST_AHEAD = 2_000;
  private static final String KEY_PREFIX = "chaos-";
  private static final Pattern COUNTERS =
      Pattern.compile(
          "counters node=(\\S+) claimed=(\\d+) completed=(\\d+) fenced=(\\d+) leases_lost=(\\d+)"
              + " rescued=(\\d+) handed_back=(\\d+) retried=(\\d+)");

  private final long startedAt = System.nanoTime();

  @Test
  void everyEffectHappensOnceThroughLeaderCrashFreezeRestartAndKilledSessions() throws Exception {
    String externalUrl = System.getenv("BATON_TEST_DATABASE_URL");
    boolean external = externalUrl != null && !externalUrl.isBlank();
    RestartablePostgres pg = external ? null : RestartablePostgres.start();
    String jdbcUrl = external ? TestDatabase.get().jdbcUrl() : pg.jdbcUrl();
    String schema = external ? TestDatabase.get().newSchemaName() : "chaos";
    Map<String, ChildProcess> workers = new LinkedHashMap<>();
    Receiver receiver = new Receiver();
    Enqueuer enqueuer = null;
    HikariDataSource ds = pool(jdbcUrl);
    boolean passed = false;
    try {
      new Migrator(ds, schema).up();
      Baton client =
          Baton.builder(ds)
              .config(
                  BatonConfig.builder()
                      .schema(schema)
                      .nodeId("chaos-producer-" + ProcessHandle.current().pid())
                      .knownKinds(ClusterWorkerMain.Delivery.class)
                      .maintenanceEnabled(false)
                      .build())
              .build();
      Chaos chaos = new Chaos(ds, schema, client, receiver, workers);

      for (char n = 'a'; n < 'a' + NODES; n++) {
        String node = "chaos-" + n + "-" + ProcessHandle.current().pid();
        workers.put(node, startWorker(jdbcUrl, schema, node, receiver.url()));
      }
      for (ChildProcess w : workers.values()) {
        chaos.awaitOrDump("child " + w.name() + " starts", Duration.ofSeconds(60), () -> ready(w));
      }
      chaos.awaitOrDump(
          "a leader is elected", Duration.ofSeconds(20), () -> client.leader().isPresent());
      log("workers ready; leader " + client.leader().orElseThrow().nodeId());

      Enqueuer producer = new Enqueuer(client, receiver);
      enqueuer = producer;
      producer.start();
      chaos.awaitOrDump("work flows", PHASE_LIMIT, () -> receiver.applied.sum() >= JOBS / 20);

      // 1. SIGKILL the leader; measure until another node holds the role under a new term.
      LeaderInfo old = chaos.liveLeader();
      ChildProcess killed = workers.get(old.nodeId());
      assertThat(killed).as("leader %s is one of the children", old).isNotNull();
      long killedAt = System.nanoTime();
      killed.killHard();
      AtomicReference<LeaderInfo> successor = new AtomicReference<>();
      AtomicLong tookOverAt = new AtomicLong();
      chaos.awaitOrDump(
          "another node takes over the leader role",
          PHASE_LIMIT,
          Duration.ofMillis(20),
          () -> {
            Optional<LeaderInfo> now = client.leader();
            if (now.isPresent()
                && !now.get().nodeId().equals(old.nodeId())
                && now.get().term() > old.term()) {
              tookOverAt.set(System.nanoTime());
              successor.set(now.get());
              return true;
            }
            return false;
          });
      Duration failover = Duration.ofNanos(tookOverAt.get() - killedAt);
      log(
          "killed leader "
              + old.nodeId()
              + " (term "
              + old.term()
              + "); "
              + successor.get().nodeId()
              + " leads in term "
              + successor.get().term()
              + " after "
              + failover.toMillis()
              + " ms");

      // 2. SIGSTOP another node for three leases, caught holding a job it already delivered.
      ChildProcess frozen =
          workers.values().stream()
              .filter(w -> w != killed && !w.name().equals(successor.get().nodeId()))
              .findFirst()
              .orElseThrow();
      Map<String, Long> frozenHeld = chaos.freezeHoldingDeliveredJobs(frozen);
      Thread.sleep(LEASE.multipliedBy(3).toMillis()); // the fault itself: a long pause
      chaos.awaitOrDump(
          "the frozen node's jobs are rescued",
          PHASE_LIMIT,
          () -> chaos.runningOn(frozen.name()) == 0);
      // Thawed only once newer holders delivered every job it holds, each of its late deliveries
      // meets a higher fence at the receiver.
      chaos.awaitOrDump(
          "newer holders deliver the frozen node's jobs",
          Duration.ofSeconds(60),
          () -> receiver.redelivered(frozenHeld));
      double thawedAt = chaos.dbEpoch();
      frozen.signal("CONT");
      log("thawed " + frozen.name() + " (it held " + frozenHeld.size() + " jobs when frozen)");
      chaos.awaitEveryLiveNodeCompletes("work goes on after the thaw", thawedAt);

      // 3. Restart PostgreSQL.
      Duration restart = null;
      if (external) {
        log("BATON_TEST_DATABASE_URL is set: not restarting that server (skipped)");
      } else {
        restart = pg.restart();
        log("restarted PostgreSQL in " + restart.toMillis() + " ms");
        chaos.awaitEveryLiveNodeCompletes("every node recovers from the restart", chaos.dbEpoch());
      }

      // 4. Terminate every client backend of the database but our own.
      Map<String, Integer> terminated = chaos.terminateBackends(jdbcUrl);
      log("terminated backends " + terminated);
      for (ChildProcess w : workers.values()) {
        if (w != killed) {
          assertThat(terminated)
              .as("sessions of %s were terminated", w.name())
              .containsKey(w.name());
        }
      }
      chaos.awaitEveryLiveNodeCompletes(
          "every node recovers from its terminated sessions", chaos.dbEpoch());

      chaos.awaitOrDump(
          "every job is enqueued", Duration.ofSeconds(60), () -> producer.done.get() != null);
      assertThat(producer.done.get()).as("enqueuer failure").isEqualTo("ok");
      chaos.awaitOrDump(
          "every job completes", Duration.ofSeconds(90), () -> chaos.completed() == JOBS);
      LeaderInfo finalLeader = chaos.liveLeader();
      log("all jobs completed; leader " + finalLeader.nodeId() + " in term " + finalLeader.term());

      // Stop the live children gracefully and read their counters.
      Map<String, Matcher> counters = new TreeMap<>();
      for (ChildProcess w : workers.values()) {
        if (w != killed) {
          w.send("stop");
        }
      }
      for (ChildProcess w : workers.values()) {
        if (w != killed) {
          assertThat(w.awaitExit(Duration.ofSeconds(60))).as(w.describe()).isZero();
          Matcher m = COUNTERS.matcher(w.line("counters ").orElse(""));
          assertThat(m.matches()).as(w.describe()).isTrue();
          counters.put(w.name(), m);
        }
      }

      // The table: every job completed, once.
      Map<String, Long> states = chaos.states();
      long attemptsBeyondErrors = chaos.jobsWhoseAttemptsAreNotErrorsPlusOne();
      Map<String, Long> jobFences = chaos.fencesByKey();
      long rescues = chaos.rescues();
      long fenced = counters.values().stream().mapToLong(m -> Long.parseLong(m.group(4))).sum();
      Map<String, String> perNode = new TreeMap<>();
      counters.forEach(
          (node, m) ->
              perNode.put(
                  node,
                  "claimed="
                      + m.group(2)
                      + " completed="
                      + m.group(3)
                      + " fenced="
                      + m.group(4)
                      + " leases_lost="
                      + m.group(5)
                      + " rescued="
                      + m.group(6)));
      System.out.printf(
          "ClusterChaosIT summary: jobs=%d applied=%d refused_by_key=%d refused_by_fence=%d"
              + " deliveries=%d rescues=%d fenced_total=%d failover_ms=%d (limit %d)"
              + " pg_restart_ms=%s frozen_held=%d backends_terminated=%d elapsed_s=%.1f%n"
              + "  refused by fence, by node: %s%n"
              + "  nodes: %s%n",
          JOBS,
          receiver.applied.sum(),
          receiver.refusedByKey.sum(),
          receiver.refusedByFence.sum(),
          receiver.deliveries.sum(),
          rescues,
          fenced,
          failover.toMillis(),
          LEADER_TTL.multipliedBy(2).toMillis(),
          restart == null ? "skipped" : Long.toString(restart.toMillis()),
          frozenHeld.size(),
          terminated.values().stream().mapToInt(Integer::intValue).sum(),
          (System.nanoTime() - startedAt) / 1e9,
          new TreeMap<>(receiver.refusedByFenceOf),
          perNode);

      assertThat(states).as("jobs by state").isEqualTo(Map.of("completed", (long) JOBS));
      assertThat(jobFences).as("jobs by idempotency key").hasSize(JOBS);
      assertThat(attemptsBeyondErrors)
          .as("jobs whose attempts other than the completing one did not each leave an error")
          .isZero();

      // The receiver: each key applied exactly once; the completing holder saw the highest fence.
      assertThat(receiver.applied.sum()).as("keys applied").isEqualTo(JOBS);
      assertThat(receiver.keys).as("keys the receiver saw").hasSize(JOBS);
      List<String> mismatched = new ArrayList<>();
      for (int i = 0; i < JOBS; i++) {
        String key = KEY_PREFIX + i;
        KeyState ks = receiver.keys.get(key);
        Long fence = jobFences.get(key);
        if (ks == null || !ks.applied || fence == null || ks.highestFence != fence) {
          mismatched.add(key + " (receiver " + ks + ", job fence " + fence + ")");
        }
      }
      assertThat(mismatched)
          .as("keys not applied, or whose highest delivered fence is not the completing one")
          .isEmpty();
      assertThat(receiver.refusedByKey.sum())
          .as("redeliveries refused by key (the frozen node had delivered jobs it then lost)")
          .isPositive();

      // The frozen node's late results were dropped by the fence.
      Matcher f = counters.get(frozen.name());
      assertThat(Long.parseLong(f.group(4)) + Long.parseLong(f.group(5)))
          .as("fenced + leases_lost of the frozen node %s", frozen.name())
          .isPositive();
      assertThat(rescues).as("rescues recorded on jobs").isPositive();

      assertThat(failover)
          .as("leader failover after SIGKILL (kill to new term)")
          .isLessThanOrEqualTo(LEADER_TTL.multipliedBy(2));
      passed = true;
    } finally {
      if (enqueuer != null) {
        enqueuer.interrupt();
        enqueuer.join(10_000);
      }
      for (ChildProcess w : workers.values()) {
        w.close(passed);
      }
      receiver.close();
      ds.close();
      if (pg != null) {
        pg.close();
      }
    }
  }

  private void log(String event) {
    System.out.printf(
        "[ClusterChaosIT +%6.2f s] %s%n", (System.nanoTime() - startedAt) / 1e9, event);
  }

  /** Starts a {@link ClusterWorkerMain} child delivering to {@code receiverUrl}. */
  private static ChildProcess startWorker(
      String jdbcUrl, String schema, String node, String receiverUrl) throws IOException {
    return ChildProcess.start(
        node,
        ClusterWorkerMain.class,
        List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
        jdbcUrl,
        schema,
        node,
        receiverUrl,
        Integer.toString(CONCURRENCY),
        Long.toString(LEASE.toMillis()),
        Long.toString(LEADER_TTL.toMillis()),
        Long.toString(WORK.toMillis()));
  }

  /** Whether {@code w} printed {@code ready}; fails if it exited. */
  private static boolean ready(ChildProcess w) {
    if (!w.isAlive()) {
      throw new IllegalStateException("child " + w.name() + " exited\n" + w.describe());
    }
    return w.line("ready ").isPresent();
  }

  private static HikariDataSource pool(String jdbcUrl) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(jdbcUrl);
    cfg.setMaximumPoolSize(4);
    cfg.setMinimumIdle(0);
    cfg.setConnectionTimeout(5_000);
    cfg.setPoolName("chaos-test");
    cfg.addDataSourceProperty("ApplicationName", "chaos-test");
    return new HikariDataSource(cfg);
  }

  /** The faults' and checks' access to the database, the receiver and the children. */
  private final class Chaos {
    private final HikariDataSource ds;
    private final String schema;
    private final Baton client;
    private final Receiver receiver;
    private final Map<String, ChildProcess> workers;

    Chaos(
        HikariDataSource ds,
        String schema,
        Baton client,
        Receiver receiver,
        Map<String, ChildProcess> workers) {
      this.ds = ds;
      this.schema = schema;
      this.client = client;
      this.receiver = receiver;
      this.workers = workers;
    }

    /** The leader, once its row names a live term (its lease not run out). */
    LeaderInfo liveLeader() throws Exception {
      AtomicReference<LeaderInfo> out = new AtomicReference<>();
      awaitOrDump(
          "a live leader",
          Duration.ofSeconds(20),
          () -> {
            Optional<LeaderInfo> l = client.leader();
            if (l.isPresent()
                && queryLong("SELECT count(*) FROM " + q("leader") + " WHERE expires_at > now()")
                    > 0) {
              out.set(l.get());
              return true;
            }
            return false;
          });
      return out.get();
    }

    /**
     * SIGSTOPs {@code w} when, frozen, it holds at least one job it has already delivered to the
     * receiver under its current fence (so the job's re-run is a repeat the receiver must refuse,
     * and the frozen node's own result for it must be fenced). A freeze that catches none is undone
     * at once and tried again. Returns the keys and fences of the jobs it held when frozen.
     */
    Map<String, Long> freezeHoldingDeliveredJobs(ChildProcess w) throws Exception {
      for (int tries = 1; tries <= 50; tries++) {
        awaitOrDump(w.name() + " holds jobs", PHASE_LIMIT, () -> runningOn(w.name()) >= 2);
        w.signal("STOP");
        // Once its sessions are idle, whatever it sent before the stop has been executed.
        awaitOrDump(
            "sessions of frozen " + w.name() + " are idle",
            Duration.ofSeconds(10),
            () ->
                queryLong(
                        "SELECT count(*) FROM pg_stat_activity WHERE application_name = '"
                            + w.name()
                            + "' AND state <> 'idle'")
                    == 0);
        // A statement it wrote just before the stop may not have reached its backend yet (the
        // session still reads idle, most likely on a loaded machine): such a completion commits
        // after this, under the job's own fence, and the job is never re-run. Keep only the jobs
        // still running on it, under the same fence, once that has had time to land.
        Map<String, Long> held = runningKeys(w.name());
        Thread.sleep(500);
        held.entrySet().retainAll(runningKeys(w.name()).entrySet());
        long delivered =
            held.entrySet().stream()
                .filter(
                    e -> {
                      KeyState ks = receiver.keys.get(e.getKey());
                      return ks != null && ks.deliveredBy(w.name(), e.getValue());
                    })
                .count();
        if (delivered > 0) {
          log(
              "froze "
                  + w.name()
                  + " holding "
                  + held.size()
                  + " jobs, "
                  + delivered
                  + " of them delivered (try "
                  + tries
                  + ")");
          return held;
        }
        w.signal("CONT");
      }
      throw new AssertionError("could not freeze " + w.name() + " holding a delivered job");
    }

    /**
     * Waits until every live child has completed a job after {@code since} (seconds since the
     * epoch, database clock), or all jobs are done: each one is working again.
     */
    void awaitEveryLiveNodeCompletes(String what, double since) throws Exception {
      awaitOrDump(
          what,
          Duration.ofSeconds(60),
          () -> {
            if (completed() == JOBS) {
              return true;
            }
            for (ChildProcess w : workers.values()) {
              if (w.isAlive() && completedOnSince(w.name(), since) == 0) {
                return false;
              }
            }
            return true;
          });
      log(what + ": applied " + receiver.applied.sum());
    }

    /** The database clock, in seconds since the epoch, once the database answers. */
    double dbEpoch() throws Exception {
      AtomicReference<Double> now = new AtomicReference<>();
      awaitOrDump(
          "the database answers",
          PHASE_LIMIT,
          () -> {
            try (Connection c = ds.getConnection();
                PreparedStatement ps =
                    c.prepareStatement("SELECT extract(epoch FROM clock_timestamp())::float8");
                ResultSet rs = ps.executeQuery()) {
              rs.next();
              now.set(rs.getDouble(1));
              return true;
            }
          });
      return now.get();
    }

    /**
     * Terminates every client backend of the database except this connection's own, and waits until
     * they are gone. Returns how many it terminated per application name.
     */
    Map<String, Integer> terminateBackends(String jdbcUrl) throws Exception {
      Map<String, Integer> out = new TreeMap<>();
      List<Integer> pids = new ArrayList<>();
      try (Connection c = DriverManager.getConnection(jdbcUrl);
          PreparedStatement ps =
              c.prepareStatement(
                  "SELECT application_name, pid, pg_terminate_backend(pid) FROM pg_stat_activity"
                      + " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                      + " AND backend_type = 'client backend'");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (rs.getBoolean(3)) {
            out.merge(rs.getString(1), 1, Integer::sum);
            pids.add(rs.getInt(2));
          }
        }
      }
      if (!pids.isEmpty()) {
        String list = pids.stream().map(String::valueOf).collect(Collectors.joining(","));
        awaitOrDump(
            "terminated backends end",
            PHASE_LIMIT,
            () ->
                queryLong("SELECT count(*) FROM pg_stat_activity WHERE pid IN (" + list + ")")
                    == 0);
      }
      return out;
    }

    private long completedOnSince(String node, double since) throws SQLException {
      try (Connection c = ds.getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "SELECT count(*) FROM "
                      + q("job")
                      + " WHERE state = 'completed' AND attempted_by = ?"
                      + " AND finalized_at > to_timestamp(?)")) {
        ps.setString(1, node);
        ps.setDouble(2, since);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getLong(1);
        }
      }
    }

    void awaitOrDump(String what, Duration atMost, Callable<Boolean> condition) throws Exception {
      awaitOrDump(what, atMost, Duration.ofMillis(100), condition);
    }

    /**
     * Awaits {@code condition}, ignoring exceptions (the database may be restarting); on timeout
     * fails with the state of the run and each child's output.
     */
    void awaitOrDump(String what, Duration atMost, Duration poll, Callable<Boolean> condition)
        throws Exception {
      try {
        await(what)
            .atMost(atMost)
            .pollDelay(Duration.ZERO)
            .pollInterval(poll)
            .ignoreExceptions()
            .until(condition);
      } catch (ConditionTimeoutException e) {
        throw new AssertionError(what + " did not happen within " + atMost + "\n" + dump(), e);
      }
    }

    private String dump() {
      StringBuilder sb = new StringBuilder();
      sb.append("receiver: applied=")
          .append(receiver.applied.sum())
          .append(" refused_by_key=")
          .append(receiver.refusedByKey.sum())
          .append(" refused_by_fence=")
          .append(receiver.refusedByFence.sum())
          .append('\n');
      try {
        sb.append("jobs by state: ").append(states()).append('\n');
        sb.append("leader: ").append(client.leader()).append('\n');
      } catch (RuntimeException | SQLException e) {
        sb.append("cannot read the database: ").append(e).append('\n');
      }
      for (ChildProcess w : workers.values()) {
        sb.append(w.describe()).append('\n');
      }
      return sb.toString();
    }

    long completed() throws SQLException {
      return queryLong("SELECT count(*) FROM " + q("job") + " WHERE state = 'completed'");
    }

    long runningOn(String node) throws SQLException {
      return queryLong(
          "SELECT count(*) FROM "
              + q("job")
              + " WHERE state = 'running' AND attempted_by = '"
              + node
              + "'");
    }

    long rescues() throws SQLException {
      return queryLong(
          "SELECT coalesce(sum((metadata ->> 'rescue_count')::int), 0) FROM " + q("job"));
    }

    /**
     * Completed jobs whose attempt count is not one more than their counted error entries: every
     * attempt but the completing one ends in an error entry; a failure or an overrun deadline keeps
     * its attempt, while a rescue of a lost lease or of a gone node ({@code lease_expired}, {@code
     * node_gone}) and a hand-back give theirs back. Anything else means a job completed in two
     * attempts.
     */
    long jobsWhoseAttemptsAreNotErrorsPlusOne() throws SQLException {
      return queryLong(
          "SELECT count(*) FROM "
              + q("job")
              + " j WHERE attempt <> (SELECT count(*) FROM jsonb_array_elements(j.errors) e"
              + " WHERE e ->> 'error' NOT IN ('lease_expired', 'node_gone')) + 1"
              + " OR finalized_at IS NULL");
    }

    Map<String, Long> states() throws SQLException {
      Map<String, Long> out = new TreeMap<>();
      try (Connection c = ds.getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "SELECT state, count(*) FROM " + q("job") + " GROUP BY state ORDER BY state");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), rs.getLong(2));
        }
      }
      return out;
    }

    Map<String, Long> fencesByKey() throws SQLException {
      return keysAndFences("SELECT idempotency_key, fence FROM " + q("job"), null);
    }

    Map<String, Long> runningKeys(String node) throws SQLException {
      return keysAndFences(
          "SELECT idempotency_key, fence FROM "
              + q("job")
              + " WHERE state = 'running' AND attempted_by = ?",
          node);
    }

    private Map<String, Long> keysAndFences(String sql, String node) throws SQLException {
      Map<String, Long> out = new HashMap<>();
      try (Connection c = ds.getConnection();
          PreparedStatement ps = c.prepareStatement(sql)) {
        if (node != null) {
          ps.setString(1, node);
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.put(rs.getString(1), rs.getLong(2));
          }
        }
      }
      return out;
    }

    private long queryLong(String sql) throws SQLException {
      try (Connection c = ds.getConnection();
          PreparedStatement ps = c.prepareStatement(sql);
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }

    private String q(String table) {
      return "\"" + schema + "\"." + table;
    }
  }

  /**
   * Enqueues {@link #JOBS} jobs in batches of {@link #ENQUEUE_BATCH}, one every {@link
   * #ENQUEUE_EVERY} at most and only while fewer than {@link #MOST_AHEAD} wait to be applied (so
   * the work spans the faults on a fast machine, and a rescued job, queued behind the rest, runs
   * again soon on a slow one). Each job is keyed {@code chaos-<n>}; a batch that fails (the
   * database restarting, its session terminated) is sent again, and its keys make the repeat insert
   * nothing twice. {@link #done} is "ok" at the end, or the failure.
   */
  private final class Enqueuer extends Thread {
    private final Baton client;
    private final Receiver receiver;
    final AtomicReference<String> done = new AtomicReference<>();

    Enqueuer(Baton client, Receiver receiver) {
      super("chaos-enqueuer");
      this.client = client;
      this.receiver = receiver;
      setDaemon(true);
    }

    @Override
    public void run() {
      try {
        long next = System.nanoTime();
        int retries = 0;
        for (int from = 0; from < JOBS; from += ENQUEUE_BATCH) {
          List<JobRequest> batch = new ArrayList<>(ENQUEUE_BATCH);
          for (int n = from; n < Math.min(JOBS, from + ENQUEUE_BATCH); n++) {
            batch.add(
                JobRequest.of(
                    new ClusterWorkerMain.Delivery(n),
                    EnqueueOptions.builder()
                        .queue(ClusterWorkerMain.QUEUE)
                        .idempotencyKey(KEY_PREFIX + n)
                        .build()));
          }
          while (true) {
            try {
              client.enqueueMany(batch);
              break;
            } catch (RuntimeException e) {
              if (++retries > 200) {
                throw e;
              }
              LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // a retry's backoff
              if (isInterrupted()) {
                done.set("interrupted");
                return;
              }
            }
          }
          next += ENQUEUE_EVERY.toNanos();
          LockSupport.parkNanos(next - System.nanoTime()); // the enqueue rate
          while (from + ENQUEUE_BATCH - receiver.applied.sum() >= MOST_AHEAD && !isInterrupted()) {
            LockSupport.parkNanos(ENQUEUE_EVERY.toNanos() / 5); // the backlog bound
          }
          if (isInterrupted()) {
            done.set("interrupted");
            return;
          }
        }
        log("enqueued " + JOBS + " jobs (" + retries + " batches retried)");
        done.set("ok");
      } catch (RuntimeException e) {
        done.set(e.toString());
      }
    }
  }

  /** What the receiver knows of one key. Guarded by itself. */
  private static final class KeyState {
    boolean applied;
    long appliedFence;
    String appliedBy;
    long highestFence = Long.MIN_VALUE;
    int deliveries;

    synchronized boolean seenAbove(long fence) {
      return highestFence > fence;
    }

    synchronized boolean deliveredBy(String node, long fence) {
      return applied && appliedBy.equals(node) && appliedFence == fence;
    }

    @Override
    public synchronized String toString() {
      return "applied="
          + applied
          + " by "
          + appliedBy
          + " fence "
          + appliedFence
          + ", highest fence "
          + highestFence
          + ", deliveries "
          + deliveries;
    }
  }

  /**
   * The external system the jobs act on: an HTTP endpoint on loopback that applies each idempotency
   * key at most once and refuses a fence lower than the highest seen for the key. Answers {@code
   * applied}, {@code duplicate} (refused by key) or {@code stale} (refused by fence).
   */
  private static final class Receiver implements AutoCloseable {
    final ConcurrentHashMap<String, KeyState> keys = new ConcurrentHashMap<>();
    final LongAdder applied = new LongAdder();
    final LongAdder refusedByKey = new LongAdder();
    final LongAdder refusedByFence = new LongAdder();
    final LongAdder deliveries = new LongAdder();
    final Map<String, LongAdder> refusedByFenceOf = new ConcurrentHashMap<>();
    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(8);

    Receiver() throws IOException {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
      server.createContext("/deliver", this::handle);
      server.setExecutor(threads);
      server.start();
    }

    String url() {
      return "http://127.0.0.1:" + server.getAddress().getPort() + "/deliver";
    }

    private void handle(HttpExchange exchange) throws IOException {
      try (exchange) {
        exchange.getRequestBody().readAllBytes();
        Map<String, String> params = new HashMap<>();
        String query = exchange.getRequestURI().getRawQuery();
        for (String p : query == null ? new String[0] : query.split("&")) {
          int eq = p.indexOf('=');
          if (eq > 0) {
            params.put(
                p.substring(0, eq), URLDecoder.decode(p.substring(eq + 1), StandardCharsets.UTF_8));
          }
        }
        String key = params.get("key");
        String node = params.get("node");
        String fence = params.get("fence");
        if (key == null || node == null || fence == null) {
          answer(exchange, 400, "missing key, fence or node");
          return;
        }
        answer(exchange, 200, deliver(key, Long.parseLong(fence), node));
      }
    }

    private String deliver(String key, long fence, String node) {
      deliveries.increment();
      KeyState ks = keys.computeIfAbsent(key, k -> new KeyState());
      synchronized (ks) {
        ks.deliveries++;
        if (!ks.applied) {
          ks.applied = true;
          ks.appliedFence = fence;
          ks.appliedBy = node;
          ks.highestFence = Math.max(ks.highestFence, fence);
          applied.increment();
          return "applied";
        }
        if (fence < ks.highestFence) {
          refusedByFence.increment();
          refusedByFenceOf.computeIfAbsent(node, n -> new LongAdder()).increment();
          return "stale";
        }
        ks.highestFence = fence;
        refusedByKey.increment();
        return "duplicate";
      }
    }

    /** Whether each of {@code held} (key to fence) was delivered with a higher fence since. */
    boolean redelivered(Map<String, Long> held) {
      for (Map.Entry<String, Long> e : held.entrySet()) {
        KeyState ks = keys.get(e.getKey());
        if (ks == null || !ks.seenAbove(e.getValue())) {
          return false;
        }
      }
      return true;
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }

    @Override
    public void close() {
      server.stop(0);
      threads.shutdownNow();
    }
  }
}
