//! Returns: arrival, completion and tags (decisions D14).

use super::DomainError;

/// The longest tag, in characters.
pub const MAX_TAG_LENGTH: usize = 256;

/// A step in a return's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReturnStep {
    /// The return arrived at the warehouse.
    Arrived,
    /// The return was completed.
    Completed,
}

/// What a return's timestamps say about it.
#[derive(Debug, Clone, Copy)]
pub struct ReturnProgress {
    /// When it arrived, if it has.
    pub arrived: bool,
    /// When it was completed, if it has.
    pub completed: bool,
}

/// Checks that a return may take `step`: arrival once, completion once and
/// only after arrival.
pub fn check_step(
    reference: &str,
    progress: ReturnProgress,
    step: ReturnStep,
) -> Result<(), DomainError> {
    let refusal = match step {
        ReturnStep::Arrived if progress.arrived => Some("has already arrived"),
        ReturnStep::Completed if !progress.arrived => Some("has not arrived yet"),
        ReturnStep::Completed if progress.completed => Some("is already completed"),
        _ => None,
    };
    match refusal {
        Some(why) => Err(DomainError::Conflict {
            property: "returnReferenceNumber",
            code: "InvalidOperation",
            message: format!("return {reference} {why}"),
        }),
        None => Ok(()),
    }
}

/// Checks a tag: free text of 1 to 256 characters.
pub fn check_tag(tag: &str) -> Result<(), DomainError> {
    let length = tag.chars().count();
    if length == 0 || length > MAX_TAG_LENGTH {
        return Err(DomainError::invalid(
            "tag",
            format!("must be 1 to {MAX_TAG_LENGTH} characters long"),
            "OutOfRange",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_arrive_then_complete_once_each() {
        let fresh = ReturnProgress {
            arrived: false,
            completed: false,
        };
        let arrived = ReturnProgress {
            arrived: true,
            completed: false,
        };
        let done = ReturnProgress {
            arrived: true,
            completed: true,
        };
        assert!(check_step("R", fresh, ReturnStep::Arrived).is_ok());
        assert!(check_step("R", fresh, ReturnStep::Completed).is_err());
        assert!(check_step("R", arrived, ReturnStep::Arrived).is_err());
        assert!(check_step("R", arrived, ReturnStep::Completed).is_ok());
        assert!(check_step("R", done, ReturnStep::Completed).is_err());
        assert!(check_tag(&"x".repeat(256)).is_ok());
        assert!(check_tag(&"x".repeat(257)).is_err());
        assert!(check_tag("").is_err());
    }
}
