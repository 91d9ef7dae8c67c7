//! A document's text → its YAML tree: JSON or YAML by the file's name, a
//! byte-order mark dropped, and numbers written where text belongs
//! (`version: 1.0`) read as the text they were written as.

use std::path::Path;

use crate::error::{Error, Result};
use crate::pointer::Pointer;

/// Whether the field `key` of a node holds data rather than the document's
/// structure (`example`, `default`, `enum`, `const`, extensions): the
/// tree's rewritings leave what is under it alone.
pub(super) fn holds_data(key: &str) -> bool {
    matches!(key, "example" | "examples" | "default" | "enum" | "const") || key.starts_with("x-")
}

/// The document's tree, from its text.
pub(super) fn tree(text: &str, file: &str, is_json: bool) -> Result<serde_yaml::Value> {
    // Editors on Windows start files with a byte-order mark; neither parser
    // takes one.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut tree = parse_tree(text, file, is_json)?;
    texts_as_written(&mut tree);
    Ok(tree)
}

/// Unquoted, `version: 1.0` and `openapi: 3.0` are YAML numbers; they are
/// taken as the text they were written as (a float's digits as YAML reads
/// them: `1.10` is `1.1`).
fn texts_as_written(tree: &mut serde_yaml::Value) {
    fn as_text(value: Option<&mut serde_yaml::Value>) {
        if let Some(value) = value {
            if let serde_yaml::Value::Number(number) = value {
                *value = serde_yaml::Value::String(number.to_string());
            }
        }
    }
    as_text(tree.get_mut("openapi"));
    as_text(
        tree.get_mut("info")
            .and_then(|info| info.get_mut("version")),
    );
}

fn parse_tree(text: &str, file: &str, is_json: bool) -> Result<serde_yaml::Value> {
    if is_json {
        serde_json::from_str(text)
            .map_err(|e| Error::invalid(file, &Pointer::root(), format!("not valid JSON: {e}")))
    } else {
        let mut tree: serde_yaml::Value = serde_yaml::from_str(text)
            .map_err(|e| Error::invalid(file, &Pointer::root(), format!("not valid YAML: {e}")))?;
        // Merge keys (`<<: *defaults`) are how YAML documents share parts;
        // unapplied, a shared `description` would be missing and shared
        // properties silently lost.
        tree.apply_merge().map_err(|e| {
            Error::invalid(
                file,
                &Pointer::root(),
                format!("a YAML merge key (`<<`) cannot be applied: {e}"),
            )
        })?;
        Ok(tree)
    }
}

/// Whether the file at `path` is read as JSON (by its name), else as YAML.
pub(super) fn is_json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::is_json;

    #[test]
    fn a_file_is_json_by_its_extension_in_any_case() {
        assert!(is_json(Path::new("spec/openapi.json")));
        assert!(is_json(Path::new("SPEC.JSON")));
        assert!(!is_json(Path::new("spec/openapi.yaml")));
        assert!(!is_json(Path::new("json")));
    }
}
