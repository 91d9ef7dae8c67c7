//! The generator never panics, whatever the document: every vendored public
//! document (`codegen-tests/specs/external/`, and the OpenAPI 3.1 ones of
//! `codegen-tests/specs/external-3.1/` that generate) is broken mechanically
//! in many ways, and each broken copy must either generate or stop with an
//! error that names the document and a JSON pointer into it (`file#/...`).
//!
//! The breakages, for every node of the document: delete it; replace it with
//! a value of another type (number, string, array, null, object), a string
//! with an empty or odd one, a number with zero or a negative, fractional or
//! huge one; rename its key to an empty, non-identifier or malformed-path name, or copy it under
//! a key that differs only in case or underscores; copy an array element
//! (duplicate parameters, enum values, ...). For every `$ref`: point it
//! nowhere, outside the document, at something of another kind, at itself,
//! and into a cycle with its target.
//!
//! That is about 35,000 variants for the 3.0 documents, and far more for the
//! 3.1 ones, which are up to 640 kB each. By default a deterministic sample
//! runs: 48 per 3.0 document, and for each 3.1 document of at most
//! [`LARGEST_BY_DEFAULT`] bytes as many as fit in [`SAMPLE_BYTES_3_1`]
//! bytes of document (one at least), up to half of them `$ref` breakages,
//! spread evenly over the document. `ROBUSTNESS_ALL=1` runs every variant
//! of the 3.0 documents and a larger sample of every 3.1 document, the
//! largest included. docs/testing.md gives the counts:
//!
//! ```sh
//! ROBUSTNESS_ALL=1 cargo test --release -p openapi-codegen --test robustness
//! ```

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

mod vendored;

use std::any::Any;
use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use openapi_codegen::config::Target;
use openapi_codegen::emit::{self, Context, RuntimeSource, WorkspaceToml};
use openapi_codegen::parse::Document;
use serde_yaml::{Mapping, Value};
use vendored::{documents, documents_3_1};

/// Variants run per 3.0 document by default (all `$ref` breakages count too).
const SAMPLE_PER_DOCUMENT: usize = 48;

/// The bytes of document the default sample of one 3.1 document may break:
/// each variant is parsed and lowered whole, and those documents are large.
const SAMPLE_BYTES_3_1: usize = 100_000;

/// 3.1 documents larger than this are broken only when all variants are
/// asked for (`ROBUSTNESS_ALL=1`): lowering them once takes seconds in a
/// debug build.
const LARGEST_BY_DEFAULT: usize = 200_000;

/// How many variants of a document of `len` bytes run (by default, or with
/// `all`), and whether `all` runs every variant.
fn sample_size(len: usize, is_3_1: bool, all: bool) -> (usize, bool) {
    let per_bytes = |budget: usize| (budget / len.max(1)).clamp(1, SAMPLE_PER_DOCUMENT);
    match (is_3_1, all) {
        (false, _) => (SAMPLE_PER_DOCUMENT, true),
        (true, false) if len > LARGEST_BY_DEFAULT => (0, false),
        (true, false) => (per_bytes(SAMPLE_BYTES_3_1), false),
        (true, true) => (per_bytes(100 * SAMPLE_BYTES_3_1) * 4, false),
    }
}

/// One way of breaking a document.
#[derive(Clone, Debug)]
enum Mutation {
    /// Remove the node at the path from its parent.
    Delete(Vec<Token>),
    /// Replace the node at the path.
    Replace(Vec<Token>, Value),
    /// Rename the map key at the path (its last token) to the string.
    RenameKey(Vec<Token>, String),
    /// Copy the node at the path next to itself: under the key given, in a
    /// mapping; as the next element, in a sequence.
    Duplicate(Vec<Token>, Option<String>),
    /// Set the `$ref` at the path (a mapping holding `$ref`) to the string,
    /// and, when given, replace the node at the second path with the value.
    Ref(Vec<Token>, String, Option<(Vec<Token>, Value)>),
}

/// A step into a mapping (by its key, kept as a value: keys may be numbers
/// in YAML) or a sequence.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Key(Value),
    Index(usize),
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn key_text(key: &Value) -> String {
    match key {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => format!("{other:?}"),
    }
}

fn pointer(path: &[Token]) -> String {
    let mut out = String::from("#");
    for token in path {
        out.push('/');
        match token {
            Token::Key(k) => out.push_str(&escape(&key_text(k))),
            Token::Index(i) => out.push_str(&i.to_string()),
        }
    }
    out
}

