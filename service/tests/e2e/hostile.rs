//! Hostile clients and faults (issue 18): connections that never finish
//! their request, a slow client at shutdown, requests hyper cannot read,
//! NUL characters, overlong text, and emails that differ only in their
//! Unicode spelling (D7, D28, D29, D30, D31).
//!
//! The connection tests run on SQLite only (the database plays no part in
//! them); the ones about stored text run on both backends. Every wait is
//! bounded; every connection is to loopback.

use std::io::{BufRead as _, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use logistics_client::reqwest::Method;
use logistics_service::http_server::ConnectionSettings;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::harness::*;

/// An HTTP/1.1 answer read off a raw connection.
#[derive(Debug)]
struct Answer {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim().eq_ignore_ascii_case(name).then_some(v.trim())
        })
    }

    /// The error body, checked to be the API's: JSON with the status, a
    /// request id equal to the `X-Request-Id` header; its one error code.
    fn error_code(&self) -> String {
        let body: Value = serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "a JSON error body ({e}): {}\n{}",
                self.head,
                String::from_utf8_lossy(&self.body)
            )
        });
        assert_eq!(
            self.header("content-type"),
            Some("application/json"),
            "{}",
            self.head
        );
        assert_eq!(body["error"]["code"], self.status, "{body}");
        let request_id = body["requestId"].as_str().expect("a requestId");
        assert!(!request_id.is_empty());
        assert_eq!(
            self.header("x-request-id"),
            Some(request_id),
            "{}",
            self.head
        );
        assert!(body["timestamp"].is_string(), "{body}");
        body["error"]["errors"][0]["errorCode"]
            .as_str()
            .expect("an error code")
            .to_owned()
    }
}

/// Reads one answer from `stream` (by its Content-Length), within `limit`.
async fn read_answer(stream: &mut TcpStream, limit: Duration) -> Answer {
    tokio::time::timeout(limit, async {
        let mut bytes = Vec::new();
        let mut chunk = [0u8; 8192];
        loop {
            if let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&bytes[..end]).into_owned();
                let length: usize = head
                    .lines()
                    .find_map(|l| {
                        let (n, v) = l.split_once(':')?;
                        n.eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse().ok())?
                    })
                    .unwrap_or(0);
                if bytes.len() >= end + 4 + length {
                    let status = head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
                    let body = bytes[end + 4..end + 4 + length].to_vec();
                    return Answer { status, head, body };
                }
            }
            let n = stream.read(&mut chunk).await.expect("the answer is read");
            assert!(
                n > 0,
                "the connection closed before an answer: {}",
                String::from_utf8_lossy(&bytes)
            );
            bytes.extend_from_slice(&chunk[..n]);
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no answer within {limit:?}"))
}

/// Sends `request` on a new connection and reads the answer.
async fn exchange(address: SocketAddr, request: &[u8]) -> Answer {
    let mut stream = TcpStream::connect(address).await.expect("connects");
    stream
        .write_all(request)
        .await
        .expect("the request is sent");
    read_answer(&mut stream, Duration::from_secs(10)).await
}

/// Whether the server closes `stream` within `limit` (reading only EOF).
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    let mut byte = [0u8; 1];
    matches!(
        tokio::time::timeout(limit, stream.read(&mut byte)).await,
        Ok(Ok(0) | Err(_))
    )
}

