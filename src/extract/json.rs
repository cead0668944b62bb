//! JSON records: a declarative mapping (`[library.records]` in corpus.toml) from one JSON file to
//! one or many documents — which values are records, and which fields give id, title, text, url,
//! date and metadata. Nested sections become headings with their content.

use serde_json::{Map, Value};

use std::collections::BTreeMap;

use serde::Serialize;

use super::{BlockKind, Body, Document, ExtractSettings, FileExtraction, coptic, decode_entities};
use crate::diag::Problem;
use crate::template::Template;

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
    pub title: Option<String>,
    pub text: Vec<String>,
    pub url: Option<Template>,
    pub date: Option<String>,
    pub sections: Option<SectionMapping>,
    pub metadata: BTreeMap<String, String>,
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
}

/// Where a record sits: the object key and array index of the last `*` steps that reached it.
#[derive(Debug, Clone, Default)]
struct Place {
    key: Option<String>,
    index: Option<usize>,
}

pub(super) fn extract(file: &str, text: &str, lib: &ExtractSettings) -> FileExtraction {
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
    for (path, found) in wrong {
        out.problems.push(
            Problem::error("json-shape", format!("`{path}` is {found}, but `records.select = \"{}\"` needs an object or a list there", map.select.join(".")))
                .in_file(file.to_string())
                .help("fix the data, or change `records.select` to match the file's shape"),
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
        match record(rec, &place, map, multi) {
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

/// Why a records file is not JSON askzico reads.
enum Invalid {
    Syntax(serde_json::Error),
    /// A key an object holds twice (shown escaped, at most 80 characters), at the line of its
    /// second occurrence.
    Duplicate {
        key: String,
        line: usize,
    },
}

/// `serde_json::from_str::<Value>`, except that a key repeated within one object is an error:
/// serde_json keeps the last value silently, and the first one's text would be lost.
fn parse_unique(text: &str) -> Result<Value, Invalid> {
    let dup = std::cell::RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = serde::de::DeserializeSeed::deserialize(Unique(&dup), &mut de)
        .and_then(|v| de.end().map(|()| v));
    parsed.map_err(|e| match dup.into_inner() {
        Some(key) => Invalid::Duplicate {
            key,
            line: e.line(),
        },
        None => Invalid::Syntax(e),
    })
}

/// Builds a `Value` as serde_json's own visitor does, refusing a repeated key; the key is left
/// in the cell so that the caller can tell this error from a syntax error. The error is raised
/// right after the key is read, so serde_json places it at the key's line.
#[derive(Clone, Copy)]
struct Unique<'a>(&'a std::cell::RefCell<Option<String>>);

impl<'de> serde::de::DeserializeSeed<'de> for Unique<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Unique<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        serde::de::DeserializeSeed::deserialize(self, d)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(v) = seq.next_element_seed(self)? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut m = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if m.contains_key(&key) {
                let shown: String = key.chars().take(80).flat_map(char::escape_debug).collect();
                *self.0.borrow_mut() = Some(shown);
                return Err(serde::de::Error::custom("duplicate key"));
            }
            let v = map.next_value_seed(self)?;
            m.insert(key, v);
        }
        Ok(Value::Object(m))
    }
}

fn describe(i: usize, place: &Place) -> String {
    match (&place.key, place.index) {
        (Some(k), Some(ix)) => format!("#{i} (`{k}`[{ix}])"),
        (Some(k), None) => format!("#{i} (`{k}`)"),
        (None, Some(ix)) => format!("#{i} ([{ix}])"),
        (None, None) => format!("#{i}"),
    }
}

