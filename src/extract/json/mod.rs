//! JSON records: a declarative mapping (`[library.records]` in corpus.toml) from one JSON file to
//! one or many documents — which values are records, and which fields give id, title, text, url,
//! date and metadata. Nested sections become headings with their content; a record's templates
//! read its own fields, its ancestors' (`{..name}`) and its file's slug (`{$file}`).

mod unique;

use serde_json::{Map, Value};

use std::collections::BTreeMap;

use serde::Serialize;

use super::{BlockKind, Body, Document, ExtractSettings, FileExtraction, coptic, decode_entities};
use crate::diag::Problem;
use crate::template::Template;
use unique::{Invalid, parse_unique};

/// How a JSON file maps to documents.
#[derive(Debug, Clone, Serialize)]
pub struct RecordMapping {
    /// Path from the file's top value to each record: `.`-separated steps, `*` = every child.
    pub select: Vec<String>,
    pub id: Option<Template>,
    /// Named captures of a pattern over a field become template variables. It shapes IDs, so
    /// it is part of the settings (absent when unset: configs without it keep their fingerprint).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id_match: Option<IdMatch>,
    /// The path of the title field, or a template like `id` when it holds a `{`
    /// (`title_template`).
    pub title: Option<String>,
    /// `title` as a template (`"{..name} {chapter}"`), when it is one.
    #[serde(skip)]
    pub title_template: Option<Template>,
    pub text: Vec<String>,
    pub url: Option<Template>,
    pub date: Option<String>,
    pub sections: Option<SectionMapping>,
    pub metadata: BTreeMap<String, String>,
    // The item keys are recorded only when set, so a mapping that does not use them keeps the
    // fingerprint (and corpus version) it had before they existed.
    /// When an item of `text` is an object, the field holding its text.
    #[serde(skip_serializing_if = "is_text")]
    pub item_text: String,
    /// When an item of `text` is an object, a field shown as a label before its text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_label: Option<String>,
    /// The id an item's citations link (`{url}#…`), a template over the item's fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_anchor: Option<Template>,
}

fn is_text(field: &str) -> bool {
    field == "text"
}

/// `records.id_match`: a regex with named groups, run over one field of each record.
#[derive(Debug, Clone)]
pub struct IdMatch {
    pub field: String,
    pub pattern: regex::Regex,
}

/// As written in the config: the field and the pattern's source text.
impl Serialize for IdMatch {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let IdMatch { field, pattern } = self;
        let mut st = s.serialize_struct("IdMatch", 2)?;
        st.serialize_field("field", field)?;
        st.serialize_field("pattern", pattern.as_str())?;
        st.end()
    }
}

/// Nested records: each selected section becomes a heading with its content below it.
#[derive(Debug, Clone, Serialize)]
pub struct SectionMapping {
    pub select: Vec<String>,
    pub title: Option<String>,
    pub text: Vec<String>,
    /// When an item of `text` is an object, the field holding its text.
    pub item_text: String,
    /// When an item of `text` is an object, a field shown as a label before its text.
    pub item_label: Option<String>,
    /// The id an item's citations link, a template over the item's fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_anchor: Option<Template>,
}

/// How the items of a text list read: the field of an object item that holds its text, the
/// field shown before it as a label, the template of the id its citations link.
#[derive(Clone, Copy)]
struct Items<'m> {
    text: &'m str,
    label: Option<&'m str>,
    anchor: Option<&'m Template>,
}

/// Where a value sits: the object key and array index of the last `*` steps that reached it,
/// and the objects it lies in, the nearest last (what `{..field}` reads).
#[derive(Debug, Clone, Default)]
struct Place<'a> {
    key: Option<String>,
    index: Option<usize>,
    parents: Vec<&'a Value>,
}

