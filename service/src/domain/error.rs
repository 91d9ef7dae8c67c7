//! What can go wrong in a business operation, said in the interface's terms.

use logistics_models::validation::Problem;

/// A business operation's failure.
#[derive(Debug, thiserror::Error)]
pub enum DomainError {
    /// The request breaks rules of the interface: every problem is listed.
    #[error("{}", summary(.0))]
    Invalid(Vec<Problem>),
    /// No resource of the tenant has this key.
    #[error("{message}")]
    NotFound {
        /// The request property that named the resource.
        property: &'static str,
        /// What was not found.
        message: String,
    },
    /// The request conflicts with the resource's current state.
    #[error("{message}")]
    Conflict {
        /// The request property at fault.
        property: &'static str,
        /// The interface's error code (`ResourceAlreadyExists`, `InvalidOperation`, …).
        code: &'static str,
        /// What conflicts, and why.
        message: String,
    },
    /// The tenant does not exist.
    #[error("tenant {0} does not exist")]
    UnknownTenant(uuid::Uuid),
    /// The store could not be reached or failed; the request may be retried.
    #[error("the store is unavailable: {0}")]
    Unavailable(String),
    /// Something that should not fail did.
    #[error("{0}")]
    Internal(String),
}

fn summary(problems: &[Problem]) -> String {
    match problems {
        [one] => format!("{}: {}", one.property, one.message),
        many => format!(
            "{} problems, the first: {}: {}",
            many.len(),
            many[0].property,
            many[0].message
        ),
    }
}

impl DomainError {
    /// One problem with one property.
    pub fn invalid(property: impl Into<String>, message: impl Into<String>, code: &str) -> Self {
        DomainError::Invalid(vec![problem(property, message, code)])
    }
}

/// A [`Problem`] from its parts.
pub fn problem(property: impl Into<String>, message: impl Into<String>, code: &str) -> Problem {
    Problem {
        property: property.into(),
        message: message.into(),
        error_code: code.to_owned(),
    }
}
