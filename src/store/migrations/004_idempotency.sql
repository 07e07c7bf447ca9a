-- Retained results of idempotent requests (POST /monitors, POST /monitors/{id}/checks).
-- A row exists only inside the transaction of the request that claimed the key
-- and after that transaction committed: failures roll it back with everything else.
CREATE TABLE idempotency_keys (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  operation text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  response_status integer,
  response_body jsonb,
  response_location text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, operation, key)
);
CREATE INDEX idempotency_keys_account_recent ON idempotency_keys (account_id, created_at);
