//! engine: the incremental build driver. A Salsa database (`db`) holds the config and the bytes
//! of every source file as inputs; `build` sets only the inputs that changed, so queries re-run
//! only for what an edit touched, and unchanged content-addressed files are reused, not
//! rewritten. Used once by `askzico build`, and kept alive across edits by `build --watch`.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;
use salsa::Setter;

use crate::artifacts::manifest::{LibraryEntry, MANIFEST_FORMAT, Manifest, corpus_version};
use crate::artifacts::store;
use crate::compile::settings_values;
use crate::config::Config;
use crate::db::{
    Compiled, Db, Settings, Shard, ShardSet, Source, SourceBytes, compiled, domains, duplicate_ids,
    shard_artifacts, shard_ids, shard_postings, shard_vectors,
};
use crate::diag::{Problem, Problems};
use crate::discover::discover;
use crate::embed::CachedEmbedder;
use crate::sources::read_source_meta;
use crate::timings::{Stage, timed};

mod lex;
mod request;
mod resume;
mod stamp;
mod statcache;

use request::write_failure;
pub use request::{BuildReport, BuildRequest, BuildStats, run};

/// Files per document shard: a library's files hash into `next_pow2(files / SHARD_FILES)`
/// shards, so an edit rewrites one shard's chunks, lookup and vectors files.
const SHARD_FILES: usize = 64;

/// Lexical parts per domain in a one-shot build: one per thread, enough to keep every core
/// busy, and no more, because a term costs work in every part that has it (on 2 cores, 10k
/// documents: 2 parts took ~0.1 s of CPU less than 4, 16 parts ~0.4 s more; peak memory 2 parts
/// ~520 MB, 4 parts ~470 MB). The bytes do not depend on the count.
fn one_shot_parts() -> usize {
    rayon::current_num_threads().max(1)
}

/// Source files per rayon task when reading and compiling. Rayon otherwise splits a list into
/// a few long runs per thread; the last one then ran alone for ~100 ms of a 10k build while the
/// other core idled. A few files amortize the task's cost (a database clone per split).
const FILES_PER_TASK: usize = 8;

/// Threads that read sources (and hash them). More than the cores: a source not in the page
/// cache keeps its thread waiting for the disk, and with one reader per core the cores idled
/// through the first ~300 ms of a 10k build while a few reads at a time were outstanding.
/// 10k build, sources not cached: 2.54–2.65 s → 2.27–2.35 s with 8 (4: no better than 2);
/// sources cached: 1.98–2.01 s → 2.02–2.08 s.
const READ_THREADS: usize = 8;

/// The pool of [`READ_THREADS`] threads the read phase runs in (built on first use; the build's
/// other work stays on rayon's global pool, one thread per core).
fn read_pool() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(READ_THREADS.max(rayon::current_num_threads()))
            .thread_name(|i| format!("askzico-read-{i}"))
            .build()
            .expect("the read threads start")
    })
}

/// A source read (its bytes, blake3 and stat before the read), or taken from the stat cache.
enum SourceRead {
    Read(Arc<[u8]>, [u8; 32], Option<statcache::FileStat>),
    Unread([u8; 32], statcache::FileStat),
}

fn shard_count(files: usize) -> u32 {
    files.div_ceil(SHARD_FILES).max(1).next_power_of_two() as u32
}

fn bucket(rel: &str, shards: u32) -> u32 {
    crate::artifacts::lexical::shard_of(rel, shards as usize) as u32
}

/// What one build did: the `--stats-json` line. Counts only work actually done in that build.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct Stats {
    pub files_read: usize,
    pub docs_extracted: usize,
    pub chunks_built: usize,
    pub chunks_normalized: usize,
    pub vectors_embedded: usize,
    pub vectors_cached: usize,
    pub shards_written: usize,
    pub bytes_written: u64,
    pub ms: u128,
    pub corpus_version: Option<String>,
    /// Whether the build patched the previous one (`resume`) rather than rendering in full.
    #[serde(skip)]
    pub resumed: bool,
}

impl Stats {
    /// The work the database's queries counted.
    fn set_counted(&mut self, c: crate::db::Counted) {
        self.docs_extracted = c.docs_extracted;
        self.chunks_built = c.chunks_built;
        self.chunks_normalized = c.chunks_normalized;
        self.vectors_embedded = c.vectors_embedded;
        self.vectors_cached = c.vectors_cached;
    }
}

