//! JSON pointers (RFC 6901) in their URI-fragment form, `#/a/b~1c`.

use std::fmt;

/// A JSON pointer into the document, kept escaped.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pointer(String);

impl Pointer {
    /// The document's root, `#`.
    pub fn root() -> Self {
        Pointer(String::new())
    }

    /// This pointer followed by one more reference token (escaped here).
    pub fn push(&self, token: &str) -> Self {
        let mut inner = String::with_capacity(self.0.len() + token.len() + 1);
        inner.push_str(&self.0);
        inner.push('/');
        for c in token.chars() {
            match c {
                '~' => inner.push_str("~0"),
                '/' => inner.push_str("~1"),
                c => inner.push(c),
            }
        }
        Pointer(inner)
    }

    /// This pointer followed by an array index.
    pub fn index(&self, index: usize) -> Self {
        self.push(&index.to_string())
    }

    /// Parses a local reference such as `#/components/schemas/Pet`.
    /// Returns `None` for anything that is not a local pointer.
    pub fn parse_local(reference: &str) -> Option<Self> {
        let rest = reference.strip_prefix('#')?;
        if !rest.is_empty() && !rest.starts_with('/') {
            return None;
        }
        // Percent-encoding is allowed in URI fragments; decode the common case.
        Some(Pointer(percent_decode(rest)))
    }

    /// This pointer with its prefix `from` replaced by `to`; `None` when
    /// `from` is not a prefix of it (token by token).
    pub fn rebase(&self, from: &Pointer, to: &Pointer) -> Option<Pointer> {
        let rest = self.0.strip_prefix(&from.0)?;
        (rest.is_empty() || rest.starts_with('/')).then(|| Pointer(format!("{}{rest}", to.0)))
    }

    /// This pointer and each of its ancestors, the longest first, the root last.
    pub fn ancestors(&self) -> impl Iterator<Item = Pointer> + '_ {
        let cuts = self
            .0
            .char_indices()
            .filter(|&(_, c)| c == '/')
            .map(|(i, _)| i)
            .rev();
        std::iter::once(self.clone()).chain(cuts.map(|i| Pointer(self.0[..i].to_owned())))
    }

    /// The unescaped reference tokens.
    pub fn tokens(&self) -> impl Iterator<Item = String> + '_ {
        self.0
            .split('/')
            .skip(1)
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
    }

    /// The last token, unescaped.
    pub fn last(&self) -> Option<String> {
        self.tokens().last()
    }

    /// `Some(name)` when this points at `#/components/<section>/<name>`.
    pub fn component_name(&self, section: &str) -> Option<String> {
        let tokens: Vec<String> = self.tokens().collect();
        match tokens.as_slice() {
            [components, s, name] if components == "components" && s == section => {
                Some(name.clone())
            }
            _ => None,
        }
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// `text` with its `%XX` escapes decoded (left as it is if that is not UTF-8).
pub(super) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(value) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(value);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_unescapes_tokens() {
        let p = Pointer::root().push("paths").push("/pets/{id}").push("a~b");
        assert_eq!(p.to_string(), "#/paths/~1pets~1{id}/a~0b");
        assert_eq!(
            p.tokens().collect::<Vec<_>>(),
            ["paths", "/pets/{id}", "a~b"]
        );
    }

    #[test]
    fn rebases_on_whole_tokens_only() {
        let from = Pointer::root().push("a").push("b");
        let to = Pointer::root().push("c");
        let p = from.push("d");
        assert_eq!(p.rebase(&from, &to).unwrap().to_string(), "#/c/d");
        assert_eq!(from.rebase(&from, &to).unwrap(), to);
        assert_eq!(
            Pointer::root().push("a").push("bb").rebase(&from, &to),
            None
        );
        let ancestors: Vec<String> = p.ancestors().map(|a| a.to_string()).collect();
        assert_eq!(ancestors, ["#/a/b/d", "#/a/b", "#/a", "#"]);
    }

    #[test]
    fn parses_local_references_only() {
        let p = Pointer::parse_local("#/components/schemas/Pet").unwrap();
        assert_eq!(p.component_name("schemas").as_deref(), Some("Pet"));
        assert_eq!(
            Pointer::parse_local("other.yaml#/components/schemas/Pet"),
            None
        );
        assert_eq!(
            Pointer::parse_local("#/components/schemas/A%20B")
                .unwrap()
                .last()
                .unwrap(),
            "A B"
        );
    }

    /// A component's name only under its own section of `components`.
    #[test]
    fn names_a_component_of_its_section_only() {
        let name =
            |p: &str, section: &str| Pointer::parse_local(p).unwrap().component_name(section);
        assert_eq!(
            name("#/components/schemas/Pet", "schemas").as_deref(),
            Some("Pet")
        );
        assert_eq!(name("#/components/responses/Pet", "schemas"), None);
        assert_eq!(name("#/definitions/schemas/Pet", "schemas"), None);
        assert_eq!(name("#/components/schemas/Pet/properties", "schemas"), None);
    }

    /// `%XX` escapes are decoded; a `%` without two hex digits after it,
    /// at the end too, is kept, as is text whose bytes are not UTF-8.
    #[test]
    fn percent_escapes_are_decoded_where_whole() {
        for (text, decoded) in [
            ("a%41", "aA"),
            ("%41%42", "AB"),
            ("a%4", "a%4"),
            ("%", "%"),
            ("a%", "a%"),
            ("%zz1", "%zz1"),
            ("%FF", "%FF"),
            ("caf%C3%A9", "café"),
        ] {
            assert_eq!(percent_decode(text), decoded, "{text}");
        }
    }
}
