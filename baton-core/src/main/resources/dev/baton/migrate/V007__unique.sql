-- Baton schema version 7: unique jobs, and enqueue from SQL.
-- ${schema} is replaced by the configured schema name, validated and quoted by the Migrator.
--
-- A unique job carries unique_key, a hash of what makes it unique (job_unique_key below), and
-- unique_states, the states in which it holds that key. A unique index over the key, among the rows
-- whose state is one of their own unique_states, makes the database refuse a second job with the
-- key: concurrent, bulk and COPY enqueues need no lock in the client, and the first one wins. A job
-- that is not unique has both columns NULL, so the index's predicate is false for it and it adds
-- no entry; the statements that enqueue, claim and finish such jobs are those of version 6. Both
-- columns are added without a default, which rewrites no row.
ALTER TABLE ${schema}.job ADD COLUMN unique_key bytea, ADD COLUMN unique_states text[];

-- The archive keeps whole rows: the cleaner moves them column by name, since these two come after
-- the archive's own archived_at.
ALTER TABLE ${schema}.job_archive ADD COLUMN unique_key bytea, ADD COLUMN unique_states text[];

-- The states a job can move back into (a claim, a snooze, a rescue, a hand-back, the scheduler)
-- always hold the key, so none of those moves can meet another job's key; only the final states
-- are a choice. The only move into a holding state from outside them is an operator's retry of a
-- finished job, which fails while another job holds the key.
--
-- The test is a function rather than an expression of array constants: every statement that writes
-- a job row reads the table's checks from their stored form, and an expression of eleven text
-- constants made each single-row insert cost about a fifth more server work than the checks of
-- version 6; a function call is a short stored form, and is made only for a unique job (the OR
-- stops at a NULL unique_states). JobChecksStayCheapTest keeps the stored forms small. PL/pgSQL,
-- so that the planner does not inline the body back into the check.
CREATE FUNCTION ${schema}.job_unique_states_valid(k bytea, states text[]) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN k IS NOT NULL
        AND states @> ARRAY['scheduled', 'available', 'running', 'retryable']
        AND states <@ ARRAY['scheduled', 'available', 'running', 'retryable', 'completed',
                            'cancelled', 'discarded'];
END
$$;

-- NOT VALID: every existing row has NULLs, which the check accepts, so the table need not be read
-- here; new and updated rows are checked.
ALTER TABLE ${schema}.job ADD CONSTRAINT job_unique_states_check CHECK (
    unique_states IS NULL OR ${schema}.job_unique_states_valid(unique_key, unique_states)) NOT VALID;

-- At most one job per unique key among the states it is unique in (invariant 10).
CREATE UNIQUE INDEX job_unique_key_idx ON ${schema}.job (unique_key)
    WHERE unique_key IS NOT NULL AND state = ANY (unique_states);

-- A bulk enqueue of many unique jobs streams them here with COPY, and one statement of the same
-- transaction takes them out and hands each to enqueue() below: COPY cannot settle a conflicting
-- key itself. Rows live only inside the call that wrote them, so the table is UNLOGGED (no WAL;
-- emptied by a crash) and keeps nothing between calls. batch: the writing session's backend pid.
CREATE UNLOGGED TABLE ${schema}.job_staged (
    batch            integer  NOT NULL,
    ord              integer  NOT NULL,
    kind             text     NOT NULL,
    args             text     NOT NULL,
    queue            text     NOT NULL,
    run_at           timestamptz,
    priority         integer  NOT NULL,
    max_attempts     integer  NOT NULL,
    idempotency_key  text,
    metadata         text     NOT NULL,
    unique_by        text,
    unique_fields    text[],
    per_queue        boolean,
    period           interval,
    states           text[],
    replace          text[],
    debounce         interval,
    max_wait         interval,
    PRIMARY KEY (batch, ord)
);
ALTER TABLE ${schema}.job_staged SET (autovacuum_vacuum_scale_factor = 0.0,
                                      autovacuum_vacuum_threshold = 10000);

-- The unique key of a job: one definition, used by the Java client's statements and by
-- enqueue() below, so both agree by construction. The key hashes a JSON array of the kind, the
-- args (all of them for 'args', the named top-level fields for 'fields', none for 'kind'), the
-- queue (NULL unless the job is unique per queue) and the number of the period bucket its run
-- time falls in (NULL without a period). jsonb's text form is canonical: object keys sorted, no
-- insignificant whitespace, so args that differ only in field order or spacing give one key. A
-- named field that the args lack is left out. SHA-256, so that args of any size fit the index.
CREATE FUNCTION ${schema}.job_unique_key(
    kind text, args jsonb, unique_by text, unique_fields text[], queue text,
    bucket_at timestamptz, period interval)
RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
SELECT sha256(convert_to(jsonb_build_array(
    kind,
    CASE unique_by
        WHEN 'args' THEN args
        WHEN 'fields' THEN (SELECT coalesce(jsonb_object_agg(f, args -> f), '{}'::jsonb)
                            FROM unnest(unique_fields) AS f
                            WHERE args -> f IS NOT NULL)
    END,
    queue,
    CASE WHEN period IS NOT NULL
        THEN floor(extract(epoch FROM bucket_at) / extract(epoch FROM period))
    END)::text, 'UTF8'))
$$;

COMMENT ON FUNCTION ${schema}.job_unique_key(text, jsonb, text, text[], text, timestamptz, interval) IS
    'Baton: the unique key of a job (see docs/unique-jobs.md); used by the client and by enqueue()';

-- The admission of enqueue() below: nothing in this version. A later version replaces it (the
-- backlog cap of version 8), so that enqueue() need not be re-created for it.
CREATE FUNCTION ${schema}.enqueue_admit(queue_name text, jobs integer) RETURNS void
LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
END
$fn$;

-- Enqueue from SQL: the Java client's enqueue, for a trigger or a service in any language, in the
-- caller's transaction. The same checks with the same messages (SQLSTATE 22023), the default
-- limits of the client (args 1 MiB, metadata 64 KiB of JSON text), the same uniqueness, and the
-- same NOTIFY (delivered at commit) when the job is available now. The Java client runs its own
-- unique enqueues through this function, so the two cannot drift apart.
--
-- SECURITY DEFINER with a fixed search_path: a role needs USAGE on the schema and EXECUTE on this
-- function, and nothing on the tables, to enqueue (docs/enqueue-from-sql.md). EXECUTE is revoked
-- from PUBLIC below.
CREATE FUNCTION ${schema}.enqueue(
    kind text,
    args jsonb DEFAULT '{}',
    queue text DEFAULT 'default',
    run_at timestamptz DEFAULT NULL,
    priority integer DEFAULT 0,
    max_attempts integer DEFAULT 20,
    idempotency_key text DEFAULT NULL,
    metadata jsonb DEFAULT '{}',
    unique_by text DEFAULT NULL,
    unique_fields text[] DEFAULT NULL,
    unique_per_queue boolean DEFAULT false,
    unique_period interval DEFAULT NULL,
    unique_states text[] DEFAULT NULL,
    replace text[] DEFAULT NULL,
    debounce interval DEFAULT NULL,
    debounce_max_wait interval DEFAULT NULL,
    OUT id bigint,
    OUT state text,
    OUT existing boolean,
    OUT updated boolean,
    OUT job ${schema}.job)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    what text := 'cannot enqueue job (kind=' || enqueue.kind || '): ';
    holding text[] := ARRAY['scheduled', 'available', 'running', 'retryable'];
    waiting boolean := enqueue.replace IS NOT NULL OR enqueue.debounce IS NOT NULL;
    v_key bytea;
    v_states text[];
    v_at timestamptz;
    v_new bigint;
    v_id bigint;
    v_bytes integer;
