-- The keyed claim (claim_room, then its pick) read every available job of a queue limited per key
-- and ranked them within their key on every claim: its cost grew with the queue's backlog (20,000
-- jobs waiting: tens of milliseconds a claim). A queue limited per key now has an index of its own,
-- partial to its available jobs: (the key, priority, scheduled_at, id). Its pick (keyed_pick) walks
-- the index from key to key (one probe per key waiting) and reads at most each key's room of jobs
-- from it, in claim order: the cost grows with the number of keys it visits (at most 32, or twice
-- the jobs it may take, starting after a cursor that moves round the keys), not with the
-- backlog.
--
-- The index is partial to the queue, so an insert into any other queue adds no entry to it, and a
-- database with no queue limited per key has no such index at all: a queue without limits pays
-- nothing. The index is made and dropped by the client that sets or removes the limit
-- (key_index_changes says what to run; CREATE INDEX CONCURRENTLY, which cannot run in a function or
-- a transaction). Until it is valid (being built, or never made because the role setting the limit
-- does not own the table), keyed_pick ranks the whole backlog as before: slower, never wrong.

-- The name of the key index of p_queue keyed by args ->> p_field.
CREATE FUNCTION ${schema}.key_index_name(p_queue text, p_field text) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$
    SELECT 'job_key_' || left(md5(p_queue || chr(31) || p_field), 20)
$$;

