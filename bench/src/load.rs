//! The load driver: N keep-alive HTTP/1.1 connections over loopback, each
//! sending one request after another, for a fixed time and at most a fixed
//! number of requests; latency measured per request.
//!
//! It writes prebuilt request bytes and reads responses by `Content-Length`,
//! so that the driver, which shares the two cores with the server, spends as
//! little of them as it can.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Makes the request bytes of the `n`th request of a run.
pub type MakeRequest = Arc<dyn Fn(u64) -> Vec<u8> + Send + Sync>;

/// How much load: connections, for how long, at most how many requests.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    /// Concurrent connections.
    pub connections: usize,
    /// How long requests are started.
    pub duration: Duration,
    /// The most requests of the run, over all connections.
    pub max_requests: u64,
}

/// What a run measured.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Answers with a 2xx status.
    pub ok: u64,
    /// Other answers and connection failures.
    pub errors: u64,
    /// The first unexpected answer, for the report.
    pub first_error: Option<String>,
    /// From the first request to the last answer.
    pub elapsed: Duration,
    /// Latency of every successful request, in microseconds, sorted.
    pub latencies: Vec<u32>,
}

impl Stats {
    /// Successful requests per second.
    pub fn throughput(&self) -> f64 {
        self.ok as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The `p`th percentile latency (0–100), in milliseconds.
    pub fn percentile_ms(&self, p: f64) -> f64 {
        percentile(&self.latencies, p) as f64 / 1000.0
    }
}

/// The `p`th percentile of sorted `values` (nearest rank).
pub fn percentile(values: &[u32], p: f64) -> u32 {
    if values.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * values.len() as f64).ceil() as usize;
    values[rank.clamp(1, values.len()) - 1]
}

/// Runs `load` against `address`, request bytes from `make`.
pub async fn run(address: SocketAddr, load: Load, make: MakeRequest) -> Stats {
    let counter = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let deadline = started + load.duration;
    let mut tasks = Vec::new();
    for _ in 0..load.connections.max(1) {
        let counter = counter.clone();
        let make = make.clone();
        tasks.push(tokio::spawn(async move {
            connection(address, deadline, load.max_requests, &counter, &*make).await
        }));
    }
    let mut total = Stats::default();
    for task in tasks {
        let Ok(stats) = task.await else {
            total.errors += 1;
            continue;
        };
        total.ok += stats.ok;
        total.errors += stats.errors;
        if total.first_error.is_none() {
            total.first_error = stats.first_error;
        }
        total.latencies.extend(stats.latencies);
    }
    total.elapsed = started.elapsed();
    total.latencies.sort_unstable();
    total
}

/// Sends one request and reads its answer on a new connection: for the
/// requests that are timed one at a time (bulk upserts).
pub async fn once(address: SocketAddr, request: &[u8]) -> Result<(u16, Duration), String> {
    let mut stream = connect(address).await.map_err(|e| e.to_string())?;
    let mut buffer = Vec::with_capacity(64 * 1024);
    let started = Instant::now();
    stream.write_all(request).await.map_err(|e| e.to_string())?;
    let status = read_response(&mut stream, &mut buffer)
        .await
        .map_err(|e| e.to_string())?;
    let elapsed = started.elapsed();
    if !(200..300).contains(&status) {
        return Err(format!(
            "status {status}: {}",
            String::from_utf8_lossy(&buffer[..buffer.len().min(400)])
        ));
    }
    Ok((status, elapsed))
}

