//! The answers an operation's method returns: which statuses are results,
//! the pattern that matches each, how its body is decoded (and probed for an
//! envelope), and the `Accept` and `Content-Type` headers that go with them.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::emit::{Context, RustTypes};
use crate::error::Result;
use crate::ir::{
    Additional, Api, BodyKind, MediaKind, Operation, RequestBody, Response, Shape, Status, Tagging,
    Ty, TypeKind, media_essence,
};

use super::plan::{Success, rust_types};

/// The answers that are results: the documented success statuses, or, when
/// there are none, `default` for any 2xx (or nothing, for `()`).
pub(super) fn successes<'a>(cx: &Context<'_>, op: &'a Operation) -> Result<Vec<Success<'a>>> {
    let mut documented: Vec<&Response> = op.success_responses().collect();
    // Exact statuses before ranges, so that a match tries the specific first.
    documented.sort_by_key(|r| match r.status {
        Status::Code(code) => (0, code),
        Status::Range(range) => (1, range),
        Status::Default => (2, 0),
    });
    let any_2xx = quote!(200..=299);
    let chosen: Vec<(&Response, TokenStream)> = if documented.is_empty() {
        op.responses
            .iter()
            .find(|r| r.status == Status::Default)
            .map(|r| (r, any_2xx.clone()))
            .into_iter()
            .collect()
    } else {
        let codes: Vec<u16> = documented
            .iter()
            .filter_map(|r| match r.status {
                Status::Code(code) => Some(code),
                _ => None,
            })
            .collect();
        documented
            .into_iter()
            .map(|r| {
                let pattern = match r.status {
                    Status::Code(code) => {
                        let code = Literal::u16_unsuffixed(code);
                        quote!(#code)
                    }
                    Status::Range(range) => range_pattern(range, &codes),
                    Status::Default => any_2xx.clone(),
                };
                (r, pattern)
            })
            .collect()
    };
    let types = rust_types();
    Ok(chosen
        .into_iter()
        .map(|(response, pattern)| Success {
            response,
            pattern,
            variant: format_ident!("{}", response.name),
            payload: response.body.as_ref().map(|kind| payload(cx, &types, kind)),
        })
        .collect())
}

/// The statuses of the range `range` (`2` for `2XX`) but the `codes` the
/// document names on their own, whose arms come first: `201..=299` beside
/// `200`, so that no two arms of the match overlap.
pub(super) fn range_pattern(range: u16, codes: &[u16]) -> TokenStream {
    let (low, high) = (range * 100, range * 100 + 99);
    let mut parts = Vec::new();
    let mut start = low;
    for code in (low..=high).filter(|code| codes.contains(code)) {
        if start < code {
            parts.push((start, code - 1));
        }
        start = code + 1;
    }
    if start <= high || parts.is_empty() {
        // (Every status of the range named alone leaves none: the range
        // whole, unreachable after them.)
        parts.push((start.min(high), high));
    }
    let parts = parts.into_iter().map(|(from, to)| {
        let (from, to) = (Literal::u16_unsuffixed(from), Literal::u16_unsuffixed(to));
        if from.to_string() == to.to_string() {
            quote!(#from)
        } else {
            quote!(#from..=#to)
        }
    });
    quote!(#(#parts)|*)
}

/// The type of a response body, and the expression that decodes it from
/// `__answer` (with `?` when decoding can fail).
pub(super) fn payload(
    cx: &Context<'_>,
    types: &RustTypes<'_>,
    kind: &BodyKind,
) -> (TokenStream, TokenStream) {
    match kind {
        BodyKind::Json(shape) => {
            let ty = types.shape(shape);
            let mode = format_ident!(
                "{}",
                envelope_mode(cx.api, shape, cx.target.client_accepts_data_envelope)
            );
            let decode = quote!(__answer.json::<#ty>(Envelope::#mode)?);
            (ty, decode)
        }
        BodyKind::Sequence(sequence) => {
            let ty = types.shape(&sequence.shape);
            let framing = format_ident!("{}", sequence.framing.runtime_name());
            let decode =
                quote!(__answer.sequence::<#ty>(openapi_runtime::sequence::Framing::#framing)?);
            (ty, decode)
        }
        BodyKind::Text | BodyKind::Form(_) => (quote!(String), quote!(__answer.text()?)),
        // Multipart answers are lowered as bytes; requests only are parts.
        BodyKind::Binary | BodyKind::Multipart(_) => {
            (quote!(bytes::Bytes), quote!(__answer.bytes()))
        }
    }
}

/// How a success body of `shape` is decoded when the API may wrap it as
/// `{"data": …, "status": …}`: `Fallback` (bare first, the wrapper when that
/// fails) when a wrapper cannot decode as the bare type, `Probe` (look for a
/// top-level `data` key first) when it could, `Bare` for any JSON value or
/// map, which is never unwrapped.
pub(super) fn envelope_mode(api: &Api, shape: &Shape, enabled: bool) -> &'static str {
    // The walk ends: aliases never loop (the parser refuses a `$ref` chain
    // that does), a newtype wraps an array, a map or a scalar, and a base's
    // own variant is a struct.
    fn mode(api: &Api, ty: &Ty) -> &'static str {
        match ty {
            Ty::Any | Ty::Map(_) => "Bare",
            Ty::Primitive(_) | Ty::Array(_) => "Fallback",
            Ty::Named(name) => match api.type_named(name).map(|t| &t.kind) {
                Some(TypeKind::Struct(s)) => {
                    let has_data = s.fields.iter().any(|f| f.wire == "data");
                    let needs_more = s.fields.iter().any(|f| f.required && f.wire != "status");
                    if has_data || needs_more || matches!(s.additional, Additional::Deny) {
                        "Fallback"
                    } else {
                        "Probe"
                    }
                }
                // A base with subtypes reads any untagged object as its
                // own struct: it is probed as that struct would be.
                Some(TypeKind::Union(u)) => match &u.tagging {
                    Tagging::Internal {
                        fallback: Some(base),
                        ..
                    } => mode(api, &u.variants[*base].shape.ty),
                    Tagging::Internal { .. } => "Fallback",
                    Tagging::Untagged => "Probe",
                },
                Some(TypeKind::Newtype(shape) | TypeKind::Alias(shape)) => mode(api, &shape.ty),
                Some(TypeKind::Enum(_)) | None => "Fallback",
            },
        }
    }
    if enabled {
        mode(api, &shape.ty)
    } else {
        "Bare"
    }
}

/// The `Accept` header: JSON when the results come as JSON among others,
/// else every media type they may come in.
pub(super) fn accept(op: &Operation) -> Option<String> {
    let mut media: Vec<&str> = Vec::new();
    let results: Vec<&Response> = {
        let documented: Vec<&Response> = op.success_responses().collect();
        if documented.is_empty() {
            op.responses
                .iter()
                .filter(|r| r.status == Status::Default)
                .collect()
        } else {
            documented
        }
    };
    for response in results {
        for m in &response.media_types {
            if is_header_text(m) && !media.contains(&m.as_str()) {
                media.push(m);
            }
        }
    }
    if media.iter().any(|m| media_essence(m) == "application/json") {
        return Some("application/json".to_owned());
    }
    (!media.is_empty()).then(|| media.join(", "))
}

/// The content type a body is sent with: one the document lists (JSON
/// bodies prefer `application/json`), without wildcards.
pub(super) fn content_type(body: &RequestBody) -> String {
    let concrete = |m: &&String| !m.contains('*') && is_header_text(m);
    let listed = || body.media_types.iter().find(concrete).cloned();
    match &body.kind {
        BodyKind::Json(_) => body
            .media_types
            .iter()
            .find(|m| media_essence(m) == "application/json")
            .cloned()
            .or_else(listed)
            .unwrap_or_else(|| "application/json".to_owned()),
        BodyKind::Text => listed().unwrap_or_else(|| "text/plain".to_owned()),
        BodyKind::Sequence(_) => listed().unwrap_or_else(|| "application/jsonl".to_owned()),
        BodyKind::Binary => listed().unwrap_or_else(|| "application/octet-stream".to_owned()),
        BodyKind::Form(_) => body
            .media_types
            .iter()
            .find(|m| matches!(MediaKind::of(m), MediaKind::Form) && m.contains('/'))
            .filter(|m| is_header_text(m))
            .cloned()
            .unwrap_or_else(|| "application/x-www-form-urlencoded".to_owned()),
        // The boundary is the body's own: the runtime adds it.
        BodyKind::Multipart(_) => body.multipart_media_type(),
    }
}

/// Whether `text` can be a header value as it is.
pub(super) fn is_header_text(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::{is_header_text, range_pattern};

    /// A media type goes into `Accept` or `Content-Type` as written only
    /// when it is visible ASCII (or tabs), and not empty.
    #[test]
    fn header_text_is_visible_ascii() {
        assert!(is_header_text("text/csv; charset=utf-8"));
        assert!(is_header_text("a\tb"));
        assert!(!is_header_text(""));
        assert!(!is_header_text("text/çsv"));
        assert!(!is_header_text("text/csv\n"));
    }

    /// A base with subtypes reads an object without a tag as its own
    /// struct, so the `{"data": …}` wrapper is probed for as that struct's
    /// would be: first when nothing the base requires would refuse it.
    #[test]
    fn a_base_with_subtypes_is_probed_for_a_wrapper_as_its_own_struct() {
        let mode = |required: &str| {
            let api = crate::testing::api(&format!(
                "paths: {{}}\ncomponents:\n  schemas:\n\
                 \x20   Pet: {{type: object, required: [{required}], properties: {{kind: {{type: string}}, name: {{type: string}}}}, discriminator: {{propertyName: kind}}}}\n\
                 \x20   Cat: {{allOf: [{{$ref: '#/components/schemas/Pet'}}]}}\n"
            ));
            let pet = crate::ir::Shape::of(crate::ir::Ty::Named("Pet".to_owned()));
            super::envelope_mode(&api, &pet, true)
        };
        assert_eq!(mode("kind"), "Fallback");
        assert_eq!(mode(""), "Probe");
    }

    #[test]
    fn a_range_leaves_out_the_statuses_named_alone() {
        let pattern = |range, codes: &[u16]| range_pattern(range, codes).to_string();
        assert_eq!(pattern(2, &[]), "200 ..= 299");
        assert_eq!(pattern(2, &[200]), "201 ..= 299");
        assert_eq!(pattern(2, &[200, 202, 299]), "201 | 203 ..= 298");
        assert_eq!(pattern(4, &[200, 404]), "400 ..= 403 | 405 ..= 499");
    }
}