/// A connection to `address` that has had one request answered (401: it
/// carries no token) and is kept alive.
async fn answered_and_kept_alive(address: SocketAddr) -> TcpStream {
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream
        .write_all(b"GET /openapi/v1/Customers/1 HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let answer = read_answer(&mut stream, Duration::from_secs(5)).await;
    assert_eq!(
        answer.status, 401,
        "answered, and kept alive: {}",
        answer.head
    );
    stream
}

/// The service on a fresh SQLite database with these connection settings.
async fn sqlite_service(connections: ConnectionSettings) -> Option<TestService> {
    let database = TestDatabase::create(Backend::Sqlite).await?;
    let options = Options {
        connections,
        ..Options::default()
    };
    Some(TestService::start_on(database, options).await)
}

fn fast(header: u64, body: u64, idle: u64) -> ConnectionSettings {
    ConnectionSettings {
        header_timeout: Duration::from_millis(header),
        body_timeout: Duration::from_millis(body),
        idle_timeout: Duration::from_millis(idle),
        ..ConnectionSettings::default()
    }
}

// ---- defect 1: header, body and idle timeouts -------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_never_finishes_its_headers_gets_408_and_is_closed() {
    let Some(mut service) = sqlite_service(fast(300, 60_000, 60_000)).await else {
        return;
    };
    // Nothing at all, and a head cut short.
    let mut silent = TcpStream::connect(service.address).await.unwrap();
    let mut partial = TcpStream::connect(service.address).await.unwrap();
    partial
        .write_all(b"GET /openapi/v1/Customers/1 HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    for stream in [&mut silent, &mut partial] {
        let answer = read_answer(stream, Duration::from_secs(5)).await;
        assert_eq!(answer.status, 408, "{}", answer.head);
        assert_eq!(answer.error_code(), "RequestTimeout");
        assert!(
            closed_within(stream, Duration::from_secs(2)).await,
            "closed after the 408"
        );
    }
    service.stop().await;
}

