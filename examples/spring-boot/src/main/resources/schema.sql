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

-- One invoice per order, written by the invoice job in the transaction that completes it. The
-- reference to the order is checked at commit (DEFERRABLE INITIALLY DEFERRED), so a missing order
-- fails the commit, not the insert.
CREATE TABLE IF NOT EXISTS shop.invoices (
    order_id    bigint      PRIMARY KEY
                            REFERENCES shop.orders (id) DEFERRABLE INITIALLY DEFERRED,
    total_cents bigint      NOT NULL,
    issued_at   timestamptz NOT NULL DEFAULT now()
);
