package dev.baton.internal.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The release of dependents (schema version 10): the statement that counts finished jobs on the
 * edges of the jobs that wait for them and makes those whose last dependency is done available, and
 * the query that finds finished jobs whose finish did not. Run by a holder's finish of a job that
 * has dependents (a claim returns {@code has_dependents}, so a job without them never runs it) and
 * by the releaser's maintenance pass.
 *
 * <p>Not public API.
 */
public final class ReleaseStore {

  // The states after which a job changes no more.
  @Fragment private static final String FINAL_STATES = "('completed', 'cancelled', 'discarded')";

  // The dependents of finished jobs, released in one statement, whatever their number.
  // "fin": each finished job's final state and output (a row deleted by its completion counts as
  // completed, without output). "edges": the edges not yet counted, locked (an edge held for an
  // operator after a failed dependency is counted again when that dependency completes after a
  // retry). "marked": the edges take the dependency's state and output. "per_job": per dependent,
  // how many of its dependencies are done (completed, or failed under 'run'), and whether one
  // failed under 'cancel'. "locked": those dependents, locked in id order, so that two releases
  // overlapping dependents (a completer batch and a producer's) cannot deadlock. "upd": a
  // dependent whose last dependency is done becomes available (scheduled if its run time is
  // ahead); one whose dependency failed under 'cancel' is cancelled, with an error entry that says
  // so. Each decrement happens under the dependent's row lock, so two dependencies finishing at
  // once (in two transactions) both count: the later one waits and reads the earlier's count.
  // The answer: each dependent changed, its new state and whether it has dependents itself (a
  // cancelled one is released in turn). Binds: ids, channel.
  private static final String RELEASE =
      """
      WITH fin AS MATERIALIZED (
        SELECT d.id, coalesce(j.state, 'completed') AS state, j.output
        FROM unnest(?::bigint[]) AS d(id)
        LEFT JOIN ${schema}.job j ON j.id = d.id
        WHERE j.id IS NULL OR j.state IN
      """
          + FINAL_STATES
          + """

      ),
      edges AS MATERIALIZED (
        SELECT e.job_id, e.depends_on, e.on_failure, fin.state, fin.output
        FROM ${schema}.job_dependency e
        JOIN fin ON fin.id = e.depends_on
        WHERE e.state IS NULL OR (e.on_failure = 'hold' AND e.state <> 'completed')
        ORDER BY e.job_id, e.depends_on
        FOR UPDATE OF e
      ),
      marked AS (
        UPDATE ${schema}.job_dependency e
        SET state = edges.state, output = edges.output, finished_at = now()
        FROM edges
        WHERE e.job_id = edges.job_id AND e.depends_on = edges.depends_on
      ),
      per_job AS (
        SELECT job_id,
               count(*) FILTER (WHERE state = 'completed' OR on_failure = 'run') AS done,
               bool_or(state <> 'completed' AND on_failure = 'cancel') AS cancel
        FROM edges GROUP BY job_id
      ),
      locked AS MATERIALIZED (
        SELECT j.id FROM ${schema}.job j
        WHERE j.id IN (SELECT job_id FROM per_job)
        ORDER BY j.id
        FOR UPDATE OF j
      ),
      upd AS (
        UPDATE ${schema}.job j
        SET deps_waiting = j.deps_waiting - p.done,
            state = CASE WHEN p.cancel THEN 'cancelled'
                         WHEN j.deps_waiting - p.done > 0 THEN 'pending'
                         WHEN j.scheduled_at > now() THEN 'scheduled'
                         ELSE 'available' END,
            finalized_at = CASE WHEN p.cancel THEN now() END,
            errors = CASE WHEN p.cancel THEN j.errors || jsonb_build_array(jsonb_build_object(
                         'error', 'cancelled', 'attempt', j.attempt, 'at', now(),
                         'message', 'a dependency was discarded or cancelled'))
                     ELSE j.errors END
        FROM per_job p
        WHERE j.id = p.job_id AND j.id IN (SELECT id FROM locked) AND j.state = 'pending'
        RETURNING j.id, j.state, j.queue, j.has_dependents
      ),
      n AS (SELECT pg_notify(?, q.queue) FROM (SELECT DISTINCT queue FROM upd WHERE state = 'available') q)
      SELECT upd.id, upd.state, upd.has_dependents, (SELECT count(*) FROM n) AS notified
      FROM upd""";

  // Finished jobs whose dependents were not released by their finish: a holder that claimed the
  // job before a dependent was added, a rescue that discarded it, a cancel by an operator. Read by
  // the releaser (a maintenance pass) through the partial index of open edges. Binds: limit.
  private static final String MISSED =
      """
      SELECT DISTINCT e.depends_on FROM ${schema}.job_dependency e
      WHERE e.state IS NULL
        AND NOT EXISTS (SELECT 1 FROM ${schema}.job j
                        WHERE j.id = e.depends_on AND j.state NOT IN
      """
          + FINAL_STATES
          + """
      )
      LIMIT ?""";

  private final SchemaName schema;
  private final String release;
  private final String missed;

  /** Prepares the SQL text for {@code schema}. */
  public ReleaseStore(SchemaName schema) {
    this.schema = schema;
    this.release = schema.expand(RELEASE);
    this.missed = schema.expand(MISSED);
  }

  /** A dependent a release changed: its new state, and whether it has dependents itself. */
  public record Released(long id, String state, boolean hasDependents) {}

  /**
   * Releases the dependents of the finished jobs {@code finished} on {@code c}, in its transaction:
   * a dependent whose last dependency is done becomes available; one cancelled by a failed
   * dependency releases its own dependents in turn (a statement per level of the graph). Ids of
   * jobs not final are ignored. Returns every dependent changed.
   */
  public List<Released> release(Connection c, long[] finished) throws SQLException {
    List<Released> all = new ArrayList<>();
    long[] next = finished;
    while (next.length > 0) {
      List<Long> cancelledWithDependents = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement(release)) {
        ps.setArray(1, c.createArrayOf("int8", boxed(next)));
        ps.setString(2, schema.insertChannel());
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            Released r = new Released(rs.getLong(1), rs.getString(2), rs.getBoolean(3));
            all.add(r);
            if ("cancelled".equals(r.state()) && r.hasDependents()) {
              cancelledWithDependents.add(r.id());
            }
          }
        }
      }
      next = cancelledWithDependents.stream().mapToLong(Long::longValue).toArray();
    }
    return all;
  }

  /** Up to {@code limit} finished jobs whose dependents their finish did not release. */
  public long[] missed(Connection c, int limit) throws SQLException {
    List<Long> ids = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(missed)) {
      ps.setInt(1, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getLong(1));
        }
      }
    }
    return ids.stream().mapToLong(Long::longValue).toArray();
  }

  private static Long[] boxed(long[] values) {
    Long[] out = new Long[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = values[i];
    }
    return out;
  }
}
