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

-- Email digests (DESIGN §8 Digests): an account's default email mode and the
-- hour of its digests (in its time_zone), and each monitor's own mode (null:
-- the account's). A change email of a monitor in digest mode is skipped as
-- 'daily_digest' or 'weekly_digest'; the digest of the period takes those rows
-- (digest_id). One digest row per account, kind and period end: the unique
-- index makes a second worker's attempt at the same period a no-op.
ALTER TABLE accounts
  ADD COLUMN email_mode text NOT NULL DEFAULT 'each',
  ADD COLUMN digest_hour smallint NOT NULL DEFAULT 8;
ALTER TABLE monitors ADD COLUMN email_mode text;
ALTER TABLE notification_outbox ADD COLUMN digest_id uuid;
CREATE INDEX notification_outbox_undigested ON notification_outbox (account_id)
  WHERE digest_id IS NULL AND skipped_reason IN ('daily_digest', 'weekly_digest');
CREATE UNIQUE INDEX notification_outbox_digest_period ON notification_outbox (account_id, event, (event_data ->> 'period_end'))
  WHERE event IN ('digest.daily', 'digest.weekly');
