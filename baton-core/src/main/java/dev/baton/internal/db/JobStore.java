package dev.baton.internal.db;

import dev.baton.BatonException;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * Every statement on the {@code job} table. Times come from the database clock ({@code now()}), so
 * nodes with skewed clocks still agree on leases.
 *
 * <p>Not public API.
 */
public final class JobStore {

  /**
   * Columns of a full {@link dev.baton.Job} read, in the order {@link JobRow#read} takes them by
   * position: a statement selects them first. Times come as microseconds since the epoch: pgjdbc
   * builds a calendar for each result set that reads a {@code timestamptz}, which was a sixth of
   * the client's CPU in a single enqueue.
   */
  public static final String JOB_COLUMNS =
      "id, queue, kind, args::text AS args, state, priority, attempt, max_attempts, "
          + micros("scheduled_at")
          + ", "
          + micros("attempted_at")
          + ", attempted_by, "
          + micros("lease_expires_at")
          + ", "
          + micros("deadline_at")
          + ", fence, idempotency_key, errors::text AS errors, metadata::text AS metadata, "
          + micros("created_at")
          + ", "
          + micros("finalized_at");

  /** {@code column}, a {@code timestamptz}, as microseconds since the epoch, under its own name. */
  private static String micros(String column) {
    return "(extract(epoch FROM " + column + ") * 1000000)::bigint AS " + column;
  }

  // One statement inserts the job and, when it is available now, notifies its queue. NOTIFY is
  // transactional: listeners hear it at commit, never for a rolled-back job, and Postgres folds
  // repeats of one (channel, payload) in a transaction into one. A conflicting idempotency key
  // inserts nothing and returns no row, so nothing is notified; the caller then reads the existing
  // job. The notify is an expression of RETURNING, evaluated for the inserted row only when it is
  // available: a plain INSERT, which the server runs 1.06-1.10x faster than the same insert in a
  // CTE with the notify in a second one (pgbench, 6 alternations). Binds: queue, kind, args, run
  // time, priority, max attempts, run time again, key, metadata, channel.
  private static final String ENQUEUE =
      """
      INSERT INTO %1$s.job
        (queue, kind, args, state, priority, max_attempts, scheduled_at, idempotency_key, metadata)
      VALUES (?, ?, ?::jsonb, CASE WHEN ?::timestamptz > now() THEN 'scheduled' ELSE 'available' END,
              ?, ?, coalesce(?::timestamptz, now()), ?, ?::jsonb)
      ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
      RETURNING %2$s, CASE WHEN state = 'available' THEN pg_notify(?, queue) IS NULL END AS notified
      """;

  // Claim on enqueue: the same insert, but when nothing of the queue waits ahead of the job (an
  // available job of the same or a higher priority, which a claim would take first) and the queue
  // is not paused, the row is written already claimed by the enqueuing node, under a new fence,
  // with lease and deadline as MARK_PICKED_RUNNING sets them. Otherwise it is a plain available
  // insert with its NOTIFY. A job another claimer has locked but not yet committed still reads as
  // available here, so it too keeps its place. Binds: queue, priority, queue, queue, kind, args,
  // priority, max attempts, key, metadata, node id, lease ms, deadline ms, channel.
  private static final String ENQUEUE_CLAIMING =
      """
      WITH go AS (
        SELECT NOT EXISTS (SELECT 1 FROM %1$s.job
                           WHERE state = 'available' AND queue = ? AND priority <= ?)
           AND NOT EXISTS (SELECT 1 FROM %1$s.queue q WHERE q.name = ? AND q.paused_at IS NOT NULL)
           AS here
      )
      INSERT INTO %1$s.job
        (queue, kind, args, state, priority, max_attempts, idempotency_key, metadata, attempt,
         attempted_at, attempted_by, lease_expires_at, deadline_at, fence)
      SELECT ?, ?, ?::jsonb, CASE WHEN go.here THEN 'running' ELSE 'available' END, ?, ?, ?,
             ?::jsonb, CASE WHEN go.here THEN 1 ELSE 0 END,
             CASE WHEN go.here THEN now() END,
             CASE WHEN go.here THEN ? END,
             CASE WHEN go.here THEN now() + ? * interval '1 millisecond' END,
             CASE WHEN go.here THEN now() + ? * interval '1 millisecond' END,
             CASE WHEN go.here THEN nextval('%1$s.job_fence_seq') ELSE 0 END
      FROM go
      ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
      RETURNING %2$s, CASE WHEN state = 'available' THEN pg_notify(?, queue) IS NULL END AS notified
      """;

  private static final String GET_BY_KEY = "SELECT %2$s FROM %1$s.job WHERE idempotency_key = ?";

  private static final String GET = "SELECT %2$s FROM %1$s.job WHERE id = ?";

  // Bulk insert from arrays in one statement. Ids are drawn from the identity sequence (named
  // once, not looked up per row) in request order inside a materialized CTE, so the returned ids
  // map back to requests without relying on RETURNING order; a request whose key repeats an
  // earlier one in the same call conflicts with it and maps to it.
  private static final String ENQUEUE_MANY =
      """
      WITH p AS MATERIALIZED (
        SELECT nextval('%1$s.job_id_seq'::regclass) AS id, r.*
        FROM unnest(?::text[], ?::text[], ?::text[], ?::int[], ?::int[], ?::timestamptz[],
                    ?::text[], ?::text[]) WITH ORDINALITY
             AS r(queue, kind, args, priority, max_attempts, run_at, idempotency_key, metadata, ord)
        ORDER BY r.ord
      ),
      ins AS (
        INSERT INTO %1$s.job
          (id, queue, kind, args, state, priority, max_attempts, scheduled_at, idempotency_key,
           metadata)
        OVERRIDING SYSTEM VALUE
        SELECT id, queue, kind, args::jsonb,
               CASE WHEN run_at IS NULL OR run_at <= now() THEN 'available' ELSE 'scheduled' END,
               priority, max_attempts, coalesce(run_at, now()), idempotency_key, metadata::jsonb
        FROM p
        ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING id, queue, state
      ),
      n AS (SELECT pg_notify(?, q.queue) FROM (SELECT DISTINCT queue FROM ins WHERE state = 'available') q)
      SELECT p.ord, ins.id, (SELECT count(*) FROM n) AS notified
      FROM ins JOIN p ON p.id = ins.id
      """;

