package dev.baton.internal.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The leader's statements: rescue, schedule, clean and prune. Each one is fenced by the leader's
 * term: it first takes a share lock on the {@code leader} row and proceeds only if the row still
 * names this node and term and its lease has not run out. The lock is held to the end of the
 * statement, so an election cannot complete while a leader write is under way, and a write that
 * comes after one sees the new term and changes nothing. Every statement reports whether it was
 * leading; one that was not throws {@link NotLeaderException}.
 *
 * <p>The time they compare with is a bind parameter: {@code null} means the database's {@code
 * now()} (production), a value means a test's clock.
 *
 * <p>Not public API.
 */
public final class MaintenanceStore {

  // Every leader statement begins with LEAD, a WITH of two CTEs: "clk", the time to compare with
  // (the bind, or the database's now() when it is null), and "lead", which share-locks the leader
  // row and yields its term only while it still names this node and term and its lease has not run
  // out. Every other CTE runs only WHERE EXISTS (SELECT 1 FROM lead), and the result reports
  // whether lead yielded a row. Binds: now (nullable), role, node id, term ("the lead").
  //
  // RESCUE and SCHEDULE pick by their partial index, then update the picked rows by primary key
  // (an array of their ids, no join): the state is tested against a sub-select, not a literal, so
  // that the planner cannot prove the index's predicate and read the whole index once more (every
  // running or waiting job) to join the few it picked (see HolderStore's note on fenced writes;
  // FencedWritesProbeTheKeyTest).
  @Fragment
  private static final String LEAD =
      """
      WITH clk AS (SELECT coalesce(?::timestamptz, now()) AS now),
      lead AS MATERIALIZED (
        SELECT l.term FROM ${schema}.leader l
        WHERE l.role = ? AND l.leader_id = ? AND l.term = ? AND l.expires_at > (SELECT now FROM clk)
        FOR SHARE OF l
      )""";

  // The end of a rescue's update ("upd"): the rescue counted in the metadata, lease and deadline
  // cleared, on the picked rows that still run (re-checked under the lock, so that a job its holder
  // finished meanwhile is untouched); the statement's WHERE clause goes on after it.
  @Fragment
  private static final String RESCUED =
      """
              metadata = j.metadata || jsonb_build_object('rescue_count',
                  coalesce((j.metadata ->> 'rescue_count')::int, 0) + 1),
              lease_expires_at = NULL,
              deadline_at = NULL
          WHERE j.id = ANY (ARRAY(SELECT id FROM picked)) AND j.state = (SELECT 'running'::text)""";

  // The end of a rescue's "upd", and the rescue's answer: whether it was leading, and each rescued
  // job, if any.
  @Fragment
  private static final String RESCUE_ANSWER =
      """

        RETURNING j.id, j.state, j.attempted_by
      )
      SELECT l.leading, u.id, u.state, u.attempted_by
      FROM (SELECT count(*) AS leading FROM lead) l LEFT JOIN upd u ON true""";

