-- Failing-check alerts: a monitor whose checks fail `failing_after` times in
-- a row is failing from `failing_since` until a check succeeds again; each
-- transition queues one monitor.failing / monitor.recovered notification.
ALTER TABLE monitors ADD COLUMN failing_after smallint NOT NULL DEFAULT 3;
ALTER TABLE monitors ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0;
ALTER TABLE monitors ADD COLUMN failing_since timestamptz;

-- Outbox rows notify about a change (change_id) or about a monitor's state (monitor_id, event, event_data).
ALTER TABLE notification_outbox ALTER COLUMN change_id DROP NOT NULL;
ALTER TABLE notification_outbox ADD COLUMN monitor_id uuid REFERENCES monitors (id) ON DELETE CASCADE;
ALTER TABLE notification_outbox ADD COLUMN event text NOT NULL DEFAULT 'change.detected';
ALTER TABLE notification_outbox ADD COLUMN event_data jsonb;
