//! Documents split over several files. A `$ref` may name another file
//! (`schemas/pet.yaml`, `../common.yaml#/components/schemas/Error`), as
//! teams split a large document and tools such as `redocly split` write
//! one. Before anything else reads the document, every such reference is
//! brought into the root document, as a bundler would:
//!
//! - a schema, parameter, response, request body, header, link, callback
//!   or security scheme becomes a component of the root, named as
//!   in its file (`Error` for `common.yaml#/components/schemas/Error`), or
//!   after the file when the reference names the whole file (`pet` for
//!   `schemas/pet.yaml`); a root component that is nothing but such a
//!   reference (`Pet: {$ref: schemas/pet.yaml}`) is replaced by what it
//!   names, under its own name;
//! - a path item is written where it is referred to;
//! - examples are left as they are: nothing is generated from them, and
//!   documents refer to files of raw example data, which are no example
//!   objects, as tools that show them allow.
//!
//! Each node is brought in once however many places refer to it, so that a
//! schema keeps one Rust type and a schema that refers to itself through
//! its file stays a reference. What kind of node a reference stands for is
//! read from where it is ([`Kind`]), since a file of its own says nothing.
//! [`Sources`] remembers where each brought-in node came from, so that an
//! error names the file the user has to fix.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use serde_yaml::{Mapping, Value};

use crate::error::{Error, Result};
use crate::pointer::Pointer;

/// Where the nodes brought in from other files came from.
#[derive(Debug, Default, Clone)]
pub struct Sources {
    /// (pointer in the bundled document) → (file, pointer in that file).
    moves: HashMap<Pointer, (String, Pointer)>,
    /// Every file read besides the root, canonical, sorted.
    files: Vec<PathBuf>,
}

impl Sources {
    /// The file and pointer of the node at `pointer` of the bundled
    /// document, when it was brought in from another file.
    pub fn locate(&self, pointer: &Pointer) -> Option<(String, Pointer)> {
        if self.moves.is_empty() {
            return None;
        }
        pointer.ancestors().find_map(|from| {
            let (file, to) = self.moves.get(&from)?;
            Some((file.clone(), pointer.rebase(&from, to)?))
        })
    }

    /// Every file the document was read from besides its root (canonical
    /// paths, sorted): what a `build.rs` watches with the root.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }
}

/// Brings every node that `raw` (the document at `path`, named `label` in
/// messages) refers to in other files into `raw`.
pub fn bundle(raw: &mut Value, path: &Path, label: &str) -> Result<Sources> {
    // Most documents are one file: nothing to walk for.
    if !refers_to_files(raw) {
        return Ok(Sources::default());
    }
    let root = std::fs::canonicalize(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    let mut bundler = Bundler {
        labels: HashMap::from([(root.clone(), label.to_owned())]),
        root,
        files: HashMap::new(),
        homes: HashMap::new(),
        taken: HashMap::new(),
        pending: VecDeque::new(),
        inlining: Vec::new(),
        map_files: HashMap::new(),
        sources: Sources::default(),
    };
    bundler.claim_root_components(raw)?;
    let root = bundler.root.clone();
    let place = Place::of(&root, Pointer::root(), Pointer::root());
    bundler.walk(raw, Kind::Document, &place)?;
    while let Some(pending) = bundler.pending.pop_front() {
        let mut node = bundler.content(&pending.target, &pending.referrer)?;
        bundler.record(&pending.home, &pending.target);
        let (file, pointer) = &pending.target;
        let place = Place::of(file, pending.home.clone(), pointer.clone());
        bundler.walk(&mut node, pending.kind, &place)?;
        insert_component(raw, pending.kind, &pending.home, node);
    }
    let mut files: Vec<PathBuf> = bundler.files.into_keys().collect();
    files.retain(|file| *file != bundler.root);
    files.sort();
    bundler.sources.files = files;
    Ok(bundler.sources)
}

/// Whether a `$ref` under `node` names something outside its file (does
/// not start with `#`).
fn refers_to_files(node: &Value) -> bool {
    match node {
        Value::Mapping(map) => map.iter().any(|(key, value)| match value {
            Value::String(reference) => key.as_str() == Some("$ref") && !reference.starts_with('#'),
            _ => refers_to_files(value),
        }),
        Value::Sequence(items) => items.iter().any(refers_to_files),
        _ => false,
    }
}

/// What a node is, by its place in the document: which of its fields hold
/// nodes that may be references, and where a referenced one is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Document,
    Components,
    PathItem,
    Operation,
    Callback,
    Parameter,
    Header,
    RequestBody,
    Response,
    MediaType,
    Encoding,
    Schema,
    Link,
    SecurityScheme,
}