  // The COPY path of a bulk enqueue (see enqueueMany): ids drawn first, in request order, then the
  // rows streamed in COPY's text format with those ids (COPY writes a GENERATED ALWAYS identity
  // column as given), then one NOTIFY per queue. No ON CONFLICT and no run times, so state,
  // scheduled_at and created_at are the table's defaults: available, now(), now(). The draw returns
  // one row: the first and last id and, only when other sessions drew ids in between (the range has
  // gaps), every id in order. Sending 10,000 ids as rows cost the client more than the draw.
  private static final String DRAW_IDS =
      """
      SELECT min(id), max(id),
             CASE WHEN max(id) - min(id) + 1 = count(*) THEN NULL ELSE array_agg(id ORDER BY id) END
      FROM (SELECT nextval('%1$s.job_id_seq'::regclass) AS id FROM generate_series(1, ?)) d
      """;

  private static final String COPY_JOBS =
      "COPY %1$s.job (id, queue, kind, args, priority, max_attempts, metadata) FROM STDIN";

  private static final String NOTIFY_QUEUES =
      "SELECT count(pg_notify(?, q)) FROM unnest(?::text[]) AS q";

  private static final String GET_IDS_BY_KEYS =
      "SELECT idempotency_key, id FROM %1$s.job WHERE idempotency_key = ANY(?::text[])";

  // Fragments shared by CLAIM and COMPLETE_AND_CLAIM, and by COMPLETE_MANY_IF_HELD and
  // COMPLETE_AND_CLAIM, so that the claim and the completion are written once.

  // Picks up to N available ids of one queue in claim order, locking them and skipping rows
  // another claimer holds. MATERIALIZED stops the planner from re-running it per updated row
  // (which could claim more than N, or one row twice). A queue paused cluster-wide yields nothing
  // (one primary-key probe of the queue table). Binds: queue, queue, limit.
  private static final String PICK_AVAILABLE =
      """
      picked AS MATERIALIZED (
        SELECT id FROM %1$s.job
        WHERE state = 'available' AND queue = ?
          AND NOT EXISTS (SELECT 1 FROM %1$s.queue q WHERE q.name = ? AND q.paused_at IS NOT NULL)
        ORDER BY priority, scheduled_at, id
        LIMIT ?
        FOR UPDATE SKIP LOCKED
      )""";

  // Marks the picked rows running under a new fence from the sequence, with a lease and deadline
  // from the database clock. The deadline is the kind's timeout plus a grace of one lease: the
  // holder interrupts its handler at the timeout itself; the rescuer acts on the deadline only if
  // the holder did not. Binds: node id, lease ms, timeout kinds, timeout ms, default timeout ms,
  // lease ms.
  private static final String MARK_PICKED_RUNNING =
      """
      UPDATE %1$s.job j
      SET state = 'running',
          attempt = j.attempt + 1,
          attempted_at = now(),
          attempted_by = ?,
          lease_expires_at = now() + ? * interval '1 millisecond',
          deadline_at = now() + (coalesce(
              (SELECT t.ms FROM unnest(?::text[], ?::bigint[]) AS t(kind, ms) WHERE t.kind = j.kind),
              ?) + ?) * interval '1 millisecond',
          fence = nextval('%1$s.job_fence_seq')
      WHERE j.id = ANY (ARRAY(SELECT id FROM picked))
      RETURNING j.id, j.queue, j.kind, j.args::text AS args, j.attempt, j.max_attempts, j.fence,
                j.idempotency_key, j.metadata::text AS metadata,
                -- epoch microseconds: cheaper to read than a timestamptz through the driver
                (extract(epoch FROM j.deadline_at) * 1000000)::bigint AS deadline_us,
                j.metadata ->> 'cancel_requested_at' IS NOT NULL AS cancel_requested,
                -- how long it had been due, for the pickup latency metric; by the database clock
                greatest(0, floor(extract(epoch FROM now() - j.scheduled_at) * 1000000))::bigint
                  AS due_for_us""";

  // Every write of a holder finds its rows by primary key, one probe per (id, fence) pair (a
  // LATERAL sub-select per pair), and tests the state against (SELECT 'running'::text), never the
  // bare literal. Given the literal, the planner can prove job_running_idx's predicate and read
  // that whole index instead: every running job of every node, for a batch of a few. Statistics
  // taken while few jobs ran (a table analysed while idle, then a burst) invite it, and a
  // completion or heartbeat then costs in proportion to the cluster's running jobs, not to its
  // own batch (pgbench, a drain of 100,000 jobs beside 20,000 long-running ones of another node:
  // 0.51-0.76x its idle rate with the literal). The sub-select hides the constant from that proof.
  //
  // The pairs are probed one by one because a join of the pairs with a scan of their ids let the
  // planner rescan that scan for every pair (a generic plan estimates 10 pairs): quadratic in the
  // batch. The rows a statement locked or picked are then written through an array of their ids,
  // without a join: a generic plan estimates a tenth of the table for "LIMIT ?", and it joined the
  // picked rows to a scan of the whole table (pgbench: half the drain's rate once it switched).
  // FencedWritesProbeTheKeyTest checks the plans, custom and generic.

  // Locks the held rows among (id, fence) pairs in id order: the completer, a producer completing
  // with its claim, and a transactional completion write overlapping rows of one node at once, and
  // rows locked in whatever order a plan visits them could deadlock them. Binds: ids, fences.
  private static final String LOCK_HELD =
      """
      f AS (SELECT * FROM unnest(?::bigint[], ?::bigint[]) AS f(id, fence)),
      locked AS MATERIALIZED (
        SELECT held.id FROM (SELECT * FROM f ORDER BY f.id) f
        CROSS JOIN LATERAL (
          SELECT j.id FROM %1$s.job j
          WHERE j.id = f.id AND j.fence = f.fence AND j.state = (SELECT 'running'::text)
          FOR UPDATE OF j
        ) held
      )""";

