package dev.baton.internal.db;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The holder's statements: the claim, and every write a holder makes to a job it claimed. Each of
 * those writes matches {@code (id, fence, state = 'running')}: a write whose holder lost the job (a
 * new claim drew a new fence, the rescuer or a cancel moved it on) changes nothing and reports so.
 * This file is the one place that check is written. Times come from the database clock ({@code
 * now()}), so nodes with skewed clocks still agree on leases.
 *
 * <p>Not public API.
 */
public final class HolderStore {

  // A queue paused cluster-wide yields no claim, nor does one with a cluster-wide concurrency
  // limit (schema version 9), which only CLAIM_LIMITED or CLAIM_KEYED claims: one primary-key probe
  // of the queue
  // table, the same probe whether or not the row carries a limit, so a queue without a limit pays
  // nothing for limits. The claim on enqueue (EnqueueStore) tests it too. Binds: queue.
  @Fragment
  static final String QUEUE_OPEN_UNLIMITED =
      """
      NOT EXISTS (SELECT 1 FROM ${schema}.queue q
                  WHERE q.name = ? AND (q.paused_at IS NOT NULL OR q.concurrency_limit IS NOT NULL
                                        OR q.key_limit IS NOT NULL OR q.rate_limit IS NOT NULL))""";

  // Which claim statement a queue's row (alias q) calls for, as ClaimMode names it: 'keyed' with a
  // limit per key (of concurrency, or of rate: schema version 11), 'limited' with a limit of the
  // whole queue only, else 'plain'.
  @Fragment
  static final String CLAIM_MODE =
      """
      CASE WHEN q.key_limit IS NOT NULL OR q.rate_key_field IS NOT NULL THEN 'keyed'
           WHEN q.concurrency_limit IS NOT NULL OR q.rate_limit IS NOT NULL THEN 'limited'
           ELSE 'plain' END""";

  // The available jobs of one queue, before any further condition. Binds: queue.
  @Fragment
  private static final String AVAILABLE_OF_QUEUE =
      """
        SELECT id FROM ${schema}.job
        WHERE state = 'available' AND queue = ?""";

  // Claim order.
  @Fragment private static final String IN_CLAIM_ORDER = "  ORDER BY priority, scheduled_at, id";

  // The claim picks up to N available ids of one queue in claim order ("picked"), locking them and
  // skipping rows another claimer holds. MATERIALIZED stops the planner from re-running the pick
  // per updated row (which could claim more than N, or one row twice). The picked rows are marked
  // running under a new fence from the sequence, with a lease and deadline from the database clock
  // ("claimed"). The deadline is the kind's timeout plus a grace of one lease: the holder
  // interrupts its handler at the timeout itself; the rescuer acts on the deadline only if the
  // holder did not.
  //
  // The picked rows are written through an array of their ids, without a join: a generic plan
  // estimates a tenth of the table for "LIMIT ?", and a join then scans the whole table for the few
  // rows picked. Binds of PICKED: queue, queue, limit; of CLAIMED: node id, lease ms, timeout
  // kinds, timeout ms, default timeout ms, lease ms.
  @Fragment
  private static final String PICKED =
      "picked AS MATERIALIZED (\n"
          + AVAILABLE_OF_QUEUE
          + "\n    AND "
          + QUEUE_OPEN_UNLIMITED
          + "\n"
          + IN_CLAIM_ORDER
          + "\n  LIMIT ?\n  FOR UPDATE SKIP LOCKED\n)";

  @Fragment
  private static final String CLAIMED =
      """
      UPDATE ${schema}.job j
      SET state = 'running',
          attempt = j.attempt + 1,
          attempted_at = now(),
          attempted_by = ?,
          lease_expires_at = now() + ? * interval '1 millisecond',
          deadline_at = now() + (coalesce(
              (SELECT t.ms FROM unnest(?::text[], ?::bigint[]) AS t(kind, ms) WHERE t.kind = j.kind),
              ?) + ?) * interval '1 millisecond',
          fence = nextval('${schema}.job_fence_seq')
      WHERE j.id = ANY (ARRAY(SELECT id FROM picked))
      RETURNING j.id, j.queue, j.kind, j.args::text AS args, j.attempt, j.max_attempts, j.fence,
                j.idempotency_key, j.metadata::text AS metadata,
                -- epoch microseconds: cheaper to read than a timestamptz through the driver
                (extract(epoch FROM j.deadline_at) * 1000000)::bigint AS deadline_us,
                j.metadata ->> 'cancel_requested_at' IS NOT NULL AS cancel_requested,
                -- how long it had been due, for the pickup latency metric; by the database clock
                greatest(0, floor(extract(epoch FROM now() - j.scheduled_at) * 1000000))::bigint
                  AS due_for_us,
                -- a workflow step or batch member: its finish releases its dependents
                j.has_dependents""";

  // The claimed rows ("claimed", CLAIMED's RETURNING) as the answer of a limited claim, after
  // recording their starts for a rate-limited queue (queue_start, schema version 9; one probe of
  // the queue row): the starts that the next claim's rate_room counts.
  // A start of a queue limited per key in rate records its key (schema version 11).
  @Fragment
  private static final String STARTS_RECORDED =
      """
      started AS (
        INSERT INTO ${schema}.queue_start (queue, at, key)
        SELECT c.queue, now(),
               CASE WHEN q.rate_key_field IS NOT NULL
                    THEN coalesce(c.args::jsonb ->> q.rate_key_field, '') END
        FROM claimed c JOIN ${schema}.queue q ON q.name = c.queue AND q.rate_limit IS NOT NULL
      )""";

  @Fragment
  private static final String CLAIMED_AND_STARTS_RECORDED =
      "claimed AS (\n" + CLAIMED + "\n),\n" + STARTS_RECORDED + "\nSELECT * FROM claimed";

  // Claims, in one autocommit statement. Binds: PICKED's, then CLAIMED's.
  private static final String CLAIM = "WITH " + PICKED + "\n" + CLAIMED;

