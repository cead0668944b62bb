//! db: the incremental database. Salsa inputs are the build settings and each source file's
//! bytes; tracked queries memoize per file (`compiled`), per document shard (`shard_artifacts`,
//! `shard_postings`) and per domain (`domain_artifacts`), keyed by what they read. An edit
//! re-runs only the queries that read the edited bytes, and a re-run whose result equals the old
//! one stops propagation (early cutoff). Every query body calls the pure core; none does I/O.

pub(crate) mod cache;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::artifacts::lexical::{Order, Postings, postings, postings_in};
use crate::artifacts::{BuiltDoc, Rendered, VectorSource, render_library};
use crate::config::{Config, Format};
use crate::diag::Problem;
use crate::embed::{CachedEmbedder, Embedder};
use crate::extract::Includes;

/// Work actually done, counted where it happens (a memoized query that does not re-run adds nothing).
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub docs_extracted: AtomicUsize,
    pub chunks_built: AtomicUsize,
    pub chunks_normalized: AtomicUsize,
    pub vectors_embedded: AtomicUsize,
    pub vectors_cached: AtomicUsize,
}

/// What the counters held when they were taken.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counted {
    pub docs_extracted: usize,
    pub chunks_built: usize,
    pub chunks_normalized: usize,
    pub vectors_embedded: usize,
    pub vectors_cached: usize,
}

impl Counters {
    /// The counts since the last take, and zero from here on.
    pub(crate) fn take(&self) -> Counted {
        Counted {
            docs_extracted: self.docs_extracted.swap(0, Ordering::Relaxed),
            chunks_built: self.chunks_built.swap(0, Ordering::Relaxed),
            chunks_normalized: self.chunks_normalized.swap(0, Ordering::Relaxed),
            vectors_embedded: self.vectors_embedded.swap(0, Ordering::Relaxed),
            vectors_cached: self.vectors_cached.swap(0, Ordering::Relaxed),
        }
    }
}

/// The opened provider of a non-inline embedder (or why it could not be opened), shared by the
/// database's clones.
pub(crate) type OpenedEmbedder =
    Result<Arc<CachedEmbedder<Box<dyn Embedder>>>, crate::embed::EmbedError>;

/// The provider the engine opened, and the `[embedding]` settings it was opened for: a watch
/// whose config changes them opens a new one (the old one would embed with the old model).
pub(crate) type EmbedderSlot =
    Arc<std::sync::RwLock<Option<(crate::embed::EmbedSettings, OpenedEmbedder)>>>;

#[salsa::db]
#[derive(Clone)]
pub(crate) struct Db {
    storage: salsa::Storage<Self>,
    pub counters: Arc<Counters>,
    /// The cached provider for non-inline embedders, opened by the engine on the first build
    /// that needs it and again when the `[embedding]` settings change.
    pub embedder: EmbedderSlot,
    /// The on-disk compile cache of the output directory, set by the engine.
    pub compile_cache: Arc<std::sync::RwLock<Option<Arc<cache::CompileCache>>>>,
    /// Whether `compiled` releases a source's bytes once done (one-shot builds; a watch keeps
    /// them).
    pub release_sources: bool,
    /// The output directory, set by the engine: a large shard file is rendered into an unnamed
    /// file there rather than memory (`artifacts::Spill`).
    pub artifact_dir: Arc<std::sync::RwLock<Option<std::path::PathBuf>>>,
}

impl Default for Db {
    fn default() -> Self {
        Db {
            storage: salsa::Storage::default(),
            counters: Arc::new(Counters::default()),
            embedder: Arc::default(),
            compile_cache: Arc::default(),
            release_sources: false,
            artifact_dir: Arc::default(),
        }
    }
}

#[salsa::db]
impl salsa::Database for Db {}

/// The database as the queries see it: salsa's plus where work is counted.
#[salsa::db]
pub(crate) trait AskDb: salsa::Database {
    fn counters(&self) -> &Counters;
    fn embedder(&self) -> Option<OpenedEmbedder>;
    fn compile_cache(&self) -> Option<Arc<cache::CompileCache>>;
    fn release_sources(&self) -> bool;
    fn artifact_dir(&self) -> Option<std::path::PathBuf>;
}