async fn connect(address: SocketAddr) -> std::io::Result<TcpStream> {
    let stream = TcpStream::connect(address).await?;
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// One connection's loop; reconnects after a failure (the loop stays bounded
/// by the deadline and the request count).
async fn connection(
    address: SocketAddr,
    deadline: Instant,
    max_requests: u64,
    counter: &AtomicU64,
    make: &(dyn Fn(u64) -> Vec<u8> + Send + Sync),
) -> Stats {
    let mut stats = Stats::default();
    let mut buffer = Vec::with_capacity(64 * 1024);
    let mut stream: Option<TcpStream> = None;
    while Instant::now() < deadline {
        let n = counter.fetch_add(1, Ordering::Relaxed);
        if n >= max_requests {
            break;
        }
        if stream.is_none() {
            match connect(address).await {
                Ok(s) => stream = Some(s),
                Err(error) => {
                    note_error(&mut stats, format!("connect: {error}"));
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            }
        }
        let Some(s) = stream.as_mut() else { continue };
        let request = make(n);
        let started = Instant::now();
        let outcome = match s.write_all(&request).await {
            Ok(()) => read_response(s, &mut buffer).await,
            Err(error) => Err(error),
        };
        match outcome {
            Ok(status) if (200..300).contains(&status) => {
                stats.ok += 1;
                let micros = started.elapsed().as_micros().min(u32::MAX as u128) as u32;
                stats.latencies.push(micros);
            }
            Ok(status) => note_error(
                &mut stats,
                format!(
                    "status {status}: {}",
                    String::from_utf8_lossy(&buffer[..buffer.len().min(400)])
                ),
            ),
            Err(error) => {
                note_error(&mut stats, format!("i/o: {error}"));
                stream = None;
            }
        }
    }
    stats
}

fn note_error(stats: &mut Stats, message: String) {
    stats.errors += 1;
    if stats.first_error.is_none() {
        stats.first_error = Some(message);
    }
}

/// Reads one response into `buffer` (head and body); returns its status.
async fn read_response(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> std::io::Result<u16> {
    buffer.clear();
    let (head_end, status, length) = loop {
        if let Some((head_end, status, length)) = parse_head(buffer)? {
            break (head_end, status, length);
        }
        if buffer.capacity() - buffer.len() < 8192 {
            buffer.reserve(64 * 1024);
        }
        if stream.read_buf(buffer).await? == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            ));
        }
    };
    let total = head_end + length;
    while buffer.len() < total {
        buffer.reserve(total - buffer.len());
        if stream.read_buf(buffer).await? == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the server closed the connection mid-body",
            ));
        }
    }
    Ok(status)
}

/// The end of the head, the status and the `Content-Length` of a response
/// whose head is complete in `bytes`.
pub fn parse_head(bytes: &[u8]) -> std::io::Result<Option<(usize, u16, usize)>> {
    let Some(at) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Ok(None);
    };
    let invalid =
        |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned());
    let head = std::str::from_utf8(&bytes[..at]).map_err(|_| invalid("head is not UTF-8"))?;
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse::<u16>().ok())
        .ok_or_else(|| invalid("no status line"))?;
    let mut length = None;
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse::<usize>().ok();
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                return Err(invalid("chunked responses are not supported by the driver"));
            }
        }
    }
    Ok(Some((at + 4, status, length.unwrap_or(0))))
}

/// An HTTP/1.1 request's bytes.
pub fn request(method: &str, path: &str, token: &str, body: Option<&[u8]>) -> Vec<u8> {
    let mut out = Vec::with_capacity(256 + body.map_or(0, <[u8]>::len));
    out.extend_from_slice(
        format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\nAccept: application/json\r\n"
        )
        .as_bytes(),
    );
    if let Some(body) = body {
        out.extend_from_slice(
            format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                body.len()
            )
            .as_bytes(),
        );
    }
    out.extend_from_slice(b"\r\n");
    if let Some(body) = body {
        out.extend_from_slice(body);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_are_read_by_content_length() {
        let bytes = b"HTTP/1.1 201 Created\r\ncontent-length: 2\r\nx: y\r\n\r\n{}";
        assert_eq!(parse_head(bytes).unwrap(), Some((bytes.len() - 2, 201, 2)));
        assert_eq!(parse_head(b"HTTP/1.1 200 OK\r\n").unwrap(), None);
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let values: Vec<u32> = (1..=100).collect();
        assert_eq!(percentile(&values, 50.0), 50);
        assert_eq!(percentile(&values, 99.0), 99);
        assert_eq!(percentile(&[], 50.0), 0);
    }
}
