//! Reading back what a version needs, before anything points at it: the KV pairs a deploy takes
//! as stored (bulk gets of 100 keys, compared byte for byte) and the vectors an index must hold
//! (`get_by_ids` in batches, each vector's record hash compared with the one its version names).
//! A deploy, `--rollback` and `--check` trust no answer of a write alone: only what reads back.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::DeployError;
use super::client::Client;

/// Keys per bulk get (the limit Cloudflare documents for bulk reads).
pub const GET_KEYS: usize = 100;

/// IDs per `get_by_ids` request. Cloudflare documents no cap; 100 keeps an answer with 1,024
/// dimensions per vector near a megabyte, like a KV bulk get of 100 keys.
pub const GET_IDS: usize = 100;

/// Reads `keys` in bulk gets; absent keys map to `None`.
pub fn kv_values(
    c: &Client,
    ns: &str,
    keys: &[String],
) -> Result<BTreeMap<String, Option<String>>, DeployError> {
    let mut out = BTreeMap::new();
    for batch in keys.chunks(GET_KEYS) {
        out.extend(c.kv_bulk_get(ns, batch)?);
    }
    Ok(out)
}

/// The keys of `pairs` KV does not hold with exactly these bytes, in the order of `pairs`.
pub fn kv_differing<'p>(
    c: &Client,
    ns: &str,
    pairs: impl Iterator<Item = &'p (String, String)> + Clone,
) -> Result<Vec<String>, DeployError> {
    let keys: Vec<String> = pairs.clone().map(|(k, _)| k.clone()).collect();
    let got = kv_values(c, ns, &keys)?;
    Ok(pairs
        .filter(|(k, v)| got.get(k).and_then(Option::as_deref) != Some(v.as_str()))
        .map(|(k, _)| k.clone())
        .collect())
}

/// What one vector must be in an index: its ID, the record hash its metadata names (layout 2),
/// and, for a vector this deploy upserted, the version its metadata names.
#[derive(Debug, Clone, PartialEq)]
pub struct Want {
    pub id: String,
    pub record: Option<String>,
    pub version: Option<String>,
}

impl Want {
    /// From an uploaded NDJSON record; `upserted`: its metadata must name `version`.
    pub fn of_line(line: &str, upserted: bool, version: &str) -> Want {
        let v: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        Want {
            id: v["id"].as_str().unwrap_or("").to_string(),
            record: v
                .pointer("/metadata/record")
                .and_then(Value::as_str)
                .map(String::from),
            version: upserted.then(|| version.to_string()),
        }
    }
}

/// A vector an index does not hold as its version needs it.
#[derive(Debug, Clone, PartialEq)]
pub enum Wrong {
    /// Not returned.
    Missing(String),
    /// Returned with another record hash (the vector of another version, or written outside
    /// askzico).
    Record { id: String, got: String },
    /// Returned, but not yet as this deploy upserted it.
    Version { id: String, got: String },
}

impl Wrong {
    pub fn id(&self) -> &str {
        match self {
            Wrong::Missing(id) | Wrong::Record { id, .. } | Wrong::Version { id, .. } => id,
        }
    }
}

impl std::fmt::Display for Wrong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Wrong::Missing(id) => write!(f, "vector {id} is missing"),
            Wrong::Record { id, got } => {
                write!(f, "vector {id} names record {got}, not its version's")
            }
            Wrong::Version { id, got } => write!(f, "vector {id} is of version {got}"),
        }
    }
}

/// Reads every wanted vector back from `index` (`get_by_ids`, [`GET_IDS`] a request) and returns
/// those not as wanted, in the order of `want`.
pub fn vectors_wrong(c: &Client, index: &str, want: &[Want]) -> Result<Vec<Wrong>, DeployError> {
    let mut got: BTreeMap<String, Value> = BTreeMap::new();
    for batch in want.chunks(GET_IDS) {
        let ids: Vec<String> = batch.iter().map(|w| w.id.clone()).collect();
        let asked: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
        for v in c.get_by_ids(index, &ids)? {
            if let Some(id) = v.get("id").and_then(Value::as_str)
                && asked.contains(id)
            {
                got.insert(id.to_string(), v);
            }
        }
    }
    let text = |v: &Value, p: &str| {
        v.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    Ok(want
        .iter()
        .filter_map(|w| {
            let Some(v) = got.get(&w.id) else {
                return Some(Wrong::Missing(w.id.clone()));
            };
            let record = text(v, "/metadata/record");
            if w.record.as_ref().is_some_and(|r| *r != record) {
                return Some(Wrong::Record {
                    id: w.id.clone(),
                    got: crate::term::line(&record).to_string(),
                });
            }
            let version = text(v, "/metadata/corpus_version");
            if let Some(want) = &w.version
                && *want != version
            {
                return Some(Wrong::Version {
                    id: w.id.clone(),
                    got: crate::term::line(&version).to_string(),
                });
            }
            None
        })
        .collect())
}

/// "N of the M <what> (e.g. first)" for a message.
pub fn some_of<T: std::fmt::Display>(wrong: &[T], of: usize, what: &str) -> String {
    match wrong.first() {
        Some(first) => format!("{} of the {of} {what} (e.g. {first})", wrong.len()),
        None => format!("none of the {of} {what}"),
    }
}
