//! The upload records of a verified build, shared by `askzico export` and `askzico deploy`:
//! Vectorize NDJSON objects and the KV pairs of the content-addressed layout (DESIGN §4, `keys`).
//! Reads the build's artifacts; checks no Cloudflare limit (the callers do).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Value, json};

use super::keys::{self, VersionTable};
use crate::artifacts::manifest::Manifest;
use crate::artifacts::{ChunkRecord, Kind, LookupRecord, vectors};
use crate::diag::Problem;

fn read(out: &Path, m: &Manifest, path: &str) -> Result<Vec<u8>, Problem> {
    // Artifacts grow with the corpus; a device or FIFO in their place is refused.
    crate::fsio::read_capped(&out.join(path), crate::fsio::cap::CORPUS_STATE).map_err(|e| {
        if e.is_not_found() {
            // Gone: a newer build and `askzico gc` ran while this command read the build.
            let env = (m.environment != "default").then_some(m.environment.as_str());
            return crate::retrieve::local::missing(out, env, &m.corpus_version, path);
        }
        Problem::error("read", format!("cannot read {path}: {e}"))
            .in_file(path.to_string())
            .help("run `askzico verify`; rebuild if it fails")
    })
}

/// Per vector file: its library and its Vectorize NDJSON objects.
pub(crate) type VectorLines = Vec<(Option<String>, Vec<Value>)>;

/// The KV pairs of one version in the content-addressed layout.
#[derive(Debug, Clone, Default)]
pub struct KvVersion {
    pub version: String,
    /// The version's own keys, written before any value: its manifest and its key table.
    pub tables: Vec<(String, String)>,
    /// Content-addressed values, each once: the domains' record tables first (a deploy confirms
    /// them before the records and shards), then document tables, the query settings, lookup
    /// records and lexical files.
    pub values: Vec<(String, String)>,
    /// How many of `values` are record tables (they open the values).
    pub record_tables: usize,
    /// Chunk ID → the hash of its lookup record (a vector's metadata carries it).
    pub records: BTreeMap<String, String>,
}

impl KvVersion {
    /// Every pair: tables, then values.
    pub fn pairs(&self) -> impl Iterator<Item = &(String, String)> {
        self.tables.iter().chain(&self.values)
    }
}

/// The KV pairs of a build under `prefix` (DESIGN §4): per version its manifest and key table
/// (`VersionTable`); shared by every version, under the hash of their bytes, each domain's record
/// table (chunk ID → record hash) and document table (`keys::DocEntry`), each lookup record, each
/// lexical file and the query settings (`settings`, the value of
/// `askzico_core::deployed::QuerySettings` a runtime answers with).
pub fn kv_version(
    out: &Path,
    m: &Manifest,
    prefix: &str,
    settings: &str,
) -> Result<KvVersion, Problem> {
    let v = &m.corpus_version;
    // Records carry the index of their words under the version's normalization.
    let rules = askzico_core::deployed::QuerySettings::parse(settings)
        .map_err(|e| Problem::error("invariant", format!("the query settings: {}", e.message)))?
        .normalize;
    let mut records: BTreeMap<String, String> = BTreeMap::new();
    // Domain → (chunk ID → record hash); chunks in no domain under "".
    let mut by_domain: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut record_values: BTreeMap<String, String> = BTreeMap::new();
    for a in m.artifacts_of(Kind::Lookup) {
        let bytes = read(out, m, &a.path)?;
        for line in String::from_utf8_lossy(&bytes).lines() {
            let r: LookupRecord = serde_json::from_str(line)
                .map_err(|e| Problem::error("read", format!("{}: {e}", a.path)))?;
            let value = askzico_core::deployed::record_value(&r, &rules);
            let h = keys::value_hash(value.as_bytes());
            let domains: Vec<&str> = if r.domains.is_empty() {
                vec![""]
            } else {
                r.domains.iter().map(String::as_str).collect()
            };
            for d in domains {
                by_domain
                    .entry(d.to_string())
                    .or_default()
                    .insert(r.chunk_id.clone(), h.clone());
            }
            record_values.insert(keys::record_key(prefix, &h), value);
            records.insert(r.chunk_id, h);
        }
    }
    let mut table = VersionTable {
        layout: keys::LAYOUT,
        ..VersionTable::default()
    };
    let mut tables: BTreeMap<String, String> = BTreeMap::new();
    for (domain, ids) in &by_domain {
        let value = serde_json::to_string(ids).expect("serializes");
        let h = keys::value_hash(value.as_bytes());
        tables.insert(keys::table_key(prefix, &h), value);
        table.records.insert(domain.clone(), h);
    }
    let mut doc_tables: BTreeMap<String, String> = BTreeMap::new();
    for (domain, docs) in doc_tables_of(out, m)? {
        let value = serde_json::to_string(&docs).expect("serializes");
        let h = keys::value_hash(value.as_bytes());
        doc_tables.insert(keys::doc_table_key(prefix, &h), value);
        table.docs.insert(domain, h);
    }
    let mut lexical: BTreeMap<String, String> = BTreeMap::new();
    for a in m.artifacts_of(Kind::Lexical) {
        let bytes = read(out, m, &a.path)?;
        let domain = a.domain.clone().unwrap_or_default();
        let name = crate::artifacts::artifact_name(&a.path);
        // Term shards go in the line format (layout 4: a runtime decodes only a question's
        // terms); the meta as built.
        let value = if name == "meta" {
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            let shard: crate::artifacts::lexical::LexShard = serde_json::from_slice(&bytes)
                .map_err(|e| {
                    Problem::error("read", format!("{}: {e}", a.path))
                        .help("run `askzico verify`; rebuild if it fails")
                })?;
            askzico_core::lexical::to_lines(&shard)
        };
        let h = keys::value_hash(value.as_bytes());
        let entry = table.lexical.entry(domain).or_default();
        if name == "meta" {
            entry.meta = h.clone();
        } else {
            let k: usize = name.parse().map_err(|_| {
                Problem::error(
                    "bad-manifest",
                    format!("lexical artifact {} is neither a meta nor a shard", a.path),
                )
                .help("rebuild with `askzico build`; never edit manifests by hand")
            })?;
            if entry.shards.len() <= k {
                entry.shards.resize(k + 1, String::new());
            }
            entry.shards[k] = h.clone();
        }
        lexical.insert(keys::lexical_key(prefix, &h), value);
    }
    let settings_hash = keys::value_hash(settings.as_bytes());
    let settings_pair = (
        keys::settings_key(prefix, &settings_hash),
        settings.to_string(),
    );
    table.settings = Some(settings_hash);
    let record_tables = tables.len();
    let values = tables
        .into_iter()
        .chain(doc_tables)
        .chain([settings_pair])
        .chain(record_values)
        .chain(lexical)
        .collect();
    Ok(KvVersion {
        version: v.clone(),
        tables: vec![
            (
                keys::manifest_key(prefix, v),
                String::from_utf8_lossy(&m.to_pretty_json()).into_owned(),
            ),
            (keys::version_table_key(prefix, v), keys::table_json(&table)),
        ],
        values,
        record_tables,
        records,
    })
}

