-- The shop's tables, beside Baton's (schema baton). Run at every start; idempotent.
CREATE SCHEMA IF NOT EXISTS shop;

CREATE TABLE IF NOT EXISTS shop.orders (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    customer    text        NOT NULL,
    email       text        NOT NULL,
    total_cents bigint      NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- One row per email sent; the job's idempotency key makes a retried job send once.
CREATE TABLE IF NOT EXISTS shop.sent_emails (
    order_id        bigint      NOT NULL REFERENCES shop.orders (id),
    idempotency_key text        PRIMARY KEY,
    recipient       text        NOT NULL,
    subject         text        NOT NULL,
    sent_at         timestamptz NOT NULL DEFAULT now()
);
