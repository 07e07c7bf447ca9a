-- A preview's capture (the page's HTML) stays on the server for evaluation and
-- monitor creation; it is deleted when the preview expires or is discarded.
CREATE TABLE previews (
  id uuid PRIMARY KEY,
  -- insertion order: decides which previews are "the most recent" when times tie
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  url text NOT NULL,
  final_url text NOT NULL,
  load_mode text NOT NULL,
  title text,
  html text NOT NULL,
  elements jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX previews_account_newest ON previews (account_id, created_at DESC, seq DESC);
CREATE INDEX previews_expiry ON previews (expires_at);

-- When the account last spent a preview credit (previews must be 35 s apart).
CREATE TABLE preview_spacing (
  account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  last_at timestamptz NOT NULL
);
