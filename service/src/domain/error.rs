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
    /// The store could not be reached or failed, and nothing was written;
    /// the request may be retried.
    #[error("the store is unavailable: {0}")]
    Unavailable(String),
    /// The store failed while committing a write, which it may have applied
    /// before its answer was lost.
    #[error("the store failed to confirm a write: {0}")]
    MaybeApplied(String),
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

/// What an invalid request's error says: the one problem, or how many there
/// are and the first (the message of the 400 and of the CLI's errors).
#[cfg(test)]
mod summary_tests {
    use super::*;

    #[test]
    fn an_invalid_request_names_its_first_problem_and_how_many() {
        let one = DomainError::invalid("tag", "must be 1 to 256 characters long", "OutOfRange");
        assert_eq!(one.to_string(), "tag: must be 1 to 256 characters long");
        let many = DomainError::Invalid(vec![
            problem("[0].sku", "is required", "Required"),
            problem("[1].sku", "is required", "Required"),
        ]);
        assert_eq!(
            many.to_string(),
            "2 problems, the first: [0].sku: is required"
        );
    }
}
