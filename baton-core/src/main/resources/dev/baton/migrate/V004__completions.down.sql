-- Reverts version 4: queue_stats as version 3 defined it, and the completion counts dropped.
CREATE OR REPLACE VIEW ${schema}.queue_stats AS
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

DROP TABLE IF EXISTS ${schema}.job_completions;
