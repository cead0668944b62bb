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
pub(super) struct Version<'m> {
    out: &'m Path,
    corpus_version: &'m str,
    /// `None` for the default environment's manifest.
    env: Option<&'m str>,
}

impl Version<'_> {
    pub(super) fn of<'m>(out: &'m Path, m: &'m Manifest) -> Version<'m> {
        let env = (m.environment != "default").then_some(m.environment.as_str());
        Version {
            out,
            corpus_version: &m.corpus_version,
            env,
        }
    }

    /// The problem of an artifact that could not be read: when it is gone and the manifest in
    /// place is no longer this version's, the build changed while this command read it.
    pub(super) fn read_err(&self, path: &str, e: ArtifactReadError) -> Problem {
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
    /// Where each lookup record lies.
    lookup: Lookup,
    /// The chunks files, numbered as the query index numbers them (none without an index).
    chunk_files: Vec<ArtifactEntry>,
    /// Each library's filterable fields.
    filterable: HashMap<String, Vec<String>>,
    vector_files: Vec<ArtifactEntry>,
    /// Read at the first vector ranking (a lexical query never reads them).
    vectors: OnceCell<Vec<(String, Vec<f32>)>>,
}

/// Where each lookup record lies: every chunk ID's place held, or found in the version's query
/// index when asked.
enum Lookup {
    Held(HashMap<String, RecordAt>),
    Indexed(super::index::Index),
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

/// Each domain's lexical meta.
type Metas = BTreeMap<String, LexMeta>;

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

/// The facts of a chunk record's line; only a library with `filterable` fields has its chunks'
/// metadata read whole.
fn info_of(line: &str, filterable: &[String]) -> serde_json::Result<ChunkInfo> {
    let (r, fields) = if filterable.is_empty() {
        (serde_json::from_str::<ChunkFacts>(line)?, Vec::new())
    } else {
        let r: ChunkFactsFields = serde_json::from_str(line)?;
        let fields = askzico_core::tables::fields_of(&r.metadata, filterable);
        let mut facts = r.facts;
        facts.metadata.date = r.metadata.get("date").cloned();
        (facts, fields)
    };
    let date = r.metadata.date.as_ref().and_then(date_of);
    Ok(ChunkInfo {
        chunk_id: r.chunk_id,
        doc_id: r.doc_id,
        url: r.url,
        source: r.source,
        library: r.library,
        domains: r.domains,
        date,
        fields,
    })
}

/// The key of a lookup record (the rest is read when the record is).
#[derive(Deserialize)]
struct LookupKey {
    chunk_id: String,
}

/// Every chunk's [`ChunkInfo`], each domain's lexical meta, and the store of the rest.
pub(super) fn open(out: &Path, manifest: &Manifest) -> Result<(Held, LocalStore), Problem> {
    test_pause_before_load();
    read_whole(out, manifest)
}

/// [`open`] without its test pause: also what a searcher over the query index reads when a
/// question needs every chunk's facts.
pub(super) fn read_whole(out: &Path, manifest: &Manifest) -> Result<(Held, LocalStore), Problem> {
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
                    let info = info_of(line, filterable).map_err(|e| load_err(&a.path, e))?;
                    chunks.insert(info.chunk_id.clone(), info);
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
    let files = Files {
        lex_paths,
        lookup_files,
        chunk_files: Vec::new(),
        vector_files,
    };
    let store = LocalStore::new(out, manifest, files, Lookup::Held(lookup));
    Ok(((chunks, lex_meta), store))
}

/// The files of a version a store reads on demand.
struct Files {
    lex_paths: HashMap<(String, usize), ArtifactEntry>,
    lookup_files: Vec<ArtifactEntry>,
    chunk_files: Vec<ArtifactEntry>,
    vector_files: Vec<ArtifactEntry>,
}

impl LocalStore {
    fn new(out: &Path, manifest: &Manifest, files: Files, lookup: Lookup) -> LocalStore {
        LocalStore {
            out: out.to_path_buf(),
            corpus_version: manifest.corpus_version.clone(),
            environment: manifest.environment.clone(),
            lex_paths: files.lex_paths,
            lookup_files: files.lookup_files,
            lookup,
            chunk_files: files.chunk_files,
            filterable: manifest
                .libraries
                .iter()
                .map(|l| (l.id.clone(), l.filterable.clone()))
                .collect(),
            vector_files: files.vector_files,
            vectors: OnceCell::new(),
        }
    }
}

/// The version through its query index (`retrieve::index`), made first when it is missing:
/// each domain's lexical meta without its document table, and the store, which then finds
/// lookup records and chunk facts in the index. `None` when no index can be made or read (an
/// output directory askzico cannot write): the caller then reads the version whole ([`open`]).
pub(super) fn open_indexed(
    out: &Path,
    manifest: &Manifest,
) -> Result<Option<(Metas, LocalStore)>, Problem> {
    use super::index::{Index, MakeError, make, path_of};
    test_pause_before_load();
    let version = Version::of(out, manifest);
    let path = path_of(out, &manifest.corpus_version);
    let index = match Index::open(&path, manifest) {
        Some(i) => i,
        None => match make(out, manifest, &version) {
            Ok(made) => match Index::open(&made, manifest) {
                Some(i) => i,
                None => return Ok(None),
            },
            Err(MakeError::Version(p)) => return Err(p),
            Err(MakeError::Write) => return Ok(None),
        },
    };
    let metas = index
        .metas(&BTreeMap::new())
        .map_err(|e| load_err(&path.display().to_string(), e))?;
    let entry = |p: &String| -> Option<ArtifactEntry> {
        manifest.artifacts.iter().find(|a| &a.path == p).cloned()
    };
    let (chunk_paths, lookup_paths) = index.files();
    let chunk_files: Option<Vec<_>> = chunk_paths.iter().map(entry).collect();
    let lookup_files: Option<Vec<_>> = lookup_paths.iter().map(entry).collect();
    let (Some(chunk_files), Some(lookup_files)) = (chunk_files, lookup_files) else {
        return Ok(None);
    };
    let of = |k: Kind| manifest.artifacts.iter().filter(move |a| a.kind == k);
    let lex_paths = of(Kind::Lexical)
        .filter_map(|a| {
            let k = crate::artifacts::artifact_name(&a.path)
                .parse::<usize>()
                .ok()?;
            Some(((a.domain.clone().unwrap_or_default(), k), a.clone()))
        })
        .collect();
    let files = Files {
        lex_paths,
        lookup_files,
        chunk_files,
        vector_files: of(Kind::Vectors).cloned().collect(),
    };
    let store = LocalStore::new(out, manifest, files, Lookup::Indexed(index));
    Ok(Some((metas, store)))
}

impl LocalStore {
    /// The problem of a query index that could not be read.
    fn index_err(&self, e: std::io::Error) -> Problem {
        let path = super::index::path_of(&self.out, &self.corpus_version);
        load_err(&path.display().to_string(), e)
            .help(format!("remove {} (a cache) and ask again", path.display()))
    }