pub struct Engine {
    db: Db,
    cfg: Arc<Config>,
    settings: Settings,
    sources: rustc_hash::FxHashMap<PathBuf, Source>,
    /// The file list of the last successful discover (reused when an edit only changed contents).
    listed: Option<(Vec<crate::discover::SourceFile>, Problems)>,
    shards: BTreeMap<(usize, u32), Shard>,
    set: ShardSet,
    /// Artifact paths of the previous build (written or found in place) and of this one.
    known: store::Known,
    /// Per domain, the lexical render of the previous build, patched by the next (see `lex`);
    /// a one-shot engine keeps none.
    lex: BTreeMap<String, lex::DomainLex>,
    /// Per domain, the size estimate of the last render (recorded for `resume`).
    estimates: BTreeMap<String, usize>,
    /// The manifest and resume state this engine last wrote (a watch patches from memory while
    /// the manifest on disk is still that one).
    last: Option<resume::Last>,
    /// Per source, its stat when this engine last read it or found it unchanged (saved in the
    /// stat cache after a build).
    stats: rustc_hash::FxHashMap<std::ffi::OsString, statcache::FileStat>,
    /// Whether this engine saved the stat cache already (a watch saves it once: later saves
    /// change a few files, which a fresh process then reads again, and rewriting every entry
    /// per save would cost what the corpus costs, not what the edit does).
    stats_saved: bool,
}

impl Engine {
    pub fn new(cfg: Config) -> Engine {
        let db = Db::default();
        let cfg = Arc::new(cfg);
        let settings = Settings::builder(cfg.clone())
            .durability(salsa::Durability::HIGH)
            .new(&db);
        let set = ShardSet::new(&db, Vec::new());
        Engine {
            db,
            cfg,
            settings,
            sources: Default::default(),
            listed: None,
            shards: BTreeMap::new(),
            set,
            known: Default::default(),
            lex: BTreeMap::new(),
            estimates: BTreeMap::new(),
            last: None,
            stats: Default::default(),
            stats_saved: false,
        }
    }

    /// An engine for one build (`askzico build`): each source's bytes are released once it is
    /// compiled, since nothing edits them later (see `db::SourceBytes`).
    pub fn one_shot(cfg: Config) -> Engine {
        let mut e = Engine::new(cfg);
        e.db.release_sources = true;
        e
    }

