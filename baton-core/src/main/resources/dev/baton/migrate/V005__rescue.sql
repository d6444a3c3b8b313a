-- Baton schema version 5: nodes that can be proven gone.
-- ${schema} is replaced by the configured schema name, validated and quoted by the Migrator.
--
-- A node that works queues holds a session-level advisory lock, keyed by its schema and node id,
-- on its heartbeat connection. A killed process's sessions end at once (its sockets close), so a
-- registered node whose lock is free has no heartbeat session left: the leader rescues its running
-- jobs without waiting for their leases. session_lock says the node takes that lock; a node that
-- does not (poll-only clients behind a transaction pooler, older versions) is never judged by it.
ALTER TABLE ${schema}.node ADD COLUMN session_lock boolean NOT NULL DEFAULT false;

COMMENT ON COLUMN ${schema}.node.session_lock IS
    'Baton: the node holds an advisory lock on its heartbeat session; free means it is gone';
