-- The check history is the one table that grows to gigabytes (at 100,000
-- monitors it takes tens of millions of rows a day), and an ANALYZE of it
-- reads 300 x the statistics target rows: 30,000 pages at the default of 100.
-- On the embedded store that ANALYZE holds the store while it runs (0.8-3.9 s
-- in the simulated day, issue #14). Every read of the table goes through its
-- indexes (history pages by monitor, retention by time range), and those plans
-- do not change with a smaller sample: a target of 10 samples 3,000 rows and
-- takes a tenth of the time (bench/findings.md, "ANALYZE of the check history").
ALTER TABLE check_runs
  ALTER COLUMN seq SET STATISTICS 10,
  ALTER COLUMN monitor_id SET STATISTICS 10,
  ALTER COLUMN checked_at SET STATISTICS 10,
  ALTER COLUMN duration_ms SET STATISTICS 10,
  ALTER COLUMN outcome SET STATISTICS 10,
  ALTER COLUMN http_status SET STATISTICS 10,
  ALTER COLUMN manual_check_id SET STATISTICS 10,
  ALTER COLUMN issues SET STATISTICS 10,
  ALTER COLUMN changes SET STATISTICS 10;