/// How a field holds nodes of a kind.
enum Field {
    One(Kind),
    /// A map of them, keyed by name.
    Map(Kind),
    List(Kind),
    /// One, or a list of them (`items`, which older drafts allow as a list).
    OneOrList(Kind),
}

impl Kind {
    /// The `components` section a referenced node of this kind is kept in;
    /// `None` for a path item, which is written where it is referred to.
    fn section(self) -> Option<&'static str> {
        Some(match self {
            Kind::Schema => "schemas",
            Kind::Parameter => "parameters",
            Kind::Header => "headers",
            Kind::RequestBody => "requestBodies",
            Kind::Response => "responses",
            Kind::Link => "links",
            Kind::Callback => "callbacks",
            Kind::SecurityScheme => "securitySchemes",
            _ => return None,
        })
    }

    /// What the field `key` of a node of this kind holds.
    fn field(self, key: &str) -> Option<Field> {
        use Field::{List, Map, One, OneOrList};
        Some(match (self, key) {
            (Kind::Document, "paths" | "webhooks") => Map(Kind::PathItem),
            (Kind::Document, "components") => One(Kind::Components),
            (Kind::Components, section) => Map(match section {
                "schemas" => Kind::Schema,
                "responses" => Kind::Response,
                "parameters" => Kind::Parameter,
                "requestBodies" => Kind::RequestBody,
                "headers" => Kind::Header,
                "securitySchemes" => Kind::SecurityScheme,
                "links" => Kind::Link,
                "callbacks" => Kind::Callback,
                "pathItems" => Kind::PathItem,
                _ => return None,
            }),
            (
                Kind::PathItem,
                "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace",
            ) => One(Kind::Operation),
            (Kind::PathItem | Kind::Operation, "parameters") => List(Kind::Parameter),
            (Kind::Operation, "requestBody") => One(Kind::RequestBody),
            (Kind::Operation, "responses") => Map(Kind::Response),
            (Kind::Operation, "callbacks") => Map(Kind::Callback),
            // A callback's fields are expressions, each a path item.
            (Kind::Callback, _) => One(Kind::PathItem),
            (Kind::Parameter | Kind::Header | Kind::MediaType, "schema") => One(Kind::Schema),
            (Kind::Parameter | Kind::Header | Kind::RequestBody | Kind::Response, "content") => {
                Map(Kind::MediaType)
            }
            (Kind::Response | Kind::Encoding, "headers") => Map(Kind::Header),
            (Kind::Response, "links") => Map(Kind::Link),
            (Kind::MediaType, "encoding") => Map(Kind::Encoding),
            (
                Kind::Schema,
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas",
            ) => Map(Kind::Schema),
            (Kind::Schema, "items") => OneOrList(Kind::Schema),
            (
                Kind::Schema,
                "additionalProperties"
                | "additionalItems"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "propertyNames"
                | "unevaluatedItems"
                | "unevaluatedProperties",
            ) => One(Kind::Schema),
            (Kind::Schema, "allOf" | "anyOf" | "oneOf" | "prefixItems") => List(Kind::Schema),
            _ => return None,
        })
    }
}

/// A node of another file: the file (canonical) and the pointer in it.
type Target = (PathBuf, Pointer);

/// Where a reference was written: its file's name and its pointer in that
/// file, for messages.
#[derive(Debug, Clone)]
struct Referrer {
    file: String,
    at: Pointer,
    reference: String,
}

