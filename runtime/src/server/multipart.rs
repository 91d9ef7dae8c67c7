//! Multipart request bodies (`multipart/form-data`, RFC 7578, and the
//! other `multipart/…` types a document names, whose parts are named the
//! same way): the body, already read up to the body limit, split into
//! parts; the parts that are not files decoded into the models' type of
//! the body's schema and checked like a JSON body, the files set aside
//! with their file name and media type.
//!
//! Every problem goes into one 400: a part that is not text, a text part
//! larger than the part limit, a file given twice, and each way the other
//! parts break the schema (a required part missing, a value of the wrong
//! type, a part the schema does not allow when it allows no others). Parts
//! the schema does not name are otherwise ignored, as JSON bodies ignore
//! unknown properties.

use axum::body::Bytes;
use http::HeaderMap;
use http::header::CONTENT_TYPE;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub use crate::file::{File, Part, Parts};
use crate::models::validation::{Path, Report, ValidateJson};
use crate::server::body::{FormField, insert_typed};
use crate::server::error::ApiError;

/// A part of the body's schema that is files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FilePart {
    /// The part's name (the property).
    pub name: &'static str,
    /// Whether it may be given several times (an array of files).
    pub many: bool,
}

/// The files of a multipart body, by part name, in the order they came.
#[derive(Debug, Default)]
pub struct Files(Vec<(String, File)>);

impl Files {
    /// The file of the part `name`, when it was given.
    pub fn optional(&mut self, name: &str) -> Option<File> {
        let index = self.0.iter().position(|(part, _)| part == name)?;
        Some(self.0.remove(index).1)
    }

    /// The file of the required part `name` (decoding has reported a
    /// missing one already; this is 400 `Required` all the same).
    pub fn required(&mut self, name: &'static str) -> Result<File, ApiError> {
        self.optional(name).ok_or_else(|| {
            let mut report = Report::new();
            report.push(&Path::new(name), "is required", "Required");
            ApiError::validation(report)
        })
    }

    /// Every file of the part `name`.
    pub fn many(&mut self, name: &str) -> Vec<File> {
        let (taken, kept) = std::mem::take(&mut self.0)
            .into_iter()
            .partition(|(part, _)| part == name);
        self.0 = kept;
        taken.into_iter().map(|(_, file)| file).collect()
    }
}

/// One part as it came.
struct RawPart {
    name: Option<String>,
    filename: Option<String>,
    content_type: Option<String>,
    bytes: Bytes,
}

/// Decodes a `multipart/form-data` body: the parts that are not files into
/// `T` (typed by `fields`, then checked as a JSON body of that object
/// would be), the parts `files` names set aside. A text part may be at most
/// `part_limit` bytes. 400 listing every problem; 400 `InvalidBody` when
/// the body is not multipart at all.
pub fn decode<T>(
    bytes: Bytes,
    headers: &HeaderMap,
    fields: &[FormField],
    files: &[FilePart],
    part_limit: usize,
) -> Result<(T, Files), ApiError>
where
    T: DeserializeOwned + ValidateJson,
{
    let (value, found) = decode_value(
        bytes,
        headers,
        fields,
        files,
        part_limit,
        |value, report| {
            T::validate_json(value, &mut Path::new("body"), report);
        },
    )?;
    let decoded = serde_json::from_value::<T>(value).map_err(|error| {
        ApiError::unreadable_body(format!("does not match the schema: {error}"), "InvalidType")
    })?;
    Ok((decoded, found))
}

