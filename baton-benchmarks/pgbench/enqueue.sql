-- Baton's single enqueue as one pgbench transaction: EnqueueStore.ENQUEUE, the statement of
-- Baton.enqueue(args) for a job due now (the client's claim-on-enqueue aside: the W3 workload has
-- no workers). One autocommit INSERT of an available job, with the NOTIFY of its queue and the
-- job row returned.
--
-- The text is EnqueueStore's, character for character but for the binds: each ? is a pgbench
-- variable (PgbenchScriptsTest checks this against the compiled EnqueueStore). pgbench has no NULL
-- value, nor an empty one, so the two binds that are NULL for a job due now without an idempotency
-- key, its run time and its key, are NULLIF(:name, 'none') with the variable set to none. Run with
-- -M prepared (as pgjdbc runs it). Variables (-D): queue, kind, args, priority, max_attempts,
-- run_at (none), key (none), metadata, channel.
INSERT INTO "baton".job
  (queue, kind, args, state, priority, max_attempts, scheduled_at, idempotency_key, metadata)
VALUES (:queue, :kind, :args::jsonb, CASE WHEN NULLIF(:run_at, 'none')::timestamptz > now() THEN 'scheduled' ELSE 'available' END,
        :priority, :max_attempts, coalesce(NULLIF(:run_at, 'none')::timestamptz, now()), NULLIF(:key, 'none'), :metadata::jsonb)
ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
RETURNING id, queue, kind, args::text AS args, state, priority, attempt, max_attempts,
          (extract(epoch FROM scheduled_at) * 1000000)::bigint AS scheduled_at,
          (extract(epoch FROM attempted_at) * 1000000)::bigint AS attempted_at,
          attempted_by,
          (extract(epoch FROM lease_expires_at) * 1000000)::bigint AS lease_expires_at,
          (extract(epoch FROM deadline_at) * 1000000)::bigint AS deadline_at,
          fence, idempotency_key, errors::text AS errors, metadata::text AS metadata,
          (extract(epoch FROM created_at) * 1000000)::bigint AS created_at,
          (extract(epoch FROM finalized_at) * 1000000)::bigint AS finalized_at,
          CASE WHEN state = 'available' THEN pg_notify(:channel, queue) IS NULL END AS notified;
