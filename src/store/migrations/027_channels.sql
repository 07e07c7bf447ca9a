-- Notification channels (DESIGN §8 Channels): chat and push services an
-- account sends alerts to, each made from an Apprise-style URL. The URL holds
-- the service's secret (a webhook token, a bot token) and is stored as given,
-- like the account's webhook secret, because it must be sent; the API shows it
-- masked. A channel that keeps failing for a reason retries cannot fix (a
-- revoked token) is marked failing.
CREATE TABLE channels (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name text NOT NULL,
  type text NOT NULL,
  url text NOT NULL,
  state text NOT NULL DEFAULT 'active',
  created_at timestamptz NOT NULL
);
CREATE INDEX channels_account ON channels (account_id, created_at DESC, id DESC);

-- The channels a monitor's alerts go to (notifications.channels); a deleted
-- channel is taken out of every monitor's list in the same transaction.
ALTER TABLE monitors ADD COLUMN channel_ids uuid[] NOT NULL DEFAULT '{}';

-- An outbox row of channel 'chat' names its channel; a change is queued once
-- per channel, so the uniqueness of (change, channel) now counts the channel id.
ALTER TABLE notification_outbox ADD COLUMN channel_id uuid REFERENCES channels (id) ON DELETE CASCADE;
ALTER TABLE notification_outbox DROP CONSTRAINT notification_outbox_change_id_channel_key;
CREATE UNIQUE INDEX notification_outbox_change_destination ON notification_outbox
  (change_id, channel, coalesce(channel_id, '00000000-0000-0000-0000-000000000000'::uuid));
CREATE INDEX notification_outbox_channel ON notification_outbox (channel_id, created_at DESC) WHERE channel_id IS NOT NULL;