#[salsa::db]
impl AskDb for Db {
    fn counters(&self) -> &Counters {
        &self.counters
    }
    fn embedder(&self) -> Option<OpenedEmbedder> {
        let slot = self.embedder.read().ok()?;
        slot.as_ref().map(|(_, e)| e.clone())
    }
    fn compile_cache(&self) -> Option<Arc<cache::CompileCache>> {
        self.compile_cache.read().ok().and_then(|c| c.clone())
    }
    fn release_sources(&self) -> bool {
        self.release_sources
    }
    fn artifact_dir(&self) -> Option<std::path::PathBuf> {
        self.artifact_dir.read().ok().and_then(|d| d.clone())
    }
}

/// The whole config, as one input: changing `corpus.toml` sets it anew.
#[salsa::input]
pub struct Settings {
    #[returns(ref)]
    pub config: Arc<Config>,
}

/// One source file: where it is and its bytes.
#[salsa::input]
pub struct Source {
    #[returns(ref)]
    pub rel: String,
    #[returns(copy)]
    pub library: usize,
    #[returns(copy)]
    pub format: Format,
    #[returns(ref)]
    pub bytes: SourceBytes,
    /// blake3 of `bytes` (set with them).
    #[returns(copy)]
    pub hash: [u8; 32],
}

/// The message of a source whose bytes, read again, are not those its hash was taken from.
pub(crate) const CHANGED_DURING_BUILD: &str = "the file changed during the build";

/// A source's bytes, the files it includes (`extract::Includes`: an mdBook page's), and where
/// it was read. A one-shot build releases them once the file is compiled
/// (`Db::release_sources`): the compiled documents are what later queries read, and 10k
/// documents' sources are ~130 MB of a build's peak memory. Should the file be compiled again,
/// it is read again and must match the input's hash.
// `pub`: the accessors the salsa input generates for `Source` name it.
#[allow(unreachable_pub)]
pub struct SourceBytes {
    path: std::path::PathBuf,
    bytes: std::sync::Mutex<Option<Page>>,
}

/// A source's bytes and the files it includes.
type Page = (Arc<[u8]>, Arc<Includes>);

impl SourceBytes {
    pub(crate) fn new(path: std::path::PathBuf, bytes: Arc<[u8]>, includes: Includes) -> Self {
        SourceBytes {
            path,
            bytes: std::sync::Mutex::new(Some((bytes, Arc::new(includes)))),
        }
    }

    /// Bytes not read yet: the source's hash came from the stat cache (`engine::statcache`);
    /// a compile that needs them reads them and checks that hash, as for released bytes.
    pub(crate) fn unread(path: std::path::PathBuf) -> Self {
        SourceBytes {
            path,
            bytes: std::sync::Mutex::new(None),
        }
    }

    /// The bytes, unless released (or not read).
    pub(crate) fn get(&self) -> Option<Arc<[u8]>> {
        self.page().map(|(b, _)| b)
    }

    /// The bytes and the files they include, unless released (or not read).
    fn page(&self) -> Option<Page> {
        self.bytes.lock().ok().and_then(|b| b.clone())
    }

    fn release(&self) {
        if let Ok(mut b) = self.bytes.lock() {
            *b = None;
        }
    }
}

impl std::fmt::Debug for SourceBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "SourceBytes({}, {})",
            self.path.display(),
            if self.get().is_some() {
                "held"
            } else {
                "released"
            }
        )
    }
}

/// A document shard: the files of one library that hash to one bucket, in path order.
#[salsa::input]
pub struct Shard {
    #[returns(copy)]
    pub library: usize,
    #[returns(copy)]
    pub index: u32,
    #[returns(ref)]
    pub files: Vec<Source>,
}

/// Every shard of the build, in library then shard order.
#[salsa::input]
pub struct ShardSet {
    #[returns(ref)]
    pub shards: Vec<Shard>,
}

/// What one file compiles to.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Compiled {
    pub docs: Vec<BuiltDoc>,
    pub problems: Vec<Problem>,
}

