//! deploy: the pure planner of `askzico deploy` (DESIGN §8). Given a build's records (Vectorize
//! NDJSON lines and KV pairs) and what the inactive index holds, it computes what to upsert,
//! delete and write, in batches within every Cloudflare limit. A limit violation fails the whole
//! plan, before anything is sent. No I/O here; `client` and `run` do the network and the journal.
//!
//! Old versions and their keys (`--gc`): every deploy records its version, and the version each
//! index holds, in the KV registry `<prefix>versions` (`keys::Registry`) before touching the index,
//! and stores its manifest and key table before any value (`keys`), so they name every key of the
//! version. `gc` deletes, by those exact keys, the versions the registry lists that are neither
//! live nor held by either index (content-addressed values only when no kept version names
//! them), and never lists KV by prefix. `upload` reads a build's upload records for `export` too.

pub(crate) mod check;
pub(crate) mod client;
pub(crate) mod error;
pub(crate) mod gc;
pub(crate) mod journal;
pub(crate) mod keys;
pub(crate) mod live;
pub(crate) mod rollback;
pub(crate) mod run;
mod send;
mod served;
mod summary;
pub(crate) mod upload;
pub(crate) mod verify;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

pub(crate) use error::DeployError;

/// Every Cloudflare limit the deploy checks, in one table (reference/cloudflare.md; Cloudflare
/// changes these often: update here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Vectors per upsert request: 5,000 over HTTP, 1,000 for a Worker binding (Vectorize limits
    /// page). We keep to 1,000: smaller requests retry cheaper and stay far below the byte cap.
    pub upsert_max_vectors: usize,
    /// Bytes per upload request: "Max vectors upload size 100 MB" (Vectorize limits page).
    pub upsert_max_bytes: usize,
    /// IDs per `delete_by_ids` request.
    pub delete_max_ids: usize,
    /// Pairs per KV `PUT /bulk` (KV write page "Write data in bulk").
    pub kv_max_pairs: usize,
    /// Bytes per KV bulk request: "The entire request size must be 100 megabytes or less".
    pub kv_max_bytes: usize,
    /// Keys per KV bulk delete (`POST …/bulk/delete`: "an array of up to 10,000 keys"); its
    /// bytes are held to `kv_max_bytes` too.
    pub kv_delete_max_keys: usize,
    /// Vector ID: 64 bytes (Vectorize limits page).
    pub max_id_bytes: usize,
    /// Metadata per vector: 10 KiB (Vectorize limits page).
    pub max_metadata_bytes: usize,
    /// KV key: 512 bytes (KV limits page).
    pub max_key_bytes: usize,
    /// KV value: 25 MiB (KV limits page).
    pub max_value_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            upsert_max_vectors: 1000,
            upsert_max_bytes: 100_000_000,
            delete_max_ids: 1000,
            kv_max_pairs: 10_000,
            kv_max_bytes: 100_000_000,
            kv_delete_max_keys: 10_000,
            max_id_bytes: 64,
            max_metadata_bytes: 10 * 1024,
            max_key_bytes: 512,
            max_value_bytes: 25 * 1024 * 1024,
        }
    }
}

/// Room for the multipart framing around an upsert body (boundary lines and part headers).
pub(crate) const MULTIPART_OVERHEAD: usize = 512;

/// One vector as it will be uploaded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VectorItem {
    pub id: String,
    /// The exact NDJSON line (no trailing newline).
    pub line: String,
    /// Serialized size of the metadata object.
    pub metadata_bytes: usize,
    /// Hash of the vector's content (values and metadata, `corpus_version` left out): equal
    /// hashes mean the index already holds this vector.
    pub content: String,
}

