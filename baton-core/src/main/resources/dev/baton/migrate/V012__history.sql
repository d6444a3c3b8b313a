-- Baton schema version 12: completed, failed, rescued and cancelled jobs per minute, queue and kind,
-- kept for 7 days, for history over days (the dashboard's History page, BatonAdmin.history).
-- ${schema} is replaced by the configured schema name, validated and quoted by the Migrator.
--
-- Nothing per job writes here: the leader's tallier pass counts the rows finalized since its last
-- pass through job_finalized_idx (and the completions that deleted their row, from
-- job_completions), a minute at a time, and writes one row per minute, queue and kind. Each pass
-- counts again the minutes from 2 minutes before the end of the previous one and keeps the larger
-- count, so a job whose transaction committed after a pass that covered its finalized_at is counted
-- by the next one, a repeated pass or a new leader's first pass counts nothing twice, and rows the
-- cleaner removed meanwhile take nothing away.
CREATE TABLE ${schema}.job_stat_minute (
    -- the start of the minute (UTC) the jobs were finalized in
    minute    timestamptz NOT NULL,
    queue     text        NOT NULL,
    -- '' for the completions that deleted their row (completedRetention zero): job_completions
    -- counts them per queue, without their kind
    kind      text        NOT NULL,
    completed bigint      NOT NULL DEFAULT 0,
    -- discarded after a failed attempt (handler error, timeout, args that cannot be read)
    failed    bigint      NOT NULL DEFAULT 0,
    -- discarded after a rescue (node gone or lease lost) at the rescue limit: no handler failed
    rescued   bigint      NOT NULL DEFAULT 0,
    cancelled bigint      NOT NULL DEFAULT 0,
    PRIMARY KEY (minute, queue, kind)
);

COMMENT ON TABLE ${schema}.job_stat_minute IS
    'Baton: finished jobs per minute, queue and kind, for 7 days; see docs/dashboard.md';

-- Where the tallier's last pass ended: one row. The next pass starts 2 minutes before it.
CREATE TABLE ${schema}.job_stat_mark (
    id      boolean     PRIMARY KEY DEFAULT true CHECK (id),
    through timestamptz NOT NULL
);
