//! Which operation a request is for: its path matched against the
//! document's path templates, the most literal first (`/pets/mine` before
//! `/pets/{id}`), then its method.

use openapi_codegen::ir::{Operation, template_shape};

/// One path template, compiled.
pub struct Route {
    regex: regex_lite::Regex,
    /// The template's parameters, in order.
    names: Vec<String>,
    /// The operations of this path, by index into `Api::operations`.
    pub operations: Vec<usize>,
    /// The methods of this path, as `Allow` lists them.
    pub allow: &'static str,
}

/// The path templates of a document, most literal first.
pub struct Routes(Vec<Route>);

impl Routes {
    /// The routes of `operations`.
    pub fn new(operations: &[Operation]) -> Routes {
        let mut by_path: Vec<(&str, Vec<usize>)> = Vec::new();
        for (index, op) in operations.iter().enumerate() {
            match by_path.iter_mut().find(|(path, _)| *path == op.path) {
                Some((_, ops)) => ops.push(index),
                None => by_path.push((&op.path, vec![index])),
            }
        }
        // `Allow` lists the methods of every template of the path's shape
        // (`/a/{id}` and `/a/{key}` are one path to a client).
        let methods_of_shape = |path: &str| -> String {
            let shape = template_shape(path);
            let mut methods: Vec<&str> = Vec::new();
            for op in operations
                .iter()
                .filter(|op| template_shape(&op.path) == shape)
            {
                if !methods.contains(&op.method.as_str()) {
                    methods.push(op.method.as_str());
                }
            }
            methods.join(", ")
        };
        let mut routes: Vec<(usize, Route)> = by_path
            .into_iter()
            .filter_map(|(path, ops)| {
                let (regex, names, literal) = compile(path)?;
                let allow: &'static str = Box::leak(methods_of_shape(path).into_boxed_str());
                Some((
                    literal,
                    Route {
                        regex,
                        names,
                        operations: ops,
                        allow,
                    },
                ))
            })
            .collect();
        routes.sort_by(|(a, _), (b, _)| b.cmp(a));
        Routes(routes.into_iter().map(|(_, route)| route).collect())
    }

    /// The routes `path` fits, most literal first, each with the values of
    /// its parameters, percent-decoded: several templates can fit one path
    /// (`/a/{id}/cancel` and `/a/{id}/{action}`), each with its methods.
    pub fn find(&self, path: &str) -> Vec<(&Route, Vec<(String, String)>)> {
        self.0
            .iter()
            .filter_map(|route| {
                let captures = route.regex.captures(path)?;
                let values = route
                    .names
                    .iter()
                    .zip(captures.iter().skip(1))
                    .map(|(name, value)| {
                        let raw = value.map_or("", |m| m.as_str());
                        let decoded = percent_encoding::percent_decode_str(raw).decode_utf8_lossy();
                        (name.clone(), decoded.into_owned())
                    })
                    .collect();
                Some((route, values))
            })
            .collect()
    }
}

/// A template as an anchored regular expression (each parameter one
/// segment's text, or part of it), its parameters' names, and how many
/// literal characters it has.
fn compile(template: &str) -> Option<(regex_lite::Regex, Vec<String>, usize)> {
    let mut pattern = String::from("^");
    let mut names = Vec::new();
    let mut literal = 0;
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}')?;
        pattern.push_str(&regex_lite::escape(&rest[..open]));
        literal += rest[..open].len();
        pattern.push_str("([^/]+)");
        names.push(rest[open + 1..close].to_owned());
        rest = &rest[close + 1..];
    }
    pattern.push_str(&regex_lite::escape(rest));
    literal += rest.len();
    pattern.push('$');
    Some((regex_lite::Regex::new(&pattern).ok()?, names, literal))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_whole_segments_and_decode_their_values() {
        let (regex, names, literal) = compile("/files/{name}.json").unwrap();
        assert_eq!(names, ["name"]);
        assert_eq!(literal, "/files/.json".len());
        assert!(regex.is_match("/files/a%20b.json"));
        assert!(!regex.is_match("/files/a/b.json"));
        assert!(!regex.is_match("/files/.json"));
    }
}
