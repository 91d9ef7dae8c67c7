//! The business rules, in terms of the interface's data and nothing else:
//! no HTTP, no SQL. Each area's module has its rules (pure functions, tested
//! on their own) and its operations, which read and write through the
//! [`repository`] seam and hand the store their decisions to apply inside
//! its transactions. The API layer maps their errors to responses.

pub mod customers;
pub mod error;
#[cfg(test)]
pub mod memory;
pub mod receiving_orders;
pub mod repository;
pub mod returns;
pub mod sales_orders;
pub mod tenancy;
pub mod tenants;

pub use error::DomainError;
pub use repository::{
    CustomerRepository, ReceivingOrderRepository, Repository, ReturnRepository,
    SalesOrderRepository, TenantRepository,
};

/// The current time, truncated to microseconds (the precision stored).
pub fn now() -> chrono::DateTime<chrono::Utc> {
    let now = chrono::Utc::now();
    chrono::DateTime::from_timestamp_micros(now.timestamp_micros()).unwrap_or(now)
}

#[cfg(test)]
mod tests;
