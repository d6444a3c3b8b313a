package dev.baton.internal.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The statements of dependencies (schema version 10): inserting jobs that wait for others and their
 * edges ({@code job_dependency}), releasing the dependents of finished jobs, and reading a job's
 * dependencies and dependents. None of them runs for a job without dependencies or dependents: a
 * claim returns {@code has_dependents}, and only a finish of a job that has them runs {@link
 * #release}.
 *
 * <p>Not public API.
 */
public final class WorkflowStore {

  // The existing jobs a new job will depend on, locked in id order, so that none finishes between
  // this read and the commit of the edges (its finish then sees the edges, or the releaser does).
  // Binds: ids.
  private static final String LOCK_DEPENDENCIES =
      """
      SELECT id, state, output::text FROM ${schema}.job
      WHERE id = ANY (?::bigint[])
      ORDER BY id
      FOR UPDATE""";

  // Jobs of a workflow or batch, inserted in one statement with ids drawn in request order (as
  // EnqueueStore's bulk insert draws them). A job with dependencies left to wait for is pending,
  // with their count in deps_waiting; has_dependents marks the jobs whose finish releases others.
  // Binds: queues, kinds, args, priorities, max attempts, run times, keys, metadata, waiting
  // counts,
  // has-dependents flags, channel.
  private static final String INSERT_JOBS =
      """
      WITH p AS MATERIALIZED (
        SELECT nextval('${schema}.job_id_seq'::regclass) AS id, r.*
        FROM unnest(?::text[], ?::text[], ?::text[], ?::int[], ?::int[], ?::timestamptz[],
                    ?::text[], ?::text[], ?::int[], ?::boolean[]) WITH ORDINALITY
             AS r(queue, kind, args, priority, max_attempts, run_at, idempotency_key, metadata,
                  waiting, has_dependents, ord)
        ORDER BY r.ord
      ),
      ins AS (
        INSERT INTO ${schema}.job
          (id, queue, kind, args, state, priority, max_attempts, scheduled_at, idempotency_key,
           metadata, deps_waiting, has_dependents)
        OVERRIDING SYSTEM VALUE
        SELECT id, queue, kind, args::jsonb,
               CASE WHEN waiting > 0 THEN 'pending'
                    WHEN run_at IS NULL OR run_at <= now() THEN 'available'
                    ELSE 'scheduled' END,
               priority, max_attempts, coalesce(run_at, now()), idempotency_key, metadata::jsonb,
               waiting, has_dependents
        FROM p
        RETURNING id, queue, state
      ),
      n AS (SELECT pg_notify(?, q.queue) FROM (SELECT DISTINCT queue FROM ins WHERE state = 'available') q)
      SELECT p.ord, ins.id, (SELECT count(*) FROM n) AS notified
      FROM ins JOIN p ON p.id = ins.id
      ORDER BY p.ord""";

  // The edges of new jobs; an edge to a dependency that had already finished carries its final
  // state and output at once. Binds: job ids, dependency ids, names, policies, states, outputs.
  private static final String INSERT_EDGES =
      """
      INSERT INTO ${schema}.job_dependency
        (job_id, depends_on, name, on_failure, state, output, finished_at)
      SELECT e.job_id, e.depends_on, e.name, e.on_failure, e.state, e.output::jsonb,
             CASE WHEN e.state IS NOT NULL THEN now() END
      FROM unnest(?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[])
           AS e(job_id, depends_on, name, on_failure, state, output)""";

  // Existing jobs that new jobs wait for: their finish must release them from now on. A holder
  // that claimed one before this commit does not know; the releaser finds its edges. Binds: ids.
  private static final String MARK_HAS_DEPENDENTS =
      "UPDATE ${schema}.job SET has_dependents = true WHERE id = ANY (?::bigint[]) AND NOT"
          + " has_dependents";

  // A job's dependencies, with what their finish wrote. Binds: id.
  private static final String DEPENDENCIES =
      """
      SELECT e.depends_on, e.name, e.on_failure, coalesce(e.state, j.state), e.output::text
      FROM ${schema}.job_dependency e
      LEFT JOIN ${schema}.job j ON j.id = e.depends_on
      WHERE e.job_id = ?
      ORDER BY e.depends_on""";

  // How many of a job's dependencies are in each state (a batch callback's counts). Binds: id.
  private static final String DEPENDENCY_COUNTS =
      """
      SELECT coalesce(e.state, j.state, 'completed'), count(*)
      FROM ${schema}.job_dependency e
      LEFT JOIN ${schema}.job j ON j.id = e.depends_on
      WHERE e.job_id = ?
      GROUP BY 1""";

  // A job's dependents and their state now (NULL when cleaned). Binds: id.
  private static final String DEPENDENTS =
      """
      SELECT e.job_id, e.name, e.on_failure, j.state
      FROM ${schema}.job_dependency e
      LEFT JOIN ${schema}.job j ON j.id = e.job_id
      WHERE e.depends_on = ?
      ORDER BY e.job_id""";

  // A job's output, steps and progress, as JSON text. Binds: id.
  private static final String RECORDS =
      "SELECT output::text, steps::text, progress::text FROM ${schema}.job WHERE id = ?";

  private final SchemaName schema;
  private final String records;
  private final String lockDependencies;
  private final String insertJobs;
  private final String insertEdges;
  private final String markHasDependents;
  private final String dependencies;
  private final String dependents;
  private final String dependencyCounts;

  /** Prepares the SQL text for {@code schema}. */
  public WorkflowStore(SchemaName schema) {
    this.schema = schema;
    this.records = schema.expand(RECORDS);
    this.lockDependencies = schema.expand(LOCK_DEPENDENCIES);
    this.insertJobs = schema.expand(INSERT_JOBS);
    this.insertEdges = schema.expand(INSERT_EDGES);
    this.markHasDependents = schema.expand(MARK_HAS_DEPENDENTS);
    this.dependencies = schema.expand(DEPENDENCIES);
    this.dependents = schema.expand(DEPENDENTS);
    this.dependencyCounts = schema.expand(DEPENDENCY_COUNTS);
  }

  /** An existing job a new job depends on, as locked: its state and output (JSON text or null). */
  public record Existing(long id, String state, String output) {}

  /** Locks the existing jobs {@code ids}; returns those found, by id. */
  public Map<Long, Existing> lockDependencies(Connection c, long[] ids) throws SQLException {
    Map<Long, Existing> found = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(lockDependencies)) {
      ps.setArray(1, c.createArrayOf("int8", boxed(ids)));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          found.put(rs.getLong(1), new Existing(rs.getLong(1), rs.getString(2), rs.getString(3)));
        }
      }
    }
    return found;
  }

  /**
   * A new job of a workflow or batch: {@code waiting} is the number of dependencies it waits for
   * (null for a job without any), {@code hasDependents} whether its finish releases others.
   */
  public record WaitingJob(EnqueueStore.NewJob job, Integer waiting, boolean hasDependents) {}

  /** Inserts {@code jobs} on {@code c}; returns their ids in order. */
  public long[] insertJobs(Connection c, List<WaitingJob> jobs) throws SQLException {
    int n = jobs.size();
    List<EnqueueStore.NewJob> rows = new ArrayList<>(n);
    Integer[] waiting = new Integer[n];
    Boolean[] hasDependents = new Boolean[n];
    for (int i = 0; i < n; i++) {
      rows.add(jobs.get(i).job());
      waiting[i] = jobs.get(i).waiting();
      hasDependents[i] = jobs.get(i).hasDependents();
    }
    long[] ids = new long[n];
    try (PreparedStatement ps = c.prepareStatement(insertJobs)) {
      EnqueueStore.bindColumns(c, ps, rows);
      int k = 9;
      ps.setArray(k++, c.createArrayOf("int4", waiting));
      ps.setArray(k++, c.createArrayOf("bool", hasDependents));
      ps.setString(k, schema.insertChannel());
      try (ResultSet rs = ps.executeQuery()) {
        int i = 0;
        while (rs.next()) {
          ids[i++] = rs.getLong(2);
        }
        if (i != n) {
          throw new SQLException("inserted " + i + " jobs of " + n, "23505");
        }
      }
    }
    return ids;
  }

  /**
   * One dependency edge: {@code jobId} waits for {@code dependsOn} ({@code name}: its step name, or
   * null), under policy {@code onFailure} (cancel, run, hold); {@code state} and {@code output} are
   * set when the dependency had already finished.
   */
  public record Edge(
      long jobId, long dependsOn, String name, String onFailure, String state, String output) {}

  /**
   * Inserts {@code edges}, and marks the existing dependencies {@code marked} as having dependents.
   */
  public void insertEdges(Connection c, List<Edge> edges, long[] marked) throws SQLException {
    int n = edges.size();
    Long[] jobIds = new Long[n];
    Long[] dependsOn = new Long[n];
    String[] names = new String[n];
    String[] policies = new String[n];
    String[] states = new String[n];
    String[] outputs = new String[n];
    for (int i = 0; i < n; i++) {
      Edge e = edges.get(i);
      jobIds[i] = e.jobId();
      dependsOn[i] = e.dependsOn();
      names[i] = e.name();
      policies[i] = e.onFailure();
      states[i] = e.state();
      outputs[i] = e.output();
    }
    if (n > 0) {
      try (PreparedStatement ps = c.prepareStatement(insertEdges)) {
        ps.setArray(1, c.createArrayOf("int8", jobIds));
        ps.setArray(2, c.createArrayOf("int8", dependsOn));
        ps.setArray(3, c.createArrayOf("text", names));
        ps.setArray(4, c.createArrayOf("text", policies));
        ps.setArray(5, c.createArrayOf("text", states));
        ps.setArray(6, c.createArrayOf("text", outputs));
        ps.executeUpdate();
      }
    }
    if (marked.length > 0) {
      try (PreparedStatement ps = c.prepareStatement(markHasDependents)) {
        ps.setArray(1, c.createArrayOf("int8", boxed(marked)));
        ps.executeUpdate();
      }
    }
  }

  /**
   * One edge as read: the other job's id, the dependency's step name, the policy, the state (the
   * dependency's as its finish recorded it, else its state now; for a dependent, its state now,
   * null when its row is gone) and, for a dependency, its output (JSON text or null).
   */
  public record EdgeRow(long id, String name, String onFailure, String state, String output) {}

  /** The dependencies of job {@code id}, by id. */
  public List<EdgeRow> dependencies(Connection c, long id) throws SQLException {
    List<EdgeRow> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(dependencies)) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new EdgeRow(
                  rs.getLong(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getString(5)));
        }
      }
    }
    return out;
  }

  /** How many dependencies of job {@code id} are in each state, by state name. */
  public Map<String, Long> dependencyCounts(Connection c, long id) throws SQLException {
    Map<String, Long> out = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(dependencyCounts)) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), rs.getLong(2));
        }
      }
    }
    return out;
  }

  /** A job's output, steps and progress as JSON text (each may be null). */
  public record Records(String output, String steps, String progress) {}

  /** The output, steps and progress of job {@code id}; null when there is no such job. */
  public Records records(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(records)) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new Records(rs.getString(1), rs.getString(2), rs.getString(3)) : null;
      }
    }
  }

  /** The dependents of job {@code id}, by id. */
  public List<EdgeRow> dependents(Connection c, long id) throws SQLException {
    List<EdgeRow> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(dependents)) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new EdgeRow(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), null));
        }
      }
    }
    return out;
  }

  private static Long[] boxed(long[] values) {
    Long[] out = new Long[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = values[i];
    }
    return out;
  }
}
