//! The router's settings. Policies (rate limits, time-outs, tracing, CORS…)
//! are not settings: they are tower layers the service adds around the router.

/// The request-body limit when none is set: 16 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 16 * 1024 * 1024;

/// The limit of a part of a multipart body that is not a file, when none
/// is set: 1 MiB. Files are limited by the body limit only.
pub const DEFAULT_PART_LIMIT: usize = 1024 * 1024;

/// How the router treats requests.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Settings {
    /// The largest request body, in bytes; larger ones are answered with 413
    /// `PayloadTooLarge`.
    pub body_limit: usize,
    /// The largest part of a multipart body that is not a file, in bytes;
    /// a larger one is a problem in the request's 400.
    pub part_limit: usize,
}

impl Settings {
    /// The default settings.
    pub fn new() -> Self {
        Settings {
            body_limit: DEFAULT_BODY_LIMIT,
            part_limit: DEFAULT_PART_LIMIT,
        }
    }

    /// These settings with another body limit, in bytes.
    pub fn with_body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// These settings with another limit of a multipart body's text parts, in bytes.
    pub fn with_part_limit(mut self, bytes: usize) -> Self {
        self.part_limit = bytes;
        self
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_16_mib_a_body_and_1_mib_a_text_part() {
        let defaults = Settings::default();
        assert_eq!(defaults.body_limit, 16_777_216);
        assert_eq!(defaults.part_limit, 1_048_576);
        let set = Settings::new().with_body_limit(10).with_part_limit(5);
        assert_eq!((set.body_limit, set.part_limit), (10, 5));
    }
}