  // Running jobs whose lease ran out (no heartbeat) or whose deadline passed go back to the queue:
  // retryable, or discarded (at max attempts after a passed deadline, or at the rescue limit), or
  // cancelled when a cancel was asked for; each with an error entry saying which and a rescue
  // count. Picked with SKIP LOCKED and re-checked under the lock, so a job its holder finished
  // meanwhile is untouched. Binds: the lead, max rescues, limit.
  private static final String RESCUE =
      LEAD
          + """
          ,
          lim AS (SELECT ?::int AS max_rescues),
          picked AS MATERIALIZED (
            SELECT id FROM ${schema}.job
            WHERE EXISTS (SELECT 1 FROM lead)
              AND state = 'running' AND least(lease_expires_at, deadline_at) < (SELECT now FROM clk)
            ORDER BY least(lease_expires_at, deadline_at), id
            LIMIT ?
            FOR UPDATE SKIP LOCKED
          ),
          upd AS (
            UPDATE ${schema}.job j
            SET state = CASE WHEN j.metadata ->> 'cancel_requested_at' IS NOT NULL THEN 'cancelled'
                             WHEN j.deadline_at < (SELECT now FROM clk)
                                  AND j.attempt >= j.max_attempts THEN 'discarded'
                             WHEN coalesce((j.metadata ->> 'rescue_count')::int, 0) + 1
                                  >= (SELECT max_rescues FROM lim) THEN 'discarded'
                             ELSE 'retryable' END,
                finalized_at = CASE WHEN j.metadata ->> 'cancel_requested_at' IS NOT NULL
                                      OR (j.deadline_at < (SELECT now FROM clk)
                                          AND j.attempt >= j.max_attempts)
                                      OR coalesce((j.metadata ->> 'rescue_count')::int, 0) + 1
                                         >= (SELECT max_rescues FROM lim)
                                    THEN (SELECT now FROM clk) END,
                -- A lost lease is no failure of the handler: the attempt is given back, as by a
                -- hand-back; an overrun deadline is one (the handler's timeout) and counts.
                attempt = CASE WHEN j.deadline_at < (SELECT now FROM clk) THEN j.attempt
                               ELSE j.attempt - 1 END,
                scheduled_at = (SELECT now FROM clk),
                errors = j.errors || jsonb_build_array(jsonb_build_object(
                    'attempt', j.attempt,
                    'at', (SELECT now FROM clk),
                    'error', CASE WHEN j.deadline_at < (SELECT now FROM clk) THEN 'deadline_exceeded'
                                  ELSE 'lease_expired' END,
                    'message', CASE WHEN j.deadline_at < (SELECT now FROM clk)
                                    THEN 'deadline exceeded on node ' || coalesce(j.attempted_by, '?')
                                         || ' (deadline ' || j.deadline_at || ')'
                                    ELSE 'lease expired on node ' || coalesce(j.attempted_by, '?')
                                         || ' (no heartbeat since lease ran out at '
                                         || j.lease_expires_at || ')' END)),
          """
          + RESCUED
          + "\nAND (j.lease_expires_at < (SELECT now FROM clk) OR j.deadline_at < (SELECT now FROM clk))"
          + RESCUE_ANSWER;

  // Running jobs of nodes found gone (their session lock free, see ClusterStore.NODE_LOCKS),
  // whatever their leases, if claimed before the node was first seen without its lock: a node that
  // is alive after all keeps the jobs it claimed since. The lock is checked once more here, so a
  // node that took it again meanwhile keeps all of them. Otherwise as RESCUE, with error node_gone.
  // Binds: the lead, max rescues, gone node ids, schema key text, free since, limit.
  private static final String RESCUE_GONE =
      LEAD
          + """
          ,
          lim AS (SELECT ?::int AS max_rescues),
          gone AS MATERIALIZED (
            SELECT n.id FROM unnest(?::text[]) AS n(id)
            WHERE NOT
          """
          + ClusterStore.NODE_LOCK_HELD
          + """

          ),
          since AS (SELECT ?::timestamptz AS at),
          picked AS MATERIALIZED (
            SELECT id FROM ${schema}.job
            WHERE EXISTS (SELECT 1 FROM lead)
              AND state = 'running' AND attempted_by IN (SELECT id FROM gone)
              AND attempted_at < (SELECT at FROM since)
            ORDER BY id
            LIMIT ?
            FOR UPDATE SKIP LOCKED
          ),
          upd AS (
            UPDATE ${schema}.job j
            SET state = CASE WHEN j.metadata ->> 'cancel_requested_at' IS NOT NULL THEN 'cancelled'
                             WHEN coalesce((j.metadata ->> 'rescue_count')::int, 0) + 1
                                  >= (SELECT max_rescues FROM lim) THEN 'discarded'
                             ELSE 'retryable' END,
                finalized_at = CASE WHEN j.metadata ->> 'cancel_requested_at' IS NOT NULL
                                      OR coalesce((j.metadata ->> 'rescue_count')::int, 0) + 1
                                         >= (SELECT max_rescues FROM lim)
                                    THEN (SELECT now FROM clk) END,
                attempt = j.attempt - 1, -- given back: the node died, the handler did not fail
                scheduled_at = (SELECT now FROM clk),
                errors = j.errors || jsonb_build_array(jsonb_build_object(
                    'attempt', j.attempt,
                    'at', (SELECT now FROM clk),
                    'error', 'node_gone',
                    'message', 'node ' || j.attempted_by || ' is gone: no database session of it'
                               || ' holds its lock (lease until ' || j.lease_expires_at || ')')),
          """
          + RESCUED
          + "\nAND j.attempted_by IN (SELECT id FROM gone)"
          + RESCUE_ANSWER;

