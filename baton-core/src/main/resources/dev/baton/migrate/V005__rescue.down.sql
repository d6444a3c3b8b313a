-- Reverts version 5: nodes are judged by their leases only.
ALTER TABLE ${schema}.node DROP COLUMN IF EXISTS session_lock;
