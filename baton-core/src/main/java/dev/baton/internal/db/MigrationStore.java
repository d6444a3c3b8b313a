package dev.baton.internal.db;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The migration bookkeeping table and the advisory lock that serialises migrators.
 *
 * <p>Not public API.
 */
public final class MigrationStore {

  private static final String CREATE_SCHEMA = "CREATE SCHEMA IF NOT EXISTS ${schema}";

  // One row per applied version of one line of migrations ("queue", "inbox").
  private static final String CREATE_TABLE =
      """
      CREATE TABLE IF NOT EXISTS ${schema}.migration (
          line       text        NOT NULL,
          version    integer     NOT NULL,
          name       text        NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (line, version)
      )
      """;

  // Held to the end of the migrating transaction; two migrators of one schema run one at a time.
  private static final String LOCK = "SELECT pg_advisory_xact_lock(?)";

  private static final String TABLE_EXISTS = "SELECT to_regclass(?) IS NOT NULL";

  private static final String SCHEMA_EXISTS =
      "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = ?)";

  private static final String APPLIED =
      "SELECT version FROM ${schema}.migration WHERE line = ? ORDER BY version";

  private static final String RECORD =
      "INSERT INTO ${schema}.migration (line, version, name) VALUES (?, ?, ?)";

  private static final String UNRECORD =
      "DELETE FROM ${schema}.migration WHERE line = ? AND version = ?";

  private final SchemaName schema;

  /** A store for {@code schema}. */
  public MigrationStore(SchemaName schema) {
    this.schema = schema;
  }

  /** The SQL that creates the schema and the bookkeeping table, for printing. */
  public String bootstrapSql() {
    return schema.expand(CREATE_SCHEMA) + ";\n" + schema.expand(CREATE_TABLE).strip() + ";\n";
  }

  /** The SQL that records {@code version} as applied, for printing (values quoted as literals). */
  public String recordSql(String line, int version, String name) {
    return "INSERT INTO "
        + schema.quoted()
        + ".migration (line, version, name) VALUES ('"
        + line
        + "', "
        + version
        + ", '"
        + name
        + "');\n";
  }

  /** Takes the migration lock of this schema for the rest of {@code c}'s transaction. */
  public void lock(Connection c) throws SQLException {
    CRC32 crc = new CRC32();
    crc.update(("baton.migrate:" + schema.name()).getBytes(StandardCharsets.UTF_8));
    try (PreparedStatement ps = c.prepareStatement(LOCK)) {
      ps.setLong(1, crc.getValue());
      ps.execute();
    }
  }

  /**
   * Creates the schema (only if it does not exist, so a migrator that owns an existing schema needs
   * no CREATE on the database) and the bookkeeping table if missing.
   */
  public void bootstrap(Connection c) throws SQLException {
    boolean exists;
    try (PreparedStatement ps = c.prepareStatement(SCHEMA_EXISTS)) {
      ps.setString(1, schema.name());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        exists = rs.getBoolean(1);
      }
    }
    try (Statement st = c.createStatement()) {
      if (!exists) {
        st.execute(schema.expand(CREATE_SCHEMA));
      }
      st.execute(schema.expand(CREATE_TABLE));
    }
  }

  /** Whether the bookkeeping table exists. */
  public boolean tableExists(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(TABLE_EXISTS)) {
      ps.setString(1, schema.quoted() + ".migration");
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  /** The applied versions of {@code line}, ascending. */
  public List<Integer> applied(Connection c, String line) throws SQLException {
    List<Integer> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(schema.expand(APPLIED))) {
      ps.setString(1, line);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getInt(1));
        }
      }
    }
    return out;
  }

  /** Runs one migration script (several statements) on {@code c}. */
  public void execute(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  /** Records {@code version} of {@code line} as applied. */
  public void record(Connection c, String line, int version, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(schema.expand(RECORD))) {
      ps.setString(1, line);
      ps.setInt(2, version);
      ps.setString(3, name);
      ps.executeUpdate();
    }
  }

  /** Removes the record of {@code version} of {@code line}. */
  public void unrecord(Connection c, String line, int version) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(schema.expand(UNRECORD))) {
      ps.setString(1, line);
      ps.setInt(2, version);
      ps.executeUpdate();
    }
  }
}
