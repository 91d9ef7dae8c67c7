//! Reading parameters: from the path, the query string (by style, or whole
//! as one value), headers and cookies, typed with [`FromParam`]. A missing
//! required parameter or a value that does not parse is added to a
//! [`Report`] under the parameter's name, so that one answer lists every
//! problem.

use std::borrow::Cow;

use http::HeaderMap;
use percent_encoding::percent_decode_str;
use serde::de::DeserializeOwned;

use crate::models::dynamic_query::{DynamicQuery, Property};
pub use crate::models::param::{FromParam, ParamError};
use crate::models::validation::{self, Path, Report, Validate, ValidateJson};
pub use crate::template::PathStyle;
use crate::template::fixed_text;

/// The error code of a dynamic query that does not parse.
pub const INVALID_DYNAMIC_QUERY: &str = "InvalidDynamicQuery";

/// Parses a parameter given once: `None`, with a problem under `name`, when
/// it does not parse, or when it is missing and `required`.
pub fn value<T: FromParam>(
    raw: Option<Cow<'_, str>>,
    name: &'static str,
    required: bool,
    report: &mut Report,
) -> Option<T> {
    match raw {
        Some(raw) => match T::from_param(raw) {
            Ok(value) => Some(value),
            Err(error) => {
                report.push(&Path::new(name), error.message, error.code);
                None
            }
        },
        None => missing(name, required, report),
    }
}

/// Parses a list given as one value whose items are separated by
/// `delimiter` (`simple` and non-exploded `form` style: `,`;
/// `spaceDelimited`: ` `; `pipeDelimited`: `|`). An empty value is an empty list.
pub fn list<T: FromParam>(
    raw: Option<Cow<'_, str>>,
    delimiter: char,
    name: &'static str,
    required: bool,
    report: &mut Report,
) -> Option<Vec<T>> {
    match raw {
        Some(raw) if raw.is_empty() => Some(Vec::new()),
        Some(raw) => items(raw.split(delimiter).map(Cow::Borrowed), name, report),
        None => missing(name, required, report),
    }
}

/// Parses a list given as repeated values (exploded `form` style:
/// `name=a&name=b`); none given is a missing parameter.
pub fn exploded<T: FromParam>(
    raw: Vec<Cow<'_, str>>,
    name: &'static str,
    required: bool,
    report: &mut Report,
) -> Option<Vec<T>> {
    if raw.is_empty() {
        return missing(name, required, report);
    }
    items(raw.into_iter(), name, report)
}

fn items<'a, T: FromParam>(
    raw: impl Iterator<Item = Cow<'a, str>>,
    name: &'static str,
    report: &mut Report,
) -> Option<Vec<T>> {
    let mut values = Vec::new();
    let mut valid = true;
    for (index, item) in raw.enumerate() {
        match T::from_param(item) {
            Ok(value) => values.push(value),
            Err(error) => {
                valid = false;
                let mut path = Path::new(name);
                path.push_key(name);
                path.push_index(index);
                report.push(&path, error.message, error.code);
            }
        }
    }
    valid.then_some(values)
}

fn missing<T>(name: &'static str, required: bool, report: &mut Report) -> Option<T> {
    if required {
        report.push(&Path::new(name), "is required", "Required");
    }
    None
}

/// Parses the text of a parameter with an `x-dynamic-query` extension into
/// its query type: `None`, with an `InvalidDynamicQuery` problem under
/// `name` naming what is wrong, when it does not parse (an unknown property
/// or op, a value that does not fit its property's type, an unbalanced
/// triplet, paging that is not an integer). A text its schema's checks
/// already refused (too long, say) is not parsed as well: one problem per
/// parameter, as for the other parameters.
pub fn dynamic_query<P: Property>(
    text: Option<String>,
    name: &'static str,
    report: &mut Report,
) -> Option<DynamicQuery<P>> {
    let text = text?;
    if report.problems().iter().any(|p| p.property == name) {
        return None;
    }
    match DynamicQuery::parse(&text) {
        Ok(query) => Some(query),
        Err(error) => {
            report.push(&Path::new(name), error.message(), INVALID_DYNAMIC_QUERY);
            None
        }
    }
}

// ---- where values are --------------------------------------------------------------

/// The percent-decoded text of the `which`th of the parameters that share
/// the `index`th segment of `path`, where `fixed` is the template's text
/// before the first, between each two and after the last
/// (`{name}-{version}.zip`: `["", "-", ".zip"]`).
///
/// Each parameter takes the longest text that leaves the ones after it
/// their fixed text, as `(.*)` does in a regular expression:
/// `my-tool-1.2.zip` is `my-tool` and `1.2`. The segment is split before it
/// is decoded, so a separator a client percent-encoded (`%2D`) stays in its
/// parameter. `None` for a segment that is not there, does not hold the
/// fixed text, or is not UTF-8 once decoded.
fn path_segment_part<'a>(
    path: &'a str,
    index: usize,
    fixed: &[&str],
    which: usize,
) -> Option<Cow<'a, str>> {
    let part = path_segment_raw(path, index, fixed, which)?;
    percent_decode_str(part).decode_utf8().ok()
}

