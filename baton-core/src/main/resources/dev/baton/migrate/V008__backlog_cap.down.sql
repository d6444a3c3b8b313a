-- Reverts version 8: queues lose their backlog caps (no job is lost).
DROP FUNCTION IF EXISTS ${schema}.check_backlog_cap(text, integer);
DROP FUNCTION IF EXISTS ${schema}.backlog_refusal(text, integer);
DROP FUNCTION IF EXISTS ${schema}.backlog_waiting(text, integer);
ALTER TABLE ${schema}.queue DROP COLUMN IF EXISTS backlog_cap;
