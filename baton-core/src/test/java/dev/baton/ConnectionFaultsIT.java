package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.migrate.Migrator;
import dev.baton.testing.BlackHoleProxy;
import dev.baton.testing.ChildEffects;
import dev.baton.testing.ChildJob;
import dev.baton.testing.ChildProcess;
import dev.baton.testing.RestartablePostgres;
import dev.baton.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Faults of the connection between one worker JVM and PostgreSQL, made by a proxy of the test's own
 * ({@link BlackHoleProxy}) between the two.
 */
class ConnectionFaultsIT {
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final Duration INTERVAL = LEASE.dividedBy(3); // the default heartbeat interval

  /**
   * How soon a worker completes a job after the server answers again: finishes and the notifier's
   * reconnects are retried at most 1 s apart (docs/operations/pooling.md), plus 1 s for a fresh
   * connection and the commit on a loaded two-core machine.
   */
  private static final Duration RESUME_BOUND = Duration.ofSeconds(2);

  /** The pool size of {@link dev.baton.testing.WorkerMain}'s client. */
  private static final int CHILD_POOL = 6;

  // The failed-attempt lines of one kind in one minute, and the summary after them (FailureLog).
  private static final int FAILURE_LINES = 11;

  private static final Pattern INTERRUPTED =
      Pattern.compile("interrupted job (\\d+) fence (\\d+) at (\\d+)");

  /**
   * A worker whose connections stop answering without closing interrupts its own handlers within
   * the lease plus one heartbeat interval of its last confirmed lease (in fact before that lease
   * ends), logs why, and works again once the connections answer, without a restart; the jobs it
   * lost complete on another node, once.
   */
  @Test
  void workerCutOffByBlackHoleStopsItsHandlersAndRecovers() throws Exception {
    TestDatabase db = TestDatabase.get();
    String schema = db.newMigratedSchema();
    ChildEffects.create(db, schema);
    String childNode = "holed-" + ProcessHandle.current().pid();
    String survivorNode = "survivor-" + ProcessHandle.current().pid();
    Map<Long, Integer> survivorRuns = new ConcurrentHashMap<>();

    try (BlackHoleProxy proxy = BlackHoleProxy.to(db.jdbcUrl());
        HikariDataSource ds = db.dataSource(8);
        ChildProcess child =
            ChildProcess.start(proxy.jdbcUrl(db.jdbcUrl()), schema, childNode, "hold", LEASE, 2);
        Baton survivor =
            Baton.builder(ds)
                .config(
                    BatonConfig.builder()
                        .schema(schema)
                        .nodeId(survivorNode)
                        .queue(ChildJob.QUEUE, 2)
                        .lease(LEASE)
                        .maintenanceInterval(Duration.ofMillis(100))
                        .stopTimeout(Duration.ofSeconds(1))
                        .build())
                .handler(
                    ChildJob.class,
                    (ctx, args) -> {
                      survivorRuns.merge(ctx.jobId(), 1, Integer::sum);
                      ChildEffects.record(
                          ds,
                          schema,
                          new ChildEffects.Effect(
                              ctx.jobId(), ctx.attempt(), ctx.fence(), survivorNode, "started"));
                    })
                .build()) {
      await("child ready")
          .atMost(Duration.ofSeconds(60))
          .until(() -> child.line("ready").isPresent());
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        ids.add(
            survivor
                .enqueue(
                    new ChildJob("hold"), EnqueueOptions.builder().queue(ChildJob.QUEUE).build())
                .job()
                .id());
      }
      await("child starts both jobs")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> ids.stream().allMatch(id -> child.line("started job " + id + " ").isPresent()));
      // Let one beat through, so the last confirmed lease is a heartbeat's, not the claim's.
      Instant claimedLease = leaseEnd(db, schema, ids.get(0));
      await("a heartbeat extends the leases")
          .atMost(Duration.ofSeconds(10))
          .until(() -> leaseEnd(db, schema, ids.get(0)).isAfter(claimedLease));