impl VectorItem {
    /// From a Vectorize record `{"id", "values", "metadata"}`.
    pub(crate) fn from_record(record: &Value) -> VectorItem {
        let id = record
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let line = record.to_string();
        let metadata = record.get("metadata").cloned().unwrap_or(Value::Null);
        let metadata_bytes = metadata.to_string().len();
        let mut stable = record.clone();
        if let Some(m) = stable.get_mut("metadata").and_then(Value::as_object_mut) {
            m.remove("corpus_version");
        }
        let content = blake3::hash(stable.to_string().as_bytes()).to_hex()[..32].to_string();
        VectorItem {
            id,
            line,
            metadata_bytes,
            content,
        }
    }
}

/// What a new build uploads.
#[derive(Debug, Clone, Default)]
pub(crate) struct Records {
    pub version: String,
    pub vectors: Vec<VectorItem>,
    pub kv: Vec<(String, String)>,
    /// Indices of `kv` that open a new batch. The deploy confirms each batch before sending the
    /// next, so the pairs before a break are all stored before any pair after it is sent
    /// (`keys`: the manifest, then the key pages, then the records they name).
    pub kv_breaks: Vec<usize>,
    /// Content-addressed values of the version already present in KV (not sent).
    pub kv_present: usize,
}

/// What the inactive index is known to hold: vector ID → content hash. `None` (unknown, e.g.
/// an empty target) means every vector is upserted and nothing is deleted.
pub(crate) type IndexState = BTreeMap<String, String>;

/// A batch of work; `id` names it by content so a rerun recognises batches already confirmed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Batch<T> {
    pub id: String,
    pub items: Vec<T>,
    /// Request body bytes (for upserts the NDJSON, for KV the JSON array).
    pub bytes: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Plan {
    pub version: String,
    /// Vector lines to upsert, per request.
    pub upserts: Vec<Batch<String>>,
    /// IDs to delete, per request.
    pub deletes: Vec<Batch<String>>,
    /// KV pairs per bulk request.
    pub kv: Vec<Batch<(String, String)>>,
    /// Vectors the index already holds unchanged.
    pub unchanged: usize,
    pub vectors_new: usize,
    pub vectors_changed: usize,
}

impl Plan {
    pub(crate) fn upsert_count(&self) -> usize {
        self.upserts.iter().map(|b| b.items.len()).sum()
    }
    pub(crate) fn delete_count(&self) -> usize {
        self.deletes.iter().map(|b| b.items.len()).sum()
    }
    pub(crate) fn kv_count(&self) -> usize {
        self.kv.iter().map(|b| b.items.len()).sum()
    }
    pub(crate) fn upsert_bytes(&self) -> usize {
        self.upserts.iter().map(|b| b.bytes).sum()
    }
    pub(crate) fn kv_bytes(&self) -> usize {
        self.kv.iter().map(|b| b.bytes).sum()
    }
}

/// Computes the plan, or every limit the records break (nothing may be sent then).
pub(crate) fn plan(
    records: &Records,
    previous: Option<&IndexState>,
    limits: &Limits,
) -> Result<Plan, Vec<String>> {
    let mut errors = Vec::new();
    let ids = check_vectors(records, limits, &mut errors);
    check_kv(records, limits, &mut errors);
    if limits.upsert_max_vectors == 0 || limits.delete_max_ids == 0 || limits.kv_max_pairs == 0 {
        errors.push("batch sizes must be at least 1".into());
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let diff = diff(records, previous, &ids);
    Ok(Plan {
        version: records.version.clone(),
        upserts: upsert_batches(&diff.upsert, limits),
        deletes: vector_delete_batches(diff.delete, limits),
        kv: kv_batches(records, limits),
        unchanged: diff.unchanged,
        vectors_new: diff.new,
        vectors_changed: diff.changed,
    })
}

/// Records every vector that breaks a Vectorize limit; returns the set of vector IDs.
fn check_vectors<'r>(
    records: &'r Records,
    limits: &Limits,
    errors: &mut Vec<String>,
) -> BTreeSet<&'r str> {
    let mut seen = BTreeSet::new();
    for v in &records.vectors {
        if v.id.is_empty() || v.id.len() > limits.max_id_bytes {
            errors.push(format!(
                "vector ID {:?} is {} bytes; Vectorize takes 1 to {}",
                v.id,
                v.id.len(),
                limits.max_id_bytes
            ));
        }
        if v.metadata_bytes > limits.max_metadata_bytes {
            errors.push(format!(
                "metadata of vector {} is {} bytes, over Vectorize's {}",
                v.id, v.metadata_bytes, limits.max_metadata_bytes
            ));
        }
        if v.line.len() + 1 + MULTIPART_OVERHEAD > limits.upsert_max_bytes {
            errors.push(format!(
                "vector {} alone is {} bytes, over the {}-byte upload limit",
                v.id,
                v.line.len(),
                limits.upsert_max_bytes
            ));
        }
        if !seen.insert(v.id.as_str()) {
            errors.push(format!("duplicate vector ID {}", v.id));
        }
    }
    seen
}

