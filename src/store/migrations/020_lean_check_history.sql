-- The check history gets one row per check, most of them for checks that found
-- nothing new, and its indexes were most of its size (issue #14: an unchanged
-- check should cost the store a few dozen bytes). What stays is what reads
-- need: (monitor_id, seq) serves the history pages; seq stays unique by being
-- an identity column, without an index of its own (nothing looks a row up by
-- seq alone); checked_at only serves retention's range deletes, and rows are
-- appended in time order, so a block-range (BRIN) index of a few pages does
-- that for the whole table instead of a b-tree entry per row.
ALTER TABLE check_runs DROP CONSTRAINT check_runs_pkey;
DROP INDEX check_runs_checked_at;
CREATE INDEX check_runs_checked_at ON check_runs USING brin (checked_at);