      proxy.blackHole();
      long holedAt = System.currentTimeMillis();
      // A beat forwarded just before may still be executed; after that the rows' leases are the
      // last the child can have had confirmed (its own view ends no later).
      await("the child's statements forwarded before the cut end")
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  db.queryLong(
                          "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND"
                              + " application_name = '"
                              + childNode
                              + "'")
                      == 0);
      Map<Long, Instant> lastLease = new ConcurrentHashMap<>();
      for (long id : ids) {
        lastLease.put(id, leaseEnd(db, schema, id));
      }
      survivor.start();

      await("the cut-off child interrupts both handlers")
          .atMost(LEASE.multipliedBy(4))
          .until(
              () ->
                  ids.stream()
                      .allMatch(id -> child.line("interrupted job " + id + " ").isPresent()));
      for (long id : ids) {
        Matcher m = INTERRUPTED.matcher(child.line("interrupted job " + id + " ").orElseThrow());
        assertThat(m.matches()).isTrue();
        Instant interruptedAt = Instant.ofEpochMilli(Long.parseLong(m.group(3)));
        Instant leaseEnd = lastLease.get(id);
        System.out.printf(
            "black hole: job %d interrupted %d ms after the cut, %d ms before its last confirmed"
                + " lease ended%n",
            id,
            interruptedAt.toEpochMilli() - holedAt,
            leaseEnd.toEpochMilli() - interruptedAt.toEpochMilli());
        assertThat(interruptedAt)
            .as(
                "interrupt of job %d vs its last confirmed lease end %s plus one interval",
                id, leaseEnd)
            .isBefore(leaseEnd.plus(INTERVAL));
      }
      await("the child logs why")
          .atMost(Duration.ofSeconds(10))
          .until(() -> child.stderr().contains("cannot prove the leases of"));

      await("the survivor completes the lost jobs")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  ids.stream()
                      .allMatch(
                          id -> survivor.job(id).orElseThrow().state() == JobState.COMPLETED));
      survivor.stop();

      proxy.resume();
      long quick =
          survivor
              .enqueue(
                  new ChildJob("quick"), EnqueueOptions.builder().queue(ChildJob.QUEUE).build())
              .job()
              .id();
      await("the child, connected again, works a new job")
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                Job j = survivor.job(quick).orElseThrow();
                assertThat(j.state()).as(child::describe).isEqualTo(JobState.COMPLETED);
                assertThat(j.attemptedBy()).isEqualTo(childNode);
              });

      for (long id : ids) {
        Job done = survivor.job(id).orElseThrow();
        assertThat(done.attemptedBy()).isEqualTo(survivorNode);
        assertThat(survivorRuns.get(id)).as("survivor runs of job %d", id).isEqualTo(1);
        assertThat(ChildEffects.of(ds, schema, id))
            .as("effects of job %d", id)
            .extracting(ChildEffects.Effect::node)
            .containsExactly(childNode, survivorNode);
      }
      child.send("stop");
      assertThat(child.awaitExit(Duration.ofSeconds(30))).as(child::describe).isZero();
    }
  }

  /**
   * A PostgreSQL restart under load: the worker's first completion after the server is back comes
   * within {@link #RESUME_BOUND} (docs/operations/pooling.md, "Pool settings": finishes and the
   * notifier's reconnects are retried at most 1 s apart), and its log of the outage is the bounded
   * set of lines that page describes ({@link #checkOutageLog}).
   */
  @Test
  void workerResumesSoonAfterPostgresRestartsAndLogsTheOutageOnce() throws Exception {
    String external = System.getenv("BATON_TEST_DATABASE_URL");
    assumeTrue(
        external == null || external.isBlank(),
        "restarts a server of its own: runs on the embedded PostgreSQL only");
    String schema = "restart";
    String node = "restarted-" + ProcessHandle.current().pid();
    try (RestartablePostgres pg = RestartablePostgres.start();
        HikariDataSource ds = pool(pg.jdbcUrl())) {
      new Migrator(ds, schema).up();
      ChildEffects.create(ds, schema);
      List<JobRequest> slow = new ArrayList<>();
      for (int i = 0; i < 4_000; i++) { // 50 ms each on 4 slots: longer than the test
        slow.add(
            JobRequest.of(
                new ChildJob("slow"), EnqueueOptions.builder().queue(ChildJob.QUEUE).build()));
      }
      try (Baton client =
              Baton.builder(ds)
                  .config(BatonConfig.builder().schema(schema).allowUnknownKinds(true).build())
                  .build();
          ChildProcess child =
              ChildProcess.start(
                  pg.jdbcUrl(), schema, node, "hold", BatonConfig.DEFAULT_LEASE, 4)) {
        client.enqueueMany(slow);
        await("child works")
            .atMost(Duration.ofSeconds(60))
            .until(() -> child.line("started job").isPresent());

        int logBefore = child.stderr().length();
        Duration down = pg.restart();
        long back = System.nanoTime();
        await("a completion after the restart")
            .atMost(RESUME_BOUND)
            .pollInterval(Duration.ofMillis(20))
            .until(
                () ->
                    countOrMinusOne(
                            pg.jdbcUrl(),
                            "SELECT count(*) FROM restart.job WHERE state = 'completed'"
                                + " AND finalized_at > pg_postmaster_start_time()")
                        > 0);
        System.out.printf(
            "restart: server down %d ms; first completion %d ms after it was back%n",
            down.toMillis(), Duration.ofNanos(System.nanoTime() - back).toMillis());

        await("the child logs the outage's end")
            .atMost(Duration.ofSeconds(30))
            .until(() -> child.stderr().contains("database reachable again"));
        checkOutageLog("restart", child.stderr().substring(logBefore));
        child.send("stop");
        assertThat(child.awaitExit(Duration.ofSeconds(30))).as(child::describe).isZero();
      }
    }
  }

  /**
   * All of a worker's server sessions terminated at once ({@code pg_terminate_backend}, as an
   * operator or a failover manager does): the worker completes jobs again within {@link
   * #RESUME_BOUND} and logs the outage as a restart's ({@link #checkOutageLog}).
   */
  @Test
  void workerWhoseSessionsAreAllTerminatedResumesAndLogsTheOutageOnce() throws Exception {
    TestDatabase db = TestDatabase.get();
    String schema = db.newMigratedSchema();
    ChildEffects.create(db, schema);
    String node = "terminated-" + ProcessHandle.current().pid();
    List<JobRequest> slow = new ArrayList<>();
    for (int i = 0; i < 4_000; i++) { // 50 ms each on 4 slots: longer than the test
      slow.add(
          JobRequest.of(
              new ChildJob("slow"), EnqueueOptions.builder().queue(ChildJob.QUEUE).build()));
    }
    try (HikariDataSource ds = db.dataSource(4);
        Baton client =
            Baton.builder(ds)
                .config(BatonConfig.builder().schema(schema).allowUnknownKinds(true).build())
                .build();
        ChildProcess child =
            ChildProcess.start(db.jdbcUrl(), schema, node, "hold", BatonConfig.DEFAULT_LEASE, 4)) {
      client.enqueueMany(slow);
      await("child works")
          .atMost(Duration.ofSeconds(60))
          .until(() -> child.line("started job").isPresent());

      int logBefore = child.stderr().length();
      long terminated =
          db.queryLong(
              "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                  + " WHERE application_name = '"
                  + node
                  + "'");
      long at = System.nanoTime();
      String done =
          "SELECT count(*) FROM " + schema + ".job WHERE state = 'completed' AND finalized_at > ";
      String since = "'" + java.time.OffsetDateTime.now() + "'::timestamptz";
      await("a completion after the sessions were terminated")
          .atMost(RESUME_BOUND)
          .pollInterval(Duration.ofMillis(20))
          .until(() -> db.queryLong(done + since) > 0);
      System.out.printf(
          "terminated: %d sessions; first completion %d ms after%n",
          terminated, Duration.ofNanos(System.nanoTime() - at).toMillis());
      assertThat(terminated).as("sessions of the worker terminated").isGreaterThanOrEqualTo(2);

      await("the child logs the outage's end")
          .atMost(Duration.ofSeconds(30))
          .until(() -> child.stderr().contains("database reachable again"));
      Thread.sleep(1_000); // lines a late borrower of a dead connection would add
      checkOutageLog("terminated sessions", child.stderr().substring(logBefore));
      child.send("stop");
      assertThat(child.awaitExit(Duration.ofSeconds(30))).as(child::describe).isZero();
    }
  }

  /**
   * The log records an outage may write (docs/operations/pooling.md, "Pool settings"): Baton's one
   * WARN {@code database unreachable} and one INFO {@code database reachable again}, and HikariCP's
   * one record per pooled connection the outage broke ({@code marked as broken}, with its stack
   * trace, for a connection in use; {@code Failed to validate connection} for an idle one): at most
   * the child's pool of {@value #CHILD_POOL}. A handler that uses the database fails meanwhile, and
   * each failed attempt is logged by {@code dev.baton.failures} with its stack trace, at most
   * {@value #FAILURE_LINES} records for the child's one kind (docs/operations/logging.md). No other
   * record, and no stack trace but theirs.
   */
  private static void checkOutageLog(String outage, String log) {
    Pattern record =
        Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\[[^]]+\\] (\\w+) (\\S+) - .*");
    int baton = 0;
    int hikari = 0;
    int failures = 0;
    List<String> others = new ArrayList<>();
    boolean traced = false; // in the stack trace of a HikariCP or failed-attempt record
    for (String line : log.lines().filter(l -> !l.isBlank()).toList()) {
      Matcher m = record.matcher(line);
      if (!m.matches()) {
        if (!traced) {
          others.add(line); // a stack trace of Baton's, or output of no logger
        }
        continue;
      }
      boolean inHikari = m.group(2).startsWith("com.zaxxer.hikari.");
      boolean failure = m.group(2).equals("dev.baton.failures");
      traced = inHikari || failure;
      if (inHikari) {
        hikari++;
      } else if (failure) {
        failures++;
      } else if (line.contains("database unreachable")
          || line.contains("database reachable again")) {
        baton++;
      } else {
        others.add(line);
      }
    }
    System.out.printf(
        "%s: %d lines, %d records of Baton's, %d of HikariCP, %d failed attempts%n",
        outage, log.lines().count(), baton, hikari, failures);
    assertThat(occurrences(log, "database unreachable"))
        .as("outage start lines in\n%s", log)
        .isEqualTo(1);
    assertThat(occurrences(log, "database reachable again"))
        .as("outage end lines in\n%s", log)
        .isEqualTo(1);
    assertThat(others).as("other lines of the %s in\n%s", outage, log).isEmpty();
    assertThat(hikari)
        .as("HikariCP's records of the %s in\n%s", outage, log)
        .isLessThanOrEqualTo(CHILD_POOL);
    assertThat(failures)
        .as("failed attempts logged in the %s in\n%s", outage, log)
        .isLessThanOrEqualTo(FAILURE_LINES);
  }

  private static HikariDataSource pool(String url) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(url);
    cfg.setMaximumPoolSize(4);
    cfg.setMinimumIdle(0);
    cfg.setPoolName("restart-test");
    return new HikariDataSource(cfg);
  }

  /** A count on a connection of its own (the server may have just restarted), or -1. */
  private static long countOrMinusOne(String url, String sql) {
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      return -1;
    }
  }

  private static int occurrences(String text, String part) {
    int n = 0;
    for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + part.length())) {
      n++;
    }
    return n;
  }

  private static Instant leaseEnd(TestDatabase db, String schema, long id) {
    return Instant.ofEpochMilli(
        db.queryLong(
            "SELECT (extract(epoch FROM lease_expires_at) * 1000)::bigint FROM "
                + schema
                + ".job WHERE id = "
                + id));
  }
}
