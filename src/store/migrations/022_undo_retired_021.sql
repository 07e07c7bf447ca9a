-- Number 021 was used by two files that were removed before the present 021
-- (check history statistics) took it: 021_set_based_admission replaced
-- admit_api_requests with a set-based body, 021_monitor_row_announcements
-- added triggers that announce monitor rows. A store that applied either one
-- has its row in schema_migrations replaced and the present 021 applied (see
-- src/store/migrate.ts); this migration undoes what they left behind, and does
-- nothing to a store that never had them.
DROP TRIGGER IF EXISTS monitors_announce ON monitors;
DROP TRIGGER IF EXISTS check_state_announce ON check_state;
DROP TRIGGER IF EXISTS baselines_announce ON baselines;
DROP FUNCTION IF EXISTS announce_monitor_row();

-- admit_api_requests as migration 019 defines it, the body the code expects.
CREATE OR REPLACE FUNCTION admit_api_requests(
  p_account_ids uuid[],
  p_minute_limits bigint[],
  p_day_limits bigint[],
  p_charge_bytes bigint[],
  p_at timestamptz,
  p_window_seconds integer,
  p_requests_metric text,
  p_read_bytes_metric text,
  p_day_start timestamptz
) RETURNS TABLE (
  request integer,
  window_started timestamptz,
  window_used integer,
  day_used bigint,
  read_bytes_used bigint,
  counted boolean
) LANGUAGE plpgsql AS $$
DECLARE
  a record;
  w_start timestamptz;
  w_used integer;
  d_used bigint;
  rb_used bigint;
  admitted integer;
  i integer;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);

  FOR a IN
    SELECT r.account_id, array_agg(r.n::integer ORDER BY r.n) AS requests,
           min(r.minute_limit) AS minute_limit, min(r.day_limit) AS day_limit, sum(r.charge) AS charge
    FROM unnest(p_account_ids, p_minute_limits, p_day_limits, p_charge_bytes) WITH ORDINALITY AS r (account_id, minute_limit, day_limit, charge, n)
    GROUP BY r.account_id
    ORDER BY r.account_id
  LOOP
    IF a.charge > 0 THEN
      INSERT INTO usage_counters AS c (account_id, metric, period_start, used)
      VALUES (a.account_id, p_read_bytes_metric, p_day_start, a.charge)
      ON CONFLICT (account_id, metric, period_start) DO UPDATE SET used = c.used + EXCLUDED.used;
    END IF;

    -- A window begins with the first request after the previous one expired.
    INSERT INTO rate_windows AS w (account_id, window_start, count) VALUES (a.account_id, p_at, 0)
    ON CONFLICT (account_id) DO UPDATE SET
      window_start = CASE WHEN w.window_start + make_interval(secs => p_window_seconds) <= p_at THEN p_at ELSE w.window_start END,
      count = CASE WHEN w.window_start + make_interval(secs => p_window_seconds) <= p_at THEN 0 ELSE w.count END
    RETURNING w.window_start, w.count INTO w_start, w_used;

    INSERT INTO usage_counters AS c (account_id, metric, period_start, used) VALUES (a.account_id, p_requests_metric, p_day_start, 0)
    ON CONFLICT (account_id, metric, period_start) DO UPDATE SET used = c.used
    RETURNING c.used INTO d_used;

    SELECT coalesce(max(c.used), 0) INTO rb_used FROM usage_counters c
    WHERE c.account_id = a.account_id AND c.metric = p_read_bytes_metric AND c.period_start = p_day_start;

    admitted := greatest(0, least(cardinality(a.requests), a.minute_limit - w_used, a.day_limit - d_used));
    IF admitted > 0 THEN
      UPDATE rate_windows SET count = count + admitted WHERE account_id = a.account_id;
      UPDATE usage_counters SET used = used + admitted
      WHERE account_id = a.account_id AND metric = p_requests_metric AND period_start = p_day_start;
    END IF;

    FOR i IN 1 .. cardinality(a.requests) LOOP
      request := a.requests[i];
      window_started := w_start;
      window_used := w_used + least(i - 1, admitted);
      day_used := d_used + least(i - 1, admitted);
      read_bytes_used := rb_used;
      counted := i <= admitted;
      RETURN NEXT;
    END LOOP;
  END LOOP;
END;
$$;
