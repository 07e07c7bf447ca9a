-- The API hot path (src/services/api-access.ts, src/services/request-limits*.ts).
--
-- 1. Every process caches tokens and the API status. A change to what a cached
-- entry says is announced on the channel pagewatch_api_access, whoever makes it
-- (operator API, dashboard, or SQL by hand): '<schema> account:<id>' when a token
-- of that account is revoked, re-dated, re-scoped or deleted, or when the
-- account's plan changes or it is deleted; '<schema> status' when the API is
-- opened or closed. Channels are per database, so the schema tells apart
-- installations that share one. NOTIFY is delivered at commit. Recording
-- last_used_at announces nothing.
CREATE FUNCTION announce_api_access_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'api_status' THEN
    PERFORM pg_notify('pagewatch_api_access', TG_TABLE_SCHEMA || ' status');
  ELSIF TG_TABLE_NAME = 'accounts' THEN
    PERFORM pg_notify('pagewatch_api_access', TG_TABLE_SCHEMA || ' account:' || OLD.id);
  ELSE
    PERFORM pg_notify('pagewatch_api_access', TG_TABLE_SCHEMA || ' account:' || OLD.account_id);
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER api_tokens_announce AFTER UPDATE OF revoked_at, expires_at, scopes, token_hash, account_id OR DELETE ON api_tokens
FOR EACH ROW EXECUTE FUNCTION announce_api_access_change();

CREATE TRIGGER accounts_announce AFTER UPDATE OF plan OR DELETE ON accounts
FOR EACH ROW EXECUTE FUNCTION announce_api_access_change();

CREATE TRIGGER api_status_announce AFTER UPDATE ON api_status
FOR EACH ROW EXECUTE FUNCTION announce_api_access_change();

-- 2. Admission on PostgreSQL (migration 008's function, two changes):
-- * it commits without waiting for the WAL flush (synchronous_commit off for
--   this transaction only), so the account's window row is held for the
--   statement alone, not for a disk write; a crash of the PostgreSQL server
--   may forget the last fraction of a second of counts, never break exactness
--   among the requests it did count;
-- * it first adds the read bytes this process has served the account since
--   its last admission (p_charge_bytes on the day p_charge_day), so charging
--   them takes no round trip of its own, and judges reads on the sum.
DROP FUNCTION admit_api_request(uuid, timestamptz, integer, text, text, timestamptz, bigint, bigint);

CREATE FUNCTION admit_api_request(
  p_account_id uuid,
  p_at timestamptz,
  p_window_seconds integer,
  p_requests_metric text,
  p_read_bytes_metric text,
  p_day_start timestamptz,
  p_minute_limit bigint,
  p_day_limit bigint,
  p_charge_day timestamptz,
  p_charge_bytes bigint,
  OUT window_started timestamptz,
  OUT window_used integer,
  OUT day_used bigint,
  OUT read_bytes_used bigint,
  OUT counted boolean
) LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);

  IF p_charge_bytes > 0 THEN
    INSERT INTO usage_counters AS c (account_id, metric, period_start, used)
    VALUES (p_account_id, p_read_bytes_metric, p_charge_day, p_charge_bytes)
    ON CONFLICT (account_id, metric, period_start) DO UPDATE SET used = c.used + EXCLUDED.used;
  END IF;

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