  // The claim of a queue with a cluster-wide concurrency limit (or one that had a limit when its
  // producer last heard): CLAIM, but the pick takes only as many as claim_admits (schema version
  // 9) leaves free. That function locks the queue's row until this statement commits, so the
  // claims of a limited queue take turns across the cluster, and counts the queue's running jobs
  // after the lock, in a snapshot of its own. The LIMIT is evaluated once, before the pick locks
  // any job row. It stays one autocommit statement: no lock is held across a round trip to the
  // client, so a node frozen or cut off between statements cannot stall the queue. Binds: queue,
  // queue, limit (as PICKED's), then CLAIMED's.
  private static final String CLAIM_LIMITED =
      "WITH picked AS MATERIALIZED (\n"
          + AVAILABLE_OF_QUEUE
          + "\n"
          + IN_CLAIM_ORDER
          + "\n  LIMIT ${schema}.claim_admits(?, ?)\n  FOR UPDATE SKIP LOCKED\n),\n"
          + CLAIMED_AND_STARTS_RECORDED;

  // The pick of a keyed claim, after its "room" (claim_room's answer, as "r"): the ids keyed_pick
  // (schema version 13) takes, up to the free slots and the queue's room, locked. keyed_pick runs
  // once (a scalar sub-select), after claim_room locked the queue's row. The ids are read through
  // the primary key alone, in its order, and the state is tested against (SELECT
  // 'available'::text), as the holder's writes test theirs: given the literal, or an order by
  // claim order, the planner reads job_claim_idx (whose predicate the literal proves) and so the
  // whole backlog, to keep the few jobs picked. Binds: queue, limit.
  @Fragment
  private static final String KEYED_PICKED =
      """
      picked AS MATERIALIZED (
        SELECT j.id FROM ${schema}.job j
        WHERE j.id = ANY ((SELECT ${schema}.keyed_pick(
                               ?, room.r, least(?, coalesce((room.r ->> 'admit')::int, 2147483647)))
                           FROM room)::bigint[])
          AND j.state = (SELECT 'available'::text)
        ORDER BY j.id
        FOR UPDATE SKIP LOCKED
      )""";

  // The claim of a queue with a concurrency limit per key (and perhaps one of the whole queue), or
  // a rate limit per key: claim_room (schema version 9) locks the queue's row until this statement
  // commits, as claim_admits does, and says what the limits leave: per key (args ->> its field),
  // the per-key limit less the key's running jobs and the per-key rate less its starts; in all, the
  // queue-wide limit less its running jobs. keyed_pick takes, per key, at most its room of jobs in
  // claim order, by priority and then by their rank in their key, so that the keys take turns (fair
  // share): a key with a long backlog does not hold up a key enqueued after it. With the queue's
  // key
  // index it reads one probe per key waiting and the jobs it takes; without (being built, or never
  // made), every available job of the queue. Picked jobs are locked with SKIP LOCKED (a job
  // claimed meanwhile fails the state check and is skipped).
  // Binds: queue, queue, limit (as PICKED's), then CLAIMED's.
  private static final String CLAIM_KEYED =
      "WITH room AS MATERIALIZED (SELECT ${schema}.claim_room(?) AS r),\n"
          + KEYED_PICKED
          + ",\n"
          + CLAIMED_AND_STARTS_RECORDED;

  /** Which claim statement a queue calls for. */
  public enum ClaimMode {
    /** No limit: {@link #claim} (and the claim folded with completions, and claim on enqueue). */
    PLAIN,
    /** A limit of the whole queue only: {@link #claimLimited}. */
    LIMITED,
    /** A limit per key (and perhaps one of the whole queue): {@link #claimKeyed}. */
    KEYED;

    /** The mode named by {@code CLAIM_MODE}'s value; PLAIN for null. */
    public static ClaimMode of(String name) {
      return name == null ? PLAIN : valueOf(name.toUpperCase(java.util.Locale.ROOT));
    }
  }

  // Every write of a holder finds its rows by primary key, one probe per (id, fence) pair (a
  // LATERAL sub-select per pair), and tests the state against (SELECT 'running'::text), never the
  // bare literal. Given the literal, the planner can prove job_running_idx's predicate and read
  // that whole index instead: every running job of every node, for a batch of a few. Statistics
  // taken while few jobs ran (a table analysed while idle, then a burst) invite that plan, and a
  // completion or heartbeat would then cost in proportion to the cluster's running jobs, not to its
  // own batch. The sub-select hides the constant from that proof.
  //
  // The pairs are probed one by one because a join of the pairs with a scan of their ids lets the
  // planner rescan that scan for every pair (a generic plan estimates 10 pairs): quadratic in the
  // batch. The rows a statement locked are then written through an array of their ids, as the
  // claim writes its picked rows. FencedWritesProbeTheKeyTest checks the plans, custom and generic.
  //
  // The held rows are locked in id order: the completer, a producer completing with its claim, and
  // a transactional completion write overlapping rows of one node at once, and rows locked in
  // whatever order a plan visits them could deadlock them.

  // The (id, fence) pairs a write of many jobs names, as "f". Binds: ids, fences.
  @Fragment
  private static final String PAIRS =
      "f AS (SELECT * FROM unnest(?::bigint[], ?::bigint[]) AS f(id, fence))";

  // The row of pair f, locked, if its holder still holds it: the fence check of a write of many
  // jobs, which the lateral sub-select of each pair runs.
  @Fragment
  private static final String HELD_ROW =
      """
      FROM ${schema}.job j
          WHERE j.id = f.id AND j.fence = f.fence AND j.state = (SELECT 'running'::text)
          FOR UPDATE OF j""";

  // The fence check of a write of one job. Binds: id, fence.
  @Fragment
  private static final String HELD_BY_ID =
      "id = ? AND fence = ? AND state = (SELECT 'running'::text)";

