-- Baton schema version 9: a cluster-wide concurrency limit per queue.
-- ${schema} is replaced by the configured schema name, validated and quoted by the Migrator.
--
-- A queue's concurrency is otherwise per node (its slots). A limit set here holds across the
-- whole cluster: never more of the queue's jobs running than concurrency_limit. NULL (the
-- default) is no limit, and a queue without one claims with the same statement as before this
-- version: HolderStore's claim only tests the column on the queue row it already probes for a
-- pause, and claims nothing there when a limit is set.
ALTER TABLE ${schema}.queue ADD COLUMN concurrency_limit int
    CONSTRAINT queue_concurrency_limit_check CHECK (concurrency_limit >= 0);

COMMENT ON COLUMN ${schema}.queue.concurrency_limit IS
    'Baton: the most jobs of this queue running at once across the cluster; NULL for no limit';

-- How many of p_wanted jobs a claim of a limited queue may take: the limit less the queue's
-- running jobs, never below 0; 0 while the queue is paused; p_wanted when it has no limit.
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
    lim int;
    paused boolean;
    busy int;
BEGIN
    SELECT q.concurrency_limit, q.paused_at IS NOT NULL INTO lim, paused
    FROM ${schema}.queue q WHERE q.name = p_queue
    FOR NO KEY UPDATE;
    IF paused THEN
        RETURN 0;
    END IF;
    IF lim IS NULL THEN
        RETURN p_wanted;
    END IF;
    SELECT count(*) INTO busy FROM ${schema}.job j WHERE j.state = 'running' AND j.queue = p_queue;
    RETURN greatest(0, least(p_wanted, lim - busy));
END
$$;
