-- The outbox: every mail and event the service sends is
-- a row here, written in the transaction of the change that causes it,
-- claimed by one instance at a time (claimed_by until claimed_until),
-- retried with backoff (next_at) until delivered or failed. An event
-- (channel 'event') is fanned out into one 'webhook' row per endpoint that
-- takes it, with the event's id; a mail is a 'mail' row. seq is the order
-- of insertion. payload is cleared once the row is delivered or failed.
CREATE TABLE outbox (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    channel       TEXT NOT NULL,
    target        TEXT NOT NULL DEFAULT '',
    id            TEXT NOT NULL,
    brand_id      TEXT NOT NULL,
    topic         TEXT NOT NULL,
    subject_id    TEXT NOT NULL DEFAULT '',
    payload       BLOB,
    created_at    INTEGER NOT NULL,
    status        TEXT NOT NULL DEFAULT 'pending',
    attempts      INTEGER NOT NULL DEFAULT 0,
    next_at       INTEGER NOT NULL,
    claimed_by    TEXT,
    claimed_until INTEGER,
    last_code     INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT NOT NULL DEFAULT '',
    delivered_at  INTEGER,
    UNIQUE (channel, target, id)
);
-- A claim walks the brands with pending items (one seek each) and takes
-- each brand's first due items: its cost never grows with a backlog.
CREATE INDEX outbox_due ON outbox (brand_id, next_at, seq) WHERE status = 'pending';
CREATE INDEX outbox_brand ON outbox (brand_id, channel, target, seq);