/// [`path_segment_part`] before percent-decoding.
fn path_segment_raw<'a>(
    path: &'a str,
    index: usize,
    fixed: &[&str],
    which: usize,
) -> Option<&'a str> {
    let segment = path.split('/').nth(index)?;
    split_segment(segment, fixed)?.get(which).copied()
}

/// Whether `path` is one of the paths `template` describes: as many
/// segments, the fixed ones equal, and each one with parameters holding
/// the template's text around and between them (`/files/{name}.json`
/// takes `/files/a.json`, not `/files/a`).
///
/// The router matches a segment with text after its parameter, or with
/// several parameters, as if one parameter filled it, so several templates
/// can share a route (`/files/{name}.json` and `/files/{id}`); their
/// handlers are told apart with this.
pub fn path_fits(path: &str, template: &str) -> bool {
    let mut segments = path.split('/');
    for pattern in template.split('/') {
        let Some(segment) = segments.next() else {
            return false;
        };
        let fits = if pattern.contains('{') {
            split_segment(segment, &fixed_text(pattern)).is_some()
        } else {
            segment == pattern
        };
        if !fits {
            return false;
        }
    }
    segments.next().is_none()
}

/// Splits `segment` at the template's `fixed` text (see
/// [`path_segment_part`]): one part per parameter, or `None` when the
/// segment does not hold that text.
fn split_segment<'a>(segment: &'a str, fixed: &[&str]) -> Option<Vec<&'a str>> {
    let (first, rest) = fixed.split_first()?;
    let (last, between) = rest.split_last()?;
    let mut text = segment.strip_prefix(first)?.strip_suffix(last)?;
    let mut parts = Vec::with_capacity(between.len() + 1);
    // From the right: the earlier parameters take the longest text.
    for separator in between.iter().rev() {
        let at = text.rfind(separator)?;
        parts.push(&text[at + separator.len()..]);
        text = &text[..at];
    }
    parts.push(text);
    parts.reverse();
    Some(parts)
}

/// Parses a path parameter (always required); a segment that is not UTF-8
/// once decoded is an `InvalidType` problem.
pub fn path<T: FromParam>(
    path: &str,
    index: usize,
    prefix: &str,
    suffix: &str,
    name: &'static str,
    report: &mut Report,
) -> Option<T> {
    path_part(path, index, &[prefix, suffix], 0, name, report)
}

/// Parses a list path parameter (`simple` style, comma-separated).
pub fn path_list<T: FromParam>(
    path: &str,
    index: usize,
    prefix: &str,
    suffix: &str,
    name: &'static str,
    report: &mut Report,
) -> Option<Vec<T>> {
    path_part_list(path, index, &[prefix, suffix], 0, name, report)
}

/// Parses a path parameter that shares the `index`th segment of `path`
/// with others: the `which`th part, where `fixed` is the template's text
/// around and between them (`{name}-{version}.zip`: `["", "-", ".zip"]`).
/// Each part takes the longest text that leaves the later ones their fixed
/// text, split before decoding; a part that is not UTF-8 once decoded is an
/// `InvalidType` problem.
pub fn path_part<T: FromParam>(
    path: &str,
    index: usize,
    fixed: &[&str],
    which: usize,
    name: &'static str,
    report: &mut Report,
) -> Option<T> {
    match path_segment_part(path, index, fixed, which) {
        Some(raw) => value(Some(raw), name, true, report),
        None => {
            report.push(&Path::new(name), "is not valid UTF-8 text", "InvalidType");
            None
        }
    }
}

/// Parses a path parameter of a segment where two parameters have no text
/// between them (`{id}{ext}`), told apart by the values the one beside
/// them may take: `valued` is that parameter (of the segment's, counting
/// from 0) and its values. The longest value the segment holds in that
/// place is taken, as if it were fixed text (`a.json.json` is `a.json` and
/// `.json`). A segment that holds none is an `InvalidFormat` problem.
pub fn path_part_by_values<T: FromParam>(
    path: &str,
    index: usize,
    fixed: &[&str],
    which: usize,
    (valued, values): (usize, &[&str]),
    name: &'static str,
    report: &mut Report,
) -> Option<T> {
    let segment = path.split('/').nth(index).unwrap_or_default();
    // The parameter with values, as fixed text: its place in the parts
    // of the others.
    let at = if which > valued { which - 1 } else { which };
    if let (Some(before), Some(after)) = (fixed.get(valued), fixed.get(valued + 1)) {
        let mut ordered = values.to_vec();
        ordered.sort_by_key(|value| std::cmp::Reverse(value.len()));
        for text in ordered {
            let joined = format!("{before}{text}{after}");
            let mut merged: Vec<&str> = fixed[..valued].to_vec();
            merged.push(&joined);
            merged.extend_from_slice(&fixed[valued + 2..]);
            let Some(parts) = split_segment(segment, &merged) else {
                continue;
            };
            let raw = if which == valued {
                Some(Cow::Borrowed(text))
            } else {
                parts
                    .get(at)
                    .and_then(|part| percent_decode_str(part).decode_utf8().ok())
            };
            let Some(raw) = raw else {
                report.push(&Path::new(name), "is not valid UTF-8 text", "InvalidType");
                return None;
            };
            return value(Some(raw), name, true, report);
        }
    }
    report.push(
        &Path::new(name),
        format!("cannot be told apart: the path holds none of {values:?} beside it"),
        "InvalidFormat",
    );
    None
}

