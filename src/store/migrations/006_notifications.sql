-- Notification delivery (DESIGN §8) on top of the outbox the engine writes.
--
-- An outbox row is `pending` until it ends as `delivered`, `skipped` (never
-- sent: skipped_reason says why, e.g. allowance_exhausted or
-- smtp_not_configured) or `failed` (sent but given up on: 410, a permanent
-- SMTP rejection, or retries exhausted; last_error says why).
--
-- A dispatcher leases a due row by moving next_attempt_at ahead and setting
-- lease_token; only the holder of the token records the outcome, and a row
-- whose lease ran out (its dispatcher died) is due again for any other.
-- charged_period is the month whose allowance the notification was charged
-- to, set once before the first send so retries and take-overs never charge
-- twice.
ALTER TABLE notification_outbox
  ADD COLUMN status text NOT NULL DEFAULT 'pending',
  ADD COLUMN skipped_reason text,
  ADD COLUMN finished_at timestamptz,
  ADD COLUMN lease_token uuid,
  ADD COLUMN charged_period timestamptz;

-- Finished rows (skipped, failed) are never due again: index only pending ones.
DROP INDEX notification_outbox_pending;
CREATE INDEX notification_outbox_due ON notification_outbox (next_attempt_at) WHERE status = 'pending';

-- Every send, successful or not: what the receiver (or SMTP server) answered.
CREATE TABLE notification_attempts (
  id uuid PRIMARY KEY,
  outbox_id uuid NOT NULL REFERENCES notification_outbox (id) ON DELETE CASCADE,
  attempted_at timestamptz NOT NULL,
  -- HTTP status of a webhook answer or SMTP reply code; null when nothing answered
  response_status integer,
  duration_ms integer NOT NULL,
  outcome text NOT NULL,
  error text
);
CREATE INDEX notification_attempts_outbox ON notification_attempts (outbox_id, attempted_at);
