package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.admin.BatonAdmin;
import dev.baton.testing.Fixture;
import dev.baton.testing.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.postgresql.util.PSQLException;

/**
 * The SQL function {@code enqueue} does what the Java enqueue does: the same checks with the same
 * messages, the same uniqueness, the same NOTIFY, in the caller's transaction (a trigger included);
 * and a role holding only USAGE on the schema and EXECUTE on the function can call it and touch
 * nothing else.
 */
class EnqueueFromSqlTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** One bad input, as the Java API and as SQL (named arguments of {@code enqueue}). */
  record BadInput(String name, Supplier<Object> java, String sqlArguments) {}

  private static List<BadInput> badInputs(BatonAdmin admin) {
    List<BadInput> out = new ArrayList<>();
    out.add(
        new BadInput(
            "kind",
            () -> admin.enqueue("no spaces", json("{}"), EnqueueOptions.defaults()),
            "'no spaces'"));
    out.add(
        new BadInput(
            "args not an object",
            () -> admin.enqueue("k", json("[1, 2]"), EnqueueOptions.defaults()),
            "'k', '[1, 2]'"));
    out.add(
        new BadInput("queue", () -> EnqueueOptions.builder().queue("-q"), "'k', queue => '-q'"));
    out.add(
        new BadInput(
            "priority", () -> EnqueueOptions.builder().priority(12), "'k', priority => 12"));
    out.add(
        new BadInput(
            "max attempts",
            () -> EnqueueOptions.builder().maxAttempts(0),
            "'k', max_attempts => 0"));
    out.add(
        new BadInput(
            "blank key",
            () -> EnqueueOptions.builder().idempotencyKey("  "),
            "'k', idempotency_key => '  '"));
    out.add(
        new BadInput(
            "long key",
            () -> EnqueueOptions.builder().idempotencyKey("x".repeat(256)),
            "'k', idempotency_key => repeat('x', 256)"));
    out.add(
        new BadInput(
            "unique states",
            () ->
                UniqueOptions.byArgs()
                    .states(EnumSet.of(JobState.SCHEDULED, JobState.AVAILABLE, JobState.RUNNING)),
            "'k', unique_by => 'args', unique_states => '{scheduled,available,running}'"));
    out.add(
        new BadInput(
            "debounce with a run time",
            () ->
                EnqueueOptions.builder()
                    .runAt(java.time.Instant.now().plusSeconds(60))
                    .unique(UniqueOptions.byKind().debounce(Duration.ofSeconds(5)).build())
                    .build(),
            "'k', run_at => now() + interval '1 minute', unique_by => 'kind',"
                + " debounce => interval '5 seconds'"));
    out.add(
        new BadInput(
            "key with replace",
            () ->
                EnqueueOptions.builder()
                    .idempotencyKey("key")
                    .unique(UniqueOptions.byKind().replace(UniqueOptions.Replace.ARGS).build())
                    .build(),
            "'k', idempotency_key => 'key', unique_by => 'kind', replace => '{args}'"));
    return out;
  }

  @Test
  void theSameBadInputsGetTheSameMessagesFromSqlAsFromJava() throws Exception {
    try (Fixture f = new Fixture();
        Connection c = f.dataSource().getConnection()) {
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      Map<String, String> java = new LinkedHashMap<>();
      Map<String, String> sql = new LinkedHashMap<>();
      for (BadInput bad : badInputs(admin)) {
        Throwable j = catchThrowable(() -> bad.java().get());
        assertThat(j).as(bad.name()).isInstanceOf(InvalidJobException.class);
        java.put(bad.name(), j.getMessage());
        Throwable s =
            catchThrowable(
                () -> {
                  try (Statement st = c.createStatement()) {
                    st.executeQuery(
                            "SELECT * FROM " + f.schema() + ".enqueue(" + bad.sqlArguments() + ")")
                        .close();
                  }
                });
        assertThat(s).as(bad.name()).isInstanceOf(PSQLException.class);
        PSQLException e = (PSQLException) s;
        assertThat(e.getSQLState()).as(bad.name()).isEqualTo("22023");
        sql.put(bad.name(), e.getServerErrorMessage().getMessage());
      }
      assertThat(sql).isEqualTo(java);
      assertThat(f.count("SELECT count(*) FROM %s.job")).isZero();
    }
  }

  @Test
  void sqlAndJavaEnqueuesOfOneUniqueJobMakeOneJob() throws Exception {
    try (Fixture f = new Fixture();
        Connection c = f.dataSource().getConnection()) {
      record Sync(String customer, int n) implements JobArgs {}
      EnqueueResult fromJava =
          f.reader()
              .enqueue(
                  new Sync("acme", 1),
                  EnqueueOptions.builder()
                      .queue("sync")
                      .unique(UniqueOptions.byFields("customer").perQueue().build())
                      .build());
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT id, existing FROM "
                  + f.schema()
                  + ".enqueue('sync', '{\"n\": 2, \"customer\": \"acme\"}', queue => 'sync',"
                  + " unique_by => 'fields', unique_fields => '{customer}',"
                  + " unique_per_queue => true)")) {
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          assertThat(rs.getLong(1)).isEqualTo(fromJava.id());
          assertThat(rs.getBoolean(2)).isTrue();
        }
      }
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(1);
    }
  }

  @Test
  void aTriggerEnqueuesInTheTransactionOfTheInsertAndItsQueueIsNotifiedAtCommit() throws Exception {
    try (Fixture f = new Fixture()) {
      String s = f.schema();
      f.execute("CREATE TABLE %s.orders (id bigint PRIMARY KEY, email text NOT NULL)");
      f.execute(
          """
          CREATE FUNCTION %s.orders_enqueue_receipt() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            PERFORM %s.enqueue('send_receipt', jsonb_build_object('order', NEW.id, 'to', NEW.email),
                               queue => 'mail', unique_by => 'args');
            RETURN NEW;
          END $$""");
      f.execute(
          "CREATE TRIGGER orders_receipt AFTER INSERT ON %s.orders"
              + " FOR EACH ROW EXECUTE FUNCTION %s.orders_enqueue_receipt()");
      try (Connection listener = f.dataSource().getConnection();
          Connection c = f.dataSource().getConnection()) {
        try (Statement st = listener.createStatement()) {
          st.execute("LISTEN " + s + "_insert");
        }
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
          st.execute("INSERT INTO " + s + ".orders VALUES (1, 'a@example.com')");
          c.rollback();
          assertThat(f.count("SELECT count(*) FROM %s.job")).isZero();
          st.execute("INSERT INTO " + s + ".orders VALUES (2, 'b@example.com')");
          assertThat(notifications(listener, 200)).isEmpty(); // not before commit
          c.commit();
        }
        assertThat(notifications(listener, 5_000)).containsExactly("mail");
      }
      assertThat(f.count("SELECT count(*) FROM %s.job WHERE kind = 'send_receipt'")).isEqualTo(1);
      Job job = f.job(f.count("SELECT id FROM %s.job WHERE kind = 'send_receipt'"));
      assertThat(job.args().path("order").asLong()).isEqualTo(2);
      assertThat(job.queue()).isEqualTo("mail");
      assertThat(job.state()).isEqualTo(JobState.AVAILABLE);
    }
  }

  @Test
  void aRoleWithOnlyTheDocumentedGrantsCanEnqueueAndTouchNothingElse() throws Exception {
    TestDatabase db = TestDatabase.get();
    assumeTrue(
        db.queryLong(
                "SELECT (rolsuper OR rolcreaterole)::int FROM pg_roles WHERE rolname = current_user")
            == 1,
        "the test database user may not create roles");
    try (Fixture f = new Fixture()) {
      String s = f.schema();
      String role = "baton_sql_" + ProcessHandle.current().pid();
      String password = "pw-" + UUID.randomUUID();
      db.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "'");
      try {
        // the grants docs/enqueue-from-sql.md documents, and nothing more
        db.execute("GRANT USAGE ON SCHEMA " + s + " TO " + role);
        db.execute("GRANT EXECUTE ON FUNCTION " + s + ".enqueue TO " + role);
        try (Connection c = DriverManager.getConnection(db.jdbcUrlAs(role, password))) {
          try (Statement st = c.createStatement();
              ResultSet rs =
                  st.executeQuery(
                      "SELECT id, existing FROM "
                          + s
                          + ".enqueue('report', '{\"day\": \"2031-01-01\"}', unique_by => 'args')")) {
            rs.next();
            assertThat(rs.getBoolean(2)).isFalse();
          }
          for (String forbidden :
              List.of(
                  "SELECT count(*) FROM " + s + ".job",
                  "INSERT INTO " + s + ".job (kind) VALUES ('x')",
                  "UPDATE " + s + ".job SET priority = 1",
                  "DELETE FROM " + s + ".job",
                  "SELECT nextval('" + s + ".job_fence_seq')",
                  "SELECT count(*) FROM " + s + ".node",
                  "CREATE TABLE " + s + ".mine (id int)")) {
            assertThatThrownBy(
                    () -> {
                      try (Statement st = c.createStatement()) {
                        st.execute(forbidden);
                      }
                    })
                .as(forbidden)
                .isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("42501"));
          }
        }
        assertThat(f.count("SELECT count(*) FROM %s.job WHERE kind = 'report'")).isEqualTo(1);
        // PUBLIC has no EXECUTE: a role without the grant cannot enqueue
        db.execute("REVOKE EXECUTE ON FUNCTION " + s + ".enqueue FROM " + role);
        try (Connection c = DriverManager.getConnection(db.jdbcUrlAs(role, password));
            Statement st = c.createStatement()) {
          assertThatThrownBy(() -> st.execute("SELECT * FROM " + s + ".enqueue('report')"))
              .isInstanceOf(SQLException.class)
              .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("42501"));
        }
      } finally {
        db.execute("DROP OWNED BY " + role);
        db.execute("DROP ROLE " + role);
      }
    }
  }

  @Test
  void psqlEnqueuesAsDocumented() throws Exception {
    TestDatabase db = TestDatabase.get();
    URI uri = URI.create(db.jdbcUrl().substring("jdbc:".length()));
    Map<String, String> params = new LinkedHashMap<>();
    if (uri.getQuery() != null) {
      for (String p : uri.getQuery().split("&")) {
        int eq = p.indexOf('=');
        if (eq > 0) {
          params.put(p.substring(0, eq), p.substring(eq + 1));
        }
      }
    }
    try (Fixture f = new Fixture()) {
      List<String> cmd =
          List.of(
              "psql",
              "-X",
              "-q",
              "-t",
              "-A",
              "-v",
              "ON_ERROR_STOP=1",
              "-h",
              uri.getHost(),
              "-p",
              Integer.toString(uri.getPort() < 0 ? 5432 : uri.getPort()),
              "-U",
              params.getOrDefault("user", "postgres"),
              "-d",
              uri.getPath().substring(1),
              "-c",
              "SELECT existing FROM "
                  + f.schema()
                  + ".enqueue('send_email', '{\"to\": \"a@example.com\"}', queue => 'mail',"
                  + " unique_by => 'args', unique_period => interval '1 hour')",
              "-c",
              "SELECT existing FROM "
                  + f.schema()
                  + ".enqueue('send_email', '{\"to\":\"a@example.com\"}', queue => 'mail',"
                  + " unique_by => 'args', unique_period => interval '1 hour')");
      Process p;
      try {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (params.containsKey("password")) {
          pb.environment().put("PGPASSWORD", params.get("password"));
        }
        p = pb.start();
      } catch (IOException e) {
        assumeTrue(false, "psql is not on the PATH: " + e.getMessage());
        return;
      }
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as(out).isZero();
      assertThat(out.strip().lines()).containsExactly("f", "t");
      assertThat(f.count("SELECT count(*) FROM %s.job")).isEqualTo(1);
    }
  }

  private static List<String> notifications(Connection listener, int waitMillis)
      throws SQLException {
    List<String> payloads = new ArrayList<>();
    PGNotification[] got = listener.unwrap(PGConnection.class).getNotifications(waitMillis);
    if (got != null) {
      for (PGNotification n : got) {
        payloads.add(n.getParameter());
      }
    }
    return payloads;
  }

  private static JsonNode json(String text) {
    try {
      return MAPPER.readTree(text);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }
}
