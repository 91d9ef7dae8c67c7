//! The Logistics Fulfilment Service: the generated server trait implemented
//! over SQLite or PostgreSQL.
//!
//! - [`domain`]: the business rules and the repository seam they read and
//!   write through, knowing nothing of HTTP or SQL;
//! - [`storage`]: the seam implemented over SQLite and PostgreSQL;
//! - [`auth`]: tokens and tenants, the authentication hook's work;
//! - [`api`]: the generated `FulfilmentApi` trait, implemented;
//! - [`rate_limit`]: the per-token limit and its stores (memory, PostgreSQL, Redis);
//! - [`ops`]: the operations endpoints (docs, document, probes, metrics) and tracing;
//! - [`server`]: the application assembled and served;
//! - [`http_server`]: the accept loop and each connection's time limits;
//! - [`commands`]: the operator commands of the warehouse side;
//! - [`import`]: the operator's import files, read and checked;
//! - [`seed`]: demo data for a first staging run;
//! - [`text`]: the characters refused in every field (NUL).

pub mod api;
pub mod auth;
pub mod commands;
pub mod domain;
pub mod http_server;
pub mod import;
pub mod ops;
pub mod rate_limit;
pub mod seed;
pub mod server;
pub mod storage;
pub mod text;
