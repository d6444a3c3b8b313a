package dev.baton.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * A table of side effects done by handlers, in the test's schema: one row per effect, naming the
 * job, attempt, fence and node. Written by children and by handlers in the test JVM alike, so a
 * test can see which holder did what.
 */
public final class ChildEffects {

  /** One recorded side effect. */
  public record Effect(long jobId, int attempt, long fence, String node, String what) {}

  private ChildEffects() {}

  /** Creates the table in {@code schema} (as the test's admin). */
  public static void create(TestDatabase db, String schema) throws SQLException {
    create(db.admin(), schema);
  }

  /** Creates the table in {@code schema} on {@code ds}. */
  public static void create(DataSource ds, String schema) throws SQLException {
    try (Connection c = ds.getConnection();
        java.sql.Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE \""
              + schema
              + "\".child_effect (job_id bigint NOT NULL, attempt int NOT NULL, fence bigint NOT"
              + " NULL, node text NOT NULL, what text NOT NULL, at timestamptz NOT NULL DEFAULT"
              + " now())");
    }
  }

  /** Records an effect on {@code c}, in whatever transaction it is in. */
  public static void record(Connection c, String schema, Effect e) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO \""
                + schema
                + "\".child_effect (job_id, attempt, fence, node, what) VALUES (?, ?, ?, ?, ?)")) {
      ps.setLong(1, e.jobId());
      ps.setInt(2, e.attempt());
      ps.setLong(3, e.fence());
      ps.setString(4, e.node());
      ps.setString(5, e.what());
      ps.executeUpdate();
    }
  }

  /** Records an effect in its own (autocommit) transaction. */
  public static void record(DataSource ds, String schema, Effect e) throws SQLException {
    try (Connection c = ds.getConnection()) {
      record(c, schema, e);
    }
  }

  /** Every effect recorded for {@code jobId}, oldest first. */
  public static List<Effect> of(DataSource ds, String schema, long jobId) throws SQLException {
    List<Effect> out = new ArrayList<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT job_id, attempt, fence, node, what FROM \""
                    + schema
                    + "\".child_effect WHERE job_id = ? ORDER BY at, fence")) {
      ps.setLong(1, jobId);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new Effect(
                  rs.getLong(1), rs.getInt(2), rs.getLong(3), rs.getString(4), rs.getString(5)));
        }
      }
    }
    return out;
  }
}
