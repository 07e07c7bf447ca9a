-- An idempotent operation retains the value it produced; the route that
-- answers (first time or replay) chooses the HTTP status and Location itself.
ALTER TABLE idempotency_keys ADD COLUMN result jsonb;
UPDATE idempotency_keys SET result = response_body -> 'data' WHERE response_status IS NOT NULL;
ALTER TABLE idempotency_keys DROP COLUMN response_status, DROP COLUMN response_body, DROP COLUMN response_location;