impl std::fmt::Display for Mutation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mutation::Delete(p) => write!(f, "delete {}", pointer(p)),
            Mutation::Replace(p, v) => write!(f, "replace {} with {}", pointer(p), short(v)),
            Mutation::RenameKey(p, k) => write!(f, "rename key {} to {k:?}", pointer(p)),
            Mutation::Duplicate(p, None) => write!(f, "duplicate {}", pointer(p)),
            Mutation::Duplicate(p, Some(k)) => write!(f, "copy {} to key {k:?}", pointer(p)),
            Mutation::Ref(p, r, None) => write!(f, "set {}/$ref to {r:?}", pointer(p)),
            Mutation::Ref(p, r, Some((q, v))) => write!(
                f,
                "set {}/$ref to {r:?} and {} to {}",
                pointer(p),
                pointer(q),
                short(v)
            ),
        }
    }
}

fn short(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| format!("{v:?}"))
}

fn get_mut<'a>(root: &'a mut Value, path: &[Token]) -> Option<&'a mut Value> {
    let mut node = root;
    for token in path {
        node = match (node, token) {
            (Value::Mapping(m), Token::Key(k)) => m.get_mut(k)?,
            (Value::Sequence(s), Token::Index(i)) => s.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(node)
}

fn get<'a>(root: &'a Value, path: &[Token]) -> Option<&'a Value> {
    let mut node = root;
    for token in path {
        node = match (node, token) {
            (Value::Mapping(m), Token::Key(k)) => m.get(k)?,
            (Value::Sequence(s), Token::Index(i)) => s.get(*i)?,
            _ => return None,
        };
    }
    Some(node)
}

/// The document with `mutation` applied.
fn apply(doc: &Value, mutation: &Mutation) -> Value {
    let mut doc = doc.clone();
    match mutation {
        Mutation::Delete(path) => {
            let (last, parent) = path.split_last().expect("not the root");
            match (get_mut(&mut doc, parent).expect("exists"), last) {
                (Value::Mapping(m), Token::Key(k)) => {
                    m.shift_remove(k);
                }
                (Value::Sequence(s), Token::Index(i)) => {
                    s.remove(*i);
                }
                _ => unreachable!(),
            }
        }
        Mutation::Replace(path, value) => *get_mut(&mut doc, path).expect("exists") = value.clone(),
        Mutation::RenameKey(path, new) => {
            let (Some(Token::Key(old)), parent) = (path.last(), &path[..path.len() - 1]) else {
                unreachable!()
            };
            let Some(Value::Mapping(m)) = get_mut(&mut doc, parent) else {
                unreachable!()
            };
            // Keep the order of the keys: rebuild the mapping.
            let renamed: Mapping = std::mem::take(m)
                .into_iter()
                .map(|(k, v)| {
                    if &k == old {
                        (Value::String(new.clone()), v)
                    } else {
                        (k, v)
                    }
                })
                .collect();
            *m = renamed;
        }
        Mutation::Duplicate(path, key) => {
            let (last, parent) = path.split_last().expect("not the root");
            let copy = get(&doc, path).expect("exists").clone();
            match (get_mut(&mut doc, parent).expect("exists"), last, key) {
                (Value::Mapping(m), _, Some(key)) => {
                    m.insert(Value::from(key.as_str()), copy);
                }
                (Value::Sequence(s), Token::Index(i), None) => s.insert(i + 1, copy),
                _ => unreachable!(),
            }
        }
        Mutation::Ref(path, reference, also) => {
            if let Some((q, v)) = also {
                *get_mut(&mut doc, q).expect("exists") = v.clone();
            }
            let Some(Value::Mapping(m)) = get_mut(&mut doc, path) else {
                unreachable!()
            };
            m.insert(Value::from("$ref"), Value::from(reference.as_str()));
        }
    }
    doc
}

/// The path a local `$ref` names, if it names a node of `doc`.
fn ref_target(doc: &Value, reference: &str) -> Option<Vec<Token>> {
    let rest = reference.strip_prefix("#/")?;
    let mut path = Vec::new();
    let mut node = doc;
    for raw in rest.split('/') {
        let token = raw.replace("~1", "/").replace("~0", "~");
        let next = match node {
            Value::Mapping(m) => {
                let key = m.keys().find(|k| key_text(k) == token)?.clone();
                let next = &m[&key];
                path.push(Token::Key(key));
                next
            }
            Value::Sequence(s) => {
                let i: usize = token.parse().ok()?;
                path.push(Token::Index(i));
                s.get(i)?
            }
            _ => return None,
        };
        node = next;
    }
    Some(path)
}