/// Parses a list path parameter (`simple` style, comma-separated) that
/// shares its segment with others (as [`path_part`] finds it).
pub fn path_part_list<T: FromParam>(
    path: &str,
    index: usize,
    fixed: &[&str],
    which: usize,
    name: &'static str,
    report: &mut Report,
) -> Option<Vec<T>> {
    match path_segment_part(path, index, fixed, which) {
        Some(raw) => list(Some(raw), ',', name, true, report),
        None => {
            report.push(&Path::new(name), "is not valid UTF-8 text", "InvalidType");
            None
        }
    }
}

/// Parses a path parameter of `label` or `matrix` style (see
/// [`PathStyle`]) in its part of the segment (as [`path_part`] finds it).
/// Text without the style's lead is an `InvalidFormat` problem.
pub fn path_styled<T: FromParam>(
    path: &str,
    index: usize,
    (fixed, which): (&[&str], usize),
    style: PathStyle,
    name: &'static str,
    report: &mut Report,
) -> Option<T> {
    let raw = path_segment_raw(path, index, fixed, which).unwrap_or_default();
    let Some(text) = styled_value(raw, style, name) else {
        return refuse_lead(style, name, report);
    };
    match decoded(text, name, report) {
        Some(text) => value(Some(text), name, true, report),
        None => None,
    }
}

/// Parses a list path parameter of `label` or `matrix` style, exploded or
/// not (see [`PathStyle`]); no text at all is an empty list.
pub fn path_styled_list<T: FromParam>(
    path: &str,
    index: usize,
    (fixed, which): (&[&str], usize),
    (style, explode): (PathStyle, bool),
    name: &'static str,
    report: &mut Report,
) -> Option<Vec<T>> {
    let raw = path_segment_raw(path, index, fixed, which).unwrap_or_default();
    if raw.is_empty() {
        return Some(Vec::new());
    }
    let Some(parts) = styled_items(raw, style, explode, name) else {
        return refuse_lead(style, name, report);
    };
    let mut texts = Vec::with_capacity(parts.len());
    for part in parts {
        texts.push(decoded(part, name, report)?);
    }
    items(texts.into_iter(), name, report)
}

/// The still-encoded value of `raw` once the style's lead is taken off;
/// `None` when it is missing.
fn styled_value<'a>(raw: &'a str, style: PathStyle, name: &str) -> Option<&'a str> {
    match style {
        PathStyle::Label => raw.strip_prefix('.'),
        PathStyle::Matrix => matrix_value(raw.strip_prefix(';')?, name),
    }
}

/// The value of the matrix pair `name=value` (`name` alone: empty), or
/// `None` when the pair is another parameter's.
fn matrix_value<'a>(pair: &'a str, name: &str) -> Option<&'a str> {
    let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
    (percent_decode_str(key).decode_utf8().ok()? == name).then_some(value)
}

/// The still-encoded items of the list `raw`: split at `,`, or, exploded,
/// at each lead. `None` when a lead is missing.
fn styled_items<'a>(
    raw: &'a str,
    style: PathStyle,
    explode: bool,
    name: &str,
) -> Option<Vec<&'a str>> {
    match (style, explode) {
        (_, false) => Some(styled_value(raw, style, name)?.split(',').collect()),
        (PathStyle::Label, true) => Some(raw.strip_prefix('.')?.split('.').collect()),
        (PathStyle::Matrix, true) => raw
            .strip_prefix(';')?
            .split(';')
            .map(|pair| matrix_value(pair, name))
            .collect(),
    }
}

fn refuse_lead<T>(style: PathStyle, name: &'static str, report: &mut Report) -> Option<T> {
    let lead = match style {
        PathStyle::Label => ".".to_owned(),
        PathStyle::Matrix => format!(";{name}="),
    };
    report.push(
        &Path::new(name),
        format!("does not start with `{lead}`, as its style asks"),
        "InvalidFormat",
    );
    None
}

/// `part` percent-decoded, or an `InvalidType` problem when that is not UTF-8.
fn decoded<'a>(part: &'a str, name: &'static str, report: &mut Report) -> Option<Cow<'a, str>> {
    let text = percent_decode_str(part).decode_utf8().ok();
    if text.is_none() {
        report.push(&Path::new(name), "is not valid UTF-8 text", "InvalidType");
    }
    text
}

/// Whether `query` has the pair `name=value` (`name` with any value when
/// `value` is `None`): how the operations on one path are told apart when
/// their keys carry a query string (Flickr's `/rest?method=flickr.test.echo`).
pub fn query_carries(query: Option<&str>, name: &str, value: Option<&str>) -> bool {
    query_pairs(query).any(|(given, text)| given == name && value.is_none_or(|v| text == v))
}

/// Whether the header `name` (lower-case) is there with `value` (any value
/// when `None`): how the operations on one path are told apart by a header
/// their keys name (DynamoDB's `/#X-Amz-Target=DynamoDB_20120810.GetItem`).
pub fn header_carries(headers: &HeaderMap, name: &'static str, value: Option<&str>) -> bool {
    header_value(headers, name).is_some_and(|given| value.is_none_or(|v| given == v))
}

