//! What a client crate needs: the [`Settings`] its builder collects, the
//! [`Transport`] every call goes through (credentials, common headers,
//! time-out, retries, the tracing span), the [`Call`] an operation's method
//! puts together and the [`Answer`] it reads back, [`Error`] (generic over
//! the API's error body), [`RetryPolicy`] and the page walker of paged
//! listings ([`paging`]). Object query parameters and multipart bodies
//! are written by `form` ([`Call::query_object`], [`Multipart`]).

mod builder;
mod error;
mod events;
mod form;
mod items;
#[cfg(test)]
mod loopback;
pub mod paging;
mod response;
mod resume;
mod retry;
mod transport;

pub use crate::file::{File, Part, Parts};
pub use crate::template::PathStyle;
pub use builder::{ServerVariable, Settings, fill_template};
pub use error::{ApiError, Error, Failure, FieldProblem};
pub use events::{Event, EventData, Events};
pub use form::Multipart;
pub use items::Items;
pub use response::{NoHeaders, Response, read_header};
pub use retry::RetryPolicy;
pub use transport::{Answer, Call, Envelope, JsonText, Scheme, Style, Transport, param_text};
