-- Pre-fills the queue for one pgbench measurement (psql -v n=N -f load.sql), untimed: :n available
-- jobs of queue 'default', kind bench_noop, as Baton's enqueueMany writes them (the column
-- defaults do the rest: attempt 0, fence 0, scheduled_at now()), in one INSERT ... SELECT, then
-- ANALYZE, as the peers' pgbench driver pre-fills its tables. The schema must exist (run.sh pipes
-- Migrator.print() to psql first).
INSERT INTO "baton".job (queue, kind, args, state, priority, max_attempts)
SELECT 'default', 'bench_noop', jsonb_build_object('i', g), 'available', 0, 20
FROM generate_series(1, :n) AS g;
ANALYZE "baton".job;
