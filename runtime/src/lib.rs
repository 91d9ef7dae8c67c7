//! The runtime of the crates `openapi-codegen` generates: what is the same
//! for every API, so that a generated crate holds only what follows from its
//! document.
//!
//! Each target is a feature:
//!
//! | feature | module | for |
//! |---|---|---|
//! | `models` | [`models`] | the models crate: validation that reports every problem, the `dqb` dynamic-query grammar, parameter parsing |
//! | `client` | [`client`] | the client crate: the builder's settings, the transport (credentials, retries, tracing, decoding), errors, paging |
//! | `server` | [`server`] | the server stubs: the one error type and its rendering, negotiation, parameters, bodies, responses, request ids |
//!
//! `uuid`, `chrono` and `regex` add support for the formats `uuid`,
//! `date-time`/`date` and for `pattern` where a document uses them.
//!
//! What differs between APIs is a type the generated crate picks: the error
//! body of a client ([`client::Error`] is generic over it), the format of a
//! server's error responses ([`server::error::ErrorFormat`]), the properties
//! of a dynamic query ([`models::dynamic_query::Property`]).
//!
// A crate that leaves a target's feature off (a client alone has no
// `server`) documents this crate without that module: its links above then
// lead to the table instead of nowhere, which rustdoc refuses.
#![cfg_attr(
    not(feature = "models"),
    doc = "[`models`]: #\n[`models::dynamic_query::Property`]: #"
)]
#![cfg_attr(not(feature = "client"), doc = "[`client`]: #\n[`client::Error`]: #")]
#![cfg_attr(
    not(feature = "server"),
    doc = "[`server`]: #\n[`server::error::ErrorFormat`]: #"
)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "client")]
pub mod client;
#[cfg(any(feature = "client", feature = "server"))]
pub mod error_fields;
#[cfg(any(feature = "client", feature = "server"))]
pub mod file;
#[cfg(feature = "models")]
pub mod models;
#[cfg(any(feature = "client", feature = "server"))]
pub mod sequence;
#[cfg(feature = "server")]
pub mod server;
#[cfg(any(feature = "client", feature = "server"))]
mod template;
