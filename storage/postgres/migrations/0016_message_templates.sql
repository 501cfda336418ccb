-- Message templates: a brand's override of the subject,
-- text and HTML templates of one kind of message (messages.Template) in one
-- language ('' for the brand's default).
CREATE TABLE message_templates (
    id         text PRIMARY KEY,
    brand_id   text NOT NULL REFERENCES brands (id) ON DELETE CASCADE,
    kind       text NOT NULL,
    language   text NOT NULL,
    subject    text NOT NULL,
    text_body  text NOT NULL,
    html_body  text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (brand_id, kind, language)
);
