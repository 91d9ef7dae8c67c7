//! A file of a `multipart/form-data` body: its bytes, with the file name and
//! media type its part says, as a client sends it and a server receives it.

use std::fmt;

use bytes::Bytes;

/// A file in a multipart body. A client sends the file name and media type
/// when they are set (the part's name and `application/octet-stream`
/// otherwise); a server hands over what the part said.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct File {
    /// The file's contents.
    pub bytes: Bytes,
    /// The `filename` of its part.
    pub filename: Option<String>,
    /// The `Content-Type` of its part.
    pub content_type: Option<String>,
}

impl File {
    /// A file of these bytes, without a name or media type.
    pub fn new(bytes: impl Into<Bytes>) -> Self {
        File {
            bytes: bytes.into(),
            filename: None,
            content_type: None,
        }
    }

    /// This file with a file name.
    #[must_use]
    pub fn with_filename(mut self, filename: impl Into<String>) -> Self {
        self.filename = Some(filename.into());
        self
    }

    /// This file with a media type, such as `image/png`.
    #[must_use]
    pub fn with_content_type(mut self, content_type: impl Into<String>) -> Self {
        self.content_type = Some(content_type.into());
        self
    }
}

/// Shows the name, media type and size, not the contents.
impl fmt::Debug for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("File")
            .field("filename", &self.filename)
            .field("content_type", &self.content_type)
            .field("len", &self.bytes.len())
            .finish()
    }
}

/// One part of a `multipart/form-data` body whose document does not list
/// its parts (its schema is not an object with properties): the part's
/// name, and its contents with the file name and media type the part says.
/// A text part is one without a file name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// The part's name (`Content-Disposition`'s `name`).
    pub name: String,
    /// Its contents, file name and media type.
    pub value: File,
}

/// The parts of a `multipart/form-data` body whose document does not list
/// them, in their order: what a client sends and a server receives as they
/// are, neither typed nor checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parts(pub Vec<Part>);

impl Parts {
    /// No parts.
    pub fn new() -> Self {
        Parts(Vec::new())
    }

    /// These parts and a text part `name` of `text`.
    #[must_use]
    pub fn with_text(mut self, name: impl Into<String>, text: impl Into<String>) -> Self {
        self.0.push(Part {
            name: name.into(),
            value: File::new(text.into()),
        });
        self
    }

    /// These parts and the file `file` as the part `name`.
    #[must_use]
    pub fn with_file(mut self, name: impl Into<String>, file: File) -> Self {
        self.0.push(Part {
            name: name.into(),
            value: file,
        });
        self
    }

    /// The first part named `name`.
    pub fn get(&self, name: &str) -> Option<&File> {
        self.0
            .iter()
            .find(|part| part.name == name)
            .map(|part| &part.value)
    }

    /// The text of the first part named `name`, when it is UTF-8.
    pub fn text(&self, name: &str) -> Option<&str> {
        std::str::from_utf8(&self.get(name)?.bytes).ok()
    }

    /// Every part, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Part> {
        self.0.iter()
    }
}

impl<'a> IntoIterator for &'a Parts {
    type Item = &'a Part;
    type IntoIter = std::slice::Iter<'a, Part>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_found_by_name_in_order() {
        let parts = Parts::new()
            .with_text("columns", "summary")
            .with_text("columns", "status")
            .with_file("scan", File::new(&b"\xff"[..]).with_filename("a.png"));
        assert_eq!(parts.text("columns"), Some("summary"));
        assert_eq!(parts.text("scan"), None, "not UTF-8");
        assert_eq!(
            parts.get("scan").and_then(|f| f.filename.as_deref()),
            Some("a.png")
        );
        let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["columns", "columns", "scan"]);
        assert!(parts.get("missing").is_none());
    }

    #[test]
    fn debug_shows_the_name_type_and_size_not_the_contents() {
        let file = File::new(&b"secret"[..])
            .with_filename("a.txt")
            .with_content_type("text/plain");
        assert_eq!(
            format!("{file:?}"),
            r#"File { filename: Some("a.txt"), content_type: Some("text/plain"), len: 6 }"#
        );
    }
}
