-- The outbox: every mail and event the service sends is
-- a row here, written in the transaction of the change that causes it,
-- claimed by one instance at a time (claimed_by until claimed_until, the
-- claim taken with FOR UPDATE SKIP LOCKED), retried with backoff (next_at)
-- until delivered or failed. An event (channel 'event') is fanned out into
-- one 'webhook' row per endpoint that takes it, with the event's id; a mail
-- is a 'mail' row. seq is the order of insertion. payload is cleared once
-- the row is delivered or failed.
-- fillfactor 70: a claim (claimed_by, claimed_until: no index) is a HOT
-- update that finds room on its page.
CREATE TABLE outbox (
    seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel       text NOT NULL,
    target        text NOT NULL DEFAULT '',
    id            text NOT NULL,
    brand_id      text NOT NULL,
    topic         text NOT NULL,
    subject_id    text NOT NULL DEFAULT '',
    payload       bytea,
    created_at    timestamptz NOT NULL,
    status        text NOT NULL DEFAULT 'pending',
    attempts      integer NOT NULL DEFAULT 0,
    next_at       timestamptz NOT NULL,
    claimed_by    text,
    claimed_until timestamptz,
    last_code     integer NOT NULL DEFAULT 0,
    last_error    text NOT NULL DEFAULT '',
    delivered_at  timestamptz,
    UNIQUE (channel, target, id)
) WITH (fillfactor = 70);
-- A claim walks the brands with pending items (one seek each) and takes
-- each brand's first due items: its cost never grows with a backlog.
CREATE INDEX outbox_due ON outbox (brand_id, next_at, seq) WHERE status = 'pending';
CREATE INDEX outbox_brand ON outbox (brand_id, channel, target, seq);
