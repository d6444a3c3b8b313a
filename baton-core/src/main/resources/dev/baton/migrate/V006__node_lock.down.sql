-- Reverts version 6: a node is judged gone only after the leader saw its lock held.
ALTER TABLE ${schema}.node DROP COLUMN IF EXISTS locked_on;
