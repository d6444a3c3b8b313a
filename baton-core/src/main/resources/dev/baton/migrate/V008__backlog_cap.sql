-- Baton schema version 8: backlog caps (admission control), docs/backlog-caps.md.
-- ${schema} is replaced by the configured schema name, validated and quoted by the Migrator.
--
-- A queue may carry a cap on its waiting jobs: available, scheduled and retryable (running and
-- finished jobs do not count). An enqueue that would take the queue over its cap is refused and
-- writes nothing. The cap lives on the queue's control row, so a queue without a row, or with a
-- NULL cap, has none; the enqueue of such a queue runs exactly the statements it ran before this
-- version (clients learn which queues have a cap from this table, see BacklogCaps).
--
-- Exactness: admissions to one capped queue are serialised by a transaction-level advisory lock
-- keyed by the queue table's oid and the queue name, taken before the count and held until the
-- admitting transaction ends, so the next producer counts only after the previous one's jobs are
-- committed (or rolled back). Under READ COMMITTED, concurrent producers therefore never take the
-- queue over its cap. A producer that finds the lock taken counts first without it, and when the
-- committed jobs alone leave no room refuses without waiting, so a queue at its cap does not queue
-- its producers behind one another.
ALTER TABLE ${schema}.queue ADD COLUMN backlog_cap integer;

ALTER TABLE ${schema}.queue ADD CONSTRAINT queue_backlog_cap_check
    CHECK (backlog_cap BETWEEN 1 AND 100000000);

COMMENT ON COLUMN ${schema}.queue.backlog_cap IS
    'Baton: most jobs that may wait (available, scheduled, retryable) in the queue; NULL for none';

-- The waiting jobs of a queue, counted up to limit_n: available ones through job_claim_idx (the
-- queue leads it), scheduled and retryable ones through job_waiting_idx. Counting stops at the
-- limit, so a check never reads more than about twice the cap.
CREATE FUNCTION ${schema}.backlog_waiting(queue_name text, limit_n integer) RETURNS integer
LANGUAGE sql STABLE AS $fn$
    SELECT (SELECT count(*) FROM (SELECT 1 FROM ${schema}.job
                                  WHERE state = 'available' AND queue = queue_name
                                  LIMIT limit_n) a)::integer
         + (SELECT count(*) FROM (SELECT 1 FROM ${schema}.job
                                  WHERE state IN ('scheduled', 'retryable') AND queue = queue_name
                                  LIMIT limit_n) w)::integer
$fn$;

-- Admission of `jobs` new jobs to `queue_name`, in the caller's transaction. NULL when admitted
-- (no cap, or room for all of them); else, writing and raising nothing, a refusal:
-- {"queue": ..., "cap": ..., "waiting": ..., "jobs": ...}, waiting counted up to the cap. When the
-- queue has a cap and the jobs are admitted, the caller holds the queue's admission lock until its
-- transaction ends: it must insert the jobs in the same transaction, and should end it soon, since
-- every other producer of the queue waits for it.
CREATE FUNCTION ${schema}.backlog_refusal(queue_name text, jobs integer) RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
    -- the lock's first key: this schema's queue table, so that schemas never share a queue's lock
    lock_class constant integer := '${schema}.queue'::regclass::oid::integer;
    cap integer;
    waiting integer;
BEGIN
    IF jobs IS NULL OR jobs < 1 THEN
        RAISE EXCEPTION 'cannot check backlog cap (queue=%): jobs must be 1 or more, got %',
            queue_name, jobs USING ERRCODE = '22023';
    END IF;
    SELECT q.backlog_cap INTO cap FROM ${schema}.queue q WHERE q.name = queue_name;
    IF cap IS NULL THEN
        RETURN NULL;
    END IF;
    IF NOT pg_try_advisory_xact_lock(lock_class, hashtext(queue_name)) THEN
        -- Another producer holds the queue: when the committed jobs alone leave no room, refuse
        -- without queueing behind it; else wait for it.
        waiting := ${schema}.backlog_waiting(queue_name, cap);
        IF waiting + jobs > cap THEN
            RETURN jsonb_build_object('queue', queue_name, 'cap', cap, 'waiting', waiting, 'jobs', jobs);
        END IF;
        PERFORM pg_advisory_xact_lock(lock_class, hashtext(queue_name));
    END IF;
    -- Under the lock, with a new snapshot: the cap as it is now, and every job admitted before.
    SELECT q.backlog_cap INTO cap FROM ${schema}.queue q WHERE q.name = queue_name;
    IF cap IS NULL THEN
        RETURN NULL;
    END IF;
    waiting := ${schema}.backlog_waiting(queue_name, cap);
    IF waiting + jobs > cap THEN
        RETURN jsonb_build_object('queue', queue_name, 'cap', cap, 'waiting', waiting, 'jobs', jobs);
    END IF;
    RETURN NULL;
END
$fn$;

-- backlog_refusal for callers in SQL (the enqueue function, triggers): returns when admitted, else
-- raises SQLSTATE BT001 with the refusal as DETAIL. A raise aborts the caller's transaction; a
-- caller that wants to go on wraps the call in a savepoint (or a PL/pgSQL EXCEPTION block).
CREATE FUNCTION ${schema}.check_backlog_cap(queue_name text, jobs integer) RETURNS void
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
    refusal jsonb := ${schema}.backlog_refusal(queue_name, jobs);
BEGIN
    IF refusal IS NOT NULL THEN
        -- the message of BacklogCapExceededException, word for word
        RAISE EXCEPTION 'cannot enqueue % % (queue=%): the queue has % waiting jobs and a backlog cap of %; retry later or raise the cap',
            jobs, CASE WHEN jobs = 1 THEN 'job' ELSE 'jobs' END, queue_name,
            refusal ->> 'waiting', refusal ->> 'cap'
            USING ERRCODE = 'BT001', DETAIL = refusal::text,
                  HINT = 'docs/backlog-caps.md';
    END IF;
END
$fn$;

-- enqueue() (version 7) admits its job through the queue's cap, as the Java client does.
CREATE OR REPLACE FUNCTION ${schema}.enqueue_admit(queue_name text, jobs integer) RETURNS void
LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
    PERFORM ${schema}.check_backlog_cap(queue_name, jobs);
END
$fn$;