/// The name-value pairs of a query string (or of a form body), decoded:
/// `+` is a space and `%XX` a byte; text that is not UTF-8 is replaced.
pub fn query_pairs(query: Option<&str>) -> impl Iterator<Item = (Cow<'_, str>, Cow<'_, str>)> {
    query
        .unwrap_or_default()
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode_component(name), decode_component(value))
        })
}

/// The whole query string as one text (OpenAPI 3.2's `in: querystring`),
/// percent-decoded as RFC 3986 decodes a URI, not as a form: `+` is a plus
/// sign (a client writes a space as `%20`); text that is not UTF-8 is
/// replaced. `None` when the request has no query string, or an empty one.
pub fn query_string(query: Option<&str>) -> Option<Cow<'_, str>> {
    query
        .filter(|query| !query.is_empty())
        .map(|query| percent_decode_str(query).decode_utf8_lossy())
}

/// Reads a querystring whose value is JSON (OpenAPI 3.2's `in: querystring`
/// with `application/json` content): the whole query string, percent-decoded
/// as [`query_string`] does, is the value's JSON text, decoded and checked
/// as a JSON body is. `None`, with problems under `name` (`filter.limit`,
/// as a body's are under their pointer), when it is not JSON or breaks the
/// schema, or when it is missing and `required`.
pub fn query_string_json<T>(
    query: Option<&str>,
    name: &'static str,
    required: bool,
    report: &mut Report,
) -> Option<T>
where
    T: DeserializeOwned + Validate + ValidateJson,
{
    let Some(query) = query.filter(|query| !query.is_empty()) else {
        return missing(name, required, report);
    };
    // Bytes, not text: JSON that is not UTF-8 is refused as JSON, not
    // replaced.
    let text: Cow<'_, [u8]> = percent_decode_str(query).into();
    let mut at = Path::new(name);
    at.push_key(name);
    match validation::from_json_slice_at::<T>(&text, &at) {
        Ok(value) => Some(value),
        Err(problems) => {
            for problem in problems.into_problems() {
                report.add(problem);
            }
            None
        }
    }
}

/// Decodes one component of a query string.
pub fn decode_component(raw: &str) -> Cow<'_, str> {
    if raw.contains('+') {
        let spaced = raw.replace('+', " ");
        Cow::Owned(percent_decode_str(&spaced).decode_utf8_lossy().into_owned())
    } else {
        percent_decode_str(raw).decode_utf8_lossy()
    }
}

/// The value of the header `name` (lower-case), when it is there; text that
/// is not UTF-8 is replaced.
pub fn header_value<'a>(headers: &'a HeaderMap, name: &'static str) -> Option<Cow<'a, str>> {
    headers
        .get(name)
        .map(|value| String::from_utf8_lossy(value.as_bytes()))
}

/// Parses a header parameter.
pub fn header<T: FromParam>(
    headers: &HeaderMap,
    name: &'static str,
    wire: &'static str,
    required: bool,
    report: &mut Report,
) -> Option<T> {
    value(header_value(headers, name), wire, required, report)
}

/// Parses a list header parameter (`simple` style: comma-separated, over
/// every occurrence of the header).
pub fn header_list<T: FromParam>(
    headers: &HeaderMap,
    name: &'static str,
    wire: &'static str,
    required: bool,
    report: &mut Report,
) -> Option<Vec<T>> {
    let mut raw = headers.get_all(name).iter().peekable();
    if raw.peek().is_none() {
        return missing(wire, required, report);
    }
    let values = raw
        .map(|value| String::from_utf8_lossy(value.as_bytes()))
        .flat_map(|value| {
            value
                .split(',')
                .map(|item| Cow::Owned(item.trim().to_owned()))
                .collect::<Vec<_>>()
        })
        .filter(|item: &Cow<'_, str>| !item.is_empty());
    items(values, wire, report)
}

/// The value of the cookie `name`, when the request sends it.
pub fn cookie_value<'a>(headers: &'a HeaderMap, name: &str) -> Option<Cow<'a, str>> {
    headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| percent_decode_str(value.trim_matches('"')).decode_utf8_lossy())
}

/// Parses a cookie parameter.
pub fn cookie<T: FromParam>(
    headers: &HeaderMap,
    name: &'static str,
    required: bool,
    report: &mut Report,
) -> Option<T> {
    value(cookie_value(headers, name), name, required, report)
}

/// Parses a list cookie parameter (`form` style: comma-separated).
pub fn cookie_list<T: FromParam>(
    headers: &HeaderMap,
    name: &'static str,
    required: bool,
    report: &mut Report,
) -> Option<Vec<T>> {
    list(cookie_value(headers, name), ',', name, required, report)
}

// ---- credentials -------------------------------------------------------------------

/// The value of the header `name` as a credential: present and not empty.
/// Bytes that are not UTF-8 are kept as U+FFFD: such a credential is wrong
/// (the authentication hook refuses it), not missing.
pub fn header_credential<'a>(headers: &'a HeaderMap, name: &'static str) -> Option<Cow<'a, str>> {
    header_text(headers, name)
}

