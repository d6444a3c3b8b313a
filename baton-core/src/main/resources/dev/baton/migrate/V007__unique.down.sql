-- Reverts version 7: no unique jobs and no enqueue from SQL. Unique jobs still waiting become
-- plain jobs (their key is dropped with its column).
DROP FUNCTION IF EXISTS ${schema}.enqueue(text, jsonb, text, timestamptz, integer, integer, text,
    jsonb, text, text[], boolean, interval, text[], text[], interval, interval);
DROP FUNCTION IF EXISTS ${schema}.enqueue_admit(text, integer);
DROP FUNCTION IF EXISTS ${schema}.job_unique_key(text, jsonb, text, text[], text, timestamptz, interval);
DROP TABLE IF EXISTS ${schema}.job_staged;
DROP INDEX IF EXISTS ${schema}.job_unique_key_idx;
ALTER TABLE ${schema}.job DROP CONSTRAINT IF EXISTS job_unique_states_check;
DROP FUNCTION IF EXISTS ${schema}.job_unique_states_valid(bytea, text[]);
ALTER TABLE ${schema}.job DROP COLUMN IF EXISTS unique_states, DROP COLUMN IF EXISTS unique_key;
ALTER TABLE ${schema}.job_archive DROP COLUMN IF EXISTS unique_states, DROP COLUMN IF EXISTS unique_key;
