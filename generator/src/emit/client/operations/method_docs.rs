//! The documentation of a method: the operation's own docs, then what it
//! takes, what it answers and an example call.

use proc_macro2::{Ident, TokenStream};

use crate::emit::{Context, docs};
use crate::ir::{BodyKind, ParamLocation, Status};

use super::answers::content_type;
use super::plan::{Input, Plan};

pub(super) fn method_docs(cx: &Context<'_>, plan: &Plan<'_>) -> TokenStream {
    let op = plan.op;
    let mut lines = Vec::new();
    let text = docs::text(&op.docs).unwrap_or_else(|| format!("The `{}` operation.", op.id));
    lines.extend(docs::markdown_lines(&text));
    lines.push(String::new());
    let key = op.path_key();
    lines.push(if key.is_empty() {
        format!(
            "`{}` to the sender's URL (operation `{}`).",
            op.method.as_str(),
            op.id
        )
    } else {
        format!("`{} {key}` (operation `{}`).", op.method.as_str(), op.id)
    });
    if !plan.args.is_empty() || plan.params.is_some() {
        lines.push(String::new());
        lines.push("# Arguments".to_owned());
        lines.push(String::new());
        for arg in &plan.args {
            lines.push(format!("- `{}` {}", arg.ident, input_doc(arg.input)));
        }
        if let Some(params) = &plan.params {
            let names: Vec<String> = params
                .fields
                .iter()
                .map(|f| format!("`{}`", f.ident))
                .collect();
            lines.push(format!(
                "- `{}`: the optional inputs ({}), see [`{}`]; `Default::default()` for none.",
                params.arg,
                names.join(", "),
                params.ty
            ));
        }
    }
    lines.push(String::new());
    lines.push("# Answers".to_owned());
    lines.push(String::new());
    if plan.successes.is_empty() {
        lines.push("Any 2xx status, without a body.".to_owned());
    }
    for success in &plan.successes {
        let status = status_text(success.response.status, plan.successes.len() == 1);
        let what = summary(success.response.docs.description.as_deref().unwrap_or(""));
        let variant = plan
            .response_enum
            .as_ref()
            .map(|e| format!(" → `{e}::{}`", success.variant))
            .unwrap_or_default();
        lines.push(format!("- {status}: {what}{variant}"));
    }
    if let Some(body) = &op.body {
        if let Some(example) = &body.docs.example {
            push_example(
                &mut lines,
                "# Example request body",
                example,
                Some(&body.kind),
            );
        }
    }
    let success_example = plan.successes.iter().find_map(|s| {
        let example = s.response.docs.example.as_ref()?;
        Some((s.response, example))
    });
    if let Some((response, example)) = success_example {
        let heading = format!("# Example answer ({})", status_text(response.status, false));
        push_example(&mut lines, &heading, example, response.body.as_ref());
    }
    lines.push(String::new());
    lines.push("# Errors".to_owned());
    lines.push(String::new());
    let errors: Vec<String> = op
        .responses
        .iter()
        .filter(|r| {
            !r.status.is_success() && !plan.successes.iter().any(|s| std::ptr::eq(s.response, *r))
        })
        .map(|r| {
            format!(
                "- {}: {}",
                status_text(r.status, false),
                summary(r.docs.description.as_deref().unwrap_or(""))
            )
        })
        .collect();
    let error_body = match &cx.target.error_schema {
        Some(schema) => format!("its `{schema}` body"),
        None => "its body".to_owned(),
    };
    if errors.is_empty() {
        lines.push(format!(
            "[`Error::Api`](crate::Error::Api), with the status and {error_body}, when the API refuses the request."
        ));
    } else {
        lines.push(format!(
            "[`Error::Api`](crate::Error::Api), with the status and {error_body}, for the API's error answers:"
        ));
        lines.push(String::new());
        lines.extend(errors);
        lines.push(String::new());
    }
    lines.push(
        "The other variants of [`Error`](crate::Error) for an unexpected status, an undecodable body, a time-out or a failure to reach the API."
            .to_owned(),
    );
    if op.method.is_idempotent() {
        lines.push(String::new());
        lines.push(format!(
            "As a `{}`, the call is retried as the client's [`RetryPolicy`](crate::RetryPolicy) says.",
            op.method.as_str()
        ));
    } else {
        lines.push(String::new());
        lines.push(format!(
            "As a `{}`, the call is not retried unless the [`RetryPolicy`](crate::RetryPolicy) allows non-idempotent retries.",
            op.method.as_str()
        ));
    }
    if op.docs.deprecated {
        lines.push(String::new());
        lines.push("**Deprecated** by the API.".to_owned());
    }
    docs::attrs(&lines)
}

