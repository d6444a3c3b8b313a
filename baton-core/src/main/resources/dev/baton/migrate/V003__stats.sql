-- Baton schema version 3: the queue_stats view, the figures of BatonMetrics readable with plain
-- SQL (docs/metrics.md). One row per queue that has jobs waiting or running, or jobs that finished
-- or failed in the last hour.
-- ${schema} is replaced by the configured schema name, validated and quoted by the Migrator.
--
-- Cheap however much history the table holds: each part reads one partial index of the live
-- states (job_claim_idx, job_running_idx, job_waiting_idx), or a range of job_finalized_idx
-- bounded to the last hour. A single `state IN (...)` over live and finished states, or reading
-- every row's errors, would read the whole table.
--
-- Failure share of a window: failed attempts / (failed attempts + completions). A failed attempt
-- is an entry of `errors` written in the window ("at"), rescues and timeouts included, cancels
-- excluded; a completion is a completed row whose finalized_at is in the window. Snoozes and
-- hand-backs are not attempts that ended. 0 when no attempt ended in the window.
--
-- Which rows can hold an error entry written at time t, so that reading only those is exact:
-- a final row finalized at or after t (entries are written at the latest with the finalization);
-- a waiting (scheduled, retryable) or available row whose scheduled_at is at or after t (every
-- writer of an entry on a row left live sets scheduled_at to now() or later: retry, rescue; and
-- what follows, a snooze, a hand-back or the scheduler, never moves it earlier); any running row
-- (few: at most the cluster's total concurrency).
CREATE VIEW ${schema}.queue_stats AS
WITH
available AS (
    SELECT queue, count(*) AS n, min(scheduled_at) AS oldest
    FROM ${schema}.job WHERE state = 'available'
    GROUP BY queue
),
running AS (
    SELECT queue, count(*) AS n
    FROM ${schema}.job WHERE state = 'running'
    GROUP BY queue
),
waiting AS (
    SELECT queue,
           count(*) FILTER (WHERE state = 'scheduled') AS scheduled,
           count(*) FILTER (WHERE state = 'retryable') AS retryable
    FROM ${schema}.job WHERE state IN ('scheduled', 'retryable')
    GROUP BY queue
),
-- Rows finalized in the last hour, and live rows that may hold an error entry of the last hour.
recent AS (
    SELECT queue, state, finalized_at, errors
    FROM ${schema}.job
    WHERE state IN ('completed', 'cancelled', 'discarded')
      AND finalized_at > now() - interval '1 hour'
    UNION ALL
    SELECT queue, state, NULL, errors
    FROM ${schema}.job
    WHERE state IN ('scheduled', 'retryable') AND scheduled_at > now() - interval '1 hour'
    UNION ALL
    SELECT queue, state, NULL, errors
    FROM ${schema}.job
    WHERE state = 'available' AND scheduled_at > now() - interval '1 hour'
    UNION ALL
    SELECT queue, state, NULL, errors
    FROM ${schema}.job
    WHERE state = 'running'
),
completed AS (
    SELECT queue,
           count(*) FILTER (WHERE finalized_at > now() - interval '5 minutes') AS n_5m,
           count(*) AS n_1h
    FROM recent WHERE state = 'completed'
    GROUP BY queue
),
failed AS (
    SELECT r.queue,
           count(*) FILTER (WHERE e.at > now() - interval '5 minutes') AS n_5m,
           count(*) AS n_1h
    FROM recent r
    CROSS JOIN LATERAL (
        SELECT (x ->> 'at')::timestamptz AS at
        FROM jsonb_array_elements(r.errors) x
        WHERE x ->> 'error' IS DISTINCT FROM 'cancelled'
    ) e
    WHERE r.errors <> '[]'::jsonb AND e.at > now() - interval '1 hour'
    GROUP BY r.queue
),
queues AS (
    SELECT queue FROM available
    UNION SELECT queue FROM running
    UNION SELECT queue FROM waiting
    UNION SELECT queue FROM completed
    UNION SELECT queue FROM failed
)
SELECT q.queue,
       coalesce(a.n, 0) AS available,
       coalesce(w.scheduled, 0) AS scheduled,
       coalesce(w.retryable, 0) AS retryable,
       coalesce(r.n, 0) AS running,
       -- seconds since the oldest available job became due (run-at, retry or enqueue time); 0
       -- when none is available
       coalesce(greatest(0, extract(epoch FROM now() - a.oldest))::double precision, 0)
           AS oldest_available_age_s,
       coalesce(c.n_5m, 0) AS completed_5m,
       coalesce(f.n_5m, 0) AS failed_5m,
       coalesce(f.n_5m::double precision / nullif(coalesce(f.n_5m, 0) + coalesce(c.n_5m, 0), 0), 0)
           AS failure_share_5m,
       coalesce(c.n_1h, 0) AS completed_1h,
       coalesce(f.n_1h, 0) AS failed_1h,
       coalesce(f.n_1h::double precision / nullif(coalesce(f.n_1h, 0) + coalesce(c.n_1h, 0), 0), 0)
           AS failure_share_1h
FROM queues q
LEFT JOIN available a ON a.queue = q.queue
LEFT JOIN running r ON r.queue = q.queue
LEFT JOIN waiting w ON w.queue = q.queue
LEFT JOIN completed c ON c.queue = q.queue
LEFT JOIN failed f ON f.queue = q.queue;

COMMENT ON VIEW ${schema}.queue_stats IS
    'Baton: depth, oldest available age and failure share per queue; see docs/metrics.md';