  // "locked": the ids of the pairs' rows that are still held, locked in id order. Binds: PAIRS'.
  @Fragment
  private static final String LOCK_HELD =
      PAIRS
          + """
          ,
          locked AS MATERIALIZED (
            SELECT held.id FROM (SELECT * FROM f ORDER BY f.id) f
            CROSS JOIN LATERAL (
              SELECT j.id
          """
          + HELD_ROW
          + """

            ) held
          )""";

  // What a completion writes to its row.
  @Fragment
  private static final String COMPLETED =
      "state = 'completed', finalized_at = now(), lease_expires_at = NULL, deadline_at = NULL";

  // The completion of the locked rows (before its RETURNING).
  @Fragment
  private static final String COMPLETE_LOCKED =
      "UPDATE ${schema}.job j\nSET "
          + COMPLETED
          + "\nWHERE j.id = ANY (ARRAY(SELECT id FROM locked))";

  // Adds the jobs deleted by their completion ("done") to the completion counts (job_completions,
  // schema version 4) of the current 10-second bucket, per queue, node (the holder's,
  // attempted_by) and connection (its backend pid), so that queue_stats still counts them. That
  // row is updated in place and stays locked until this transaction ends; keyed by connection, it
  // is never wanted by another transaction meanwhile: two statements of a node on two connections
  // never wait for each other, nor for a handler's transaction that completed its job
  // (ctx.completeIn) and is still open.
  @Fragment
  private static final String COUNT_DONE =
      """
      INSERT INTO ${schema}.job_completions AS c (bucket, queue, node, pid, n)
      SELECT to_timestamp(floor(extract(epoch FROM now()) / 10) * 10), queue,
             coalesce(attempted_by, ''), pg_backend_pid(), count(*)
      FROM done GROUP BY queue, attempted_by
      ON CONFLICT (bucket, queue, node, pid) DO UPDATE SET n = c.n + excluded.n""";

  // The completion of the held rows of the pairs when completed jobs are not kept: the rows are
  // deleted ("done") and counted ("counted"). A delete writes no new row version and no index
  // entry, where the update writes both. Binds: PAIRS'.
  @Fragment
  private static final String DELETE_HELD =
      "WITH "
          + LOCK_HELD
          + """
          ,
          done AS (
            DELETE FROM ${schema}.job j
            WHERE j.id = ANY (ARRAY(SELECT id FROM locked))
            RETURNING j.id, j.fence, j.queue, j.attempted_by
          ),
          counted AS (
          """
          + COUNT_DONE
          + "\n)";

  // The answer of COMPLETE_AND_CLAIM and COMPLETE_AND_CLAIM_DELETING, as readClaimedArrays reads
  // it: one row, whatever was completed or claimed.
  @Fragment
  private static final String COMPLETE_AND_CLAIM_ANSWER =
      """
      SELECT (SELECT array_agg(done.fence) FROM done) AS done_fences,
             array_agg(id), array_agg(queue), array_agg(kind), array_agg(args), array_agg(attempt),
             array_agg(max_attempts), array_agg(fence), array_agg(idempotency_key),
             array_agg(metadata), array_agg(deadline_us), array_agg(cancel_requested),
             array_agg(due_for_us), array_agg(has_dependents)
      FROM claimed""";

  // The claim as the last CTEs of a statement that completes first ("done"), and its answer.
  @Fragment
  private static final String THEN_CLAIM =
      PICKED + ",\nclaimed AS (\n" + CLAIMED + "\n)\n" + COMPLETE_AND_CLAIM_ANSWER;

  // The hot path when a node has finished jobs to report: one statement completes them (each only
  // if still held) and claims the next batch, as CLAIM does. One commit instead of two per batch.
  // The two UPDATEs never touch the same row: one takes running rows, the other available ones.
  // The answer is one row of arrays: the fences the completions were written under, then each
  // column of the claimed rows as an array, all in one order (one scan feeds every aggregate). One
  // row instead of one per job spares the client a result row, and its column reads, per job.
  // Binds: ids, fences, then CLAIM's.
  private static final String COMPLETE_AND_CLAIM =
      "WITH "
          + LOCK_HELD
          + ",\ndone AS (\n"
          + COMPLETE_LOCKED
          + "\nRETURNING j.id, j.fence\n),\n"
          + THEN_CLAIM;

  // COMPLETE_AND_CLAIM when completed jobs are not kept (completedRetention zero): the held rows
  // are deleted and counted (DELETE_HELD). Binds: as COMPLETE_AND_CLAIM.
  private static final String COMPLETE_AND_CLAIM_DELETING = DELETE_HELD + ",\n" + THEN_CLAIM;

  // The (id, fence) pairs of "f" as the two arrays claim_admits and claim_room (schema version 11)
  // take, to leave out of their count of running jobs: the jobs this statement completes.
  @Fragment
  private static final String ENDING_PAIRS =
      "(SELECT array_agg(f.id) FROM f), (SELECT array_agg(f.fence) FROM f)";

  // The limited claim as the last CTEs of a statement that completes first ("done", from the pairs
  // "f"), and its answer (as COMPLETE_AND_CLAIM's). claim_admits leaves the pairs out of its count
  // of running jobs: they end in this statement, which commits them with the claim. Binds: queue,
  // queue, limit (as CLAIM_LIMITED's), then CLAIMED's.
  @Fragment
  private static final String THEN_CLAIM_LIMITED =
      "picked AS MATERIALIZED (\n"
          + AVAILABLE_OF_QUEUE
          + "\n"
          + IN_CLAIM_ORDER
          + "\n  LIMIT ${schema}.claim_admits(?, ?, "
          + ENDING_PAIRS
          + ")\n  FOR UPDATE SKIP LOCKED\n),\nclaimed AS (\n"
          + CLAIMED
          + "\n),\n"
          + STARTS_RECORDED
          + "\n"
          + COMPLETE_AND_CLAIM_ANSWER;

