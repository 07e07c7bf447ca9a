-- What every check writes, out of the wide monitors row (targets, labels,
-- names: a rewrite of it copied all of that for each check). A check updates
-- one narrow row here instead. fillfactor leaves room on each page so an
-- update that moves no indexed column (a manual check, a skipped slot that
-- keeps its time) can be a HOT update; a scheduled check moves next_check_at,
-- which the due index needs, so it writes the narrow row and two small index
-- entries. The lease stays in check_leases (a row per check under way).
CREATE TABLE check_state (
  monitor_id uuid PRIMARY KEY REFERENCES monitors (id) ON DELETE CASCADE,
  -- monitors.status = 'active', kept with it by the monitors store: the due index holds active monitors only
  active boolean NOT NULL,
  consecutive_failures integer NOT NULL DEFAULT 0,
  next_check_at timestamptz,
  last_checked_at timestamptz,
  last_change_at timestamptz,
  failing_since timestamptz,
  last_issues jsonb NOT NULL DEFAULT '[]'
) WITH (fillfactor = 50);

INSERT INTO check_state (monitor_id, active, consecutive_failures, next_check_at, last_checked_at, last_change_at, failing_since, last_issues)
SELECT id, status = 'active', consecutive_failures, next_check_at, last_checked_at, last_change_at, failing_since, last_issues FROM monitors;

CREATE INDEX check_state_due ON check_state (next_check_at) WHERE active;

DROP INDEX monitors_due;
ALTER TABLE monitors
  DROP COLUMN next_check_at,
  DROP COLUMN last_checked_at,
  DROP COLUMN last_change_at,
  DROP COLUMN last_issues,
  DROP COLUMN consecutive_failures,
  DROP COLUMN failing_since;

-- check_state.active follows monitors.status whoever changes it (the API, or SQL by hand).
CREATE FUNCTION follow_monitor_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE check_state SET active = NEW.status = 'active' WHERE monitor_id = NEW.id AND active <> (NEW.status = 'active');
  RETURN NULL;
END;
$$;

CREATE TRIGGER monitors_status_follow AFTER UPDATE OF status ON monitors
FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION follow_monitor_status();
