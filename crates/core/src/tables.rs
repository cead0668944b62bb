//! What a version holds for a question besides its term shards: each chunk's facts
//! ([`ChunkInfo`], for filtering and dates), each domain's lexical meta, and the KV hydration
//! record of a chunk ([`LookupRecord`], read only for the candidates and the results).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::lexical::LexMeta;

/// What a chunk is, for matching and filtering (no evidence text).
#[derive(Debug, Clone, Serialize)]
pub struct ChunkInfo {
    pub chunk_id: String,
    pub doc_id: String,
    pub url: String,
    pub source: String,
    pub library: String,
    pub domains: Vec<String>,
    pub date: Option<(u8, u8)>,
    /// Its document's filterable fields (`[[library]] filterable`), by key, as [`scalar`]s.
    pub fields: Vec<(String, String)>,
}

/// A KV hydration record (read side). In KV the key is the chunk_id and the value the rest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LookupRecord {
    pub chunk_id: String,
    pub title: String,
    pub url: String,
    pub text: String,
    /// Where each section of `text` begins (a UTF-8 byte offset) and the heading id that links
    /// to it ("" for the page's top); absent from records of layout 2.
    #[serde(default)]
    pub anchors: Vec<(usize, String)>,
    pub domains: Vec<String>,
    pub library: String,
    pub metadata: Map<String, Value>,
}

/// One version's tables, loaded once and read by every question.
#[derive(Debug, Clone, Default)]
pub struct Tables {
    /// The version's corpus version (named in an invariant failure).
    pub corpus_version: String,
    pub chunks: BTreeMap<String, ChunkInfo>,
    /// Per domain, its lexical meta.
    pub lex_meta: BTreeMap<String, LexMeta>,
}

/// A top-level metadata value as a filter compares it: a string as it is, a number or a boolean
/// as JSON writes it; `None` for anything else (null, arrays, objects).
pub fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The `filterable` fields of `metadata` that hold a [`scalar`], by key.
pub fn fields_of(metadata: &Map<String, Value>, filterable: &[String]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = filterable
        .iter()
        .filter_map(|k| Some((k.clone(), scalar(metadata.get(k)?)?)))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// A chunk's structured date (`metadata.date` `{month, day}`), what a question's date matches.
pub fn chunk_date(metadata: &Map<String, Value>) -> Option<(u8, u8)> {
    date_of(metadata.get("date")?)
}

/// (month, day) of a structured `date` value.
pub fn date_of(d: &Value) -> Option<(u8, u8)> {
    Some((
        d.get("month")?.as_u64()? as u8,
        d.get("day")?.as_u64()? as u8,
    ))
}

#[cfg(test)]
mod tests {
    use super::LookupRecord;

    /// A record of layout 2 has no `anchors`; one of layout 3 has them.
    #[test]
    fn records_of_both_layouts_parse() {
        let two = r#"{"chunk_id":"a:b:000","title":"t","url":"u","text":"x","domains":[],"library":"a","metadata":{}}"#;
        let r: LookupRecord = serde_json::from_str(two).unwrap();
        assert!(r.anchors.is_empty());
        let three = r#"{"chunk_id":"a:b:000","title":"t","url":"u","text":"x","anchors":[[0,""],[1,"id"]],"domains":[],"library":"a","metadata":{}}"#;
        let r: LookupRecord = serde_json::from_str(three).unwrap();
        assert_eq!(r.anchors, [(0, String::new()), (1, "id".to_string())]);
    }
}