    /// Whether this engine builds once (`one_shot`): it then keeps no lexical state for a next
    /// build and makes postings per domain from large groups.
    fn is_one_shot(&self) -> bool {
        self.db.release_sources
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// A new config (an edit of corpus.toml): the queries that read it re-run.
    pub fn set_config(&mut self, cfg: Config) {
        self.listed = None;
        self.last = None;
        if let Ok(mut c) = self.db.compile_cache.write() {
            *c = None; // its settings key depends on the config
        }
        self.cfg = Arc::new(cfg);
        self.settings
            .set_config(&mut self.db)
            .with_durability(salsa::Durability::HIGH)
            .to(self.cfg.clone());
    }

    /// A full build: every file is read and compared with what the database holds.
    pub fn build(&mut self, req: &BuildRequest) -> BuildReport {
        self.build_from(req, Instant::now(), None)
    }

    /// A build after file events: only the `changed` paths (and files new to the engine) are
    /// read; the libraries are listed again to find new and removed files.
    pub fn build_from(
        &mut self,
        req: &BuildRequest,
        started: Instant,
        changed: Option<&BTreeSet<PathBuf>>,
    ) -> BuildReport {
        self.listed = None;
        let rep = self.build_once(req, started, changed, false);
        self.after_build(req, rep)
    }

    /// Ends a build: waits until the compile cache's packs it queued are on disk (nothing of a
    /// returned build is still being written under `out/`), and after a build that found a
    /// source's bytes not those its hash was taken from (possibly a stat cache entry that should
    /// not have been trusted), forgets the stat cache, so that building again reads every file.
    fn after_build(&mut self, req: &BuildRequest, rep: BuildReport) -> BuildReport {
        crate::artifacts::writer::caches_written();
        if rep
            .problems
            .0
            .iter()
            .any(|p| p.message == crate::db::CHANGED_DURING_BUILD)
        {
            statcache::clear(&req.out, req.env.as_deref());
            self.stats.clear();
            self.stats_saved = false;
        }
        rep
    }

    /// A build after events that only changed the contents of files: when every one is a source
    /// file the engine already holds, the libraries are not listed again (the file set is the
    /// same); otherwise this is `build_from`.
    pub fn build_contents(
        &mut self,
        req: &BuildRequest,
        started: Instant,
        changed: &BTreeSet<PathBuf>,
    ) -> BuildReport {
        if !changed.iter().all(|p| self.sources.contains_key(p)) {
            self.listed = None;
        }
        let rep = self.build_once(req, started, Some(changed), false);
        self.after_build(req, rep)
    }

    /// Forgets everything memoized (the on-disk caches stay): the next build reads every file.
    fn reset(&mut self) {
        let cfg = (*self.cfg).clone();
        let release = self.db.release_sources;
        *self = Engine::new(cfg);
        self.db.release_sources = release;
    }

    fn build_once(
        &mut self,
        req: &BuildRequest,
        started: Instant,
        changed: Option<&BTreeSet<PathBuf>>,
        retried: bool,
    ) -> BuildReport {
        let mut problems = Problems::default();
        let mut stats = BuildStats::default();
        let mut run = Stats::default();
        let cfg = self.cfg.clone();
        let libs = match cfg.libraries_for(req.env.as_deref()) {
            Ok(l) => l,
            Err(p) => {
                problems.push(p);
                return finish_failed(problems, stats, run, started);
            }
        };
        // The output directory is askzico's (made, or marked) before anything is written there.
        if let Err(p) = crate::paths::claim(&req.out) {
            problems.push(p);
            return finish_failed(problems, stats, run, started);
        }
        let (files, found) = match self.listed.take() {
            Some(listed) => listed,
            None => timed(Stage::Read, || discover(&cfg, &libs, &req.out)),
        };
        problems.extend(found.0.iter().cloned());
        stats.files = files.len();

        // The on-disk compile cache of this output directory (a fresh process reuses it).
        if let Ok(mut c) = self.db.compile_cache.write()
            && c.is_none()
        {
            *c = Some(Arc::new(crate::db::cache::CompileCache::new(
                &req.out, &cfg,
            )));
        }

        // Read what may have changed; everything else stays as the database holds it.
        let taken_at = statcache::now_ns();
        let to_read: Vec<&crate::discover::SourceFile> = files
            .iter()
            .filter(|f| {
                changed.is_none_or(|c| c.contains(&f.path)) || !self.sources.contains_key(&f.path)
            })
            .collect();
        // Files new to this engine whose stat is the one recorded take their hash from the stat
        // cache instead of being read (a fresh process: a no-op reads nothing).
        let statted = if to_read.iter().any(|f| !self.sources.contains_key(&f.path)) {
            statcache::load(&req.out, req.env.as_deref())
        } else {
            statcache::StatCache::default()
        };
        // Each file in its shared buffer here, in parallel: the loop below only moves them.
        let read: Vec<Result<SourceRead, Problem>> = read_pool().install(|| {
            to_read
                .par_iter()
                .with_max_len(FILES_PER_TASK)
                .map(|f| {
                    if !statted.is_empty()
                        && !self.sources.contains_key(&f.path)
                        && let Some((stat, hash)) = timed(Stage::Read, || statted.hash_of(&f.path))
                        // A limit lowered since: read, so the file is reported as too large.
                        && stat.len <= cfg.max_file_bytes
                    {
                        return Ok(SourceRead::Unread(hash, stat));
                    }
                    let (bytes, meta) = timed(Stage::Read, || {
                        read_source_meta(&cfg, &cfg.libraries[f.library], &f.path, &f.rel)
                    })?;
                    let hash = *timed(Stage::Hash, || blake3::hash(&bytes)).as_bytes();
                    Ok(SourceRead::Read(
                        bytes,
                        hash,
                        statcache::FileStat::of(&meta),
                    ))
                })
                .collect()
        });
        let mut unreadable = HashSet::new();
        for (f, r) in to_read.iter().zip(read) {
            let r = match r {
                Ok(SourceRead::Unread(hash, stat)) => {
                    // Only for files new to the engine (checked above); the stat is the recorded one.
                    let src = Source::new(
                        &self.db,
                        f.rel.clone(),
                        f.library,
                        f.format,
                        SourceBytes::unread(f.path.clone()),
                        hash,
                    );
                    self.sources.insert(f.path.clone(), src);
                    self.stats.insert(f.path.as_os_str().to_owned(), stat);
                    continue;
                }
                Ok(SourceRead::Read(bytes, hash, stat)) => {
                    run.files_read += 1;
                    match stat {
                        Some(stat) => self.stats.insert(f.path.as_os_str().to_owned(), stat),
                        None => self.stats.remove(f.path.as_os_str()),
                    };
                    Ok((bytes, hash))
                }
                Err(p) => Err(p),
            };
            match r {
                Ok((bytes, hash)) => {
                    let same_place = self
                        .sources
                        .get(&f.path)
                        .filter(|s| {
                            s.library(&self.db) == f.library
                                && s.rel(&self.db) == &f.rel
                                && s.format(&self.db) == f.format
                        })
                        .copied();
                    match same_place {
                        Some(src) => {
                            // A setter always starts a new revision: compare first.
                            if src.hash(&self.db) != hash
                                || src
                                    .bytes(&self.db)
                                    .get()
                                    .is_none_or(|b| b.as_ref() != bytes.as_ref())
                            {
                                src.set_bytes(&mut self.db)
                                    .to(SourceBytes::new(f.path.clone(), bytes));
                                src.set_hash(&mut self.db).to(hash);
                            }
                        }
                        None => {
                            let src = Source::new(
                                &self.db,
                                f.rel.clone(),
                                f.library,
                                f.format,
                                SourceBytes::new(f.path.clone(), bytes),
                                hash,
                            );
                            self.sources.insert(f.path.clone(), src);
                        }
                    }
                }
                Err(p) => {
                    unreadable.insert(f.path.clone());
                    problems.push(p);
                }
            }
        }
        let present: rustc_hash::FxHashSet<&std::ffi::OsStr> =
            files.iter().map(|f| f.path.as_os_str()).collect();
        self.sources.retain(|p, _| present.contains(p.as_os_str()));
        self.stats.retain(|p, _| present.contains(p.as_os_str()));

        // Inputs exactly those of the manifest in place leave nothing to do, and a few edited
        // files are patched into it (`resume`). The engine's own lexical render (`lex`) may then
        // be older than the build in place: it stays consistent with itself, and its next patch
        // re-renders every term shard that differs from it, so it is still exact.
        if problems.0.is_empty() {
            let (s, settings_hash) = self.stamp(&cfg, &libs, req, &files);
            // An empty build in place (made with --allow-empty) is not reused without it: the
            // full build below refuses it.
            if let Some(manifest) = stamp::reusable(&req.out, req.env.as_deref(), &s)
                .filter(|m| req.allow_empty || m.libraries.iter().any(|l| l.docs > 0))
            {
                // A build killed after its manifest's rename may have left a temp file of the
                // caches it writes last; nothing else of it can remain.
                if self.known.previous.is_empty() {
                    store::remove_stale_temp_files(&req.out.join("cache"));
                }
                if run.files_read > 0 {
                    self.save_stats(req, &files, taken_at);
                }
                return self.unchanged(req, manifest, stats, run, started);
            }
            if let Some(rep) = self.resume(req, &files, &settings_hash, &stats, &run, started) {
                if let Some(m) = &rep.manifest {
                    stamp::record(&req.out, req.env.as_deref(), &s, &m.corpus_version);
                    self.save_stats(req, &files, taken_at);
                    self.listed = Some((files, found));
                }
                return rep;
            }
        }

        // Document shards: each library's readable files, hashed into buckets, in path order.
        let mut per_lib: BTreeMap<usize, usize> = BTreeMap::new();
        for f in &files {
            *per_lib.entry(f.library).or_default() += 1;
        }
        let mut grouped: BTreeMap<(usize, u32), Vec<Source>> = BTreeMap::new();
        for f in files.iter().filter(|f| !unreadable.contains(&f.path)) {
            let key = (f.library, bucket(&f.rel, shard_count(per_lib[&f.library])));
            grouped.entry(key).or_default().push(self.sources[&f.path]);
        }
        let mut list = Vec::with_capacity(grouped.len());
        for (key, members) in grouped {
            list.push(self.shard_input(key, members));
        }
        if self.set.shards(&self.db) != &list {
            self.set.set_shards(&mut self.db).to(list.clone());
        }

        // Compile every file in parallel on database clones; unchanged files hit their memos.
        let settings = self.settings;
        let set = self.set;
        let sources: Vec<Source> = list
            .iter()
            .flat_map(|s| s.files(&self.db).clone())
            .collect();
        // A progress bar on a terminal for long builds (never under --json or --stats-json).
        let bar = (req.progress && sources.len() > 200).then(|| {
            let b = indicatif::ProgressBar::new(sources.len() as u64);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} compiling {pos}/{len} files {wide_bar} {elapsed}",
                )
                .expect("valid template"),
            );
            b
        });
        let outputs: Vec<Arc<Compiled>> = sources
            .par_iter()
            .with_max_len(FILES_PER_TASK)
            .map_with(self.db.clone(), |db, f| {
                let out = compiled(db, settings, *f);
                if let Some(b) = &bar {
                    b.inc(1);
                }
                out
            })
            .collect();
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        for o in &outputs {
            problems.extend(o.problems.iter().cloned());
            stats.docs += o.docs.len();
            stats.chunks += o.docs.iter().map(|d| d.chunks.len()).sum::<usize>();
        }
        if let Some(c) = crate::db::AskDb::compile_cache(&self.db) {
            c.flush();
        }
        // Each shard's document IDs and domains, in parallel: the build-wide checks below then
        // read one memo per shard.
        list.par_iter().for_each_with(self.db.clone(), |db, s| {
            shard_ids(db, settings, *s);
        });
        problems.extend(duplicate_ids(&self.db, settings, set).iter().cloned());
        if stats.docs == 0 && !req.allow_empty && !problems.has_errors() {
            problems.push(empty_build(&cfg, &libs, &files, req.env.as_deref()));
        }
        run.set_counted(self.db.counters.take());
        if problems.has_errors() {
            return finish_failed(problems, stats, run, started);
        }

        // Vectors from a non-inline provider, in batches through the on-disk cache.
        if crate::embed::inline_hash(&cfg.embedding).is_none() {
            self.db.embedder.get_or_init(|| {
                let dir = req.out.join("cache").join("embeddings");
                crate::embed::provider(&cfg.embedding)
                    .and_then(|p| {
                        // Its folders are real directories under `out/` (`out_path`).
                        store::out_path(&req.out, "cache/embeddings/v1/00.bin").map_err(|e| {
                            crate::embed::EmbedError::new(
                                e.to_string(),
                                "remove the symbolic link; askzico makes the directory",
                            )
                        })?;
                        CachedEmbedder::open(p, &dir)
                    })
                    .map(Arc::new)
            });
            let vecs: Vec<Arc<Result<Vec<Vec<f32>>, Problem>>> = list
                .par_iter()
                .map_with(self.db.clone(), |db, s| shard_vectors(db, settings, *s))
                .collect();
            for v in &vecs {
                if let Err(p) = v.as_ref() {
                    problems.push(p.clone());
                }
            }
            if let Some(Ok(e)) = self.db.embedder.get()
                && let Err(err) = e.flush()
            {
                eprintln!("warning: embedding cache not saved: {}", err.message);
            }
            let counted = self.db.counters.take();
            run.vectors_embedded = counted.vectors_embedded;
            run.vectors_cached = counted.vectors_cached;
            if problems.has_errors() {
                return finish_failed(problems, stats, run, started);
            }
        }

        // The output lock, held until the manifest is in place (`askzico gc` waits for it).
        let lock = match store::OutLock::acquire(&req.out) {
            Ok(l) => l,
            Err(e) => {
                problems.push(write_failure(&req.out, e));
                return finish_failed(problems, stats, run, started);
            }
        };
        if self.known.previous.is_empty() {
            // The first store of this process: clear what killed builds left behind.
            store::remove_stale_temp_files(&req.out);
        }
        // What an earlier, failed build left queued (its failures are not this build's).
        let _ = store::finish_writes(&self.known);
        // Render per document shard, then per domain, and store each render as soon as it is made
        // (in parallel), so no build holds every artifact's bytes at once. Memoized: unchanged
        // shards cost nothing and their files are already in place.
        let out = &req.out;
        let shard_stored: Vec<std::io::Result<_>> = list
            .par_iter()
            .with_max_len(1)
            .map_with(self.db.clone(), |db, s| {
                store::store_artifacts(out, &shard_artifacts(db, settings, *s), &self.known)
            })
            .collect();
        let doms = domains(&self.db, settings, set);
        // Every shard's postings per domain, in parallel (memoized; the domain renders merge them).
        // A one-shot build makes them per domain instead, and drops them after its render.
        if !self.is_one_shot() {
            let pairs: Vec<(Shard, &String)> = list
                .iter()
                .flat_map(|s| doms.iter().map(move |d| (*s, d)))
                .collect();
            pairs
                .par_iter()
                .for_each_with(self.db.clone(), |db, (s, d)| {
                    shard_postings(db, settings, *s, (*d).clone());
                });
        }
        self.lex.retain(|d, _| doms.contains(d));
        self.estimates.retain(|d, _| doms.contains(d));
        let mut domain_stored: Vec<std::io::Result<_>> = Vec::new();
        for d in doms.iter() {
            let (rendered, early) = self.render_domain(settings, &list, &outputs, d, out);
            domain_stored.push(match early.error {
                Some(e) => Err(e),
                // Already written as rendered: this only collects the entries (and counts reuse).
                None => {
                    store::store_artifacts(out, &rendered, &self.known).map(|(entries, mut w)| {
                        w.files_reused = w.files_reused.saturating_sub(early.stats.files_written);
                        w.files_written += early.stats.files_written;
                        w.bytes_written += early.stats.bytes_written;
                        (entries, w)
                    })
                }
            });
        }
        let mut artifacts = Vec::new();
        for r in shard_stored.into_iter().chain(domain_stored) {
            match r {
                Ok((entries, w)) => {
                    artifacts.extend(entries);
                    stats.write.files_written += w.files_written;
                    stats.write.files_reused += w.files_reused;
                    stats.write.bytes_written += w.bytes_written;
                }
                Err(e) if store::Gone::is(&e) && !retried => {
                    // Someone deleted a file this process wrote: start over with a fresh database.
                    eprintln!("warning: {e}; rendering every artifact again");
                    drop(lock); // the retry takes it again (flock is per open file)
                    self.reset();
                    return self.build_once(req, started, None, true);
                }
                Err(e) => {
                    problems.push(write_failure(&req.out, e));
                    return finish_failed(problems, stats, run, started);
                }
            }
        }
        let values = settings_values(&cfg, &libs);
        let mut libraries: Vec<LibraryEntry> = libs
            .iter()
            .map(|l| LibraryEntry {
                id: l.id.clone(),
                docs: 0,
                chunks: 0,
                domains: Vec::new(),
                mapped_ids: 0,
            })
            .collect();
        for d in outputs.iter().flat_map(|o| o.docs.iter()) {
            if let Some(e) = libraries.iter_mut().find(|e| e.id == d.library) {
                e.docs += 1;
                e.mapped_ids += usize::from(crate::identity::is_mapped(d.doc_id.as_str()));
                e.chunks += d.chunks.len();
                e.domains.extend(d.domains.iter().cloned());
            }
        }
        for e in &mut libraries {
            e.domains.sort();
            e.domains.dedup();
        }
        let fp = values["fingerprint"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let manifest = Manifest {
            askzico_manifest: MANIFEST_FORMAT,
            corpus: cfg.name.clone(),
            corpus_version: corpus_version(&fp, &artifacts),
            environment: req.env.clone().unwrap_or_else(|| "default".into()),
            settings: values,
            libraries,
            artifacts,
        };
        run.shards_written = stats.write.files_written;
        // Every queued file on disk before the manifest names it.
        if let Err(e) = store::finish_writes(&self.known) {
            problems.push(write_failure(&req.out, e));
            return finish_failed(problems, stats, run, started);
        }
        let path = match store::store_manifest(
            &req.out,
            req.env.as_deref(),
            &manifest,
            &mut stats.write,
        ) {
            Ok(p) => p,
            Err(e) => {
                problems.push(write_failure(&req.out, e));
                return finish_failed(problems, stats, run, started);
            }
        };
        // `ms` ends at the manifest rename; the caches below are written after it.
        let elapsed = started.elapsed().as_millis();
        drop(lock);
        self.known.rotate();
        if problems.0.is_empty() {
            // Only builds without diagnostics are stamped and resumable (a no-op or a patch must
            // show the same warnings as the build it stands for).
            let (s, settings_hash) = self.stamp(&cfg, &libs, req, &files);
            stamp::record(&req.out, req.env.as_deref(), &s, &manifest.corpus_version);
            self.save_stats(req, &files, taken_at);
            self.last = self
                .record_state(req, &files, settings_hash, &manifest.corpus_version)
                .map(|state| resume::Last::new(&path, manifest.clone(), state));
        } else {
            self.last = None;
        }
        self.listed = Some((files, found));
        problems.sort();
        stats.ms = elapsed;
        run.bytes_written = stats.write.bytes_written;
        run.ms = stats.ms;
        run.corpus_version = Some(manifest.corpus_version.clone());
        BuildReport {
            manifest: Some(manifest),
            manifest_path: Some(path),
            problems,
            stats,
            run,
        }
    }
}