/// Every way of breaking `doc`: `$ref` breakages first, then the others.
fn mutations(doc: &Value) -> (Vec<Mutation>, Vec<Mutation>) {
    let mut refs = Vec::new();
    let mut others = Vec::new();
    let mut stack: Vec<Vec<Token>> = vec![Vec::new()];
    while let Some(path) = stack.pop() {
        let node = get(doc, &path).expect("exists");
        if !path.is_empty() {
            others.push(Mutation::Delete(path.clone()));
            let replacements = [
                Value::from(7),
                Value::from("x"),
                Value::Sequence(Vec::new()),
                Value::Null,
                Value::Mapping(Mapping::new()),
            ];
            for value in replacements {
                if std::mem::discriminant(&value) != std::mem::discriminant(node) {
                    others.push(Mutation::Replace(path.clone(), value));
                }
            }
            match path.last() {
                Some(Token::Key(key)) => {
                    for name in [
                        "", "1 2-", "self", "_", "{x}", "/a/{", "/{}//{}", "200", "é",
                    ] {
                        others.push(Mutation::RenameKey(path.clone(), name.to_owned()));
                    }
                    // Names that differ from this one only in case or
                    // separators: they collide once made Rust names.
                    let key = key_text(key);
                    for twin in [format!("{key}_"), key.to_uppercase(), format!("_{key}")] {
                        others.push(Mutation::Duplicate(path.clone(), Some(twin)));
                    }
                }
                Some(Token::Index(_)) => others.push(Mutation::Duplicate(path.clone(), None)),
                None => {}
            }
            match node {
                Value::String(s) => {
                    for weird in ["", "{", "(", "a b/c", "self", "1"] {
                        if s != weird {
                            others.push(Mutation::Replace(path.clone(), Value::from(weird)));
                        }
                    }
                }
                Value::Number(_) => {
                    for weird in [
                        Value::from(0),
                        Value::from(-1),
                        Value::from(1.5),
                        Value::from(4_294_967_296_u64),
                    ] {
                        others.push(Mutation::Replace(path.clone(), weird));
                    }
                }
                _ => {}
            }
        }
        match node {
            Value::Mapping(m) => {
                if let Some(Value::String(reference)) = m.get("$ref") {
                    let here = pointer(&path);
                    for broken in [
                        "#/components/schemas/Nowhere".to_owned(),
                        "other.yaml#/components/schemas/Pet".to_owned(),
                        "#/info".to_owned(),
                        "#".to_owned(),
                        "#components".to_owned(),
                        here.clone(),
                    ] {
                        refs.push(Mutation::Ref(path.clone(), broken, None));
                    }
                    if let Some(target) = ref_target(doc, reference) {
                        // The target refers back here: a cycle of two.
                        let back = Value::Mapping(Mapping::from_iter([(
                            Value::from("$ref"),
                            Value::from(here.as_str()),
                        )]));
                        refs.push(Mutation::Ref(
                            path.clone(),
                            reference.clone(),
                            Some((target, back)),
                        ));
                    }
                }
                for key in m.keys() {
                    let mut child = path.clone();
                    child.push(Token::Key(key.clone()));
                    stack.push(child);
                }
            }
            Value::Sequence(s) => {
                for i in 0..s.len() {
                    let mut child = path.clone();
                    child.push(Token::Index(i));
                    stack.push(child);
                }
            }
            _ => {}
        }
    }
    (refs, others)
}

