-- Reverts version 11: a limited claim counts every running job of its queue (version 9's
-- functions), so a node writes its completions before it claims.
DROP FUNCTION IF EXISTS ${schema}.claim_room(text, bigint[], bigint[]);
DROP FUNCTION IF EXISTS ${schema}.claim_admits(text, int, bigint[], bigint[]);
