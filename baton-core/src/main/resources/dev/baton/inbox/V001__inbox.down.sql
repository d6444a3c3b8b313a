-- Reverts inbox version 1.
DROP TABLE IF EXISTS ${schema}.inbox;
