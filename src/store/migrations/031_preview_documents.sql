-- Previews of JSON documents and PDF files (issue #40): a preview keeps its
-- document's format, and for those two the document's bytes (an HTML page's
-- decoded text stays in html, which is empty for them).
ALTER TABLE previews ADD COLUMN format text NOT NULL DEFAULT 'html' CHECK (format IN ('html', 'json', 'pdf'));
ALTER TABLE previews ADD COLUMN body bytea;