  // Completes the locked rows; returns the fence each was completed under.
  private static final String COMPLETE_LOCKED =
      """
      UPDATE %1$s.job j
      SET state = 'completed', finalized_at = now(), lease_expires_at = NULL, deadline_at = NULL
      WHERE j.id = ANY (ARRAY(SELECT id FROM locked))
      RETURNING j.fence""";

  // The same completion when completed jobs are not kept (completedRetention zero): the locked
  // rows are deleted, as the CTE "done". A delete writes no new row version and no index entry,
  // where the update writes both. COUNT_DONE must follow it.
  private static final String DELETE_LOCKED =
      """
      DELETE FROM %1$s.job j
      WHERE j.id = ANY (ARRAY(SELECT id FROM locked))
      RETURNING j.id, j.fence, j.queue, j.attempted_by""";

  // Adds the jobs deleted by "done" to the completion counts (job_completions, schema version 4)
  // of the current 10-second bucket, per queue, node (the holder's, attempted_by) and connection
  // (its backend pid), so that queue_stats still counts them. The row is updated in place and
  // stays locked until this transaction ends; keyed by connection, it is never wanted by another
  // transaction meanwhile: two statements of a node on two connections never wait for each other,
  // nor for a handler's transaction that completed its job (ctx.completeIn) and is still open.
  private static final String COUNT_DONE_INSERT =
      """
      INSERT INTO %1$s.job_completions AS c (bucket, queue, node, pid, n)
      SELECT to_timestamp(floor(extract(epoch FROM now()) / 10) * 10), queue,
             coalesce(attempted_by, ''), pg_backend_pid(), count(*)
      FROM done GROUP BY queue, attempted_by
      ON CONFLICT (bucket, queue, node, pid) DO UPDATE SET n = c.n + excluded.n""";

  private static final String COUNT_DONE = "counted AS (\n" + COUNT_DONE_INSERT + "\n)";

  // The claim, one autocommit statement.
  private static final String CLAIM = "WITH " + PICK_AVAILABLE + "\n" + MARK_PICKED_RUNNING;

  // The hot path when a node has finished jobs to report: one statement completes them (fenced)
  // and claims the next batch. One commit instead of two per batch. The two UPDATEs never touch
  // the same row: one takes running rows, the other available ones. Completions come back as rows
  // with is_done = true, carrying the fence they were written under.
  private static final String COMPLETE_AND_CLAIM =
      "WITH "
          + LOCK_HELD
          + ",\ndone AS (\n"
          + "%2$s"
          + "\n),\n%3$s"
          + PICK_AVAILABLE
          + ",\nclaimed AS (\n"
          + MARK_PICKED_RUNNING
          + "\n)\n"
          + """
          SELECT false AS is_done, claimed.* FROM claimed
          UNION ALL
          SELECT true, done.id, NULL, NULL, NULL, NULL, NULL, done.fence, NULL, NULL, NULL, NULL,
                 NULL
          FROM done""";

  // Plain completions of many jobs in one statement, each matched on (id, fence, running): a row
  // that another holder claimed since, or that was rescued or cancelled, is not touched.
  private static final String COMPLETE_MANY_IF_HELD = "WITH " + LOCK_HELD + "\n" + COMPLETE_LOCKED;

  // The same when completed jobs are not kept.
  private static final String DELETE_MANY_IF_HELD =
      "WITH "
          + LOCK_HELD
          + ",\ndone AS (\n"
          + DELETE_LOCKED
          + "\n),\n"
          + COUNT_DONE
          + "\nSELECT fence FROM done";

  // Any finish of many jobs in one statement, fenced and locked in id order like
  // COMPLETE_MANY_IF_HELD. Jobs made available again (zero snooze, hand-back) notify their queue.
  private static final String FINISH_MANY_IF_HELD =
      """
      WITH f AS (
        SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::text[], ?::bigint[], ?::jsonb[], ?::int[],
                             ?::jsonb[]) AS f(id, fence, state, delay_ms, error, attempt_delta, meta)
      ),
      locked AS MATERIALIZED (
        SELECT held.id, held.fence FROM (SELECT * FROM f ORDER BY f.id) f
        CROSS JOIN LATERAL (
          SELECT j.id, j.fence FROM %1$s.job j
          WHERE j.id = f.id AND j.fence = f.fence AND j.state = (SELECT 'running'::text)
          FOR UPDATE OF j
        ) held
      ),
      upd AS (
        UPDATE %1$s.job j
        SET state = f.state,
            scheduled_at = CASE WHEN f.delay_ms IS NULL THEN j.scheduled_at
                                ELSE now() + f.delay_ms * interval '1 millisecond' END,
            finalized_at = CASE WHEN f.state IN ('completed', 'cancelled', 'discarded')
                                THEN now() END,
            attempt = j.attempt + f.attempt_delta,
            errors = CASE WHEN f.error IS NULL THEN j.errors
                          ELSE j.errors || jsonb_build_array(f.error || jsonb_build_object('at', now()))
                     END,
            metadata = CASE WHEN f.meta IS NULL THEN j.metadata ELSE j.metadata || f.meta END,
            lease_expires_at = NULL,
            deadline_at = NULL
        FROM locked JOIN f ON f.id = locked.id AND f.fence = locked.fence
        WHERE j.id = locked.id%2$s
        RETURNING j.id, j.fence, j.queue, j.state
      ),%3$s
      n AS (SELECT pg_notify(?, q.queue) FROM (SELECT DISTINCT queue FROM upd WHERE state = 'available') q)
      SELECT upd.fence, (SELECT count(*) FROM n) AS notified FROM upd%4$s
      """;

  // What FINISH_MANY_IF_HELD gains when completed jobs are not kept, in its slots 2 to 4: the
  // update leaves completions alone, "done" deletes them and COUNT_DONE counts them, and their
  // fences join the update's in the result.
  private static final String FINISH_MANY_SKIPS_COMPLETED = " AND f.state <> 'completed'";

  private static final String FINISH_MANY_DELETES_COMPLETED =
      """

      done AS (
        DELETE FROM %1$s.job j
        USING locked JOIN f ON f.id = locked.id AND f.fence = locked.fence
        WHERE j.id = locked.id AND f.state = 'completed'
        RETURNING j.fence, j.queue, j.attempted_by
      ),
      """;

