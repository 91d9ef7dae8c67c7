//! Request and response bodies: which media types are offered and how each is
//! encoded ([`BodyKind`]), the rules a body is checked by, multipart parts and
//! server-sent events.

use indexmap::IndexMap;
use openapiv3::ReferenceOr;

use crate::error::Result;
use crate::ir::{
    BodyKind, BodyRule, Docs, Framing, MediaKind, Multipart, PartContentType, RequestBody,
    Sequence, Shape, Ty,
};
use crate::lower::lenient::Leniency;
use crate::lower::schemas::SchemaRef;
use crate::parse::{Pointer, SEQUENCE};

use super::operation::OperationLowering;

impl<'d> OperationLowering<'_, 'd> {
    pub(super) fn body(
        &mut self,
        body: &ReferenceOr<openapiv3::RequestBody>,
        prefix: &str,
    ) -> Result<Option<RequestBody>> {
        let resolved = self.doc.resolve(body, &self.at.push("requestBody"))?;
        let at = resolved.pointer.clone();
        let body = resolved.value;
        if body.content.is_empty() && !body.required {
            // An optional body of no media type (Just Eat's `{content: {}}`):
            // none is sent.
            self.types
                .lenient
                .record(Leniency::BodyWithoutContent, &at.push("content"));
            return Ok(None);
        }
        if body.content.is_empty() {
            return Err(self.doc.invalid(
                &at.push("content"),
                "a request body needs at least one media type",
            ));
        }
        let (kind, media_types) = self.body_kind(
            &body.content,
            &at.push("content"),
            &format!("{prefix}Body"),
            true,
        )?;
        let rules = match body.extensions.get("x-rules") {
            Some(rules) => self.body_rules(rules, &kind, &at.push("x-rules"))?,
            None => Vec::new(),
        };
        Ok(Some(RequestBody {
            required: body.required,
            media_types,
            kind,
            rules,
            docs: Docs {
                description: body.description.clone(),
                example: self.media_example(&body.content, &at.push("content"))?,
                ..Docs::default()
            },
            origin: at,
        }))
    }

    /// The `x-rules` extension of a request body: a list of `{code,
    /// description}`, each a rule across fields that a schema cannot state.
    pub(super) fn body_rules(
        &self,
        rules: &serde_json::Value,
        kind: &BodyKind,
        at: &Pointer,
    ) -> Result<Vec<BodyRule>> {
        if !matches!(kind, BodyKind::Json(_)) {
            return Err(self
                .doc
                .unsupported(at, "`x-rules` is supported on JSON bodies only"));
        }
        let list = rules.as_array().ok_or_else(|| {
            self.doc
                .invalid(at, "`x-rules` must be a list of `{code, description}`")
        })?;
        let mut codes = std::collections::BTreeSet::new();
        list.iter()
            .enumerate()
            .map(|(i, rule)| {
                let at = at.push(&i.to_string());
                let text = |key: &str| {
                    rule.get(key)
                        .and_then(serde_json::Value::as_str)
                        .filter(|text| !text.trim().is_empty())
                        .map(str::to_owned)
                        .ok_or_else(|| {
                            self.doc.invalid(
                                &at.push(key),
                                format!("`{key}` must be a non-empty string"),
                            )
                        })
                };
                let rule = BodyRule {
                    code: text("code")?,
                    description: text("description")?,
                };
                if !codes.insert(rule.code.clone()) {
                    return Err(self.doc.invalid(
                        &at.push("code"),
                        format!("the code `{}` names two rules", rule.code),
                    ));
                }
                Ok(rule)
            })
            .collect()
    }

    /// The example a body's media types give, for the docs: the first media
    /// type's `example`, or else its first `examples` entry with a value.
    pub(super) fn media_example(
        &self,
        content: &IndexMap<String, openapiv3::MediaType>,
        at: &Pointer,
    ) -> Result<Option<serde_json::Value>> {
        for (media_type, media) in content {
            if let Some(example) = &media.example {
                return Ok(Some(example.clone()));
            }
            let examples_at = at.push(media_type).push("examples");
            for (name, example) in &media.examples {
                let example = self.doc.resolve(example, &examples_at.push(name))?;
                if let Some(value) = &example.value.value {
                    return Ok(Some(value.clone()));
                }
            }
        }
        Ok(None)
    }

    /// The one encoding of a body offered under several media types, and
    /// the media types that carry it (a media type whose body differs from
    /// the first one's is left out, with a note). Multipart answers
    /// (`request` false) are bytes.
    #[allow(
        clippy::expect_used,
        reason = "the content is not empty (checked first), so one media type was chosen"
    )]
    pub(super) fn body_kind(
        &mut self,
        content: &IndexMap<String, openapiv3::MediaType>,
        at: &Pointer,
        hint: &str,
        request: bool,
    ) -> Result<(BodyKind, Vec<String>)> {
        let mut chosen: Option<(BodyKind, &str)> = None;
        let mut media_types = Vec::new();
        for (media_type, media) in content {
            let media_at = at.push(media_type);
            if !media_type.contains('/') {
                self.types
                    .lenient
                    .record(Leniency::MediaTypeName, &media_at);
            }
            // A stream's schema describes each event (`events`), read apart;
            // the stream as a whole is then text (`text/*`, below).
            let stream = !request && is_event_stream(media_type);
            let shape = match &media.schema {
                Some(schema) if !stream => Some(self.types.shape(
                    SchemaRef::from(schema),
                    &media_at.push("schema"),
                    hint,
                )?),
                _ => None,
            };
            // `format: binary` is bytes whatever the media type, with
            // `type: string` or without a type (D57).
            let binary = shape
                .as_ref()
                .is_some_and(|s| s.ty == Ty::Primitive(crate::ir::Primitive::Binary))
                || (!stream && self.says_binary(&media_at.push("schema")));
            let is_text = |shape: &Option<Shape>| {
                shape
                    .as_ref()
                    .is_none_or(|s| s.ty == Ty::Primitive(crate::ir::Primitive::String))
            };
            let sequence = media.extensions.contains_key(SEQUENCE);
            let kind = match (MediaKind::of(media_type), shape) {
                (_, Some(shape)) if sequence => BodyKind::Sequence(Sequence {
                    shape,
                    framing: Framing::of(media_type),
                }),
                _ if binary => BodyKind::Binary,
                (MediaKind::Json, shape) => {
                    BodyKind::Json(shape.unwrap_or_else(|| Shape::of(Ty::Any)))
                }
                // A form whose schema is a string is its text as it is
                // (spoonacular's `text=…`).
                (MediaKind::Form, shape @ Some(_)) if is_text(&shape) => BodyKind::Text,
                (MediaKind::Form, Some(shape))
                    if crate::ir::is_form_object(self.types.defs(), &shape) =>
                {
                    BodyKind::Form(shape)
                }
                // Pairs carry an object's properties; for another schema
                // (PeerTube's array of tasks) no encoding is agreed on: the
                // body is its text as it is, noted.
                (MediaKind::Form, Some(_)) => {
                    self.types
                        .lenient
                        .record(Leniency::FormNotObject, &media_at.push("schema"));
                    BodyKind::Text
                }
                (MediaKind::Form, None) => {
                    return Err(self.doc.invalid(&media_at, "a form body needs a schema"));
                }
                // Text whose schema is structured is that structure, serialised
                // as JSON (as ASP.NET services describe their text/plain answers).
                (MediaKind::Text, shape) if is_text(&shape) => BodyKind::Text,
                (MediaKind::Text, shape) => {
                    BodyKind::Json(shape.unwrap_or_else(|| Shape::of(Ty::Any)))
                }
                // Bytes, whatever structure the schema describes (a file
                // format, a JSON-like description of a spreadsheet…).
                (MediaKind::Binary, _) => BodyKind::Binary,
                (MediaKind::Multipart, Some(shape)) if request => {
                    BodyKind::Multipart(self.multipart(shape, media, &media_at)?)
                }
                (MediaKind::Multipart, None) if request => {
                    return Err(self
                        .doc
                        .invalid(&media_at, "a multipart body needs a schema"));
                }
                (MediaKind::Multipart, _) => BodyKind::Binary,
            };
            match &chosen {
                None => chosen = Some((kind, media_type)),
                Some((first, _)) if *first == kind => {}
                Some(_) => {
                    self.types
                        .lenient
                        .record(Leniency::MediaTypeOtherBody, &media_at);
                    continue;
                }
            }
            media_types.push(media_type.clone());
        }
        let (kind, _) = chosen.expect("content is not empty");
        Ok((kind, media_types))
    }

    /// Whether the schema at `at` (its `$ref` followed) says its value is
    /// bytes: `format: binary`, beside `type: string` or without a type.
    fn says_binary(&self, at: &Pointer) -> bool {
        let Some(mut node) = self.doc.node(at) else {
            return false;
        };
        if let Some(reference) = node.get("$ref").and_then(serde_yaml::Value::as_str) {
            // A broken reference is reported where the schema is lowered.
            let Some(target) = self.doc.follow(reference, at).ok() else {
                return false;
            };
            let Some(target) = self.doc.node(&target) else {
                return false;
            };
            node = target;
        }
        let text = |key: &str| node.get(key).and_then(serde_yaml::Value::as_str);
        text("format") == Some("binary")
            && node
                .get("type")
                .is_none_or(|_| text("type") == Some("string"))
    }

    /// The type of the events of a `text/event-stream` answer, when
    /// `content` offers one: its schema's, or text.
    pub(super) fn events(
        &mut self,
        content: &IndexMap<String, openapiv3::MediaType>,
        at: &Pointer,
        hint: &str,
    ) -> Result<Option<Shape>> {
        let Some((media_type, media)) = content.iter().find(|(m, _)| is_event_stream(m)) else {
            return Ok(None);
        };
        let shape = match &media.schema {
            Some(schema) => self.types.shape(
                SchemaRef::from(schema),
                &at.push(media_type).push("schema"),
                &format!("{hint}Event"),
            )?,
            None => Shape::of(Ty::Primitive(crate::ir::Primitive::String)),
        };
        Ok(Some(shape))
    }

    /// A `multipart/form-data` body: its schema's properties are its
    /// parts, and `encoding` gives some of them a media type. A schema that
    /// is not an object with properties lists no parts: the parts are
    /// handed over as they are (the runtime's `Parts`), noted.
    pub(super) fn multipart(
        &mut self,
        shape: Shape,
        media: &openapiv3::MediaType,
        media_at: &Pointer,
    ) -> Result<Multipart> {
        let content_types = media
            .encoding
            .iter()
            .filter_map(|(part, encoding)| {
                let content_type = encoding.content_type.as_ref()?.trim();
                (!content_type.is_empty()).then(|| PartContentType {
                    part: part.clone(),
                    content_type: content_type.to_owned(),
                })
            })
            .collect();
        let body = Multipart {
            shape,
            content_types,
        };
        if crate::ir::form_parts(self.types.defs(), &body).is_none() {
            self.types
                .lenient
                .record(Leniency::MultipartPartsUnlisted, &media_at.push("schema"));
        }
        Ok(body)
    }
}

