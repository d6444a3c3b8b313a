package dev.baton.test;

import dev.baton.migrate.Migrator;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The PostgreSQL server of a test JVM: the one {@code BATON_TEST_DATABASE_URL} names when that
 * environment variable is set (a JDBC URL with user and password as parameters, e.g. {@code
 * jdbc:postgresql://127.0.0.1:5432/test?user=postgres}), else an embedded PostgreSQL started on
 * first use and stopped when the JVM exits. Each {@link #newSchema()} is a fresh, migrated schema
 * of its own, so test classes never see each other's jobs.
 *
 * <p>Thread-safe. {@link BatonExtension} uses it; tests outside JUnit may use it directly.
 */
public final class TestDatabase {

  /** The environment variable naming a server to use instead of an embedded one. */
  public static final String URL_VARIABLE = "BATON_TEST_DATABASE_URL";

  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static TestDatabase instance; // guarded by TestDatabase.class

  private final String jdbcUrl;
  private final PGSimpleDataSource dataSource;

  private TestDatabase(String jdbcUrl) {
    this.jdbcUrl = jdbcUrl;
    this.dataSource = new PGSimpleDataSource();
    this.dataSource.setURL(jdbcUrl);
  }

  /**
   * The server, started on first use.
   *
   * @throws IllegalStateException if the embedded server cannot start
   */
  public static synchronized TestDatabase get() {
    if (instance == null) {
      instance = new TestDatabase(startServer());
    }
    return instance;
  }

  private static String startServer() {
    String url = System.getenv(URL_VARIABLE);
    if (url != null && !url.isBlank()) {
      return url;
    }
    try {
      EmbeddedPostgres pg =
          EmbeddedPostgres.builder()
              .setServerConfig("fsync", "off")
              .setServerConfig("synchronous_commit", "off")
              .start();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> closeQuietly(pg)));
      return pg.getJdbcUrl("postgres", "postgres");
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot start an embedded PostgreSQL for Baton's tests: "
              + e.getMessage()
              + "; set "
              + URL_VARIABLE
              + " to the JDBC URL of a test server instead (initdb refuses to run as root: run"
              + " the build as another user, or use a server)",
          e);
    }
  }

  private static void closeQuietly(EmbeddedPostgres pg) {
    try {
      pg.close();
    } catch (Exception e) {
      // the JVM is exiting; nothing is left to clean up for
    }
  }

  /** The server's JDBC URL, with user and password. */
  public String jdbcUrl() {
    return jdbcUrl;
  }

  /**
   * A data source on the server: each connection is a new session (no pool), in autocommit, with
   * the server's default search path.
   */
  public DataSource dataSource() {
    return dataSource;
  }

  /** A new schema with a name unique to this JVM, migrated to the latest version. */
  public TestSchema newSchema() {
    String name = newSchemaName();
    new Migrator(dataSource, name).up();
    return new TestSchema(name, dataSource, jdbcUrl);
  }

  /** A schema name unique to this JVM, {@code baton_test_<pid>_<n>}; nothing is created. */
  static String newSchemaName() {
    return "baton_test_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
  }

  /** Drops {@code schema} and everything in it. */
  public void drop(TestSchema schema) {
    drop(dataSource, schema.name());
  }

  /** Drops schema {@code name}, one {@link #newSchemaName()} made, on {@code dataSource}. */
  static void drop(DataSource dataSource, String name) {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement()) {
      // The name is one this class made: letters, digits and underscores only.
      st.execute("DROP SCHEMA IF EXISTS \"" + name + "\" CASCADE");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot drop test schema " + name, e);
    }
  }
}
