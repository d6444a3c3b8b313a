-- Baton's hot path when completed jobs are not kept (completedRetention zero): HolderStore's
-- COMPLETE_AND_CLAIM in its deleting form. The batch this client claimed in its previous
-- transaction is deleted (matched on (id, fence), state running, locked in id order) and counted
-- per 10-second bucket, queue, node and connection in job_completions; the next :batch jobs are claimed as in
-- complete_and_claim.sql. One statement and one commit per batch.
--
-- The CTEs are HolderStore's (HolderStore.COMPLETE_AND_CLAIM_DELETING), character for character but for the
-- binds (PgbenchScriptsTest checks this); the final SELECT is this script's own, as in
-- complete_and_claim.sql. Run with -M prepared. Variables (-D): as complete_and_claim.sql.
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
DELETE FROM "baton".job j
WHERE j.id = ANY (ARRAY(SELECT id FROM locked))
RETURNING j.id, j.fence, j.queue, j.attempted_by
),
counted AS (
INSERT INTO "baton".job_completions AS c (bucket, queue, node, pid, n)
SELECT to_timestamp(floor(extract(epoch FROM now()) / 10) * 10), queue,
       coalesce(attempted_by, ''), pg_backend_pid(), count(*)
FROM done GROUP BY queue, attempted_by
ON CONFLICT (bucket, queue, node, pid) DO UPDATE SET n = c.n + excluded.n
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
