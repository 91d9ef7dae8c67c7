//! The HTTP/1.1 serving loop: accepting connections, holding each one to its
//! time limits, and draining on shutdown (decisions D28 and D29).
//!
//! `axum::serve` holds a connection as long as the client keeps it open, and
//! waits for every connection on shutdown. This loop, over hyper's HTTP/1
//! connection, adds:
//!
//! - a **header timeout**: a request's line and headers must arrive within it,
//!   counted from the accept or from the request's first byte; past it the
//!   client gets 408 and the connection is closed;
//! - a **body timeout**: a request's whole body must arrive within it, counted
//!   from the end of its headers; past it, 408 and the connection is closed;
//! - an **idle timeout**: a kept-alive connection waiting for its next request
//!   is closed after it;
//! - a **connection limit**: past it, accepting waits (new connections stay in
//!   the kernel's backlog) and a warning is logged; when the process runs out
//!   of file descriptors, accepting backs off and a warning is logged;
//! - a **drain deadline**: on shutdown, idle connections are closed at once,
//!   busy ones finish their request, and those still open at the deadline are
//!   closed;
//! - the error body for the requests hyper refuses before any of our code
//!   runs (400, 414, 431): hyper's empty answer is replaced, on its way out,
//!   with the API's JSON error body and a request id.
//!
//! The modules: `settings` (the flags and their defaults), `accept` (the
//! accept loop, the connection limit and the drain), `connection` (one
//! connection's phases and the watchdog of its header and idle timeouts),
//! `request` (one request: the body timeout, and counting a response in
//! flight until it is written), `io` (the client's stream as hyper sees it)
//! and `refusals` (the error bodies that replace hyper's empty answers).

mod accept;
mod connection;
mod io;
mod refusals;
mod request;
mod settings;

pub use accept::serve;
pub use request::{BodyArrival, body_timeout_response};
pub use settings::{ConnectionSettings, default_connection_limit, parse_duration};
