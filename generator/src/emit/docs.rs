//! Documentation from the document, as rustdoc attributes that build without
//! warnings whatever Markdown the document's authors wrote.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{Docs, EnumVariant};

/// What `docs` say: the title, a blank line and the description, or only
/// the description when it begins with the title; `None` when neither
/// says anything (`description: ""` is as if absent).
pub fn text(docs: &Docs) -> Option<String> {
    let said = |text: &Option<String>| text.clone().filter(|t| !t.trim().is_empty());
    match (said(&docs.title), said(&docs.description)) {
        (Some(title), Some(description)) if !description.starts_with(title.as_str()) => {
            Some(format!("{title}\n\n{description}"))
        }
        (_, Some(description)) => Some(description),
        (title, None) => title,
    }
}

/// `#[doc = "..."]` attributes for `docs`, or `fallback` when it says nothing.
pub fn doc_attrs(docs: &Docs, fallback: &str) -> TokenStream {
    let mut lines = Vec::new();
    let text = text(docs).unwrap_or_else(|| fallback.to_owned());
    lines.extend(markdown_lines(&text));
    if let Some(example) = &docs.example {
        if let Ok(json) = serde_json::to_string_pretty(example) {
            lines.push(String::new());
            lines.push("# Example".to_owned());
            lines.push(String::new());
            lines.push("```json".to_owned());
            lines.extend(json.lines().map(str::to_owned));
            lines.push("```".to_owned());
        }
    }
    if docs.deprecated {
        lines.push(String::new());
        lines.push("**Deprecated** by the API.".to_owned());
    }
    attrs(&lines)
}