  // The keyed claim as the last CTEs of a statement that completes first, as THEN_CLAIM_LIMITED.
  // Binds: queue, queue, limit (as CLAIM_KEYED's), then CLAIMED's.
  @Fragment
  private static final String THEN_CLAIM_KEYED =
      "room AS MATERIALIZED (SELECT ${schema}.claim_room(?, "
          + ENDING_PAIRS
          + ") AS r),\n"
          + KEYED_PICKED
          + ",\nclaimed AS (\n"
          + CLAIMED
          + "\n),\n"
          + STARTS_RECORDED
          + "\n"
          + COMPLETE_AND_CLAIM_ANSWER;

  // The claim of a limited queue carrying the node's completions, in one statement and one commit:
  // COMPLETE_AND_CLAIM with CLAIM_LIMITED's pick, whose count of running jobs leaves out the jobs
  // completed here (else they would hold their share of the limit until the next claim). With no
  // completions it is CLAIM_LIMITED with another answer. Binds: ids, fences, then
  // THEN_CLAIM_LIMITED's.
  private static final String COMPLETE_AND_CLAIM_LIMITED =
      "WITH "
          + LOCK_HELD
          + ",\ndone AS (\n"
          + COMPLETE_LOCKED
          + "\nRETURNING j.id, j.fence\n),\n"
          + THEN_CLAIM_LIMITED;

  // COMPLETE_AND_CLAIM_LIMITED when completed jobs are not kept. Binds: as it.
  private static final String COMPLETE_AND_CLAIM_LIMITED_DELETING =
      DELETE_HELD + ",\n" + THEN_CLAIM_LIMITED;

  // The keyed claim carrying the node's completions, as COMPLETE_AND_CLAIM_LIMITED. Binds: ids,
  // fences, then THEN_CLAIM_KEYED's.
  private static final String COMPLETE_AND_CLAIM_KEYED =
      "WITH "
          + LOCK_HELD
          + ",\ndone AS (\n"
          + COMPLETE_LOCKED
          + "\nRETURNING j.id, j.fence\n),\n"
          + THEN_CLAIM_KEYED;

  // COMPLETE_AND_CLAIM_KEYED when completed jobs are not kept. Binds: as it.
  private static final String COMPLETE_AND_CLAIM_KEYED_DELETING =
      DELETE_HELD + ",\n" + THEN_CLAIM_KEYED;

  // Plain completions of many jobs in one statement, each only if still held: a row that another
  // holder claimed since, or that was rescued or cancelled, is not touched. Returns the fence each
  // was completed under. Binds: ids, fences.
  private static final String COMPLETE_MANY_IF_HELD =
      "WITH " + LOCK_HELD + "\n" + COMPLETE_LOCKED + "\nRETURNING j.fence";

  // COMPLETE_MANY_IF_HELD when completed jobs are not kept: deleted and counted as in
  // COMPLETE_AND_CLAIM_DELETING. Binds: ids, fences.
  private static final String DELETE_MANY_IF_HELD = DELETE_HELD + "\nSELECT fence FROM done";

  // The finishes of many jobs ("f"), the rows still held among them locked in id order like
  // LOCK_HELD's ("locked", with their fences: each finish is joined back to its row by both), and
  // the update of those rows ("upd"), up to the end of its WHERE clause. Binds: ids, fences,
  // states, delays ms, errors, attempt deltas, metadata patches.
  @Fragment
  private static final String FINISH_HELD =
      """
      f AS (
        SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::text[], ?::bigint[], ?::jsonb[], ?::int[],
                             ?::jsonb[]) AS f(id, fence, state, delay_ms, error, attempt_delta, meta)
      ),
      locked AS MATERIALIZED (
        SELECT held.id, held.fence FROM (SELECT * FROM f ORDER BY f.id) f
        CROSS JOIN LATERAL (
          SELECT j.id, j.fence
      """
          + HELD_ROW
          + """

        ) held
      ),
      upd AS (
        UPDATE ${schema}.job j
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
        WHERE j.id = locked.id""";

  // The rows "upd" made available again (zero snooze, hand-back) notify their queue; the answer is
  // the fence of each finish written. Binds: channel.
  @Fragment
  private static final String FINISHED_ANSWER =
      """
      n AS (SELECT pg_notify(?, q.queue) FROM (SELECT DISTINCT queue FROM upd WHERE state = 'available') q)
      SELECT upd.fence, (SELECT count(*) FROM n) AS notified FROM upd""";

  // Any finish of many jobs in one statement, each only if still held. Binds: FINISH_HELD's, then
  // channel.
  private static final String FINISH_MANY_IF_HELD =
      "WITH " + FINISH_HELD + "\nRETURNING j.id, j.fence, j.queue, j.state\n),\n" + FINISHED_ANSWER;

  // FINISH_MANY_IF_HELD when completed jobs are not kept: the update leaves completions alone,
  // "done" deletes them and "counted" counts them (as in COMPLETE_AND_CLAIM_DELETING), and their
  // fences join the update's in the result. Binds: as FINISH_MANY_IF_HELD.
  private static final String FINISH_MANY_IF_HELD_DELETING =
      "WITH "
          + FINISH_HELD
          + """
           AND f.state <> 'completed'
        RETURNING j.id, j.fence, j.queue, j.state
      ),
      done AS (
        DELETE FROM ${schema}.job j
        USING locked JOIN f ON f.id = locked.id AND f.fence = locked.fence
        WHERE j.id = locked.id AND f.state = 'completed'
        RETURNING j.fence, j.queue, j.attempted_by
      ),
      counted AS (
      """
          + COUNT_DONE
          + "\n),\n"
          + FINISHED_ANSWER
          + "\nUNION ALL\nSELECT done.fence, NULL FROM done";