impl<'a> Place<'a> {
    /// The place of a child of `v`, which lies in it.
    fn child(&self, v: &'a Value, key: Option<String>, index: Option<usize>) -> Place<'a> {
        let mut parents = self.parents.clone();
        if v.is_object() {
            parents.push(v);
        }
        Place {
            key,
            index,
            parents,
        }
    }
}

/// What a record's templates and paths read: the record, its place, the named groups of
/// `id_match`, and its file's slug.
struct Scope<'a, 'r> {
    rec: &'a Value,
    place: &'r Place<'a>,
    caps: &'r Map<String, Value>,
    file: &'r str,
}

impl Scope<'_, '_> {
    /// A template variable's value: a group of `id_match`, or the scalar at the path
    /// (`value`).
    fn var(&self, name: &str) -> Option<String> {
        if let Some(v) = self.caps.get(name).and_then(scalar) {
            return Some(v);
        }
        match self.value(name)? {
            Value::String(s) if name == "$key" || name == "$file" => Some(s),
            v => scalar(&v),
        }
    }

    /// The value of a path (what `metadata` and `date` read): `$key`, `$index`, `$file`,
    /// `..path` (the nearest object the value lies in that has the path), or a path in the
    /// record.
    fn value(&self, path: &str) -> Option<Value> {
        match path {
            "$key" => self.place.key.clone().map(Value::String),
            "$index" => self.place.index.map(|i| Value::from(i as u64)),
            "$file" => Some(Value::String(self.file.to_string())),
            _ => {
                if let Some(up) = path.strip_prefix("..") {
                    return self.place.parents.iter().rev().find_map(|p| {
                        resolve(p, up)
                            .first()
                            .filter(|v| !v.is_null())
                            .map(|v| (*v).clone())
                    });
                }
                resolve(self.rec, path).first().map(|v| (*v).clone())
            }
        }
    }

