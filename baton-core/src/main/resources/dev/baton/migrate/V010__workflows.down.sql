-- Reverts version 10: no dependencies, outputs, steps or progress. Pending jobs (waiting for
-- dependencies) are cancelled first, since the older check admits no pending state.
DROP TABLE IF EXISTS ${schema}.job_dependency;
UPDATE ${schema}.job SET state = 'cancelled', finalized_at = now() WHERE state = 'pending';
ALTER TABLE ${schema}.job DROP CONSTRAINT job_state_check;
ALTER TABLE ${schema}.job ADD CONSTRAINT job_state_check CHECK (state IN
    ('scheduled', 'available', 'running', 'retryable', 'completed', 'cancelled', 'discarded'));
DROP FUNCTION IF EXISTS ${schema}.job_state_valid(text);
ALTER TABLE ${schema}.job
    DROP COLUMN IF EXISTS output,
    DROP COLUMN IF EXISTS steps,
    DROP COLUMN IF EXISTS progress,
    DROP COLUMN IF EXISTS deps_waiting,
    DROP COLUMN IF EXISTS has_dependents;
ALTER TABLE ${schema}.job_archive
    DROP COLUMN IF EXISTS output,
    DROP COLUMN IF EXISTS steps,
    DROP COLUMN IF EXISTS progress,
    DROP COLUMN IF EXISTS deps_waiting,
    DROP COLUMN IF EXISTS has_dependents;