    /// The facts of the chunks `ids` that the version has, read from their lines of the chunks
    /// files where the query index says they lie (none without an index).
    fn facts_of(&self, ids: &[&str]) -> Result<BTreeMap<String, ChunkInfo>, Problem> {
        let Lookup::Indexed(index) = &self.lookup else {
            return Ok(BTreeMap::new());
        };
        let mut out = BTreeMap::new();
        for (id, (at, _)) in index.lines(ids).map_err(|e| self.index_err(e))? {
            let Some((file, offset, len)) = at else {
                continue;
            };
            let a = self.chunk_files.get(file as usize).ok_or_else(|| {
                self.index_err(std::io::Error::other(format!("no chunks file #{file}")))
            })?;
            let bytes = read_at(&self.out, a, offset, len)
                .map_err(|e| self.version().read_err(&a.path, e))?;
            let line = std::str::from_utf8(&bytes).map_err(|e| load_err(&a.path, e))?;
            let filterable = a
                .library
                .as_ref()
                .and_then(|l| self.filterable.get(l))
                .map_or(&[][..], Vec::as_slice);
            let info = info_of(line, filterable).map_err(|e| load_err(&a.path, e))?;
            if info.chunk_id != id {
                return Err(self.index_err(std::io::Error::other(format!(
                    "it places chunk {id} where {} lies",
                    info.chunk_id
                ))));
            }
            out.insert(id, info);
        }
        Ok(out)
    }
}

fn read_error(e: std::io::Error) -> ArtifactReadError {
    ArtifactReadError::Read(crate::fsio::ReadError::Io(e))
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
    read().map_err(read_error)
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
        let dot = |v: &[f32]| -> f64 {
            v.iter()
                .zip(q)
                .map(|(a, b)| (*a as f64) * (*b as f64))
                .sum::<f64>()
        };
        let scored: Ranking = if matches!(self.lookup, Lookup::Indexed(_)) {
            // One question: each file scored as it is read, never held.
            let mut scored = Vec::new();
            for a in &self.vector_files {
                let f = std::fs::File::open(self.out.join(&a.path))
                    .map_err(|e| self.version().read_err(&a.path, read_error(e)))?;
                let len = f.metadata().map_err(|e| load_err(&a.path, e))?.len();
                if len != a.bytes {
                    let e = ArtifactReadError::Changed { recorded: a.bytes };
                    return Err(load_err(&a.path, e));
                }
                vectors::visit(f, len, |id, v| scored.push((id.to_string(), dot(v))))
                    .map_err(|e| load_err(&a.path, e))?;
            }
            scored
        } else {
            self.vectors()?
                .iter()
                .map(|(id, v)| (id.clone(), dot(v)))
                .collect()
        };
        let top = askzico_core::deployed::top_k(k);
        Ok(askzico_core::deployed::nearest(scored, top, |_| true, keep, k).found)
    }

    fn metas(
        &self,
        slots: &BTreeMap<String, std::collections::BTreeSet<u32>>,
    ) -> Result<Option<BTreeMap<String, LexMeta>>, Problem> {
        match &self.lookup {
            Lookup::Held(_) => Ok(None),
            Lookup::Indexed(index) => index.metas(slots).map(Some).map_err(|e| self.index_err(e)),
        }
    }

    fn facts(&self, ids: &[&str]) -> Result<BTreeMap<String, ChunkInfo>, Problem> {
        self.facts_of(ids)
    }

    /// Each record read from where the index says it lies.
    fn records(&self, ids: &[&str]) -> Result<Vec<Option<LookupRecord>>, Problem> {
        let found = match &self.lookup {
            Lookup::Held(_) => None,
            Lookup::Indexed(index) => Some(index.lines(ids).map_err(|e| self.index_err(e))?),
        };
        ids.iter()
            .map(|id| {
                let at = match (&self.lookup, &found) {
                    (Lookup::Held(held), _) => held.get(*id).copied(),
                    (_, Some(found)) => found.get(*id).and_then(|l| l.1),
                    _ => None,
                };
                let Some((file, offset, len)) = at else {
                    return Ok(None);
                };
                let a = self.lookup_files.get(file as usize).ok_or_else(|| {
                    self.index_err(std::io::Error::other(format!("no lookup file #{file}")))
                })?;
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
mod tests;