/// A node to bring in as a component, once the walk in progress is done.
struct Pending {
    target: Target,
    kind: Kind,
    home: Pointer,
    referrer: Referrer,
}

/// Where a node being walked is: its file, its pointer in the root
/// document (`at`) and its pointer in that file (`src`).
struct Place<'f> {
    file: &'f Path,
    at: Pointer,
    src: Pointer,
}

impl<'f> Place<'f> {
    fn of(file: &'f Path, at: Pointer, src: Pointer) -> Self {
        Place { file, at, src }
    }

    fn push(&self, token: &str) -> Self {
        Place::of(self.file, self.at.push(token), self.src.push(token))
    }

    fn index(&self, index: usize) -> Self {
        Place::of(self.file, self.at.index(index), self.src.index(index))
    }
}

/// Where a reference leads.
enum Leads {
    /// Nowhere the generator can follow (a URL, an anchor): left as it is,
    /// to be refused where it is used, as before bundling.
    Left,
    /// Into the root document: a local reference, kept as it is.
    Root(Pointer),
    /// Into another file.
    Elsewhere(Target),
}

struct Bundler {
    /// The root document's file, canonical.
    root: PathBuf,
    /// How messages name each file read, by its canonical path.
    labels: HashMap<PathBuf, String>,
    /// The files read, by their canonical path.
    files: HashMap<PathBuf, Value>,
    /// Where each node brought in as a component is in the root document.
    homes: HashMap<Target, Pointer>,
    /// The component names in use, by section.
    taken: HashMap<&'static str, HashSet<String>>,
    /// Components found but not yet brought in, in the order found.
    pending: VecDeque<Pending>,
    /// The path items being written in place, to refuse a cycle of them.
    inlining: Vec<Target>,
    /// The maps of the root read whole from another file, by where they are.
    map_files: HashMap<Pointer, Target>,
    sources: Sources,
}

impl Bundler {
    /// Takes the root's component names, and makes each root component
    /// that is only a reference to another file the home of what it names.
    /// A section that is a whole file (`schemas: {$ref: schemas.yaml}`) is
    /// read now, so that its entries are the homes of those nodes too.
    fn claim_root_components(&mut self, raw: &mut Value) -> Result<()> {
        let Some(Value::Mapping(components)) = raw.get_mut("components") else {
            return Ok(());
        };
        let root = self.root.clone();
        for (section, items) in components.iter_mut() {
            let (Some(section), Value::Mapping(items)) = (section.as_str(), items) else {
                continue;
            };
            let Some(Field::Map(kind)) = Kind::Components.field(section) else {
                continue;
            };
            let Some(section) = kind.section() else {
                continue;
            };
            let at = Pointer::root().push("components").push(section);
            let from = self.whole_map(items, &Place::of(&root, at.clone(), at.clone()))?;
            if let Some(target) = &from {
                self.map_files.insert(at.clone(), target.clone());
            }
            let (file, src) = from.unwrap_or_else(|| (root.clone(), at.clone()));
            for (name, item) in items.iter() {
                let Some(name) = name.as_str() else { continue };
                self.taken
                    .entry(section)
                    .or_default()
                    .insert(name.to_owned());
                let home = at.push(name);
                if file != root {
                    self.homes
                        .entry((file.clone(), src.push(name)))
                        .or_insert(home.clone());
                }
                let Some(reference) = item.get("$ref").and_then(Value::as_str) else {
                    continue;
                };
                if let Ok(Leads::Elsewhere(target)) = self.leads(reference, &file, &src.push(name))
                {
                    self.homes.entry(target).or_insert(home);
                }
            }
        }
        Ok(())
    }