/// Extract → chunk → identify → normalize → embed for one file.
#[salsa::tracked(returns(clone))]
pub fn compiled(db: &dyn AskDb, settings: Settings, file: Source) -> Arc<Compiled> {
    let cfg = settings.config(db);
    let lib = &cfg.libraries[file.library(db)];
    let cache = db.compile_cache();
    let key = cache
        .as_ref()
        .map(|c| c.key(lib, file.rel(db), file.format(db), &file.hash(db)));
    let slot = cache::CompileCache::slot(lib, file.rel(db));
    if let (Some(c), Some(k)) = (&cache, &key)
        && let Some(docs) = c.get(&slot, k)
    {
        return Arc::new(Compiled {
            docs,
            problems: Vec::new(),
        });
    }
    // An engine that builds again keeps each chunk's vector in this memo, so an edit embeds only
    // its own chunks; a one-shot build makes them as it writes the vectors file instead
    // (`render_library`), so it never holds every vector at once.
    let hash = crate::embed::inline_hash(&cfg.embedding).filter(|_| !db.release_sources());
    let source = file.bytes(db);
    let (bytes, includes) = match source.page() {
        Some(page) => page,
        // Released by an earlier compile of this process: read again, and only the same bytes.
        None => match crate::sources::read_page(cfg, lib, &source.path, file.rel(db)) {
            Ok(read) if read.hash == file.hash(db) => (read.bytes, Arc::new(read.includes)),
            Ok(_) => {
                let p = Problem::error("read", CHANGED_DURING_BUILD.to_string())
                    .because(crate::diag::Cause::ChangedDuringBuild)
                    .in_file(lib.display_name(file.rel(db)))
                    .help("build again");
                return Arc::new(Compiled {
                    docs: Vec::new(),
                    problems: vec![p],
                });
            }
            Err(p) => {
                return Arc::new(Compiled {
                    docs: Vec::new(),
                    problems: vec![p],
                });
            }
        },
    };
    let (docs, problems) = crate::compile::compile_file(
        &cfg.compile_settings(),
        &lib.compile_settings(),
        file.rel(db),
        &bytes,
        file.format(db),
        &includes,
        hash.as_ref(),
    );
    drop((bytes, includes));
    if db.release_sources() {
        source.release();
    }
    let c = db.counters();
    let chunks: usize = docs.iter().map(|d| d.chunks.len()).sum();
    c.docs_extracted.fetch_add(docs.len(), Ordering::Relaxed);
    c.chunks_built.fetch_add(chunks, Ordering::Relaxed);
    c.chunks_normalized.fetch_add(chunks, Ordering::Relaxed);
    if hash.is_some() {
        c.vectors_embedded.fetch_add(chunks, Ordering::Relaxed);
    }
    let out = Arc::new(Compiled { docs, problems });
    if let (Some(c), Some(k)) = (&cache, key)
        && out.problems.is_empty()
    {
        c.put(slot, k, out.clone());
    }
    out
}

/// What a shard's files compiled to, in file order (memo hits: nothing is copied).
pub(crate) fn shard_compiled(
    db: &dyn AskDb,
    settings: Settings,
    shard: Shard,
) -> Vec<Arc<Compiled>> {
    shard
        .files(db)
        .iter()
        .map(|f| compiled(db, settings, *f))
        .collect()
}

/// The documents of compiled files, in order.
fn docs_of(compiled: &[Arc<Compiled>]) -> Vec<&BuiltDoc> {
    compiled.iter().flat_map(|c| c.docs.iter()).collect()
}