/// The credential of an `Authorization: <scheme> <credential>` header, when
/// the request uses `scheme` (compared case-insensitively).
pub fn authorization<'a>(headers: &'a HeaderMap, scheme: &str) -> Option<Cow<'a, str>> {
    match header_text(headers, "authorization")? {
        Cow::Borrowed(text) => scheme_credential(text, scheme).map(Cow::Borrowed),
        Cow::Owned(text) => scheme_credential(&text, scheme).map(|c| Cow::Owned(c.to_owned())),
    }
}

/// What follows `scheme` in an `Authorization` value, when not empty.
fn scheme_credential<'t>(text: &'t str, scheme: &str) -> Option<&'t str> {
    let (given, credential) = text.split_once(' ')?;
    let credential = credential.trim();
    (given.eq_ignore_ascii_case(scheme) && !credential.is_empty()).then_some(credential)
}

/// The header's value, trimmed, when present and not empty; bytes that are
/// not UTF-8 become U+FFFD rather than making the header look absent.
fn header_text<'a>(headers: &'a HeaderMap, name: &'static str) -> Option<Cow<'a, str>> {
    let value = headers.get(name)?;
    match String::from_utf8_lossy(value.as_bytes()) {
        Cow::Borrowed(text) => Some(text.trim())
            .filter(|t| !t.is_empty())
            .map(Cow::Borrowed),
        Cow::Owned(text) => Some(text.trim())
            .filter(|t| !t.is_empty())
            .map(|t| Cow::Owned(t.to_owned())),
    }
}

/// The value of the query parameter `name` as a credential, when not empty.
pub fn query_credential<'a>(query: Option<&'a str>, name: &str) -> Option<Cow<'a, str>> {
    query_pairs(query)
        .find(|(key, _)| key == name)
        .map(|(_, value)| value)
        .filter(|value| !value.is_empty())
}

