package dev.baton.cli.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.migrate.Migrator;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The PostgreSQL server of one benchmark process: the one at {@code --database-url}, else an
 * embedded server (zonky) started for this process and stopped at {@link #close()}.
 *
 * <p>The embedded server runs with PostgreSQL's own durability defaults: {@code fsync} and {@code
 * synchronous_commit} on. zonky turns {@code synchronous_commit} off unless told otherwise, which
 * would hide the cost of every commit (the main cost of a queue) and make the figures incomparable
 * with a real server; it is set back to {@code on} here.
 *
 * <p>Each run gets a schema of its own, migrated with {@link Migrator#up()} and dropped at the end
 * unless asked to keep it.
 */
public final class BenchDatabase implements AutoCloseable {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();

  private final String jdbcUrl;
  private final EmbeddedPostgres embedded;
  private final boolean keepSchemas;
  private final List<String> schemas = new ArrayList<>();

  private BenchDatabase(String jdbcUrl, EmbeddedPostgres embedded, boolean keepSchemas) {
    this.jdbcUrl = jdbcUrl;
    this.embedded = embedded;
    this.keepSchemas = keepSchemas;
  }

  /** The server at {@code url}, or an embedded one when {@code url} is null. */
  public static BenchDatabase open(String url, boolean keepSchemas) throws IOException {
    return open(url, keepSchemas, Map.of());
  }

  /**
   * The server at {@code url}, or an embedded one when {@code url} is null, started with {@code
   * serverConfig} on top of the durability defaults (e.g. {@code shared_preload_libraries}).
   */
  public static BenchDatabase open(
      String url, boolean keepSchemas, Map<String, String> serverConfig) throws IOException {
    if (url != null) {
      return new BenchDatabase(url, null, keepSchemas);
    }
    EmbeddedPostgres.Builder b =
        EmbeddedPostgres.builder()
            // PostgreSQL's defaults, which zonky changes: commits wait for the WAL flush.
            .setServerConfig("synchronous_commit", "on")
            .setServerConfig("fsync", "on")
            .setServerConfig("full_page_writes", "on");
    serverConfig.forEach(b::setServerConfig);
    EmbeddedPostgres pg = b.start();
    return new BenchDatabase(pg.getJdbcUrl("postgres", "postgres"), pg, keepSchemas);
  }

  /** The JDBC URL of the server. */
  public String jdbcUrl() {
    return jdbcUrl;
  }

  /** Whether this is an embedded server started by this process. */
  public boolean embedded() {
    return embedded != null;
  }

  /** A HikariCP pool of at most {@code size} connections, named {@code name}. */
  public HikariDataSource pool(String name, int size) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(jdbcUrl);
    cfg.setPoolName(name);
    cfg.setMaximumPoolSize(size);
    // Connections are opened on demand beyond a few: the handlers of this benchmark do not use the
    // database, and a shared server should not see dozens of idle sessions per run.
    cfg.setMinimumIdle(Math.min(size, 8));
    cfg.setConnectionTimeout(30_000);
    return new HikariDataSource(cfg);
  }

  /** A plain connection outside any pool, for the benchmark's own bookkeeping queries. */
  public Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl);
  }

  /** A new schema, migrated to the latest version, named after {@code label}. */
  public String newMigratedSchema(HikariDataSource ds, String label) {
    String schema =
        ("bench_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet() + "_" + label)
            .toLowerCase(java.util.Locale.ROOT)
            .replaceAll("[^a-z0-9_]", "_");
    if (schema.length() > 63) {
      schema = schema.substring(0, 63);
    }
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot drop old schema " + schema, e);
    }
    new Migrator(ds, schema).up();
    schemas.add(schema);
    return schema;
  }

  /** The server version and the settings that decide commit cost, for the figures block. */
  public Map<String, String> describe() {
    Map<String, String> out = new LinkedHashMap<>();
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      try (ResultSet rs = st.executeQuery("SHOW server_version")) {
        rs.next();
        out.put("server_version", rs.getString(1));
      }
      try (ResultSet rs =
          st.executeQuery(
              "SELECT name, current_setting(name) FROM pg_settings WHERE name IN ('fsync',"
                  + " 'synchronous_commit', 'full_page_writes', 'wal_sync_method', 'autovacuum',"
                  + " 'shared_buffers', 'max_connections') ORDER BY name")) {
        while (rs.next()) {
          out.put(rs.getString(1), rs.getString(2));
        }
      }
    } catch (SQLException e) {
      out.put("error", e.getMessage());
    }
    return out;
  }

  /** One long from a one-row query on {@code c}. */
  public static long queryLong(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Job counts by state in {@code schema}, e.g. {@code completed=20000 available=3}. */
  public static String stateCounts(Connection c, String schema) throws SQLException {
    StringBuilder sb = new StringBuilder();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT state, count(*) FROM " + schema + ".job GROUP BY state ORDER BY state")) {
      while (rs.next()) {
        if (sb.length() > 0) {
          sb.append(' ');
        }
        sb.append(rs.getString(1)).append('=').append(rs.getLong(2));
      }
    }
    return sb.length() == 0 ? "(no jobs)" : sb.toString();
  }

  /** Drops the schemas this process created (unless kept), then stops an embedded server. */
  @Override
  public void close() {
    if (!keepSchemas && !schemas.isEmpty()) {
      try (Connection c = connect();
          Statement st = c.createStatement()) {
        for (String s : schemas) {
          st.execute("DROP SCHEMA IF EXISTS " + s + " CASCADE");
        }
      } catch (SQLException e) {
        System.err.println("[bench] cannot drop benchmark schemas " + schemas + ": " + e);
      }
    }
    if (embedded != null) {
      try {
        embedded.close();
      } catch (IOException e) {
        System.err.println("[bench] cannot stop embedded PostgreSQL: " + e);
      }
    }
  }
}
