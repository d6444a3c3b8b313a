-- Reverts version 8: queues lose their backlog caps (no job is lost).
-- enqueue() admits every job again, as in version 7.
CREATE OR REPLACE FUNCTION ${schema}.enqueue_admit(queue_name text, jobs integer) RETURNS void
LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
END
$fn$;
DROP FUNCTION IF EXISTS ${schema}.check_backlog_cap(text, integer);
DROP FUNCTION IF EXISTS ${schema}.backlog_refusal(text, integer);
DROP FUNCTION IF EXISTS ${schema}.backlog_waiting(text, integer);
ALTER TABLE ${schema}.queue DROP COLUMN IF EXISTS backlog_cap;
