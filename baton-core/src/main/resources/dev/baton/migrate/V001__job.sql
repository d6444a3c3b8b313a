-- Baton schema version 1: the job table, its fence sequence and the indexes of the hot path.
-- ${schema} is replaced by the configured schema name, validated and quoted by the Migrator.

-- Fencing tokens. NO CACHE (the default, 1) on purpose: a cached sequence hands each session its
-- own block of values, so a later claim on another session could receive a lower fence than an
-- earlier one, and "highest fence wins" at a receiver would then side with the stale holder.
CREATE SEQUENCE ${schema}.job_fence_seq AS bigint CACHE 1;

CREATE TABLE ${schema}.job (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    queue            text        NOT NULL DEFAULT 'default',
    kind             text        NOT NULL,
    args             jsonb       NOT NULL DEFAULT '{}',
    state            text        NOT NULL DEFAULT 'available',
    priority         smallint    NOT NULL DEFAULT 0,
    attempt          integer     NOT NULL DEFAULT 0,
    max_attempts     integer     NOT NULL DEFAULT 20,
    scheduled_at     timestamptz NOT NULL DEFAULT now(),
    attempted_at     timestamptz,
    attempted_by     text,
    lease_expires_at timestamptz,
    deadline_at      timestamptz,
    -- fencing token of the latest claim, from job_fence_seq; never derived from attempt, which a
    -- snooze or a graceful hand-back lowers again
    fence            bigint      NOT NULL DEFAULT 0,
    idempotency_key  text,
    errors           jsonb       NOT NULL DEFAULT '[]',
    metadata         jsonb       NOT NULL DEFAULT '{}',
    created_at       timestamptz NOT NULL DEFAULT now(),
    finalized_at     timestamptz,
    CONSTRAINT job_state_check CHECK (state IN
        ('scheduled', 'available', 'running', 'retryable', 'completed', 'cancelled', 'discarded')),
    CONSTRAINT job_priority_check CHECK (priority BETWEEN 0 AND 9),
    CONSTRAINT job_attempts_check CHECK (max_attempts >= 1 AND attempt >= 0),
    CONSTRAINT job_kind_check CHECK (length(kind) BETWEEN 1 AND 128),
    CONSTRAINT job_queue_check CHECK (length(queue) BETWEEN 1 AND 64),
    CONSTRAINT job_key_check CHECK (length(idempotency_key) BETWEEN 1 AND 255),
    -- a running row always carries its lease; a final row always its finalization time
    CONSTRAINT job_running_lease_check CHECK (state <> 'running' OR lease_expires_at IS NOT NULL),
    CONSTRAINT job_final_check CHECK (
        (state IN ('completed', 'cancelled', 'discarded')) = (finalized_at IS NOT NULL))
);

-- The claim reads only this index: available rows of one queue in claim order. Finished history,
-- however large, is not in it, so claiming never scans it.
CREATE INDEX job_claim_idx ON ${schema}.job (queue, priority, scheduled_at, id)
    WHERE state = 'available';

-- The rescuer reads only running rows, in the order their lease or deadline runs out (least()
-- ignores a NULL deadline), so a pass that finds nothing expired reads one index entry.
CREATE INDEX job_running_idx ON ${schema}.job (least(lease_expires_at, deadline_at))
    WHERE state = 'running';

-- The scheduler reads only rows waiting for their time.
CREATE INDEX job_waiting_idx ON ${schema}.job (scheduled_at)
    WHERE state IN ('scheduled', 'retryable');

-- One job per idempotency key, enforced by the database (concurrent enqueues included).
CREATE UNIQUE INDEX job_idempotency_key_idx ON ${schema}.job (idempotency_key)
    WHERE idempotency_key IS NOT NULL;

-- A queue table is all updates and deletes: vacuum it after 1% of its rows changed rather than the
-- default 20%, so dead tuples left by claims and finishes are reclaimed while they are few.
ALTER TABLE ${schema}.job SET (
    autovacuum_vacuum_scale_factor = 0.01,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_analyze_scale_factor = 0.02,
    autovacuum_vacuum_cost_delay = 1
);
