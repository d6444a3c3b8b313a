-- Reverts version 11: a limited claim counts every running job of its queue (version 9's
-- functions), so a node writes its completions before it claims; no rate limit per key (a queue
-- that had one keeps its rate for the queue as a whole).
DROP FUNCTION IF EXISTS ${schema}.claim_room(text, bigint[], bigint[]);
DROP FUNCTION IF EXISTS ${schema}.claim_admits(text, int, bigint[], bigint[]);
DROP FUNCTION IF EXISTS ${schema}.rate_room_per_key(text);
ALTER TABLE ${schema}.queue_start DROP COLUMN IF EXISTS key;
ALTER TABLE ${schema}.queue DROP CONSTRAINT IF EXISTS queue_rate_key_field_check;
ALTER TABLE ${schema}.queue DROP COLUMN IF EXISTS rate_key_field;
