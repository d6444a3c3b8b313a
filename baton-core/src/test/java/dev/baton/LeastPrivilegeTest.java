package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.internal.db.EnqueueStore;
import dev.baton.migrate.Migrator;
import dev.baton.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * A client works end to end as a role holding only the documented grants (DML on the job table,
 * SELECT on the migration table, USAGE on the schema and the two sequences, EXECUTE on the enqueue
 * function for unique jobs), and that role cannot change the schema.
 */
class LeastPrivilegeTest {
  private static final String QUEUE = "lp";

  record Work(int n) implements JobArgs {}

  record FailOnce(int n) implements JobArgs {}

  record Hold(int n) implements JobArgs {}

  @Test
  void clientWithOnlyDmlGrantsWorksEndToEndAndCannotChangeTheSchema() throws Exception {
    TestDatabase db = TestDatabase.get();
    assumeTrue(
        db.queryLong(
                "SELECT (rolsuper OR rolcreaterole)::int FROM pg_roles WHERE rolname = current_user")
            == 1,
        "the test database user may not create roles");
    String schema = db.newMigratedSchema();
    String s = "\"" + schema + "\"";
    String role = "baton_lp_" + ProcessHandle.current().pid();
    String password = "pw-" + UUID.randomUUID();
    db.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "'");
    try {
      db.execute("GRANT USAGE ON SCHEMA " + s + " TO " + role);
      db.execute(
          "GRANT SELECT, INSERT, UPDATE, DELETE ON "
              + String.join(
                  ", ",
                  s + ".job",
                  s + ".job_archive",
                  s + ".node",
                  s + ".leader",
                  s + ".queue",
                  s + ".queue_start",
                  s + ".periodic",
                  s + ".job_completions",
                  s + ".job_dependency",
                  s + ".job_stat_minute",
                  s + ".job_stat_mark")
              + " TO "
              + role);
      db.execute("GRANT SELECT ON " + s + ".migration, " + s + ".queue_stats TO " + role);
      db.execute(
          "GRANT USAGE, SELECT ON SEQUENCE "
              + s
              + ".job_fence_seq, "
              + s
              + ".job_id_seq, "
              + s
              + ".leader_term_seq TO "
              + role);
      // unique jobs: the client runs them through the schema's SQL function enqueue
      db.execute("GRANT EXECUTE ON FUNCTION " + s + ".enqueue TO " + role);
      // a bulk of unique jobs by COPY stages them in job_staged (COPY, then DELETE ... RETURNING)
      db.execute("GRANT SELECT, INSERT, DELETE ON " + s + ".job_staged TO " + role);

      CountDownLatch holdStarted = new CountDownLatch(1);
      try (HikariDataSource limited = pool(urlAs(db.jdbcUrl(), role, password));
          Baton baton =
              Baton.builder(limited)
                  .config(
                      BatonConfig.builder()
                          .schema(schema)
                          .queue(QUEUE, 4)
                          .lease(Duration.ofSeconds(2))
                          .pollInterval(Duration.ofMillis(200))
                          .maintenanceInterval(Duration.ofMillis(50))
                          .retryPolicy((attempt, error) -> Duration.ofMillis(50))
                          .stopTimeout(Duration.ofSeconds(1))
                          .build())
                  .handler(Work.class, (ctx, args) -> {})
                  .handler(
                      FailOnce.class,
                      (ctx, args) -> {
                        if (ctx.attempt() == 1) {
                          throw new IllegalStateException("first attempt fails on purpose");
                        }
                      })
                  .handler(
                      Hold.class,
                      (ctx, args) -> {
                        holdStarted.countDown();
                        new CountDownLatch(1).await(); // until the cancel interrupts it
                      })
                  .build()) {
        assertThat(queryString(limited, "SELECT current_user")).isEqualTo(role);
        assertThat(
                queryString(
                    limited, "SELECT rolsuper::text FROM pg_roles WHERE rolname = current_user"))
            .isEqualTo("false");

        baton.start();
        EnqueueOptions opts = EnqueueOptions.builder().queue(QUEUE).build();
        List<Long> toComplete = new ArrayList<>();

        // single enqueue, and one holding an idempotency key
        toComplete.add(baton.enqueue(new Work(1), opts).job().id());
        EnqueueOptions keyed =
            EnqueueOptions.builder().queue(QUEUE).idempotencyKey("lp-key").build();
        long keyedId = baton.enqueue(new Work(2), keyed).job().id();
        toComplete.add(keyedId);
        // a repeat of the key reads the existing job
        EnqueueResult repeat = baton.enqueue(new Work(2), keyed);
        assertThat(repeat.existing()).isTrue();
        assertThat(repeat.job().id()).isEqualTo(keyedId);

        // a unique job (in a queue no one works, so that it keeps its key), a repeat of it through
        // the SQL function, and a bulk of repeats by COPY
        EnqueueOptions unique =
            EnqueueOptions.builder()
                .queue("lp-idle")
                .unique(UniqueOptions.byArgs().build())
                .build();
        long uniqueId = baton.enqueue(new Work(7), unique).id();
        assertThat(baton.enqueue(new Work(7), unique).id()).isEqualTo(uniqueId);
        List<JobRequest> uniqueBulk = new ArrayList<>();
        for (int i = 0; i < EnqueueStore.COPY_MIN_JOBS; i++) {
          uniqueBulk.add(JobRequest.of(new Work(7), unique));
        }
        assertThat(baton.enqueueMany(uniqueBulk).jobIds()).containsOnly(uniqueId);

        // enqueue in the caller's transaction
        try (Connection c = limited.getConnection()) {
          c.setAutoCommit(false);
          toComplete.add(baton.enqueue(c, new Work(3), opts).job().id());
          c.commit();
        }

        // bulk enqueue (draws ids from the identity sequence), one request repeating a key
        EnqueueManyResult many =
            baton.enqueueMany(
                List.of(
                    JobRequest.of(new Work(4), opts),
                    JobRequest.of(new Work(5), opts),
                    JobRequest.of(new FailOnce(6), opts),
                    JobRequest.of(new Work(2), keyed)));
        assertThat(many.existing()).containsExactly(false, false, false, true);
        assertThat(many.jobIds()[3]).isEqualTo(keyedId);
        for (int i = 0; i < 3; i++) {
          toComplete.add(many.jobIds()[i]);
        }
        // a bulk large enough to go by COPY (the role needs INSERT on the columns, USAGE on the
        // identity sequence)
        EnqueueManyResult copied =
            baton.enqueueMany(
                java.util.Collections.nCopies(
                    EnqueueStore.COPY_MIN_JOBS, JobRequest.of(new Work(8), opts)));
        assertThat(copied.insertedCount()).isEqualTo(EnqueueStore.COPY_MIN_JOBS);
        for (long id : copied.jobIds()) {
          toComplete.add(id);
        }

        // a workflow: its edges are written to job_dependency, and the first step's finish
        // releases the second through them
        EnqueuedWorkflow flow =
            baton.enqueueWorkflow(
                Workflow.builder()
                    .step("first", new Work(10), opts)
                    .step("then", new Work(11), opts, "first")
                    .build());
        toComplete.add(flow.id("first"));
        toComplete.add(flow.id("then"));

        await("jobs enqueued by the limited role complete")
            .atMost(Duration.ofSeconds(20))
            .until(
                () -> toComplete.stream().allMatch(id -> state(baton, id) == JobState.COMPLETED));
        assertThat(baton.job(many.jobIds()[2]).orElseThrow().attempt())
            .as("FailOnce retried")
            .isEqualTo(2);

        // cancel a waiting job and a running one
        long waiting =
            baton
                .enqueue(
                    new Work(7),
                    EnqueueOptions.builder()
                        .queue(QUEUE)
                        .runAt(Instant.now().plusSeconds(3600))
                        .build())
                .job()
                .id();
        assertThat(baton.cancel(waiting)).contains(JobState.CANCELLED);
        assertThat(state(baton, waiting)).isEqualTo(JobState.CANCELLED);
        long running = baton.enqueue(new Hold(8), opts).job().id();
        await("hold job runs")
            .atMost(Duration.ofSeconds(10))
            .until(() -> holdStarted.getCount() == 0);
        assertThat(baton.cancel(running)).contains(JobState.RUNNING);
        await("running job is cancelled")
            .atMost(Duration.ofSeconds(10))
            .until(() -> state(baton, running) == JobState.CANCELLED);

        // a rescue pass: a job whose holder (a node that never heartbeats again) let the lease
        // expire
        long orphan =
            baton
                .enqueue(
                    new Work(9),
                    EnqueueOptions.builder()
                        .queue(QUEUE)
                        .runAt(Instant.now().plusSeconds(3600))
                        .build())
                .job()
                .id();
        db.execute(
            "UPDATE "
                + s
                + ".job SET state = 'running', attempt = 1, attempted_at = now() - interval '10 s',"
                + " attempted_by = 'ghost-node', lease_expires_at = now() - interval '1 s',"
                + " fence = nextval('"
                + s
                + ".job_fence_seq') WHERE id = "
                + orphan);
        await("orphaned job is rescued and completed")
            .atMost(Duration.ofSeconds(10))
            .until(() -> state(baton, orphan) == JobState.COMPLETED);
        Job rescued = baton.job(orphan).orElseThrow();
        assertThat(rescued.attempt()).as("the rescue gave the attempt back").isEqualTo(1);
        assertThat(rescued.errors()).hasSize(1);
        assertThat(rescued.errors().get(0).message())
            .startsWith("lease expired on node ghost-node ");
        assertThat(baton.counters().rescued()).isEqualTo(1);
        assertThat(baton.counters().fenced()).isZero();

        // no DDL for this role
        assertPermissionDenied(limited, "CREATE TABLE " + s + ".x (id int)");
        assertPermissionDenied(limited, "DROP TABLE " + s + ".job");
        assertPermissionDenied(limited, "ALTER TABLE " + s + ".job ADD COLUMN y int");
        assertPermissionDenied(limited, "TRUNCATE " + s + ".job");
        assertPermissionDenied(limited, "CREATE SEQUENCE " + s + ".y_seq");
        assertThatThrownBy(() -> new Migrator(limited, schema).down())
            .isInstanceOf(BatonException.class)
            .hasRootCauseInstanceOf(SQLException.class)
            .satisfies(
                e -> assertThat(((SQLException) rootCause(e)).getSQLState()).isEqualTo("42501"));
        assertThat(db.queryLong("SELECT count(*) FROM " + s + ".job"))
            .isEqualTo(toComplete.size() + 4);

        // a limit per key set by this role holds without its key index, which only the owner
        // may build; the claim ranks the backlog meanwhile
        new dev.baton.admin.BatonAdmin(limited, schema)
            .limitConcurrencyPerKey("lp-keyed", "customer", 1, "test");
        assertThat(db.queryLong("SELECT key_limit FROM " + s + ".queue WHERE name = 'lp-keyed'"))
            .isEqualTo(1);
        assertThat(
                db.queryLong(
                    "SELECT count(*) FROM pg_indexes WHERE schemaname = '"
                        + schema
                        + "' AND indexname LIKE 'job\\_key\\_%'"))
            .isZero();
      }

      // a client that keeps no completed rows deletes them and counts them in job_completions
      try (HikariDataSource limited = pool(urlAs(db.jdbcUrl(), role, password));
          Baton deleting =
              Baton.builder(limited)
                  .config(
                      BatonConfig.builder()
                          .schema(schema)
                          .queue("deleting", 4)
                          .completedRetention(Duration.ZERO)
                          .maintenanceInterval(Duration.ofMillis(50))
                          .cleanInterval(Duration.ofMillis(50))
                          .build())
                  .handler(Work.class, (ctx, args) -> {})
                  .build()) {
        deleting.start();
        EnqueueOptions opts = EnqueueOptions.builder().queue("deleting").build();
        deleting.enqueue(new Work(10), opts);
        deleting.enqueueMany(
            java.util.Collections.nCopies(
                EnqueueStore.COPY_MIN_JOBS, JobRequest.of(new Work(11), opts)));
        int total = EnqueueStore.COPY_MIN_JOBS + 1;
        await("jobs of a client that keeps no completed rows complete")
            .atMost(Duration.ofSeconds(20))
            .until(() -> deleting.counters().completed() == total);
        assertThat(db.queryLong("SELECT count(*) FROM " + s + ".job WHERE queue = 'deleting'"))
            .isZero();
        assertThat(
                db.queryLong(
                    "SELECT sum(n) FROM " + s + ".job_completions WHERE queue = 'deleting'"))
            .isEqualTo(total);
      }
    } finally {
      db.execute("DROP OWNED BY " + role);
      db.execute("DROP ROLE " + role);
    }
  }

  private static JobState state(Baton baton, long id) {
    return baton.job(id).orElseThrow().state();
  }

  private static void assertPermissionDenied(HikariDataSource ds, String sql) {
    Throwable thrown =
        catchThrowable(
            () -> {
              try (Connection c = ds.getConnection();
                  Statement st = c.createStatement()) {
                st.execute(sql);
              }
            });
    assertThat(thrown)
        .as("%s as the least-privileged role", sql)
        .isInstanceOfSatisfying(
            SQLException.class,
            e -> assertThat(e.getSQLState()).as(sql + ": " + e.getMessage()).isEqualTo("42501"));
  }

  private static Throwable rootCause(Throwable t) {
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  private static String queryString(HikariDataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** {@code url} with its user and password replaced. */
  private static String urlAs(String url, String user, String password) {
    int q = url.indexOf('?');
    List<String> params = new ArrayList<>();
    if (q >= 0) {
      for (String p : url.substring(q + 1).split("&")) {
        if (!p.isEmpty() && !p.startsWith("user=") && !p.startsWith("password=")) {
          params.add(p);
        }
      }
    }
    params.add("user=" + user);
    params.add("password=" + password);
    return (q < 0 ? url : url.substring(0, q)) + "?" + String.join("&", params);
  }

  private static HikariDataSource pool(String url) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(url);
    cfg.setMaximumPoolSize(8);
    cfg.setMinimumIdle(0);
    cfg.setPoolName("baton-test-least-privilege");
    return new HikariDataSource(cfg);
  }
}
