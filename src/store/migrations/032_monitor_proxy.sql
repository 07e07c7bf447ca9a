-- The operator's outbound proxy a monitor's checks go through (its name in
-- PAGEWATCH_PROXIES); null: directly.
ALTER TABLE monitors ADD COLUMN proxy text;