  private static final String FINISH_MANY_RETURNS_DELETED =
      "\nUNION ALL\nSELECT done.fence, NULL FROM done";

  // Transactional completion, on the handler's own connection and transaction.
  private static final String COMPLETE_IF_HELD =
      """
      UPDATE %1$s.job
      SET state = 'completed', finalized_at = now(), lease_expires_at = NULL, deadline_at = NULL
      WHERE id = ? AND fence = ? AND state = (SELECT 'running'::text)
      """;

  // The same when completed jobs are not kept. The count's INSERT reports one row when the job
  // was deleted (one group), none when it was not held: the update count of the statement.
  private static final String DELETE_IF_HELD =
      "WITH done AS (\n"
          + "  DELETE FROM %1$s.job WHERE id = ? AND fence = ? AND state = (SELECT 'running'::text)\n"
          + "  RETURNING queue, attempted_by\n"
          + ")\n"
          + COUNT_DONE_INSERT;

  // Lease extension for every job a node holds, in one statement. SKIP LOCKED: a row locked by
  // someone else (the handler's own transaction after ctx.completeIn, the completer) is skipped,
  // not waited for, so one open transaction cannot stall every lease of the node. The last SELECT
  // reads each row as last committed: a job that was not extended but is still running under this
  // fence was only skipped ("still held"); one that is not was lost. The lease never moves back
  // (ctx.extendLease may have pushed it further). The cancel flag rides along, for nodes that
  // missed the NOTIFY.
  private static final String HEARTBEAT_IF_HELD =
      """
      WITH h AS (SELECT * FROM unnest(?::bigint[], ?::bigint[]) AS h(id, fence)),
      locked AS MATERIALIZED (
        SELECT held.id FROM h
        CROSS JOIN LATERAL (
          SELECT j.id FROM %1$s.job j
          WHERE j.id = h.id AND j.fence = h.fence AND j.state = (SELECT 'running'::text)
          FOR UPDATE OF j SKIP LOCKED
        ) held
      ),
      upd AS (
        UPDATE %1$s.job j
        SET lease_expires_at = greatest(lease_expires_at, now() + ? * interval '1 millisecond')
        WHERE j.id = ANY (ARRAY(SELECT id FROM locked))
        RETURNING j.id, j.metadata ->> 'cancel_requested_at' IS NOT NULL AS cancel_requested
      )
      SELECT h.id, upd.id IS NOT NULL AS extended, coalesce(upd.cancel_requested, false),
             coalesce(j.fence = h.fence AND j.state = 'running', false) AS still_held
      FROM h
      LEFT JOIN upd ON upd.id = h.id
      LEFT JOIN %1$s.job j ON j.id = h.id
      """;

  private static final String EXTEND_IF_HELD =
      """
      UPDATE %1$s.job
      SET lease_expires_at = greatest(lease_expires_at, now() + ? * interval '1 millisecond'),
          deadline_at = greatest(deadline_at, now() + ? * interval '1 millisecond')
      WHERE id = ? AND fence = ? AND state = (SELECT 'running'::text)
      RETURNING deadline_at - ? * interval '1 millisecond'
      """;

  // Rescue: running jobs whose lease ran out (no heartbeat) or whose deadline passed go back to
  // retryable (or discarded at max attempts, or cancelled when a cancel was asked for), with an
  // error entry saying which. The re-check in the UPDATE's WHERE keeps a job that finished between
  // the pick and the lock untouched; SKIP LOCKED lets several nodes rescue at once.
  // Cancel: a waiting job is cancelled at once; a running one is flagged and its holder told over
  // NOTIFY (heartbeats carry the flag too, and the rescuer honours it if the holder is gone).
  private static final String CANCEL =
      """
      WITH upd AS (
        UPDATE %1$s.job
        SET state = CASE WHEN state = 'running' THEN 'running' ELSE 'cancelled' END,
            finalized_at = CASE WHEN state = 'running' THEN NULL ELSE now() END,
            metadata = metadata || jsonb_build_object('cancel_requested_at', now())
        WHERE id = ? AND state IN ('scheduled', 'available', 'running', 'retryable')
        RETURNING id, state, fence
      ),
      n AS (
        SELECT pg_notify(?, json_build_object('action', 'cancel', 'job_id', id, 'fence', fence)::text)
        FROM upd WHERE state = 'running'
      )
      SELECT state, (SELECT count(*) FROM n) AS notified FROM upd
      """;

  private static final String SCHEMA_VERSION =
      "SELECT coalesce(max(version), 0) FROM %1$s.migration WHERE line = 'queue'";

  private final SchemaName schema;
  private final boolean deletesCompleted;
  private final String enqueue;
  private final String enqueueClaiming;
  private final String getByKey;
  private final String get;
  private final String enqueueMany;
  private final String getIdsByKeys;
  private final String drawIds;
  private final String copyJobs;
  private final String claim;
  private final String completeManyIfHeld;
  private final String completeAndClaim;
  private final String finishManyIfHeld;
  private final String completeIfHeld;
  private final String heartbeatIfHeld;
  private final String extendIfHeld;
  private final String cancel;
  private final String schemaVersion;

  /** What a completion does to the job's row. */
  public enum CompletedRows {
    /** The row is kept, state completed, until the cleaner's retention passes. */
    KEPT,
    /** The row is deleted by the completion itself (completedRetention zero, no archive). */
    DELETED
  }

  /** Prepares the SQL text for {@code schema}, keeping completed rows. */
  public JobStore(SchemaName schema) {
    this(schema, CompletedRows.KEPT);
  }

