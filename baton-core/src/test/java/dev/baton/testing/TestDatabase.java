package dev.baton.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.migrate.Migrator;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The PostgreSQL server of this test JVM: {@code BATON_TEST_DATABASE_URL} when set (a JDBC URL with
 * user and password as parameters), else an embedded PostgreSQL started once per JVM. Each test
 * class takes a fresh schema, so classes never see each other's jobs.
 */
public final class TestDatabase {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static volatile TestDatabase instance;

  private final String jdbcUrl;
  private final EmbeddedPostgres embedded;
  private final HikariDataSource admin;

  private TestDatabase(String jdbcUrl, EmbeddedPostgres embedded) {
    this.jdbcUrl = jdbcUrl;
    this.embedded = embedded;
    this.admin = pool(jdbcUrl, 4, "test-admin");
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
      return new TestDatabase(url, null);
    }
    try {
      EmbeddedPostgres pg =
          EmbeddedPostgres.builder()
              .setServerConfig("max_connections", "400")
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
      return new TestDatabase(pg.getJdbcUrl("postgres", "postgres"), pg);
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot start embedded PostgreSQL; set BATON_TEST_DATABASE_URL to a JDBC URL of a test"
              + " server instead (if the error says 'initdb: cannot be run as root', run the build"
              + " as a non-root user)",
          e);
    }
  }

  /** The JDBC URL, for child processes. */
  public String jdbcUrl() {
    return jdbcUrl;
  }

  /** The JDBC URL with its user and password replaced, to connect as another role. */
  public String jdbcUrlAs(String user, String password) {
    int q = jdbcUrl.indexOf('?');
    java.util.List<String> params = new java.util.ArrayList<>();
    if (q >= 0) {
      for (String p : jdbcUrl.substring(q + 1).split("&")) {
        if (!p.isEmpty() && !p.startsWith("user=") && !p.startsWith("password=")) {
          params.add(p);
        }
      }
    }
    params.add("user=" + user);
    params.add("password=" + password);
    return (q < 0 ? jdbcUrl : jdbcUrl.substring(0, q)) + "?" + String.join("&", params);
  }

  /** Whether this is the embedded server (which a test may restart). */
  public boolean embedded() {
    return embedded != null;
  }

  /** A connection pool of {@code size} connections. Close it when done. */
  public HikariDataSource dataSource(int size) {
    return pool(jdbcUrl, size, "test-pool");
  }

  /** A pool whose connections show {@code applicationName} in pg_stat_activity. */
  public HikariDataSource dataSource(int size, String applicationName) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(jdbcUrl);
    cfg.setMaximumPoolSize(size);
    cfg.setMinimumIdle(0);
    cfg.setPoolName(applicationName);
    cfg.addDataSourceProperty("ApplicationName", applicationName);
    return new HikariDataSource(cfg);
  }

  /** A small shared pool for test bookkeeping queries. */
  public DataSource admin() {
    return admin;
  }

  /** A new, empty, migrated schema with a unique name. */
  public String newMigratedSchema() {
    String schema = newSchemaName();
    new Migrator(admin, schema).up();
    return schema;
  }

  /** A unique schema name, not created. */
  public String newSchemaName() {
    return "t" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
  }

  /** Runs {@code sql} on the admin pool. */
  public void execute(String sql) {
    try (Connection c = admin.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("test SQL failed: " + sql, e);
    }
  }

  /** A long from a one-row, one-column query on the admin pool. */
  public long queryLong(String sql) {
    try (Connection c = admin.getConnection();
        Statement st = c.createStatement();
        var rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("test SQL failed: " + sql, e);
    }
  }

  /** A string from a one-row, one-column query on the admin pool. */
  public String queryString(String sql) {
    try (Connection c = admin.getConnection();
        Statement st = c.createStatement();
        var rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    } catch (SQLException e) {
      throw new IllegalStateException("test SQL failed: " + sql, e);
    }
  }

  private static HikariDataSource pool(String url, int size, String name) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(url);
    cfg.setMaximumPoolSize(size);
    cfg.setMinimumIdle(0);
    cfg.setPoolName(name);
    cfg.setConnectionTimeout(30_000);
    return new HikariDataSource(cfg);
  }
}
