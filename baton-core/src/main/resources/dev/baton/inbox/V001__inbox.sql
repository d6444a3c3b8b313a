-- Receiver-side dedupe, version 1: one row per idempotency key applied by this receiver, with the
-- highest fence seen for it. Lives in the receiver's database, which need not be the queue's.
CREATE TABLE ${schema}.inbox (
    idempotency_key text        PRIMARY KEY,
    fence           bigint      NOT NULL,
    applied_at      timestamptz NOT NULL DEFAULT now(),
    last_seen_at    timestamptz NOT NULL DEFAULT now(),
    repeats         integer     NOT NULL DEFAULT 0,
    CONSTRAINT inbox_key_check CHECK (length(idempotency_key) BETWEEN 1 AND 255)
);
