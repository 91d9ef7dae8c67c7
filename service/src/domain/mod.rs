//! The business rules, in terms of the interface's data and nothing else:
//! no HTTP, no SQL. The storage layer calls these rules inside its
//! transactions; the API layer maps their errors to responses.

pub mod customers;
pub mod error;
pub mod receiving_orders;
pub mod returns;
pub mod sales_orders;
pub mod tenancy;

pub use error::DomainError;

/// The current time, truncated to microseconds (the precision stored).
pub fn now() -> chrono::DateTime<chrono::Utc> {
    micros_to_time(time_to_micros(chrono::Utc::now()))
}

/// A time as microseconds since the Unix epoch, as stored.
pub fn time_to_micros(time: chrono::DateTime<chrono::Utc>) -> i64 {
    time.timestamp_micros()
}

/// Microseconds since the Unix epoch as a time.
pub fn micros_to_time(micros: i64) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp_micros(micros).unwrap_or_default()
}