  // Which of the given finishes, retried after a try that failed without an answer, were written
  // by that try: the job is final or waiting under the finish's own fence and carries its outcome.
  // A completion shows as completed (a rescue never completes a job, and a claim draws a new
  // fence); a finish with an error shows as that error, the row's latest entry (a rescue writes an
  // entry of its own). Probed by primary key, one pair at a time. Binds: ids, fences, states,
  // errors.
  private static final String ALREADY_WRITTEN =
      """
      SELECT done.fence FROM unnest(?::bigint[], ?::bigint[], ?::text[], ?::jsonb[])
        AS f(id, fence, state, error)
      CROSS JOIN LATERAL (
        SELECT j.fence, j.state, j.errors FROM ${schema}.job j WHERE j.id = f.id AND j.fence = f.fence
      ) done
      WHERE done.state <> 'running'
        AND CASE WHEN f.state = 'completed' THEN done.state = 'completed'
                 WHEN f.error IS NULL THEN false
                 ELSE (done.errors -> -1) - 'at' = f.error - 'at' END""";

  // Transactional completion, on the handler's own connection and transaction. Binds: id, fence.
  private static final String COMPLETE_IF_HELD =
      "UPDATE ${schema}.job\nSET " + COMPLETED + "\nWHERE " + HELD_BY_ID;

  // COMPLETE_IF_HELD when completed jobs are not kept: deleted and counted as in
  // COMPLETE_AND_CLAIM_DELETING. The count's INSERT reports one row when the job was deleted (one
  // group), none when it was not held: the update count of the statement. Binds: id, fence.
  private static final String DELETE_IF_HELD =
      "WITH done AS (\n  DELETE FROM ${schema}.job WHERE "
          + HELD_BY_ID
          + "\n  RETURNING queue, attempted_by\n)\n"
          + COUNT_DONE;

  // Lease extension for every job a node holds, in one statement. SKIP LOCKED: a row locked by
  // someone else (the handler's own transaction after ctx.completeIn, the completer) is skipped,
  // not waited for, so one open transaction cannot stall every lease of the node (and, waiting for
  // no lock, the pairs need no order). The last SELECT reads each row as last committed: a job
  // that was not extended but is still running under this fence was only skipped ("still held");
  // one that is not was lost. The lease never moves back (ctx.extendLease may have pushed it
  // further). The cancel flag rides along, for nodes that missed the NOTIFY. Binds: ids, fences,
  // lease ms.
  private static final String HEARTBEAT_IF_HELD =
      "WITH "
          + PAIRS
          + """
          ,
          locked AS MATERIALIZED (
            SELECT held.id FROM f
            CROSS JOIN LATERAL (
              SELECT j.id
          """
          + HELD_ROW
          + """
           SKIP LOCKED
            ) held
          ),
          upd AS (
            UPDATE ${schema}.job j
            SET lease_expires_at = greatest(lease_expires_at, now() + ? * interval '1 millisecond')
            WHERE j.id = ANY (ARRAY(SELECT id FROM locked))
            RETURNING j.id, j.metadata ->> 'cancel_requested_at' IS NOT NULL AS cancel_requested
          )
          SELECT f.id, upd.id IS NOT NULL AS extended, coalesce(upd.cancel_requested, false),
                 coalesce(j.fence = f.fence AND j.state = 'running', false) AS still_held
          FROM f
          LEFT JOIN upd ON upd.id = f.id
          LEFT JOIN ${schema}.job j ON j.id = f.id
          """;

  // One job's lease and deadline moved later (ctx.extendLease), never earlier. Binds: extra ms,
  // extra plus grace ms, id, fence, grace ms.
  private static final String EXTEND_IF_HELD =
      """
      UPDATE ${schema}.job
      SET lease_expires_at = greatest(lease_expires_at, now() + ? * interval '1 millisecond'),
          deadline_at = greatest(deadline_at, now() + ? * interval '1 millisecond')
      WHERE\s"""
          + HELD_BY_ID
          + "\nRETURNING deadline_at - ? * interval '1 millisecond'";

  // A holder's output (ctx.recordOutput), replacing any earlier one. Binds: output, id, fence.
  private static final String RECORD_OUTPUT_IF_HELD =
      "UPDATE ${schema}.job SET output = ?::jsonb WHERE " + HELD_BY_ID;

  // A durable step's result under its name (ctx.step), with the attempt and time it was recorded.
  // Binds: name, result, id, fence.
  private static final String RECORD_STEP_IF_HELD =
      """
      UPDATE ${schema}.job
      SET steps = coalesce(steps, '{}'::jsonb) || jsonb_build_object(?::text, jsonb_build_object(
              'result', ?::jsonb, 'attempt', attempt, 'at', now()))
      WHERE\s"""
          + HELD_BY_ID;

  // A holder's progress report (ctx.progress), replacing the previous one. Binds: fraction,
  // message, id, fence.
  private static final String RECORD_PROGRESS_IF_HELD =
      """
      UPDATE ${schema}.job
      SET progress = jsonb_build_object('fraction', ?::float8, 'message', ?::text, 'at', now())
      WHERE\s"""
          + HELD_BY_ID;

  // The steps recorded by earlier attempts, read once by the first ctx.step of an attempt, only
  // while this holder holds the job. Binds: id, fence.
  private static final String READ_STEPS_IF_HELD =
      "SELECT coalesce(steps, '{}'::jsonb)::text FROM ${schema}.job WHERE " + HELD_BY_ID;

  /** What a completion does to the job's row. */
  public enum CompletedRows {
    /** The row is kept, state completed, until the cleaner's retention passes. */
    KEPT,
    /** The row is deleted by the completion itself (completedRetention zero, no archive). */
    DELETED
  }

  private final SchemaName schema;
  private final boolean deletesCompleted;
  private final String claim;
  private final String claimLimited;
  private final String claimKeyed;
  private final String completeAndClaim;
  private final String completeAndClaimLimited;
  private final String completeAndClaimKeyed;
  private final String completeManyIfHeld;
  private final String finishManyIfHeld;
  private final String finishManyKeeping;
  private final ReleaseStore releases;
  private final String completeIfHeld;
  private final String heartbeatIfHeld;
  private final String alreadyWritten;
  private final String extendIfHeld;
  private final String recordOutputIfHeld;
  private final String recordStepIfHeld;
  private final String recordProgressIfHeld;
  private final String readStepsIfHeld;

