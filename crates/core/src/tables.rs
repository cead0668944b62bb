//! What a version holds for a question besides its term shards: each chunk's facts
//! ([`ChunkInfo`], for filtering and dates), each domain's lexical meta, and the KV hydration
//! record of a chunk ([`LookupRecord`], read only for the candidates and the results), with
//! where its words stand ([`WordIndex`]).

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::lexical::LexMeta;
use crate::normalize::stem::stem;
use crate::normalize::{Rules, normalize, tokens};

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
    /// Where the tokens of its title and text stand, for the second stage: carried by deployed
    /// records (layout 5), never by a build's files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub words: Option<WordIndex>,
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

/// Where each token of a candidate's search form (its title and text, normalized as the
/// question is) stands, by token and by stem key: what the second stage reads of a candidate
/// besides its URL. A deployed record carries it, made when the record is stored
/// (`record_value` in the deployed module), so a runtime neither normalizes nor stems the text
/// of its candidates; for a record without it, it is made from the record ([`WordIndex::of`]).
///
/// Each of the two strings is a sequence of `key positions` pairs separated by single spaces,
/// keys in ascending byte order, positions ascending and comma-separated
/// (`كنيسه 4,17 مار 3`). A key never holds whitespace (tokens are split on it), so the pairs
/// read back whatever else a token holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WordIndex {
    /// Each token, with the positions it stands at.
    pub tokens: String,
    /// Each stem key, with the positions of the tokens that have it.
    pub stems: String,
}

impl WordIndex {
    /// The index of a chunk's `title` and `text` under `rules`.
    pub fn of(title: &str, text: &str, rules: &Rules) -> WordIndex {
        let search = normalize(&format!("{title}\n{text}"), rules);
        let mut by_token: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        let mut by_stem: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let mut keys: FxHashMap<&str, Option<String>> = FxHashMap::default();
        for (p, tok) in tokens(&search).enumerate() {
            by_token.entry(tok).or_default().push(p);
            if let Some(key) = keys.entry(tok).or_insert_with(|| stem(tok))
                && !key.is_empty()
            {
                by_stem.entry(key.clone()).or_default().push(p);
            }
        }
        fn pairs<'k>(map: impl Iterator<Item = (&'k str, Vec<usize>)>) -> String {
            let mut out = String::new();
            for (key, at) in map {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(key);
                for (i, p) in at.iter().enumerate() {
                    out.push(if i == 0 { ' ' } else { ',' });
                    out.push_str(&p.to_string());
                }
            }
            out
        }
        WordIndex {
            tokens: pairs(by_token.into_iter()),
            stems: pairs(by_stem.iter().map(|(k, v)| (k.as_str(), v.clone()))),
        }
    }
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