/// Vectors of a shard's chunks from a non-inline provider, through the on-disk cache (empty for
/// the inline `hash` provider). Costly derived data: memoized here and cached on disk by content.
#[salsa::tracked(returns(clone))]
pub fn shard_vectors(
    db: &dyn AskDb,
    settings: Settings,
    shard: Shard,
) -> Arc<Result<Vec<Vec<f32>>, Problem>> {
    let cfg = settings.config(db);
    if crate::embed::inline_hash(&cfg.embedding).is_some() {
        return Arc::new(Ok(Vec::new()));
    }
    let compiled = shard_compiled(db, settings, shard);
    let docs = docs_of(&compiled);
    let texts: Vec<&str> = docs
        .iter()
        .flat_map(|d| d.chunks.iter().map(|c| c.search_text.as_str()))
        .collect();
    let fail = |e: &crate::embed::EmbedError| {
        Problem::error("embed", e.message.clone()).help(e.help.clone())
    };
    let result = match db.embedder() {
        Some(Ok(emb)) => match emb.embed_all(&texts) {
            Ok((vectors, stats)) => {
                db.counters()
                    .vectors_embedded
                    .fetch_add(stats.misses, Ordering::Relaxed);
                db.counters()
                    .vectors_cached
                    .fetch_add(stats.hits, Ordering::Relaxed);
                Ok(vectors)
            }
            Err(e) => Err(fail(&e)),
        },
        Some(Err(e)) => Err(fail(&e)),
        None => Err(Problem::error("embed", "no embedding provider was opened")
            .help("this is a bug in askzico")),
    };
    Arc::new(result)
}

/// The chunks, lookup and vectors files of one shard.
#[salsa::tracked(returns(clone))]
pub fn shard_artifacts(db: &dyn AskDb, settings: Settings, shard: Shard) -> Arc<Vec<Rendered>> {
    let cfg = settings.config(db);
    let lib = &cfg.libraries[shard.library(db)];
    let compiled = shard_compiled(db, settings, shard);
    let refs = docs_of(&compiled);
    if refs.is_empty() {
        return Arc::new(Vec::new());
    }
    let hash = crate::embed::inline_hash(&cfg.embedding);
    let given = shard_vectors(db, settings, shard);
    let vectors = match (&hash, given.as_ref()) {
        (Some(h), _) => VectorSource::Hash(h),
        (None, Ok(v)) => VectorSource::Given(v),
        // Not rendered: the build fails with the embedder's problem first.
        (None, Err(_)) => VectorSource::Given(&[]),
    };
    let name = format!("{}/{:03}", lib.id, shard.index(db));
    let spill = db.artifact_dir();
    let rendered = render_library(
        &lib.id,
        &name,
        &refs,
        cfg.embedding.dims,
        vectors,
        spill.as_deref().map(crate::artifacts::Spill::at),
    );
    if hash.is_some() {
        // The chunks whose vectors the render made (not kept from their compile).
        let chunks = refs
            .iter()
            .flat_map(|d| &d.chunks)
            .filter(|c| c.vector.is_empty())
            .count();
        db.counters()
            .vectors_embedded
            .fetch_add(chunks, Ordering::Relaxed);
    }
    Arc::new(rendered)
}

/// The lexical postings of a domain in about `parts` parts, not memoized (a one-shot build makes
/// a domain's parts just before its render and drops them after it). The domain's documents are
/// put in the order of their slots (`lexical::slots`) and cut into contiguous runs: each part's
/// chunks are then a range of the domain's table in the order a term shard lists them, so a
/// term's postings from the parts in order are sorted by chunk already, and a common term has
/// an entry per part, not one per document shard (the bytes do not depend on the grouping).
/// The parts' terms are left in the order first met (`Order::AsGiven`): the render sorts each
/// term shard's terms.
///
/// `compiled` is what every file of the build compiled to (the engine has it from compiling;
/// fetching it again from the database per domain cost a memo lookup per file and domain), and
/// `shards` the number of document shards.
pub(crate) fn domain_postings(
    cfg: &Config,
    compiled: &[Arc<Compiled>],
    shards: usize,
    domain: &str,
    parts: usize,
) -> Vec<Arc<Postings>> {
    let mut docs: Vec<&BuiltDoc> = docs_of(compiled)
        .into_iter()
        .filter(|d| d.domains.iter().any(|x| x == domain))
        .collect();
    docs.sort_by(|a, b| a.doc_id.as_str().cmp(b.doc_id.as_str()));
    let ids: Vec<&str> = docs.iter().map(|d| d.doc_id.as_str()).collect();
    let slots = crate::artifacts::lexical::slots(&ids);
    let mut by_slot: Vec<(u32, &BuiltDoc)> = slots.into_iter().zip(docs).collect();
    by_slot.sort_unstable_by_key(|(slot, _)| *slot);
    let docs: Vec<&BuiltDoc> = by_slot.into_iter().map(|(_, d)| d).collect();
    // No more parts than document shards: a small domain is not cut finer than before.
    let per = docs.len().div_ceil(parts.min(shards).max(1)).max(1);
    let extras = cfg.word_extras();
    docs.par_chunks(per)
        .map(|group| Arc::new(postings_in(domain, group, extras, Order::AsGiven)))
        .filter(|p| p.chunks > 0)
        .collect()
}

