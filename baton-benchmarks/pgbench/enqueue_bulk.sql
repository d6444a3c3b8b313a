-- The table's share of a bulk enqueue: :n jobs written into Baton's job table by one
-- INSERT ... SELECT generate_series, as the peer harness's raw insert_bulk.sql writes its minimal
-- table, with the columns Baton's bulk enqueue sets (the defaults do the rest). Baton's client
-- writes them with COPY instead (EnqueueStore.enqueueMany); this statement gives the time the job
-- table itself, with its claim index and checks, takes for the rows. Variables (-D): n.
INSERT INTO "baton".job (queue, kind, args, state, priority, max_attempts, metadata)
SELECT 'default', 'bench_noop', jsonb_build_object('i', g), 'available', 0, 20, '{}'
FROM generate_series(1, :n) AS g;
