-- The monitoring engine: captured texts, baselines, changes, check leases,
-- manual-check receipts, the notification outbox and per-host backoff.

-- Captured text of a target, stored once per distinct content (the key is the
-- SHA-256 of the text). Rows referenced by no baseline and no change are
-- deleted by the periodic cleanup once unused for a while (last_used_at), so a
-- check that is about to reference an old row never loses it to the cleanup.
CREATE TABLE texts (
  hash text PRIMARY KEY,
  content text NOT NULL,
  last_used_at timestamptz NOT NULL
);
CREATE INDEX texts_last_used ON texts (last_used_at);

-- The value each target is compared with. `fingerprint` covers what makes two
-- values of a target comparable (kind, selection, currency, …): when the
-- target is edited in such a way, the stored baseline no longer applies and
-- the next capture seeds a new one.
CREATE TABLE baselines (
  monitor_id uuid NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
  target_id text NOT NULL,
  fingerprint text NOT NULL,
  value jsonb NOT NULL,
  display text,
  -- the text of the latest capture that determined a value: the "before" side of the next change
  text_hash text REFERENCES texts (hash),
  -- links targets: every URL seen so far, for new_links
  seen_links jsonb NOT NULL DEFAULT '[]',
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (monitor_id, target_id)
);
CREATE INDEX baselines_text ON baselines (text_hash);

CREATE TABLE changes (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  monitor_id uuid NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
  target_id text NOT NULL,
  kind text NOT NULL,
  detected_at timestamptz NOT NULL,
  -- null: the target has no rule (legacy any-change); [] : no rule matched
  rule_matches jsonb,
  -- rule_matches is null or non-empty: the change notifies (filter matched=true)
  matched boolean NOT NULL,
  before_value jsonb NOT NULL,
  before_display text,
  after_value jsonb NOT NULL,
  after_display text,
  before_text_hash text REFERENCES texts (hash),
  after_text_hash text REFERENCES texts (hash)
);
CREATE INDEX changes_account_newest ON changes (account_id, detected_at DESC, id DESC);
CREATE INDEX changes_monitor_newest ON changes (monitor_id, detected_at DESC, id DESC);
CREATE INDEX changes_before_text ON changes (before_text_hash);
CREATE INDEX changes_after_text ON changes (after_text_hash);

-- A monitor being checked. One row per monitor at most, so no two workers
-- check one monitor at once; a row whose lease expired belongs to a worker
-- that died and is taken over. The allowance reserved at the claim stays on
-- the row, so a take-over does not reserve a second time.
CREATE TABLE check_leases (
  monitor_id uuid PRIMARY KEY REFERENCES monitors (id) ON DELETE CASCADE,
  token uuid NOT NULL,
  host text NOT NULL,
  lease_expires_at timestamptz NOT NULL,
  attempt integer NOT NULL,
  -- the check serves the monitor's schedule (next_check_at advances when it commits)
  scheduled boolean NOT NULL,
  manual_check_id uuid,
  reserved_metric text,
  reserved_period timestamptz,
  claimed_at timestamptz NOT NULL
);
CREATE INDEX check_leases_host ON check_leases (host);

-- Manual-check receipts. No foreign key to monitors: a receipt outlives the
-- deletion of its monitor (as cancelled) and stays readable for seven days.
CREATE TABLE manual_checks (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  monitor_id uuid NOT NULL,
  status text NOT NULL,
  requested_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  started_at timestamptz,
  finished_at timestamptz,
  changes jsonb NOT NULL DEFAULT '[]',
  issues jsonb NOT NULL DEFAULT '[]'
);
-- one outstanding (queued) request per monitor
CREATE UNIQUE INDEX manual_checks_one_queued ON manual_checks (monitor_id) WHERE status = 'queued';
CREATE INDEX manual_checks_requested ON manual_checks (requested_at);

-- Changes to notify about, written in the transaction that records the change;
-- delivery (email, webhook) reads from here.
CREATE TABLE notification_outbox (
  id uuid PRIMARY KEY,
  change_id uuid NOT NULL REFERENCES changes (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  channel text NOT NULL,
  created_at timestamptz NOT NULL,
  next_attempt_at timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  delivered_at timestamptz,
  last_error text,
  UNIQUE (change_id, channel)
);
CREATE INDEX notification_outbox_pending ON notification_outbox (next_attempt_at) WHERE delivered_at IS NULL;

-- Sites that throttled us or failed to answer: no check of the host before `until`.
CREATE TABLE host_backoff (
  host text PRIMARY KEY,
  until timestamptz NOT NULL,
  backoff_seconds integer NOT NULL,
  reason text NOT NULL
);