impl Engine {
    /// The lexical artifacts of a domain: a full render the first time, then a patch of the term
    /// shards whose postings changed.
    fn render_domain(
        &mut self,
        settings: Settings,
        list: &[Shard],
        compiled: &[Arc<Compiled>],
        domain: &str,
        out: &std::path::Path,
    ) -> (Arc<Vec<crate::artifacts::Rendered>>, WriteOutcome) {
        let parts: Vec<Arc<crate::artifacts::lexical::Postings>> = if self.is_one_shot() {
            // Nothing is patched later: a few large parts of contiguous documents instead of one
            // per document shard.
            crate::db::domain_postings(&self.cfg, compiled, list.len(), domain, one_shot_parts())
        } else {
            list.iter()
                .map(|s| shard_postings(&self.db, settings, *s, domain.to_string()))
                .filter(|p| p.chunks > 0)
                .collect()
        };
        let prev = self.lex.remove(domain);
        // Each term shard is stored as soon as it is rendered: a big domain's shards are never
        // all in memory at once.
        let outcome = std::sync::Mutex::new(WriteOutcome::default());
        let known = &self.known;
        let sink = |r: &crate::artifacts::Rendered| {
            let stored = store::store_one(out, r, known);
            if let Ok(mut o) = outcome.lock() {
                match stored {
                    Ok((_, w)) => {
                        o.stats.files_written += w.files_written;
                        o.stats.bytes_written += w.bytes_written;
                    }
                    Err(e) => {
                        o.error.get_or_insert(e);
                    }
                }
            }
        };
        let next = lex::DomainLex::render(domain, parts, prev, &sink);
        let rendered = next.rendered.clone();
        self.estimates.insert(domain.to_string(), next.estimate());
        if !self.is_one_shot() {
            self.lex.insert(domain.to_string(), next);
        }
        (rendered, outcome.into_inner().unwrap_or_default())
    }

