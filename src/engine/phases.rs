//! The phases of one full build (`Engine::build_once`): read the sources into the database's
//! inputs, group them into shards, compile, embed, store; then the manifest of what was stored.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use rayon::prelude::*;
use salsa::Setter;

use super::request::{BuildRequest, BuildStats};
use super::{Engine, FILES_PER_TASK, SourceRead, Stats, bucket, read_pool, shard_count, statcache};
use crate::artifacts::manifest::{
    ArtifactEntry, LibraryEntry, MANIFEST_FORMAT, Manifest, corpus_version,
};
use crate::artifacts::store;
use crate::compile::settings_values;
use crate::config::{Config, Library};
use crate::db::{
    Compiled, Shard, Source, SourceBytes, compiled, domains, duplicate_ids, duplicate_urls,
    shard_artifacts, shard_ids, shard_postings, shard_vectors,
};
use crate::diag::{Problem, Problems};
use crate::discover::SourceFile;
use crate::embed::CachedEmbedder;
use crate::extract::{Generator, Includes};
use crate::sources::read_page;
use crate::timings::{Stage, timed};

impl Engine {
    /// Reads what may have changed (`changed`, or every file when `None`, and files new to the
    /// engine) and sets the inputs whose bytes differ; forgets files no longer listed. Returns
    /// the files that could not be read (their problems are in `problems`).
    pub(super) fn read_sources(
        &mut self,
        cfg: &Config,
        req: &BuildRequest,
        files: &[SourceFile],
        changed: Option<&BTreeSet<PathBuf>>,
        run: &mut Stats,
        problems: &mut Problems,
    ) -> HashSet<PathBuf> {
        // A changed file that sources include reads those sources again.
        let includers: HashSet<&PathBuf> = changed
            .iter()
            .flat_map(|c| c.iter())
            .filter_map(|p| self.included_by.get(p))
            .flatten()
            .collect();
        let to_read: Vec<&SourceFile> = files
            .iter()
            .filter(|f| {
                changed.is_none_or(|c| c.contains(&f.path))
                    || includers.contains(&f.path)
                    || !self.sources.contains_key(&f.path)
            })
            .collect();
        let read = self.read_all(cfg, req, &to_read);
        let mut unreadable = HashSet::new();
        for (f, r) in to_read.iter().zip(read) {
            match r {
                Ok(SourceRead::Unread { hash, stat }) => {
                    // Only for files new to the engine (checked in `read_all`); the stat is the
                    // recorded one.
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
                }
                Ok(SourceRead::Read {
                    bytes,
                    includes,
                    included,
                    hash,
                    stat,
                }) => {
                    run.files_read += 1;
                    match stat {
                        Some(stat) => self.stats.insert(f.path.as_os_str().to_owned(), stat),
                        None => self.stats.remove(f.path.as_os_str()),
                    };
                    self.set_source(f, bytes, includes, hash);
                    // What it includes now, in place of what it included before.
                    if !self.included_by.is_empty() {
                        for by in self.included_by.values_mut() {
                            by.remove(&f.path);
                        }
                    }
                    for p in included {
                        self.included_by
                            .entry(p)
                            .or_default()
                            .insert(f.path.clone());
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
        self.included_by.retain(|_, by| {
            by.retain(|p| present.contains(p.as_os_str()));
            !by.is_empty()
        });
        unreadable
    }

    /// Each file of `to_read` in its shared buffer, read in parallel; a file new to the engine
    /// whose stat is the one recorded takes its hash from the stat cache instead (a fresh
    /// process: a no-op reads nothing).
    fn read_all(
        &self,
        cfg: &Config,
        req: &BuildRequest,
        to_read: &[&SourceFile],
    ) -> Vec<Result<SourceRead, Problem>> {
        // The closure below is shared by the read threads: it holds the sources, not the engine.
        let sources = &self.sources;
        let statted = if to_read.iter().any(|f| !sources.contains_key(&f.path)) {
            statcache::load(&req.out, req.env.as_deref())
        } else {
            statcache::StatCache::default()
        };
        read_pool().install(|| {
            to_read
                .par_iter()
                .with_max_len(FILES_PER_TASK)
                .map(|f| {
                    let lib = &cfg.libraries[f.library];
                    // An mdBook page is always read: its text depends on the files it includes.
                    if !statted.is_empty()
                        && lib.generator != Generator::Mdbook
                        && !sources.contains_key(&f.path)
                        && let Some((stat, hash)) = timed(Stage::Read, || statted.hash_of(&f.path))
                        // A limit lowered since: read, so the file is reported as too large.
                        && stat.len <= cfg.max_file_bytes
                    {
                        return Ok(SourceRead::Unread { hash, stat });
                    }
                    let read = read_page(cfg, lib, &f.path, &f.rel)?;
                    Ok(SourceRead::Read {
                        // The stat cache records a hash of the file's own bytes only.
                        stat: if read.includes.is_empty() {
                            statcache::FileStat::of(&read.meta)
                        } else {
                            None
                        },
                        bytes: read.bytes,
                        includes: read.includes,
                        included: read.included,
                        hash: read.hash,
                    })
                })
                .collect()
        })
    }

    /// The input of a source just read: set when its bytes differ from the input's at the same
    /// place (library, path, format), else made anew.
    fn set_source(&mut self, f: &SourceFile, bytes: Arc<[u8]>, includes: Includes, hash: [u8; 32]) {
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
                    src.set_bytes(&mut self.db).to(SourceBytes::new(
                        f.path.clone(),
                        bytes,
                        includes,
                    ));
                    src.set_hash(&mut self.db).to(hash);
                }
            }
            None => {
                let src = Source::new(
                    &self.db,
                    f.rel.clone(),
                    f.library,
                    f.format,
                    SourceBytes::new(f.path.clone(), bytes, includes),
                    hash,
                );
                self.sources.insert(f.path.clone(), src);
            }
        }
    }

    /// Document shards: each library's readable files, hashed into buckets, in path order. Sets
    /// the shard set input when it changed.
    pub(super) fn shard_inputs(
        &mut self,
        files: &[SourceFile],
        unreadable: &HashSet<PathBuf>,
    ) -> Vec<Shard> {
        let mut per_lib: BTreeMap<usize, usize> = BTreeMap::new();
        for f in files {
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
        list
    }

    /// Compiles every file of the shards in parallel on database clones (unchanged files hit
    /// their memos) and runs the build-wide checks (duplicate IDs); adds their counts to `stats`.
    pub(super) fn compile_all(
        &self,
        req: &BuildRequest,
        list: &[Shard],
        stats: &mut BuildStats,
        problems: &mut Problems,
    ) -> Vec<Arc<Compiled>> {
        let settings = self.settings;
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
        problems.extend(duplicate_ids(&self.db, settings, self.set).iter().cloned());
        problems.extend(duplicate_urls(&self.db, settings, self.set).iter().cloned());
        outputs
    }

    /// Opens the configured non-inline provider through the on-disk cache, unless the one
    /// already open was opened for the same `[embedding]` settings.
    fn open_embedder(&self, cfg: &Config, req: &BuildRequest) {
        let Ok(mut slot) = self.db.embedder.write() else {
            return;
        };
        if slot.as_ref().is_some_and(|(s, _)| *s == cfg.embedding) {
            return;
        }
        let dir = req.out.join("cache").join("embeddings");
        let opened = crate::embed::provider(&cfg.embedding)
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
            .map(Arc::new);
        *slot = Some((cfg.embedding.clone(), opened));
    }

    /// Vectors from a non-inline provider, in batches through the on-disk cache (nothing to do
    /// for the inline `hash` provider: its vectors were made with each chunk).
    pub(super) fn embed_vectors(
        &mut self,
        cfg: &Config,
        req: &BuildRequest,
        list: &[Shard],
        run: &mut Stats,
        problems: &mut Problems,
    ) {
        let settings = self.settings;
        if crate::embed::inline_hash(&cfg.embedding).is_none() {
            self.open_embedder(cfg, req);
            let vecs: Vec<Arc<Result<Vec<Vec<f32>>, Problem>>> = list
                .par_iter()
                .map_with(self.db.clone(), |db, s| shard_vectors(db, settings, *s))
                .collect();
            for v in &vecs {
                if let Err(p) = v.as_ref() {
                    problems.push(p.clone());
                }
            }
            if let Some(Ok(e)) = crate::db::AskDb::embedder(&self.db)
                && let Err(err) = e.flush()
            {
                eprintln!("warning: embedding cache not saved: {}", err.message);
            }
            let counted = self.db.counters.take();
            run.vectors_embedded = counted.vectors_embedded;
            run.vectors_cached = counted.vectors_cached;
        }
    }

    /// Takes the output lock and stores every artifact: per document shard, then per domain,
    /// each render stored as soon as it is made (in parallel), so no build holds every
    /// artifact's bytes at once. Memoized: unchanged shards cost nothing and their files are
    /// already in place. Returns the entries and the lock, held until the manifest is in place.
    pub(super) fn store_all(
        &mut self,
        req: &BuildRequest,
        list: &[Shard],
        outputs: &[Arc<Compiled>],
        stats: &mut BuildStats,
    ) -> std::io::Result<(Vec<ArtifactEntry>, store::OutLock)> {
        let settings = self.settings;
        let set = self.set;
        // `askzico gc` waits for the lock.
        let lock = store::OutLock::acquire(&req.out)?;
        self.known.sealed_at = store::sealed_at(&req.out);
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
            let (rendered, early) = self.render_domain(settings, list, outputs, d, out);
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
                // The lock is released on return (a retry takes it again: flock is per open file).
                Err(e) => return Err(e),
            }
        }
        Ok((artifacts, lock))
    }
}

