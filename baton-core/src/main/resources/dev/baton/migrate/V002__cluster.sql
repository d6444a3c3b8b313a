-- Baton schema version 2: the cluster. The node registry, leader leases, cluster-wide queue
-- controls, periodic schedules, the archive of finished jobs, and the index the cleaner reads.
-- ${schema} is replaced by the configured schema name, validated and quoted by the Migrator.

-- Every running client, refreshed by its own heartbeat; the leader prunes rows that stop beating.
-- A pruned node's running jobs are left to the rescuer, which acts on their leases.
CREATE TABLE ${schema}.node (
    id           text        PRIMARY KEY,
    host         text        NOT NULL,
    pid          bigint      NOT NULL,
    queues       text[]      NOT NULL DEFAULT '{}',
    version      text        NOT NULL,
    started_at   timestamptz NOT NULL,
    heartbeat_at timestamptz NOT NULL,
    CONSTRAINT node_id_check CHECK (length(id) BETWEEN 1 AND 255)
);

-- Leadership terms. A node that wins an election draws a new term from this sequence; every write
-- the leader makes checks, under a share lock on its leader row, that the row still holds its term,
-- so an old leader that wakes up after another was elected changes nothing. CACHE 1 for the same
-- reason as job_fence_seq: terms must grow in the order they are drawn.
CREATE SEQUENCE ${schema}.leader_term_seq AS bigint CACHE 1;

-- One lease row per role ('maintenance'). A row whose expires_at has passed may be taken over; a
-- renewal only extends the holder's own term.
CREATE TABLE ${schema}.leader (
    role        text        PRIMARY KEY,
    leader_id   text        NOT NULL,
    term        bigint      NOT NULL,
    elected_at  timestamptz NOT NULL,
    renewed_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
);

-- Cluster-wide queue controls. A queue without a row is active; a paused queue's jobs are not
-- claimed by any node until it is resumed (jobs already running finish).
CREATE TABLE ${schema}.queue (
    name        text        PRIMARY KEY,
    paused_at   timestamptz,
    paused_by   text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    metadata    jsonb       NOT NULL DEFAULT '{}',
    CONSTRAINT queue_name_check CHECK (length(name) BETWEEN 1 AND 64)
);

-- The last due time the leader handled per periodic schedule (fired, or skipped as missed), moved
-- in the same transaction as the enqueue of its run. The run's idempotency key names the schedule
-- and the due time, so a run can never be enqueued twice, whichever leader tries.
CREATE TABLE ${schema}.periodic (
    name         text        PRIMARY KEY,
    schedule     text        NOT NULL,
    last_due_at  timestamptz NOT NULL,
    last_job_id  bigint,
    updated_at   timestamptz NOT NULL
);

-- Finished jobs moved here by the cleaner when archiving is on, instead of deleted.
CREATE TABLE ${schema}.job_archive (
    LIKE ${schema}.job,
    archived_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);

-- The cleaner reads finished rows oldest first, per state.
CREATE INDEX job_finalized_idx ON ${schema}.job (state, finalized_at)
    WHERE finalized_at IS NOT NULL;

-- The node table is all heartbeat updates: vacuum it often.
ALTER TABLE ${schema}.node SET (autovacuum_vacuum_scale_factor = 0.0, autovacuum_vacuum_threshold = 100);
ALTER TABLE ${schema}.leader SET (autovacuum_vacuum_scale_factor = 0.0, autovacuum_vacuum_threshold = 50);
