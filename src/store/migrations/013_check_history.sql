-- Check history (GET /monitors/{id}/checks): one narrow row per recorded
-- check, kept for the plan's retention. Empty issues and changes are NULL so
-- an uneventful check costs a few dozen bytes; seq orders the history and is
-- its keyset.
CREATE TABLE check_runs (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  monitor_id uuid NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
  checked_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  -- ok: every target read; issues: the page loaded, a target could not be read; failed: the page did not load
  outcome text NOT NULL,
  http_status smallint,
  manual_check_id uuid,
  issues jsonb,
  changes jsonb
);
CREATE INDEX check_runs_monitor ON check_runs (monitor_id, seq DESC);
CREATE INDEX check_runs_checked_at ON check_runs (checked_at);