/// One shard's lexical postings for one domain.
#[salsa::tracked(returns(clone))]
pub fn shard_postings(
    db: &dyn AskDb,
    settings: Settings,
    shard: Shard,
    domain: String,
) -> Arc<Postings> {
    let compiled = shard_compiled(db, settings, shard);
    let cfg = settings.config(db);
    Arc::new(postings(&domain, &docs_of(&compiled), cfg.word_extras()))
}

/// What the build-wide checks read of one shard's documents: each document's ID and source, in
/// file order, how many documents each file made, and the domains the documents carry (sorted,
/// once each). Memoized per shard, so `domains` and `duplicate_ids` read one memo per shard
/// instead of every file's (one fetch per file on one thread was ~30 ms of a 10k build), and an
/// edit recomputes only its shard's.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ShardIds {
    /// (doc_id, source) of every document, in file order.
    pub docs: Vec<(String, String)>,
    /// A hash of each document's URL, beside `docs` (0: no URL). One claimed by two files
    /// sends `duplicate_urls` to their documents for the URLs themselves.
    pub urls: Vec<u64>,
    /// Per file of the shard, in order: how many of `docs` it made.
    pub per_file: Vec<u32>,
    pub domains: Vec<String>,
}

#[salsa::tracked(returns(clone))]
pub fn shard_ids(db: &dyn AskDb, settings: Settings, shard: Shard) -> Arc<ShardIds> {
    let compiled = shard_compiled(db, settings, shard);
    let docs = compiled
        .iter()
        .flat_map(|c| {
            c.docs
                .iter()
                .map(|d| (d.doc_id.as_str().to_string(), d.source.clone()))
        })
        .collect();
    let urls = docs_of(&compiled)
        .iter()
        .map(|d| url_hash(&d.url))
        .collect();
    let per_file = compiled.iter().map(|c| c.docs.len() as u32).collect();
    let mut domains: Vec<String> = docs_of(&compiled)
        .iter()
        .flat_map(|d| d.domains.iter().cloned())
        .collect();
    domains.sort_unstable();
    domains.dedup();
    Arc::new(ShardIds {
        docs,
        urls,
        per_file,
        domains,
    })
}

/// The domains documents of the build carry, sorted.
#[salsa::tracked(returns(clone))]
pub fn domains(db: &dyn AskDb, settings: Settings, set: ShardSet) -> Arc<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for s in set.shards(db) {
        out.extend(shard_ids(db, settings, *s).domains.iter().cloned());
    }
    out.sort_unstable();
    out.dedup();
    Arc::new(out)
}

/// Duplicate doc IDs across the whole build.
#[salsa::tracked(returns(clone))]
pub fn duplicate_ids(db: &dyn AskDb, settings: Settings, set: ShardSet) -> Arc<Vec<Problem>> {
    let ids: Vec<Arc<ShardIds>> = set
        .shards(db)
        .iter()
        .map(|s| shard_ids(db, settings, *s))
        .collect();
    let cfg = settings.config(db);
    Arc::new(crate::compile::duplicate_problems(
        |source| cfg.source_display(source),
        ids.iter().flat_map(|i| {
            i.docs
                .iter()
                .map(|(id, source)| (id.as_str(), source.as_str()))
        }),
    ))
}

fn url_hash(url: &str) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    if url.is_empty() {
        return 0;
    }
    let mut h = rustc_hash::FxBuildHasher.build_hasher();
    h.write(url.as_bytes());
    h.finish().max(1)
}

