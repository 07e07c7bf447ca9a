-- Targets with `confirm`: a new value waits here for the re-check that
-- confirms it before it becomes a change; a value that flips back is dropped.
ALTER TABLE baselines ADD COLUMN pending_value jsonb;
ALTER TABLE baselines ADD COLUMN pending_since timestamptz;