/// A status as the docs say it.
pub(super) fn status_text(status: Status, only_success: bool) -> String {
    match status {
        Status::Code(code) => code.to_string(),
        Status::Range(range) => format!("{range}xx"),
        Status::Default if only_success => "any 2xx".to_owned(),
        Status::Default => "any other status".to_owned(),
    }
}

/// The first sentence of `text`, safe for rustdoc.
pub(in crate::emit::client) fn first_sentence(text: &str) -> String {
    let line = summary(text);
    match line.find(". ") {
        Some(end) => line[..=end].to_owned(),
        None => line,
    }
}

/// An example from the document under `heading`: as JSON, or as the text
/// itself for a text body.
pub(super) fn push_example(
    lines: &mut Vec<String>,
    heading: &str,
    example: &serde_json::Value,
    kind: Option<&BodyKind>,
) {
    let (fence, text) = match (kind, example) {
        (Some(BodyKind::Text), serde_json::Value::String(text)) => ("```text", text.clone()),
        _ => match serde_json::to_string_pretty(example) {
            Ok(json) => ("```json", json),
            Err(_) => return,
        },
    };
    lines.extend([String::new(), heading.to_owned(), String::new()]);
    lines.push(fence.to_owned());
    // A fence inside the example would end the block early.
    lines.extend(text.lines().map(|line| line.replace("```", "` ` `")));
    lines.push("```".to_owned());
}

/// The first paragraph of `text`, on one line, safe for rustdoc.
pub(in crate::emit::client) fn summary(text: &str) -> String {
    let first = text.trim().split("\n\n").next().unwrap_or("");
    let line = first.split_whitespace().collect::<Vec<_>>().join(" ");
    docs::markdown_lines(&line)
        .into_iter()
        .next()
        .unwrap_or_default()
}

/// What an input is, for the docs: where it goes, then what it is.
pub(super) fn input_doc(input: Input<'_>) -> String {
    let (place, description) = input_place(input);
    let what = summary(description.unwrap_or(""));
    if what.is_empty() {
        format!("({place}).")
    } else {
        format!("({place}): {what}")
    }
}

/// Where an input goes, and its description.
pub(super) fn input_place(input: Input<'_>) -> (String, Option<&str>) {
    match input {
        Input::Param(param) => {
            let place = match param.location {
                ParamLocation::Path => "path parameter",
                ParamLocation::Query => "query parameter",
                ParamLocation::Header => "header",
                ParamLocation::Cookie => "cookie",
                ParamLocation::QueryString => "query string",
            };
            (
                format!("the `{}` {place}", param.wire),
                param.docs.description.as_deref(),
            )
        }
        Input::Body(body) => (
            format!("the request body, sent as `{}`", content_type(body)),
            body.docs.description.as_deref(),
        ),
    }
}

/// The doc of a params field. A description of more than one plain paragraph
/// (a list, say, such as a query grammar) keeps its layout below the field's
/// place instead of being folded into one line.
pub(super) fn field_doc(ident: &Ident, input: Input<'_>) -> Vec<String> {
    let (place, description) = input_place(input);
    let description = description.unwrap_or("").trim();
    let is_list_line = |line: &str| {
        let line = line.trim_start();
        line.starts_with("- ") || line.starts_with("* ")
    };
    if !description.contains("\n\n") && !description.lines().any(is_list_line) {
        return vec![format!("`{ident}` {}", input_doc(input))];
    }
    let mut lines = vec![format!("`{ident}` ({place})."), String::new()];
    lines.extend(docs::markdown_lines(description));
    lines
}
