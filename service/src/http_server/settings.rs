//! The connection settings of `serve` and their defaults (decision D28).

use std::time::Duration;

/// The connection settings, each a flag and an environment variable of
/// `serve` (the README lists them with their defaults).
#[derive(Debug, Clone, clap::Args)]
pub struct ConnectionSettings {
    /// How long a client may take to send a request's line and headers
    /// (from the accept, or from the request's first byte); then 408 and the
    /// connection is closed. `10s`, `500ms` or a number of seconds.
    #[arg(long, env = "LOGISTICS_HEADER_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub header_timeout: Duration,

    /// How long a client may take to send a request's whole body (from the
    /// end of its headers); then 408 and the connection is closed.
    #[arg(long, env = "LOGISTICS_BODY_TIMEOUT", default_value = "60s", value_parser = parse_duration)]
    pub body_timeout: Duration,

    /// How long an answer may wait for the client to take any of it; then the
    /// connection is closed. The limit is on each wait, not on the whole
    /// answer: a client that reads slowly but steadily is served.
    #[arg(long, env = "LOGISTICS_WRITE_TIMEOUT", default_value = "60s", value_parser = parse_duration)]
    pub write_timeout: Duration,

    /// How long a kept-alive connection may wait for its next request.
    #[arg(long, env = "LOGISTICS_IDLE_TIMEOUT", default_value = "60s", value_parser = parse_duration)]
    pub idle_timeout: Duration,

    /// On SIGTERM or SIGINT: how long requests in flight may take to finish;
    /// connections still open then are closed.
    #[arg(long, env = "LOGISTICS_DRAIN_TIMEOUT", default_value = "30s", value_parser = parse_duration)]
    pub drain_timeout: Duration,

    /// The most client connections open at once; past it, new connections
    /// wait to be accepted [default: the file-descriptor limit less 64 and
    /// the database connections, at most 10000].
    #[arg(long, env = "LOGISTICS_CONNECTION_LIMIT", value_parser = clap::value_parser!(u32).range(1..))]
    pub connection_limit: Option<u32>,
}

impl Default for ConnectionSettings {
    fn default() -> Self {
        ConnectionSettings {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(60),
            write_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(60),
            drain_timeout: Duration::from_secs(30),
            connection_limit: None,
        }
    }
}

/// `10s`, `250ms` or `10` (seconds), at least one millisecond.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = if let Some(ms) = text.strip_suffix("ms") {
        (ms, 0.001)
    } else if let Some(s) = text.strip_suffix('s') {
        (s, 1.0)
    } else {
        (text, 1.0)
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (examples: 10s, 500ms, 10)"))?;
    let seconds = value * unit;
    if !(0.001..=86_400.0 * 365.0).contains(&seconds) {
        return Err(format!(
            "`{text}` is out of range: at least 1ms, at most a year"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Descriptors kept free for what is not a client connection: the database
/// pool (added separately), the listener, logs, files.
const RESERVED_DESCRIPTORS: u64 = 64;

/// The connection limit when none is given: the process's soft limit on open
/// files less [`RESERVED_DESCRIPTORS`] and `database_connections`, between 16
/// and 10,000; 10,000 when the limit cannot be read.
pub fn default_connection_limit(database_connections: u32) -> usize {
    const MAX: u64 = 10_000;
    let limit = open_file_limit().map_or(MAX, |files| {
        files
            .saturating_sub(RESERVED_DESCRIPTORS + u64::from(database_connections))
            .clamp(16, MAX)
    });
    usize::try_from(limit).unwrap_or(16)
}

/// The soft limit on open files, from `/proc/self/limits` (Linux).
fn open_file_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_seconds_or_milliseconds() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("10"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert!(parse_duration("0").is_err());
        assert!(parse_duration("ten").is_err());
    }
}
