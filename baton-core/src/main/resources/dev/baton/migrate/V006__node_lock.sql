-- Baton schema version 6: a node's session lock, as the server it was taken on remembers it.
-- ${schema} is replaced by the configured schema name, validated and quoted by the Migrator.
--
-- A node stamps its row when it takes its session lock (version 5) with the server it took it on:
-- the server's start time and its WAL timeline, which a restart or a promotion changes. A leader
-- that finds the lock free on the same server knows the node held it and lost its session, even if
-- it never saw the node alive (the whole cluster restarted), and rescues its jobs without waiting
-- for their leases. A stamp of another server proves nothing: locks do not survive a restart or
-- move to a standby.
ALTER TABLE ${schema}.node ADD COLUMN locked_on text;

COMMENT ON COLUMN ${schema}.node.locked_on IS
    'Baton: the server (start time and timeline) on which the node last took its session lock';
