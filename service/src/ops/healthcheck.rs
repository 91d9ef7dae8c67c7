//! `logistics-service healthcheck`: asks a running instance's `/healthz` (or
//! `/readyz`) and succeeds on 200 — the container's health check, for an
//! image without curl.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// How long the whole check may take.
pub const DEADLINE: Duration = Duration::from_secs(3);

/// The address to ask for an instance listening on `listen`: the loopback
/// address when it listens on every address.
pub fn local(listen: SocketAddr) -> SocketAddr {
    match listen {
        SocketAddr::V4(v4) if v4.ip().is_unspecified() => {
            SocketAddr::from((Ipv4Addr::LOCALHOST, v4.port()))
        }
        SocketAddr::V6(v6) if v6.ip().is_unspecified() => {
            SocketAddr::from((Ipv6Addr::LOCALHOST, v6.port()))
        }
        other => other,
    }
}

/// `Ok` when `GET path` at `address` answers 200 within [`DEADLINE`].
pub async fn check(address: SocketAddr, path: &str) -> Result<(), String> {
    let ask = async {
        let mut stream = TcpStream::connect(address)
            .await
            .map_err(|e| format!("cannot connect to {address}: {e}"))?;
        let request =
            format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| e.to_string())?;
        let mut answer = Vec::new();
        stream
            .take(64 * 1024)
            .read_to_end(&mut answer)
            .await
            .map_err(|e| e.to_string())?;
        let answer = String::from_utf8_lossy(&answer);
        let status_line = answer.lines().next().unwrap_or_default();
        if status_line.split(' ').nth(1) == Some("200") {
            Ok(())
        } else {
            let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
            Err(format!("http://{address}{path}: {status_line} {body}"))
        }
    };
    tokio::time::timeout(DEADLINE, ask)
        .await
        .unwrap_or_else(|_| {
            Err(format!(
                "http://{address}{path}: no answer within {DEADLINE:?}"
            ))
        })
}