/// Whether `media_type` is `text/event-stream` (server-sent events).
pub(super) fn is_event_stream(media_type: &str) -> bool {
    crate::ir::media_essence(media_type) == crate::ir::EVENT_STREAM
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{api, error};

    /// A form body is pairs of an object's properties; a schema that is
    /// not an object (PeerTube's array of tasks) is the body's text, noted.
    /// A string schema is the text as it is (spoonacular's `text=…`), not
    /// noted.
    #[test]
    fn a_form_body_that_is_not_an_object_is_its_text() {
        let api = api(
            "paths:\n  /a:\n    post:\n      requestBody:\n        content:\n          application/x-www-form-urlencoded:\n            schema: {type: array, items: {type: object, properties: {name: {type: string}}}}\n      responses: {'200': {description: ok}}\n  /b:\n    post:\n      requestBody:\n        content:\n          application/x-www-form-urlencoded:\n            schema: {type: string}\n      responses: {'200': {description: ok}}\n",
        );
        for op in &api.operations {
            let body = op.body.as_ref().expect("a body");
            assert!(matches!(body.kind, BodyKind::Text), "{:?}", body.kind);
        }
        assert!(
            api.notes
                .iter()
                .any(|note| note.contains("form bodies whose schema is not an object (1, the first at t.yaml#/paths/~1a/post/requestBody/content/application~1x-www-form-urlencoded/schema)")),
            "{:?}",
            api.notes
        );
    }

    /// An optional body with no media type is no body (noted); a required
    /// one says nothing of what to send, and is refused.
    #[test]
    fn an_optional_body_without_content_is_no_body() {
        let api = api(
            "paths:\n  /a:\n    post:\n      requestBody: {content: {}}\n      responses: {'204': {description: ok}}\n",
        );
        assert!(api.operations[0].body.is_none());
        assert!(api.notes.iter().any(|n| n.contains("without a media type")));
        let message = error(
            "paths:\n  /a:\n    post:\n      requestBody: {required: true, content: {}}\n      responses: {'204': {description: ok}}\n",
        );
        assert!(
            message.contains("a request body needs at least one media type"),
            "{message}"
        );
    }

    /// A request body's `description` documents the body's argument in the
    /// generated client and server.
    #[test]
    fn a_request_body_keeps_its_description() {
        let api = api(
            "paths:\n  /a:\n    post:\n      requestBody:\n        description: The order to place.\n        content: {application/json: {schema: {type: string}}}\n      responses: {'204': {description: done}}\n",
        );
        let body = api.operations[0].body.as_ref().unwrap();
        assert_eq!(
            body.docs.description.as_deref(),
            Some("The order to place.")
        );
    }

    /// A multipart request is taken apart by its schema's properties: it
    /// cannot go without one.
    #[test]
    fn a_multipart_request_needs_a_schema() {
        let message = error(
            "paths:\n  /a:\n    post:\n      requestBody: {content: {multipart/form-data: {}}}\n      responses: {'204': {description: done}}\n",
        );
        assert!(
            message.ends_with("/paths/~1a/post/requestBody/content/multipart~1form-data: invalid document: a multipart body needs a schema"),
            "{message}"
        );
    }

    /// `format: binary` is bytes with or without `type: string`, under any
    /// media type, and so is an `image/*` answer without a schema; a JSON
    /// body without a schema stays any JSON value, and so does one whose
    /// `format: binary` is on a type other than a string.
    #[test]
    fn format_binary_without_a_type_and_image_wildcards_are_bytes() {
        let api = api(
            "paths:\n  /a:\n    post:\n      requestBody:\n        content: {text/csv: {schema: {format: binary}}}\n      responses:\n        '200': {description: ok, content: {image/*: {}}}\n        '201': {description: ok, content: {'*/*': {schema: {$ref: '#/components/schemas/File'}}}}\n        '202': {description: ok, content: {application/json: {}}}\n        '203': {description: ok, content: {application/json: {schema: {type: array, format: binary}}}}\ncomponents:\n  schemas:\n    File: {format: binary}\n",
        );
        let op = &api.operations[0];
        let body = op.body.as_ref().expect("a body");
        assert!(matches!(body.kind, BodyKind::Binary), "{:?}", body.kind);
        let kinds: Vec<_> = op.responses.iter().map(|r| r.body.clone()).collect();
        assert!(matches!(kinds[0], Some(BodyKind::Binary)), "{kinds:?}");
        assert!(matches!(kinds[1], Some(BodyKind::Binary)), "{kinds:?}");
        assert!(matches!(kinds[2], Some(BodyKind::Json(_))), "{kinds:?}");
        // `format: binary` on another type says nothing.
        assert!(matches!(kinds[3], Some(BodyKind::Json(_))), "{kinds:?}");
    }
}