fn select<'a>(v: &'a Value, steps: &[String], place: Place, out: &mut Vec<(&'a Value, Place)>) {
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
                    Place {
                        key: Some(k.clone()),
                        index: place.index,
                    },
                    out,
                );
            }
        }
        ("*", Value::Array(a)) => {
            for (i, child) in a.iter().enumerate() {
                select(
                    child,
                    rest,
                    Place {
                        key: place.key.clone(),
                        index: Some(i),
                    },
                    out,
                );
            }
        }
        (name, Value::Object(m)) => {
            if let Some(child) = m.get(name) {
                select(child, rest, place, out);
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
    out: &mut Vec<(String, &'static str)>,
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
        (_, other) => out.push((path, kind(other))),
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

fn var(rec: &Value, place: &Place, caps: &Map<String, Value>, name: &str) -> Option<String> {
    match name {
        "$key" => place.key.clone(),
        "$index" => place.index.map(|i| i.to_string()),
        _ => caps
            .get(name)
            .and_then(scalar)
            .or_else(|| resolve(rec, name).first().and_then(|v| scalar(v))),
    }
}

fn place_value(place: &Place, path: &str) -> Option<Value> {
    match path {
        "$key" => place.key.clone().map(Value::String),
        "$index" => place.index.map(|i| Value::from(i as u64)),
        _ => None,
    }
}

/// One record's document (`None` when it has no text): its slug, title and URL from the
/// mapping's templates and fields, its body, its date and metadata.
fn record(
    rec: &Value,
    place: &Place,
    map: &RecordMapping,
    multi: bool,
) -> Result<Option<Document>, Fail> {
    let caps = id_captures(rec, place, map)?;
    let render = |t: &Template, what: &str| {
        t.render(|name| var(rec, place, &caps, name))
            .map_err(|missing| {
                Fail::new(
                    format!(
                        "{what} template `{}` needs `{}`, which the record lacks",
                        t.source(),
                        missing.variable
                    ),
                    format!("fix records.{what} in corpus.toml"),
                )
            })
    };
    let slug = match &map.id {
        Some(t) => Some(render(t, "id")?),
        None if multi => Some(match (&place.key, place.index) {
            (Some(k), Some(i)) => format!("{k}-{i}"),
            (Some(k), None) => k.clone(),
            (None, Some(i)) => i.to_string(),
            (None, None) => "0".into(),
        }),
        None => None,
    };
    let title = record_title(rec, map)?;
    let url = map.url.as_ref().map(|t| render(t, "url")).transpose()?;
    let body = record_body(rec, map)?;
    if body.is_empty() {
        return Ok(None);
    }
    let metadata = record_metadata(rec, place, map)?;
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
fn not_text(v: &Value) -> Option<&'static str> {
    match v {
        Value::Bool(_) => Some("a boolean"),
        Value::Object(m) if !m.get("text").is_some_and(Value::is_string) => {
            Some("an object without a `text` string")
        }
        Value::Array(items) => items.iter().find_map(not_text),
        _ => None,
    }
}

/// The named groups of `records.id_match` over the record's field, as template variables.
fn id_captures(
    rec: &Value,
    place: &Place,
    map: &RecordMapping,
) -> Result<Map<String, Value>, Fail> {
    let mut caps = Map::new();
    let Some(IdMatch { field, pattern }) = &map.id_match else {
        return Ok(caps);
    };
    let value = var(rec, place, &caps, field).ok_or_else(|| {
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
fn record_body(rec: &Value, map: &RecordMapping) -> Result<Body, Fail> {
    let mut body = Body::default();
    for path in &map.text {
        for v in resolve(rec, path) {
            if let Some(shape) = not_text(v) {
                return Err(Fail::new(
                    format!("field `{path}` (text) is {shape}"),
                    "map `text` to string fields, lists of strings, or objects with a `text` string",
                ));
            }
            push_text(&mut body, v, "text", None);
        }
    }
    if let Some(sections) = &map.sections {
        push_sections(&mut body, rec, sections);
    }
    Ok(body)
}

/// The record's metadata: its Coptic `date` (when mapped) and the mapped metadata fields.
fn record_metadata(
    rec: &Value,
    place: &Place,
    map: &RecordMapping,
) -> Result<Map<String, Value>, Fail> {
    let mut metadata = Map::new();
    if let Some(path) = &map.date {
        let raw =
            place_value(place, path).or_else(|| resolve(rec, path).first().map(|v| (*v).clone()));
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
        let v =
            place_value(place, path).or_else(|| resolve(rec, path).first().map(|v| (*v).clone()));
        if let Some(v) = v {
            let v = match v {
                Value::String(s) => Value::String(decode_entities(&s).into_owned()),
                other => other,
            };
            metadata.insert(name.clone(), v);
        }
    }
    Ok(metadata)
}

fn push_text(body: &mut Body, v: &Value, item_text: &str, item_label: Option<&str>) {
    match v {
        Value::String(s) => {
            let s = decode_entities(s);
            for para in s.split("\n\n") {
                body.push(BlockKind::Paragraph, para);
            }
        }
        Value::Number(n) => body.push(BlockKind::Paragraph, &n.to_string()),
        Value::Array(items) => {
            for item in items {
                push_text(body, item, item_text, item_label);
            }
        }
        Value::Object(m) => {
            let Some(Value::String(t)) = m.get(item_text) else {
                return;
            };
            let t = decode_entities(t);
            match item_label.and_then(|l| m.get(l)).and_then(|l| l.as_str()) {
                Some(label) => body.push(
                    BlockKind::Paragraph,
                    &format!("{}: {t}", decode_entities(label)),
                ),
                None => body.push(BlockKind::Paragraph, &t),
            }
        }
        _ => {}
    }
}

fn push_sections(body: &mut Body, rec: &Value, map: &SectionMapping) {
    let mut secs = Vec::new();
    select(rec, &map.select, Place::default(), &mut secs);
    for (sec, _) in secs {
        if let Some(title) = map
            .title
            .as_deref()
            .and_then(|p| resolve(sec, p).first().and_then(|v| scalar(v)))
        {
            body.push(BlockKind::Heading(2), &title);
        }
        for path in &map.text {
            for v in resolve(sec, path) {
                push_text(body, v, &map.item_text, map.item_label.as_deref());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duplicate(text: &str) -> Option<(String, usize)> {
        match parse_unique(text) {
            Err(Invalid::Duplicate { key, line }) => Some((key, line)),
            _ => None,
        }
    }

    #[test]
    fn a_repeated_key_is_named_with_its_line_at_any_depth() {
        assert_eq!(
            duplicate("{\"c\": [1],\n \"c\": [2]}"),
            Some(("c".into(), 2))
        );
        let nested = "[\n {\"a\": {\"x\": 1,\n\n   \"y\": 2, \"x\": 3}}\n]";
        assert_eq!(duplicate(nested), Some(("x".into(), 4)));
        // The same key in two objects, or escaped differently but equal, is one key each.
        assert!(parse_unique("[{\"a\": 1}, {\"a\": 2}]").is_ok());
        assert_eq!(
            duplicate("{\"\\u0061\": 1, \"a\": 2}"),
            Some(("a".into(), 1))
        );
    }

    #[test]
    fn values_equal_serde_json_s_own() {
        let text = r#"{"n": [0, -1, 18446744073709551615, 1.5e300, -0.0, 3.25], "s": "a\"\u00e9\ud83d\ude00",
            "t": true, "f": false, "z": null, "o": {"k": {"deep": [[], {}]}}, "e": ""}"#;
        let ours = parse_unique(text).ok().expect("valid JSON");
        let theirs: Value = serde_json::from_str(text).unwrap();
        assert_eq!(ours, theirs);
        assert_eq!(
            serde_json::to_string(&ours).unwrap(),
            serde_json::to_string(&theirs).unwrap(),
            "key order kept"
        );
    }

    #[test]
    fn syntax_errors_stay_syntax_errors() {
        for bad in ["{\"a\": 1,}", "[1, 2", "{\"a\" 1}", "{} {}", ""] {
            assert!(
                matches!(parse_unique(bad), Err(Invalid::Syntax(_))),
                "{bad:?}"
            );
        }
        // serde_json's recursion limit still holds (no stack overflow on deep input).
        let deep = "[".repeat(100_000);
        assert!(matches!(parse_unique(&deep), Err(Invalid::Syntax(_))));
    }
}
