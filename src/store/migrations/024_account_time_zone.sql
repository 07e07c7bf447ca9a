-- The IANA time zone in which the account's notifications show times.
ALTER TABLE accounts ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC';
