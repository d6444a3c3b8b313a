-- Reverts version 3: drops the queue_stats view (no data is lost).
DROP VIEW IF EXISTS ${schema}.queue_stats;
