-- Baton schema version 9: cluster-wide concurrency limits, per queue and per key.
-- ${schema} is replaced by the configured schema name, validated and quoted by the Migrator.
--
-- A queue's concurrency is otherwise per node (its slots). A limit set here holds across the
-- whole cluster: never more of the queue's jobs running than concurrency_limit, and, for a queue
-- partitioned by a field of its jobs' args (key_field, read as args ->> key_field; a job without
-- it has the key ''), never more than key_limit running per key. NULL (the default) is no limit,
-- and a queue without one claims with the same statement as before this version: HolderStore's
-- claim only tests the columns on the queue row it already probes for a pause, and claims
-- nothing there when a limit is set.
ALTER TABLE ${schema}.queue
    ADD COLUMN concurrency_limit int
        CONSTRAINT queue_concurrency_limit_check CHECK (concurrency_limit >= 0),
    ADD COLUMN key_field text,
    ADD COLUMN key_limit int,
    ADD CONSTRAINT queue_key_limit_check CHECK (
        (key_field IS NULL) = (key_limit IS NULL) AND key_limit >= 1
        AND length(key_field) BETWEEN 1 AND 128);

-- A rate limit: at most rate_limit job starts (claims) of the queue in any window of
-- rate_period_ms, across the cluster; a sliding window over the starts recorded in queue_start.
ALTER TABLE ${schema}.queue
    ADD COLUMN rate_limit int,
    ADD COLUMN rate_period_ms int,
    ADD CONSTRAINT queue_rate_limit_check CHECK (
        (rate_limit IS NULL) = (rate_period_ms IS NULL) AND rate_limit >= 1
        AND rate_period_ms >= 1);

-- The starts of rate-limited queues, written by the claim that made them (its now()), and
-- deleted by the next claim of the queue once they are older than its period.
CREATE TABLE ${schema}.queue_start (
    queue text        NOT NULL,
    at    timestamptz NOT NULL
);
CREATE INDEX queue_start_idx ON ${schema}.queue_start (queue, at);

COMMENT ON COLUMN ${schema}.queue.concurrency_limit IS
    'Baton: the most jobs of this queue running at once across the cluster; NULL for no limit';
COMMENT ON COLUMN ${schema}.queue.key_limit IS
    'Baton: the most jobs of this queue running at once per key (args ->> key_field); NULL for none';

-- How many starts a rate-limited queue's limit leaves now (2147483647 without one): the limit
-- less the starts recorded in the last period, counted after the caller locked the queue's row
-- (in a snapshot of its own). Starts older than the period and a minute are deleted on the way.
-- A sliding window: every window of one period holds at most the limit, by the recorded start
-- times.
CREATE FUNCTION ${schema}.rate_room(p_queue text) RETURNS int
    LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    q record;
BEGIN
    SELECT rate_limit, rate_period_ms INTO q FROM ${schema}.queue WHERE name = p_queue;
    IF q.rate_limit IS NULL THEN
        RETURN 2147483647;
    END IF;
    -- now() is the time the claiming statement began, before it waited for the lock: claims
    -- take the lock in another order than their now(). The count is safe with that (an earlier
    -- now() counts a longer span), but a delete at a later now() could take starts that a claim
    -- with an earlier one must still count; a minute's margin covers any wait for the lock.
    DELETE FROM ${schema}.queue_start s
    WHERE s.queue = p_queue
      AND s.at <= now() - q.rate_period_ms * interval '1 millisecond' - interval '1 minute';
    RETURN q.rate_limit - (
        SELECT count(*) FROM ${schema}.queue_start s
        WHERE s.queue = p_queue AND s.at > now() - q.rate_period_ms * interval '1 millisecond');
END
$$;

-- How many of p_wanted jobs a claim of a limited queue may take: the limit less the queue's
-- running jobs, never below 0; 0 while the queue is paused or limited per key (only the keyed
-- claim, through claim_room, claims there: a producer that has not yet heard of a per-key limit
-- cannot overstep it); p_wanted when it has no limit.
--
-- The claims of a limited queue take turns: this locks the queue's row until the claiming
-- statement commits. The count must then see every claim committed before the lock was granted,
-- which the claiming statement's own snapshot (taken before it waited) does not: so the count
-- runs here, in a statement of its own (a VOLATILE function takes a fresh snapshot for each
-- statement it runs), after the lock. Jobs that stop running meanwhile only make the count
-- high, never low. A running job counts until its row leaves 'running' (finished, handed back,
-- rescued): from then on its fence is dead and its holder can write nothing.
CREATE FUNCTION ${schema}.claim_admits(p_queue text, p_wanted int) RETURNS int
    LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    q record;
    room int := p_wanted;
BEGIN
    SELECT concurrency_limit, key_limit IS NOT NULL AS keyed, paused_at IS NOT NULL AS paused
    INTO q
    FROM ${schema}.queue WHERE name = p_queue
    FOR NO KEY UPDATE;
    IF q.paused OR q.keyed THEN
        RETURN 0;
    END IF;
    IF q.concurrency_limit IS NOT NULL THEN
        room := least(room, q.concurrency_limit - (
            SELECT count(*) FROM ${schema}.job j WHERE j.state = 'running' AND j.queue = p_queue));
    END IF;
    RETURN greatest(0, least(room, ${schema}.rate_room(p_queue)));
END
$$;

-- What a keyed claim may take, decided as claim_admits decides it (the queue's row locked until
-- the claim commits, the running jobs counted after the lock, in snapshots of their own):
-- {"admit": jobs the queue-wide and rate limits leave (0 while paused), "field": the
-- key field, "limit": the per-key limit (both absent without one), "running": {key: running jobs
-- of that key}}.
CREATE FUNCTION ${schema}.claim_room(p_queue text) RETURNS jsonb
    LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    q record;
    busy int;
    by_key jsonb;
BEGIN
    SELECT concurrency_limit, key_field, key_limit, paused_at IS NOT NULL AS paused INTO q
    FROM ${schema}.queue WHERE name = p_queue
    FOR NO KEY UPDATE;
    IF q.paused THEN
        RETURN jsonb_build_object('admit', 0);
    END IF;
    SELECT count(*) INTO busy FROM ${schema}.job j WHERE j.state = 'running' AND j.queue = p_queue;
    IF q.key_field IS NOT NULL THEN
        SELECT coalesce(jsonb_object_agg(r.k, r.n), '{}') INTO by_key FROM (
            SELECT coalesce(j.args ->> q.key_field, '') AS k, count(*) AS n
            FROM ${schema}.job j WHERE j.state = 'running' AND j.queue = p_queue
            GROUP BY 1) r;
    END IF;
    RETURN jsonb_strip_nulls(jsonb_build_object(
        'admit', greatest(0, least(
                     CASE WHEN q.concurrency_limit IS NOT NULL
                          THEN q.concurrency_limit - busy ELSE 2147483647 END,
                     ${schema}.rate_room(p_queue))),
        'field', q.key_field,
        'limit', q.key_limit,
        'running', by_key));
END
$$;