  /** Prepares the SQL text for {@code schema}, keeping completed rows. */
  public HolderStore(SchemaName schema) {
    this(schema, CompletedRows.KEPT);
  }

  /** Prepares the SQL text for {@code schema}, with completions that keep or delete their row. */
  public HolderStore(SchemaName schema, CompletedRows completed) {
    this.schema = schema;
    boolean delete = completed == CompletedRows.DELETED;
    this.deletesCompleted = delete;
    this.claim = schema.expand(CLAIM);
    this.claimLimited = schema.expand(CLAIM_LIMITED);
    this.claimKeyed = schema.expand(CLAIM_KEYED);
    this.completeAndClaim =
        schema.expand(delete ? COMPLETE_AND_CLAIM_DELETING : COMPLETE_AND_CLAIM);
    this.completeAndClaimLimited =
        schema.expand(delete ? COMPLETE_AND_CLAIM_LIMITED_DELETING : COMPLETE_AND_CLAIM_LIMITED);
    this.completeAndClaimKeyed =
        schema.expand(delete ? COMPLETE_AND_CLAIM_KEYED_DELETING : COMPLETE_AND_CLAIM_KEYED);
    this.completeManyIfHeld = schema.expand(delete ? DELETE_MANY_IF_HELD : COMPLETE_MANY_IF_HELD);
    this.finishManyIfHeld =
        schema.expand(delete ? FINISH_MANY_IF_HELD_DELETING : FINISH_MANY_IF_HELD);
    this.finishManyKeeping = schema.expand(FINISH_MANY_IF_HELD);
    this.releases = new ReleaseStore(schema);
    this.completeIfHeld = schema.expand(delete ? DELETE_IF_HELD : COMPLETE_IF_HELD);
    this.heartbeatIfHeld = schema.expand(HEARTBEAT_IF_HELD);
    this.alreadyWritten = schema.expand(ALREADY_WRITTEN);
    this.extendIfHeld = schema.expand(EXTEND_IF_HELD);
    this.recordOutputIfHeld = schema.expand(RECORD_OUTPUT_IF_HELD);
    this.recordStepIfHeld = schema.expand(RECORD_STEP_IF_HELD);
    this.recordProgressIfHeld = schema.expand(RECORD_PROGRESS_IF_HELD);
    this.readStepsIfHeld = schema.expand(READ_STEPS_IF_HELD);
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

  /** Parameters of a claim. */
  public record ClaimParams(
      String queue,
      int limit,
      String nodeId,
      Duration lease,
      String[] timeoutKinds,
      Long[] timeoutMillis,
      Duration defaultTimeout) {

    /** The timeout of {@code kind}: its own when it has one, else the default. */
    long timeoutMillisOf(String kind) {
      long ms = defaultTimeout.toMillis();
      for (int k = 0; k < timeoutKinds.length; k++) {
        if (timeoutKinds[k].equals(kind)) {
          ms = timeoutMillis[k];
        }
      }
      return ms;
    }
  }

  /**
   * Claims up to {@code p.limit()} available jobs of one queue, in one autocommit statement. Claims
   * nothing when the queue is paused or has a cluster-wide concurrency limit ({@link
   * #claimLimited}).
   */
  public List<ClaimedJob> claim(DataSource ds, ClaimParams p) {
    return claimWith(claim, ds, p);
  }

  /**
   * Claims up to {@code p.limit()} available jobs of one queue, and never so many that more of its
   * jobs run across the cluster than its concurrency limit, in one autocommit statement. The claims
   * of a limited queue take turns on its row in the queue table. Without a limit it claims as
   * {@link #claim} does, only dearer.
   */
  public List<ClaimedJob> claimLimited(DataSource ds, ClaimParams p) {
    return claimWith(claimLimited, ds, p);
  }

  /**
   * Claims up to {@code p.limit()} available jobs of one queue, and never so many that more of its
   * jobs run per key (or in all) across the cluster than its limits allow, in one autocommit
   * statement. The claims of the queue take turns on its row in the queue table.
   */
  public List<ClaimedJob> claimKeyed(DataSource ds, ClaimParams p) {
    return claimWith(claimKeyed, ds, p);
  }

  /** The claim of {@code mode}: {@link #claim}, {@link #claimLimited} or {@link #claimKeyed}. */
  public List<ClaimedJob> claim(DataSource ds, ClaimMode mode, ClaimParams p) {
    return switch (mode) {
      case PLAIN -> claim(ds, p);
      case LIMITED -> claimLimited(ds, p);
      case KEYED -> claimKeyed(ds, p);
    };
  }

  private List<ClaimedJob> claimWith(String sql, DataSource ds, ClaimParams p) {
    return Db.inTransaction(
        ds,
        "cannot claim jobs (queue=" + p.queue() + ")",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(sql)) {
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
    return completeAndClaimWith(completeAndClaim, ds, completions, p);
  }

  /**
   * Completes {@code completions} as {@link #completeAndClaim} does and claims as the claim of
   * {@code mode} does ({@link #claimLimited} or {@link #claimKeyed}), in one autocommit statement
   * whose count of running jobs leaves out the jobs it completes: a limited queue's claim that
   * carries its node's completions, so that they free their share of the limit in the same commit.
   * A plain mode claims with {@link #completeAndClaim}.
   */
  public CompleteAndClaim completeAndClaim(
      DataSource ds, ClaimMode mode, List<Finish> completions, ClaimParams p) {
    String sql =
        switch (mode) {
          case PLAIN -> completeAndClaim;
          case LIMITED -> completeAndClaimLimited;
          case KEYED -> completeAndClaimKeyed;
        };
    return completeAndClaimWith(sql, ds, completions, p);
  }

  private CompleteAndClaim completeAndClaimWith(
      String sql, DataSource ds, List<Finish> completions, ClaimParams p) {
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
          try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setArray(1, c.createArrayOf("int8", ids));
            ps.setArray(2, c.createArrayOf("int8", fences));
            bindClaim(c, ps, 3, p);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              Object[] fencesDone = objects(rs, 1);
              Set<Long> completed = new HashSet<>(fencesDone.length * 2);
              for (Object f : fencesDone) {
                completed.add((Long) f);
              }
              return new CompleteAndClaim(readClaimedArrays(rs, 2), completed);
            }
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

  /** Column {@code column} of {@code rs}'s current row, an array; empty when NULL (no rows). */
  private static Object[] objects(ResultSet rs, int column) throws SQLException {
    Array a = rs.getArray(column);
    return a == null ? new Object[0] : (Object[]) a.getArray();
  }

  /**
   * The claimed jobs of a row whose columns from {@code from} are the arrays of CLAIM's RETURNING
   * columns, in its order.
   */
  private static List<ClaimedJob> readClaimedArrays(ResultSet rs, int from) throws SQLException {
    Object[] id = objects(rs, from);
    int n = id.length;
    if (n == 0) {
      return new ArrayList<>(0);
    }
    Object[] queue = objects(rs, from + 1);
    Object[] kind = objects(rs, from + 2);
    Object[] args = objects(rs, from + 3);
    Object[] attempt = objects(rs, from + 4);
    Object[] maxAttempts = objects(rs, from + 5);
    Object[] fence = objects(rs, from + 6);
    Object[] key = objects(rs, from + 7);
    Object[] metadata = objects(rs, from + 8);
    Object[] deadline = objects(rs, from + 9);
    Object[] cancel = objects(rs, from + 10);
    Object[] due = objects(rs, from + 11);
    Object[] hasDependents = objects(rs, from + 12);
    List<ClaimedJob> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(
          new ClaimedJob(
              (Long) id[i],
              (String) queue[i],
              (String) kind[i],
              (String) args[i],
              (Integer) attempt[i],
              (Integer) maxAttempts[i],
              (Long) fence[i],
              (String) key[i],
              (String) metadata[i],
              Timestamps.instantOfMicros((Long) deadline[i]),
              (Boolean) cancel[i],
              (Long) due[i],
              (Boolean) hasDependents[i]));
    }
    return out;
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
        Timestamps.instantOfMicros(rs.getLong(i + 9)),
        rs.getBoolean(i + 10),
        rs.getLong(i + 11),
        rs.getBoolean(i + 12));
  }

