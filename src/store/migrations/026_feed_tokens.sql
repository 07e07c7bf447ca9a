-- Atom feed tokens (DESIGN §8 Feeds): a read-only secret in a feed URL, for
-- readers that cannot send headers. Only its SHA-256 is stored, like API
-- tokens'. A token shows the whole account, one label or one monitor; a
-- monitor's tokens go with the monitor.
CREATE TABLE feed_tokens (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name text NOT NULL,
  label text,
  monitor_id uuid REFERENCES monitors (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  token_hint text NOT NULL,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz,
  -- the hourly read window (feed reads are limited per token, across API nodes)
  read_window_start timestamptz,
  read_count integer NOT NULL DEFAULT 0,
  CHECK (label IS NULL OR monitor_id IS NULL)
);
CREATE INDEX feed_tokens_account ON feed_tokens (account_id, created_at DESC, id DESC);