/// Records every KV pair that breaks a Workers KV limit.
fn check_kv(records: &Records, limits: &Limits, errors: &mut Vec<String>) {
    let mut keys = BTreeSet::new();
    for (k, v) in &records.kv {
        if k.is_empty() || k == "." || k == ".." || k.len() > limits.max_key_bytes {
            errors.push(format!(
                "KV key {k:?} is {} bytes; KV takes 1 to {} (and not . or ..)",
                k.len(),
                limits.max_key_bytes
            ));
        }
        if v.len() > limits.max_value_bytes {
            errors.push(format!(
                "KV value of {k} is {} bytes, over {}",
                v.len(),
                limits.max_value_bytes
            ));
        }
        if kv_pair_bytes(k, v) + 2 > limits.kv_max_bytes {
            errors.push(format!(
                "KV pair {k} alone is over the {}-byte bulk request limit",
                limits.kv_max_bytes
            ));
        }
        if !keys.insert(k.as_str()) {
            errors.push(format!("KV key {k} is written twice"));
        }
    }
}

/// The vectors of a build against what the index holds.
struct Diff<'r> {
    /// New and changed vectors, in build order.
    upsert: Vec<&'r VectorItem>,
    /// IDs the index holds that the build lacks.
    delete: Vec<String>,
    new: usize,
    changed: usize,
    unchanged: usize,
}

