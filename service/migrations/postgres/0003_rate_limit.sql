-- The shared rate limit (decision D22 and the rate-limit store decision):
-- one row per token that authenticated, holding the times of its requests in
-- the last window. Instances on one database count together.
CREATE TABLE rate_limit_windows (
    key TEXT PRIMARY KEY,
    hits TIMESTAMPTZ[] NOT NULL
);

-- Counts one request of `p_key` against `p_limit` requests per `p_window_ms`,
-- atomically (the row is locked), by the database's clock so that instances'
-- clocks do not matter. A refused request is not counted.
CREATE FUNCTION rate_limit_hit(
    p_key TEXT,
    p_limit INTEGER,
    p_window_ms INTEGER,
    OUT allowed BOOLEAN,
    OUT remaining INTEGER,
    OUT retry_after_ms BIGINT
)
LANGUAGE plpgsql AS $$
DECLARE
    span INTERVAL := make_interval(secs => p_window_ms / 1000.0);
    t TIMESTAMPTZ;
    kept TIMESTAMPTZ[];
    n INTEGER;
BEGIN
    INSERT INTO rate_limit_windows (key, hits) VALUES (p_key, '{}')
        ON CONFLICT (key) DO NOTHING;
    PERFORM 1 FROM rate_limit_windows WHERE key = p_key FOR UPDATE;
    t := clock_timestamp();
    SELECT ARRAY(SELECT h FROM unnest(w.hits) AS h WHERE h > t - span ORDER BY h)
        INTO kept FROM rate_limit_windows AS w WHERE w.key = p_key;
    n := cardinality(kept);
    IF n < p_limit THEN
        kept := kept || t;
        allowed := TRUE;
        remaining := p_limit - n - 1;
        retry_after_ms := 0;
    ELSE
        allowed := FALSE;
        remaining := 0;
        retry_after_ms := ceil(extract(epoch FROM (kept[n - p_limit + 1] + span - t)) * 1000);
    END IF;
    UPDATE rate_limit_windows SET hits = kept WHERE key = p_key;
END;
$$;
