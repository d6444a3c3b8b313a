-- Reverts version 12: no history of finished jobs per minute.
DROP TABLE IF EXISTS ${schema}.job_stat_mark;
DROP TABLE IF EXISTS ${schema}.job_stat_minute;