/// The header timeout of a kept-alive connection's next request, which ends
/// long before the idle timeout the watchdog was last set for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_next_request_that_never_finishes_its_headers_gets_408_within_the_header_timeout() {
    let Some(mut service) = sqlite_service(fast(300, 60_000, 60_000)).await else {
        return;
    };
    let mut stream = answered_and_kept_alive(service.address).await;
    // Idle for a while, then the next head, cut short.
    tokio::time::sleep(Duration::from_millis(500)).await;
    stream
        .write_all(b"GET /openapi/v1/Customers/1 HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let answer = read_answer(&mut stream, Duration::from_secs(5)).await;
    assert_eq!(answer.status, 408, "{}", answer.head);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "answered after {:?}, not at the header timeout",
        started.elapsed()
    );
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_never_finishes_gets_408_and_the_connection_is_closed() {
    let Some(mut service) = sqlite_service(fast(10_000, 300, 60_000)).await else {
        return;
    };
    let tenant = service.tenant("Slow").await;
    let mut stream = TcpStream::connect(service.address).await.unwrap();
    let head = format!(
        "POST /openapi/v1/Customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"email\":",
        tenant.token
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let answer = read_answer(&mut stream, Duration::from_secs(5)).await;
    assert_eq!(answer.status, 408, "{}", answer.head);
    assert_eq!(answer.error_code(), "RequestTimeout");
    assert!(closed_within(&mut stream, Duration::from_secs(2)).await);
    assert_eq!(service.count_rows("customers", tenant.id).await, 0);
    service.stop().await;
}

/// A body that arrives slowly, but within the body timeout, is read and
/// answered however far past the header and idle timeouts it takes: while a
/// request is served, neither runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_body_within_the_body_timeout_is_answered_past_the_header_and_idle_timeouts() {
    let Some(mut service) = sqlite_service(fast(300, 10_000, 300)).await else {
        return;
    };
    let tenant = service.tenant("Slow").await;
    let mut stream = TcpStream::connect(service.address).await.unwrap();
    let body = br#"{"email":"not an address"}"#;
    let head = format!(
        "POST /openapi/v1/Customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        tenant.token,
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    for piece in body.chunks(body.len().div_ceil(4)) {
        tokio::time::sleep(Duration::from_millis(300)).await;
        stream.write_all(piece).await.unwrap();
    }
    let answer = read_answer(&mut stream, Duration::from_secs(5)).await;
    assert_eq!(
        answer.status, 400,
        "the body was read and judged: {}",
        answer.head
    );
    service.stop().await;
}

/// The request deadline passing while the body is still arriving is the
/// client's delay too: 408, not the 503 of a service too slow to answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_still_arriving_at_the_request_deadline_gets_408() {
    let Some(database) = TestDatabase::create(Backend::Sqlite).await else {
        return;
    };
    let options = Options {
        connections: fast(10_000, 60_000, 60_000),
        request_timeout: Duration::from_millis(300),
        ..Options::default()
    };
    let mut service = TestService::start_on(database, options).await;
    let tenant = service.tenant("Slow").await;
    let mut stream = TcpStream::connect(service.address).await.unwrap();
    let head = format!(
        "POST /openapi/v1/Customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\nX-Request-Id: slow-1\r\n\r\n\
         {{\"email\":",
        tenant.token
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let answer = read_answer(&mut stream, Duration::from_secs(5)).await;
    assert_eq!(answer.status, 408, "{}", answer.head);
    assert_eq!(answer.error_code(), "RequestTimeout");
    let body = String::from_utf8_lossy(&answer.body);
    assert!(
        body.contains("within 300 ms"),
        "names the limit that ran out: {body}"
    );
    assert!(body.contains("slow-1"), "keeps the request id: {body}");
    assert!(closed_within(&mut stream, Duration::from_secs(2)).await);
    assert_eq!(service.count_rows("customers", tenant.id).await, 0);
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_kept_alive_connection_is_closed() {
    let Some(mut service) = sqlite_service(fast(10_000, 60_000, 300)).await else {
        return;
    };
    let mut stream = answered_and_kept_alive(service.address).await;
    assert!(
        closed_within(&mut stream, Duration::from_secs(5)).await,
        "the idle connection is closed after the idle timeout"
    );
    service.stop().await;
}

// ---- defect 8: what hyper refuses gets the API's error body -------------------------------

/// Sends `request`, which hyper itself refuses, on a new connection: the
/// answer has `status` and the API's JSON error body with `code`. One test
/// per kind of request, so that each is seen to fail on its own.
async fn hyper_refuses(request: &[u8], status: u16, code: &str) {
    let Some(mut service) = sqlite_service(ConnectionSettings::default()).await else {
        return;
    };
    let answer = exchange(service.address, request).await;
    assert_eq!(answer.status, status, "{}", answer.head);
    assert_eq!(answer.error_code(), code);
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_garbage_request_line_gets_400_with_the_json_error_body() {
    hyper_refuses(b"GARBAGE\r\n\r\n", 400, "MalformedRequest").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_negative_content_length_gets_400_with_the_json_error_body() {
    let request = b"POST /openapi/v1/Customers HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n";
    hyper_refuses(request, 400, "MalformedRequest").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_with_0xff_gets_400_with_the_json_error_body() {
    hyper_refuses(
        b"GET /\xff HTTP/1.1\r\nHost: x\r\n\r\n",
        400,
        "MalformedRequest",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_uri_over_64_kb_gets_414_with_the_json_error_body() {
    let long_uri = format!(
        "GET /openapi/v1/SalesOrders/{} HTTP/1.1\r\nHost: x\r\n\r\n",
        "A".repeat(70_000)
    );
    hyper_refuses(long_uri.as_bytes(), 414, "UriTooLong").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_headers_get_431_with_the_json_error_body() {
    let many_headers = format!(
        "GET /openapi/v1/Customers/1 HTTP/1.1\r\nHost: x\r\n{}\r\n",
        (0..200)
            .map(|i| format!("X-H{i}: v\r\n"))
            .collect::<String>()
    );
    hyper_refuses(many_headers.as_bytes(), 431, "HeadersTooLarge").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_1_mb_header_gets_431_with_the_json_error_body() {
    let huge_header = format!(
        "GET /openapi/v1/Customers/1 HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "b".repeat(1 << 20)
    );
    hyper_refuses(huge_header.as_bytes(), 431, "HeadersTooLarge").await;
}

// ---- credentials that are not text --------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_that_are_not_text_are_refused_not_taken_as_absent() {
    let Some(mut service) = sqlite_service(ConnectionSettings::default()).await else {
        return;
    };
    let tenant = service.tenant("Bytes").await;
    let request = |headers: &[u8]| {
        let mut bytes =
            b"GET /openapi/v1/Customers/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n".to_vec();
        bytes.extend_from_slice(headers);
        bytes.extend_from_slice(b"\r\n");
        bytes
    };

    let message = |answer: &Answer| -> String {
        let body: Value = serde_json::from_slice(&answer.body).expect("a JSON body");
        body["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };

    // An Authorization header of bytes that are not ASCII (not UTF-8, or
    // UTF-8 text beyond ASCII, with and without the scheme) is a wrong
    // token, not a missing one.
    for authorization in [
        &b"Authorization: Bearer lfs_stg_\xff\xfe\r\n"[..],
        "Authorization: Bearer lfs_stg_t\u{f6}k\u{e9}n\r\n".as_bytes(),
        &b"Authorization: \xff\r\n"[..],
    ] {
        let answer = exchange(service.address, &request(authorization)).await;
        let what = String::from_utf8_lossy(authorization);
        assert_eq!(answer.status, 401, "{what}: {}", answer.head);
        assert_eq!(answer.error_code(), "InvalidCredential", "{what}");
        assert!(
            !message(&answer).contains("missing"),
            "{what}: {}",
            message(&answer)
        );
    }

    // An X-Tenant-Id of such bytes names no tenant: 403, not the token's own
    // tenant.
    let mut headers = format!("Authorization: Bearer {}\r\n", tenant.token).into_bytes();
    headers.extend_from_slice(b"X-Tenant-Id: \xff\xfe\r\n");
    let answer = exchange(service.address, &request(&headers)).await;
    assert_eq!(answer.status, 403, "{}", answer.head);
    assert_eq!(answer.error_code(), "Forbidden");
    service.stop().await;
}

// ---- defects 1 and 2, on the binary: a descriptor limit, and SIGTERM ----------------------

/// The service binary, started by the test in its own process.
struct Process {
    child: Child,
    address: SocketAddr,
    log: Arc<Mutex<String>>,
    database: std::path::PathBuf,
}

const BINARY: &str = env!("CARGO_BIN_EXE_logistics-service");

impl Process {
    /// A temporary SQLite database of the production environment (so that
    /// no demo tenant is made).
    fn database() -> std::path::PathBuf {
        std::env::temp_dir().join(format!("lfs_hostile_{}.db", uuid::Uuid::new_v4().simple()))
    }

    fn command(database: &std::path::Path, files: Option<u32>) -> Command {
        let mut command = Command::new("sh");
        let ulimit = files.map_or(String::new(), |n| format!("ulimit -n {n} && "));
        command
            .arg("-c")
            .arg(format!("{ulimit}exec \"$0\" \"$@\""))
            .arg(BINARY)
            .args([
                "--environment",
                "production",
                "--log-format",
                "json",
                "--database",
            ])
            .arg(database)
            .env("RUST_LOG", "info")
            .env_remove("DATABASE_URL")
            .env_remove("LOGISTICS_ENVIRONMENT");
        command
    }

    /// `serve` with `args`, on `database`, with at most `files` open files.
    fn serve(database: std::path::PathBuf, files: Option<u32>, args: &[&str]) -> Process {
        let mut child = Self::command(&database, files)
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the service binary starts");
        let log = Arc::new(Mutex::new(String::new()));
        let (found, address) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().expect("stderr");
        let lines = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Ok(entry) = serde_json::from_str::<Value>(&line) {
                    if let Some(address) = entry["fields"]["address"].as_str() {
                        let _ = found.send(address.to_owned());
                    }
                }
                lines.lock().unwrap().push_str(&line);
                lines.lock().unwrap().push('\n');
            }
        });
        let address = address
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| {
                panic!("the service says where it listens: {}", log.lock().unwrap())
            })
            .parse()
            .expect("an address");
        Process {
            child,
            address,
            log,
            database,
        }
    }

    /// `kill -TERM`.
    fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
    }

    /// Waits up to `limit` for the process to exit; whether it did.
    async fn exited_within(&mut self, limit: Duration) -> bool {
        let started = Instant::now();
        while started.elapsed() < limit {
            if self.child.try_wait().expect("the child's status").is_some() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        for suffix in ["", "-wal", "-shm"] {
            let mut path = self.database.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_few_file_descriptors_idle_connections_do_not_lock_everyone_out() {
    let mut service = Process::serve(Process::database(), Some(128), &["--header-timeout", "1s"]);
    // More connections than the process has descriptors, none of which
    // ever sends a byte.
    let mut idle = Vec::new();
    for _ in 0..150 {
        idle.push(
            TcpStream::connect(service.address)
                .await
                .expect("connects (the backlog holds it)"),
        );
    }
    let started = Instant::now();
    let answer = tokio::time::timeout(
        Duration::from_secs(30),
        exchange(
            service.address,
            b"GET /openapi/v1/Customers/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        ),
    )
    .await
    .unwrap_or_else(|_| {
        panic!(
            "a normal request is answered despite 150 idle connections: {}",
            service.log()
        )
    });
    assert_eq!(answer.status, 401, "{}", answer.head);
    assert!(started.elapsed() < Duration::from_secs(30));
    let log = service.log();
    assert!(
        log.contains("connection limit reached"),
        "the limit is logged: {log}"
    );
    drop(idle);
    service.terminate();
    assert!(service.exited_within(Duration::from_secs(10)).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_stops_the_service_despite_slow_clients() {
    let database = Process::database();
    let created = Process::command(&database, None)
        .args(["tenant", "create", "Slow"])
        .output()
        .expect("tenant create runs");
    assert!(
        created.status.success(),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );
    let tenant: Value = serde_json::from_slice(&created.stdout).expect("the tenant as JSON");
    let token = tenant["token"].as_str().expect("a token").to_owned();
    let mut service = Process::serve(
        database,
        None,
        &[
            "--header-timeout",
            "60s",
            "--body-timeout",
            "60s",
            "--drain-timeout",
            "1s",
        ],
    );
    // A head cut short (the issue's reproduction) …
    let mut partial = TcpStream::connect(service.address).await.unwrap();
    partial
        .write_all(b"GET /openapi/v1/Customers/1 HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    // … and a request whose body stops coming, in flight.
    let mut slow = TcpStream::connect(service.address).await.unwrap();
    let head = format!(
        "POST /openapi/v1/Customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"email\":"
    );
    slow.write_all(head.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;

    service.terminate();
    assert!(
        service.exited_within(Duration::from_secs(10)).await,
        "SIGTERM stops the service within the drain deadline: {}",
        service.log()
    );
    assert!(closed_within(&mut partial, Duration::from_secs(1)).await);
    assert!(closed_within(&mut slow, Duration::from_secs(1)).await);
    let log = service.log();
    assert!(log.contains("drain deadline reached"), "{log}");
}

// ---- defects 3, 4 and 9: text, on both databases -----------------------------------------

on_both_backends! {
    async fn nul_is_refused_with_400_everywhere(service) {
        let tenant = service.tenant("Nul").await;
        let post = |path: &str, body: Value| {
            service.raw(Method::POST, path).bearer_auth(&tenant.token).json_body(&body)
        };
        let mut customer = json!({"email": "nul@example.com", "firstName": "a\u{0}b", "lastName": "K", "phone": "1"});
        let (status, body) = json_of(post("/openapi/v1/Customers", customer.clone()).send().await.unwrap()).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(codes_of(&body), [("firstName".to_owned(), "InvalidFormat".to_owned())]);

        let order = json!([{
            "referenceNumber": "RO-NUL\u{0}",
            "receiveType": "Standard",
            "transferType": "CargoTransfer",
            "lineItems": [{"sku": "S\u{0}", "expectedQuantity": 1, "hasLimitCheck": false, "tolerance": 0}]
        }]);
        let (status, body) = json_of(post("/openapi/v1/ReceivingOrders/BulkUpsert", order).send().await.unwrap()).await;
        assert_eq!(status, 400, "{body}");
        let mut found = codes_of(&body);
        found.sort();
        assert_eq!(found, [
            ("[0].lineItems[0].sku".to_owned(), "InvalidFormat".to_owned()),
            ("[0].referenceNumber".to_owned(), "InvalidFormat".to_owned()),
        ]);

        for path in [
            "/openapi/v1/SalesOrders/A%00B",
            "/openapi/v1/Returns?dqb=o%3Deq%26p%3Dnotes%26v%3Da%2500b",
            "/openapi/v1/Returns/GetReturnsWithTag?dqb=o%3Deq%26p%3Dtag%26v%3D%00",
        ] {
            let (status, body) = json_of(service.raw(Method::GET, path).bearer_auth(&tenant.token).send().await.unwrap()).await;
            assert_eq!(status, 400, "{path}: {body}");
            assert_eq!(codes_of(&body)[0].1, "InvalidFormat", "{path}: {body}");
        }
        let detail = json!({"transferType": "PickupTransfer", "pickupTransfer": {"pickupDate": "2026-03-14T09:30:00Z"}});
        let (status, body) = json_of(
            service.raw(Method::PUT, "/openapi/v1/ReceivingOrders/A%00B/transferDetail")
                .bearer_auth(&tenant.token).json_body(&detail).send().await.unwrap(),
        ).await;
        assert_eq!(status, 400, "{body}");

        // Nothing was stored, and a clean customer is still created.
        customer["firstName"] = json!("ab");
        let response = post("/openapi/v1/Customers", customer).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 201);
        assert_eq!(service.count_rows("customers", tenant.id).await, 1);
        assert_eq!(service.count_rows("receiving_orders", tenant.id).await, 0);
    }

    async fn overlong_text_is_refused_with_400(service) {
        let tenant = service.tenant("Long").await;
        let post = |path: &str, body: Value| {
            service.raw(Method::POST, path).bearer_auth(&tenant.token).json_body(&body)
        };
        // An email long enough to break PostgreSQL's index, a 1 MB name.
        let cases = [
            ("email", json!({"email": format!("{}@example.com", "a".repeat(2_700)), "firstName": "A", "lastName": "K", "phone": "1"})),
            ("email", json!({"email": format!("{}@example.com", "a".repeat(243)), "firstName": "A", "lastName": "K", "phone": "1"})),
            ("firstName", json!({"email": "long@example.com", "firstName": "x".repeat(1_000_000), "lastName": "K", "phone": "1"})),
            ("phone", json!({"email": "long@example.com", "firstName": "A", "lastName": "K", "phone": "1".repeat(33)})),
        ];
        for (field, customer) in cases {
            let (status, body) = json_of(post("/openapi/v1/Customers", customer).send().await.unwrap()).await;
            assert_eq!(status, 400, "{field}: {body}");
            assert_eq!(codes_of(&body)[0].0, field, "{body}");
        }
        let order = json!([{
            "receiveType": "Standard",
            "transferType": "CargoTransfer",
            "lineItems": [{"sku": "S".repeat(101), "expectedQuantity": 1, "hasLimitCheck": false, "tolerance": 0}]
        }]);
        let (status, body) = json_of(post("/openapi/v1/ReceivingOrders/BulkUpsert", order).send().await.unwrap()).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(codes_of(&body)[0].0, "[0].lineItems[0].sku");
        let path = format!("/openapi/v1/SalesOrders/{}", "R".repeat(101));
        let (status, _) = json_of(service.raw(Method::GET, &path).bearer_auth(&tenant.token).send().await.unwrap()).await;
        assert_eq!(status, 400);

        // At the limits, accepted.
        let longest = json!({"email": format!("{}@example.com", "a".repeat(242)), "firstName": "x".repeat(100), "lastName": "K", "phone": "1".repeat(32)});
        let response = post("/openapi/v1/Customers", longest).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 201);
        assert_eq!(service.count_rows("customers", tenant.id).await, 1);
    }

    async fn emails_differing_only_in_unicode_spelling_are_one_customer(service) {
        let tenant = service.tenant("Café").await;
        let created = tenant.client.create_customer(&customer("caf\u{e9}@example.com")).await.unwrap();
        for (what, email) in [
            ("decomposed (NFD)", "cafe\u{301}@example.com"),
            ("full-width letters", "\u{ff43}\u{ff41}\u{ff46}\u{e9}@example.com"),
            ("a zero-width space", "ca\u{200b}f\u{e9}@example.com"),
            ("upper case", "CAF\u{c9}@EXAMPLE.COM"),
        ] {
            let duplicate = refused(tenant.client.create_customer(&customer(email)).await);
            assert_eq!(duplicate.status().as_u16(), 409, "{what}");
            assert!(duplicate.message().unwrap_or_default().contains(&format!("customerNo {}", created.customer_no)), "{what}");
        }
        // A different letter is a different customer.
        tenant.client.create_customer(&customer("cafe@example.com")).await.unwrap();
        assert_eq!(service.count_rows("customers", tenant.id).await, 2);
    }
}