/// The manifest of a stored build: its settings, per library its counts, and the artifacts.
pub(super) fn manifest_of(
    cfg: &Config,
    libs: &[&Library],
    req: &BuildRequest,
    outputs: &[Arc<Compiled>],
    artifacts: Vec<ArtifactEntry>,
) -> Manifest {
    let values = settings_values(&cfg.compile_settings(), libs.iter().map(|l| l.shape()));
    let mut libraries: Vec<LibraryEntry> = libs
        .iter()
        .map(|l| LibraryEntry {
            id: l.id.clone(),
            docs: 0,
            chunks: 0,
            domains: Vec::new(),
            mapped_ids: 0,
            transliterated_ids: 0,
            filterable: l.filterable.clone(),
        })
        .collect();
    for d in outputs.iter().flat_map(|o| o.docs.iter()) {
        if let Some(e) = libraries.iter_mut().find(|e| e.id == d.library) {
            e.docs += 1;
            e.mapped_ids += usize::from(crate::identity::is_mapped(d.doc_id.as_str()));
            e.transliterated_ids +=
                usize::from(crate::identity::is_transliterated(d.doc_id.as_str()));
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
    Manifest {
        askzico_manifest: MANIFEST_FORMAT,
        corpus: cfg.name.clone(),
        corpus_version: corpus_version(&fp, &artifacts),
        environment: req.env.clone().unwrap_or_else(|| "default".into()),
        settings: values,
        libraries,
        artifacts,
    }
}
