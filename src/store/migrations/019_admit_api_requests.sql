-- Group admission on PostgreSQL (src/services/request-limits-shared.ts): the
-- requests a process receives while its previous admission is on the way are
-- admitted together, in one statement and one commit, instead of one round
-- trip each behind the account's row lock. Accounts are locked in id order, so
-- two nodes' batches never wait for each other in a cycle. An account's rows
-- change once per batch: a batch of n requests of one account writes the same
-- row versions as one request did (migration 010), not n times as many.
--
-- Arrays hold one element per request, in the order the requests came; the
-- first ones of an account are counted while its limits allow. Each result row
-- is one request's view: the window and the day as they were just before it,
-- and the read bytes after this batch's charge.
DROP FUNCTION admit_api_request(uuid, timestamptz, integer, text, text, timestamptz, bigint, bigint, timestamptz, bigint);

CREATE FUNCTION admit_api_requests(
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
