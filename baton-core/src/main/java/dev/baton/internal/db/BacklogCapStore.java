package dev.baton.internal.db;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.BacklogCapExceededException;
import dev.baton.BatonException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The backlog caps of queues (schema version 8, docs/backlog-caps.md): setting and removing them on
 * the queue's control row, reading which queues have one, and admitting jobs to a capped queue
 * through the function {@code <schema>.backlog_refusal}, which the SQL enqueue path shares.
 *
 * <p>Not public API.
 */
public final class BacklogCapStore {

  private static final ObjectMapper JSON = new ObjectMapper();

  // Admission of jobs to one queue, in the caller's transaction: NULL when admitted, else the
  // refusal as JSON. A capped queue's admission holds its lock until the transaction ends (see
  // V008__backlog_cap.sql). Binds: queue, jobs.
  private static final String REFUSAL = "SELECT ${schema}.backlog_refusal(?, ?)";

  // Every queue with a cap: few rows (the queues with a control row), read whole.
  private static final String CAPS =
      """
      SELECT name, backlog_cap FROM ${schema}.queue
      WHERE backlog_cap IS NOT NULL ORDER BY name""";

  // Sets a queue's cap, creating its control row if needed, and returns the cap it had before, as
  // of the statement's snapshot (two concurrent setters may both see the same one). Binds: queue,
  // queue, cap.
  private static final String SET_CAP =
      """
      WITH old AS MATERIALIZED (
        SELECT backlog_cap FROM ${schema}.queue WHERE name = ?
      )
      INSERT INTO ${schema}.queue (name, backlog_cap) VALUES (?, ?)
      ON CONFLICT (name) DO UPDATE SET backlog_cap = excluded.backlog_cap, updated_at = now()
      RETURNING (SELECT backlog_cap FROM old)""";

  // Binds: queue.
  private static final String REMOVE_CAP =
      """
      UPDATE ${schema}.queue SET backlog_cap = NULL, updated_at = now()
      WHERE name = ? AND backlog_cap IS NOT NULL""";

  private final String refusal;
  private final String caps;
  private final String setCap;
  private final String removeCap;

  /** Prepares the SQL text for {@code schema}. */
  public BacklogCapStore(SchemaName schema) {
    this.refusal = schema.expand(REFUSAL);
    this.caps = schema.expand(CAPS);
    this.setCap = schema.expand(SET_CAP);
    this.removeCap = schema.expand(REMOVE_CAP);
  }

  /**
   * Admits {@code jobs} new jobs to {@code queue} in the transaction on {@code c}, or throws,
   * writing nothing and leaving the transaction usable. When the queue has a cap and the jobs are
   * admitted, the transaction holds the queue's admission lock until it ends.
   *
   * @throws BacklogCapExceededException if the jobs would take the queue over its cap
   */
  public void admit(Connection c, String queue, int jobs) throws SQLException {
    String refused;
    try (PreparedStatement ps = c.prepareStatement(refusal)) {
      ps.setString(1, queue);
      ps.setInt(2, jobs);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        refused = rs.getString(1);
      }
    }
    if (refused != null) {
      throw refusal(refused);
    }
  }

  /**
   * The exception for a refusal as {@code backlog_refusal} or {@code check_backlog_cap} tell it.
   */
  public static BacklogCapExceededException refusal(String json) {
    try {
      JsonNode r = JSON.readTree(json);
      return new BacklogCapExceededException(
          r.path("queue").asText(),
          r.path("cap").asInt(),
          r.path("waiting").asInt(),
          r.path("jobs").asInt());
    } catch (java.io.IOException e) {
      throw new BatonException("cannot read a backlog cap refusal: " + json, e);
    }
  }

  /** The queues that have a cap, by name, with their caps. */
  public Map<String, Integer> caps(Connection c) throws SQLException {
    Map<String, Integer> out = new LinkedHashMap<>();
    try (PreparedStatement ps = c.prepareStatement(caps);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getInt(2));
      }
    }
    return out;
  }

  /** Sets {@code queue}'s cap to {@code cap}; returns the cap it had before, if any. */
  public OptionalInt setCap(Connection c, String queue, int cap) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(setCap)) {
      ps.setString(1, queue);
      ps.setString(2, queue);
      ps.setInt(3, cap);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        int old = rs.getInt(1);
        return rs.wasNull() ? OptionalInt.empty() : OptionalInt.of(old);
      }
    }
  }

  /** Removes {@code queue}'s cap; returns whether it had one. */
  public boolean removeCap(Connection c, String queue) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(removeCap)) {
      ps.setString(1, queue);
      return ps.executeUpdate() > 0;
    }
  }
}
