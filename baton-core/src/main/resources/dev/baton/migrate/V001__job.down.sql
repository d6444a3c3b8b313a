-- Reverts version 1: drops the job table and its sequence, with every job in it.
DROP TABLE IF EXISTS ${schema}.job;
DROP SEQUENCE IF EXISTS ${schema}.job_fence_seq;