/// The value of the cookie `name` as a credential, when not empty.
pub fn cookie_credential<'a>(headers: &'a HeaderMap, name: &str) -> Option<Cow<'a, str>> {
    cookie_value(headers, name).filter(|value| !value.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    #[test]
    fn a_credential_that_is_not_utf8_is_present_not_missing() {
        let mut headers = HeaderMap::new();
        let value = HeaderValue::from_bytes(b"Bearer lfs_\xff").expect("obs-text is allowed");
        headers.insert("authorization", value);
        assert_eq!(
            header_credential(&headers, "authorization").as_deref(),
            Some("Bearer lfs_\u{fffd}")
        );
        assert_eq!(
            authorization(&headers, "bearer").as_deref(),
            Some("lfs_\u{fffd}")
        );
        headers.insert("authorization", HeaderValue::from_static("  "));
        assert_eq!(header_credential(&headers, "authorization"), None);
    }

    /// The whole query string is the value's JSON text, percent-decoded
    /// (`+` stays a plus sign); its problems are under the parameter's
    /// name, with a pointer into the value, as a body's are.
    #[test]
    fn a_querystring_in_json_is_the_whole_query_decoded_and_checked() {
        let mut report = Report::new();
        let read = query_string_json::<Vec<u32>>(Some("%5B1%2C2%5D"), "ids", true, &mut report);
        assert_eq!(read, Some(vec![1, 2]));
        let plus = query_string_json::<String>(Some("%22a+b%20c%22"), "s", true, &mut report);
        assert_eq!(plus.as_deref(), Some("a+b c"));
        assert!(report.is_empty());
        let wrong = query_string_json::<Vec<u32>>(Some("[1,%22x%22]"), "ids", true, &mut report);
        let not_json = query_string_json::<Vec<u32>>(Some("ids=1"), "other", true, &mut report);
        let missing = query_string_json::<Vec<u32>>(Some(""), "needed", true, &mut report);
        let optional = query_string_json::<Vec<u32>>(None, "maybe", false, &mut report);
        assert_eq!(
            (wrong, not_json, missing, optional),
            (None, None, None, None)
        );
        let problems: Vec<(&str, &str)> = report
            .problems()
            .iter()
            .map(|p| (p.property.as_str(), p.error_code.as_str()))
            .collect();
        assert_eq!(
            problems,
            [
                ("ids[1]", "InvalidType"),
                ("other", "InvalidJson"),
                ("needed", "Required")
            ]
        );
        assert_eq!(query_string(Some("a%20b+c")).as_deref(), Some("a b+c"));
        assert_eq!(query_string(Some("")), None);
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Listing {
        Name,
    }

    impl Property for Listing {
        const ALL: &'static [Self] = &[Listing::Name];
        const MAX_COUNT: u32 = 10;
        const DEFAULT_COUNT: u32 = 10;
        const DEFAULT_SORT: &'static [Self] = &[];

        fn name(self) -> &'static str {
            "name"
        }

        fn kind(self) -> crate::models::dynamic_query::ValueKind {
            crate::models::dynamic_query::ValueKind::String
        }
    }

    #[test]
    fn a_dynamic_query_is_parsed_or_one_problem_names_the_parameter() {
        let mut report = Report::new();
        let query: Option<DynamicQuery<Listing>> =
            dynamic_query(Some("o=eq&p=name&v=x".to_owned()), "q", &mut report);
        assert_eq!(query.map(|q| q.filters().len()), Some(1));
        assert!(report.is_empty());

        let query: Option<DynamicQuery<Listing>> = dynamic_query(None, "q", &mut report);
        assert!(query.is_none() && report.is_empty());

        let query: Option<DynamicQuery<Listing>> =
            dynamic_query(Some("o=eq&p=colour&v=x".to_owned()), "q", &mut report);
        assert!(query.is_none());
        let problems = report.problems();
        assert_eq!(problems.len(), 1);
        assert_eq!(
            (
                problems[0].property.as_str(),
                problems[0].error_code.as_str()
            ),
            ("q", INVALID_DYNAMIC_QUERY)
        );
        assert!(
            problems[0].message.contains("`colour`"),
            "{}",
            problems[0].message
        );

        // Already refused by its checks: not parsed, not reported twice.
        let query: Option<DynamicQuery<Listing>> =
            dynamic_query(Some("o=eq&p=colour&v=x".to_owned()), "q", &mut report);
        assert!(query.is_none());
        assert_eq!(report.total(), 1);
    }

    fn problems(report: &Report) -> Vec<String> {
        report.problems().iter().map(ToString::to_string).collect()
    }

    #[test]
    fn query_pairs_decode_plus_escapes_and_broken_utf8() {
        let pairs: Vec<(String, String)> =
            query_pairs(Some("a=1+2&b=%C3%BC%2B&&c&d=%FF&e=100%&=x"))
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
        let expected = [
            ("a", "1 2"),
            ("b", "ü+"),
            ("c", ""),
            ("d", "\u{fffd}"),
            ("e", "100%"),
            ("", "x"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        assert_eq!(pairs, expected);
        assert_eq!(query_pairs(None).count(), 0);
    }

    #[test]
    fn a_value_that_does_not_parse_or_is_missing_is_reported_by_name() {
        let mut report = Report::new();
        let limit: Option<u32> = value(Some(Cow::Borrowed("ten")), "limit", false, &mut report);
        let page: Option<u32> = value(None, "page", true, &mut report);
        let size: Option<u32> = value(None, "size", false, &mut report);
        let offset: Option<u32> = value(Some(Cow::Borrowed("20")), "offset", true, &mut report);
        assert_eq!((limit, page, size, offset), (None, None, None, Some(20)));
        assert_eq!(
            problems(&report),
            [
                "limit: must be an integer (InvalidType)",
                "page: is required (Required)"
            ]
        );
    }

    #[test]
    fn lists_split_by_their_style_and_name_each_bad_item() {
        let mut report = Report::new();
        let ids: Option<Vec<i32>> =
            list(Some(Cow::Borrowed("1,2,3")), ',', "ids", true, &mut report);
        assert_eq!(ids, Some(vec![1, 2, 3]));
        let piped: Option<Vec<String>> =
            list(Some(Cow::Borrowed("a|b")), '|', "tags", true, &mut report);
        assert_eq!(piped, Some(vec!["a".to_owned(), "b".to_owned()]));
        let empty: Option<Vec<i32>> = list(Some(Cow::Borrowed("")), ',', "ids", true, &mut report);
        assert_eq!(empty, Some(Vec::new()));
        assert!(report.is_empty());
        let bad: Option<Vec<i32>> = list(
            Some(Cow::Borrowed("1,x,3,y")),
            ',',
            "ids",
            true,
            &mut report,
        );
        assert_eq!(bad, None);
        let repeated: Option<Vec<bool>> = exploded(
            vec![Cow::Borrowed("true"), Cow::Borrowed("no")],
            "flags",
            false,
            &mut report,
        );
        assert_eq!(repeated, None);
        let none: Option<Vec<bool>> = exploded(Vec::new(), "flags", true, &mut report);
        assert_eq!(none, None);
        assert_eq!(
            problems(&report),
            [
                "ids[1]: must be an integer (InvalidType)",
                "ids[3]: must be an integer (InvalidType)",
                "flags[1]: must be true or false (InvalidType)",
                "flags: is required (Required)",
            ]
        );
    }

    #[test]
    fn a_path_parameter_is_its_segment_without_the_template_around_it() {
        let path_text = "/orders/ORD%2F1/lines/v2-7.json";
        let segment =
            |index, prefix, suffix| path_segment_part(path_text, index, &[prefix, suffix], 0);
        assert_eq!(segment(2, "", "").as_deref(), Some("ORD/1"));
        assert_eq!(segment(4, "v2-", ".json").as_deref(), Some("7"));
        assert_eq!(segment(4, "v3-", ".json"), None);
        assert_eq!(segment(9, "", ""), None);
        let mut report = Report::new();
        let line: Option<u8> = path(path_text, 4, "v2-", ".json", "line", &mut report);
        assert_eq!(line, Some(7));
        let ids: Option<Vec<u8>> = path_list("/a/1,2", 2, "", "", "ids", &mut report);
        assert_eq!(ids, Some(vec![1, 2]));
        let broken: Option<String> = path("/a/%FF", 2, "", "", "name", &mut report);
        assert_eq!(broken, None);
        assert_eq!(
            problems(&report),
            ["name: is not valid UTF-8 text (InvalidType)"]
        );
    }

    #[test]
    fn parameters_sharing_a_segment_split_at_its_fixed_text_from_the_right() {
        let fixed = ["", "-", ".zip"];
        let part = |path, which| path_segment_part(path, 2, &fixed, which);
        assert_eq!(part("/p/my-tool-1.2.zip", 0).as_deref(), Some("my-tool"));
        assert_eq!(part("/p/my-tool-1.2.zip", 1).as_deref(), Some("1.2"));
        // An encoded separator is the parameter's own text.
        assert_eq!(part("/p/a-1%2D2.zip", 0).as_deref(), Some("a"));
        assert_eq!(part("/p/a-1%2D2.zip", 1).as_deref(), Some("1-2"));
        assert_eq!(part("/p/tool.zip", 0), None);
        assert_eq!(part("/p/a-1.tar", 0), None);
        assert_eq!(part("/p/-.zip", 0).as_deref(), Some(""));
        let compare = ["", "...", ""];
        assert_eq!(
            path_segment_part("/c/main...v1.2", 2, &compare, 1).as_deref(),
            Some("v1.2")
        );
        let mut report = Report::new();
        let version: Option<u8> = path_part("/p/x-7.zip", 2, &fixed, 1, "version", &mut report);
        assert_eq!(version, Some(7));
        let ids: Option<Vec<u8>> = path_part_list("/p/x-1,2.zip", 2, &fixed, 1, "ids", &mut report);
        assert_eq!(ids, Some(vec![1, 2]));
        let broken: Option<String> = path_part("/p/%FF-1.zip", 2, &fixed, 0, "name", &mut report);
        assert_eq!(broken, None);
        assert_eq!(
            problems(&report),
            ["name: is not valid UTF-8 text (InvalidType)"]
        );
    }

    #[test]
    fn label_and_matrix_path_parameters_are_read_past_their_leads() {
        let own = (&["", ""][..], 0);
        let mut report = Report::new();
        let scalar = |path: &str, style, report: &mut Report| -> Option<String> {
            path_styled(path, 2, own, style, "id", report)
        };
        let list = |path: &str, style, report: &mut Report| -> Option<Vec<String>> {
            path_styled_list(path, 2, own, style, "id", report)
        };
        let (label, matrix) = (PathStyle::Label, PathStyle::Matrix);
        assert_eq!(
            scalar("/a/.x%2Ey,z", label, &mut report).as_deref(),
            Some("x.y,z")
        );
        assert_eq!(
            scalar("/a/;id=5", matrix, &mut report).as_deref(),
            Some("5")
        );
        assert_eq!(scalar("/a/;id", matrix, &mut report).as_deref(), Some(""));
        assert_eq!(
            list("/a/.x,y%2Cz", (label, false), &mut report),
            Some(strings(&["x", "y,z"]))
        );
        assert_eq!(
            list("/a/.x.y%2Ez", (label, true), &mut report),
            Some(strings(&["x", "y.z"]))
        );
        assert_eq!(
            list("/a/;id=x,y", (matrix, false), &mut report),
            Some(strings(&["x", "y"]))
        );
        assert_eq!(
            list("/a/;id=x;id=y%3B", (matrix, true), &mut report),
            Some(strings(&["x", "y;"]))
        );
        assert_eq!(list("/a/", (matrix, true), &mut report), Some(Vec::new()));
        assert!(report.is_empty());
        let numbers: Option<Vec<u8>> = path_styled_list(
            "/c/v.1.2",
            2,
            (&["v", ""], 0),
            (label, true),
            "n",
            &mut report,
        );
        assert_eq!(numbers, Some(vec![1, 2]));

        assert_eq!(scalar("/a/5", label, &mut report), None);
        assert_eq!(scalar("/a/;other=5", matrix, &mut report), None);
        assert_eq!(list("/a/;id=x;other=y", (matrix, true), &mut report), None);
        assert_eq!(
            problems(&report),
            [
                "id: does not start with `.`, as its style asks (InvalidFormat)",
                "id: does not start with `;id=`, as its style asks (InvalidFormat)",
                "id: does not start with `;id=`, as its style asks (InvalidFormat)",
            ]
        );
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|item| (*item).to_owned()).collect()
    }

    #[test]
    fn a_path_fits_a_template_segment_by_segment() {
        assert!(path_fits("/files/a.json", "/files/{name}.json"));
        assert!(path_fits("/files/.json", "/files/{name}.json"));
        assert!(!path_fits("/files/a", "/files/{name}.json"));
        assert!(!path_fits("/files/a.json/x", "/files/{name}.json"));
        assert!(!path_fits("/files", "/files/{name}.json"));
        assert!(!path_fits("/other/a.json", "/files/{name}.json"));
        assert!(path_fits(
            "/v2.1/p/a-1.zip",
            "/v{major}.{minor}/p/{name}-{version}.zip"
        ));
        assert!(!path_fits(
            "/v2/p/a-1.zip",
            "/v{major}.{minor}/p/{name}-{version}.zip"
        ));
        assert!(path_fits("/files/a", "/files/{id}"));
        assert!(path_fits("/", "/"));
    }

    #[test]
    fn adjacent_parameters_split_at_the_values_of_one() {
        let read = |path: &str, which: usize| {
            let mut report = Report::new();
            let found: Option<String> = path_part_by_values(
                path,
                2,
                &["", "", ""],
                which,
                (1, &[".json", ".js"]),
                "p",
                &mut report,
            );
            (found, report.is_empty())
        };
        assert_eq!(read("/p/a.b.json", 0), (Some("a.b".to_owned()), true));
        assert_eq!(read("/p/a.b.json", 1), (Some(".json".to_owned()), true));
        // Split before decoding: an encoded `.` is the parameter's own.
        assert_eq!(read("/p/a%2Ejs.js", 0), (Some("a.js".to_owned()), true));
        assert_eq!(read("/p/a.xml", 0), (None, false));

        // `{name}{ext}-{v}`: a parameter after the one with values.
        let read = |path: &str, which: usize| {
            let mut report = Report::new();
            let found: Option<String> = path_part_by_values(
                path,
                2,
                &["", "", "-", ""],
                which,
                (1, &[".json", ".js"]),
                "p",
                &mut report,
            );
            found
        };
        let parts: Vec<Option<String>> = (0..3).map(|which| read("/p/a.json-3", which)).collect();
        let expected = ["a", ".json", "3"].map(|part| Some(part.to_owned()));
        assert_eq!(parts, expected);
    }

    #[test]
    fn a_request_carries_a_pair_in_its_query_or_header() {
        let query = Some("api_key=k&method=flickr.test.echo&x=a%20b");
        assert!(query_carries(query, "method", Some("flickr.test.echo")));
        assert!(query_carries(query, "x", Some("a b")));
        assert!(query_carries(query, "method", None));
        assert!(!query_carries(query, "method", Some("flickr.test")));
        assert!(!query_carries(query, "Method", None));
        assert!(!query_carries(None, "method", None));
        let mut headers = HeaderMap::new();
        headers.insert("x-amz-target", HeaderValue::from_static("DynamoDB.GetItem"));
        assert!(header_carries(
            &headers,
            "x-amz-target",
            Some("DynamoDB.GetItem")
        ));
        assert!(header_carries(&headers, "x-amz-target", None));
        assert!(!header_carries(
            &headers,
            "x-amz-target",
            Some("DynamoDB.PutItem")
        ));
        assert!(!header_carries(&headers, "x-other", None));
    }

    #[test]
    fn headers_and_cookies_are_read_by_name() {
        let mut headers = HeaderMap::new();
        headers.append("x-ids", HeaderValue::from_static("1, 2"));
        headers.append("x-ids", HeaderValue::from_static("3,"));
        headers.insert("x-count", HeaderValue::from_static("4"));
        headers.append(
            http::header::COOKIE,
            HeaderValue::from_static("a=1; session=\"s%20t\""),
        );
        headers.append(http::header::COOKIE, HeaderValue::from_static("theme=dark"));
        let mut report = Report::new();
        let ids: Option<Vec<u8>> = header_list(&headers, "x-ids", "X-Ids", true, &mut report);
        assert_eq!(ids, Some(vec![1, 2, 3]));
        let count: Option<u8> = header(&headers, "x-count", "X-Count", true, &mut report);
        assert_eq!(count, Some(4));
        let missing: Option<u8> = header(&headers, "x-absent", "X-Absent", true, &mut report);
        assert_eq!(missing, None);
        assert_eq!(cookie_value(&headers, "session").as_deref(), Some("s t"));
        assert_eq!(cookie_value(&headers, "theme").as_deref(), Some("dark"));
        assert_eq!(cookie_value(&headers, "sess"), None);
        let a: Option<Vec<u8>> = cookie_list(&headers, "a", true, &mut report);
        assert_eq!(a, Some(vec![1]));
        let theme: Option<String> = cookie(&headers, "theme", true, &mut report);
        assert_eq!(theme.as_deref(), Some("dark"));
        assert_eq!(problems(&report), ["X-Absent: is required (Required)"]);
    }

    #[test]
    fn credentials_are_present_only_when_not_empty() {
        let mut headers = HeaderMap::new();
        headers.insert("authorization", HeaderValue::from_static("bearer  lfs_1 "));
        headers.insert(
            http::header::COOKIE,
            HeaderValue::from_static("token=; other=x"),
        );
        assert_eq!(authorization(&headers, "Bearer").as_deref(), Some("lfs_1"));
        assert_eq!(authorization(&headers, "Basic"), None);
        assert_eq!(cookie_credential(&headers, "token"), None);
        assert_eq!(cookie_credential(&headers, "other").as_deref(), Some("x"));
        assert_eq!(
            query_credential(Some("api_key=k%2B1&api_key=2"), "api_key").as_deref(),
            Some("k+1")
        );
        assert_eq!(query_credential(Some("api_key="), "api_key"), None);
        headers.insert("authorization", HeaderValue::from_static("Bearer"));
        assert_eq!(authorization(&headers, "Bearer"), None);
    }
}