/// Per domain (chunks of no domain under ""), its documents' table entries, from the chunk
/// records (every chunk of a document carries its document's fields).
fn doc_tables_of(
    out: &Path,
    m: &Manifest,
) -> Result<BTreeMap<String, BTreeMap<String, keys::DocEntry>>, Problem> {
    let mut by_domain: BTreeMap<String, BTreeMap<String, keys::DocEntry>> = BTreeMap::new();
    let filterable = |library: &str| -> &[String] {
        m.libraries
            .iter()
            .find(|l| l.id == library)
            .map_or(&[], |l| &l.filterable)
    };
    for a in m.artifacts_of(Kind::Chunks) {
        let bytes = read(out, m, &a.path)?;
        for line in String::from_utf8_lossy(&bytes).lines() {
            let r: ChunkRecord = serde_json::from_str(line)
                .map_err(|e| Problem::error("read", format!("{}: {e}", a.path)))?;
            let entry = keys::DocEntry {
                source: r.source,
                url: r.url,
                date: crate::retrieve::chunk_date(&r.metadata).map(|(m, d)| [m, d]),
                fields: askzico_core::tables::fields_of(&r.metadata, filterable(&r.library))
                    .into_iter()
                    .collect(),
                library: r.library,
            };
            let domains: Vec<String> = if r.domains.is_empty() {
                vec![String::new()]
            } else {
                r.domains
            };
            for d in domains {
                by_domain
                    .entry(d)
                    .or_default()
                    .insert(r.doc_id.clone(), entry.clone());
            }
        }
    }
    Ok(by_domain)
}

/// The content-addressed keys a version's pairs name (for `export --since`).
pub(crate) fn value_keys(kv: &KvVersion) -> BTreeSet<String> {
    kv.values.iter().map(|(k, _)| k.clone()).collect()
}

/// Every vector of a build as (vector file's library, the exact Vectorize NDJSON objects), in
/// manifest order: `{"id", "values", "metadata"}`, the metadata holding `corpus_version` and
/// `record` (the hash of the chunk's lookup record: a runtime hydrates a hit from it in one KV
/// read, `<prefix>r/<record>`).
pub(crate) fn vector_lines(
    out: &Path,
    m: &Manifest,
    records: &BTreeMap<String, String>,
) -> Result<VectorLines, Problem> {
    let mut chunks: BTreeMap<String, ChunkRecord> = BTreeMap::new();
    for a in m.artifacts_of(Kind::Chunks) {
        let bytes = read(out, m, &a.path)?;
        for line in String::from_utf8_lossy(&bytes).lines() {
            let r: ChunkRecord = serde_json::from_str(line)
                .map_err(|e| Problem::error("read", format!("{}: {e}", a.path)))?;
            chunks.insert(r.chunk_id.clone(), r);
        }
    }
    let mut files = Vec::new();
    for a in m.artifacts_of(Kind::Vectors) {
        let (_, recs) = vectors::decode(&read(out, m, &a.path)?)
            .map_err(|e| Problem::error("read", format!("{}: {e}", a.path)))?;
        let mut lines = Vec::with_capacity(recs.len());
        for r in recs {
            let c = chunks.get(&r.id).ok_or_else(|| {
                Problem::error("invariant", format!("vector {} has no chunk record", r.id))
            })?;
            let record = records.get(&r.id).ok_or_else(|| {
                Problem::error("invariant", format!("vector {} has no lookup record", r.id))
                    .help("run `askzico verify`; rebuild if it fails")
            })?;
            let metadata = json!({
                "doc_id": c.doc_id,
                "library": c.library,
                "chunk_index": c.chunk_index,
                "domains": c.domains,
                "url": c.url,
                "record": record,
                "corpus_version": m.corpus_version,
            });
            lines.push(json!({"id": r.id, "values": r.values, "metadata": metadata}));
        }
        files.push((a.library.clone(), lines));
    }
    Ok(files)
}