  // Due scheduled and retryable jobs become available; each queue that got some is notified once.
  // Binds: the lead, limit, channel.
  private static final String SCHEDULE =
      LEAD
          + """
          ,
          picked AS MATERIALIZED (
            SELECT id FROM ${schema}.job
            WHERE EXISTS (SELECT 1 FROM lead)
              AND state IN ('scheduled', 'retryable') AND scheduled_at <= (SELECT now FROM clk)
            ORDER BY scheduled_at, id
            LIMIT ?
            FOR UPDATE SKIP LOCKED
          ),
          upd AS (
            UPDATE ${schema}.job j SET state = 'available'
            WHERE j.id = ANY (ARRAY(SELECT id FROM picked))
              AND j.state IN ((SELECT 'scheduled'::text), (SELECT 'retryable'::text))
            RETURNING j.queue
          ),
          n AS (SELECT pg_notify(?, q.queue) FROM (SELECT DISTINCT queue FROM upd) q)
          SELECT (SELECT count(*) FROM lead), (SELECT count(*) FROM upd), (SELECT count(*) FROM n)
          """;

  // Finished jobs of one state past their retention, oldest first ("picked"), deleted ("del").
  // Binds: state, retention ms, limit, state.
  @Fragment
  private static final String CLEANED =
      """
      picked AS MATERIALIZED (
        SELECT id FROM ${schema}.job
        WHERE EXISTS (SELECT 1 FROM lead)
          AND state = ? AND finalized_at IS NOT NULL
          AND finalized_at < (SELECT now FROM clk) - make_interval(secs => ? / 1000.0)
        ORDER BY finalized_at, id
        LIMIT ?
        FOR UPDATE SKIP LOCKED
      ),
      del AS (
        DELETE FROM ${schema}.job j USING picked WHERE j.id = picked.id AND j.state = ?
        RETURNING j.*
      ),
      -- the deleted jobs' own edges (the jobs they waited for) go with them; an edge to a deleted
      -- dependency stays while its dependent does, carrying the dependency's state and output
      edges AS (
        DELETE FROM ${schema}.job_dependency e USING del WHERE e.job_id = del.id
      )""";

  // Finished jobs of one state past their retention are deleted, oldest first. Binds: the lead,
  // then CLEANED's.
  private static final String CLEAN =
      LEAD + ",\n" + CLEANED + "\nSELECT (SELECT count(*) FROM lead), (SELECT count(*) FROM del)";

  // CLEAN when finished jobs are archived: the deleted rows move into job_archive in the same
  // statement, column by name (through a JSON record), so columns added to both tables by later
  // versions, which come after archived_at in job_archive, land in their own. Binds: as CLEAN.
  private static final String CLEAN_ARCHIVING =
      LEAD
          + ",\n"
          + CLEANED
          + """
          ,
          arch AS (
            INSERT INTO ${schema}.job_archive
            SELECT r.* FROM del d
            CROSS JOIN LATERAL jsonb_populate_record(NULL::${schema}.job_archive,
                to_jsonb(d) || jsonb_build_object('archived_at', (SELECT now FROM clk))) r
            RETURNING 1
          )
          SELECT (SELECT count(*) FROM lead), (SELECT count(*) FROM arch)
          """;

  // Completion counts (job_completions) older than a day are deleted: queue_stats reads the last
  // hour. Binds: the lead.
  private static final String PRUNE_COMPLETION_COUNTS =
      LEAD
          + """
          ,
          del AS (
            DELETE FROM ${schema}.job_completions
            WHERE EXISTS (SELECT 1 FROM lead) AND bucket < (SELECT now FROM clk) - interval '1 day'
            RETURNING 1
          )
          SELECT (SELECT count(*) FROM lead), (SELECT count(*) FROM del)
          """;

