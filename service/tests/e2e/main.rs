//! End-to-end tests: the real service, started on a free loopback port over a
//! fresh SQLite or PostgreSQL database, driven through the generated client
//! (and plain HTTP for what a typed client cannot send). Every test runs on
//! both backends: `on_both_backends!` makes `sqlite::<test>` and
//! `postgres::<test>` of each.
//!
//! PostgreSQL is `LFS_TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/test`); each test creates a database
//! `lfs_e2e_<uuid>` there and drops it afterwards. Unreachable, it fails the
//! tests under `CI=true` and skips them loudly otherwise.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]
#![allow(missing_docs)]

mod harness;

mod auth;
mod concurrency;
mod demo_seed;
mod environments;
mod faults;
mod hostile;
mod import;
mod limits;
mod operations;
mod operator;
mod returns_query;
mod slow_readers;
mod tenancy;
