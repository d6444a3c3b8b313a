-- Reverts version 9: queues have no cluster-wide concurrency limit, as a whole or per key.
DROP FUNCTION IF EXISTS ${schema}.claim_room(text);
DROP FUNCTION IF EXISTS ${schema}.claim_admits(text, int);
ALTER TABLE ${schema}.queue
    DROP COLUMN IF EXISTS key_limit,
    DROP COLUMN IF EXISTS key_field,
    DROP COLUMN IF EXISTS concurrency_limit;
