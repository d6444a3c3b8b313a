-- Baton schema version 11: a limited claim may carry the node's completions.
-- ${schema} is replaced by the configured schema name, validated and quoted by the Migrator.
--
-- claim_admits and claim_room (version 9) count the queue's running jobs after locking its row.
-- A node that completes jobs in the same statement as its next claim (one commit for both) would
-- see those jobs still running there, and the limit would go unused by as many. These overloads
-- take the (id, fence) pairs the calling statement completes and leave them out of the count:
-- a row running under such a pair is completed by that same statement (its holder's completion,
-- fenced on the pair, commits with the claim), or, if it stops running first (rescued), counts no
-- more anyway. While the queue's row is locked, no other claim of the queue can take the job up
-- again under a new fence, so leaving the pair out never lets more run than the limit. The
-- version 9 functions stay for clients of that version.
--
-- Their count reads job_running_idx with a plain index scan (no bitmap scan): a finished job
-- leaves a dead entry there until the table is vacuumed, and a bitmap scan visits the heap page
-- of every such entry on every claim, so a limited queue draining fast paid more per claim with
-- each job it had run (4 ms a claim after a few thousand). A plain index scan marks the entries
-- of rows dead to every transaction as such, and later scans skip them.

-- A rate limit per key: with rate_key_field set, a queue's rate limit (rate_limit starts per
-- rate_period_ms) holds for each key (args ->> rate_key_field; '' without the field) instead of
-- the queue as a whole. A queue limited per key both in concurrency and in rate has one key field
-- for both. A start records its key in queue_start.key (NULL for a start of a
-- queue-wide rate, or one recorded by a client of version 9 or 10, which the per-key count
-- charges to every key). Such a queue is claimed by the keyed claim (claim_room).
ALTER TABLE ${schema}.queue
    ADD COLUMN rate_key_field text,
    ADD CONSTRAINT queue_rate_key_field_check CHECK (
        rate_key_field IS NULL
        OR (rate_limit IS NOT NULL AND length(rate_key_field) BETWEEN 1 AND 128
            AND (key_field IS NULL OR key_field = rate_key_field)));
ALTER TABLE ${schema}.queue_start ADD COLUMN key text;

COMMENT ON COLUMN ${schema}.queue.rate_key_field IS
    'Baton: the args field whose value the rate limit holds for; NULL for the queue as a whole';

-- What a queue's rate limit per key leaves now, as claim_room answers it: {"rate": the limit less
-- the starts without a key in the last period, "started": {key: the key's starts in it}};
-- NULL without a rate limit per key. Counted after the caller locked the queue's row; starts
-- older than the period and a minute are deleted on the way, as rate_room does.
CREATE FUNCTION ${schema}.rate_room_per_key(p_queue text) RETURNS jsonb
    LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    q record;
    unkeyed int;
    by_key jsonb;
BEGIN
    SELECT rate_limit, rate_period_ms, rate_key_field INTO q
    FROM ${schema}.queue WHERE name = p_queue;
    IF q.rate_key_field IS NULL THEN
        RETURN NULL;
    END IF;
    DELETE FROM ${schema}.queue_start s
    WHERE s.queue = p_queue
      AND s.at <= now() - q.rate_period_ms * interval '1 millisecond' - interval '1 minute';
    SELECT coalesce(sum(s.n) FILTER (WHERE s.key IS NULL), 0),
           coalesce(jsonb_object_agg(s.key, s.n) FILTER (WHERE s.key IS NOT NULL), '{}')
    INTO unkeyed, by_key
    FROM (SELECT s.key, count(*) AS n FROM ${schema}.queue_start s
          WHERE s.queue = p_queue AND s.at > now() - q.rate_period_ms * interval '1 millisecond'
          GROUP BY s.key) s;
    -- a start without a key counts against every key: it leaves each key's rate that much less
    RETURN jsonb_build_object('rate', q.rate_limit - unkeyed, 'started', by_key);
END
$$;

-- claim_admits(p_queue, p_wanted), but the jobs running under the pairs (p_ids[i], p_fences[i])
-- are not counted.
CREATE FUNCTION ${schema}.claim_admits(p_queue text, p_wanted int, p_ids bigint[],
                                       p_fences bigint[]) RETURNS int
    LANGUAGE plpgsql VOLATILE SET enable_bitmapscan = off AS $$
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
            SELECT count(*) FROM ${schema}.job j
            WHERE j.state = 'running' AND j.queue = p_queue
              AND NOT EXISTS (SELECT 1 FROM unnest(p_ids, p_fences) AS e(id, fence)
                              WHERE e.id = j.id AND e.fence = j.fence)));
    END IF;
    RETURN greatest(0, least(room, ${schema}.rate_room(p_queue)));
END
$$;

-- claim_room(p_queue), but the jobs running under the pairs (p_ids[i], p_fences[i]) are not
-- counted, in all or per key; and with a rate limit per key, "rate" and "started" as
-- rate_room_per_key answers them, the key field being the rate's when there is no concurrency
-- limit per key.
CREATE FUNCTION ${schema}.claim_room(p_queue text, p_ids bigint[], p_fences bigint[])
    RETURNS jsonb
    LANGUAGE plpgsql VOLATILE SET enable_bitmapscan = off AS $$
DECLARE
    q record;
    busy int;
    by_key jsonb;
BEGIN
    SELECT concurrency_limit, key_field, key_limit, rate_key_field,
           paused_at IS NOT NULL AS paused INTO q
    FROM ${schema}.queue WHERE name = p_queue
    FOR NO KEY UPDATE;
    IF q.paused THEN
        RETURN jsonb_build_object('admit', 0);
    END IF;
    SELECT coalesce(sum(r.n), 0), coalesce(jsonb_object_agg(r.k, r.n) FILTER (WHERE q.key_field IS NOT NULL),
                              '{}')
    INTO busy, by_key
    FROM (
        SELECT coalesce(j.args ->> q.key_field, '') AS k, count(*) AS n
        FROM ${schema}.job j
        WHERE j.state = 'running' AND j.queue = p_queue
          AND NOT EXISTS (SELECT 1 FROM unnest(p_ids, p_fences) AS e(id, fence)
                          WHERE e.id = j.id AND e.fence = j.fence)
        GROUP BY 1) r;
    RETURN jsonb_strip_nulls(jsonb_build_object(
        'admit', greatest(0, least(
                     CASE WHEN q.concurrency_limit IS NOT NULL
                          THEN q.concurrency_limit - busy ELSE 2147483647 END,
                     CASE WHEN q.rate_key_field IS NULL THEN ${schema}.rate_room(p_queue)
                          ELSE 2147483647 END)),
        'field', coalesce(q.key_field, q.rate_key_field),
        'limit', q.key_limit,
        'running', CASE WHEN q.key_field IS NOT NULL THEN by_key END))
        || coalesce(${schema}.rate_room_per_key(p_queue), '{}');
END
$$;
