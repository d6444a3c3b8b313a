-- Baton schema version 4: completion counts of the jobs whose completion deleted their row.
-- ${schema} is replaced by the configured schema name, validated and quoted by the Migrator.
--
-- With completedRetention zero (and no archive) a completion deletes the job's row instead of
-- marking it completed: no new row version, no index entries, nothing for the cleaner. The same
-- statement adds the deleted jobs to a count here, so queue_stats, `baton stats` and the failure
-- share still see every completion. One row per 10-second bucket, queue, node (the one that
-- completed them) and connection (its backend pid), updated in place (HOT: n is in no index). A
-- row stays locked until the completing transaction ends, and only that connection writes it, so
-- no completion ever waits for another's count: not across nodes, not between a node's own
-- statements, not behind a handler's transaction that completed its job and is still open. The
-- leader's cleaner deletes buckets older than a day.
CREATE TABLE ${schema}.job_completions (
    bucket  timestamptz NOT NULL,
    queue   text        NOT NULL,
    node    text        NOT NULL,
    pid     integer     NOT NULL,
    n       bigint      NOT NULL,
    PRIMARY KEY (bucket, queue, node, pid)
);

-- Every row is updated many times in its 10 seconds: leave room on each page for the new versions
-- (HOT), and vacuum often.
ALTER TABLE ${schema}.job_completions SET (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0.0,
    autovacuum_vacuum_threshold = 1000
);

-- queue_stats (version 3) with the counted completions added to the completed rows.
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
-- Completions: the completed rows still kept, plus the completions that deleted their row
-- (completedRetention zero), counted per 10-second bucket in job_completions. A bucket counts in a
-- window when it starts inside it, so a window's count of deleted jobs is exact to 10 seconds.
completed AS (
    SELECT queue, sum(n_5m)::bigint AS n_5m, sum(n_1h)::bigint AS n_1h
    FROM (
        SELECT queue,
               count(*) FILTER (WHERE finalized_at > now() - interval '5 minutes') AS n_5m,
               count(*) AS n_1h
        FROM recent WHERE state = 'completed'
        GROUP BY queue
        UNION ALL
        SELECT queue,
               coalesce(sum(n) FILTER (WHERE bucket > now() - interval '5 minutes'), 0),
               sum(n)
        FROM ${schema}.job_completions
        WHERE bucket > now() - interval '1 hour'
        GROUP BY queue
    ) c
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
