-- Admits one API request in one round trip (src/services/request-limits.ts):
-- starts or locks the account's request window, locks the day's request
-- counter, reads the day's read bytes, and counts the request in both only
-- when it is under both limits. It returns the values from before counting.
-- The window row lock serialises one account's admissions across processes;
-- each statement takes a fresh snapshot (READ COMMITTED, VOLATILE), so an
-- admission that waited for the lock sees the counts committed before it.
CREATE FUNCTION admit_api_request(
  p_account_id uuid,
  p_at timestamptz,
  p_window_seconds integer,
  p_requests_metric text,
  p_read_bytes_metric text,
  p_day_start timestamptz,
  p_minute_limit bigint,
  p_day_limit bigint,
  OUT window_started timestamptz,
  OUT window_used integer,
  OUT day_used bigint,
  OUT read_bytes_used bigint,
  OUT counted boolean
) LANGUAGE plpgsql AS $$
BEGIN
  -- A window begins with the first request after the previous one expired.
  INSERT INTO rate_windows AS w (account_id, window_start, count) VALUES (p_account_id, p_at, 0)
  ON CONFLICT (account_id) DO UPDATE SET
    window_start = CASE WHEN w.window_start + make_interval(secs => p_window_seconds) <= p_at THEN p_at ELSE w.window_start END,
    count = CASE WHEN w.window_start + make_interval(secs => p_window_seconds) <= p_at THEN 0 ELSE w.count END
  RETURNING w.window_start, w.count INTO window_started, window_used;

  INSERT INTO usage_counters AS c (account_id, metric, period_start, used) VALUES (p_account_id, p_requests_metric, p_day_start, 0)
  ON CONFLICT (account_id, metric, period_start) DO UPDATE SET used = c.used
  RETURNING c.used INTO day_used;

  SELECT coalesce(max(c.used), 0) INTO read_bytes_used FROM usage_counters c
  WHERE c.account_id = p_account_id AND c.metric = p_read_bytes_metric AND c.period_start = p_day_start;

  counted := window_used < p_minute_limit AND day_used < p_day_limit;
  IF counted THEN
    UPDATE rate_windows SET count = count + 1 WHERE account_id = p_account_id;
    UPDATE usage_counters SET used = used + 1
    WHERE account_id = p_account_id AND metric = p_requests_metric AND period_start = p_day_start;
  END IF;
END;
$$;
