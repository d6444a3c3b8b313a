package dev.baton.test.example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.EnqueueOptions;
import dev.baton.JobArgs;
import dev.baton.migrate.Migrator;
import dev.baton.test.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

// The Usage section of README.md: the text between the docs markers below is quoted there
// verbatim (DocSnippetsAreCompiledTest), and runs here as written: on schema "baton" of the test
// database, with the order and outbox tables of a small shop beside it.
class ReadmeUsageTest {

  record Order(String email) {}

  private final HikariConfig hikariConfig = new HikariConfig();
  private final Order order = new Order("ada@example.com");

  @BeforeEach
  void shop() throws SQLException {
    hikariConfig.setJdbcUrl(TestDatabase.get().jdbcUrl());
    hikariConfig.setMaximumPoolSize(12);
    dropAndCreate(
        "CREATE SCHEMA readme_shop",
        "CREATE TABLE readme_shop.orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
            + " email text NOT NULL)",
        "CREATE TABLE readme_shop.outbox (idempotency_key text PRIMARY KEY, email text NOT NULL)");
  }

  @AfterEach
  void dropShop() throws SQLException {
    dropAndCreate();
  }

  @Test
  void theUsageSectionRunsAsWritten() throws Exception {
    // docs:begin readme-usage
    // The args of one kind of job: a record, stored as JSON. Its kind is "send_email"
    // (the class name in snake case, or the value of @JobKind).
    record SendEmail(long orderId, String to) implements JobArgs {}

    DataSource dataSource = new HikariDataSource(hikariConfig); // any pooled DataSource

    // Once per deploy, by a role that may run DDL: creates or upgrades the tables.
    new Migrator(dataSource, "baton").up();

    // A client that works the "mail" queue, at most 8 jobs at once on this node.
    Baton baton =
        Baton.builder(dataSource)
            .config(BatonConfig.builder().schema("baton").queue("mail", 8).build())
            .handler(
                SendEmail.class,
                (ctx, email) -> {
                  try (Connection c = dataSource.getConnection()) {
                    c.setAutoCommit(false);
                    insertIntoOutbox(c, email, ctx.idempotencyKey()); // your write
                    ctx.completeIn(c); // completes the job in this transaction, fence-checked
                    c.commit(); // the write and the completion commit together
                  }
                })
            .build();
    baton.start();

    // Enqueue inside the business transaction, on the same connection.
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      long orderId = insertOrder(c, order);
      baton.enqueue(
          c,
          new SendEmail(orderId, order.email()),
          EnqueueOptions.builder().queue("mail").idempotencyKey("order-email:" + orderId).build());
      c.commit(); // the job exists if and only if the order does
    }

    // docs:end readme-usage
    String sent = awaitOutbox(dataSource);
    // docs:begin readme-usage
    baton.stop(); // graceful: see docs/lifecycle.md
    // docs:end readme-usage
    ((HikariDataSource) dataSource).close();

    assertEquals("order-email:1 SendEmail[orderId=1, to=ada@example.com]", sent);
  }

  /** The handler's write: the job's key and its args (the snippet's local record) as text. */
  private static void insertIntoOutbox(Connection c, Record email, String key) throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO readme_shop.outbox (idempotency_key, email) VALUES (?, ?)")) {
      st.setString(1, key);
      st.setString(2, email.toString());
      st.executeUpdate();
    }
  }

  private static long insertOrder(Connection c, Order order) throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement("INSERT INTO readme_shop.orders (email) VALUES (?) RETURNING id")) {
      st.setString(1, order.email());
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** The outbox's one row as "key email", once the handler has committed it. */
  private static String awaitOutbox(DataSource dataSource) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (Instant.now().isBefore(deadline)) {
      try (Connection c = dataSource.getConnection();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT idempotency_key, email FROM readme_shop.outbox")) {
        if (rs.next()) {
          return rs.getString(1) + " " + rs.getString(2);
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("the handler wrote no outbox row within 30 s");
  }

  /** Drops the shop and Baton's schema "baton", then runs {@code statements}. */
  private static void dropAndCreate(String... statements) throws SQLException {
    try (Connection c = TestDatabase.get().dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS readme_shop CASCADE");
      st.execute("DROP SCHEMA IF EXISTS baton CASCADE");
      for (String sql : statements) {
        st.execute(sql);
      }
    }
  }
}
