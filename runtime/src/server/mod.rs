//! What server stubs need: [`error`] (the one error type and the format its
//! responses take), [`negotiation`] (`Accept` and `Content-Type`), [`params`]
//! (path, query, header and cookie parameters), [`object_params`] (object
//! query parameters), [`body`] (read up to the limit, decode, validate),
//! [`multipart`] (`multipart/form-data` bodies), [`respond`] (bodies, headers, the fallbacks,
//! [`respond::finish`]), [`request_id`] and [`settings`]; [`Items`] and
//! [`RequestItems`], the items of sequential answers and requests as streams;
//! [`Encoded`], an answer's JSON body encoded before.
//!
//! A generated router calls these from its handlers; an implementation of
//! its trait meets [`ApiError`](error::ApiError), [`RequestId`](request_id::RequestId)
//! and [`Settings`](settings::Settings).

pub mod body;
mod encoded;
pub mod error;
mod error_shape;
mod items;
pub mod multipart;
pub mod negotiation;
pub mod object_params;
pub mod params;
pub mod request_id;
mod request_items;
pub mod respond;
pub mod settings;

pub use encoded::Encoded;
pub use items::Items;
pub use request_items::RequestItems;
