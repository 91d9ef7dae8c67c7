-- Rate-limit windows are worth less than a WAL write per request: after a
-- crash a window restarting empty lets a token make up to one minute's
-- calls again, which the limit tolerates anyway when a store is down.
ALTER TABLE rate_limit_windows SET UNLOGGED;
