-- The operator's account list (GET /admin/v1/accounts) pages newest first by (created_at, id).
CREATE INDEX accounts_newest ON accounts (created_at DESC, id DESC);
