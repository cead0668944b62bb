//! A built version read from its output directory: each chunk's ranking facts and an index of
//! where each lookup record lies read at once; lexical term shards, vectors and the records a
//! question returns read when it needs them, so a query holds no chunk's text but its hits'.

use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{ChunkInfo, Ranking, VersionStore, date_of};
use crate::artifacts::lexical::{LexMeta, LexShard};
use crate::artifacts::manifest::{ArtifactEntry, Manifest};
use crate::artifacts::store::{ArtifactReadError, read_artifact, read_artifact_text};
use crate::artifacts::{Kind, LookupRecord, vectors};
use crate::diag::Problem;
use askzico_core::lexical::ShardData;

pub(super) fn load_err(path: &str, e: impl std::fmt::Display) -> Problem {
    Problem::error("load", format!("cannot load {path}: {e}"))
        .in_file(path.to_string())
        .help("run `askzico verify`; rebuild if it fails")
}

/// The version a searcher answers from, to tell a file removed under it (a newer build then
/// `askzico gc`) from a damaged build.
struct Version<'m> {
    out: &'m Path,
    corpus_version: &'m str,
    /// `None` for the default environment's manifest.
    env: Option<&'m str>,
}

impl Version<'_> {
    fn of<'m>(out: &'m Path, m: &'m Manifest) -> Version<'m> {
        let env = (m.environment != "default").then_some(m.environment.as_str());
        Version {
            out,
            corpus_version: &m.corpus_version,
            env,
        }
    }

    /// The problem of an artifact that could not be read: when it is gone and the manifest in
    /// place is no longer this version's, the build changed while this command read it.
    fn read_err(&self, path: &str, e: ArtifactReadError) -> Problem {
        let gone = matches!(&e, ArtifactReadError::Read(r) if r.is_not_found());
        if !gone {
            return load_err(path, e);
        }
        missing(self.out, self.env, self.corpus_version, path)
    }
}

/// The problem of an artifact `path` of `corpus_version` that is gone from `out`: when the
/// manifest in place is no longer that version's, the build changed while the command read it
/// (a newer build, then `askzico gc`); otherwise the build is damaged.
pub(crate) fn missing(out: &Path, env: Option<&str>, corpus_version: &str, path: &str) -> Problem {
    let now = crate::artifacts::store::read_manifest(out, env)
        .ok()
        .map(|m| m.corpus_version);
    if now.as_deref() == Some(corpus_version) {
        return Problem::error(
            "load",
            format!(
                "cannot load {path}: version {} names it, but it is gone from {}",
                corpus_version,
                out.display()
            ),
        )
        .in_file(path.to_string())
        .help("build again (`askzico build` rewrites missing files), then run `askzico verify`");
    }
    let replaced = match now {
        Some(v) => format!("a newer build ({v}) replaced it"),
        None => "the build in place changed".to_string(),
    };
    Problem::error(
        "changed",
        format!(
            "the build changed while this command read it: {path} of version {} is gone ({replaced}, and `askzico gc` removed the older version's files)",
            corpus_version
        ),
    )
    .in_file(path.to_string())
    .help("run the command again: it reads the build now in place")
}

/// Test hook: with `ASKZICO_TEST_PAUSE_BEFORE_LOAD=<file>`, a searcher that has read its
/// manifest creates `<file>` and waits until it is removed (at most a minute) before it reads
/// any artifact, so a test can replace the build under it deterministically. Compiled only with
/// the `test-hooks` feature.
#[cfg(feature = "test-hooks")]
fn test_pause_before_load() {
    let Some(flag) = crate::knobs::text(crate::knobs::TEST_PAUSE_BEFORE_LOAD) else {
        return;
    };
    let flag = PathBuf::from(flag);
    if std::fs::write(&flag, b"paused\n").is_err() {
        return;
    }
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while flag.exists() && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[cfg(not(feature = "test-hooks"))]
fn test_pause_before_load() {}

/// Where one lookup record lies: its file (an index into `LocalStore::lookup_files`), offset
/// and length.
type RecordAt = (u32, u64, u32);

/// The files of one build a searcher reads on demand.
pub(super) struct LocalStore {
    out: PathBuf,
    corpus_version: String,
    environment: String,
    /// (domain, shard) → its artifact.
    lex_paths: HashMap<(String, usize), ArtifactEntry>,
    lookup_files: Vec<ArtifactEntry>,
    /// chunk ID → where its lookup record lies.
    lookup: HashMap<String, RecordAt>,
    vector_files: Vec<ArtifactEntry>,
    /// Read at the first vector ranking (a lexical query never reads them).
    vectors: OnceCell<Vec<(String, Vec<f32>)>>,
}

impl LocalStore {
    fn version(&self) -> Version<'_> {
        Version {
            out: &self.out,
            corpus_version: &self.corpus_version,
            env: (self.environment != "default").then_some(self.environment.as_str()),
        }
    }

    fn vectors(&self) -> Result<&[(String, Vec<f32>)], Problem> {
        if let Some(v) = self.vectors.get() {
            return Ok(v);
        }
        let mut vecs = Vec::new();
        for a in &self.vector_files {
            let bytes =
                read_artifact(&self.out, a).map_err(|e| self.version().read_err(&a.path, e))?;
            let (_, recs) = vectors::decode(&bytes).map_err(|e| load_err(&a.path, e))?;
            vecs.extend(recs.into_iter().map(|r| (r.id, r.values)));
        }
        Ok(self.vectors.get_or_init(|| vecs))
    }
}

