-- Secrets the server makes for itself, once, shared by every node of one
-- store (e.g. the key that seals list cursors).
CREATE TABLE server_secrets (
  name text PRIMARY KEY,
  value bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
