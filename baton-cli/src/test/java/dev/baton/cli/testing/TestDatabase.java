package dev.baton.cli.testing;

import dev.baton.migrate.Migrator;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The PostgreSQL server of this test JVM, as in baton-core's tests: {@code BATON_TEST_DATABASE_URL}
 * when set (a JDBC URL with user and password as parameters), else an embedded PostgreSQL started
 * once per JVM. Each test class takes a fresh schema.
 */
public final class TestDatabase {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static volatile TestDatabase instance;

  private final String jdbcUrl;
  private final DataSource dataSource;

  private TestDatabase(String jdbcUrl, DataSource dataSource) {
    this.jdbcUrl = jdbcUrl;
    this.dataSource = dataSource;
  }

  /** The server, started on first use. */
  public static TestDatabase get() {
    TestDatabase db = instance;
    if (db == null) {
      synchronized (TestDatabase.class) {
        db = instance;
        if (db == null) {
          db = start();
          instance = db;
        }
      }
    }
    return db;
  }

  private static TestDatabase start() {
    String url = System.getenv("BATON_TEST_DATABASE_URL");
    if (url != null && !url.isBlank()) {
      return new TestDatabase(url, plain(url));
    }
    try {
      EmbeddedPostgres pg =
          EmbeddedPostgres.builder()
              .setServerConfig("fsync", "off")
              .setServerConfig("synchronous_commit", "off")
              .setServerConfig("full_page_writes", "off")
              .start();
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      pg.close();
                    } catch (Exception ignored) {
                      // the JVM is exiting
                    }
                  }));
      String jdbc = pg.getJdbcUrl("postgres", "postgres");
      return new TestDatabase(jdbc, pg.getPostgresDatabase());
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot start embedded PostgreSQL; set BATON_TEST_DATABASE_URL to a JDBC URL of a test"
              + " server instead",
          e);
    }
  }

  private static DataSource plain(String url) {
    org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource();
    ds.setURL(url);
    return ds;
  }

  /** The JDBC URL, as a user would pass it to --database-url. */
  public String jdbcUrl() {
    return jdbcUrl;
  }

  /** A data source opening a connection per call. */
  public DataSource dataSource() {
    return dataSource;
  }

  /** A unique schema name, not created. */
  public String newSchemaName() {
    return "cli" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
  }

  /** A new, empty, migrated schema with a unique name. */
  public String newMigratedSchema() {
    String schema = newSchemaName();
    new Migrator(dataSource, schema).up();
    return schema;
  }

  /** Runs {@code sql}. */
  public void execute(String sql) {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("test SQL failed: " + sql, e);
    }
  }

  /** A string from a one-row, one-column query (null when no row). */
  public String queryString(String sql) {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    } catch (SQLException e) {
      throw new IllegalStateException("test SQL failed: " + sql, e);
    }
  }

  /** A long from a one-row, one-column query. */
  public long queryLong(String sql) {
    return Long.parseLong(queryString(sql));
  }

  /** A new connection; close it. */
  public Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl);
  }
}