  /** Prepares the SQL text for {@code schema}, with completions that keep or delete their row. */
  public JobStore(SchemaName schema, CompletedRows completed) {
    this.schema = schema;
    String s = schema.quoted();
    boolean delete = completed == CompletedRows.DELETED;
    this.deletesCompleted = delete;
    String count = COUNT_DONE.formatted(s);
    this.enqueue = ENQUEUE.formatted(s, JOB_COLUMNS);
    this.enqueueClaiming = ENQUEUE_CLAIMING.formatted(s, JOB_COLUMNS);
    this.getByKey = GET_BY_KEY.formatted(s, JOB_COLUMNS);
    this.get = GET.formatted(s, JOB_COLUMNS);
    this.enqueueMany = ENQUEUE_MANY.formatted(s);
    this.getIdsByKeys = GET_IDS_BY_KEYS.formatted(s);
    this.drawIds = DRAW_IDS.formatted(s);
    this.copyJobs = COPY_JOBS.formatted(s);
    this.claim = CLAIM.formatted(s);
    this.completeManyIfHeld = (delete ? DELETE_MANY_IF_HELD : COMPLETE_MANY_IF_HELD).formatted(s);
    this.completeAndClaim =
        delete
            ? COMPLETE_AND_CLAIM.formatted(s, DELETE_LOCKED.formatted(s), count + ",\n")
            : COMPLETE_AND_CLAIM.formatted(
                s,
                COMPLETE_LOCKED
                    .formatted(s)
                    .replace("RETURNING j.fence", "RETURNING j.id, j.fence"),
                "");
    this.finishManyIfHeld =
        delete
            ? FINISH_MANY_IF_HELD.formatted(
                s,
                FINISH_MANY_SKIPS_COMPLETED,
                FINISH_MANY_DELETES_COMPLETED.formatted(s) + count + ",",
                FINISH_MANY_RETURNS_DELETED)
            : FINISH_MANY_IF_HELD.formatted(s, "", "", "");
    this.completeIfHeld = (delete ? DELETE_IF_HELD : COMPLETE_IF_HELD).formatted(s);
    this.heartbeatIfHeld = HEARTBEAT_IF_HELD.formatted(s);
    this.extendIfHeld = EXTEND_IF_HELD.formatted(s);
    this.cancel = CANCEL.formatted(s);
    this.schemaVersion = SCHEMA_VERSION.formatted(s);
  }

  /**
   * Whether a completion deletes its job's row. A running row then disappears only by its
   * completion (the cleaner and the admin never delete a running job): a held job whose row is gone
   * was completed, though not necessarily under this holder's fence.
   */
  public boolean deletesCompleted() {
    return deletesCompleted;
  }

  /** The schema this store works on. */
  public SchemaName schema() {
    return schema;
  }

  /** A new job to insert. Args and metadata are JSON text. */
  public record NewJob(
      String queue,
      String kind,
      String args,
      int priority,
      int maxAttempts,
      Instant runAt,
      String idempotencyKey,
      String metadata) {}