/// [`decode`] into the JSON value of the parts that are not files (a file
/// part an empty string), which `check` checks with the parts' own
/// problems in one report: for a reader that knows the schema only at run
/// time, as a mock of the document does.
pub fn decode_value(
    bytes: Bytes,
    headers: &HeaderMap,
    fields: &[FormField],
    files: &[FilePart],
    part_limit: usize,
    check: impl FnOnce(&Value, &mut Report),
) -> Result<(Value, Files), ApiError> {
    let parts = split_body(&bytes, headers)?;
    let mut report = Report::new();
    let mut object = Map::new();
    let mut found = Files::default();
    for part in parts {
        let Some(name) = part.name else {
            report.push(
                &Path::new("body"),
                "has a part without a name",
                "InvalidBody",
            );
            continue;
        };
        if let Some(file_part) = files.iter().find(|f| f.name == name) {
            if !file_part.many && found.0.iter().any(|(given, _)| *given == name) {
                report.push(
                    &Path::new(file_part.name),
                    "is given more than once",
                    "TooMany",
                );
                continue;
            }
            // A placeholder, so that the schema's check sees the part.
            let placeholder = Value::String(String::new());
            if file_part.many {
                let entry = object
                    .entry(name.clone())
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(items) = entry {
                    items.push(placeholder);
                }
            } else {
                object.insert(name.clone(), placeholder);
            }
            found.0.push((
                name,
                File {
                    bytes: part.bytes,
                    filename: part.filename,
                    content_type: part.content_type,
                },
            ));
            continue;
        }
        if part.bytes.len() > part_limit {
            let mut path = Path::new("body");
            path.push_key(&name);
            report.push(
                &path,
                format!("is larger than {part_limit} bytes"),
                "TooLarge",
            );
            continue;
        }
        match String::from_utf8(Vec::from(part.bytes)) {
            Ok(text) => insert_typed(&mut object, fields, name, text),
            Err(_) => {
                let mut path = Path::new("body");
                path.push_key(&name);
                report.push(&path, "is not valid UTF-8 text", "InvalidFormat");
            }
        }
    }
    let value = Value::Object(object);
    check(&value, &mut report);
    if !report.is_empty() {
        return Err(ApiError::validation(report));
    }
    Ok((value, found))
}

/// Reads a `multipart/form-data` body whose document does not list its
/// parts (its schema is not an object with properties): every part as it
/// came, in order, neither typed nor checked; files are bounded by the body
/// limit only. 400 `InvalidBody` when the body is not multipart, or a part
/// has no name.
pub fn parts(bytes: Bytes, headers: &HeaderMap) -> Result<Parts, ApiError> {
    let mut parts = Vec::new();
    for part in split_body(&bytes, headers)? {
        let Some(name) = part.name else {
            let mut report = Report::new();
            report.push(
                &Path::new("body"),
                "has a part without a name",
                "InvalidBody",
            );
            return Err(ApiError::validation(report));
        };
        parts.push(Part {
            name,
            value: File {
                bytes: part.bytes,
                filename: part.filename,
                content_type: part.content_type,
            },
        });
    }
    Ok(Parts(parts))
}

/// The parts of a body whose `Content-Type` names their boundary.
fn split_body(bytes: &Bytes, headers: &HeaderMap) -> Result<Vec<RawPart>, ApiError> {
    let boundary = headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(boundary)
        .ok_or_else(|| {
            ApiError::unreadable_body(
                "has no multipart boundary in its Content-Type",
                "InvalidBody",
            )
        })?;
    split(bytes, &boundary)
        .ok_or_else(|| ApiError::unreadable_body("is not a complete multipart body", "InvalidBody"))
}

/// The `boundary` parameter of a `multipart/…` media type.
fn boundary(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|parameter| {
        let (key, value) = parameter.split_once('=')?;
        if !key.trim().eq_ignore_ascii_case("boundary") {
            return None;
        }
        let value = value.trim().trim_matches('"');
        (!value.is_empty()).then(|| value.to_owned())
    })
}

/// The parts of `body` between `--boundary` lines; `None` when the closing
/// `--boundary--` is missing. Line breaks may be CRLF or LF.
fn split(body: &Bytes, boundary: &str) -> Option<Vec<RawPart>> {
    let delimiter = format!("--{boundary}");
    let delimiter = delimiter.as_bytes();
    // The first delimiter starts the body or a line (the preamble is ignored).
    let mut at = if body.starts_with(delimiter) {
        0
    } else {
        find(body, 0, &[b"\n", delimiter].concat())? + 1
    };
    let mut parts = Vec::new();
    loop {
        at += delimiter.len();
        if body[at..].starts_with(b"--") {
            return Some(parts);
        }
        // The rest of the delimiter's line (transport padding) and its break.
        let line_end = find(body, at, b"\n")?;
        let start = line_end + 1;
        let next = find(body, start, &[b"\n", delimiter].concat())?;
        // The part ends before the line break that precedes the delimiter.
        // (`next - 1` is at least `line_end`, a `\n`, when the part is empty.)
        let end = if body[next - 1] == b'\r' {
            next - 1
        } else {
            next
        };
        parts.push(part(body.slice(start..end.max(start))));
        at = next + 1;
    }
}