-- The statements that bring the key indexes in line with the queues limited per key: a create for
-- each such queue without its index ('create'), a drop for each key index no queue needs any more
-- ('drop'; only a valid one: an index not valid may be one whose build for a limit set just now is
-- under way), and, for a key index a queue needs that exists but is not valid (a build that failed
-- or is under way), its name ('invalid', no statement). With p_concurrently, CREATE and DROP INDEX
-- CONCURRENTLY, which take no lock that stops writes.
CREATE FUNCTION ${schema}.key_index_changes(p_concurrently boolean)
    RETURNS TABLE (action text, name text, ddl text)
    LANGUAGE sql STABLE AS $$
    WITH wanted AS (
        SELECT q.name AS queue, coalesce(q.key_field, q.rate_key_field) AS field,
               ${schema}.key_index_name(q.name, coalesce(q.key_field, q.rate_key_field)) AS index
        FROM ${schema}.queue q
        WHERE q.key_limit IS NOT NULL OR q.rate_key_field IS NOT NULL
    ),
    present AS (
        SELECT c.relname AS index, i.indisvalid AS valid
        FROM pg_index i
        JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = '${schema}.job'::regclass AND c.relname LIKE 'job\_key\_%'
    )
    SELECT 'create', w.index,
           format('CREATE INDEX %s %I ON %s.job ((coalesce(args ->> %L, '''')), priority, '
                  'scheduled_at, id) WHERE state = ''available'' AND queue = %L',
                  CASE WHEN p_concurrently THEN 'CONCURRENTLY' ELSE '' END,
                  w.index, '${schema}', w.field, w.queue)
    FROM wanted w
    WHERE NOT EXISTS (SELECT 1 FROM present p WHERE p.index = w.index)
    UNION ALL
    SELECT 'invalid', w.index, NULL
    FROM wanted w JOIN present p ON p.index = w.index AND NOT p.valid
    UNION ALL
    SELECT 'drop', p.index,
           format('DROP INDEX %s IF EXISTS %s.%I',
                  CASE WHEN p_concurrently THEN 'CONCURRENTLY' ELSE '' END, '${schema}', p.index)
    FROM present p
    WHERE p.valid AND NOT EXISTS (SELECT 1 FROM wanted w WHERE w.index = p.index)
$$;

-- Where the next keyed claim of a queue starts its walk over the keys waiting: after this key
-- (NULL: at the first key).
ALTER TABLE ${schema}.queue ADD COLUMN key_cursor text;

-- Weighted fair share: a key's weight w lets it take w jobs per turn of the keys ({key: w}, w of
-- 2..1000; a key not named has the weight 1). NULL: every key weighs 1.
ALTER TABLE ${schema}.queue ADD COLUMN key_weights jsonb;

COMMENT ON COLUMN ${schema}.queue.key_weights IS
    'Baton: {key: weight}, the jobs a key takes per turn of the keys (1 for a key not named)';
COMMENT ON COLUMN ${schema}.queue.key_cursor IS
    'Baton: the key after which the next keyed claim starts its walk over the keys waiting';

-- The weight of p_key in p_weights (queue.key_weights): its number, whole and within 1..1000, else
-- 1, so that a value written there by hand can make no claim fail.
CREATE FUNCTION ${schema}.key_weight(p_weights jsonb, p_key text) RETURNS int
    LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN jsonb_typeof(p_weights -> p_key) = 'number'
                THEN greatest(1, least(1000, floor((p_weights ->> p_key)::numeric)))::int
                ELSE 1 END
$$;

-- The ids a keyed claim takes, given claim_room's answer p_room: per key (args ->> the room's
-- field; '' without the field), at most the key's room (its concurrency limit less its running
-- jobs, and its rate less its starts in the period) of its available jobs, first in claim order;
-- of those, at most p_wanted, by priority, then by their turn (their rank in their key, counted in
-- the key's weight: a key of weight 3 takes 3 jobs a turn), so that keys take turns: a key with a
-- long backlog does not hold up a key enqueued after it.
--
-- With the queue's key index, the turns go round the keys in key order: a claim visits at most 32
-- keys (or twice p_wanted), from key to key, starting after the queue's key_cursor and
-- wrapping around, takes the jobs by priority, turn, then the key's place in that
-- walk, and moves the cursor to the last key it took a job from (else, with more keys waiting than
-- it visits, to the last key visited). So every key waiting gets its turn, however many wait, and
-- the cost is bounded by the keys visited. Without a valid key index, every available job of the
-- queue is ranked within its key, and ties of priority and turn go to the oldest job.
--
-- The walk is planned once per session: it is prepared (PREPARE, named after the schema, queue,
-- field and whether a cursor is set, so one statement serves each) the first time a session runs it
-- and executed with a generic plan from then on; planned anew on each claim it cost as much as it
-- ran.
--
-- VOLATILE, so that its reads take a snapshot after claim_room locked the queue's row, and see the
-- claims that committed before. Sequential scans are off inside it: statistics taken while the
-- queue was small must not turn each probe of the key index into a read of the whole table.
CREATE FUNCTION ${schema}.keyed_pick(p_queue text, p_room jsonb, p_wanted int) RETURNS bigint[]
    LANGUAGE plpgsql VOLATILE SET enable_seqscan = off SET plan_cache_mode = force_generic_plan
    AS $$
DECLARE
    field text := p_room ->> 'field';
    visits int := greatest(32, 2 * p_wanted);
    cursor_key text;
    weights jsonb;
    picked bigint[];
    bounded boolean;
    next_cursor text;
    walk text;
BEGIN
    IF p_wanted <= 0 OR field IS NULL THEN
        RETURN '{}';
    END IF;
    SELECT q.key_cursor, q.key_weights INTO cursor_key, weights
    FROM ${schema}.queue q WHERE q.name = p_queue;
    IF EXISTS (SELECT 1 FROM pg_index i
               WHERE i.indexrelid = to_regclass(
                         '${schema}.' || quote_ident(${schema}.key_index_name(p_queue, field)))
                 AND i.indisvalid) THEN
        -- From key to key through the queue's key index (the literals match its expression and
        -- predicate): the keys after the cursor, then from the first key up to the cursor; then
        -- each visited key's room of jobs from it.
        walk := 'baton_keyed_pick_' || left(md5('${schema}' || chr(31) || p_queue || chr(31) || field
                                                || chr(31) || (cursor_key IS NULL)::text), 24);
        IF NOT EXISTS (SELECT 1 FROM pg_prepared_statements s WHERE s.name = walk) THEN
            EXECUTE format('PREPARE %I (jsonb, int, text, int, jsonb) AS ', walk) || format($q$
            WITH RECURSIVE after_cursor (k, i) AS (
                (SELECT coalesce(j.args ->> %2$L, ''), 1 FROM ${schema}.job j
                 WHERE j.state = 'available' AND j.queue = %1$L
                   AND coalesce(j.args ->> %2$L, '') %3$s
                 ORDER BY coalesce(j.args ->> %2$L, '') LIMIT 1)
                UNION ALL
                SELECT (SELECT coalesce(j.args ->> %2$L, '') FROM ${schema}.job j
                        WHERE j.state = 'available' AND j.queue = %1$L
                          AND coalesce(j.args ->> %2$L, '') > a.k
                        ORDER BY coalesce(j.args ->> %2$L, '') LIMIT 1), a.i + 1
                FROM after_cursor a WHERE a.k IS NOT NULL AND a.i < $4
            ),
            from_start (k, i) AS (
                (SELECT coalesce(j.args ->> %2$L, ''), 1 FROM ${schema}.job j
                 WHERE j.state = 'available' AND j.queue = %1$L AND $3::text IS NOT NULL
                   AND coalesce(j.args ->> %2$L, '') <= $3
                 ORDER BY coalesce(j.args ->> %2$L, '') LIMIT 1)
                UNION ALL
                SELECT (SELECT coalesce(j.args ->> %2$L, '') FROM ${schema}.job j
                        WHERE j.state = 'available' AND j.queue = %1$L
                          AND coalesce(j.args ->> %2$L, '') > s.k
                          AND coalesce(j.args ->> %2$L, '') <= $3
                        ORDER BY coalesce(j.args ->> %2$L, '') LIMIT 1), s.i + 1
                FROM from_start s
                WHERE s.k IS NOT NULL AND s.i < $4 - (SELECT count(*) FROM after_cursor a
                                                      WHERE a.k IS NOT NULL)
            ),
            visited AS MATERIALIZED (
                SELECT k, i AS pos FROM after_cursor WHERE k IS NOT NULL
                UNION ALL
                SELECT k, $4 + i FROM from_start WHERE k IS NOT NULL
            ),
            room AS (
                SELECT v.k, v.pos,
                       greatest(0, least(
                           coalesce(($1 ->> 'limit')::int
                                    - coalesce(($1 -> 'running' ->> v.k)::int, 0), $2),
                           coalesce(($1 ->> 'rate')::int
                                    - coalesce(($1 -> 'started' ->> v.k)::int, 0), $2),
                           $2)) AS n
                FROM visited v
            ),
            candidates AS (
                SELECT c.id, c.priority, c.scheduled_at, room.k, room.pos,
                       row_number() OVER (PARTITION BY room.k
                                          ORDER BY c.priority, c.scheduled_at, c.id) AS rn
                FROM room
                CROSS JOIN LATERAL (
                    SELECT j.id, j.priority, j.scheduled_at FROM ${schema}.job j
                    WHERE j.state = 'available' AND j.queue = %1$L
                      AND coalesce(j.args ->> %2$L, '') = room.k
                    ORDER BY j.priority, j.scheduled_at, j.id
                    LIMIT room.n) c
                WHERE room.n > 0
            ),
            turns AS (
                SELECT c.*, (c.rn - 1) / ${schema}.key_weight($5, c.k) AS turn FROM candidates c
            ),
            taken AS MATERIALIZED (
                SELECT * FROM turns ORDER BY priority, turn, pos, rn LIMIT $2
            )
            SELECT (SELECT array_agg(t.id ORDER BY t.priority, t.turn, t.pos, t.rn) FROM taken t),
                   (SELECT count(*) FROM visited) >= $4,
                   coalesce((SELECT t.k FROM taken t ORDER BY t.pos DESC LIMIT 1),
                            (SELECT v.k FROM visited v ORDER BY v.pos DESC LIMIT 1))
            $q$, p_queue, field,
            CASE WHEN cursor_key IS NULL THEN '>= ''''' ELSE '> $3' END);
        END IF;
        -- The arguments as literals: an EXECUTE statement run from PL/pgSQL takes no parameters.
        EXECUTE format('EXECUTE %I (%L::jsonb, %s, %L::text, %s, %L::jsonb)',
                       walk, p_room, p_wanted, cursor_key, visits, weights)
        INTO picked, bounded, next_cursor;
        IF next_cursor IS DISTINCT FROM cursor_key AND (bounded OR picked IS NOT NULL) THEN
            UPDATE ${schema}.queue SET key_cursor = next_cursor WHERE name = p_queue;
        END IF;
    ELSE
        -- No valid key index: every available job of the queue, ranked within its key.
        SELECT array_agg(t.id ORDER BY t.priority, t.turn, t.scheduled_at, t.id) INTO picked
        FROM (
            SELECT r.id, r.priority, r.scheduled_at,
                   (r.rn - 1) / ${schema}.key_weight(weights, r.k) AS turn
            FROM (
                SELECT j.id, j.priority, j.scheduled_at, coalesce(j.args ->> field, '') AS k,
                       row_number() OVER (PARTITION BY coalesce(j.args ->> field, '')
                                          ORDER BY j.priority, j.scheduled_at, j.id) AS rn
                FROM ${schema}.job j
                WHERE j.state = 'available' AND j.queue = p_queue) r
            WHERE r.rn <= coalesce((p_room ->> 'limit')::int, r.rn)
                          - coalesce((p_room -> 'running' ->> r.k)::int, 0)
              AND r.rn <= coalesce((p_room ->> 'rate')::int, r.rn)
                          - coalesce((p_room -> 'started' ->> r.k)::int, 0)
            ORDER BY r.priority, (r.rn - 1) / ${schema}.key_weight(weights, r.k), r.scheduled_at,
                     r.id
            LIMIT p_wanted) t;
    END IF;
    RETURN coalesce(picked, '{}');
END
$$;

-- The queues limited per key before this version get their index here (without CONCURRENTLY: a
-- migration runs in a transaction).
DO $$
DECLARE
    c record;
BEGIN
    FOR c IN SELECT * FROM ${schema}.key_index_changes(false) WHERE action = 'create' LOOP
        EXECUTE c.ddl;
    END LOOP;
END
$$;
