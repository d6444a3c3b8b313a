-- Reverts version 9: queues have no cluster-wide concurrency limit (as a whole or per key) nor
-- rate limit.
DROP FUNCTION IF EXISTS ${schema}.claim_room(text);
DROP FUNCTION IF EXISTS ${schema}.claim_admits(text, int);
DROP FUNCTION IF EXISTS ${schema}.rate_room(text);
DROP TABLE IF EXISTS ${schema}.queue_start;
ALTER TABLE ${schema}.queue
    DROP COLUMN IF EXISTS rate_period_ms,
    DROP COLUMN IF EXISTS rate_limit,
    DROP COLUMN IF EXISTS key_limit,
    DROP COLUMN IF EXISTS key_field,
    DROP COLUMN IF EXISTS concurrency_limit;
