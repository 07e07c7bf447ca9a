-- The account dashboard (served at /): owner passwords, sign-in sessions,
-- one-time set-password links and sign-in throttling.

-- scrypt hash of the owner's password ("scrypt$N$r$p$salt$hash", base64url parts).
CREATE TABLE account_passwords (
  account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  password_hash text NOT NULL,
  updated_at timestamptz NOT NULL
);

-- Sessions are looked up by the SHA-256 of the cookie's secret; the secret itself is never stored.
CREATE TABLE dashboard_sessions (
  id_hash text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  -- sliding idle expiry, never later than absolute_expires_at
  expires_at timestamptz NOT NULL,
  absolute_expires_at timestamptz NOT NULL
);
CREATE INDEX dashboard_sessions_account ON dashboard_sessions (account_id);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at);

-- One-time links the operator hands to an owner; stored as SHA-256 of the link's secret.
CREATE TABLE password_links (
  token_hash text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX password_links_account ON password_links (account_id);

-- Failed sign-ins, one row each, keyed "account:<email>" or "ip:<address>".
CREATE TABLE sign_in_failures (
  throttle_key text NOT NULL,
  failed_at timestamptz NOT NULL
);
CREATE INDEX sign_in_failures_key ON sign_in_failures (throttle_key, failed_at);
