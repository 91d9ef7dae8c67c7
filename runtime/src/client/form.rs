//! Values spread over several pairs or parts: object query parameters
//! (`deepObject` and exploded `form` style) and `multipart/form-data`
//! bodies, written into a [`Call`].

use serde::Serialize;
use serde_json::Value;

use super::transport::{Call, encode, items};
use crate::file::{File, Parts};

impl Call {
    /// Adds an object query parameter: each property as `name[key]=value`
    /// (`deep`, the `deepObject` style) or as `key=value` (exploded `form`
    /// style), an array's items repeated, a nested object's properties as
    /// `name[key][sub]=value` (`key[sub]=value`), as Stripe's API and the
    /// `qs` convention write them; nothing for `None`.
    pub fn query_object<T: Serialize + ?Sized>(&mut self, name: &str, value: &T, deep: bool) {
        let object = match serde_json::to_value(value) {
            Ok(Value::Object(object)) => object,
            Ok(Value::Null) => return,
            _ => {
                return self.fail(format!(
                    "the query parameter `{name}` must be an object to be spread over the query"
                ));
            }
        };
        for (key, value) in &object {
            let pair_name = if deep {
                format!("{name}[{key}]")
            } else {
                key.clone()
            };
            self.query_spread(&pair_name, value);
        }
    }

    /// Adds `value` under `pair_name`: an object's properties as
    /// `pair_name[key]`, in turn; an array's items repeated; a scalar as
    /// its text.
    fn query_spread(&mut self, pair_name: &str, value: &Value) {
        if let Value::Object(object) = value {
            for (key, value) in object {
                self.query_spread(&format!("{pair_name}[{key}]"), value);
            }
            return;
        }
        for item in items(value).unwrap_or_default() {
            self.query_pair(pair_name, &encode(&item));
        }
    }

    /// Sends `form` as the `multipart/form-data` body.
    pub fn multipart_body(&mut self, form: Multipart) {
        self.multipart_body_as("multipart/form-data", form);
    }

    /// Sends `form` as a body of another multipart media type the document
    /// names (`multipart/related`, `multipart/mixed`): the same parts, in
    /// the document's order, each still named by its `Content-Disposition`,
    /// under `media_type` with the form's boundary.
    pub fn multipart_body_as(&mut self, media_type: &str, form: Multipart) {
        let content_type = format!("{media_type}; boundary={}", form.boundary);
        let mut body = form.body;
        body.extend_from_slice(b"--");
        body.extend_from_slice(form.boundary.as_bytes());
        body.extend_from_slice(b"--\r\n");
        if let Some(problem) = form.problem {
            self.fail(problem);
        }
        self.body_with_content_type(&content_type, body.into());
    }
}

/// A `multipart/form-data` body as it is written, part by part (RFC 7578).
/// Files are sent with their file name (the part's name when they have
/// none) and media type (the document's, else `application/octet-stream`);
/// text values as text parts, arrays as one part per item, objects and
/// other structured values as `application/json` parts.
#[derive(Debug)]
pub struct Multipart {
    boundary: String,
    body: Vec<u8>,
    problem: Option<String>,
}

impl Default for Multipart {
    fn default() -> Self {
        Self::new()
    }
}

impl Multipart {
    /// An empty body with a random boundary.
    pub fn new() -> Self {
        let boundary: String = std::iter::repeat_with(fastrand::alphanumeric)
            .take(32)
            .collect();
        Multipart {
            boundary: format!("----openapi-{boundary}"),
            body: Vec::new(),
            problem: None,
        }
    }

    /// Adds the file `file` as the part `name`; `content_type` is the one
    /// the document gives the part, used when the file says none.
    pub fn file(&mut self, name: &str, file: &File, content_type: Option<&str>) {
        let filename = file.filename.as_deref().unwrap_or(name);
        let content_type = file
            .content_type
            .as_deref()
            .or(content_type.filter(|c| !c.contains(['*', ','])))
            .unwrap_or("application/octet-stream");
        self.part(name, Some(filename), Some(content_type), &file.bytes);
    }

    /// Adds every part of `parts` as it is: a part with a file name as a
    /// file, the others as text (with their media type when they have one).
    pub fn parts(&mut self, parts: &Parts) {
        for part in parts {
            let file = &part.value;
            self.part(
                &part.name,
                file.filename.as_deref(),
                file.content_type.as_deref(),
                &file.bytes,
            );
        }
    }

    /// Adds a value that is text (a scalar or an enum, or an array of them:
    /// one part per item); nothing for `None`. `content_type` is the one
    /// the document gives the part.
    pub fn text<T: Serialize + ?Sized>(
        &mut self,
        name: &str,
        value: &T,
        content_type: Option<&str>,
    ) {
        for item in items(value).unwrap_or_default() {
            self.part(name, None, content_type, item.as_bytes());
        }
    }