    /// Brings in what `node` (of `kind`, at `place`) and the nodes under
    /// it refer to in other files.
    fn walk(&mut self, node: &mut Value, kind: Kind, place: &Place<'_>) -> Result<()> {
        if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
            let reference = reference.to_owned();
            if self.follow(node, kind, place, reference)? {
                return Ok(());
            }
        }
        let Value::Mapping(map) = node else {
            return Ok(());
        };
        for (key, value) in map.iter_mut() {
            let Some(key) = key.as_str() else { continue };
            // Extensions are the document's own business.
            if key.starts_with("x-") || key == "$ref" {
                continue;
            }
            let place = place.push(key);
            if kind == Kind::Schema && key == "discriminator" {
                self.mapping(value, &place)?;
                continue;
            }
            let Some(field) = kind.field(key) else {
                continue;
            };
            match (field, value) {
                (Field::Map(kind), Value::Mapping(items)) => {
                    // The entries of a map read from a file are walked as
                    // that file's.
                    let file = match self.whole_map(items, &place)? {
                        Some(target) => Some(target),
                        None => self.map_files.get(&place.at).cloned(),
                    };
                    let place = match &file {
                        Some((path, pointer)) => Place::of(path, place.at.clone(), pointer.clone()),
                        None => place,
                    };
                    for (name, item) in items.iter_mut() {
                        let Some(name) = name.as_str() else { continue };
                        if name.starts_with("x-") && kind == Kind::PathItem {
                            continue;
                        }
                        self.walk(item, kind, &place.push(name))?;
                    }
                }
                (Field::List(kind) | Field::OneOrList(kind), Value::Sequence(items)) => {
                    for (i, item) in items.iter_mut().enumerate() {
                        self.walk(item, kind, &place.index(i))?;
                    }
                }
                (Field::One(kind) | Field::OneOrList(kind), value) => {
                    self.walk(value, kind, &place)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Replaces `items`, a map of named nodes (`paths`, `schemas`, …) that
    /// is a reference to another file (`paths: {$ref: paths/index.yaml}`,
    /// which OpenAPI does not allow but bundlers follow), by the map it
    /// names; that node, if it was one.
    fn whole_map(&mut self, items: &mut Mapping, place: &Place<'_>) -> Result<Option<Target>> {
        let Some(reference) = items.get("$ref").and_then(Value::as_str) else {
            return Ok(None);
        };
        let reference = reference.to_owned();
        let Leads::Elsewhere(target) = self.leads(&reference, place.file, &place.src)? else {
            return Ok(None);
        };
        let referrer = Referrer {
            file: self.label(place.file),
            at: place.src.push("$ref"),
            reference,
        };
        let Value::Mapping(content) = self.content(&target, &referrer)? else {
            return Err(Error::invalid(
                &referrer.file,
                &referrer.at,
                format!("`{}` names no map of names", referrer.reference),
            ));
        };
        items.remove("$ref");
        let siblings = std::mem::replace(items, content);
        items.extend(siblings);
        self.record(&place.at, &target);
        Ok(Some(target))
    }

    /// Rewrites `node`, a `reference` of `kind` at `place`, to name what it
    /// leads to in the root document; true when the node was replaced by
    /// what it names (and walked already).
    fn follow(
        &mut self,
        node: &mut Value,
        kind: Kind,
        place: &Place<'_>,
        reference: String,
    ) -> Result<bool> {
        let target = match self.leads(&reference, place.file, &place.src)? {
            Leads::Root(pointer) => {
                if place.file != self.root {
                    set_reference(node, &pointer);
                }
                return Ok(false);
            }
            Leads::Left => return Ok(false),
            Leads::Elsewhere(target) => target,
        };
        let referrer = Referrer {
            file: self.label(place.file),
            at: place.src.push("$ref"),
            reference,
        };
        if let Some(section) = kind.section() {
            let home = self.home(section, kind, &target, referrer.clone());
            if home != place.at {
                set_reference(node, &home);
                return Ok(false);
            }
        }
        // Written here: a path item, or the root component that is its home.
        if self.inlining.contains(&target) {
            return Err(Error::invalid(
                &referrer.file,
                &referrer.at,
                format!(
                    "`{}` leads back to itself through other files",
                    referrer.reference
                ),
            ));
        }
        let mut content = self.content(&target, &referrer)?;
        if let (Value::Mapping(content), Value::Mapping(siblings)) = (&mut content, &*node) {
            // 3.1 lets a reference's `summary` and `description` override the target's.
            for (key, value) in siblings {
                if key.as_str() != Some("$ref") {
                    content.insert(key.clone(), value.clone());
                }
            }
        }
        *node = content;
        self.record(&place.at, &target);
        self.inlining.push(target.clone());
        let (file, pointer) = &target;
        self.walk(
            node,
            kind,
            &Place::of(file, place.at.clone(), pointer.clone()),
        )?;
        self.inlining.pop();
        Ok(true)
    }

    /// Rewrites the references among the `mapping` values of the
    /// `discriminator` at `place` (each a schema's name or a reference).
    fn mapping(&mut self, discriminator: &mut Value, place: &Place<'_>) -> Result<()> {
        let Some(Value::Mapping(mapping)) = discriminator.get_mut("mapping") else {
            return Ok(());
        };
        for (key, value) in mapping.iter_mut() {
            let Some(reference) = value.as_str() else {
                continue;
            };
            let names_a_file = [".yaml", ".yml", ".json"]
                .iter()
                .any(|ext| reference.split('#').next().unwrap_or("").ends_with(ext));
            if !reference.contains('#') && !names_a_file {
                continue;
            }
            let at = place
                .src
                .push("mapping")
                .push(key.as_str().unwrap_or_default());
            let reference = reference.to_owned();
            // A mapping is only a hint for reading the union (its members
            // say what they are): one into a file that is not there (as
            // DigitalOcean's published document has) is left as it is.
            let Ok(leads) = self.leads(&reference, place.file, &at) else {
                continue;
            };
            let pointer = match leads {
                Leads::Left => continue,
                Leads::Root(_) if place.file == self.root => continue,
                Leads::Root(pointer) => pointer,
                Leads::Elsewhere(target) => {
                    let referrer = Referrer {
                        file: self.label(place.file),
                        at,
                        reference,
                    };
                    self.home("schemas", Kind::Schema, &target, referrer)
                }
            };
            *value = Value::String(pointer.to_string());
        }
        Ok(())
    }

    /// Where `reference`, written in `file` at `src`, leads.
    fn leads(&mut self, reference: &str, file: &Path, src: &Pointer) -> Result<Leads> {
        let (path, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let pointer = Pointer::parse_local(&format!("#{fragment}"));
        // A `file:` URL is a path on this machine (`file:///abs/pet.yaml`,
        // or `file://localhost/…`), as some bundlers and Java tools write.
        let path = file_url_path(path).unwrap_or(path);
        let remote = path.contains("://") || path.starts_with("urn:");
        let Some(pointer) = pointer.filter(|_| !remote) else {
            return Ok(Leads::Left);
        };
        if path.is_empty() {
            return Ok(if file == self.root {
                Leads::Root(pointer)
            } else {
                Leads::Elsewhere((file.to_owned(), pointer))
            });
        }
        let relative = crate::pointer::percent_decode(path);
        let label = join_label(&self.label(file), &relative);
        let joined = file.parent().unwrap_or(Path::new("")).join(&relative);
        let found = std::fs::canonicalize(&joined).map_err(|e| {
            Error::invalid(
                &self.label(file),
                &src.push("$ref"),
                format!("`{reference}` names the file {label}, which cannot be read: {e}"),
            )
        })?;
        if found == self.root {
            return Ok(Leads::Root(pointer));
        }
        self.labels.entry(found.clone()).or_insert(label);
        Ok(Leads::Elsewhere((found, pointer)))
    }

    /// The component that holds `target`: claimed (and its content queued)
    /// the first time it is asked for.
    fn home(
        &mut self,
        section: &'static str,
        kind: Kind,
        target: &Target,
        referrer: Referrer,
    ) -> Pointer {
        if let Some(home) = self.homes.get(target) {
            return home.clone();
        }
        let name = self.free_name(section, &preferred_name(target), qualifier(target));
        let home = Pointer::root().push("components").push(section).push(&name);
        self.homes.insert(target.clone(), home.clone());
        self.pending.push_back(Pending {
            target: target.clone(),
            kind,
            home: home.clone(),
            referrer,
        });
        home
    }

    /// `base`; if the section has one of that name, `qualifier_base` (the
    /// file or folder it comes from, so that `orders/item.yaml` beside
    /// `products/item.yaml` becomes `OrdersItem`); else `base2`, `base3`…
    fn free_name(
        &mut self,
        section: &'static str,
        base: &str,
        qualifier: Option<String>,
    ) -> String {
        let taken = self.taken.entry(section).or_default();
        let mut names = std::iter::once(base.to_owned())
            .chain(qualifier.map(|qualifier| format!("{qualifier}_{base}")))
            .chain((2..).map(|n| format!("{base}{n}")));
        loop {
            // The sequence is unbounded: some name of it is free.
            if let Some(name) = names.next().filter(|name| !taken.contains(name)) {
                taken.insert(name.clone());
                return name;
            }
        }
    }

    /// A copy of the node `target` names, reading its file if need be.
    fn content(&mut self, target: &Target, referrer: &Referrer) -> Result<Value> {
        let (path, pointer) = target;
        if !self.files.contains_key(path) {
            let tree = read(path, &self.label(path))?;
            self.files.insert(path.clone(), tree);
        }
        let tree = &self.files[path];
        let mut node = tree;
        for token in pointer.tokens() {
            let next = match node {
                Value::Mapping(map) => map.get(token.as_str()),
                Value::Sequence(seq) => token.parse::<usize>().ok().and_then(|i| seq.get(i)),
                _ => None,
            };
            node = next.ok_or_else(|| {
                Error::invalid(
                    &referrer.file,
                    &referrer.at,
                    format!(
                        "`{}` points to nothing: {} has no {pointer}",
                        referrer.reference,
                        self.label(path)
                    ),
                )
            })?;
        }
        Ok(node.clone())
    }

    fn record(&mut self, at: &Pointer, (path, pointer): &Target) {
        let file = self.label(path);
        self.sources
            .moves
            .insert(at.clone(), (file, pointer.clone()));
    }

    fn label(&self, path: &Path) -> String {
        self.labels
            .get(path)
            .cloned()
            .unwrap_or_else(|| path.display().to_string())
    }
}

/// Reads the file at `path` (named `label` in messages).
fn read(path: &Path, label: &str) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    super::tree::tree(&text, label, super::tree::is_json(path))
}

/// What tells a node apart from another of its preferred name: the stem of
/// its file when it is named after its pointer (`common.yaml#/Item`), the
/// folder of its file when it is named after the file (`orders/item.yaml`).
fn qualifier((path, pointer): &Target) -> Option<String> {
    let named_by_pointer = pointer
        .tokens()
        .any(|token| token.parse::<usize>().is_err());
    let source = if named_by_pointer {
        path.file_stem()
    } else {
        path.parent().and_then(Path::file_name)
    };
    source
        .map(|name| name.to_string_lossy().into_owned())
        .filter(|name| !name.is_empty())
}

/// The name a node brought in as a component gets: its own (the last
/// token of its pointer that is not an index), or its file's.
fn preferred_name((path, pointer): &Target) -> String {
    let own = pointer
        .tokens()
        .filter(|token| token.parse::<usize>().is_err())
        .last();
    own.or_else(|| {
        path.file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
    })
    .filter(|name| !name.is_empty())
    .unwrap_or_else(|| "External".to_owned())
}

fn set_reference(node: &mut Value, pointer: &Pointer) {
    if let Value::Mapping(map) = node {
        map.insert("$ref".into(), Value::String(pointer.to_string()));
    }
}

/// Puts `node` at `home` (`#/components/<section>/<name>`) of the root.
fn insert_component(raw: &mut Value, kind: Kind, home: &Pointer, node: Value) {
    let (Some(section), Some(name), Value::Mapping(root)) = (kind.section(), home.last(), raw)
    else {
        return;
    };
    let components = root
        .entry("components".into())
        .or_insert_with(|| Value::Mapping(Mapping::new()));
    if !components.is_mapping() {
        *components = Value::Mapping(Mapping::new());
    }
    let Value::Mapping(components) = components else {
        return;
    };
    let items = components
        .entry(section.into())
        .or_insert_with(|| Value::Mapping(Mapping::new()));
    if let Value::Mapping(items) = items {
        items.insert(name.into(), node);
    }
}

/// The path of a `file:` URL (`file:///abs/pet.yaml`, `file://localhost/…`),
/// or `None` for any other reference. A URL that names another host is no
/// path here, and stays a remote reference.
fn file_url_path(reference: &str) -> Option<&str> {
    let rest = reference.strip_prefix("file://")?;
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    path.starts_with('/').then_some(path)
}

/// `relative` (a reference's file part) as seen from the file named
/// `from`, with `.` and `..` worked out: how messages name that file. An
/// absolute path is named as it is.
fn join_label(from: &str, relative: &str) -> String {
    if relative.starts_with('/') {
        return relative.to_owned();
    }
    let mut parts: Vec<&str> = match from.rsplit_once('/') {
        Some((dir, _)) => dir.split('/').collect(),
        None => Vec::new(),
    };
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| !p.is_empty() && *p != "..") => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_url_is_a_path_on_this_machine() {
        assert_eq!(
            file_url_path("file:///specs/pet.yaml"),
            Some("/specs/pet.yaml")
        );
        assert_eq!(
            file_url_path("file://localhost/pet.yaml"),
            Some("/pet.yaml")
        );
        assert_eq!(file_url_path("file://example.com/pet.yaml"), None);
        assert_eq!(file_url_path("https://example.com/pet.yaml"), None);
        assert_eq!(file_url_path("pet.yaml"), None);
        assert_eq!(
            join_label("spec/openapi.yaml", "/specs/pet.yaml"),
            "/specs/pet.yaml"
        );
    }

    #[test]
    fn a_file_is_named_from_the_file_that_refers_to_it() {
        assert_eq!(
            join_label("spec/openapi.yaml", "schemas/pet.yaml"),
            "spec/schemas/pet.yaml"
        );
        assert_eq!(
            join_label("spec/paths/pets.yaml", "../common.yaml"),
            "spec/common.yaml"
        );
        assert_eq!(join_label("openapi.yaml", "./a/../b.yaml"), "b.yaml");
        assert_eq!(
            join_label("openapi.yaml", "../shared/c.yaml"),
            "../shared/c.yaml"
        );
        assert_eq!(join_label("/abs/openapi.yaml", "c.json"), "/abs/c.json");
        // Climbing above the first file's folder keeps every step.
        assert_eq!(join_label("openapi.yaml", "../../b.yaml"), "../../b.yaml");
    }

    #[test]
    fn a_brought_in_node_is_named_after_its_pointer_or_its_file() {
        let name = |file: &str, pointer: Pointer| preferred_name(&(PathBuf::from(file), pointer));
        let schemas = Pointer::root().push("components").push("schemas");
        assert_eq!(name("common.yaml", schemas.push("Error")), "Error");
        assert_eq!(name("schemas/Pet.yaml", Pointer::root()), "Pet");
        assert_eq!(
            name("list.yaml", Pointer::root().push("allOf").index(1)),
            "allOf"
        );
    }

    #[test]
    fn a_name_taken_is_told_apart_by_its_file_or_folder() {
        let qualifier = |file: &str, pointer: Pointer| qualifier(&(PathBuf::from(file), pointer));
        let item = Pointer::root().push("Item");
        assert_eq!(qualifier("/s/common.yaml", item), Some("common".to_owned()));
        assert_eq!(
            qualifier("/s/orders/item.yaml", Pointer::root()),
            Some("orders".to_owned())
        );
    }

    #[test]
    fn sources_name_the_file_and_the_pointer_inside_it() {
        let mut sources = Sources::default();
        let home = Pointer::root()
            .push("components")
            .push("schemas")
            .push("Pet");
        sources.moves.insert(
            home.clone(),
            ("schemas/pet.yaml".to_owned(), Pointer::root()),
        );
        let inside = home.push("properties").push("name");
        assert_eq!(
            sources.locate(&inside),
            Some((
                "schemas/pet.yaml".to_owned(),
                Pointer::root().push("properties").push("name")
            ))
        );
        assert_eq!(sources.locate(&Pointer::root().push("paths")), None);
    }
}
