//! Following local `$ref`s, with cycle detection.

use std::borrow::Cow;

use openapiv3::ReferenceOr;
use serde::de::DeserializeOwned;

use super::{Document, deserialize_at};
use crate::pointer::Pointer;
use heck::ToSnakeCase;

use crate::error::{Error, Result};

/// A node reached directly or through `$ref`s.
#[derive(Debug)]
pub struct Resolved<'a, T: Clone> {
    /// The node.
    pub value: Cow<'a, T>,
    /// Where the node itself lives (the target of the last `$ref`).
    pub pointer: Pointer,
    /// Whether it was reached through a `$ref`.
    pub via_ref: bool,
}

impl Document {
    /// Resolves `item`, found at `at`, following `$ref`s to their target.
    #[allow(
        clippy::expect_used,
        reason = "follow returns only pointers to nodes it found"
    )]
    pub fn resolve<'a, T>(&self, item: &'a ReferenceOr<T>, at: &Pointer) -> Result<Resolved<'a, T>>
    where
        T: DeserializeOwned + Clone,
    {
        match item {
            ReferenceOr::Item(value) => Ok(Resolved {
                value: Cow::Borrowed(value),
                pointer: at.clone(),
                via_ref: false,
            }),
            ReferenceOr::Reference { reference } => {
                let target = self.follow(reference, at)?;
                let node = self.node(&target).expect("follow returns existing nodes");
                let value = deserialize_at(node, &self.file, &target)
                    .map_err(|error| self.wrong_target::<T>(reference, at, &target, error))?;
                Ok(Resolved {
                    value: Cow::Owned(value),
                    pointer: target,
                    via_ref: true,
                })
            }
        }
    }

    /// The error for a `$ref` (found at `at`) whose target is not the kind of
    /// object `T` its place needs: named at the `$ref`, since that is what to fix.
    pub(crate) fn wrong_target<T>(
        &self,
        reference: &str,
        at: &Pointer,
        target: &Pointer,
        error: Error,
    ) -> Error {
        let kind = std::any::type_name::<T>()
            .rsplit("::")
            .next()
            .unwrap_or("object")
            .to_snake_case()
            .replace('_', " ");
        let why = match error {
            Error::Invalid {
                pointer, message, ..
            } => format!("{pointer}: {message}"),
            other => other.to_string(),
        };
        let what = if Pointer::parse_local(reference).as_ref() == Some(target) {
            format!("`{reference}`")
        } else {
            format!("`{reference}` leads to {target}, which")
        };
        self.invalid(
            &at.push("$ref"),
            format!("{what} is not a valid {kind} ({why})"),
        )
    }

    /// The pointer a `$ref` (found at `at`) finally leads to, through chains of
    /// `$ref`s. A chain that comes back to itself is an error.
    pub fn follow(&self, reference: &str, at: &Pointer) -> Result<Pointer> {
        let mut seen: Vec<Pointer> = Vec::new();
        let mut reference = reference.to_owned();
        let mut from = at.clone();
        loop {
            // An empty reference is the document itself (RFC 3986), never
            // a definition: a reference its author left unfinished.
            if reference.trim().is_empty() || reference.trim() == "#" {
                return Err(self.invalid(
                    &from.push("$ref"),
                    format!(
                        "`{reference}` refers to the whole document, not to a definition in \
                         it: name one (`#/components/schemas/...`)"
                    ),
                ));
            }
            let Some(target) = Pointer::parse_local(&reference) else {
                let why = if reference.contains("://") || reference.starts_with("urn:") {
                    "is a remote reference; the generator reads local files only: save the \
                     file beside the document and refer to it by a relative path"
                } else if reference.starts_with('#') {
                    "names an anchor; only JSON pointers (`#/components/...`) are supported \
                     after the `#`"
                } else {
                    "is not a reference within the document, and was not brought in from \
                     another file (files are followed where OpenAPI allows a `$ref`, in a \
                     document read from a file)"
                };
                return Err(self.unsupported(&from.push("$ref"), format!("`{reference}` {why}")));
            };
            if seen.contains(&target) {
                let chain: Vec<String> = seen.iter().map(ToString::to_string).collect();
                return Err(self.invalid(
                    at,
                    format!(
                        "the `$ref` chain {} → {target} never reaches a definition",
                        chain.join(" → ")
                    ),
                ));
            }
            let Some(node) = self.node(&target) else {
                return Err(self.invalid(
                    &from.push("$ref"),
                    format!("`{reference}` points to nothing"),
                ));
            };
            seen.push(target.clone());
            match node.get("$ref").and_then(serde_yaml::Value::as_str) {
                Some(next) => {
                    reference = next.to_owned();
                    from = target;
                }
                None => return Ok(target),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(components: &str) -> Document {
        let text = format!(
            "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths: {{}}\ncomponents:\n{components}"
        );
        Document::parse(&text, "t.yaml", false).unwrap()
    }

    #[test]
    fn follows_chains_of_references() {
        let d = doc("  schemas:\n    A: {$ref: '#/components/schemas/B'}\n    B: {type: string}\n");
        let target = d
            .follow("#/components/schemas/A", &Pointer::root())
            .unwrap();
        assert_eq!(target.to_string(), "#/components/schemas/B");
    }

    #[test]
    fn names_a_broken_reference() {
        let d = doc(
            "  schemas:\n    A: {type: object, properties: {b: {$ref: '#/components/schemas/Nope'}}}\n",
        );
        let at = Pointer::root()
            .push("components")
            .push("schemas")
            .push("A")
            .push("properties")
            .push("b");
        let err = d
            .follow("#/components/schemas/Nope", &at)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "t.yaml#/components/schemas/A/properties/b/$ref: invalid document: \
             `#/components/schemas/Nope` points to nothing"
        );
    }

    #[test]
    fn detects_reference_cycles() {
        let d = doc(
            "  schemas:\n    A: {$ref: '#/components/schemas/B'}\n    B: {$ref: '#/components/schemas/A'}\n",
        );
        let err = d
            .follow("#/components/schemas/A", &Pointer::root())
            .unwrap_err()
            .to_string();
        assert!(err.contains("never reaches a definition"), "{err}");
    }

    #[test]
    fn refuses_external_references() {
        let d = doc("  schemas: {}\n");
        let err = d
            .follow("common.yaml#/Pet", &Pointer::root())
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a reference within the document"), "{err}");
    }
}
