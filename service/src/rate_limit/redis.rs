//! The Redis store: each window a sorted set of request times, counted by a
//! Lua script (atomic on the server, by the server's clock), so that every
//! instance using the Redis server shares them.

use std::time::{Duration, Instant};

use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, Client, Script};
use tokio::sync::Mutex;

use super::{StoreError, Verdict, WINDOW};

/// KEYS[1]: the window; ARGV: the limit, the window in ms, a unique member.
/// Returns {allowed (1 or 0), remaining, retry after in ms}.
const HIT: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, limit - n - 1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
return {0, 0, tonumber(oldest[2]) + window - now}
";

/// After a failed connection, how long the store waits before trying again
/// (meanwhile requests are decided by the instance's own window at once).
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

/// Windows in a Redis server.
pub struct RedisStore {
    client: Client,
    script: Script,
    deadline: Duration,
    connection: Mutex<Connection>,
}

enum Connection {
    None,
    Open(MultiplexedConnection),
    Failed(Instant),
}

impl RedisStore {
    /// The store at `url` (`redis://HOST:PORT[/DB]`); connects when first used.
    pub fn new(url: &str, deadline: Duration) -> Result<RedisStore, String> {
        let client = Client::open(url).map_err(|e| e.to_string())?;
        Ok(RedisStore {
            client,
            script: Script::new(HIT),
            deadline,
            connection: Mutex::new(Connection::None),
        })
    }

    async fn connection(&self) -> Result<MultiplexedConnection, StoreError> {
        let mut state = self.connection.lock().await;
        match &*state {
            Connection::Open(connection) => return Ok(connection.clone()),
            Connection::Failed(at) if at.elapsed() < RECONNECT_AFTER => {
                return Err(StoreError(
                    "Redis was unreachable less than a second ago".to_owned(),
                ));
            }
            _ => {}
        }
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.deadline))
            .set_response_timeout(Some(self.deadline));
        match self
            .client
            .get_multiplexed_async_connection_with_config(&config)
            .await
        {
            Ok(connection) => {
                *state = Connection::Open(connection.clone());
                Ok(connection)
            }
            Err(error) => {
                *state = Connection::Failed(Instant::now());
                Err(StoreError(error.to_string()))
            }
        }
    }

    /// Counts a request of `key` against `per_minute`.
    pub async fn hit(&self, key: &str, per_minute: u32) -> Result<Verdict, StoreError> {
        let mut connection = self.connection().await?;
        let member = uuid::Uuid::new_v4().simple().to_string();
        let answer: Result<(i64, i64, i64), _> = self
            .script
            .key(key)
            .arg(per_minute)
            .arg(WINDOW.as_millis() as u64)
            .arg(member)
            .invoke_async(&mut connection)
            .await;
        match answer {
            Ok((1, remaining, _)) => Ok(Verdict::Allowed {
                remaining: remaining.max(0) as u64,
            }),
            Ok((_, _, retry_after_ms)) => Ok(Verdict::Refused {
                retry_after: super::whole_seconds(retry_after_ms),
            }),
            Err(error) => {
                if error.is_unrecoverable_error() || error.is_io_error() || error.is_timeout() {
                    *self.connection.lock().await = Connection::Failed(Instant::now());
                }
                Err(StoreError(error.to_string()))
            }
        }
    }
}
