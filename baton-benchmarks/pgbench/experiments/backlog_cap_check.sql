-- The cost of one backlog cap check (V008__backlog_cap.sql, docs/backlog-caps.md): 2000 calls of
-- <schema>.backlog_refusal per case, in one psql session with \timing, on a freshly migrated schema
-- with no other jobs. Divide each time by 2000 for one check. Run:
--   psql "$URL" -v schema=bench_caps -f backlog_cap_check.sql
-- after migrating the schema (Migrator.up(), or `baton migrate up --schema bench_caps`); the script
-- fills it, and a second run needs a fresh schema.
INSERT INTO :schema.job (queue, kind) SELECT 'other', 'k' FROM generate_series(1, 20000);
INSERT INTO :schema.job (queue, kind, state, scheduled_at)
    SELECT 'other', 'k', 'scheduled', now() + interval '1 day' FROM generate_series(1, 5000);
INSERT INTO :schema.job (queue, kind) SELECT 'capped', 'k' FROM generate_series(1, 999);
INSERT INTO :schema.queue (name, backlog_cap) VALUES ('capped', 1000), ('empty', 1000);
VACUUM ANALYZE :schema.job;
SET baton.bench_schema = :'schema';
CREATE FUNCTION pg_temp.checks(q text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1..2000 LOOP
        EXECUTE format('SELECT %I.backlog_refusal($1, 1)', current_setting('baton.bench_schema'))
            USING q;
    END LOOP;
END $$;
\timing on
\echo queue without a cap (a read of the queue table; the Java client does not call it at all)
SELECT pg_temp.checks('other');
\echo capped queue, empty; 5000 scheduled jobs in another queue
SELECT pg_temp.checks('empty');
\echo capped queue at 999 of 1000; 5000 scheduled jobs in another queue
SELECT pg_temp.checks('capped');
\timing off
DELETE FROM :schema.job WHERE state = 'scheduled';
VACUUM ANALYZE :schema.job;
\timing on
\echo capped queue, empty; no scheduled jobs
SELECT pg_temp.checks('empty');
\echo capped queue at 999 of 1000; no scheduled jobs
SELECT pg_temp.checks('capped');
