-- Baton schema version 10: outputs, durable steps, progress, dependencies and batches.
-- ${schema} is replaced by the configured schema name, validated and quoted by the Migrator.
--
-- Every column added here is nullable or has a constant default, so adding it rewrites no row and a
-- job that uses none of it stores nothing more than before. Output, steps and progress are written
-- by the job's holder only, fenced like its completion (id, fence, state = 'running').
--
-- output:   a small JSON value the handler recorded; copied to its dependents' edges at completion.
-- steps:    the durable steps a handler recorded, by name: {"<name>": {"result", "attempt", "at"}};
--           a later attempt reads them once and skips the steps recorded.
-- progress: the latest progress report, {"fraction", "message", "at"}.
ALTER TABLE ${schema}.job
    ADD COLUMN output jsonb,
    ADD COLUMN steps jsonb,
    ADD COLUMN progress jsonb,
    -- the number of dependencies this job still waits for; NULL for a job without dependencies
    ADD COLUMN deps_waiting integer,
    -- true when finishing this job must update dependents (a workflow step or a batch member): the
    -- claim returns it, so completing a job without dependents runs exactly the statements it ran
    -- before this version
    ADD COLUMN has_dependents boolean NOT NULL DEFAULT false;

-- A new state, pending: the job waits for its dependencies and is never claimed, scheduled or
-- rescued. Added NOT VALID, then validated, so the check does not hold a table lock while it scans.
-- A function, for the reason given for job_unique_states_valid (version 7): the check is read from
-- its stored form by every statement that writes a job, and a list of eight text constants is a
-- long one.
CREATE FUNCTION ${schema}.job_state_valid(state text) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN state IN ('pending', 'scheduled', 'available', 'running', 'retryable', 'completed',
                     'cancelled', 'discarded');
END
$$;
ALTER TABLE ${schema}.job DROP CONSTRAINT job_state_check;
ALTER TABLE ${schema}.job ADD CONSTRAINT job_state_check CHECK (${schema}.job_state_valid(state))
    NOT VALID;
ALTER TABLE ${schema}.job VALIDATE CONSTRAINT job_state_check;

-- One row per dependency edge: job_id waits for depends_on. The finish of a dependency writes its
-- final state and output here (so a dependent reads them after the dependency's row is cleaned or
-- was deleted at completion), and decrements the dependent's deps_waiting in the same statement.
-- on_failure says what a discarded or cancelled dependency does to its dependent: 'cancel' it,
-- 'run' it anyway, or 'hold' it pending for an operator. No foreign keys: a key's trigger would run
-- on every delete of every job, dependencies or not.
CREATE TABLE ${schema}.job_dependency (
    job_id      bigint      NOT NULL,
    depends_on  bigint      NOT NULL,
    -- the dependency's step name in its workflow; NULL for a plain dependency or a batch member
    name        text,
    on_failure  text        NOT NULL DEFAULT 'cancel',
    -- the dependency's final state once it finished, else NULL
    state       text,
    output      jsonb,
    finished_at timestamptz,
    PRIMARY KEY (job_id, depends_on),
    CONSTRAINT job_dependency_on_failure_check CHECK (on_failure IN ('cancel', 'run', 'hold')),
    CONSTRAINT job_dependency_self_check CHECK (job_id <> depends_on)
);

-- A finish finds the edges of the jobs it finished by this index.
CREATE INDEX job_dependency_depends_on_idx ON ${schema}.job_dependency (depends_on);

-- The releaser (a maintenance pass) reads only the edges not yet counted, to find finished jobs
-- whose finish did not release their dependents (rescued, cancelled by an operator, or claimed
-- before the dependent was added). Empty when no job waits.
CREATE INDEX job_dependency_open_idx ON ${schema}.job_dependency (depends_on)
    WHERE state IS NULL;

COMMENT ON TABLE ${schema}.job_dependency IS
    'Baton: job_id waits for depends_on; see docs/workflows.md';

-- The archive keeps the same columns (the cleaner moves rows into it by column name).
ALTER TABLE ${schema}.job_archive
    ADD COLUMN output jsonb,
    ADD COLUMN steps jsonb,
    ADD COLUMN progress jsonb,
    ADD COLUMN deps_waiting integer,
    ADD COLUMN has_dependents boolean NOT NULL DEFAULT false;
