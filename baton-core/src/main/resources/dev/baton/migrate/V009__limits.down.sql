-- Reverts version 9: queues have no cluster-wide concurrency limit.
DROP FUNCTION IF EXISTS ${schema}.claim_admits(text, int);
ALTER TABLE ${schema}.queue DROP COLUMN IF EXISTS concurrency_limit;
