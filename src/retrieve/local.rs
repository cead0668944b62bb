//! A built version read from its output directory: chunk records, lookup records and vectors
//! loaded at once, lexical term shards read when a question needs them.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::{ChunkInfo, Ranking, VersionStore, chunk_date};
use crate::artifacts::lexical::{LexMeta, LexShard};
use crate::artifacts::manifest::{ArtifactEntry, Manifest};
use crate::artifacts::store::{read_artifact, read_artifact_text};
use crate::artifacts::{ChunkRecord, Kind, LookupRecord, vectors};
use crate::diag::Problem;

pub(super) fn load_err(path: &str, e: impl std::fmt::Display) -> Problem {
    Problem::error("load", format!("cannot load {path}: {e}"))
        .in_file(path.to_string())
        .help("run `askzico verify`; rebuild if it fails")
}

/// The files of one build a searcher reads on demand, and its records and vectors.
pub(super) struct LocalStore {
    out: PathBuf,
    /// (domain, shard) → its artifact.
    lex_paths: HashMap<(String, usize), ArtifactEntry>,
    lookup: HashMap<String, LookupRecord>,
    vectors: Vec<(String, Vec<f32>)>,
}

/// What a searcher holds of a version: every chunk's [`ChunkInfo`] and each domain's lexical
/// meta.
type Held = (BTreeMap<String, ChunkInfo>, BTreeMap<String, LexMeta>);

/// Every chunk's [`ChunkInfo`], each domain's lexical meta, and the store of the rest.
pub(super) fn open(out: &Path, manifest: &Manifest) -> Result<(Held, LocalStore), Problem> {
    let mut chunks = BTreeMap::new();
    let mut lookup = HashMap::new();
    let mut vecs = Vec::new();
    let mut lex_meta = BTreeMap::new();
    let mut lex_paths = HashMap::new();
    for a in &manifest.artifacts {
        match a.kind {
            Kind::Chunks => {
                let text = read_artifact_text(out, a).map_err(|e| load_err(&a.path, e))?;
                for line in text.lines() {
                    let r: ChunkRecord =
                        serde_json::from_str(line).map_err(|e| load_err(&a.path, e))?;
                    let date = chunk_date(&r.metadata);
                    chunks.insert(
                        r.chunk_id.clone(),
                        ChunkInfo {
                            chunk_id: r.chunk_id,
                            doc_id: r.doc_id,
                            url: r.url,
                            source: r.source,
                            library: r.library,
                            domains: r.domains,
                            date,
                        },
                    );
                }
            }
            Kind::Lookup => {
                let text = read_artifact_text(out, a).map_err(|e| load_err(&a.path, e))?;
                for line in text.lines() {
                    let r: LookupRecord =
                        serde_json::from_str(line).map_err(|e| load_err(&a.path, e))?;
                    lookup.insert(r.chunk_id.clone(), r);
                }
            }
            Kind::Vectors => {
                let bytes = read_artifact(out, a).map_err(|e| load_err(&a.path, e))?;
                let (_, recs) = vectors::decode(&bytes).map_err(|e| load_err(&a.path, e))?;
                vecs.extend(recs.into_iter().map(|r| (r.id, r.values)));
            }
            Kind::Lexical => {
                let domain = a.domain.clone().unwrap_or_default();
                let name = crate::artifacts::artifact_name(&a.path);
                if name == "meta" {
                    let bytes = read_artifact(out, a).map_err(|e| load_err(&a.path, e))?;
                    let meta: LexMeta =
                        serde_json::from_slice(&bytes).map_err(|e| load_err(&a.path, e))?;
                    lex_meta.insert(domain, meta);
                } else if let Ok(k) = name.parse::<usize>() {
                    lex_paths.insert((domain, k), a.clone());
                }
            }
        }
    }
    let store = LocalStore {
        out: out.to_path_buf(),
        lex_paths,
        lookup,
        vectors: vecs,
    };
    Ok(((chunks, lex_meta), store))
}

impl VersionStore for LocalStore {
    fn lex_shard(&self, domain: &str, shard: usize) -> Result<LexShard, Problem> {
        let a = self
            .lex_paths
            .get(&(domain.to_string(), shard))
            .ok_or_else(|| {
                Problem::error(
                    "invariant",
                    format!(
                        "lexical shard {shard} of domain `{domain}` is missing from the manifest"
                    ),
                )
            })?;
        let bytes = read_artifact(&self.out, a).map_err(|e| load_err(&a.path, e))?;
        serde_json::from_slice(&bytes).map_err(|e| load_err(&a.path, e))
    }

    /// Every vector scored (a dot product: the vectors are unit length), the best `k` kept.
    fn nearest(
        &self,
        q: &[f32],
        keep: &dyn Fn(&str) -> bool,
        k: usize,
    ) -> Result<Ranking, Problem> {
        let mut scored: Ranking = self
            .vectors
            .iter()
            .filter(|(id, _)| keep(id))
            .map(|(id, v)| {
                (
                    id.clone(),
                    v.iter()
                        .zip(q)
                        .map(|(a, b)| (*a as f64) * (*b as f64))
                        .sum::<f64>(),
                )
            })
            .filter(|(_, s)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        scored.truncate(k);
        Ok(scored)
    }

    fn records(&self, ids: &[&str]) -> Result<Vec<Option<LookupRecord>>, Problem> {
        Ok(ids.iter().map(|id| self.lookup.get(*id).cloned()).collect())
    }
}