    /// Adds a structured value (a union, an object, an array of objects):
    /// as text when it is a string, number or boolean, else as JSON
    /// (`application/json` unless the document gives the part another media
    /// type); nothing for `None`.
    pub fn json<T: Serialize + ?Sized>(
        &mut self,
        name: &str,
        value: &T,
        content_type: Option<&str>,
    ) {
        match serde_json::to_value(value) {
            Ok(Value::Null) => {}
            Ok(Value::String(text)) => self.part(name, None, content_type, text.as_bytes()),
            Ok(scalar @ (Value::Number(_) | Value::Bool(_))) => {
                self.part(name, None, content_type, scalar.to_string().as_bytes());
            }
            Ok(structured) => {
                let content_type = content_type.unwrap_or("application/json");
                self.part(
                    name,
                    None,
                    Some(content_type),
                    structured.to_string().as_bytes(),
                );
            }
            Err(error) => {
                self.problem.get_or_insert_with(|| {
                    format!("the part `{name}` cannot be written as JSON: {error}")
                });
            }
        }
    }

    fn part(
        &mut self,
        name: &str,
        filename: Option<&str>,
        content_type: Option<&str>,
        bytes: &[u8],
    ) {
        let body = &mut self.body;
        body.extend_from_slice(b"--");
        body.extend_from_slice(self.boundary.as_bytes());
        body.extend_from_slice(b"\r\nContent-Disposition: form-data; name=\"");
        body.extend_from_slice(quoted(name).as_bytes());
        body.push(b'"');
        if let Some(filename) = filename {
            body.extend_from_slice(b"; filename=\"");
            body.extend_from_slice(quoted(filename).as_bytes());
            body.push(b'"');
        }
        body.extend_from_slice(b"\r\n");
        if let Some(content_type) = content_type.filter(|c| is_header_text(c)) {
            body.extend_from_slice(b"Content-Type: ");
            body.extend_from_slice(content_type.as_bytes());
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(b"\r\n");
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
}

/// A name or file name inside a quoted `Content-Disposition` parameter:
/// `"`, `\` and line breaks percent-encoded, as browsers write them
/// (WHATWG HTML's multipart/form-data encoding).
fn quoted(text: &str) -> String {
    text.replace('"', "%22")
        .replace('\\', "%5C")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn is_header_text(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_files_text_and_json_parts() {
        let mut form = Multipart::new();
        form.file(
            "upload",
            &File::new(&b"\x00\x01"[..]).with_filename("a \"b\".bin"),
            None,
        );
        form.text("tags", &["x", "y"], None);
        form.text("missing", &None::<String>, None);
        form.json("meta", &serde_json::json!({"k": 1}), None);
        let boundary = form.boundary.clone();
        let text = String::from_utf8_lossy(&form.body).into_owned();
        assert!(text.starts_with(&format!("--{boundary}\r\n")));
        assert!(text.contains(
            "Content-Disposition: form-data; name=\"upload\"; filename=\"a %22b%22.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n\u{0}\u{1}\r\n"
        ));
        assert_eq!(text.matches("name=\"tags\"").count(), 2);
        assert!(!text.contains("missing"));
        assert!(text.contains("Content-Type: application/json\r\n\r\n{\"k\":1}\r\n"));
    }

    #[test]
    fn a_files_media_type_is_its_own_else_the_documents_unless_that_is_a_range() {
        let written = |file: File, documented: Option<&str>| {
            let mut form = Multipart::new();
            form.file("f", &file, documented);
            let text = String::from_utf8_lossy(&form.body).into_owned();
            let start = text.find("Content-Type: ").expect("a media type") + 14;
            text[start..text[start..].find("\r\n").unwrap() + start].to_owned()
        };
        let png = || File::new(&b"PNG"[..]);
        assert_eq!(written(png(), Some("image/png")), "image/png");
        assert_eq!(written(png(), Some("image/*")), "application/octet-stream");
        assert_eq!(
            written(png(), Some("image/png, image/gif")),
            "application/octet-stream"
        );
        assert_eq!(
            written(png().with_content_type("image/gif"), Some("image/png")),
            "image/gif"
        );
    }

    #[test]
    fn a_media_type_that_cannot_be_a_header_is_left_out() {
        let content_type = |media_type: &str| {
            let mut form = Multipart::new();
            form.text("note", &"n", Some(media_type));
            let text = String::from_utf8_lossy(&form.body).into_owned();
            text.split("\r\n")
                .find_map(|line| line.strip_prefix("Content-Type: "))
                .map(str::to_owned)
        };
        assert_eq!(content_type("text/plain").as_deref(), Some("text/plain"));
        assert_eq!(
            content_type("text/plain;\tcharset=utf-8").as_deref(),
            Some("text/plain;\tcharset=utf-8")
        );
        assert_eq!(content_type(""), None);
        assert_eq!(content_type("text/plain\r\nX-Injected: 1"), None);
    }

    #[test]
    fn writes_parts_as_they_are() {
        let mut form = Multipart::new();
        form.parts(
            &Parts::new()
                .with_text("columns", "summary")
                .with_file("scan", File::new(&b"PNG"[..]).with_filename("a.png")),
        );
        let text = String::from_utf8_lossy(&form.body).into_owned();
        assert!(
            text.contains("name=\"columns\"\r\n\r\nsummary\r\n"),
            "a text part has no media type: {text}"
        );
        assert!(text.contains("name=\"scan\"; filename=\"a.png\"\r\n\r\nPNG\r\n"));
    }
}
