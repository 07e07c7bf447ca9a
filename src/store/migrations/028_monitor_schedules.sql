-- Monitor schedules (issue #41): active days and hours in a time zone, or a
-- cron expression, with optional jitter, as the API takes them
-- (domain/monitor-schedule.ts). NULL: checks every interval_minutes, around
-- the clock, as before.
ALTER TABLE monitors ADD COLUMN schedule jsonb;