thread_local! {
    /// Where the last panic on this thread happened, caught or not.
    static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

/// The generator on `text`, as `cargo xtask generate` runs it: parse, lower,
/// emit the three crates and the workspace manifest. Emitting is most of
/// the time, and a pure function of the lowered API: when that is the
/// original document's (`unchanged`, its `Debug` text), it is skipped.
fn generate(
    text: &str,
    is_json: bool,
    label: &str,
    unchanged: Option<&str>,
) -> Result<String, String> {
    let doc = Document::parse(text, label, is_json).map_err(|e| e.to_string())?;
    let api = openapi_codegen::lower::lower(&doc).map_err(|e| e.to_string())?;
    let lowered = format!("{api:?}");
    if unchanged == Some(lowered.as_str()) {
        return Ok(lowered);
    }
    let target = Target::standalone(PathBuf::from(label), "broken");
    let cx = Context {
        api: &api,
        target: &target,
        command: "test",
        client_example: None,
    };
    let emitted = [
        emit::emit_models(&cx),
        emit::emit_client(&cx),
        emit::emit_server(&cx),
    ];
    for files in emitted {
        files.map_err(|e| e.to_string())?;
    }
    let runtime = RuntimeSource::Vendored(RuntimeSource::VENDORED_DIR.to_owned());
    WorkspaceToml::render(&cx, &runtime).map_err(|e| e.to_string())?;
    Ok(lowered)
}

/// The lowered API of `text`, as its `Debug` text.
fn lowered(text: &str, is_json: bool, label: &str) -> Result<String, String> {
    let doc = Document::parse(text, label, is_json).map_err(|e| e.to_string())?;
    let api = openapi_codegen::lower::lower(&doc).map_err(|e| e.to_string())?;
    Ok(format!("{api:?}"))
}

/// What is wrong with the generator's answer to `text`, if anything.
fn check(text: &str, is_json: bool, label: &str, unchanged: &str) -> Option<String> {
    match std::panic::catch_unwind(|| generate(text, is_json, label, Some(unchanged))) {
        Ok(Ok(_)) => None,
        Ok(Err(message)) => {
            let Some(rest) = message.strip_prefix(&format!("{label}#")) else {
                return Some(format!("error without the document: {message}"));
            };
            if !rest.starts_with('/') {
                return Some(format!("error without a JSON pointer: {message}"));
            }
            None
        }
        Err(payload) => {
            let at = PANIC_AT.with(|p| p.borrow_mut().take()).unwrap_or_default();
            Some(format!("PANIC at {at}: {}", panic_message(&*payload)))
        }
    }
}

/// The label, tree and lowered API of the document `spec`, and the
/// variants of it to check: every one (`all`, for a 3.0 document) or the
/// sample.
fn prepare(
    root: &std::path::Path,
    spec: &std::path::Path,
    is_3_1: bool,
    all: bool,
) -> (String, Value, String, Vec<Mutation>) {
    let label = spec.to_string_lossy().replace('\\', "/");
    let text = std::fs::read_to_string(root.join(spec)).expect("readable");
    let (sample, all_of_it) = sample_size(text.len(), is_3_1, all);
    let doc: Value = serde_yaml::from_str(&text).expect("YAML or JSON");
    // Only lowered: that the original emits is `external.rs`'s to check,
    // and emitting the large 3.1 documents would be most of the time.
    let original =
        lowered(&text, label.ends_with(".json"), &label).unwrap_or_else(|e| panic!("{e}"));
    let (refs, others) = mutations(&doc);
    let chosen: Vec<Mutation> = if all && all_of_it {
        refs.into_iter().chain(others).collect()
    } else {
        // Up to half for the `$ref` breakages, the rest for the others,
        // evenly spread over the document.
        let refs_room = (sample / 2).min(refs.len());
        let room = sample - refs_room;
        let spread = |all: Vec<Mutation>, room: usize| -> Vec<Mutation> {
            let step = all.len().div_ceil(room.max(1)).max(1);
            all.into_iter().step_by(step).collect()
        };
        let mut chosen = spread(refs, refs_room);
        chosen.extend(spread(others, room));
        chosen
    };
    (label, doc, original, chosen)
}

#[test]
fn broken_documents_give_errors_with_pointers_never_panics() {
    let all = std::env::var_os("ROBUSTNESS_ALL").is_some();
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        PANIC_AT.with(|p| *p.borrow_mut() = Some(at));
        if std::env::var_os("ROBUSTNESS_VERBOSE").is_some() {
            default_hook(info);
        }
    }));

    let root = vendored::root();
    let specs: Vec<(PathBuf, bool)> = documents()
        .into_iter()
        .map(|d| (d, false))
        .chain(documents_3_1().into_iter().map(|d| (d, true)))
        .filter(|(spec, is_3_1)| {
            let len = std::fs::metadata(root.join(spec)).map_or(0, |m| m.len() as usize);
            sample_size(len, *is_3_1, all).0 > 0
        })
        .collect();
    // Each document once (label, tree, lowered API) and its chosen variants,
    // prepared in parallel: lowering the large 3.1 documents takes a while.
    let prepared: Vec<(String, Value, String, Vec<Mutation>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = specs
            .iter()
            .map(|(spec, is_3_1)| {
                let root = &root;
                scope.spawn(move || prepare(root, spec, *is_3_1, all))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("preparing a document does not panic"))
            .collect()
    });
    let mut originals: Vec<(String, Value, String)> = Vec::new();
    let mut work: Vec<(usize, Mutation)> = Vec::new();
    for (label, doc, original, chosen) in prepared {
        work.extend(chosen.into_iter().map(|m| (originals.len(), m)));
        originals.push((label, doc, original));
    }

    let total = work.len();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let started = std::time::Instant::now();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((document, mutation)) = work.get(i) else {
                        break;
                    };
                    let (label, doc, original) = &originals[*document];
                    let broken = apply(doc, mutation);
                    // JSON parses faster than YAML; YAML for keys JSON cannot have.
                    let (text, is_json) = match serde_json::to_string(&broken) {
                        Ok(json) => (json, true),
                        Err(_) => (serde_yaml::to_string(&broken).expect("serialisable"), false),
                    };
                    if let Some(problem) = check(&text, is_json, label, original) {
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("{label}: {mutation}: {problem}"));
                    }
                }
            });
        }
    });
    let _ = std::panic::take_hook();
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    eprintln!(
        "{total} broken documents checked in {} ms",
        started.elapsed().as_millis()
    );
    assert!(all || total >= 400, "only {total} variants");
    assert!(
        failures.is_empty(),
        "{} of {total} broken documents were mishandled:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
