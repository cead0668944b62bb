//! Reading back what a version needs, before anything points at it: the KV pairs a deploy takes
//! as stored (bulk gets of 100 keys, compared byte for byte) and the vectors an index must hold
//! (`get_by_ids` in batches, each vector's record hash compared with the one its version names).
//! A deploy, `--rollback` and `--check` trust no answer of a write alone: only what reads back.
//! A deploy reads back everything it sent before its pointer moves, and writes once more what
//! does not read back before it refuses.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::client::Client;
use super::error::CheckFault;
use super::journal;
use super::run::{Deploy, Planned};
use super::send::{line_id, write_pairs};
use super::{DeployError, VectorItem, upsert_batches};

/// Keys per bulk get (the limit Cloudflare documents for bulk reads).
pub(crate) const GET_KEYS: usize = 100;

/// IDs per `get_by_ids` request. Cloudflare documents no cap; 100 keeps an answer with 1,024
/// dimensions per vector near a megabyte, like a KV bulk get of 100 keys.
pub(crate) const GET_IDS: usize = 100;

/// Reads `keys` in bulk gets; absent keys map to `None`.
pub(crate) fn kv_values(
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
pub(crate) fn kv_differing<'p>(
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
pub(crate) struct Want {
    pub id: String,
    pub record: Option<String>,
    pub version: Option<String>,
}

impl Want {
    /// From an uploaded NDJSON record; `upserted`: its metadata must name `version`.
    pub(crate) fn of_line(line: &str, upserted: bool, version: &str) -> Want {
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
pub(crate) enum Wrong {
    /// Not returned.
    Missing(String),
    /// Returned with another record hash (the vector of another version, or written outside
    /// askzico).
    Record { id: String, got: String },
    /// Returned, but not yet as this deploy upserted it.
    Version { id: String, got: String },
}

impl Wrong {
    pub(crate) fn id(&self) -> &str {
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
pub(crate) fn vectors_wrong(
    c: &Client,
    index: &str,
    want: &[Want],
) -> Result<Vec<Wrong>, DeployError> {
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
pub(crate) fn some_of<T: std::fmt::Display>(wrong: &[T], of: usize, what: &str) -> String {
    match wrong.first() {
        Some(first) => format!("{} of the {of} {what} (e.g. {first})", wrong.len()),
        None => format!("none of the {of} {what}"),
    }
}

impl Deploy<'_> {
    /// Reads back every pair this deploy sent (its manifest, key table and the values KV did not
    /// hold): KV must hold each with exactly these bytes. Pairs it lacks are written once more
    /// and read again; still lacking, the deploy stops before the registry or the pointer names
    /// the version, and the next run sends the batches that held them again. Returns the
    /// requests sent.
    pub(super) fn verify_kv(
        &mut self,
        c: &Client,
        planned: &Planned,
    ) -> Result<usize, DeployError> {
        let ns = &self.t.kv_namespace_id;
        let sent = &planned.recs.kv;
        let lacking = kv_differing(c, ns, sent.iter())?;
        if lacking.is_empty() {
            return Ok(0);
        }
        eprintln!(
            "  KV does not hold {} this deploy wrote: writing them again",
            some_of(&lacking, sent.len(), "pairs")
        );
        let lacking: BTreeSet<&String> = lacking.iter().collect();
        let pairs: Vec<(String, String)> = sent
            .iter()
            .filter(|(k, _)| lacking.contains(k))
            .cloned()
            .collect();
        let requests = write_pairs(c, ns, pairs.clone(), &self.limits)?;
        let still = kv_differing(c, ns, pairs.iter())?;
        if still.is_empty() {
            return Ok(requests);
        }
        let gone: BTreeSet<&String> = still.iter().collect();
        let pd = self.j.pending.as_mut().expect("a deploy in progress");
        for b in &planned.p.kv {
            if b.items.iter().any(|(k, _)| gone.contains(k)) {
                pd.done.remove(&b.id);
            }
        }
        journal::save(&self.jpath, &self.j)?;
        Err(DeployError::KvNotStored {
            wrong: some_of(&still, sent.len(), "pairs"),
            from: self.from(),
            target: self.args.target.to_string(),
        })
    }

    /// Before the flip, reads every vector of the version back from the inactive index
    /// (`get_by_ids` in batches): each must be there with its record hash, those this deploy
    /// upserted carrying the new `corpus_version`, and the IDs it deleted gone. Vectors not so
    /// are upserted once more (after the wait, read again); still not so, the flip is refused.
    /// Returns the IDs read and the requests sent.
    pub(super) fn verify_index(
        &mut self,
        c: &Client,
        planned: &Planned,
    ) -> Result<(usize, usize), DeployError> {
        let index = self.index.clone();
        let from = self.from();
        let refuse = |fault: CheckFault| DeployError::CheckQuery {
            fault,
            from: from.clone(),
        };
        let no_answer = |e: DeployError| match e {
            DeployError::Api(error) => refuse(CheckFault::NoAnswer {
                index: index.clone(),
                error,
            }),
            e => e,
        };
        let upserted: BTreeSet<String> = planned
            .p
            .upserts
            .iter()
            .flat_map(|b| &b.items)
            .filter_map(|l| line_id(l))
            .collect();
        let want: Vec<Want> = planned
            .recs
            .vectors
            .iter()
            .map(|v| Want::of_line(&v.line, upserted.contains(&v.id), self.version))
            .collect();
        let deleted: Vec<String> = planned
            .p
            .deletes
            .iter()
            .flat_map(|b| b.items.clone())
            .collect();
        for batch in deleted.chunks(GET_IDS) {
            let got = c
                .get_by_ids(&index, batch)
                .map_err(|e| no_answer(e.into()))?;
            if let Some(id) = got.iter().find_map(|v| {
                let id = v.get("id")?.as_str()?;
                batch.iter().find(|b| *b == id)
            }) {
                return Err(refuse(CheckFault::StillReturned {
                    index: index.clone(),
                    id: id.clone(),
                }));
            }
        }
        let wrong = vectors_wrong(c, &index, &want).map_err(no_answer)?;
        if wrong.is_empty() {
            return Ok((want.len() + deleted.len(), 0));
        }
        eprintln!(
            "  Vectorize index {index} does not hold {} as this deploy wrote them: upserting them again",
            some_of(&wrong, want.len(), "vectors")
        );
        let ids: BTreeSet<&str> = wrong.iter().map(Wrong::id).collect();
        let items: Vec<&VectorItem> = planned
            .recs
            .vectors
            .iter()
            .filter(|v| ids.contains(v.id.as_str()))
            .collect();
        let batches = upsert_batches(&items, &self.limits);
        let n = batches.len();
        let mut last = None;
        for (i, b) in batches.iter().enumerate() {
            let what = format!(
                "upsert again {}/{n} ({}) into {index}",
                i + 1,
                crate::term::count(b.items.len(), "vector", "vectors")
            );
            last = Some(c.upsert(&index, &b.items.join("\n"), &what)?);
        }
        let pd = self.j.pending.as_mut().expect("a deploy in progress");
        pd.last_mutation = last;
        pd.vectors_applied = false;
        journal::save(&self.jpath, &self.j)?;
        self.wait_for_index(c)?;
        let still = vectors_wrong(c, &index, &want).map_err(no_answer)?;
        if still.is_empty() {
            return Ok((want.len() + deleted.len(), n));
        }
        Err(refuse(CheckFault::Lacks {
            index: index.clone(),
            version: self.version.to_string(),
            wrong: some_of(&still, want.len(), "vectors"),
        }))
    }
}
