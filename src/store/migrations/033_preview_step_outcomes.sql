-- A preview keeps what each of its steps did (ok or the issue, and the page's
-- URL and title after it), so the dashboard's preview page can show every
-- step's result, not only a failed one's (issue #42).
ALTER TABLE previews ADD COLUMN step_outcomes jsonb NOT NULL DEFAULT '[]';
