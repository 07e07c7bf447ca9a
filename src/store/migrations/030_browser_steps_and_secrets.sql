-- Steps before the capture in browser mode (issue #42). A preview keeps the
-- steps it was loaded with and whether one failed: a monitor is made or
-- changed only with a preview of the same steps, all of which succeeded.
ALTER TABLE previews ADD COLUMN steps jsonb NOT NULL DEFAULT '[]';
ALTER TABLE previews ADD COLUMN step_failed boolean NOT NULL DEFAULT false;
ALTER TABLE monitors ADD COLUMN steps jsonb NOT NULL DEFAULT '[]';

-- An account's secrets, typed by steps by name. Only the sealed value is
-- kept (AES-256-GCM under the operator's PAGEWATCH_SECRETS_KEY, with the
-- account and name as associated data, so a sealed value moved to another
-- row does not open); no answer shows it.
CREATE TABLE account_secrets (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name text NOT NULL,
  sealed bytea NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, name)
);