/// What a searcher holds of a version: every chunk's [`ChunkInfo`] and each domain's lexical
/// meta.
type Held = (BTreeMap<String, ChunkInfo>, BTreeMap<String, LexMeta>);

/// The fields of a chunk record ranking reads (its text and search text are skipped unread).
#[derive(Deserialize)]
struct ChunkFacts {
    doc_id: String,
    chunk_id: String,
    library: String,
    source: String,
    url: String,
    domains: Vec<String>,
    #[serde(default)]
    metadata: ChunkDate,
}

#[derive(Deserialize, Default)]
struct ChunkDate {
    #[serde(default)]
    date: Option<serde_json::Value>,
}

/// A chunk record's fields ranking reads when its library has filterable fields: its whole
/// metadata, of which the filterable fields are kept.
#[derive(Deserialize)]
struct ChunkFactsFields {
    #[serde(flatten)]
    facts: ChunkFacts,
    #[serde(default)]
    metadata: serde_json::Map<String, serde_json::Value>,
}

/// The key of a lookup record (the rest is read when the record is).
#[derive(Deserialize)]
struct LookupKey {
    chunk_id: String,
}

/// Every chunk's [`ChunkInfo`], each domain's lexical meta, and the store of the rest.
pub(super) fn open(out: &Path, manifest: &Manifest) -> Result<(Held, LocalStore), Problem> {
    test_pause_before_load();
    let version = Version::of(out, manifest);
    let mut chunks = BTreeMap::new();
    let mut lookup = HashMap::new();
    let mut lookup_files = Vec::new();
    let mut vector_files = Vec::new();
    let mut lex_meta = BTreeMap::new();
    let mut lex_paths = HashMap::new();
    for a in &manifest.artifacts {
        match a.kind {
            Kind::Chunks => {
                let text = read_artifact_text(out, a).map_err(|e| version.read_err(&a.path, e))?;
                let filterable: &[String] = manifest
                    .libraries
                    .iter()
                    .find(|l| a.library.as_deref() == Some(l.id.as_str()))
                    .map_or(&[], |l| &l.filterable);
                for line in text.lines() {
                    // Only a library with filterable fields has its chunks' metadata read whole.
                    let (r, fields) = if filterable.is_empty() {
                        let r: ChunkFacts =
                            serde_json::from_str(line).map_err(|e| load_err(&a.path, e))?;
                        (r, Vec::new())
                    } else {
                        let r: ChunkFactsFields =
                            serde_json::from_str(line).map_err(|e| load_err(&a.path, e))?;
                        let fields = askzico_core::tables::fields_of(&r.metadata, filterable);
                        let mut facts = r.facts;
                        facts.metadata.date = r.metadata.get("date").cloned();
                        (facts, fields)
                    };
                    let date = r.metadata.date.as_ref().and_then(date_of);
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
                            fields,
                        },
                    );
                }
            }
            Kind::Lookup => {
                let text = read_artifact_text(out, a).map_err(|e| version.read_err(&a.path, e))?;
                let file = u32::try_from(lookup_files.len()).expect("fewer than 2^32 files");
                let mut at = 0u64;
                for line in text.split_inclusive('\n') {
                    let body = line.trim_end_matches('\n');
                    if !body.is_empty() {
                        let r: LookupKey =
                            serde_json::from_str(body).map_err(|e| load_err(&a.path, e))?;
                        let len = u32::try_from(body.len()).map_err(|e| load_err(&a.path, e))?;
                        lookup.insert(r.chunk_id, (file, at, len));
                    }
                    at += line.len() as u64;
                }
                lookup_files.push(a.clone());
            }
            Kind::Vectors => vector_files.push(a.clone()),
            Kind::Lexical => {
                let domain = a.domain.clone().unwrap_or_default();
                let name = crate::artifacts::artifact_name(&a.path);
                if name == "meta" {
                    let bytes = read_artifact(out, a).map_err(|e| version.read_err(&a.path, e))?;
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
        corpus_version: manifest.corpus_version.clone(),
        environment: manifest.environment.clone(),
        lex_paths,
        lookup_files,
        lookup,
        vector_files,
        vectors: OnceCell::new(),
    };
    Ok(((chunks, lex_meta), store))
}

/// Reads `len` bytes at `offset` of an artifact, within the size its manifest records.
fn read_at(
    out: &Path,
    a: &ArtifactEntry,
    offset: u64,
    len: u32,
) -> Result<Vec<u8>, ArtifactReadError> {
    use std::os::unix::fs::FileExt;
    let read = || -> std::io::Result<Vec<u8>> {
        let f = std::fs::File::open(out.join(&a.path))?;
        let mut buf = vec![0; len as usize];
        f.read_exact_at(&mut buf, offset)?;
        Ok(buf)
    };
    if offset + u64::from(len) > a.bytes {
        return Err(ArtifactReadError::Changed { recorded: a.bytes });
    }
    read().map_err(|e| ArtifactReadError::Read(crate::fsio::ReadError::Io(e)))
}

impl VersionStore for LocalStore {
    fn lex_shard(&self, domain: &str, shard: usize) -> Result<ShardData, Problem> {
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
        let bytes = read_artifact(&self.out, a).map_err(|e| self.version().read_err(&a.path, e))?;
        serde_json::from_slice::<LexShard>(&bytes)
            .map(|s| ShardData::Parsed(std::sync::Arc::new(s)))
            .map_err(|e| load_err(&a.path, e))
    }

    /// Every vector scored (a dot product: the vectors are unit length), the best `k` kept.
    fn nearest(
        &self,
        q: &[f32],
        keep: &dyn Fn(&str) -> bool,
        k: usize,
    ) -> Result<Ranking, Problem> {
        // Scored as Vectorize scores (f32 values, f64 dot), and taken as a deployed index is
        // read (`deployed::nearest`: its top matches, then the filter), so a question gets the
        // same candidates here as from the deployed version.
        let scored: Ranking = self
            .vectors()?
            .iter()
            .map(|(id, v)| {
                (
                    id.clone(),
                    v.iter()
                        .zip(q)
                        .map(|(a, b)| (*a as f64) * (*b as f64))
                        .sum::<f64>(),
                )
            })
            .collect();
        let top = askzico_core::deployed::top_k(k);
        Ok(askzico_core::deployed::nearest(scored, top, |_| true, keep, k).found)
    }

    /// Each record read from where the index says it lies.
    fn records(&self, ids: &[&str]) -> Result<Vec<Option<LookupRecord>>, Problem> {
        ids.iter()
            .map(|id| {
                let Some(&(file, offset, len)) = self.lookup.get(*id) else {
                    return Ok(None);
                };
                let a = &self.lookup_files[file as usize];
                let bytes = read_at(&self.out, a, offset, len)
                    .map_err(|e| self.version().read_err(&a.path, e))?;
                serde_json::from_slice(&bytes)
                    .map(Some)
                    .map_err(|e| load_err(&a.path, e))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The repository's project built in a temp dir: its output directory and manifest.
    fn built() -> (tempfile::TempDir, PathBuf, Manifest) {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let t = tempfile::tempdir().unwrap();
        std::fs::copy(repo.join("corpus.toml"), t.path().join("corpus.toml")).unwrap();
        for e in walkdir::WalkDir::new(repo.join("sources"))
            .into_iter()
            .map(Result::unwrap)
        {
            let to = t.path().join(e.path().strip_prefix(repo).unwrap());
            if e.file_type().is_dir() {
                std::fs::create_dir_all(&to).unwrap();
            } else {
                std::fs::copy(e.path(), &to).unwrap();
            }
        }
        let out = t.path().join("out");
        let req = crate::engine::BuildRequest {
            out: out.clone(),
            env: None,
            progress: false,
            allow_empty: false,
        };
        let cfg = crate::config::Config::load(&t.path().join("corpus.toml")).unwrap();
        let m = crate::engine::Engine::one_shot(cfg)
            .build(&req)
            .manifest
            .expect("builds");
        (t, out, m)
    }

    /// Opening a version holds no record and no vector: each record is read from where the
    /// index says it lies, the same record a full read of the lookup files gives, and the
    /// vectors only when a vector ranking asks for them.
    #[test]
    fn records_are_read_where_they_lie_and_vectors_only_when_asked() {
        let (_t, out, m) = built();
        let ((chunks, _), store) = open(&out, &m).unwrap();
        assert!(store.vectors.get().is_none());
        let mut all: Vec<LookupRecord> = Vec::new();
        for a in m.artifacts.iter().filter(|a| a.kind == Kind::Lookup) {
            let text = read_artifact_text(&out, a).unwrap();
            all.extend(text.lines().map(|l| serde_json::from_str(l).unwrap()));
        }
        assert_eq!(all.len(), chunks.len());
        let ids: Vec<&str> = all.iter().map(|r| r.chunk_id.as_str()).collect();
        let read = store.records(&ids).unwrap();
        assert_eq!(read, all.into_iter().map(Some).collect::<Vec<_>>());
        assert_eq!(store.records(&["no:such:000"]).unwrap(), [None]);
        assert!(store.vectors.get().is_none());
        // Longer than any vector: the dot product stops at the shorter.
        let q = vec![1.0; 4096];
        store.nearest(&q, &|_| true, 3).unwrap();
        assert!(store.vectors.get().is_some());
    }
}
