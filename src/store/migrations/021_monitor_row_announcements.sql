-- The embedded store keeps the monitors that GET /monitors/{id} read in memory
-- (src/services/monitor-read-cache.ts): one process holds its data directory,
-- so it hears of every change. A change to anything that read shows — the
-- monitor row, its check state, its baselines — is announced on the channel
-- pagewatch_monitor_rows with the monitor's id, whoever makes it (API,
-- engine, cascades of a deleted account, SQL by hand). NOTIFY is delivered at
-- commit. Only a session that set pagewatch.announce_monitor_rows to 'on'
-- announces (the embedded store's one session); on PostgreSQL, where several
-- processes write and nothing is cached, the WHEN clause skips the function.
CREATE FUNCTION announce_monitor_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'monitors' THEN
    PERFORM pg_notify('pagewatch_monitor_rows', OLD.id::text);
  ELSIF TG_OP = 'INSERT' THEN
    PERFORM pg_notify('pagewatch_monitor_rows', NEW.monitor_id::text);
  ELSE
    PERFORM pg_notify('pagewatch_monitor_rows', OLD.monitor_id::text);
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER monitors_announce AFTER UPDATE OR DELETE ON monitors
FOR EACH ROW WHEN (current_setting('pagewatch.announce_monitor_rows', true) = 'on') EXECUTE FUNCTION announce_monitor_row();

CREATE TRIGGER check_state_announce AFTER UPDATE OR DELETE ON check_state
FOR EACH ROW WHEN (current_setting('pagewatch.announce_monitor_rows', true) = 'on') EXECUTE FUNCTION announce_monitor_row();

CREATE TRIGGER baselines_announce AFTER INSERT OR UPDATE OR DELETE ON baselines
FOR EACH ROW WHEN (current_setting('pagewatch.announce_monitor_rows', true) = 'on') EXECUTE FUNCTION announce_monitor_row();