  /**
   * Writes {@code finishes}, each only if its holder still holds the job. Returns the fences of the
   * finishes that were written (a fence names one claim of one job); the others were fenced off.
   */
  public Set<Long> finishIfHeld(DataSource ds, List<Finish> finishes) {
    return finishRetriedIfHeld(ds, finishes, Set.of());
  }

  /**
   * {@link #finishIfHeld(DataSource, List)} where some finishes, those whose fences are in {@code
   * retried}, are retries of a try that failed without an answer (the connection broke after the
   * statement may have reached the server): such a finish that matches no running row but that its
   * earlier try wrote, its commit landed and only the reply was lost, counts as written too.
   * Recognised are completions (the job is completed under the finish's fence) and finishes with an
   * error (the job's latest error entry is the finish's). Not recognised, so counted as fenced: a
   * completion whose row was deleted (completed retention zero), and a snooze, hand-back or cancel
   * without error, since a rescue leaves rows like theirs.
   */
  public Set<Long> finishRetriedIfHeld(DataSource ds, List<Finish> finishes, Set<Long> retried) {
    if (finishes.isEmpty()) {
      return Set.of();
    }
    boolean allPlain = finishes.stream().allMatch(Finish::isPlainCompletion);
    String what = "cannot record finished jobs (" + finishes.size() + " jobs)";
    if (finishes.stream().anyMatch(Finish::releasesDependents)) {
      // Finishes and the release of the dependents they end commit together.
      return Db.inExplicitTransaction(
          ds,
          what,
          c -> {
            Set<Long> written = finishManyReleasing(c, finishes);
            if (!retried.isEmpty()) {
              written.addAll(alreadyWritten(c, finishes, written, retried));
            }
            return written;
          });
    }
    return Db.inTransaction(
        ds,
        what,
        c -> {
          Set<Long> written = allPlain ? completeMany(c, finishes) : finishMany(c, finishes);
          if (!retried.isEmpty()) {
            written.addAll(alreadyWritten(c, finishes, written, retried));
          }
          return written;
        });
  }

  /**
   * Writes {@code finishes}, some of which release dependents, in {@code c}'s transaction: those
   * that do are written keeping their row (their output is copied to their dependents' edges by the
   * release, which a deleted row could not give), the others as usual; then the dependents of the
   * final ones written are released ({@link ReleaseStore#release}).
   */
  private Set<Long> finishManyReleasing(Connection c, List<Finish> finishes) throws SQLException {
    List<Finish> releasing = new ArrayList<>();
    List<Finish> plain = new ArrayList<>();
    List<Finish> other = new ArrayList<>();
    for (Finish f : finishes) {
      (f.releasesDependents() ? releasing : f.isPlainCompletion() ? plain : other).add(f);
    }
    Set<Long> written = new HashSet<>();
    if (!plain.isEmpty()) {
      written.addAll(completeMany(c, plain));
    }
    if (!other.isEmpty()) {
      written.addAll(finishMany(c, other));
    }
    Set<Long> releasedWritten = writeFinishes(c, finishManyKeeping, releasing);
    written.addAll(releasedWritten);
    long[] ended =
        releasing.stream()
            .filter(f -> f.isFinal() && releasedWritten.contains(f.fence()))
            .mapToLong(Finish::id)
            .toArray();
    if (ended.length > 0) {
      releases.release(c, ended);
    }
    return written;
  }