    /// The database input of document shard `key` (library, bucket), holding `members`; set only
    /// when they changed.
    fn shard_input(&mut self, key: (usize, u32), members: Vec<Source>) -> Shard {
        match self.shards.get(&key).copied() {
            Some(s) => {
                if s.files(&self.db) != &members {
                    s.set_files(&mut self.db).to(members);
                }
                s
            }
            None => {
                let s = Shard::new(&self.db, key.0, key.1, members);
                self.shards.insert(key, s);
                s
            }
        }
    }

    /// Records what this build read and produced, for `resume` (best effort).
    fn record_state(
        &self,
        req: &BuildRequest,
        files: &[crate::discover::SourceFile],
        settings: String,
        corpus_version: &str,
    ) -> Option<resume::State> {
        // Each source's document IDs, from its shard's memo (a fetch of every file's documents
        // on this thread cost ~12 ms at 10k files).
        let shards = self.set.shards(&self.db);
        let ids: Vec<Arc<crate::db::ShardIds>> = shards
            .iter()
            .map(|s| shard_ids(&self.db, self.settings, *s))
            .collect();
        let mut docs_of: rustc_hash::FxHashMap<Source, &[(String, String)]> =
            rustc_hash::FxHashMap::default();
        for (shard, ids) in shards.iter().zip(&ids) {
            let mut at = 0;
            for (src, &n) in shard.files(&self.db).iter().zip(&ids.per_file) {
                docs_of.insert(*src, &ids.docs[at..at + n as usize]);
                at += n as usize;
            }
        }
        let states: Option<Vec<resume::FileState>> = files
            .iter()
            .map(|f| {
                // Every file of a build without problems is in a shard.
                let src = self.sources.get(&f.path)?;
                Some(resume::FileState {
                    library: self.cfg.libraries[f.library].id.clone(),
                    rel: f.rel.clone(),
                    format: f.format as u8,
                    hash: src.hash(&self.db),
                    docs: docs_of.get(src)?.iter().map(|(id, _)| id.clone()).collect(),
                })
            })
            .collect();
        match states {
            Some(files) => {
                let domains = self.estimates.clone();
                let state = resume::State {
                    settings,
                    corpus_version: corpus_version.to_string(),
                    files,
                    domains,
                };
                resume::save(&req.out, req.env.as_deref(), &state);
                Some(state)
            }
            None => {
                resume::clear(&req.out, req.env.as_deref());
                None
            }
        }
    }

