-- Baton's claim and its batched completion as two autocommit statements per pgbench transaction:
-- HolderStore.CLAIM (what a producer runs when it has no finished jobs to report), then
-- HolderStore.COMPLETE_MANY_IF_HELD for the batch just claimed (what the completer runs): two round
-- trips and two commits per batch, against one for complete_and_claim.sql.
--
-- The SQL is HolderStore's, character for character but for the binds: each ? is a pgbench variable
-- (PgbenchScriptsTest checks this against the compiled HolderStore). The claim's UPDATE is moved
-- into a CTE, claimed, whose (id, fence) pairs the script's own final SELECT returns as two arrays
-- for \gset (which takes one row). Run with -M prepared (as pgjdbc runs it): the arrays are bound
-- as parameters. Variables (-D): queue, batch, node, lease_ms, timeout_kinds, timeout_ms,
-- default_timeout_ms.
WITH picked AS MATERIALIZED (
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
-- this script's own projection (HolderStore returns a row per claimed job)
SELECT coalesce(array_agg(id), '{}') AS ids, coalesce(array_agg(fence), '{}') AS fences
FROM claimed
\gset
WITH f AS (SELECT * FROM unnest(:ids::bigint[], :fences::bigint[]) AS f(id, fence)),
locked AS MATERIALIZED (
  SELECT held.id FROM (SELECT * FROM f ORDER BY f.id) f
  CROSS JOIN LATERAL (
    SELECT j.id FROM "baton".job j
    WHERE j.id = f.id AND j.fence = f.fence AND j.state = (SELECT 'running'::text)
    FOR UPDATE OF j
  ) held
)
UPDATE "baton".job j
SET state = 'completed', finalized_at = now(), lease_expires_at = NULL, deadline_at = NULL
WHERE j.id = ANY (ARRAY(SELECT id FROM locked))
RETURNING j.fence;