  // The history (job_stat_minute, schema version 12): the jobs finalized from 2 minutes ("overlap")
  // before where the last pass ended (job_stat_mark; without one, from "keep" ago, so a first pass
  // counts every finished row still kept) up to now, at most "span" of them per statement from the
  // first finished row on (a stretch without one is skipped), counted
  // per minute, queue and kind through job_finalized_idx, with the completions that deleted their
  // row (job_completions, no kind: ''). Each minute in the span is counted whole and the larger of
  // the old and new counts kept: a row committed after the pass that covered its finalized_at (a
  // long transaction) is counted by the next one if it committed within the overlap; a repeated
  // pass
  // or a new leader counts nothing twice; rows cleaned or archived meanwhile take nothing away. A
  // count never grows except by rows that were not yet visible, so the answer is exact for every
  // row that commits within the overlap of its finalized_at. Binds: the lead, overlap s, keep s,
  // span s.
  private static final String TALLY =
      LEAD
          + """
          ,
          since AS (
            SELECT greatest(
                     coalesce((SELECT through FROM ${schema}.job_stat_mark)
                                  - make_interval(secs => ?),
                              (SELECT now FROM clk) - make_interval(secs => ?)),
                     (SELECT now FROM clk) - make_interval(secs => ?)) AS at
          ),
          -- the first finished row from there on, found by one probe of each index: a span
          -- without any is skipped in one statement, not read a span at a time
          first AS (
            SELECT least(
                     (SELECT min(finalized_at) FROM ${schema}.job
                      WHERE state = 'completed' AND finalized_at >= s.at),
                     (SELECT min(finalized_at) FROM ${schema}.job
                      WHERE state = 'discarded' AND finalized_at >= s.at),
                     (SELECT min(finalized_at) FROM ${schema}.job
                      WHERE state = 'cancelled' AND finalized_at >= s.at),
                     (SELECT min(bucket) FROM ${schema}.job_completions WHERE bucket >= s.at))
                   AS at
            FROM since s
          ),
          span AS MATERIALIZED (
            SELECT to_timestamp(floor(extract(epoch FROM coalesce(f.at, (SELECT now FROM clk)))
                                      / 60) * 60) AS lo,
                   least((SELECT now FROM clk),
                         coalesce(f.at, (SELECT now FROM clk)) + make_interval(secs => ?)) AS hi
            FROM first f WHERE EXISTS (SELECT 1 FROM lead)
          ),
          finished AS (
            SELECT to_timestamp(floor(extract(epoch FROM j.finalized_at) / 60) * 60) AS minute,
                   j.queue, j.kind,
                   count(*) FILTER (WHERE j.state = 'completed') AS completed,
                   count(*) FILTER (WHERE j.state = 'discarded'
                       AND (j.errors -> -1 ->> 'error') IS DISTINCT FROM 'node_gone'
                       AND (j.errors -> -1 ->> 'error') IS DISTINCT FROM 'lease_expired') AS failed,
                   count(*) FILTER (WHERE j.state = 'discarded'
                       AND (j.errors -> -1 ->> 'error') IN ('node_gone', 'lease_expired'))
                       AS rescued,
                   count(*) FILTER (WHERE j.state = 'cancelled') AS cancelled
            FROM ${schema}.job j, span
            WHERE j.state IN ('completed', 'cancelled', 'discarded')
              AND j.finalized_at >= span.lo AND j.finalized_at < span.hi
            GROUP BY 1, 2, 3
            UNION ALL
            SELECT to_timestamp(floor(extract(epoch FROM c.bucket) / 60) * 60), c.queue, '',
                   sum(c.n), 0, 0, 0
            FROM ${schema}.job_completions c, span
            WHERE c.bucket >= span.lo AND c.bucket < span.hi
            GROUP BY 1, 2
          ),
          up AS (
            INSERT INTO ${schema}.job_stat_minute AS s
                (minute, queue, kind, completed, failed, rescued, cancelled)
            SELECT minute, queue, kind, sum(completed), sum(failed), sum(rescued), sum(cancelled)
            FROM finished GROUP BY 1, 2, 3
            ON CONFLICT (minute, queue, kind) DO UPDATE
            SET completed = greatest(s.completed, excluded.completed),
                failed = greatest(s.failed, excluded.failed),
                rescued = greatest(s.rescued, excluded.rescued),
                cancelled = greatest(s.cancelled, excluded.cancelled)
            -- an unchanged minute is not written again
            WHERE excluded.completed > s.completed OR excluded.failed > s.failed
               OR excluded.rescued > s.rescued OR excluded.cancelled > s.cancelled
            RETURNING 1
          ),
          marked AS (
            INSERT INTO ${schema}.job_stat_mark AS m (id, through)
            SELECT true, hi FROM span
            ON CONFLICT (id) DO UPDATE SET through = greatest(m.through, excluded.through)
            RETURNING through
          )
          SELECT (SELECT count(*) FROM lead), (SELECT count(*) FROM up),
                 (SELECT hi FROM span), (SELECT now FROM clk)
          """;