    /// The build stamp of what the database now holds for `files` (see `stamp`), and the hash of
    /// its settings part.
    fn stamp(
        &self,
        cfg: &Config,
        libs: &[&crate::config::Library],
        req: &BuildRequest,
        files: &[crate::discover::SourceFile],
    ) -> (String, String) {
        // The compile cache this build opened already hashed the binary and compile settings.
        let key = match crate::db::AskDb::compile_cache(&self.db) {
            Some(c) => c.settings_key().to_string(),
            None => crate::db::cache::CompileCache::new(&req.out, cfg)
                .settings_key()
                .to_string(),
        };
        let settings = serde_json::json!({
            "compiler": key,
            "corpus": cfg.name,
            "environment": req.env,
            "settings": settings_values(cfg, libs),
        });
        let hashes: Vec<(usize, &str, u8, blake3::Hash)> = files
            .iter()
            .filter_map(|f| {
                self.sources.get(&f.path).map(|s| {
                    (
                        f.library,
                        f.rel.as_str(),
                        f.format as u8,
                        blake3::Hash::from_bytes(s.hash(&self.db)),
                    )
                })
            })
            .collect();
        let settings_hash = blake3::hash(&serde_json::to_vec(&settings).expect("serializes"))
            .to_hex()
            .to_string();
        (
            stamp::stamp(
                &settings,
                hashes
                    .iter()
                    .map(|(l, rel, fmt, h)| (cfg.libraries[*l].id.as_str(), *rel, *fmt, *h)),
            ),
            settings_hash,
        )
    }

