CREATE TABLE monitors (
  id uuid PRIMARY KEY,
  -- insertion order: breaks created_at ties so list traversal is stable
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  url text NOT NULL,
  load_mode text NOT NULL,
  status text NOT NULL,
  name text,
  labels jsonb NOT NULL DEFAULT '[]',
  interval_minutes integer NOT NULL,
  targets jsonb NOT NULL,
  email_enabled boolean NOT NULL,
  webhook_enabled boolean NOT NULL,
  config_version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  last_checked_at timestamptz,
  next_check_at timestamptz,
  last_change_at timestamptz,
  last_issues jsonb NOT NULL DEFAULT '[]',
  UNIQUE (account_id, url)
);
CREATE INDEX monitors_account_newest ON monitors (account_id, created_at DESC, seq DESC);
CREATE INDEX monitors_due ON monitors (next_check_at) WHERE status = 'active';