/// A part: its headers, up to an empty line, then its bytes.
fn part(raw: Bytes) -> RawPart {
    let (head_end, body_start) = match (find(&raw, 0, b"\r\n\r\n"), find(&raw, 0, b"\n\n")) {
        (Some(crlf), Some(lf)) if lf < crlf => (lf, lf + 2),
        (Some(crlf), _) => (crlf, crlf + 4),
        (None, Some(lf)) => (lf, lf + 2),
        // Headers only (an empty value), or a part that starts with its break.
        (None, None) if raw.starts_with(b"\r\n") => (0, 2),
        (None, None) => (raw.len(), raw.len()),
    };
    let head = String::from_utf8_lossy(&raw[..head_end]).into_owned();
    let mut part = RawPart {
        name: None,
        filename: None,
        content_type: None,
        bytes: raw.slice(body_start.min(raw.len())..),
    };
    for line in head.lines() {
        let Some((header, value)) = line.split_once(':') else {
            continue;
        };
        let header = header.trim();
        if header.eq_ignore_ascii_case("content-disposition") {
            part.name = disposition_parameter(value, "name");
            part.filename = disposition_parameter(value, "filename*")
                .and_then(|encoded| extended_value(&encoded))
                .or_else(|| disposition_parameter(value, "filename"));
        } else if header.eq_ignore_ascii_case("content-type") {
            part.content_type = Some(value.trim().to_owned());
        }
    }
    part
}

/// The parameter `key` of a `Content-Disposition` value, unquoted (`\x`
/// escapes and the browsers' `%22` for `"` undone).
fn disposition_parameter(value: &str, key: &str) -> Option<String> {
    let mut rest = value;
    while let Some(semicolon) = rest.find(';') {
        rest = rest[semicolon + 1..].trim_start();
        let (name, after) = rest.split_once('=')?;
        let after = after.trim_start();
        let (parameter, remaining) = if let Some(quoted) = after.strip_prefix('"') {
            let mut text = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            text.push(escaped);
                        }
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => text.push(c),
                }
            }
            (text.replace("%22", "\""), &quoted[end.min(quoted.len())..])
        } else {
            let end = after.find(';').unwrap_or(after.len());
            (after[..end].trim().to_owned(), &after[end..])
        };
        if name.trim().eq_ignore_ascii_case(key) {
            return Some(parameter);
        }
        rest = remaining;
    }
    None
}

/// An RFC 8187 `charset'language'percent-encoded` value, for UTF-8.
fn extended_value(encoded: &str) -> Option<String> {
    let mut pieces = encoded.splitn(3, '\'');
    let charset = pieces.next()?;
    let _language = pieces.next()?;
    let text = pieces.next()?;
    charset.eq_ignore_ascii_case("utf-8").then(|| {
        percent_encoding::percent_decode_str(text)
            .decode_utf8_lossy()
            .into_owned()
    })
}

