//! The generator's one error type.
//!
//! Every problem with an input document names the document and the JSON
//! pointer of the offending node, so that a person can find it without
//! reading the generator's code.

use std::fmt;
use std::path::PathBuf;

use crate::pointer::Pointer;

/// Why the generator stopped.
#[derive(Debug)]
pub enum Error {
    /// A file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The document is not valid OpenAPI 3.0 (or not valid YAML/JSON).
    Invalid {
        /// The document, as the user named it.
        file: String,
        /// Where in the document.
        pointer: Pointer,
        /// What is wrong.
        message: String,
    },
    /// The document is valid, but uses something the generator cannot turn into Rust yet.
    Unsupported {
        /// The document, as the user named it.
        file: String,
        /// Where in the document.
        pointer: Pointer,
        /// What is not supported, and what to do instead.
        message: String,
    },
    /// The generator settings (`codegen.toml`) are wrong.
    Config {
        /// The settings file.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// The generator produced Rust that does not parse: a bug in the generator.
    Emit {
        /// The file being generated.
        file: String,
        /// What `syn` said.
        message: String,
    },
}

impl Error {
    /// An invalid-document error at `pointer` of `file`.
    pub fn invalid(file: &str, pointer: &Pointer, message: impl Into<String>) -> Self {
        Error::Invalid {
            file: file.to_owned(),
            pointer: pointer.clone(),
            message: message.into(),
        }
    }

    /// An unsupported-construct error at `pointer` of `file`.
    pub fn unsupported(file: &str, pointer: &Pointer, message: impl Into<String>) -> Self {
        Error::Unsupported {
            file: file.to_owned(),
            pointer: pointer.clone(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Invalid {
                file,
                pointer,
                message,
            } => {
                write!(f, "{file}{pointer}: invalid document: {message}")
            }
            Error::Unsupported {
                file,
                pointer,
                message,
            } => {
                write!(
                    f,
                    "{file}{pointer}: not supported by the generator: {message}"
                )
            }
            Error::Config { file, message } => write!(f, "{file}: {message}"),
            Error::Emit { file, message } => write!(
                f,
                "{file}: the generator produced Rust that does not parse ({message}); \
                 this is a bug in the generator, please report it with the document"
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The generator's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::Error;

    /// A file that could not be read keeps the operating system's error as
    /// its cause, for callers that walk the chain; other errors have none.
    #[test]
    fn an_io_error_keeps_its_cause() {
        let io = Error::Io {
            path: "spec/openapi.yaml".into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        };
        assert_eq!(
            io.source().map(ToString::to_string).as_deref(),
            Some("no such file")
        );
        let config = Error::Config {
            file: "codegen.toml".to_owned(),
            message: "unknown field".to_owned(),
        };
        assert!(config.source().is_none());
    }
}