/// `#[doc = "..."]` attributes for plain lines (a carriage return in one,
/// which rustc refuses in a doc comment, is a space).
pub fn attrs(lines: &[String]) -> TokenStream {
    let attrs = lines.iter().map(|line| {
        let line = if line.is_empty() {
            String::new()
        } else {
            format!(" {}", line.replace('\r', " "))
        };
        quote!(#[doc = #line])
    });
    quote!(#(#attrs)*)
}

/// The docs of an enum's variant: its value on the wire, and what it means
/// when the document says (an extension's description).
pub fn variant_attrs(variant: &EnumVariant) -> TokenStream {
    let wire = &variant.wire;
    let text = match &variant.description {
        Some(description) => format!("`{wire}`: {description}"),
        None => format!("`{wire}`"),
    };
    attrs(&markdown_lines(&text))
}

/// Inner `#![doc = "..."]` attributes for a module or crate.
pub fn inner_attrs(lines: &[String]) -> TokenStream {
    let attrs = lines.iter().map(|line| {
        let line = if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        };
        quote!(#![doc = #line])
    });
    quote!(#(#attrs)*)
}

/// The lines of `text`, trimmed of trailing space, with Markdown that rustdoc
/// would warn about made harmless: bare URLs are wrapped in `<…>`, and `[`,
/// `]`, `<`, `>` outside code are escaped so they are not read as links or HTML.
/// Tabs are four spaces, as clippy's `tabs_in_doc_comments` asks (GitHub's
/// tables of limits are aligned with tabs).
pub fn markdown_lines(text: &str) -> Vec<String> {
    // A carriage return alone is a line break too (VTEX's descriptions
    // start with one); rustc refuses it in a doc comment.
    let text = text
        .replace("\r\n", "\n")
        .replace('\r', "\n")
        .replace('\t', "    ");
    let text = text.trim_start_matches('\n');
    let mut out = Vec::new();
    let mut in_fence = false;
    // The column where the text of the current list item starts, if in one.
    let mut list_indent: Option<usize> = None;
    // Inside an indented code block: the blank lines met in it that are
    // not yet written.
    let mut indented_code: Option<usize> = None;
    for line in text.trim_end().lines() {
        let line = line.trim_end();
        let indent = line.len() - line.trim_start().len();
        // An indented code block would be compiled as a Rust doctest (and
        // fail: it is curl or JSON); it becomes a `text` fence. It starts
        // after a blank line, which also ends any list, so it is always at
        // the margin, four columns in.
        if let Some(blanks) = indented_code {
            if line.is_empty() {
                indented_code = Some(blanks + 1);
                continue;
            }
            if indent >= 4 {
                out.extend(std::iter::repeat_n(String::new(), blanks));
                out.push(line[4..].to_owned());
                indented_code = Some(0);
                continue;
            }
            out.push("```".to_owned());
            out.extend(std::iter::repeat_n(String::new(), blanks));
            indented_code = None;
        }
        let after_blank = out.last().is_none_or(|l: &String| l.trim().is_empty());
        if !in_fence && after_blank && indent >= 4 {
            out.push("```text".to_owned());
            out.push(line[4..].to_owned());
            indented_code = Some(0);
            continue;
        }
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            // A fence without a language would be compiled as a Rust doctest.
            let trimmed = line.trim_start();
            if in_fence && trimmed == "```" {
                out.push(line.replacen("```", "```text", 1));
            } else if in_fence {
                // Only the language: rustdoc refuses other attributes
                // (```json title="…"```).
                let indent = &line[..line.len() - trimmed.len()];
                let info = trimmed.trim_start_matches('`');
                let fence = &trimmed[..trimmed.len() - info.len()];
                let language = info.split_whitespace().next().unwrap_or("text");
                out.push(format!("{indent}{fence}{language}"));
            } else {
                out.push(line.to_owned());
            }
            continue;
        }
        if in_fence {
            out.push(line.to_owned());
            continue;
        }
        // A line right after a list item that is not indented to the item's
        // text would continue it lazily (clippy's `doc_lazy_continuation`):
        // a paragraph gets a blank line before it, an indented line the
        // item's indentation. One indented further continues it too (it
        // cannot start a code block: that needs a blank line before it,
        // which ends the list), and gets the item's indentation
        // (`doc_overindented_list_items`).
        //
        // A marker four or more columns past the text of the item above
        // starts no item (Azure's `1. …` then `            2. …`): it
        // continues that item's text, as any line indented so far does.
        let item = list_item_indent(line)
            .filter(|_| list_indent.is_none_or(|text_at| indent < text_at + 4));
        let mut line = line.to_owned();
        if let (Some(text_at), None, false) = (list_indent, item, line.is_empty()) {
            if indent == 0 {
                out.push(String::new());
            } else {
                line = format!("{}{}", " ".repeat(text_at), line.trim_start());
            }
        }
        list_indent = match item {
            Some(text_at) => Some(text_at),
            None if line.is_empty() || indent == 0 => None,
            None => list_indent,
        };
        out.push(escape_outside_code(&line));
    }
    if indented_code.is_some() {
        out.push("```".to_owned());
    }
    if in_fence {
        out.push("```".to_owned());
    }
    out
}

/// The column where the text of the Markdown list item `line` starts
/// (`- `, `* `, `+ `, `1. `, `1) `), if it is one.
fn list_item_indent(line: &str) -> Option<usize> {
    let rest = line.trim_start();
    let indent = line.len() - rest.len();
    let marker = if ["- ", "* ", "+ "].iter().any(|m| rest.starts_with(m)) {
        1
    } else {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let ordered =
            digits > 0 && (rest[digits..].starts_with(". ") || rest[digits..].starts_with(") "));
        if !ordered {
            return None;
        }
        digits + 1
    };
    // The text starts after one to four spaces (`*  All`: the third
    // column past the marker); five or more are one space and code.
    let spaces = rest[marker..].chars().take_while(|c| *c == ' ').count();
    let gap = if spaces <= 4 { spaces } else { 1 };
    Some(indent + marker + gap)
}

fn escape_outside_code(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    for (i, part) in line.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(part); // inside a code span
            continue;
        }
        let mut rest = part;
        while !rest.is_empty() {
            match find_url(rest) {
                Some((start, end)) => {
                    out.push_str(&escape_text(&rest[..start]));
                    out.push('<');
                    out.push_str(&rest[start..end]);
                    out.push('>');
                    rest = &rest[end..];
                }
                None => {
                    out.push_str(&escape_text(rest));
                    rest = "";
                }
            }
        }
    }
    // An odd number of backticks leaves a code span open; rustdoc copes.
    out
}

fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '[' | ']' | '<' | '>' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// The byte range of the first `http(s)://…` URL in `text`.
fn find_url(text: &str) -> Option<(usize, usize)> {
    let start = ["https://", "http://"]
        .iter()
        .filter_map(|scheme| text.find(scheme))
        .min()?;
    let end = text[start..]
        .find(|c: char| c.is_whitespace() || matches!(c, ')' | '>' | '"' | '\'' | '<'))
        .map_or(text.len(), |len| start + len);
    // Trailing punctuation ends a sentence, not the URL.
    let url = text[start..end].trim_end_matches(['.', ',', ';', ':']);
    Some((start, start + url.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn makes_markdown_safe_for_rustdoc() {
        assert_eq!(
            markdown_lines("See https://example.com/a. Send [x] as `Bearer <token>` or <b>"),
            ["See <https://example.com/a>. Send \\[x\\] as `Bearer <token>` or \\<b\\>"]
        );
        assert_eq!(
            markdown_lines("```\nlet x = [1];\n```"),
            ["```text", "let x = [1];", "```"]
        );
        assert_eq!(
            markdown_lines("| Tags\t| 20 |\n\tindented"),
            ["| Tags    | 20 |", "    indented"]
        );
    }

    #[test]
    fn ends_lists_before_lines_that_would_continue_them_lazily() {
        assert_eq!(
            markdown_lines("* A\n* B\n> Note.\n1. One\n  a. sub\n2. Two"),
            [
                "* A",
                "* B",
                "",
                "\\> Note.",
                "1. One",
                "   a. sub",
                "2. Two"
            ]
        );
        // The item's text starts where its first word does (`*  All`).
        assert_eq!(
            markdown_lines("  *  All data\n    i.e. more"),
            ["  *  All data", "     i.e. more"]
        );
        // Indented further than the item's text, right after it (Jira's,
        // climate.com's): the item's indentation.
        assert_eq!(
            markdown_lines("- from: a time\n           only records after it"),
            ["- from: a time", "  only records after it"]
        );
        // Even when it looks like an item of its own (Azure's backup
        // documents): it cannot start one there.
        assert_eq!(
            markdown_lines("  1. Secret\n            2. Key\n               Both."),
            ["  1. Secret", "     2. Key", "     Both."]
        );
        // Four columns past the item's text is already too far for a
        // marker (the text of `1. Secret` starts at column 5); three is not.
        assert_eq!(
            markdown_lines("  1. Secret\n         2. Key"),
            ["  1. Secret", "     2. Key"]
        );
        assert_eq!(
            markdown_lines("  1. Secret\n        2. Key"),
            ["  1. Secret", "        2. Key"]
        );
    }

    /// A paragraph after a list ends it once: its second line is not
    /// taken for another lazy continuation.
    #[test]
    fn a_paragraph_after_a_list_is_one_paragraph() {
        assert_eq!(
            markdown_lines("- item\nfirst line\nsecond line"),
            ["- item", "", "first line", "second line"]
        );
    }

    #[test]
    fn list_markers_are_bullets_or_numbers() {
        assert_eq!(list_item_indent("- a"), Some(2));
        assert_eq!(list_item_indent("  12) a"), Some(6));
        assert_eq!(list_item_indent("1.  a"), Some(4));
        // A dot or parenthesis without a number before it starts nothing.
        assert_eq!(list_item_indent(". a"), None);
        assert_eq!(list_item_indent(") a"), None);
        assert_eq!(list_item_indent("1.5 a"), None);
    }

    /// A description that begins with the title says it already: the
    /// title is not written twice.
    #[test]
    fn a_title_the_description_begins_with_is_not_repeated() {
        let docs = |title: &str, description: &str| Docs {
            title: Some(title.to_owned()),
            description: Some(description.to_owned()),
            ..Docs::default()
        };
        let text = |tokens: TokenStream| tokens.to_string();
        assert_eq!(
            text(doc_attrs(&docs("Order", "Order placed by a customer."), "")),
            text(attrs(&["Order placed by a customer.".to_owned()]))
        );
        assert_eq!(
            text(doc_attrs(&docs("Order", "Placed by a customer."), "")),
            text(attrs(&[
                "Order".to_owned(),
                String::new(),
                "Placed by a customer.".to_owned()
            ]))
        );
    }

    /// rustc refuses a bare carriage return in a doc comment.
    #[test]
    fn a_carriage_return_alone_is_a_line_break() {
        assert_eq!(
            markdown_lines("\rFirst\r\nsecond\rthird"),
            ["First", "second", "third"]
        );
    }

    /// An indented code block (curl, JSON) would be a Rust doctest: it
    /// becomes a `text` fence (after a blank line, a list item is over,
    /// so one below an item is fenced at the margin, its extra
    /// indentation kept).
    #[test]
    fn fences_indented_code_blocks() {
        assert_eq!(
            markdown_lines("Call:\n\n    curl -X GET \\\n      https://x\n\n    # two\n\nDone."),
            [
                "Call:",
                "",
                "```text",
                "curl -X GET \\",
                "  https://x",
                "",
                "# two",
                "```",
                "",
                "Done."
            ]
        );
        assert_eq!(
            markdown_lines("- item\n\n      {\"a\": 1}\n- next"),
            ["- item", "", "```text", "  {\"a\": 1}", "```", "- next"]
        );
        // Right after text, an indented line continues the paragraph.
        assert_eq!(markdown_lines("Text\n    more"), ["Text", "    more"]);
        assert_eq!(
            markdown_lines("```json title=\"Example\"\n{}\n```"),
            ["```json", "{}", "```"]
        );
    }
}