    fn render(&self, t: &Template, what: &str) -> Result<String, Fail> {
        t.render(|name| self.var(name)).map_err(|missing| {
            Fail::new(
                format!(
                    "{what} template `{}` needs `{}`, which the record lacks",
                    t.source(),
                    missing.variable
                ),
                format!("fix records.{what} in corpus.toml"),
            )
        })
    }
}

/// The documents of the records file `file` (as messages name it) whose slug is `slug`.
pub(super) fn extract(file: &str, slug: &str, text: &str, lib: &ExtractSettings) -> FileExtraction {
    let Some(map) = lib.records else {
        return FileExtraction::error(
            file,
            Problem::error(
                "json-mapping",
                format!(
                    "library `{}` reads JSON but has no [library.records] mapping",
                    lib.library
                ),
            )
            .help("add `[library.records]` with at least `select` and `text` (see `askzico init`)"),
        );
    };
    let root = match read_root(file, text) {
        Ok(v) => v,
        Err(ex) => return ex,
    };
    let mut recs = Vec::new();
    select(&root, &map.select, Place::default(), &mut recs);
    let mut out = FileExtraction::default();
    let mut wrong = Vec::new();
    shape_mismatches(&root, &map.select, String::from("$"), &mut wrong);
    for (path, found, needed) in wrong {
        out.problems.push(
            Problem::error("json-shape", format!("`{path}` is {found}, but `records.select = \"{}\"` needs {needed} there", map.select.join(".")))
                .in_file(file.to_string())
                .help("fix the data, change `records.select` to match the file's shape, or leave the file out with the library's `exclude`"),
        );
    }
    if recs.is_empty() {
        out.problems.push(
            Problem::warning(
                "empty",
                format!(
                    "the selector `{}` finds no records: no document",
                    map.select.join(".")
                ),
            )
            .in_file(file.to_string())
            .help("check `records.select` against the file's shape"),
        );
        return out;
    }
    let multi = !map.select.is_empty();
    for (i, (rec, place)) in recs.into_iter().enumerate() {
        let at = describe(i, &place);
        match record(rec, &place, map, multi, slug) {
            Ok(Some(doc)) => out.docs.push(titled(file, &at, doc, &mut out.problems)),
            Ok(None) => out.problems.push(
                Problem::warning("empty", format!("record {at} has no text: no document"))
                    .in_file(file.to_string())
                    .help("check the mapping's `text` paths"),
            ),
            Err(fail) => out.problems.push(
                Problem::error("json-record", format!("record {at}: {}", fail.message))
                    .in_file(file.to_string())
                    .help(fail.help),
            ),
        }
    }
    out
}

/// The file's JSON, or the extraction of a file that has none: a warning for an empty file, an
/// error for invalid JSON or a key an object repeats.
fn read_root(file: &str, text: &str) -> Result<Value, FileExtraction> {
    if text.trim().is_empty() {
        return Err(FileExtraction {
            docs: Vec::new(),
            problems: vec![
                Problem::warning("empty", "nothing to index (empty file): no document")
                    .in_file(file.to_string())
                    .help("add records, or exclude the file in corpus.toml"),
            ],
        });
    }
    parse_unique(text).map_err(|e| match e {
        Invalid::Duplicate { key, line } => FileExtraction::error(
            file,
            Problem::error(
                "json-duplicate-key",
                format!("duplicate key `{key}` at line {line}: an object names it twice"),
            )
            .at_line(line)
            .help("keep one of the two values and remove or rename the other (JSON readers disagree on which one wins)"),
        ),
        Invalid::Syntax(e) => FileExtraction::error(
            file,
            Problem::error(
                "json-syntax",
                format!(
                    "invalid JSON at line {} column {}: {e}",
                    e.line(),
                    e.column()
                ),
            )
            .at_line(e.line())
            .help("fix the JSON syntax (a trailing comma or an unquoted key is a common cause)"),
        ),
    })
}

/// A record's document named by its place (`at`); one without a title takes the file's path
/// as its title, with a warning.
fn titled(file: &str, at: &str, mut doc: Document, problems: &mut Vec<Problem>) -> Document {
    doc.position = Some(format!("record {at}"));
    if doc.title.as_deref().is_none_or(str::is_empty) {
        let t = super::path_title(file);
        problems.push(
            Problem::warning("no-title", format!("record {at} has no title; using `{t}`"))
                .in_file(file.to_string())
                .help("map `title` to a field under [library.records]"),
        );
        doc.body = std::mem::take(&mut doc.body).with_title_heading(&t);
        doc.title = Some(t);
    }
    doc
}

fn describe(i: usize, place: &Place<'_>) -> String {
    match (&place.key, place.index) {
        (Some(k), Some(ix)) => format!("#{i} (`{k}`[{ix}])"),
        (Some(k), None) => format!("#{i} (`{k}`)"),
        (None, Some(ix)) => format!("#{i} ([{ix}])"),
        (None, None) => format!("#{i}"),
    }
}

fn select<'a>(
    v: &'a Value,
    steps: &[String],
    place: Place<'a>,
    out: &mut Vec<(&'a Value, Place<'a>)>,
) {
    let Some((step, rest)) = steps.split_first() else {
        out.push((v, place));
        return;
    };
    match (step.as_str(), v) {
        ("*", Value::Object(m)) => {
            for (k, child) in m {
                select(
                    child,
                    rest,
                    place.child(v, Some(k.clone()), place.index),
                    out,
                );
            }
        }
        ("*", Value::Array(a)) => {
            for (i, child) in a.iter().enumerate() {
                select(child, rest, place.child(v, place.key.clone(), Some(i)), out);
            }
        }
        (name, Value::Object(m)) => {
            if let Some(child) = m.get(name) {
                let child_place = place.child(v, place.key.clone(), place.index);
                select(child, rest, child_place, out);
            }
        }
        _ => {}
    }
}