  /**
   * Inserts {@code job} on {@code c}, or returns the job already holding its idempotency key. Runs
   * in whatever transaction {@code c} is in.
   */
  public JobRow enqueue(Connection c, NewJob job) throws SQLException {
    for (int tries = 0; tries < 5; tries++) {
      try (PreparedStatement ps = c.prepareStatement(enqueue)) {
        int i = 1;
        ps.setString(i++, job.queue());
        ps.setString(i++, job.kind());
        ps.setString(i++, job.args());
        setInstant(ps, i++, job.runAt());
        ps.setInt(i++, job.priority());
        ps.setInt(i++, job.maxAttempts());
        setInstant(ps, i++, job.runAt());
        ps.setString(i++, job.idempotencyKey());
        ps.setString(i++, job.metadata());
        ps.setString(i, schema.insertChannel());
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return JobRow.read(rs, false);
          }
        }
      }
      if (job.idempotencyKey() == null) {
        throw new BatonException("enqueue returned no row for a job without idempotency key");
      }
      try (PreparedStatement ps = c.prepareStatement(getByKey)) {
        ps.setString(1, job.idempotencyKey());
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return JobRow.read(rs, true);
          }
        }
      }
      // The job holding the key was deleted between the two statements: insert again.
    }
    throw new BatonException(
        "cannot enqueue job (idempotency_key="
            + job.idempotencyKey()
            + "): the key conflicted but its job could not be read; is the transaction"
            + " REPEATABLE READ or SERIALIZABLE? Retry it");
  }

  /**
   * Binds the inserted columns of {@code job} as ENQUEUE_CLAIMING lists them, from parameter {@code
   * i}: queue, kind, args, priority, max attempts, key, metadata. Returns the next parameter's
   * index.
   */
  private static int bindInsert(PreparedStatement ps, int i, NewJob job) throws SQLException {
    ps.setString(i++, job.queue());
    ps.setString(i++, job.kind());
    ps.setString(i++, job.args());
    ps.setInt(i++, job.priority());
    ps.setInt(i++, job.maxAttempts());
    ps.setString(i++, job.idempotencyKey());
    ps.setString(i++, job.metadata());
    return i;
  }

  /**
   * An enqueue that may have claimed its job: {@code claimed} is the claim when the row was written
   * running for the enqueuing node, else null ({@code row} is then available, or the existing job
   * holding the key).
   */
  public record EnqueuedClaim(JobRow row, ClaimedJob claimed) {}

  /**
   * Inserts {@code job} (due now) claimed by {@code p.nodeId()} when no job of its queue waits
   * ahead of it and the queue is not paused, else available; or returns the job already holding its
   * idempotency key. Runs in whatever transaction {@code c} is in: the caller commits before the
   * claim is acted on.
   */
  public EnqueuedClaim enqueueClaiming(Connection c, NewJob job, ClaimParams p)
      throws SQLException {
    if (job.runAt() != null) {
      throw new IllegalArgumentException("a job with a run time is not claimed in its insert");
    }
    long timeoutMs = p.defaultTimeout().toMillis();
    for (int k = 0; k < p.timeoutKinds().length; k++) {
      if (p.timeoutKinds()[k].equals(job.kind())) {
        timeoutMs = p.timeoutMillis()[k];
      }
    }
    try (PreparedStatement ps = c.prepareStatement(enqueueClaiming)) {
      int i = 1;
      ps.setString(i++, job.queue());
      ps.setInt(i++, job.priority());
      ps.setString(i++, job.queue());
      i = bindInsert(ps, i, job);
      ps.setString(i++, p.nodeId());
      ps.setLong(i++, p.lease().toMillis());
      ps.setLong(i++, timeoutMs + p.lease().toMillis());
      ps.setString(i, schema.insertChannel());
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          JobRow row = JobRow.read(rs, false);
          if (!"running".equals(row.state())) {
            return new EnqueuedClaim(row, null);
          }
          ClaimedJob claimed =
              new ClaimedJob(
                  row.id(),
                  row.queue(),
                  row.kind(),
                  row.args(),
                  row.attempt(),
                  row.maxAttempts(),
                  row.fence(),
                  row.idempotencyKey(),
                  row.metadata(),
                  row.deadlineAt(),
                  false,
                  0L);
          return new EnqueuedClaim(row, claimed);
        }
      }
    }
    // The key is held by another job: read it as a plain enqueue does.
    return new EnqueuedClaim(enqueue(c, job), null);
  }

  /**
   * Bulk enqueues of at least this many jobs, none holding an idempotency key or a run time, are
   * written with {@code COPY}: three statements and a stream, against one statement whose eight
   * arrays the server must parse and whose rows go through {@code ON CONFLICT} and a join back to
   * the requests. The statement wins below about 128 jobs (fewer round trips), COPY above (on the
   * machine of docs/BENCHMARKS.md: 7.0 against 8.2-9.2 µs per job at 512, 5.4-6.9 against 8.4-9.9
   * at 2,048). Smaller calls, and ones that need the conflict check or a run time, use {@link
   * #ENQUEUE_MANY}.
   */
  public static final int COPY_MIN_JOBS = 256;

  /**
   * Inserts many jobs on {@code c}, in whatever transaction {@code c} is in (an autocommit {@code
   * c} gets one transaction for the call). Returns, per job in order, its id and whether its
   * idempotency key matched an existing job. Ids ascend in request order.
   */
  public BulkResult enqueueMany(Connection c, List<NewJob> jobs) throws SQLException {
    if (jobs.size() >= COPY_MIN_JOBS
        && jobs.stream().allMatch(j -> j.idempotencyKey() == null && j.runAt() == null)
        && c.isWrapperFor(PGConnection.class)) {
      return Db.inOneTransaction(c, tx -> enqueueByCopy(tx, jobs));
    }
    return enqueueByStatement(c, jobs);
  }

  private BulkResult enqueueByCopy(Connection c, List<NewJob> jobs) throws SQLException {
    int n = jobs.size();
    long[] ids = drawIds(c, n);
    CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn(copyJobs);
    try {
      CopyText rows = new CopyText(copy);
      for (int i = 0; i < n; i++) {
        NewJob j = jobs.get(i);
        rows.field(ids[i])
            .field(j.queue())
            .field(j.kind())
            .field(j.args())
            .field(j.priority())
            .field(j.maxAttempts())
            .field(j.metadata())
            .endRow();
      }
      rows.flush();
      long copied = copy.endCopy();
      if (copied != n) {
        throw new BatonException("bulk enqueue copied " + copied + " rows of " + n);
      }
    } catch (SQLException | RuntimeException e) {
      if (copy.isActive()) {
        try {
          copy.cancelCopy(); // the connection must leave COPY mode to be used again
        } catch (SQLException cancel) {
          e.addSuppressed(cancel);
        }
      }
      throw e;
    }
    String[] queues = jobs.stream().map(NewJob::queue).distinct().toArray(String[]::new);
    try (PreparedStatement ps = c.prepareStatement(NOTIFY_QUEUES)) {
      ps.setString(1, schema.insertChannel());
      ps.setArray(2, c.createArrayOf("text", queues));
      ps.executeQuery().close();
    }
    return new BulkResult(ids, new boolean[n]);
  }

  /** Draws {@code n} ids from the job table's identity sequence, ascending. */
  private long[] drawIds(Connection c, int n) throws SQLException {
    long[] ids = new long[n];
    try (PreparedStatement ps = c.prepareStatement(drawIds)) {
      ps.setInt(1, n);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long first = rs.getLong(1);
        Array drawn = rs.getArray(3);
        if (drawn == null) {
          for (int i = 0; i < n; i++) {
            ids[i] = first + i;
          }
        } else {
          Object[] values = (Object[]) drawn.getArray();
          if (values.length != n) {
            throw new BatonException(
                "bulk enqueue drew " + values.length + " ids for " + n + " jobs");
          }
          for (int i = 0; i < n; i++) {
            ids[i] = ((Number) values[i]).longValue();
          }
        }
      }
    }
    return ids;
  }

  private BulkResult enqueueByStatement(Connection c, List<NewJob> jobs) throws SQLException {
    int n = jobs.size();
    String[] queues = new String[n];
    String[] kinds = new String[n];
    String[] args = new String[n];
    Integer[] priorities = new Integer[n];
    Integer[] maxAttempts = new Integer[n];
    String[] runAts = new String[n];
    String[] keys = new String[n];
    String[] metadata = new String[n];
    for (int i = 0; i < n; i++) {
      NewJob j = jobs.get(i);
      queues[i] = j.queue();
      kinds[i] = j.kind();
      args[i] = j.args();
      priorities[i] = j.priority();
      maxAttempts[i] = j.maxAttempts();
      runAts[i] = j.runAt() == null ? null : j.runAt().toString();
      keys[i] = j.idempotencyKey();
      metadata[i] = j.metadata();
    }
    long[] ids = new long[n];
    boolean[] existing = new boolean[n];
    boolean[] found = new boolean[n];
    try (PreparedStatement ps = c.prepareStatement(enqueueMany)) {
      ps.setArray(1, c.createArrayOf("text", queues));
      ps.setArray(2, c.createArrayOf("text", kinds));
      ps.setArray(3, c.createArrayOf("text", args));
      ps.setArray(4, c.createArrayOf("int4", priorities));
      ps.setArray(5, c.createArrayOf("int4", maxAttempts));
      ps.setArray(6, c.createArrayOf("text", runAts));
      ps.setArray(7, c.createArrayOf("text", keys));
      ps.setArray(8, c.createArrayOf("text", metadata));
      ps.setString(9, schema.insertChannel());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          int ord = (int) rs.getLong(1) - 1;
          ids[ord] = rs.getLong(2);
          found[ord] = true;
        }
      }
    }
    List<String> missingKeys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (!found[i]) {
        if (keys[i] == null) {
          throw new BatonException(
              "bulk enqueue returned no row for a job without idempotency key");
        }
        missingKeys.add(keys[i]);
      }
    }
    if (!missingKeys.isEmpty()) {
      Map<String, Long> byKey = new HashMap<>();
      try (PreparedStatement ps = c.prepareStatement(getIdsByKeys)) {
        ps.setArray(1, c.createArrayOf("text", missingKeys.toArray(new String[0])));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            byKey.put(rs.getString(1), rs.getLong(2));
          }
        }
      }
      for (int i = 0; i < n; i++) {
        if (!found[i]) {
          Long id = byKey.get(keys[i]);
          if (id == null) {
            throw new BatonException(
                "cannot enqueue job (idempotency_key="
                    + keys[i]
                    + "): the key conflicted but its job was deleted meanwhile; retry the call");
          }
          ids[i] = id;
          existing[i] = true;
        }
      }
    }
    return new BulkResult(ids, existing);
  }

  /** Ids per request, in order, and whether each matched an existing job by key. */
  public record BulkResult(long[] ids, boolean[] existing) {}

  /** Reads one job, or null. */
  public JobRow get(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(get)) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? JobRow.read(rs, false) : null;
      }
    }
  }

  /** Parameters of a claim. */
  public record ClaimParams(
      String queue,
      int limit,
      String nodeId,
      Duration lease,
      String[] timeoutKinds,
      Long[] timeoutMillis,
      Duration defaultTimeout) {}

  /** Claims up to {@code p.limit()} available jobs of one queue, in one autocommit statement. */
  public List<ClaimedJob> claim(DataSource ds, ClaimParams p) {
    return Db.inTransaction(
        ds,
        "cannot claim jobs (queue=" + p.queue() + ")",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(claim)) {
            bindClaim(c, ps, 1, p);
            List<ClaimedJob> out = new ArrayList<>(p.limit());
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                out.add(readClaimed(rs, 1));
              }
            }
            return out;
          }
        });
  }

  /**
   * What {@link #completeAndClaim} did: the jobs it claimed and the fences of the completions it
   * wrote (a fence names one claim of one job).
   */
  public record CompleteAndClaim(List<ClaimedJob> claimed, Set<Long> completed) {}

  /**
   * Completes {@code completions} (plain completions, each only if still held) and claims up to
   * {@code p.limit()} jobs of one queue, in one autocommit statement.
   */
  public CompleteAndClaim completeAndClaim(DataSource ds, List<Finish> completions, ClaimParams p) {
    Long[] ids = new Long[completions.size()];
    Long[] fences = new Long[completions.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = completions.get(i).id();
      fences[i] = completions.get(i).fence();
    }
    return Db.inTransaction(
        ds,
        "cannot complete " + ids.length + " jobs and claim jobs (queue=" + p.queue() + ")",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(completeAndClaim)) {
            ps.setArray(1, c.createArrayOf("int8", ids));
            ps.setArray(2, c.createArrayOf("int8", fences));
            bindClaim(c, ps, 3, p);
            List<ClaimedJob> claimed = new ArrayList<>(p.limit());
            Set<Long> completed = new HashSet<>(ids.length * 2);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                if (rs.getBoolean(1)) {
                  completed.add(rs.getLong(8));
                } else {
                  claimed.add(readClaimed(rs, 2));
                }
              }
            }
            return new CompleteAndClaim(claimed, completed);
          }
        });
  }

  private static void bindClaim(Connection c, PreparedStatement ps, int from, ClaimParams p)
      throws SQLException {
    int i = from;
    ps.setString(i++, p.queue());
    ps.setString(i++, p.queue());
    ps.setInt(i++, p.limit());
    ps.setString(i++, p.nodeId());
    ps.setLong(i++, p.lease().toMillis());
    ps.setArray(i++, c.createArrayOf("text", p.timeoutKinds()));
    ps.setArray(i++, c.createArrayOf("int8", p.timeoutMillis()));
    ps.setLong(i++, p.defaultTimeout().toMillis());
    ps.setLong(i, p.lease().toMillis());
  }

  private static ClaimedJob readClaimed(ResultSet rs, int from) throws SQLException {
    int i = from;
    return new ClaimedJob(
        rs.getLong(i),
        rs.getString(i + 1),
        rs.getString(i + 2),
        rs.getString(i + 3),
        rs.getInt(i + 4),
        rs.getInt(i + 5),
        rs.getLong(i + 6),
        rs.getString(i + 7),
        rs.getString(i + 8),
        instantOfMicros(rs.getLong(i + 9)),
        rs.getBoolean(i + 10),
        rs.getLong(i + 11));
  }

  /**
   * Writes {@code finishes}, each only if its holder still holds the job. Returns the fences of the
   * finishes that were written (a fence names one claim of one job); the others were fenced off.
   */
  public Set<Long> finishIfHeld(DataSource ds, List<Finish> finishes) {
    if (finishes.isEmpty()) {
      return Set.of();
    }
    boolean allPlain = finishes.stream().allMatch(Finish::isPlainCompletion);
    return Db.inTransaction(
        ds,
        "cannot record finished jobs (" + finishes.size() + " jobs)",
        c -> allPlain ? completeMany(c, finishes) : finishMany(c, finishes));
  }

  /** Writes one finish on the caller's connection. Returns whether it was written. */
  public boolean finishIfHeld(Connection c, Finish finish) throws SQLException {
    List<Finish> one = List.of(finish);
    return !(finish.isPlainCompletion() ? completeMany(c, one) : finishMany(c, one)).isEmpty();
  }

  private Set<Long> completeMany(Connection c, List<Finish> finishes) throws SQLException {
    Long[] ids = new Long[finishes.size()];
    Long[] fences = new Long[finishes.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = finishes.get(i).id();
      fences[i] = finishes.get(i).fence();
    }
    try (PreparedStatement ps = c.prepareStatement(completeManyIfHeld)) {
      ps.setArray(1, c.createArrayOf("int8", ids));
      ps.setArray(2, c.createArrayOf("int8", fences));
      return readFences(ps, finishes.size());
    }
  }

  private Set<Long> finishMany(Connection c, List<Finish> finishes) throws SQLException {
    int n = finishes.size();
    Long[] ids = new Long[n];
    Long[] fences = new Long[n];
    String[] states = new String[n];
    Long[] delays = new Long[n];
    String[] errors = new String[n];
    Integer[] deltas = new Integer[n];
    String[] metas = new String[n];
    for (int i = 0; i < n; i++) {
      Finish f = finishes.get(i);
      ids[i] = f.id();
      fences[i] = f.fence();
      states[i] = f.state();
      delays[i] = f.delayMillis();
      errors[i] = f.errorJson();
      deltas[i] = f.attemptDelta();
      metas[i] = f.metadataPatchJson();
    }
    try (PreparedStatement ps = c.prepareStatement(finishManyIfHeld)) {
      ps.setArray(1, c.createArrayOf("int8", ids));
      ps.setArray(2, c.createArrayOf("int8", fences));
      ps.setArray(3, c.createArrayOf("text", states));
      ps.setArray(4, c.createArrayOf("int8", delays));
      ps.setArray(5, c.createArrayOf("text", errors));
      ps.setArray(6, c.createArrayOf("int4", deltas));
      ps.setArray(7, c.createArrayOf("text", metas));
      ps.setString(8, schema.insertChannel());
      return readFences(ps, n);
    }
  }

  private static Set<Long> readFences(PreparedStatement ps, int expected) throws SQLException {
    Set<Long> written = new HashSet<>(expected * 2); // fences of the finishes written
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        written.add(rs.getLong(1));
      }
    }
    return written;
  }

  /** Completes a job on the handler's connection, fence-checked. Returns whether it matched. */
  public boolean completeIfHeld(Connection c, long id, long fence) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(completeIfHeld)) {
      ps.setLong(1, id);
      ps.setLong(2, fence);
      return ps.executeUpdate() == 1;
    }
  }

  /**
   * What a heartbeat learned: the jobs whose lease was extended, those still held but skipped
   * because their row was locked (extended next beat), and those with a cancel request. A job in
   * none of the first two was lost.
   */
  public record Heartbeat(Set<Long> extended, Set<Long> skipped, Set<Long> cancelRequested) {

    /** Whether the job is still held by this holder (extended now, or skipped while locked). */
    public boolean held(long id) {
      return extended.contains(id) || skipped.contains(id);
    }
  }

  /** Extends the leases of the given jobs to now + {@code lease}, each only while still held. */
  public Heartbeat heartbeatIfHeld(DataSource ds, long[] ids, long[] fences, Duration lease) {
    return Db.inTransaction(
        ds,
        "cannot extend leases (" + ids.length + " jobs)",
        c -> heartbeatIfHeld(c, ids, fences, lease));
  }

  /** The same, on {@code c} (in autocommit). */
  public Heartbeat heartbeatIfHeld(Connection c, long[] ids, long[] fences, Duration lease)
      throws SQLException {
    Set<Long> extended = new HashSet<>();
    Set<Long> skipped = new HashSet<>();
    Set<Long> cancel = new HashSet<>();
    try (PreparedStatement ps = c.prepareStatement(heartbeatIfHeld)) {
      ps.setArray(1, array(c, ids));
      ps.setArray(2, array(c, fences));
      ps.setLong(3, lease.toMillis());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long id = rs.getLong(1);
          if (rs.getBoolean(2)) {
            extended.add(id);
          } else if (rs.getBoolean(4)) {
            skipped.add(id);
          }
          if (rs.getBoolean(3)) {
            cancel.add(id);
          }
        }
      }
    }
    return new Heartbeat(extended, skipped, cancel);
  }

  /**
   * Moves a held job's lease to at least now + {@code extra} and its deadline to at least now +
   * {@code extra} + {@code deadlineGrace}. Returns the holder's new deadline (the stored one less
   * the grace), or null if the job is no longer held.
   */
  public Instant extendIfHeld(
      DataSource ds, long id, long fence, Duration extra, Duration deadlineGrace) {
    return Db.inTransaction(
        ds,
        "cannot extend lease of job (id=" + id + ")",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(extendIfHeld)) {
            ps.setLong(1, extra.toMillis());
            ps.setLong(2, extra.plus(deadlineGrace).toMillis());
            ps.setLong(3, id);
            ps.setLong(4, fence);
            ps.setLong(5, deadlineGrace.toMillis());
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next() ? instant(rs, 1) : null;
            }
          }
        });
  }

  /**
   * Cancels a job: a waiting one at once, a running one by flag and NOTIFY to its holder. Returns
   * the state after the call ({@code cancelled} or {@code running}), or null when the job does not
   * exist or is final already.
   */
  public String cancel(DataSource ds, long id) {
    return Db.inTransaction(
        ds,
        "cannot cancel job (id=" + id + ")",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(cancel)) {
            ps.setLong(1, id);
            ps.setString(2, schema.controlChannel());
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next() ? rs.getString(1) : null;
            }
          }
        });
  }

  /** The latest applied migration version of the queue line; throws if the table is missing. */
  public int schemaVersion(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(schemaVersion);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static Array array(Connection c, long[] values) throws SQLException {
    Long[] boxed = new Long[values.length];
    for (int i = 0; i < values.length; i++) {
      boxed[i] = values[i];
    }
    return c.createArrayOf("int8", boxed);
  }

  static void setInstant(PreparedStatement ps, int index, Instant value) throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      ps.setObject(index, OffsetDateTime.ofInstant(value, ZoneOffset.UTC));
    }
  }

  /** The instant {@code micros} microseconds after the epoch. */
  static Instant instantOfMicros(long micros) {
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
  }

  /** Column {@code column} read as microseconds since the epoch ({@link #JOB_COLUMNS}), or null. */
  static Instant instantOfMicros(ResultSet rs, int column) throws SQLException {
    long micros = rs.getLong(column);
    return rs.wasNull() ? null : instantOfMicros(micros);
  }

  static Instant instant(ResultSet rs, int column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }
}