  /**
   * Completes a job that has dependents on the handler's connection, fence-checked, keeping its
   * row, and releases its dependents in the same transaction. Returns whether it matched.
   */
  public boolean completeAndReleaseIfHeld(Connection c, long id, long fence) throws SQLException {
    return !finishManyReleasing(c, List.of(Finish.completed(id, fence).releasingDependents()))
        .isEmpty();
  }

  /** The fences of the retried finishes not in {@code written} that an earlier try wrote. */
  private Set<Long> alreadyWritten(
      Connection c, List<Finish> finishes, Set<Long> written, Set<Long> retried)
      throws SQLException {
    List<Finish> unmatched = new ArrayList<>();
    for (Finish f : finishes) {
      boolean completion = "completed".equals(f.state());
      if (retried.contains(f.fence())
          && !written.contains(f.fence())
          // a completion that releases dependents keeps its row even when completions delete theirs
          && ((completion && (!deletesCompleted || f.releasesDependents()))
              || (!completion && f.errorJson() != null))) {
        unmatched.add(f);
      }
    }
    if (unmatched.isEmpty()) {
      return Set.of();
    }
    FinishColumns f = FinishColumns.of(unmatched);
    try (PreparedStatement ps = c.prepareStatement(alreadyWritten)) {
      ps.setArray(1, c.createArrayOf("int8", f.ids()));
      ps.setArray(2, c.createArrayOf("int8", f.fences()));
      ps.setArray(3, c.createArrayOf("text", f.states()));
      ps.setArray(4, c.createArrayOf("text", f.errors()));
      return readFences(ps, unmatched.size());
    }
  }

  /** Writes one finish on the caller's connection. Returns whether it was written. */
  public boolean finishIfHeld(Connection c, Finish finish) throws SQLException {
    List<Finish> one = List.of(finish);
    if (finish.releasesDependents()) {
      return !finishManyReleasing(c, one).isEmpty();
    }
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
    return writeFinishes(c, finishManyIfHeld, finishes);
  }

  /** Writes {@code finishes} with {@code sql}, FINISH_MANY_IF_HELD or its deleting variant. */
  private Set<Long> writeFinishes(Connection c, String sql, List<Finish> finishes)
      throws SQLException {
    if (finishes.isEmpty()) {
      return new HashSet<>();
    }
    FinishColumns f = FinishColumns.of(finishes);
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setArray(1, c.createArrayOf("int8", f.ids()));
      ps.setArray(2, c.createArrayOf("int8", f.fences()));
      ps.setArray(3, c.createArrayOf("text", f.states()));
      ps.setArray(4, c.createArrayOf("int8", f.delays()));
      ps.setArray(5, c.createArrayOf("text", f.errors()));
      ps.setArray(6, c.createArrayOf("int4", f.deltas()));
      ps.setArray(7, c.createArrayOf("text", f.metas()));
      ps.setString(8, schema.insertChannel());
      return readFences(ps, finishes.size());
    }
  }

  /** Finishes column by column: the arrays that FINISH_HELD and ALREADY_WRITTEN unnest. */
  private record FinishColumns(
      Long[] ids,
      Long[] fences,
      String[] states,
      Long[] delays,
      String[] errors,
      Integer[] deltas,
      String[] metas) {

    static FinishColumns of(List<Finish> finishes) {
      int n = finishes.size();
      FinishColumns columns =
          new FinishColumns(
              new Long[n],
              new Long[n],
              new String[n],
              new Long[n],
              new String[n],
              new Integer[n],
              new String[n]);
      for (int i = 0; i < n; i++) {
        Finish f = finishes.get(i);
        columns.ids[i] = f.id();
        columns.fences[i] = f.fence();
        columns.states[i] = f.state();
        columns.delays[i] = f.delayMillis();
        columns.errors[i] = f.errorJson();
        columns.deltas[i] = f.attemptDelta();
        columns.metas[i] = f.metadataPatchJson();
      }
      return columns;
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
              return rs.next() ? Timestamps.instant(rs, 1) : null;
            }
          }
        });
  }

  /** Records a held job's output (JSON text) on {@code c}. Returns whether it was still held. */
  public boolean recordOutputIfHeld(Connection c, long id, long fence, String outputJson)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(recordOutputIfHeld)) {
      ps.setString(1, outputJson);
      ps.setLong(2, id);
      ps.setLong(3, fence);
      return ps.executeUpdate() == 1;
    }
  }

  /**
   * Records the result (JSON text) of a held job's step {@code name} on {@code c}. Returns whether
   * the job was still held.
   */
  public boolean recordStepIfHeld(Connection c, long id, long fence, String name, String resultJson)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(recordStepIfHeld)) {
      ps.setString(1, name);
      ps.setString(2, resultJson);
      ps.setLong(3, id);
      ps.setLong(4, fence);
      return ps.executeUpdate() == 1;
    }
  }

  /** A progress report of a held job. Returns whether the job was still held. */
  public boolean recordProgressIfHeld(
      Connection c, long id, long fence, double fraction, String message) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(recordProgressIfHeld)) {
      ps.setDouble(1, fraction);
      ps.setString(2, message);
      ps.setLong(3, id);
      ps.setLong(4, fence);
      return ps.executeUpdate() == 1;
    }
  }

  /**
   * The steps a held job recorded so far, as a JSON object by step name; null when the job is no
   * longer held.
   */
  public String readStepsIfHeld(Connection c, long id, long fence) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(readStepsIfHeld)) {
      ps.setLong(1, id);
      ps.setLong(2, fence);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private static Array array(Connection c, long[] values) throws SQLException {
    Long[] boxed = new Long[values.length];
    for (int i = 0; i < values.length; i++) {
      boxed[i] = values[i];
    }
    return c.createArrayOf("int8", boxed);
  }
}