/// Pages of different source files that claim one URL (`compile::duplicate_url_problems`).
/// Only documents whose URL hash is shared are looked at again.
#[salsa::tracked(returns(clone))]
pub fn duplicate_urls(db: &dyn AskDb, settings: Settings, set: ShardSet) -> Arc<Vec<Problem>> {
    let shards = set.shards(db);
    let ids: Vec<Arc<ShardIds>> = shards.iter().map(|s| shard_ids(db, settings, *s)).collect();
    // How many files claim each URL hash (the records of one file may share its URL).
    let mut count: rustc_hash::FxHashMap<u64, u32> = rustc_hash::FxHashMap::default();
    for i in &ids {
        let mut at = 0;
        for n in &i.per_file {
            let mut claimed: Vec<u64> = i.urls[at..at + *n as usize]
                .iter()
                .copied()
                .filter(|h| *h != 0)
                .collect();
            at += *n as usize;
            claimed.sort_unstable();
            claimed.dedup();
            for h in claimed {
                *count.entry(h).or_default() += 1;
            }
        }
    }
    if count.values().all(|n| *n < 2) {
        return Arc::new(Vec::new());
    }
    let mut shared: Vec<(String, String)> = Vec::new();
    for (shard, i) in shards.iter().zip(&ids) {
        if !i.urls.iter().any(|h| count.get(h).is_some_and(|n| *n > 1)) {
            continue;
        }
        let compiled = shard_compiled(db, settings, *shard);
        for (d, h) in docs_of(&compiled).into_iter().zip(&i.urls) {
            if count.get(h).is_some_and(|n| *n > 1) {
                shared.push((d.url.clone(), d.source.clone()));
            }
        }
    }
    let cfg = settings.config(db);
    Arc::new(crate::compile::duplicate_url_problems(
        |source| cfg.source_display(source),
        shared,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use salsa::Setter;

    /// A one-shot database releases a source's bytes once compiled; compiled again (new
    /// settings), the file is read again, and a file that changed meanwhile is an error, not
    /// documents from other bytes than the input's hash.
    #[test]
    fn released_bytes_are_read_again_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("docs")).unwrap();
        let file = dir.path().join("docs/a.md");
        let body = "# عنوان\n\nفقرة أولى عن النيل.\n";
        std::fs::write(&file, body).unwrap();
        let toml = "[corpus]\nname = \"t\"\n\n[[library]]\nid = \"lib\"\nroot = \"docs\"\n";
        let cfg = Config::parse(
            toml,
            "corpus.toml",
            dir.path(),
            &dir.path().join("corpus.toml"),
        )
        .unwrap();
        let mut db = Db {
            release_sources: true,
            ..Db::default()
        };
        let settings = Settings::new(&db, Arc::new(cfg.clone()));
        let bytes: Arc<[u8]> = Arc::from(body.as_bytes());
        let src = Source::new(
            &db,
            "a.md".to_string(),
            0,
            Format::Markdown,
            SourceBytes::new(file.clone(), bytes, Includes::default()),
            *blake3::hash(body.as_bytes()).as_bytes(),
        );
        let first = compiled(&db, settings, src);
        assert!(
            first.problems.is_empty() && first.docs.len() == 1,
            "{:?}",
            first.problems
        );
        assert!(src.bytes(&db).get().is_none(), "the bytes are released");

        let mut other = cfg.clone();
        other.chunking.max_chars += 1;
        settings.set_config(&mut db).to(Arc::new(other.clone()));
        let again = compiled(&db, settings, src);
        assert_eq!(
            again.docs, first.docs,
            "read again from disk, same documents"
        );

        std::fs::write(&file, "# آخر\n\nنص مختلف.\n").unwrap();
        other.chunking.max_chars += 1;
        settings.set_config(&mut db).to(Arc::new(other));
        let changed = compiled(&db, settings, src);
        assert!(changed.docs.is_empty());
        assert!(
            changed
                .problems
                .iter()
                .any(|p| p.message.contains("changed during the build")),
            "{:?}",
            changed.problems
        );
    }
}
