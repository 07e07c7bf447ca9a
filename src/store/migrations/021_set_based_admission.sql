-- Set-based group admission (issue #13). Migration 019 admitted a group account
-- by account, five or six statements each: with 200 accounts calling, a group
-- of 50 requests cost its one backend some 250 statements, and that backend was
-- the API's bottleneck on PostgreSQL. The same work now takes a fixed number
-- of statements for the whole group, and an account's window and day counter
-- are written once per group (migration 019 wrote them twice).
--
-- Lock order, the same in every group on every node: the read-bytes counters of
-- the accounts that charge, in account order; then each account's window and
-- day counter, account by account. A row created for an account's first
-- request (of the day) is locked by its insertion, in the same account order.
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
  -- one element per account of the group, in account order
  ids uuid[];
  requests integer[];
  minute_limits bigint[];
  day_limits bigint[];
  charges bigint[];
  window_starts timestamptz[];
  window_counts integer[];
  day_counts bigint[];
  admitted integer[];
  locked integer;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);

  SELECT array_agg(g.account_id ORDER BY g.account_id), array_agg(g.n ORDER BY g.account_id),
         array_agg(g.minute_limit ORDER BY g.account_id), array_agg(g.day_limit ORDER BY g.account_id),
         array_agg(g.charge ORDER BY g.account_id)
  INTO ids, requests, minute_limits, day_limits, charges
  FROM (
    SELECT r.account_id, count(*)::integer AS n, min(r.minute_limit) AS minute_limit, min(r.day_limit) AS day_limit, sum(r.charge) AS charge
    FROM unnest(p_account_ids, p_minute_limits, p_day_limits, p_charge_bytes) AS r (account_id, minute_limit, day_limit, charge)
    GROUP BY r.account_id
  ) g;

  INSERT INTO usage_counters AS c (account_id, metric, period_start, used)
  SELECT a.id, p_read_bytes_metric, p_day_start, a.charge
  FROM unnest(ids, charges) AS a (id, charge) WHERE a.charge > 0 ORDER BY a.id
  ON CONFLICT (account_id, metric, period_start) DO UPDATE SET used = c.used + EXCLUDED.used;

  -- Rows that exist are left alone here (no write); they are locked below.
  INSERT INTO rate_windows (account_id, window_start, count)
  SELECT a.id, p_at, 0 FROM unnest(ids) AS a (id) ORDER BY a.id
  ON CONFLICT (account_id) DO NOTHING;
  INSERT INTO usage_counters (account_id, metric, period_start, used)
  SELECT a.id, p_requests_metric, p_day_start, 0 FROM unnest(ids) AS a (id) ORDER BY a.id
  ON CONFLICT (account_id, metric, period_start) DO NOTHING;

  -- A window begins with the first request after the previous one expired.
  SELECT array_agg(CASE WHEN l.window_start + make_interval(secs => p_window_seconds) <= p_at THEN p_at ELSE l.window_start END ORDER BY l.account_id),
         array_agg(CASE WHEN l.window_start + make_interval(secs => p_window_seconds) <= p_at THEN 0 ELSE l.count END ORDER BY l.account_id),
         array_agg(l.used ORDER BY l.account_id),
         count(*)
  INTO window_starts, window_counts, day_counts, locked
  FROM (
    SELECT w.account_id, w.window_start, w.count, c.used
    FROM rate_windows w
    JOIN usage_counters c ON c.account_id = w.account_id AND c.metric = p_requests_metric AND c.period_start = p_day_start
    WHERE w.account_id = ANY (ids)
    ORDER BY w.account_id
    FOR UPDATE OF w, c
  ) l;
  IF locked < cardinality(ids) THEN
    RAISE EXCEPTION 'an account of the group was deleted during its admission' USING ERRCODE = 'foreign_key_violation';
  END IF;

  -- An account's first requests are counted while both limits allow.
  SELECT array_agg(greatest(0, least(a.n, a.minute_limit - a.window_count, a.day_limit - a.day_count))::integer ORDER BY a.i)
  INTO admitted
  FROM unnest(requests, minute_limits, day_limits, window_counts, day_counts) WITH ORDINALITY AS a (n, minute_limit, day_limit, window_count, day_count, i);

  UPDATE rate_windows w SET window_start = a.window_start, count = a.window_count + a.admitted
  FROM unnest(ids, window_starts, window_counts, admitted) AS a (id, window_start, window_count, admitted)
  WHERE w.account_id = a.id AND (a.admitted > 0 OR w.window_start <> a.window_start);
  UPDATE usage_counters c SET used = c.used + a.admitted
  FROM unnest(ids, admitted) AS a (id, admitted)
  WHERE c.account_id = a.id AND c.metric = p_requests_metric AND c.period_start = p_day_start AND a.admitted > 0;

  -- Each request's view: the window and the day just before it, the read bytes after this group's charge.
  RETURN QUERY
  SELECT r.n::integer,
         a.window_start,
         (a.window_count + least(r.k - 1, a.admitted))::integer,
         a.day_count + least(r.k - 1, a.admitted),
         coalesce(rb.used, 0),
         r.k <= a.admitted
  FROM (
    SELECT x.account_id, x.n, row_number() OVER (PARTITION BY x.account_id ORDER BY x.n) AS k
    FROM unnest(p_account_ids) WITH ORDINALITY AS x (account_id, n)
  ) r
  JOIN unnest(ids, window_starts, window_counts, day_counts, admitted) AS a (id, window_start, window_count, day_count, admitted) ON a.id = r.account_id
  LEFT JOIN usage_counters rb ON rb.account_id = r.account_id AND rb.metric = p_read_bytes_metric AND rb.period_start = p_day_start
  ORDER BY r.n;
END;
$$;
