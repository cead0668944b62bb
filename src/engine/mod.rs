//! engine: the incremental build driver. A Salsa database (`db`) holds the config and the bytes
//! of every source file as inputs; `build` sets only the inputs that changed, so queries re-run
//! only for what an edit touched, and unchanged content-addressed files are reused, not
//! rewritten. Used once by `askzico build`, and kept alive across edits by `build --watch`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use salsa::Setter;

use crate::artifacts::manifest::Manifest;
use crate::artifacts::store;
use crate::config::Config;
use crate::db::{Compiled, Db, Settings, Shard, ShardSet, Source, shard_postings};
use crate::diag::{Problem, Problems};
use crate::discover::discover;
use crate::timings::{Stage, timed};

mod lex;
mod phases;
mod remember;
mod request;
mod resume;
mod stamp;
mod statcache;

use request::write_failure;
pub use request::{BuildReport, BuildRequest};
pub(crate) use request::{BuildStats, run};

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
/// Eight make a build whose sources are not cached about a tenth faster than two (four are no
/// better than two), and cost nothing when they are cached.
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

/// A source read, or taken from the stat cache.
enum SourceRead {
    /// Its bytes, their blake3 and its stat before the read (none when it could not be taken).
    Read {
        bytes: Arc<[u8]>,
        /// The files it includes, and their canonical paths.
        includes: crate::extract::Includes,
        included: Vec<PathBuf>,
        hash: [u8; 32],
        stat: Option<statcache::FileStat>,
    },
    /// Its stat is the one the stat cache records: the recorded blake3.
    Unread {
        hash: [u8; 32],
        stat: statcache::FileStat,
    },
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
    listed: Option<Listing>,
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
    /// Per file a source includes (an mdBook page's `{{#include}}`), by canonical path, the
    /// sources that include it: an event on it reads them again.
    included_by: rustc_hash::FxHashMap<PathBuf, BTreeSet<PathBuf>>,
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
            included_by: Default::default(),
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