  // Minutes of history older than "keep" are deleted. Binds: the lead, keep s.
  private static final String PRUNE_HISTORY =
      LEAD
          + """
          ,
          del AS (
            DELETE FROM ${schema}.job_stat_minute
            WHERE EXISTS (SELECT 1 FROM lead)
              AND minute < (SELECT now FROM clk) - make_interval(secs => ?)
            RETURNING 1
          )
          SELECT (SELECT count(*) FROM lead), (SELECT count(*) FROM del)
          """;

  // Nodes that stopped beating are removed from the registry. Their running jobs keep their
  // leases: the rescuer acts on those. Binds: the lead, ttl ms.
  private static final String PRUNE_NODES =
      LEAD
          + """
          ,
          del AS (
            DELETE FROM ${schema}.node
            WHERE EXISTS (SELECT 1 FROM lead)
              AND heartbeat_at < (SELECT now FROM clk) - make_interval(secs => ? / 1000.0)
            RETURNING id
          )
          SELECT l.leading, d.id FROM (SELECT count(*) AS leading FROM lead) l LEFT JOIN del d ON true
          """;

  // Opens a leader transaction: share-locks the leader row for the rest of the transaction and
  // returns the time to use. No row when not leading. Binds: the lead.
  private static final String LOCK_LEAD = LEAD + "\nSELECT (SELECT now FROM clk) FROM lead";

  private static final String LOCK_PERIODIC =
      "SELECT schedule, last_due_at, last_job_id FROM ${schema}.periodic WHERE name = ? FOR UPDATE";

  private static final String SAVE_PERIODIC =
      """
      INSERT INTO ${schema}.periodic (name, schedule, last_due_at, last_job_id, updated_at)
      VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (name) DO UPDATE
      SET schedule = excluded.schedule, last_due_at = excluded.last_due_at,
          last_job_id = coalesce(excluded.last_job_id, ${schema}.periodic.last_job_id),
          updated_at = excluded.updated_at
      """;

  private final SchemaName schema;
  private final String lockPeriodic;
  private final String savePeriodic;
  private final String rescue;
  private final String rescueGone;
  private final String scheduleSql;
  private final String clean;
  private final String cleanArchive;
  private final String pruneNodes;
  private final String pruneCompletionCounts;
  private final String tally;
  private final String pruneHistory;
  private final String lockLead;

  /** Prepares the SQL text for {@code schema}. */
  public MaintenanceStore(SchemaName schema) {
    this.schema = schema;
    this.rescue = schema.expand(RESCUE);
    this.rescueGone = schema.expand(RESCUE_GONE);
    this.scheduleSql = schema.expand(SCHEDULE);
    this.clean = schema.expand(CLEAN);
    this.cleanArchive = schema.expand(CLEAN_ARCHIVING);
    this.pruneNodes = schema.expand(PRUNE_NODES);
    this.pruneCompletionCounts = schema.expand(PRUNE_COMPLETION_COUNTS);
    this.tally = schema.expand(TALLY);
    this.pruneHistory = schema.expand(PRUNE_HISTORY);
    this.lockLead = schema.expand(LOCK_LEAD);
    this.lockPeriodic = schema.expand(LOCK_PERIODIC);
    this.savePeriodic = schema.expand(SAVE_PERIODIC);
  }

  /** Where a periodic schedule stands. */
  public record PeriodicState(String schedule, Instant lastDueAt, Long lastJobId) {}

