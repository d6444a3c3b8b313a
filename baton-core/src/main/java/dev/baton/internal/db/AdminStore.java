package dev.baton.internal.db;

import dev.baton.BatonException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Statements on one job by id, or on jobs by filter, that no holder makes: read, list, retry,
 * delete, cancel and the row lock of run-now, for {@link dev.baton.admin.JobAdmin}, which the
 * operator API {@link dev.baton.admin.BatonAdmin} and the client's own {@code job(id)} and {@code
 * cancel(id)} use. Each checks the job's state in its {@code WHERE} clause, so it races cleanly
 * with a claim: whichever takes the row lock first wins, and the other re-reads the row. Statements
 * that read a job row select the columns {@link JobRow#read} takes, in its order.
 *
 * <p>Not public API.
 */
public final class AdminStore {

  // Binds: id.
  private static final String GET =
      "SELECT " + JobRow.COLUMNS + "\nFROM ${schema}.job WHERE id = ?";

  // Newest first. A null filter matches every row: the server plans each execution with its
  // values, and a null value folds its condition away. Binds: state twice, queue twice, kind
  // twice, limit.
  private static final String LIST =
      "SELECT "
          + JobRow.COLUMNS
          + """

          FROM ${schema}.job
          WHERE (?::text IS NULL OR state = ?)
            AND (?::text IS NULL OR queue = ?)
            AND (?::text IS NULL OR kind = ?)
          ORDER BY id DESC LIMIT ?
          """;

  // A job that is not running becomes available now, with its attempt count kept: one more attempt
  // is granted when none is left, so the retry runs at least once. A cancel request is dropped (it
  // would cancel the retried run at once), and the retry is noted in the metadata. SET expressions
  // read the row as it was, so retried_from is the state before. The state is checked here, in the
  // WHERE clause: a concurrent claim that wins the row lock leaves a running row that no longer
  // matches. The NOTIFY wakes the queue's workers at commit. Binds: retried by, id, channel.
  @Fragment
  private static final String RETRY_SET =
      """
      WITH upd AS (
        UPDATE ${schema}.job
        SET state = 'available',
            scheduled_at = now(),
            max_attempts = greatest(max_attempts, attempt + 1),
            lease_expires_at = NULL,
            deadline_at = NULL,
            finalized_at = NULL,
            metadata = (metadata - 'cancel_requested_at' - 'cancel_requested_by') || jsonb_build_object(
                'retried_at', now(),
                'retried_by', ?::text,
                'retried_from', state,
                'retry_count', coalesce((metadata ->> 'retry_count')::int, 0) + 1)
      """;

  private static final String RETRY =
      RETRY_SET
          + """
        WHERE id = ? AND state IN ('scheduled', 'retryable', 'completed', 'cancelled', 'discarded')
        RETURNING\s"""
          + JobRow.COLUMNS
          + """

      ),
      n AS (SELECT pg_notify(?, upd.queue) FROM upd)
      SELECT upd.*, (SELECT count(*) FROM n) AS notified FROM upd
      """;

  // RETRY for a batch of ids (a bulk action), limited to the given states among those RETRY takes
  // (run now passes scheduled and retryable only); each queue that got jobs is notified once. A row
  // in another state, or gone, is left out, so a second run of a batch changes nothing. Binds:
  // retried by, ids, states, channel.
  private static final String RETRY_MANY =
      RETRY_SET
          + """
        WHERE id = ANY (?::bigint[])
          AND state IN ('scheduled', 'retryable', 'completed', 'cancelled', 'discarded')
          AND state = ANY (?::text[])
        RETURNING queue
      ),
      n AS (SELECT pg_notify(?, q.queue) FROM (SELECT DISTINCT queue FROM upd) q)
      SELECT (SELECT count(*) FROM upd), (SELECT count(*) FROM n)
      """;

  // DELETE for a batch of ids: running jobs are left alone. Binds: ids.
  private static final String DELETE_MANY =
      """
      WITH del AS (
        DELETE FROM ${schema}.job WHERE id = ANY (?::bigint[]) AND state <> 'running' RETURNING id
      )
      SELECT count(*) FROM del
      """;

  // The state guard, as in RETRY: a running job is held by a worker and is never deleted under it.
  // Binds: id.
  private static final String DELETE =
      "DELETE FROM ${schema}.job WHERE id = ? AND state <> 'running'\nRETURNING " + JobRow.COLUMNS;

  // A waiting job (pending ones too; the releaser then applies their dependents' policy) is
  // cancelled at once; a running one is flagged and its holder told over NOTIFY
  // (heartbeats carry the flag too, and the rescuer honours it if the holder is gone). Who asked
  // is kept beside the time when given. Binds: by, id, channel.
  @Fragment
  private static final String CANCEL_SET =
      """
      WITH upd AS (
        UPDATE ${schema}.job
        SET state = CASE WHEN state = 'running' THEN 'running' ELSE 'cancelled' END,
            finalized_at = CASE WHEN state = 'running' THEN NULL ELSE now() END,
            metadata = metadata || jsonb_build_object('cancel_requested_at', now())
                || jsonb_strip_nulls(jsonb_build_object('cancel_requested_by', ?::text))
      """;

  @Fragment
  private static final String CANCEL_NOTIFY =
      """
        RETURNING id, state, fence
      ),
      n AS (
        SELECT pg_notify(?, json_build_object('action', 'cancel', 'job_id', id, 'fence', fence)::text)
        FROM upd WHERE state = 'running'
      )
      """;

  private static final String CANCEL =
      CANCEL_SET
          + """
        WHERE id = ? AND state IN ('pending', 'scheduled', 'available', 'running', 'retryable')
      """
          + CANCEL_NOTIFY
          + """
      SELECT state, (SELECT count(*) FROM n) AS notified FROM upd
      """;

  // CANCEL for a batch of ids; a job cancelled already (its request recorded) is left out, so a
  // second run of a batch changes nothing. Binds: by, ids, channel.
  private static final String CANCEL_MANY =
      CANCEL_SET
          + """
        WHERE id = ANY (?::bigint[])
          AND state IN ('pending', 'scheduled', 'available', 'running', 'retryable')
          AND NOT (state = 'running' AND metadata ->> 'cancel_requested_at' IS NOT NULL)
      """
          + CANCEL_NOTIFY
          + """
      SELECT (SELECT count(*) FROM upd), (SELECT count(*) FROM n)
      """;

  // Locks the row for the rest of the caller's transaction, so that a state read here still holds
  // when the caller's next statement runs: a claim skips the locked row, a cancel or the scheduler
  // waits for it. Binds: id.
  private static final String LOCK_STATE =
      """
      SELECT state FROM ${schema}.job WHERE id = ? FOR UPDATE
      """;

  // A unique job's states and the job holding its key now (itself, another or none), for an
  // operator's page: read only here, never by a claim (the claim's columns stay JobRow's). The
  // holder is found through job_unique_key_idx, whose predicate the WHERE clause repeats. A job
  // without uniqueness has no row. Binds: id.
  private static final String UNIQUENESS =
      """
      SELECT j.unique_states,
             (SELECT h.id FROM ${schema}.job h
              WHERE h.unique_key = j.unique_key AND h.state = ANY (h.unique_states)
              LIMIT 1) AS holder
      FROM ${schema}.job j
      WHERE j.id = ? AND j.unique_key IS NOT NULL
      """;

  private final SchemaName schema;
  private final String get;
  private final String uniqueness;
  private final String list;
  private final String retry;
  private final String delete;
  private final String cancel;
  private final String retryMany;
  private final String deleteMany;
  private final String cancelMany;
  private final String lockState;

  /** Prepares the SQL text for {@code schema}. */
  public AdminStore(SchemaName schema) {
    this.schema = schema;
    this.get = schema.expand(GET);
    this.uniqueness = schema.expand(UNIQUENESS);
    this.list = schema.expand(LIST);
    this.retry = schema.expand(RETRY);
    this.delete = schema.expand(DELETE);
    this.cancel = schema.expand(CANCEL);
    this.retryMany = schema.expand(RETRY_MANY);
    this.deleteMany = schema.expand(DELETE_MANY);
    this.cancelMany = schema.expand(CANCEL_MANY);
    this.lockState = schema.expand(LOCK_STATE);
  }

  /** Reads one job on {@code c}, or null. */
  public JobRow get(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(get)) {
      ps.setLong(1, id);
      return readOne(ps);
    }
  }

  /**
   * A unique job's uniqueness: the states it holds its key in, as stored, and the id of the job
   * holding the key now (null for none).
   */
  public record Uniqueness(List<String> states, Long holder) {}

  /** The uniqueness of job {@code id}, or null when it does not exist or is not unique. */
  public Uniqueness uniqueness(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(uniqueness)) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        String[] states = (String[]) rs.getArray(1).getArray();
        long holder = rs.getLong(2);
        return new Uniqueness(List.of(states), rs.wasNull() ? null : holder);
      }
    }
  }

  /**
   * The jobs matching every non-null filter, newest (highest id) first, at most {@code limit}.
   *
   * @param state a state as stored, or null for any
   * @param queue a queue, or null for any
   * @param kind a kind, or null for any
   */
  public List<JobRow> list(Connection c, String state, String queue, String kind, int limit)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(list)) {
      ps.setString(1, state);
      ps.setString(2, state);
      ps.setString(3, queue);
      ps.setString(4, queue);
      ps.setString(5, kind);
      ps.setString(6, kind);
      ps.setInt(7, limit);
      List<JobRow> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(JobRow.read(rs, false));
        }
      }
      return out;
    }
  }

  /**
   * Makes the job available now if it is not running or available, noting {@code retriedBy} (may be
   * null) in its metadata; returns the row after, or null when the job does not exist or its state
   * did not allow it.
   */
  public JobRow retry(Connection c, long id, String retriedBy) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(retry)) {
      ps.setString(1, retriedBy);
      ps.setLong(2, id);
      ps.setString(3, schema.insertChannel());
      return readOne(ps);
    } catch (SQLException e) {
      if (meetsAHeldUniqueKey(e)) {
        // A finished unique job made available again would be a second job holding its key.
        throw new BatonException(
            "cannot retry job (id="
                + id
                + "): another job holds its unique key (scheduled, available, running or"
                + " retryable); retry this one after that job finishes, or cancel that one",
            e);
      }
      throw e;
    }
  }

  /**
   * Whether {@code e}, or one of its causes, is a retry that would have made a finished unique job
   * a second holder of its key (a unique violation of {@code job_unique_key_idx}).
   */
  public static boolean meetsAHeldUniqueKey(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql
          && "23505".equals(sql.getSQLState())
          && sql.getMessage() != null
          && sql.getMessage().contains("job_unique_key_idx")) {
        return true;
      }
    }
    return false;
  }

  /** Most ids one statement of a bulk action takes: 1,000. */
  public static final int MAX_BATCH = 1_000;

  /**
   * Retries the jobs of {@code ids} that are in one of {@code states} (among those a retry takes);
   * returns how many changed. At most {@link #MAX_BATCH} ids.
   */
  public long retryMany(Connection c, long[] ids, String[] states, String by) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(retryMany)) {
      ps.setString(1, by);
      ps.setArray(2, c.createArrayOf("bigint", box(ids)));
      ps.setArray(3, c.createArrayOf("text", states));
      ps.setString(4, schema.insertChannel());
      return readCount(ps);
    }
  }

  /** Deletes the jobs of {@code ids} that are not running; returns how many. */
  public long deleteMany(Connection c, long[] ids) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(deleteMany)) {
      ps.setArray(1, c.createArrayOf("bigint", box(ids)));
      return readCount(ps);
    }
  }

  /**
   * Cancels the jobs of {@code ids} that are waiting, and asks the holders of the running ones;
   * returns how many changed (a running job asked before is left out).
   */
  public long cancelMany(Connection c, long[] ids, String by) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(cancelMany)) {
      ps.setString(1, by);
      ps.setArray(2, c.createArrayOf("bigint", box(ids)));
      ps.setString(3, schema.controlChannel());
      return readCount(ps);
    }
  }

  private static Long[] box(long[] ids) {
    if (ids.length > MAX_BATCH) {
      throw new IllegalArgumentException(
          "invalid batch: at most " + MAX_BATCH + " ids, got " + ids.length);
    }
    Long[] out = new Long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = ids[i];
    }
    return out;
  }

  private static long readCount(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Deletes the job if it is not running; returns it as deleted, or null if nothing was. */
  public JobRow delete(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(delete)) {
      ps.setLong(1, id);
      return readOne(ps);
    }
  }

  /**
   * Cancels a job: a waiting one at once, a running one by flag and NOTIFY to its holder. Returns
   * the state after the call ({@code cancelled} or {@code running}), or null when the job does not
   * exist or is final already.
   */
  public String cancel(DataSource ds, long id) {
    return cancel(ds, id, null);
  }

  /** As {@link #cancel(DataSource, long)}, recording {@code by} (when not null) as who asked. */
  public String cancel(DataSource ds, long id, String by) {
    return Db.inTransaction(
        ds,
        "cannot cancel job (id=" + id + ")",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(cancel)) {
            ps.setString(1, by);
            ps.setLong(2, id);
            ps.setString(3, schema.controlChannel());
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next() ? rs.getString(1) : null;
            }
          }
        });
  }

  /**
   * Locks the job's row until the end of the transaction on {@code c} and returns its state as
   * stored, or null when no job has this id. Waits while another transaction holds the row.
   */
  public String lockState(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(lockState)) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private static JobRow readOne(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() ? JobRow.read(rs, false) : null;
    }
  }
}