/// Places where the record selector meets a value it cannot step into (`*` over a string).
fn shape_mismatches(
    v: &Value,
    steps: &[String],
    path: String,
    out: &mut Vec<(String, &'static str, String)>,
) {
    let Some((step, rest)) = steps.split_first() else {
        return;
    };
    match (step.as_str(), v) {
        ("*", Value::Object(m)) => {
            for (k, child) in m {
                shape_mismatches(child, rest, format!("{path}.{k}"), out);
            }
        }
        ("*", Value::Array(a)) => {
            for (i, child) in a.iter().enumerate() {
                shape_mismatches(child, rest, format!("{path}[{i}]"), out);
            }
        }
        (name, Value::Object(m)) => {
            if let Some(child) = m.get(name) {
                shape_mismatches(child, rest, format!("{path}.{name}"), out);
            }
        }
        (_, Value::Null) => {}
        ("*", other) => out.push((path, kind(other), "an object or a list".to_string())),
        (name, other) => out.push((path, kind(other), format!("an object with `{name}`"))),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Values at a path relative to a record: `$` is the record, `$key`/`$index` its place.
fn resolve<'a>(rec: &'a Value, path: &str) -> Vec<&'a Value> {
    if path == "$" || path.is_empty() {
        return vec![rec];
    }
    let steps: Vec<String> = path.split('.').map(str::to_string).collect();
    let mut out = Vec::new();
    select(rec, &steps, Place::default(), &mut out);
    out.into_iter().map(|(v, _)| v).collect()
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(decode_entities(s).into_owned()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Why a record makes no document: the message and what to do.
struct Fail {
    message: String,
    help: String,
}

impl Fail {
    fn new(message: String, help: impl Into<String>) -> Fail {
        Fail {
            message,
            help: help.into(),
        }
    }
}

/// One record's document (`None` when it has no text): its slug, title and URL from the
/// mapping's templates and fields, its body, its date and metadata.
fn record(
    rec: &Value,
    place: &Place<'_>,
    map: &RecordMapping,
    multi: bool,
    file: &str,
) -> Result<Option<Document>, Fail> {
    let no_caps = Map::new();
    let caps = id_captures(
        &Scope {
            rec,
            place,
            caps: &no_caps,
            file,
        },
        map,
    )?;
    let scope = Scope {
        rec,
        place,
        caps: &caps,
        file,
    };
    let slug = match &map.id {
        Some(t) => Some(scope.render(t, "id")?),
        None if multi => Some(match (&place.key, place.index) {
            (Some(k), Some(i)) => format!("{k}-{i}"),
            (Some(k), None) => k.clone(),
            (None, Some(i)) => i.to_string(),
            (None, None) => "0".into(),
        }),
        None => None,
    };
    let title = match &map.title_template {
        Some(t) => Some(super::without_controls(&scope.render(t, "title")?).into_owned()),
        None => record_title(rec, map)?,
    };
    let url = map
        .url
        .as_ref()
        .map(|t| scope.render(t, "url"))
        .transpose()?;
    let body = record_body(&scope, map)?;
    if body.is_empty() {
        return Ok(None);
    }
    let metadata = record_metadata(&scope, map)?;
    let title_text = title
        .clone()
        .or_else(|| body.first_heading(1).map(str::to_string))
        .or_else(|| slug.clone())
        .unwrap_or_default();
    let body = body.with_title_heading(&title_text);
    let fields = match rec {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    Ok(Some(Document {
        record_slug: if multi { slug.clone() } else { None },
        slug_override: if multi { None } else { slug },
        title: Some(title_text),
        url,
        fields,
        domains: None,
        metadata,
        body,
        line: None,
        position: None,
        draft: None,
    }))
}

/// What a value mapped to `text` is when it holds no text `push_text` reads: a boolean, or an
/// object without a `text` string (in a list too); `None` for text, numbers, nulls and lists of
/// them.
fn not_text(v: &Value, item_text: &str) -> Option<String> {
    match v {
        Value::Bool(_) => Some("a boolean".into()),
        Value::Object(m) if !m.get(item_text).is_some_and(Value::is_string) => {
            Some(format!("an object without a `{item_text}` string"))
        }
        Value::Array(items) => items.iter().find_map(|i| not_text(i, item_text)),
        _ => None,
    }
}

/// The named groups of `records.id_match` over the record's field, as template variables.
fn id_captures(scope: &Scope<'_, '_>, map: &RecordMapping) -> Result<Map<String, Value>, Fail> {
    let mut caps = Map::new();
    let Some(IdMatch { field, pattern }) = &map.id_match else {
        return Ok(caps);
    };
    let value = scope.var(field).ok_or_else(|| {
        Fail::new(
            format!("`id_match` reads field `{field}`, which the record lacks"),
            "point id_match.field at a string field every record has",
        )
    })?;
    let Some(m) = pattern.captures(&value) else {
        return Err(Fail::new(
            format!("`id_match` pattern does not match `{value}`"),
            "widen records.id_match.pattern, or give this record an id another way",
        ));
    };
    for name in pattern.capture_names().flatten() {
        if let Some(g) = m.name(name) {
            caps.insert(name.to_string(), Value::String(g.as_str().to_string()));
        }
    }
    Ok(caps)
}

/// The record's `title` field, when the mapping names one and the record has it.
fn record_title(rec: &Value, map: &RecordMapping) -> Result<Option<String>, Fail> {
    let Some(path) = &map.title else {
        return Ok(None);
    };
    match resolve(rec, path).first() {
        Some(v) => scalar(v)
            .map(|t| Some(super::without_controls(&t).into_owned()))
            .ok_or_else(|| {
                Fail::new(
                    format!("field `{path}` (title) is not text"),
                    "map `title` to a string field",
                )
            }),
        None => Ok(None),
    }
}

/// The record's text fields and sections as one body.
fn record_body(scope: &Scope<'_, '_>, map: &RecordMapping) -> Result<Body, Fail> {
    let mut body = Body::default();
    let items = Items {
        text: &map.item_text,
        label: map.item_label.as_deref(),
        anchor: map.item_anchor.as_ref(),
    };
    // An item's anchor reads the item's fields, and through `..` the record's and above.
    let within = scope.place.child(scope.rec, None, None);
    for path in &map.text {
        for v in resolve(scope.rec, path) {
            if let Some(shape) = not_text(v, items.text) {
                return Err(Fail::new(
                    format!("field `{path}` (text) is {shape}"),
                    format!(
                        "map `text` to string fields, lists of strings, or objects with a `{}` string (`item_text` names another field)",
                        items.text
                    ),
                ));
            }
            push_text(&mut body, v, items, &within, scope.file);
        }
    }
    if let Some(sections) = &map.sections {
        push_sections(&mut body, scope, sections);
    }
    Ok(body)
}

/// The record's metadata: its Coptic `date` (when mapped) and the mapped metadata fields.
fn record_metadata(scope: &Scope<'_, '_>, map: &RecordMapping) -> Result<Map<String, Value>, Fail> {
    let mut metadata = Map::new();
    if let Some(path) = &map.date {
        let raw = scope.value(path);
        let text = raw.as_ref().and_then(scalar).unwrap_or_default();
        let date = coptic::parse(&text).ok_or_else(|| {
            Fail::new(
                format!("`{text}` (from `{path}`) is not a Coptic date like `15 Hator`"),
                "dates are `<day> <month>` with months Tout Baba Hator Kiahk Toba Amshir Baramhat Baramouda Bashans Paona Epep Mesra Nasie",
            )
        })?;
        metadata.insert(
            "date".into(),
            serde_json::to_value(date).expect("date serializes"),
        );
    }
    for (name, path) in &map.metadata {
        if let Some(v) = scope.value(path) {
            let v = match v {
                Value::String(s) => Value::String(decode_entities(&s).into_owned()),
                other => other,
            };
            metadata.insert(name.clone(), v);
        }
    }
    Ok(metadata)
}

/// Appends a text value: a string's paragraphs, a number, a list's items in order, an object
/// item's `items.text` field, after its label and linked by its anchor when `items` names them.
fn push_text(body: &mut Body, v: &Value, items: Items<'_>, place: &Place<'_>, file: &str) {
    match v {
        Value::String(s) => {
            let s = decode_entities(s);
            for para in s.split("\n\n") {
                body.push(BlockKind::Paragraph, para);
            }
        }
        Value::Number(n) => body.push(BlockKind::Paragraph, &n.to_string()),
        Value::Array(list) => {
            for (i, item) in list.iter().enumerate() {
                push_text(
                    body,
                    item,
                    items,
                    &Place {
                        index: Some(i),
                        ..place.clone()
                    },
                    file,
                );
            }
        }
        Value::Object(m) => {
            let Some(Value::String(t)) = m.get(items.text) else {
                return;
            };
            let t = decode_entities(t);
            let label = items.label.and_then(|l| m.get(l)).and_then(scalar);
            let text = match label {
                Some(label) => format!("{label}: {t}"),
                None => t.into_owned(),
            };
            let no_caps = Map::new();
            let scope = Scope {
                rec: v,
                place,
                caps: &no_caps,
                file,
            };
            let anchor = items
                .anchor
                .and_then(|a| a.render(|name| scope.var(name)).ok())
                .filter(|a| item_anchor(a));
            body.push_item(&text, anchor.as_deref());
        }
        _ => {}
    }
}

/// An item's id is a URL fragment as it is: 1 to 100 characters, none of them a space, a
/// control or `#`. Another value (or a missing field) links no section of its own.
fn item_anchor(id: &str) -> bool {
    !id.is_empty()
        && id.chars().count() <= 100
        && !id
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '#')
}

fn push_sections(body: &mut Body, scope: &Scope<'_, '_>, map: &SectionMapping) {
    let mut secs = Vec::new();
    select(
        scope.rec,
        &map.select,
        scope.place.child(scope.rec, None, None),
        &mut secs,
    );
    let items = Items {
        text: &map.item_text,
        label: map.item_label.as_deref(),
        anchor: map.item_anchor.as_ref(),
    };
    for (sec, place) in secs {
        if let Some(title) = map
            .title
            .as_deref()
            .and_then(|p| resolve(sec, p).first().and_then(|v| scalar(v)))
        {
            body.push(BlockKind::Heading(2), &title);
        }
        let within = place.child(sec, None, None);
        for path in &map.text {
            for v in resolve(sec, path) {
                push_text(body, v, items, &within, scope.file);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_the_nearest_ancestor_with_the_field_and_its_file() {
        let root: Value = serde_json::from_str(
            r#"{"name": "book", "parts": [{"name": "part", "chapters": [{"c": 1}]}, {"chapters": [{"c": 2}]}]}"#,
        )
        .unwrap();
        let steps: Vec<String> = ["parts", "*", "chapters", "*"].map(String::from).to_vec();
        let mut recs = Vec::new();
        select(&root, &steps, Place::default(), &mut recs);
        let caps = Map::new();
        let names: Vec<Option<String>> = recs
            .iter()
            .map(|(rec, place)| {
                let scope = Scope {
                    rec,
                    place,
                    caps: &caps,
                    file: "ot/genesis",
                };
                assert_eq!(scope.var("$file").as_deref(), Some("ot/genesis"));
                scope.var("..name")
            })
            .collect();
        assert_eq!(names, [Some("part".into()), Some("book".into())]);
        let scope = Scope {
            rec: recs[0].0,
            place: &recs[0].1,
            caps: &caps,
            file: "",
        };
        assert_eq!(scope.var("..missing"), None);
        assert_eq!(scope.var("c").as_deref(), Some("1"));
        assert_eq!(scope.var("$index").as_deref(), Some("0"));
    }
}
