//! A success answer with its metadata: what `…_with_response` methods
//! return.

use std::str::FromStr;

use reqwest::header::HeaderMap;

/// A success answer: the typed body with the status and the headers it came
/// with. `H` holds the headers the document declares for the operation's
/// answers, typed (`…Headers` in a generated client).
///
/// The plain method of an operation returns the body alone; its
/// `…_with_response` twin returns this.
#[derive(Debug, Clone)]
pub struct Response<T, H = ()> {
    status: u16,
    headers: HeaderMap,
    declared: H,
    body: T,
}

impl<T, H> Response<T, H> {
    /// A response of these parts.
    pub fn new(status: u16, headers: HeaderMap, declared: H, body: T) -> Self {
        Self {
            status,
            headers,
            declared,
            body,
        }
    }

    /// The status code.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// Every header of the answer.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The headers the document declares for the answer, typed: a field
    /// each, `None` when the answer lacks it or it is not of its type.
    pub fn declared(&self) -> &H {
        &self.declared
    }

    /// The body.
    pub fn body(&self) -> &T {
        &self.body
    }

    /// The body, the rest dropped.
    pub fn into_inner(self) -> T {
        self.body
    }

    /// The declared headers and the body.
    pub fn into_parts(self) -> (H, T) {
        (self.declared, self.body)
    }
}

/// The declared headers of an operation whose answers declare none: its
/// `…Headers` type in a generated client is an alias of this one, so that
/// such an operation costs no struct of its own. When the document comes to
/// declare a header, the alias becomes a struct of the same name with a
/// field per header; code that names the alias keeps building.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct NoHeaders {}

impl NoHeaders {
    /// Reads nothing from `headers`: the reader a generated client passes
    /// to [`Answer::into_response`](crate::client::Answer::into_response),
    /// as it passes a `…Headers` struct's own.
    pub fn read(_: &HeaderMap) -> Self {
        Self {}
    }
}

/// The header `name` of `headers` parsed as `T`: `None` when it is absent,
/// not text, or does not parse.
pub fn read_header<T: FromStr>(headers: &HeaderMap, name: &str) -> Option<T> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declared_header_reads_as_its_type_or_not_at_all() {
        let mut headers = HeaderMap::new();
        headers.insert("location", "/openapi/v1/Customers/42".parse().unwrap());
        headers.insert("x-remaining-calls", "17".parse().unwrap());
        headers.insert("x-broken", "seven".parse().unwrap());
        assert_eq!(
            read_header::<String>(&headers, "Location").as_deref(),
            Some("/openapi/v1/Customers/42")
        );
        assert_eq!(read_header::<i32>(&headers, "X-Remaining-Calls"), Some(17));
        assert_eq!(read_header::<i32>(&headers, "X-Broken"), None);
        assert_eq!(read_header::<i32>(&headers, "X-Absent"), None);
        let response = Response::new(201, headers, 7_u8, "body");
        assert_eq!(response.status(), 201);
        assert_eq!(*response.declared(), 7);
        assert!(response.headers().contains_key("location"));
        assert_eq!(response.into_inner(), "body");
    }
}
