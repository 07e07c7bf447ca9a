-- The diff of a change's captured texts, computed once in the extraction
-- threads when the change is recorded (or, for a change recorded before this
-- table existed, when it is first read) and served from here ever after.
-- It goes with its change.
CREATE TABLE change_diffs (
  change_id uuid PRIMARY KEY REFERENCES changes (id) ON DELETE CASCADE,
  diff jsonb NOT NULL
);