  /** Locks and reads the row of periodic job {@code name}, in {@code c}'s transaction; or null. */
  public PeriodicState lockPeriodic(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(lockPeriodic)) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        long job = rs.getLong(3);
        return new PeriodicState(
            rs.getString(1), Timestamps.instant(rs, 2), rs.wasNull() ? null : job);
      }
    }
  }

  /** Records where periodic job {@code name} stands, in {@code c}'s transaction. */
  public void savePeriodic(
      Connection c, String name, String schedule, Instant lastDueAt, Long lastJobId, Instant now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(savePeriodic)) {
      ps.setString(1, name);
      ps.setString(2, schedule);
      Timestamps.setInstant(ps, 3, lastDueAt);
      if (lastJobId == null) {
        ps.setNull(4, java.sql.Types.BIGINT);
      } else {
        ps.setLong(4, lastJobId);
      }
      Timestamps.setInstant(ps, 5, now);
      ps.executeUpdate();
    }
  }

  /** A job the rescuer returned to the queue, and the state it is in now. */
  public record Rescued(long id, String state, String attemptedBy) {}

  /** Rescues up to {@code limit} expired jobs. */
  /**
   * Rescues up to {@code limit} expired jobs; a job at its {@code maxRescues}-th rescue is
   * discarded.
   */
  public List<Rescued> rescue(
      DataSource ds, Leadership lead, Instant now, int maxRescues, int limit) {
    return rescue(
        ds, lead, now, "cannot rescue expired jobs", rescue, maxRescues, (c, ps, i) -> i, limit);
  }

  /**
   * Rescues up to {@code limit} running jobs of the nodes {@code gone} whose session locks are
   * still free, claimed before {@code freeSince} (when their locks were first seen free, by the
   * database clock).
   */
  public List<Rescued> rescueGone(
      DataSource ds,
      Leadership lead,
      Instant now,
      int maxRescues,
      List<String> gone,
      Instant freeSince,
      int limit) {
    return rescue(
        ds,
        lead,
        now,
        "cannot rescue jobs of gone nodes " + gone,
        rescueGone,
        maxRescues,
        (c, ps, i) -> {
          ps.setArray(i++, c.createArrayOf("text", gone.toArray()));
          ps.setString(i++, ClusterStore.lockKey(schema));
          Timestamps.setInstant(ps, i++, freeSince);
          return i;
        },
        limit);
  }

  @FunctionalInterface
  private interface Binder {
    int bind(Connection c, PreparedStatement ps, int index) throws SQLException;
  }

  private List<Rescued> rescue(
      DataSource ds,
      Leadership lead,
      Instant now,
      String what,
      String sql,
      int maxRescues,
      Binder which,
      int limit) {
    return Db.inTransaction(
        ds,
        what,
        c -> {
          try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = bindLead(ps, lead, now);
            ps.setInt(i++, maxRescues);
            i = which.bind(c, ps, i);
            ps.setInt(i, limit);
            List<Rescued> out = new ArrayList<>();
            boolean leading = false;
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                leading = rs.getLong(1) > 0;
                long id = rs.getLong(2);
                if (!rs.wasNull()) {
                  out.add(new Rescued(id, rs.getString(3), rs.getString(4)));
                }
              }
            }
            requireLeading(leading, lead);
            return out;
          }
        });
  }

  /** Makes up to {@code limit} due jobs available. Returns how many. */
  public int schedule(DataSource ds, Leadership lead, Instant now, int limit) {
    return Db.inTransaction(
        ds,
        "cannot schedule due jobs",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(scheduleSql)) {
            int i = bindLead(ps, lead, now);
            ps.setInt(i++, limit);
            ps.setString(i, schema.insertChannel());
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              requireLeading(rs.getLong(1) > 0, lead);
              return rs.getInt(2);
            }
          }
        });
  }

  /**
   * Deletes (or, with {@code archive}, moves to {@code job_archive}) up to {@code limit} jobs in
   * {@code state} finalized more than {@code retention} ago. Returns how many.
   */
  public int clean(
      DataSource ds,
      Leadership lead,
      Instant now,
      String state,
      Duration retention,
      int limit,
      boolean archive) {
    return Db.inTransaction(
        ds,
        "cannot clean " + state + " jobs",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(archive ? cleanArchive : clean)) {
            int i = bindLead(ps, lead, now);
            ps.setString(i++, state);
            ps.setLong(i++, retention.toMillis());
            ps.setInt(i++, limit);
            ps.setString(i, state);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              requireLeading(rs.getLong(1) > 0, lead);
              return rs.getInt(2);
            }
          }
        });
  }

  /** Deletes the completion counts of buckets older than a day. Returns how many rows. */
  public int pruneCompletionCounts(DataSource ds, Leadership lead, Instant now) {
    return Db.inTransaction(
        ds,
        "cannot prune completion counts",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(pruneCompletionCounts)) {
            bindLead(ps, lead, now);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              requireLeading(rs.getLong(1) > 0, lead);
              return rs.getInt(2);
            }
          }
        });
  }

  /**
   * What one tally statement did.
   *
   * @param minutes the minute rows it wrote (new or larger counts)
   * @param through where it ended: the next statement starts {@code overlap} before it
   * @param now the time it compared with
   */
  public record Tally(int minutes, Instant through, Instant now) {}

  /**
   * Counts the jobs finalized from {@code overlap} before the end of the last tally (or {@code
   * keep} ago) up to now, at most {@code span} of them, into {@code job_stat_minute}; see TALLY.
   */
  public Tally tally(
      DataSource ds, Leadership lead, Instant now, Duration overlap, Duration keep, Duration span) {
    return Db.inTransaction(
        ds,
        "cannot tally finished jobs",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(tally)) {
            int i = bindLead(ps, lead, now);
            ps.setLong(i++, overlap.toSeconds());
            ps.setLong(i++, keep.toSeconds());
            ps.setLong(i++, keep.toSeconds());
            ps.setLong(i, span.toSeconds());
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              requireLeading(rs.getLong(1) > 0, lead);
              return new Tally(rs.getInt(2), Timestamps.instant(rs, 3), Timestamps.instant(rs, 4));
            }
          }
        });
  }

  /** Deletes the minutes of history older than {@code keep}. Returns how many rows. */
  public int pruneHistory(DataSource ds, Leadership lead, Instant now, Duration keep) {
    return Db.inTransaction(
        ds,
        "cannot prune the history of finished jobs",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(pruneHistory)) {
            int i = bindLead(ps, lead, now);
            ps.setLong(i, keep.toSeconds());
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              requireLeading(rs.getLong(1) > 0, lead);
              return rs.getInt(2);
            }
          }
        });
  }

  /** Removes nodes whose last heartbeat is older than {@code ttl}. Returns their ids. */
  public List<String> pruneNodes(DataSource ds, Leadership lead, Instant now, Duration ttl) {
    return Db.inTransaction(
        ds,
        "cannot prune nodes",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(pruneNodes)) {
            int i = bindLead(ps, lead, now);
            ps.setLong(i, ttl.toMillis());
            List<String> out = new ArrayList<>();
            boolean leading = false;
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                leading = rs.getLong(1) > 0;
                String id = rs.getString(2);
                if (id != null) {
                  out.add(id);
                }
              }
            }
            requireLeading(leading, lead);
            return out;
          }
        });
  }

  /**
   * In the open transaction of {@code c}: share-locks the leader row until the transaction ends, so
   * no election completes meanwhile, and returns the time to use.
   *
   * @throws NotLeaderException if {@code lead}'s term is over
   */
  public Instant lockLead(Connection c, Leadership lead, Instant now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(lockLead)) {
      bindLead(ps, lead, now);
      try (ResultSet rs = ps.executeQuery()) {
        requireLeading(rs.next(), lead);
        return Timestamps.instant(rs, 1);
      }
    }
  }

  private static int bindLead(PreparedStatement ps, Leadership lead, Instant now)
      throws SQLException {
    Timestamps.setInstant(ps, 1, now);
    ps.setString(2, lead.role());
    ps.setString(3, lead.nodeId());
    ps.setLong(4, lead.term());
    return 5;
  }

  private static void requireLeading(boolean leading, Leadership lead) {
    if (!leading) {
      throw new NotLeaderException(lead);
    }
  }
}
