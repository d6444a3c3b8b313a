-- Reverts version 2: drops the cluster tables (the archive with every job in it).
DROP INDEX IF EXISTS ${schema}.job_finalized_idx;
DROP TABLE IF EXISTS ${schema}.job_archive;
DROP TABLE IF EXISTS ${schema}.periodic;
DROP TABLE IF EXISTS ${schema}.queue;
DROP TABLE IF EXISTS ${schema}.leader;
DROP SEQUENCE IF EXISTS ${schema}.leader_term_seq;
DROP TABLE IF EXISTS ${schema}.node;
