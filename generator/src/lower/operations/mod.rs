//! Paths and operations → [`Operation`]s.
//!
//! - [`operation`]: each operation in document order, its name, route and security;
//! - [`params`]: its parameters, merged from the path item and read into shapes;
//! - [`querystring`]: OpenAPI 3.2's `in: querystring`, the query string as one value;
//! - [`dynamic_query`]: a query object that allows properties it does not name;
//! - [`bodies`]: request and response bodies, their media types and encodings;
//! - [`responses`]: one response per status, named by its HTTP reason;
//! - [`hooks`]: webhooks and callbacks, operations with a route of their own.
//!
//! [`Operation`]: crate::ir::Operation

mod bodies;
mod dynamic_query;
mod hooks;
mod operation;
mod params;
mod querystring;
mod responses;

pub(crate) use hooks::lower_hooks;
pub(crate) use operation::{NotGenerated, lower_operations};
