//! The router's settings. Policies (rate limits, time-outs, tracing, CORS…)
//! are not settings: they are tower layers the service adds around the router.

/// The request-body limit when none is set: 16 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 16 * 1024 * 1024;

/// How the router treats requests.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Settings {
    /// The largest request body, in bytes; larger ones are answered with 413
    /// `PayloadTooLarge`.
    pub body_limit: usize,
}

impl Settings {
    /// The default settings.
    pub fn new() -> Self {
        Settings {
            body_limit: DEFAULT_BODY_LIMIT,
        }
    }

    /// These settings with another body limit, in bytes.
    pub fn with_body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::new()
    }
}
