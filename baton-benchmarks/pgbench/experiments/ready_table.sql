-- A model, not Baton: the claim takes jobs from a narrow table of ready jobs (queue, priority,
-- scheduled_at, id), deleting its rows, and marks the same ids running in job, whose claim index is
-- gone; the completion is complete_and_claim_delete.sql's. run.sh sets the table up from the
-- available jobs. What it would cost elsewhere (every move into or out of "available" writes that
-- table too) is not modelled.
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
  SELECT r.ctid AS rid FROM "baton".job_ready r
  WHERE r.queue = :queue
    AND NOT EXISTS (SELECT 1 FROM "baton".queue q WHERE q.name = :queue AND q.paused_at IS NOT NULL)
  ORDER BY r.priority, r.scheduled_at, r.id
  LIMIT :batch
  FOR UPDATE SKIP LOCKED
),
unready AS (
DELETE FROM "baton".job_ready r WHERE r.ctid = ANY (ARRAY(SELECT rid FROM picked)) RETURNING r.id
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
WHERE j.id = ANY (ARRAY(SELECT id FROM unready))
RETURNING j.id, j.queue, j.kind, j.args::text AS args, j.attempt, j.max_attempts, j.fence,
          j.idempotency_key, j.metadata::text AS metadata,
          -- epoch microseconds: cheaper to read than a timestamptz through the driver
          (extract(epoch FROM j.deadline_at) * 1000000)::bigint AS deadline_us,
          j.metadata ->> 'cancel_requested_at' IS NOT NULL AS cancel_requested,
          -- how long it had been due, for the pickup latency metric; by the database clock
          greatest(0, floor(extract(epoch FROM now() - j.scheduled_at) * 1000000))::bigint
            AS due_for_us
)
SELECT coalesce(array_agg(id), '{}') AS ids, coalesce(array_agg(fence), '{}') AS fences,
       (SELECT count(*) FROM done) AS completed
FROM claimed
\gset
