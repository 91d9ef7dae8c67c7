//! [`Encoded`]: an answer's JSON body, encoded before the request came.

use std::fmt;
use std::marker::PhantomData;

use axum::body::Bytes;
use serde::Serialize;

/// The JSON text of a `T`, sent as it is: for an implementation that stores
/// its answers whole (a read model, a cache it keeps true) and would
/// otherwise parse them into a `T` and write them out again on every read.
///
/// The stubs do not parse the text again; [`Encoded::from_json_unchecked`]
/// is the implementation's word that it is a `T` as the document describes
/// it, typically because it was written by [`Encoded::new`] or
/// `serde_json::to_vec` of a `T` and kept since.
pub struct Encoded<T> {
    json: Bytes,
    of: PhantomData<fn() -> T>,
}

impl<T: Serialize> Encoded<T> {
    /// `value` encoded now.
    pub fn new(value: &T) -> Result<Self, serde_json::Error> {
        Ok(Encoded::from_json_unchecked(serde_json::to_vec(value)?))
    }
}

impl<T> Encoded<T> {
    /// Text the caller vouches is the JSON of a `T`; not checked.
    pub fn from_json_unchecked(json: impl Into<Bytes>) -> Self {
        Encoded {
            json: json.into(),
            of: PhantomData,
        }
    }

    /// The JSON text.
    pub fn as_bytes(&self) -> &[u8] {
        &self.json
    }

    /// The JSON text, for the response's body.
    pub fn into_bytes(self) -> Bytes {
        self.json
    }
}

// By hand: `T` itself need not be Clone, Debug or PartialEq.
impl<T> Clone for Encoded<T> {
    fn clone(&self) -> Self {
        Encoded::from_json_unchecked(self.json.clone())
    }
}

impl<T> PartialEq for Encoded<T> {
    fn eq(&self, other: &Self) -> bool {
        self.json == other.json
    }
}

impl<T> fmt::Debug for Encoded<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Encoded")
            .field(&String::from_utf8_lossy(&self.json))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Pet {
        name: &'static str,
    }

    #[test]
    fn the_text_is_kept_as_given() {
        let made = Encoded::new(&Pet { name: "Rex" }).unwrap();
        assert_eq!(made.as_bytes(), br#"{"name":"Rex"}"#);
        let stored = Encoded::<Pet>::from_json_unchecked(r#"{"name": "Rex"}"#);
        assert_eq!(made, Encoded::new(&Pet { name: "Rex" }).unwrap());
        assert_ne!(made, stored, "compared as text, spaces included");
        assert_eq!(stored.clone().into_bytes(), r#"{"name": "Rex"}"#);
        assert_eq!(format!("{stored:?}"), r#"Encoded("{\"name\": \"Rex\"}")"#);
    }
}