BEGIN
    IF enqueue.kind IS NULL OR enqueue.kind !~ '^[A-Za-z0-9_.:/-]{1,128}$' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
            'cannot enqueue job: kind must be 1-128 characters of letters, digits and _ . : - /, got '
            || coalesce('"' || enqueue.kind || '"', 'null');
    END IF;
    IF enqueue.args IS NULL OR jsonb_typeof(enqueue.args) <> 'object' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
            what || 'args must be a JSON object, got ' || coalesce(jsonb_typeof(enqueue.args), 'null');
    END IF;
    IF enqueue.queue IS NULL OR enqueue.queue !~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
            'invalid enqueue option: queue must be 1-64 characters of letters, digits and _ - .,'
            || ' starting with a letter or digit, got ' || coalesce('"' || enqueue.queue || '"', 'null');
    END IF;
    IF enqueue.priority IS NULL OR enqueue.priority NOT BETWEEN 0 AND 9 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
            'invalid enqueue option: priority must be 0..9 (lower runs first), got '
            || coalesce(enqueue.priority::text, 'null');
    END IF;
    IF enqueue.max_attempts IS NULL OR enqueue.max_attempts NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
            'invalid enqueue option: maxAttempts must be 1..1000, got '
            || coalesce(enqueue.max_attempts::text, 'null');
    END IF;
    IF enqueue.idempotency_key IS NOT NULL AND (enqueue.idempotency_key ~ '^\s*$'
            OR length(enqueue.idempotency_key) > 255) THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
            'invalid enqueue option: idempotencyKey must be 1-255 characters and not blank, got '
            || CASE WHEN length(enqueue.idempotency_key) > 40
                    THEN length(enqueue.idempotency_key) || ' characters'
                    ELSE '"' || enqueue.idempotency_key || '"' END;
    END IF;
    IF enqueue.metadata IS NULL OR jsonb_typeof(enqueue.metadata) <> 'object' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
            what || 'metadata must be a JSON object, got ' || coalesce(jsonb_typeof(enqueue.metadata), 'null');
    END IF;
    v_bytes := octet_length(enqueue.args::text);
    IF v_bytes > 1048576 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
            what || 'args are ' || v_bytes || ' bytes of JSON, over the limit of 1048576'
            || ' (BatonConfig maxArgsBytes); store large data elsewhere and pass a reference';
    END IF;
    v_bytes := octet_length(enqueue.metadata::text);
    IF v_bytes > 65536 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
            what || 'metadata is ' || v_bytes || ' bytes of JSON, over the limit of 65536'
            || ' (BatonConfig maxMetadataBytes); store large data elsewhere and pass a reference';
    END IF;
    IF enqueue.unique_by IS NULL THEN
        IF enqueue.unique_fields IS NOT NULL OR enqueue.unique_per_queue OR enqueue.unique_period IS NOT NULL
                OR enqueue.unique_states IS NOT NULL OR waiting THEN
            RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
                'invalid unique option: unique_fields, unique_per_queue, unique_period, unique_states,'
                || ' replace and debounce apply to a unique job; set unique_by to args, fields or kind';
        END IF;
    ELSE
        IF enqueue.unique_by NOT IN ('args', 'fields', 'kind') THEN
            RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
                'invalid unique option: unique_by must be args, fields or kind, got "' || enqueue.unique_by || '"';
        END IF;
        IF (enqueue.unique_by = 'fields') <> (coalesce(cardinality(enqueue.unique_fields), 0) > 0)
                OR array_position(enqueue.unique_fields, NULL) IS NOT NULL
                OR EXISTS (SELECT 1 FROM unnest(enqueue.unique_fields) f WHERE f ~ '^\s*$') THEN
            RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
                'invalid unique option: fields must be named, not blank, for a job unique by fields'
                || ' and only then, got ' || coalesce(enqueue.unique_fields::text, 'none')
                || ' for unique_by ' || enqueue.unique_by;
        END IF;
        IF enqueue.unique_period IS NOT NULL AND enqueue.unique_period < interval '1 second' THEN
            RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
                'invalid unique option: period must be at least 1 second, got ' || enqueue.unique_period;
        END IF;
        v_states := coalesce(enqueue.unique_states, holding);
        IF NOT (v_states @> holding AND v_states <@ (holding || ARRAY['completed', 'cancelled', 'discarded'])) THEN
            RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
                'invalid unique option: states must hold scheduled, available, running and retryable'
                || ' (states a job moves back into), and may add completed, cancelled or discarded, got '
                || array_to_string(enqueue.unique_states, ', ', 'null');
        END IF;
        IF NOT coalesce(enqueue.replace <@ ARRAY['args', 'metadata', 'priority', 'run_at'], true) THEN
            RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
                'invalid unique option: replace must hold only args, metadata, priority and run_at, got '
                || array_to_string(enqueue.replace, ', ', 'null');
        END IF;
        IF enqueue.debounce IS NOT NULL AND enqueue.debounce <= interval '0' THEN
            RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
                'invalid unique option: debounce must be positive, got ' || enqueue.debounce;
        END IF;
        IF enqueue.debounce_max_wait IS NOT NULL
                AND (enqueue.debounce IS NULL OR enqueue.debounce_max_wait < enqueue.debounce) THEN
            RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
                'invalid unique option: a maximum wait needs a debounce no longer than it, got '
                || enqueue.debounce_max_wait || ' for debounce ' || coalesce(enqueue.debounce::text, 'none');
        END IF;
        IF enqueue.debounce IS NOT NULL AND (enqueue.run_at IS NOT NULL OR 'run_at' = ANY (enqueue.replace)) THEN
            RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
                'invalid unique option: debounce sets the run time; do not also set a run time or replace it';
        END IF;
        IF waiting AND enqueue.idempotency_key IS NOT NULL THEN
            RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE =
                'invalid enqueue option: an idempotency key cannot be combined with replace or debounce;'
                || ' use one or the other';
        END IF;
        v_key := ${schema}.job_unique_key(enqueue.kind, enqueue.args, enqueue.unique_by,
            enqueue.unique_fields, CASE WHEN enqueue.unique_per_queue THEN enqueue.queue END,
            coalesce(enqueue.run_at, now()), enqueue.unique_period);
    END IF;
    v_at := coalesce(enqueue.run_at, now() + enqueue.debounce, now());

    -- A queue's admission (its backlog cap, from version 8), before anything is written.
    PERFORM ${schema}.enqueue_admit(enqueue.queue, 1);

    -- A conflicting key inserts nothing; the job holding it is read and returned. Between the
    -- conflict and the read that job may have left the states it holds the key in (finished, then
    -- deleted): insert again, a bounded number of times.
    FOR tries IN 1..5 LOOP
        v_new := nextval('${schema}.job_id_seq'::regclass);
        IF waiting THEN
            -- Replace or debounce: a waiting job holding the key is changed, under its row lock;
            -- a running (or finished, if its states hold the key) one is left as it is.
            INSERT INTO ${schema}.job AS j
                (id, queue, kind, args, state, priority, max_attempts, scheduled_at, metadata,
                 unique_key, unique_states)
            OVERRIDING SYSTEM VALUE
            VALUES (v_new, enqueue.queue, enqueue.kind, enqueue.args,
                    CASE WHEN v_at > now() THEN 'scheduled' ELSE 'available' END,
                    enqueue.priority, enqueue.max_attempts, v_at, enqueue.metadata,
                    v_key, v_states)
            ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL AND state = ANY (unique_states)
            DO UPDATE SET
                args = CASE WHEN 'args' = ANY (enqueue.replace) THEN excluded.args ELSE j.args END,
                metadata = CASE WHEN 'metadata' = ANY (enqueue.replace)
                                THEN excluded.metadata ELSE j.metadata END,
                priority = CASE WHEN 'priority' = ANY (enqueue.replace)
                                THEN excluded.priority ELSE j.priority END,
                scheduled_at = CASE
                    WHEN enqueue.debounce IS NOT NULL
                        THEN least(now() + enqueue.debounce, j.created_at + enqueue.debounce_max_wait)
                    WHEN 'run_at' = ANY (enqueue.replace) THEN excluded.scheduled_at
                    ELSE j.scheduled_at END,
                state = CASE
                    WHEN j.state = 'retryable' THEN 'retryable'
                    WHEN (CASE
                              WHEN enqueue.debounce IS NOT NULL
                                  THEN least(now() + enqueue.debounce,
                                             j.created_at + enqueue.debounce_max_wait)
                              WHEN 'run_at' = ANY (enqueue.replace) THEN excluded.scheduled_at
                              ELSE j.scheduled_at END) > now() THEN 'scheduled'
                    ELSE 'available' END
            WHERE j.state IN ('scheduled', 'available', 'retryable')
            RETURNING j.id INTO v_id;
        ELSE
            INSERT INTO ${schema}.job AS j
                (id, queue, kind, args, state, priority, max_attempts, scheduled_at,
                 idempotency_key, metadata, unique_key, unique_states)
            OVERRIDING SYSTEM VALUE
            VALUES (v_new, enqueue.queue, enqueue.kind, enqueue.args,
                    CASE WHEN v_at > now() THEN 'scheduled' ELSE 'available' END,
                    enqueue.priority, enqueue.max_attempts, v_at, enqueue.idempotency_key,
                    enqueue.metadata, v_key, v_states)
            ON CONFLICT DO NOTHING
            RETURNING j.id INTO v_id;
        END IF;
        IF v_id IS NOT NULL THEN
            existing := v_id <> v_new;
            updated := existing;
            EXIT;
        END IF;
        IF enqueue.idempotency_key IS NOT NULL THEN
            SELECT j.id INTO v_id FROM ${schema}.job j WHERE j.idempotency_key = enqueue.idempotency_key;
        END IF;
        IF v_id IS NULL AND v_key IS NOT NULL THEN
            SELECT j.id INTO v_id FROM ${schema}.job j
            WHERE j.unique_key = v_key AND j.state = ANY (j.unique_states);
        END IF;
        IF v_id IS NOT NULL THEN
            existing := true;
            updated := false;
            EXIT;
        END IF;
    END LOOP;
    IF v_id IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '40001', MESSAGE = what
            || 'its key conflicted but the job holding it could not be read; is the transaction'
            || ' REPEATABLE READ or SERIALIZABLE? Retry it';
    END IF;
    SELECT j.* INTO job FROM ${schema}.job j WHERE j.id = v_id;
    id := v_id;
    state := job.state;
    IF (NOT existing OR updated) AND job.state = 'available' THEN
        -- the channel the client listens on: <schema>_insert
        PERFORM pg_notify(n.nspname || '_insert', job.queue)
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.oid = '${schema}.job'::regclass;
    END IF;
END
$$;

REVOKE ALL ON FUNCTION ${schema}.enqueue(text, jsonb, text, timestamptz, integer, integer, text,
    jsonb, text, text[], boolean, interval, text[], text[], interval, interval) FROM PUBLIC;

COMMENT ON FUNCTION ${schema}.enqueue(text, jsonb, text, timestamptz, integer, integer, text,
    jsonb, text, text[], boolean, interval, text[], text[], interval, interval) IS
    'Baton: enqueue a job from SQL, in the caller''s transaction (see docs/enqueue-from-sql.md)';
