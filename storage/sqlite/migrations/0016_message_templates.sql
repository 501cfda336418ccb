-- Message templates: a brand's override of the subject,
-- text and HTML templates of one kind of message (messages.Template) in one
-- language ('' for the brand's default). Times are Unix microseconds, UTC.
CREATE TABLE message_templates (
    id         TEXT PRIMARY KEY,
    brand_id   TEXT NOT NULL REFERENCES brands (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    language   TEXT NOT NULL,
    subject    TEXT NOT NULL,
    text_body  TEXT NOT NULL,
    html_body  TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (brand_id, kind, language)
) STRICT;