    /// The folders of the files that sources include (`{{#include}}`): a watch watches them too,
    /// since an included file may lie outside every library's root.
    pub(crate) fn include_dirs(&self) -> BTreeSet<PathBuf> {
        self.included_by
            .keys()
            .filter_map(|p| p.parent().map(Path::to_path_buf))
            .collect()
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
    fn after_build(&mut self, req: &BuildRequest, mut rep: BuildReport) -> BuildReport {
        crate::artifacts::writer::caches_written();
        self.cfg.help_for_mode(&mut rep.problems);
        if rep
            .problems
            .0
            .iter()
            .any(|p| p.cause == Some(crate::diag::Cause::ChangedDuringBuild))
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
        if !changed
            .iter()
            .all(|p| self.sources.contains_key(p) || self.included_by.contains_key(p))
        {
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

    /// One build: list and read the sources, reuse or patch the build in place when the inputs
    /// allow it, else compile, embed, store and publish. `retried`: this is the build again
    /// after an artifact vanished from disk (`store::Gone`).
    fn build_once(
        &mut self,
        req: &BuildRequest,
        started: Instant,
        changed: Option<&BTreeSet<PathBuf>>,
        retried: bool,
    ) -> BuildReport {
        let mut at = Attempt::new(started);
        let cfg = self.cfg.clone();
        let libs = match cfg.libraries_for(req.env.as_deref()) {
            Ok(l) => l,
            Err(p) => return at.failed(p),
        };
        let listing = match self.listing(&cfg, &libs, req) {
            Ok(l) => l,
            Err(p) => return at.failed(p),
        };
        at.problems.extend(listing.found.0.iter().cloned());
        at.stats.files = listing.files.len();

        // The on-disk compile cache of this output directory (a fresh process reuses it).
        if let Ok(mut c) = self.db.compile_cache.write()
            && c.is_none()
        {
            *c = Some(Arc::new(crate::db::cache::CompileCache::new(
                &req.out, &cfg,
            )));
        }

        if let Ok(mut d) = self.db.artifact_dir.write() {
            *d = Some(req.out.clone());
        }

        let taken_at = statcache::now_ns();
        let unreadable = self.read_sources(
            &cfg,
            req,
            &listing.files,
            changed,
            &mut at.run,
            &mut at.problems,
        );
        at.listed = at.problems.0.len();
        let listing = match self.reuse_or_patch(&cfg, &libs, req, listing, &at, taken_at) {
            Ok(rep) => return rep,
            Err(listing) => listing,
        };

        let list = self.shard_inputs(&listing.files, &unreadable);
        let outputs = self.compile_all(req, &list, &mut at.stats, &mut at.problems);
        if at.stats.docs == 0 && !req.allow_empty && !at.problems.has_errors() {
            at.problems
                .push(empty_build(&cfg, &libs, &listing.files, req.env.as_deref()));
        }
        at.run.set_counted(self.db.counters.take());
        if at.problems.has_errors() {
            return at.finish_failed();
        }
        self.embed_vectors(&cfg, req, &list, &mut at.run, &mut at.problems);
        if at.problems.has_errors() {
            return at.finish_failed();
        }
        let build = FullBuild {
            libs: &libs,
            list: &list,
            outputs: &outputs,
            taken_at,
        };
        self.publish(req, build, listing, at, retried)
    }

    /// The output directory claimed, and the sources listed (or the listing of the last build,
    /// when only contents changed since).
    fn listing(
        &mut self,
        cfg: &Config,
        libs: &[&crate::config::Library],
        req: &BuildRequest,
    ) -> Result<Listing, Problem> {
        // The output directory is askzico's (made, or marked) before anything is written there.
        crate::paths::claim(&req.out)?;
        Ok(match self.listed.take() {
            Some(listed) => listed,
            None => {
                let (files, found) = timed(Stage::Read, || discover(cfg, libs, &req.out));
                Listing { files, found }
            }
        })
    }

    /// Inputs exactly those of the manifest in place leave nothing to do, and a few edited
    /// files are patched into it (`resume`): the report of either, or the listing back for a
    /// full build. The engine's own lexical render (`lex`) may then be older than the build in
    /// place: it stays consistent with itself, and its next patch re-renders every term shard
    /// that differs from it, so it is still exact.
    fn reuse_or_patch(
        &mut self,
        cfg: &Config,
        libs: &[&crate::config::Library],
        req: &BuildRequest,
        listing: Listing,
        at: &Attempt,
        taken_at: i128,
    ) -> Result<BuildReport, Listing> {
        if at.problems.has_errors() {
            return Err(listing);
        }
        let files = &listing.files;
        let keys = self.stamp(cfg, libs, req, files);
        // An empty build in place (made with --allow-empty) is not reused without it: the
        // full build refuses it.
        if let Some((manifest, warnings)) =
            stamp::reusable(&req.out, req.env.as_deref(), &keys.stamp)
                .filter(|(m, _)| req.allow_empty || m.libraries.iter().any(|l| l.docs > 0))
        {
            // A build killed after its manifest's rename may have left a temp file of the
            // caches it writes last; nothing else of it can remain.
            if self.known.previous.is_empty() {
                store::remove_stale_temp_files(&req.out.join("cache"));
            }
            if at.run.files_read > 0 {
                self.save_stats(req, files, taken_at);
            }
            let mut rep =
                self.unchanged(req, manifest, at.stats.clone(), at.run.clone(), at.started);
            rep.problems = at.problems.clone();
            rep.problems.extend(warnings);
            rep.problems.sort();
            return Ok(rep);
        }
        // A patch stands for a build without any diagnostic only (see `publish`).
        if !at.problems.0.is_empty() {
            return Err(listing);
        }
        let Some(rep) = self.resume(
            req,
            files,
            &keys.settings_hash,
            &at.stats,
            &at.run,
            at.started,
        ) else {
            return Err(listing);
        };
        if let Some(m) = &rep.manifest {
            stamp::record(
                &req.out,
                req.env.as_deref(),
                &keys.stamp,
                &m.corpus_version,
                &[],
            );
            self.save_stats(req, files, taken_at);
            self.listed = Some(listing);
        }
        Ok(rep)
    }

    /// The rendered build stored, its manifest written last, and what the next build reuses
    /// remembered.
    fn publish(
        &mut self,
        req: &BuildRequest,
        build: FullBuild,
        listing: Listing,
        mut at: Attempt,
        retried: bool,
    ) -> BuildReport {
        let cfg = self.cfg.clone();
        let (artifacts, lock) = match self.store_all(req, build.list, build.outputs, &mut at.stats)
        {
            Ok(stored) => stored,
            Err(e) if store::Gone::is(&e) && !retried => {
                // Someone deleted a file this process wrote: start over with a fresh
                // database (the lock was released with the failed store; the retry takes it
                // again).
                eprintln!("warning: {e}; rendering every artifact again");
                self.reset();
                return self.build_once(req, at.started, None, true);
            }
            Err(e) => return at.failed(write_failure(&req.out, e)),
        };
        // The `hash` vectors made as their files were written (a one-shot build's).
        at.run.vectors_embedded += self
            .db
            .counters
            .vectors_embedded
            .swap(0, std::sync::atomic::Ordering::Relaxed);
        let manifest = phases::manifest_of(&cfg, build.libs, req, build.outputs, artifacts);
        at.run.shards_written = at.stats.write.files_written;
        let path = match self.write_manifest(req, &manifest, &mut at.stats) {
            Ok(p) => p,
            Err(e) => return at.failed(write_failure(&req.out, e)),
        };
        // `ms` ends at the manifest rename; the caches below are written after it.
        let elapsed = at.started.elapsed().as_millis();
        drop(lock);
        self.known.rotate();
        // The stamp keeps the warnings of the sources, which a no-op shows again. A patch
        // recompiles only what changed, so it could not: only a build without any diagnostic is
        // resumable.
        let settings_hash = self.remember(
            build.libs,
            req,
            &listing.files,
            build.taken_at,
            &manifest,
            &at.problems.0[at.listed..],
        );
        self.last = if at.problems.0.is_empty() {
            self.record_state(req, &listing.files, settings_hash, &manifest.corpus_version)
                .map(|state| resume::Last::new(&path, manifest.clone(), state))
        } else {
            None
        };
        self.listed = Some(listing);
        let Attempt {
            mut problems,
            mut stats,
            mut run,
            ..
        } = at;
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

/// The sources of a build as discovery listed them, and what it found wrong on the way.
struct Listing {
    files: Vec<crate::discover::SourceFile>,
    found: Problems,
}

/// What one build has gathered so far: its problems and counts, and when it started.
struct Attempt {
    started: Instant,
    problems: Problems,
    /// How many of `problems` the listing and reading of the sources gave (every build gives
    /// them again); the rest came from the sources' contents.
    listed: usize,
    stats: BuildStats,
    run: Stats,
}

impl Attempt {
    fn new(started: Instant) -> Attempt {
        Attempt {
            started,
            problems: Problems::default(),
            listed: 0,
            stats: BuildStats::default(),
            run: Stats::default(),
        }
    }

    /// The report of a build that stops at `p`.
    fn failed(mut self, p: Problem) -> BuildReport {
        self.problems.push(p);
        self.finish_failed()
    }

    /// The report of a build that stops at the errors it has.
    fn finish_failed(self) -> BuildReport {
        finish_failed(self.problems, self.stats, self.run, self.started)
    }
}

/// A full build compiled and embedded, ready to store: the libraries, the document shards and
/// their compiled files, and when the sources' stats were taken.
struct FullBuild<'a> {
    libs: &'a [&'a crate::config::Library],
    list: &'a [Shard],
    outputs: &'a [Arc<Compiled>],
    taken_at: i128,
}

impl Engine {
    /// Waits until every queued file is on disk, then writes the manifest that names them.
    fn write_manifest(
        &self,
        req: &BuildRequest,
        manifest: &Manifest,
        stats: &mut BuildStats,
    ) -> std::io::Result<PathBuf> {
        store::finish_writes(&self.known)?;
        store::store_manifest(&req.out, req.env.as_deref(), manifest, &mut stats.write)
    }

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
