//! An error body's shape as a table: which property holds which part of an
//! error. A generated crate states its document's error schema so. The
//! server stubs write every error by it (`server::error::write_fields`);
//! the client reads the message, the problems and the request id of the
//! error bodies it gets by the same table (`client::Settings::error_fields`),
//! and by their common names where the table has none.

/// What a field of an error body holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The HTTP status, as a number (`400`).
    Status,
    /// The status's reason phrase (`Bad Request`).
    Title,
    /// The summary of the error (the server's `ApiError::message`).
    Message,
    /// The error code (the server's `ApiError::error_code`), or the reason
    /// phrase when the error has none.
    Code,
    /// The request id, as the `X-Request-Id` header has it.
    RequestId,
    /// The request id as a URI (`urn:request-id:<id>`): RFC 9457's
    /// `instance`, which names the occurrence of the problem.
    Instance,
    /// The time of rendering, RFC 3339 in UTC, to the second.
    Timestamp,
    /// A fixed text, such as RFC 9457's `type` (`about:blank`).
    Text(&'static str),
    /// Every problem (the server's `ApiError::listed_problems`), an object
    /// each with these fields.
    Problems(&'static [(&'static str, ProblemPart)]),
    /// An object with these fields.
    Object(&'static [Field]),
}

/// What a field of one problem holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemPart {
    /// The property, parameter or header the problem is about.
    Property,
    /// What is wrong with it.
    Message,
    /// The problem's error code (`Required`, `MaxLength`, …).
    ErrorCode,
}

/// A field of an error body: its name and what it holds.
pub type Field = (&'static str, Part);
