//! Request ids: taken from the request's `X-Request-Id` when it is sane (1 to
//! 128 visible ASCII characters), generated otherwise, and sent back in the
//! `X-Request-Id` header of every response and in every error body.

use std::fmt;

use http::HeaderMap;
use http::header::{HeaderName, HeaderValue};

/// The `X-Request-Id` header.
pub static X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The longest request id taken from a request.
pub const MAX_LENGTH: usize = 128;

/// A request's id.
///
/// Generated ids are ULIDs (26 characters of Crockford's base 32: the time in
/// milliseconds, then 80 random bits), so that they sort by time in logs.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct RequestId(Repr);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    Received(HeaderValue),
    Generated([u8; 26]),
}

impl RequestId {
    /// The id of the request with these headers: its `X-Request-Id` when that
    /// is sane, a new one otherwise.
    pub fn from_headers(headers: &HeaderMap) -> Self {
        Self::received(headers).unwrap_or_else(Self::generate)
    }

    /// The id of the request with these headers, as [`from_headers`] gives
    /// it, written into them when it is new: a layer in front of the router
    /// settles it once, and the router, which reads the header, agrees.
    ///
    /// [`from_headers`]: RequestId::from_headers
    pub fn settle(headers: &mut HeaderMap) -> Self {
        Self::received(headers).unwrap_or_else(|| {
            let id = Self::generate();
            headers.insert(&X_REQUEST_ID, id.to_header_value());
            id
        })
    }

    /// The request's own `X-Request-Id`, when it has a sane one.
    fn received(headers: &HeaderMap) -> Option<Self> {
        headers
            .get(&X_REQUEST_ID)
            .filter(|value| is_sane(value.as_bytes()))
            .map(|value| RequestId(Repr::Received(value.clone())))
    }

    /// `value` as a request id, when it is sane.
    pub fn parse(value: &str) -> Option<Self> {
        if is_sane(value.as_bytes()) {
            HeaderValue::from_str(value)
                .ok()
                .map(|value| RequestId(Repr::Received(value)))
        } else {
            None
        }
    }

    /// A new id.
    pub fn generate() -> Self {
        const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
            & 0xFFFF_FFFF_FFFF;
        let random = fastrand::u128(..) & ((1u128 << 80) - 1);
        let value = (u128::from(millis) << 80) | random;
        let mut id = [0u8; 26];
        for (i, byte) in id.iter_mut().enumerate() {
            let shift = 125 - 5 * i;
            *byte = ALPHABET[((value >> shift) & 31) as usize];
        }
        RequestId(Repr::Generated(id))
    }

    /// The id.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            // Both are visible ASCII, checked or made so.
            Repr::Received(value) => std::str::from_utf8(value.as_bytes()).unwrap_or_default(),
            Repr::Generated(id) => std::str::from_utf8(id).unwrap_or_default(),
        }
    }

    /// The id as the value of an `X-Request-Id` header.
    pub fn to_header_value(&self) -> HeaderValue {
        match &self.0 {
            Repr::Received(value) => value.clone(),
            Repr::Generated(id) => {
                HeaderValue::from_bytes(id).unwrap_or_else(|_| HeaderValue::from_static("-"))
            }
        }
    }
}

/// 1 to [`MAX_LENGTH`] visible ASCII characters.
fn is_sane(value: &[u8]) -> bool {
    (1..=MAX_LENGTH).contains(&value.len()) && value.iter().all(|b| (0x21..=0x7e).contains(b))
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("RequestId").field(&self.as_str()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The milliseconds of a generated id: its first ten characters, in
    /// Crockford's base 32 (ULID).
    fn millis_of(id: &str) -> u64 {
        const ALPHABET: &str = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
        id[..10]
            .chars()
            .map(|c| ALPHABET.find(c).expect("Crockford's base 32") as u64)
            .fold(0, |millis, digit| millis << 5 | digit)
    }

    #[test]
    fn a_generated_id_is_a_ulid_of_now_with_random_bits() {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        let ids: Vec<String> = (0..1_000)
            .map(|_| RequestId::generate().to_string())
            .collect();
        for id in &ids {
            assert_eq!(id.len(), 26, "{id}");
            assert!(
                id.starts_with(['0', '1', '2', '3', '4', '5', '6', '7']),
                "{id}"
            );
            let millis = millis_of(id);
            assert!(
                millis.abs_diff(now) < 60_000,
                "{id}: {millis} is not about {now}"
            );
        }
        let distinct: std::collections::HashSet<&String> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len(), "80 random bits do not repeat");
        // The random part is not all ones, nor all zeros.
        assert!(ids.iter().any(|id| !id.ends_with("ZZZZ")));
        assert!(ids.iter().any(|id| !id.ends_with("0000")));
    }

    #[test]
    fn a_sane_text_parses_as_an_id_and_shows_as_itself() {
        let id = RequestId::parse("req-42").expect("sane");
        assert_eq!(id.as_str(), "req-42");
        assert_eq!(id.to_string(), "req-42");
        assert_eq!(format!("{id:?}"), r#"RequestId("req-42")"#);
        assert_eq!(id.to_header_value(), "req-42");
        assert!(RequestId::parse("two words").is_none());
        assert!(RequestId::parse("").is_none());
    }

    #[test]
    fn settle_keeps_a_sane_id_and_writes_a_new_one_over_any_other() {
        let mut headers = HeaderMap::new();
        headers.insert(&X_REQUEST_ID, HeaderValue::from_static("given-1"));
        assert_eq!(RequestId::settle(&mut headers).as_str(), "given-1");
        assert_eq!(headers[&X_REQUEST_ID], "given-1");

        for mut headers in [HeaderMap::new(), {
            let mut insane = HeaderMap::new();
            insane.insert(&X_REQUEST_ID, HeaderValue::from_static("two words"));
            insane
        }] {
            let id = RequestId::settle(&mut headers);
            assert_eq!(id.as_str().len(), 26, "{id}");
            assert_eq!(headers[&X_REQUEST_ID], id.as_str());
            assert_eq!(RequestId::from_headers(&headers).as_str(), id.as_str());
        }
    }
}