    /// Records the stat cache for `files`: each one's stat when read or found unchanged, and
    /// its hash (see `statcache`).
    fn save_stats(
        &mut self,
        req: &BuildRequest,
        files: &[crate::discover::SourceFile],
        taken_at: i128,
    ) {
        if self.stats_saved && !self.is_one_shot() {
            return;
        }
        self.stats_saved = true;
        let entries = files.iter().filter_map(|f| {
            Some((
                f.path.clone(),
                *self.stats.get(f.path.as_os_str())?,
                self.sources.get(&f.path)?.hash(&self.db),
            ))
        });
        statcache::save(&req.out, req.env.as_deref(), taken_at, entries);
    }

    /// The report of a build that found its manifest already in place: nothing compiled or written.
    fn unchanged(
        &self,
        req: &BuildRequest,
        manifest: Manifest,
        mut stats: BuildStats,
        mut run: Stats,
        started: Instant,
    ) -> BuildReport {
        stats.docs = manifest.libraries.iter().map(|l| l.docs).sum();
        stats.chunks = manifest.libraries.iter().map(|l| l.chunks).sum();
        stats.write.files_reused = manifest.artifacts.len();
        stats.ms = started.elapsed().as_millis();
        run.ms = stats.ms;
        run.corpus_version = Some(manifest.corpus_version.clone());
        let path = req.out.join(crate::artifacts::manifest::manifest_file_name(
            req.env.as_deref(),
        ));
        BuildReport {
            manifest: Some(manifest),
            manifest_path: Some(path),
            problems: Problems::default(),
            stats,
            run,
        }
    }
}