/// Diffs the build's vectors (`ids`) against `previous`; unknown: everything is new.
fn diff<'r>(records: &'r Records, previous: Option<&IndexState>, ids: &BTreeSet<&str>) -> Diff<'r> {
    let (mut new, mut changed, mut unchanged) = (0, 0, 0);
    let mut upsert: Vec<&VectorItem> = Vec::new();
    for v in &records.vectors {
        match previous.and_then(|p| p.get(&v.id)) {
            Some(h) if *h == v.content => unchanged += 1,
            Some(_) => {
                changed += 1;
                upsert.push(v);
            }
            None => {
                new += 1;
                upsert.push(v);
            }
        }
    }
    let delete = previous
        .map(|p| {
            p.keys()
                .filter(|id| !ids.contains(id.as_str()))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    Diff {
        upsert,
        delete,
        new,
        changed,
        unchanged,
    }
}

/// Upsert requests: NDJSON lines within the vector count and multipart body limits.
pub(super) fn upsert_batches(vectors: &[&VectorItem], limits: &Limits) -> Vec<Batch<String>> {
    pack(
        vectors.iter().map(|v| Packed {
            item: v.line.clone(),
            cost: v.line.len() + 1,
            opens: false,
        }),
        limits.upsert_max_vectors,
        limits.upsert_max_bytes - MULTIPART_OVERHEAD,
        0,
        "upsert",
    )
}

/// Vector delete requests (`delete_by_ids`), within the ID count limit.
fn vector_delete_batches(ids: Vec<String>, limits: &Limits) -> Vec<Batch<String>> {
    pack(
        ids.into_iter().map(|id| Packed {
            cost: id.len() + 3,
            item: id,
            opens: false,
        }),
        limits.delete_max_ids,
        usize::MAX,
        10,
        "delete",
    )
}

/// KV bulk requests, each group of `kv_breaks` opening a new one.
pub(super) fn kv_batches(records: &Records, limits: &Limits) -> Vec<Batch<(String, String)>> {
    let breaks: BTreeSet<usize> = records.kv_breaks.iter().copied().collect();
    pack(
        records.kv.iter().enumerate().map(|(i, (k, v))| Packed {
            item: (k.clone(), v.clone()),
            cost: kv_pair_bytes(k, v) + 1,
            opens: breaks.contains(&i),
        }),
        limits.kv_max_pairs,
        limits.kv_max_bytes,
        1,
        "kv",
    )
}

/// Bytes of `{"key":…,"value":…}` as JSON.
pub(crate) fn kv_pair_bytes(k: &str, v: &str) -> usize {
    serde_json::json!({"key": k, "value": v}).to_string().len()
}

/// KV keys to delete, per bulk delete request (a JSON array of key strings), within the limits.
pub(crate) fn delete_batches(keys: &[String], limits: &Limits) -> Vec<Batch<String>> {
    let cost = |k: &String| serde_json::to_string(k).expect("serializes").len() + 1;
    pack(
        keys.iter().map(|k| Packed {
            item: k.clone(),
            cost: cost(k),
            opens: false,
        }),
        limits.kv_delete_max_keys.max(1),
        limits.kv_max_bytes,
        1,
        "kv-delete",
    )
}

/// One item to pack into a batch.
struct Packed<T> {
    item: T,
    /// Its bytes in the request body.
    cost: usize,
    /// It opens a new batch (the first of a group confirmed after the one before).
    opens: bool,
}

/// Greedy packing: each item's cost counts toward `max_bytes` (after a fixed `frame`); an item
/// that `opens` always opens a new batch.
fn pack<T: BatchKey>(
    items: impl Iterator<Item = Packed<T>>,
    max_items: usize,
    max_bytes: usize,
    frame: usize,
    kind: &str,
) -> Vec<Batch<T>> {
    let mut batches = Vec::new();
    let mut cur: Vec<T> = Vec::new();
    let mut bytes = frame;
    let finish = |cur: Vec<T>, bytes: usize, batches: &mut Vec<Batch<T>>| {
        let mut h = blake3::Hasher::new();
        h.update(kind.as_bytes());
        for it in &cur {
            it.hash_into(&mut h);
        }
        batches.push(Batch {
            id: h.finalize().to_hex()[..32].to_string(),
            items: cur,
            bytes,
        });
    };
    for Packed { item, cost, opens } in items {
        if !cur.is_empty() && (opens || cur.len() >= max_items || bytes + cost > max_bytes) {
            finish(std::mem::take(&mut cur), bytes, &mut batches);
            bytes = frame;
        }
        bytes += cost;
        cur.push(item);
    }
    if !cur.is_empty() {
        finish(cur, bytes, &mut batches);
    }
    batches
}

trait BatchKey {
    fn hash_into(&self, h: &mut blake3::Hasher);
}
impl BatchKey for String {
    fn hash_into(&self, h: &mut blake3::Hasher) {
        h.update(&(self.len() as u64).to_le_bytes());
        h.update(self.as_bytes());
    }
}
impl BatchKey for (String, String) {
    fn hash_into(&self, h: &mut blake3::Hasher) {
        self.0.hash_into(h);
        self.1.hash_into(h);
    }
}

/// The state an index holds after a plan for `records` completed on it.
pub(crate) fn state_after(records: &Records) -> IndexState {
    records
        .vectors
        .iter()
        .map(|v| (v.id.clone(), v.content.clone()))
        .collect()
}

#[cfg(test)]
mod tests;
