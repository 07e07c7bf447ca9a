CREATE TABLE accounts (
  id uuid PRIMARY KEY,
  email text NOT NULL UNIQUE,
  plan text NOT NULL,
  webhook_url text,
  webhook_secret text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE api_tokens (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name text NOT NULL,
  scopes text[] NOT NULL,
  -- SHA-256 of the secret, hex; the secret itself is never stored
  token_hash text NOT NULL UNIQUE,
  -- the first characters of the secret, so owners can tell tokens apart
  token_hint text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  last_used_at timestamptz
);
CREATE INDEX api_tokens_account ON api_tokens (account_id);

-- The 60-second request window: it begins with the first request after the previous one expired.
CREATE TABLE rate_windows (
  account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  window_start timestamptz NOT NULL,
  count integer NOT NULL
);

-- Daily and monthly counters (api requests, read bytes, previews, checks, notifications …),
-- one row per account, metric and UTC period.
CREATE TABLE usage_counters (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  metric text NOT NULL,
  period_start timestamptz NOT NULL,
  used bigint NOT NULL,
  PRIMARY KEY (account_id, metric, period_start)
);

CREATE TABLE api_status (
  id integer PRIMARY KEY CHECK (id = 1),
  open boolean NOT NULL,
  retry_after_seconds integer NOT NULL
);
INSERT INTO api_status (id, open, retry_after_seconds) VALUES (1, true, 300);