/// What storing artifacts as they were rendered did.
#[derive(Default)]
struct WriteOutcome {
    stats: store::WriteStats,
    error: Option<std::io::Error>,
}

/// The error of a build that would publish no document, saying why: per library, whether its
/// globs matched no file or its files had nothing to index.
fn empty_build(
    cfg: &Config,
    libs: &[&crate::config::Library],
    files: &[crate::discover::SourceFile],
    env: Option<&str>,
) -> Problem {
    let mut why = Vec::new();
    if libs.is_empty() {
        why.push(format!(
            "environment `{}` enables no library",
            env.unwrap_or("default")
        ));
    }
    for lib in libs {
        let n = files
            .iter()
            .filter(|f| cfg.libraries[f.library].id == lib.id)
            .count();
        why.push(match n {
            0 => format!(
                "library `{}` has no source file (include {:?} under `{}`)",
                lib.id, lib.include_patterns, lib.root_display
            ),
            1 => format!(
                "library `{}`: its one file has nothing to index (see the warnings)",
                lib.id
            ),
            n => format!(
                "library `{}`: none of its {n} files has anything to index (see the warnings)",
                lib.id
            ),
        });
    }
    Problem::error(
        "empty-build",
        format!(
            "this build has no document to publish: {}; nothing was written (`--allow-empty` publishes an empty build)",
            why.join("; ")
        ),
    )
    .in_file(cfg.shown.clone())
    .help("fix the libraries' `root`/`include` in corpus.toml or add sources; build with --allow-empty only to publish an empty corpus on purpose")
}

fn finish_failed(
    mut problems: Problems,
    mut stats: BuildStats,
    mut run: Stats,
    started: Instant,
) -> BuildReport {
    problems.sort();
    stats.ms = started.elapsed().as_millis();
    run.ms = stats.ms;
    BuildReport {
        manifest: None,
        manifest_path: None,
        problems,
        stats,
        run,
    }
}
