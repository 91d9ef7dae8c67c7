//! Path templates as the document writes them (`/packages/{name}-{version}.zip`),
//! read the same way by the client, which fills them, and the server
//! stubs, which split requests' paths by them.

/// How a path parameter is written when its style is not `simple` (RFC
/// 6570's `{.name}` and `{;name}`): its text starts with a lead, which an
/// exploded list repeats before each item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathStyle {
    /// `label`: `.blue`, a list `.blue,black` (`.blue.black` exploded).
    Label,
    /// `matrix`: `;color=blue`, a list `;color=blue,black`
    /// (`;color=blue;color=black` exploded); an empty value is `;color`.
    Matrix,
}

/// The fixed text of a template's segment: before its first parameter,
/// between each two, after the last (`v{major}.{minor}`: `["v", ".", ""]`).
pub(crate) fn fixed_text(segment: &str) -> Vec<&str> {
    let mut fixed = Vec::new();
    let mut rest = segment;
    while let Some(open) = rest.find('{') {
        fixed.push(&rest[..open]);
        rest = rest[open..]
            .find('}')
            .map_or("", |close| &rest[open + close + 1..]);
    }
    fixed.push(rest);
    fixed
}

#[cfg(test)]
mod tests {
    use super::fixed_text;

    #[test]
    fn a_segment_is_its_fixed_text_around_the_parameters() {
        assert_eq!(fixed_text("v{major}.{minor}"), ["v", ".", ""]);
        assert_eq!(fixed_text("{id}"), ["", ""]);
        assert_eq!(fixed_text("{name}-{version}.zip"), ["", "-", ".zip"]);
        assert_eq!(fixed_text("files"), ["files"]);
    }
}
