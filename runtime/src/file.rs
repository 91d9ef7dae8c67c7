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
