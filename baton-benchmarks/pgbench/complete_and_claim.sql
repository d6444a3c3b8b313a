-- Baton's hot path as one pgbench transaction: HolderStore.COMPLETE_AND_CLAIM, the statement a
-- producer with finished jobs to report runs. It completes the batch this client claimed in its
-- previous transaction (matched on (id, fence), state running, locked in id order) and claims the
-- next :batch jobs (SKIP LOCKED, a new fence from the sequence, lease and deadline from the database
-- clock): one statement and one commit per batch.
--
-- The CTEs are HolderStore's, character for character but for the binds: each ? is a pgbench
-- variable (PgbenchScriptsTest checks this against the compiled HolderStore). Only the final SELECT
-- is this script's own: instead of one row per job it returns the claimed (id, fence) pairs as two
-- arrays, which \gset keeps for the next transaction (the first one completes nothing: ids and
-- fences start as {}). Run with -M prepared (as pgjdbc runs it): the arrays are bound as
-- parameters. Variables (-D): queue, batch, node, lease_ms, timeout_kinds, timeout_ms,
-- default_timeout_ms, ids, fences.
WITH f AS (SELECT * FROM unnest(:ids::bigint[], :fences::bigint[]) AS f(id, fence)),
locked AS MATERIALIZED (
  SELECT held.id FROM (SELECT * FROM f ORDER BY f.id) f
  CROSS JOIN LATERAL (
    SELECT j.id FROM "baton".job j
    WHERE j.id = f.id AND j.fence = f.fence AND j.state = (SELECT 'running'::text)
    FOR UPDATE OF j
  ) held
),
done AS (
UPDATE "baton".job j
SET state = 'completed', finalized_at = now(), lease_expires_at = NULL, deadline_at = NULL
WHERE j.id = ANY (ARRAY(SELECT id FROM locked))
RETURNING j.id, j.fence
),
picked AS MATERIALIZED (
  SELECT id FROM "baton".job
  WHERE state = 'available' AND queue = :queue
    AND NOT EXISTS (SELECT 1 FROM "baton".queue q
                    WHERE q.name = :queue AND (q.paused_at IS NOT NULL OR q.concurrency_limit IS NOT NULL
                                             OR q.key_limit IS NOT NULL
                                             OR q.rate_limit IS NOT NULL))
  ORDER BY priority, scheduled_at, id
  LIMIT :batch
  FOR UPDATE SKIP LOCKED
),
claimed AS (
UPDATE "baton".job j
SET state = 'running',
    attempt = j.attempt + 1,
    attempted_at = now(),
    attempted_by = :node,
    lease_expires_at = now() + :lease_ms * interval '1 millisecond',
    deadline_at = now() + (coalesce(
        (SELECT t.ms FROM unnest(:timeout_kinds::text[], :timeout_ms::bigint[]) AS t(kind, ms) WHERE t.kind = j.kind),
        :default_timeout_ms) + :lease_ms) * interval '1 millisecond',
    fence = nextval('"baton".job_fence_seq')
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
          j.has_dependents
)
-- this script's own projection (HolderStore returns a row per claimed and per completed job)
SELECT coalesce(array_agg(id), '{}') AS ids, coalesce(array_agg(fence), '{}') AS fences,
       (SELECT count(*) FROM done) AS completed
FROM claimed
\gset
