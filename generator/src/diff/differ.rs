//! The state of one comparison: the two documents, where each schema is
//! used, and the changes found so far.

use super::report::{Change, Crates, Judgement};
use super::usage;
use crate::parse::{Document, Pointer};

/// The state of one comparison.
pub(crate) struct Differ<'a> {
    pub old: &'a Document,
    pub new: &'a Document,
    pub crates: Crates,
    pub usage: usage::Usages,
    pub changes: Vec<Change>,
}

impl Differ<'_> {
    /// Records a change at `pointer`, or, when neither document has that
    /// node (a keyword absent on both sides, as a defaulted `required`
    /// is), at its nearest ancestor the new document has. The pointer is
    /// then the one of the user's file (a 3.2 `query` operation's, not
    /// where the parser moved it).
    pub fn push(&mut self, pointer: &Pointer, what: String, wire: Judgement, rust: Judgement) {
        let mut pointer = pointer.clone();
        if self.new.node(&pointer).is_none() && self.old.node(&pointer).is_none() {
            let tokens: Vec<String> = pointer.tokens().collect();
            pointer = (0..tokens.len())
                .rev()
                .map(|n| tokens[..n].iter().fold(Pointer::root(), |p, t| p.push(t)))
                .find(|p| self.new.node(p).is_some())
                .unwrap_or_else(Pointer::root);
        }
        // The node is now in the new document, or only in the old one.
        let origins = match self.new.node(&pointer) {
            Some(_) => &self.new.origins,
            None => &self.old.origins,
        };
        let pointer = origins.to_user(&pointer);
        self.changes.push(Change {
            pointer,
            what,
            wire,
            rust,
        });
    }
}