/// Where `needle` (never empty) first is in `haystack` from `from` on.
fn find(haystack: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    debug_assert!(!needle.is_empty(), "a window of no bytes");
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|position| from + position)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::body::FormKind;

    /// Any object with a required `title`.
    #[derive(Debug)]
    struct Titled;

    impl ValidateJson for Titled {
        fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
            if value.get("title").is_none() {
                path.push_key("title");
                report.push(path, "is required", "Required");
                path.pop();
            }
            if value.get("count").is_some_and(|c| !c.is_i64()) {
                path.push_key("count");
                report.push(path, "must be an integer", "InvalidType");
                path.pop();
            }
        }
    }

    impl<'de> serde::Deserialize<'de> for Titled {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            Value::deserialize(d).map(|_| Titled)
        }
    }

    const FIELDS: &[FormField] = &[FormField {
        name: "count",
        kind: FormKind::Integer,
        list: false,
    }];
    const FILES: &[FilePart] = &[FilePart {
        name: "upload",
        many: false,
    }];

    fn headers() -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            CONTENT_TYPE,
            "multipart/form-data; boundary=\"XyZ\"".parse().unwrap(),
        );
        headers
    }

    fn decode_text(body: &str) -> Result<(Titled, Files), ApiError> {
        decode(
            Bytes::from(body.as_bytes().to_vec()),
            &headers(),
            FIELDS,
            FILES,
            1024,
        )
    }

    #[test]
    fn splits_files_from_fields() {
        let body = "preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHello\r\n\
                    --XyZ\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"a \\\"q\\\".bin\"\r\n\
                    Content-Type: image/png\r\n\r\n\x00\r\n\x01\r\n--XyZ--\r\n";
        let (_, mut files) = decode_text(body).unwrap();
        let file = files.required("upload").unwrap();
        assert_eq!(&file.bytes[..], b"\x00\r\n\x01");
        assert_eq!(file.filename.as_deref(), Some("a \"q\".bin"));
        assert_eq!(file.content_type.as_deref(), Some("image/png"));
    }

    #[test]
    fn reports_every_problem_at_once() {
        let body = "--XyZ\r\nContent-Disposition: form-data; name=\"count\"\r\n\r\nmany\r\n\
                    --XyZ\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"a\"\r\n\r\n1\r\n\
                    --XyZ\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"b\"\r\n\r\n2\r\n\
                    --XyZ--";
        let error = decode_text(body).unwrap_err();
        let properties: Vec<&str> = error
            .problems()
            .iter()
            .map(|p| p.property.as_str())
            .collect();
        assert_eq!(properties, ["upload", "title", "count"]);
    }

    #[test]
    fn hands_over_unlisted_parts_as_they_came() {
        let body = "--XyZ\r\nContent-Disposition: form-data; name=\"columns\"\r\n\r\nsummary\r\n\
                    --XyZ\r\nContent-Disposition: form-data; name=\"columns\"\r\n\r\nstatus\r\n\
                    --XyZ\r\nContent-Disposition: form-data; name=\"scan\"; filename=\"a.png\"\r\n\
                    Content-Type: image/png\r\n\r\nPNG\r\n--XyZ--\r\n";
        let parts = parts(Bytes::from(body), &headers()).unwrap();
        let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["columns", "columns", "scan"]);
        assert_eq!(parts.0[1].value.bytes, "status");
        let scan = parts.get("scan").unwrap();
        assert_eq!(scan.filename.as_deref(), Some("a.png"));
        assert_eq!(scan.content_type.as_deref(), Some("image/png"));

        let unnamed = "--XyZ\r\nContent-Disposition: form-data\r\n\r\nx\r\n--XyZ--";
        let error = super::parts(Bytes::from(unnamed), &headers()).unwrap_err();
        assert_eq!(error.problems()[0].error_code, "InvalidBody");
        let error = super::parts(Bytes::from("x"), &HeaderMap::new()).unwrap_err();
        assert_eq!(error.problems()[0].error_code, "InvalidBody");
    }

    const MANY: &[FilePart] = &[FilePart {
        name: "scan",
        many: true,
    }];

    #[test]
    fn every_file_of_a_part_of_many_is_taken_and_the_others_kept() {
        let body = "--XyZ\r\nContent-Disposition: form-data; name=\"scan\"; filename=\"a\"\r\n\r\n1\r\n\
                    --XyZ\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"c\"\r\n\r\n3\r\n\
                    --XyZ\r\nContent-Disposition: form-data; name=\"scan\"; filename=\"b\"\r\n\r\n2\r\n--XyZ--";
        let files = [MANY[0], FILES[0]];
        let (_, mut found) =
            decode_value(Bytes::from(body), &headers(), &[], &files, 1024, |_, _| {}).unwrap();
        let scans: Vec<Option<String>> =
            found.many("scan").into_iter().map(|f| f.filename).collect();
        assert_eq!(scans, [Some("a".to_owned()), Some("b".to_owned())]);
        assert!(found.many("scan").is_empty(), "taken");
        assert_eq!(
            found.required("upload").unwrap().filename.as_deref(),
            Some("c")
        );
    }

    #[test]
    fn a_text_part_may_be_as_large_as_the_limit_and_no_larger() {
        let body = |title: &str| {
            format!(
                "--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n{title}\r\n--XyZ--"
            )
        };
        let decoded = |title: &str| {
            decode_value(Bytes::from(body(title)), &headers(), &[], &[], 5, |_, _| {})
                .map(|(value, _)| value)
        };
        assert_eq!(decoded("Hello").unwrap()["title"], "Hello");
        let error = decoded("Hello!").unwrap_err();
        assert_eq!(error.problems()[0].error_code, "TooLarge");
        assert_eq!(error.problems()[0].message, "is larger than 5 bytes");
    }

    /// The parts' names and bytes, as `split` found them.
    fn split_text(body: &str) -> Option<Vec<(Option<String>, String)>> {
        let parts = split(&Bytes::from(body.to_owned()), "XyZ")?;
        let found = parts
            .into_iter()
            .map(|p| (p.name, String::from_utf8(p.bytes.to_vec()).unwrap()));
        Some(found.collect())
    }

    fn named(name: &str, bytes: &str) -> (Option<String>, String) {
        (Some(name.to_owned()), bytes.to_owned())
    }

    #[test]
    fn parts_split_at_crlf_or_lf_line_breaks_after_any_preamble() {
        let crlf = "pre\r\n--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--XyZ\r\n\
                    Content-Disposition: form-data; name=b\r\n\r\n\r\n--XyZ--";
        assert_eq!(
            split_text(crlf),
            Some(vec![named("a", "x"), named("b", "")])
        );
        let lf = "--XyZ\nContent-Disposition: form-data; name=\"a\"\n\nline 1\nline 2\n--XyZ  \n\
                  Content-Disposition: form-data; name=\"b\"\n\ny\n--XyZ--";
        assert_eq!(
            split_text(lf),
            Some(vec![named("a", "line 1\nline 2"), named("b", "y")])
        );
        // A part's bytes may hold a CRLF and LF pair of their own.
        let mixed = "--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\nx\n\ny\r\n--XyZ--";
        assert_eq!(split_text(mixed), Some(vec![named("a", "x\n\ny")]));
        let lf_head = "--XyZ\r\nContent-Disposition: form-data; name=a\n\nx\r\n\r\ny\r\n--XyZ--";
        assert_eq!(split_text(lf_head), Some(vec![named("a", "x\r\n\r\ny")]));
        // A part with no headers is its bytes after the first break.
        assert_eq!(
            split_text("--XyZ\r\n\r\nz\r\n--XyZ--"),
            Some(vec![(None, "z".to_owned())])
        );
        assert_eq!(
            split_text("--XyZ\r\nno-break\r\n--XyZ--"),
            Some(vec![(None, String::new())])
        );
        assert_eq!(
            split_text("pre--XyZ\r\n--XyZ"),
            None,
            "no closing delimiter"
        );
        assert_eq!(split_text("pre\r\n--XyZ--"), Some(Vec::new()), "no parts");
    }

    #[test]
    fn a_file_name_may_be_extended_utf8_and_parameters_follow_any_spacing() {
        let head = "--XyZ\r\nContent-Disposition: form-data;name=\"up\";  filename*=UTF-8''%C3%A9t%C3%A9.txt; filename=\"ete.txt\"\r\n\r\nx\r\n--XyZ--";
        let parts = split(&Bytes::from(head), "XyZ").unwrap();
        assert_eq!(parts[0].name.as_deref(), Some("up"));
        assert_eq!(parts[0].filename.as_deref(), Some("été.txt"));
        assert_eq!(extended_value("ISO-8859-1''caf%E9"), None, "UTF-8 only");
        assert_eq!(
            disposition_parameter("form-data; name=plain; x=1", "name").as_deref(),
            Some("plain")
        );
        let quoted = "form-data; name=\"a;\"; filename=\"x\"";
        assert_eq!(
            disposition_parameter(quoted, "filename").as_deref(),
            Some("x")
        );
    }

    #[test]
    fn refuses_a_body_without_its_closing_delimiter() {
        let body = "--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHello";
        let error = decode_text(body).unwrap_err();
        assert_eq!(error.problems()[0].error_code, "InvalidBody");
    }
}
