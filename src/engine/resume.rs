//! Resuming from the build in place. After each clean build the engine records what it read and
//! what each file produced (`out/cache/resume[.env].mp`): per source its library, path, format,
//! blake3 and doc IDs, and per lexical domain its size estimate. A later build whose settings are
//! the same and whose file set is the same, but with a few files' contents changed, then patches
//! the previous build instead of rendering every shard to find the few that changed:
//!
//! - the edited files are compiled; their previous documents come from the compile cache (keyed by
//!   the recorded hash), so the chunks whose postings change are known;
//! - the document shards holding them are rendered again (their other files hit the cache);
//! - per domain, the meta and the term shards holding a term whose postings changed are read from
//!   `out/`, patched (`lexical::patch_shard`, `patch_meta`) and written under their new hash;
//! - the manifest is the previous one with those entries replaced.
//!
//! The result is byte-identical to a full build (the property test in `tests/incremental.rs`
//! runs every step in a fresh engine and compares with clean builds). Anything unexpected (a
//! file added or removed, a diagnostic, a changed shard count or domain set, a missing cache
//! entry or file) makes the caller fall back to the full build. Like every cache, the state never
//! shapes output: deleting it only costs time.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::request::{BuildReport, BuildRequest, BuildStats, write_failure};
use super::{Engine, Stats, bucket, shard_count};
use crate::artifacts::lexical::{self, FIELDS, LexMeta, LexShard, Postings};
use crate::artifacts::manifest::{ArtifactEntry, Manifest, corpus_version};
use crate::artifacts::store;
use crate::artifacts::{BuiltDoc, Kind, Rendered};
use crate::db::cache::CompileCache;
use crate::db::{AskDb, Compiled, Source, compiled, shard_artifacts};
use crate::diag::Problems;
use crate::discover::SourceFile;

/// At most this many edited files are patched; more take the full build.
pub(super) const MAX_FILES: usize = 64;

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct State {
    /// blake3 of the build's settings (compiler, config, environment): the stamp's settings part.
    pub settings: String,
    pub corpus_version: String,
    pub files: Vec<FileState>,
    /// Per lexical domain, the size estimate its shard count is computed from.
    pub domains: BTreeMap<String, usize>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct FileState {
    pub library: String,
    pub rel: String,
    pub format: u8,
    pub hash: [u8; 32],
    pub docs: Vec<String>,
}

/// Its file under `out/cache/` (`store::out_path`: never outside `out/`).
fn path(out: &Path, env: Option<&str>) -> std::io::Result<PathBuf> {
    let name = match env {
        Some(e) => format!("resume.{e}.mp"),
        None => "resume.mp".to_string(),
    };
    crate::artifacts::store::out_path(out, &format!("cache/{name}"))
}

pub(super) fn load(out: &Path, env: Option<&str>) -> Option<State> {
    // Anything unreadable, oversized or damaged is no state: the build takes the full path.
    let bytes =
        crate::fsio::read_capped(&path(out, env).ok()?, crate::fsio::cap::CORPUS_STATE).ok()?;
    rmp_serde::from_slice(&bytes).ok()
}

/// Records the state of a build that just wrote its manifest (best effort).
pub(super) fn save(out: &Path, env: Option<&str>, state: &State) {
    if let (Ok(bytes), Ok(path)) = (rmp_serde::to_vec(state), path(out, env)) {
        let _ = crate::artifacts::store::write_atomic(&path, &bytes);
    }
}

/// Forgets the state (a build that could not record it must not leave an older one behind).
pub(super) fn clear(out: &Path, env: Option<&str>) {
    if let Ok(p) = path(out, env) {
        let _ = std::fs::remove_file(p);
    }
}

/// What an engine last wrote, kept in memory: the manifest (and when the file on disk was last
/// changed, to notice another process's build), the resume state and the domains' metas.
pub(super) struct Last {
    manifest: Manifest,
    written: Option<(u64, std::time::SystemTime)>,
    state: State,
    metas: BTreeMap<String, LexMeta>,
    /// Term shards patched recently, by (domain, shard), with the artifact path they were
    /// written to: an editor saving one file again and again patches the same shards.
    shards: ShardCache,
}

/// Parsed term shards by (domain, shard number): (artifact path, shard).
pub(super) type ShardCache = std::collections::HashMap<(String, usize), (String, LexShard)>;

/// At most this many parsed term shards are kept between builds.
const CACHED_SHARDS: usize = 256;

fn file_id(path: &Path) -> Option<(u64, std::time::SystemTime)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()?))
}

impl Last {
    pub(super) fn new(manifest_path: &Path, manifest: Manifest, state: State) -> Last {
        Last {
            manifest,
            written: file_id(manifest_path),
            state,
            metas: BTreeMap::new(),
            shards: ShardCache::new(),
        }
    }

    /// Still the build in place: the manifest file is the one this engine wrote.
    fn current(&self, out: &Path, env: Option<&str>) -> bool {
        self.written.is_some()
            && file_id(&out.join(crate::artifacts::manifest::manifest_file_name(env)))
                == self.written
    }
}

/// The manifest's entries by directory and stem (`<dir>/<stem>.<hash>.<ext>`).
pub(super) struct Entries(rustc_hash::FxHashMap<(String, String), usize>);

/// The directory and stem of an artifact path.
fn place(path: &str) -> (&str, &str) {
    let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
    (dir, file.split('.').next().unwrap_or(file))
}

impl Entries {
    pub(super) fn new(artifacts: &[ArtifactEntry]) -> Entries {
        let mut map = rustc_hash::FxHashMap::default();
        map.reserve(artifacts.len());
        for (i, a) in artifacts.iter().enumerate() {
            let (dir, stem) = place(&a.path);
            // Two entries in one place: neither can be patched.
            map.entry((dir.to_string(), stem.to_string()))
                .and_modify(|v| *v = usize::MAX)
                .or_insert(i);
        }
        Entries(map)
    }

    /// The position of the single entry at `<dir>/<stem>.…`.
    fn get(&self, dir: &str, stem: &str) -> Option<usize> {
        self.0
            .get(&(dir.to_string(), stem.to_string()))
            .copied()
            .filter(|i| *i != usize::MAX)
    }
}

/// The lexical files of one domain after an edit: the patched meta and term shards, or `None`
/// when the edit cannot be patched (the caller builds in full).
pub(super) struct DomainPatch {
    pub rendered: Vec<Rendered>,
    pub estimate: usize,
    pub meta: LexMeta,
}

/// The build being patched: its output directory, manifest and the manifest's entries.
pub(super) struct InPlace<'a> {
    pub out: &'a Path,
    pub manifest: &'a Manifest,
    pub entries: &'a Entries,
    /// The tokens the index adds for each search word (the build's settings).
    pub extras: crate::normalize::WordExtras<'a>,
}

/// Patches domain `domain` of the build in place (`meta`: its meta, if already parsed; `cache`:
/// parsed term shards): `old` and `new` are the edited files' documents before and after.
pub(super) fn patch_domain(
    build: &InPlace,
    cache: &mut ShardCache,
    domain: &str,
    meta: Option<LexMeta>,
    estimate: usize,
    old: &[&BuiltDoc],
    new: &[&BuiltDoc],
) -> Option<DomainPatch> {
    let InPlace {
        out,
        manifest,
        entries,
        extras,
    } = *build;
    let op: Postings = lexical::postings(domain, old, extras);
    let np: Postings = lexical::postings(domain, new, extras);
    let estimate = (estimate + np.estimate).checked_sub(op.estimate)?;
    let dir = format!("lexical/{domain}");
    let read = |stem: &str| -> Option<Vec<u8>> {
        let i = entries.get(&dir, stem)?;
        let a = &manifest.artifacts[i];
        let bytes = crate::artifacts::store::read_artifact(out, a).ok()?;
        (bytes.len() as u64 == a.bytes).then_some(bytes)
    };
    let mut meta: LexMeta = match meta {
        Some(m) => m,
        None => serde_json::from_slice(&read("meta")?).ok()?,
    };
    if lexical::shards_for(estimate) != meta.shards {
        return None;
    }
    lexical::patch_meta(&mut meta, &op, &np)?;
    if meta.chunks == 0 {
        return None; // the domain is gone: the full build drops it
    }
    let mut rendered = vec![lexical::render_patched_meta(&meta)];
    let slots = lexical::doc_slots(&meta, &op, &np)?;
    let changed = lexical::changed_terms(&op, &np);
    let mut by_shard: BTreeMap<usize, [Vec<&String>; FIELDS]> = BTreeMap::new();
    for (f, terms) in changed.iter().enumerate() {
        for t in terms {
            by_shard
                .entry(lexical::shard_of(t, meta.shards))
                .or_default()[f]
                .push(t);
        }
    }
    for (k, terms) in by_shard {
        let stem = format!("{k:04}");
        let path = &manifest.artifacts[entries.get(&dir, &stem)?].path;
        let cached = cache
            .remove(&(domain.to_string(), k))
            .filter(|(p, _)| p == path)
            .map(|(_, s)| s);
        let mut shard: LexShard = match cached {
            Some(s) => s,
            None => serde_json::from_slice(&read(&stem)?).ok()?,
        };
        if shard.shard != k || shard.domain != domain {
            return None;
        }
        lexical::patch_shard(&mut shard, &terms, &slots, &np)?;
        let r = lexical::render_patched(&shard);
        if cache.len() >= CACHED_SHARDS {
            cache.clear();
        }
        cache.insert((domain.to_string(), k), (r.path_and_hash().0, shard));
        rendered.push(r);
    }
    Some(DomainPatch {
        rendered,
        estimate,
        meta,
    })
}

/// Replaces, in `artifacts`, the entries of the files `stored` stands for (same directory and
/// stem): `false` when one has no single previous entry.
pub(super) fn replace_entries(
    artifacts: &mut [ArtifactEntry],
    entries: &Entries,
    stored: Vec<ArtifactEntry>,
) -> bool {
    for e in stored {
        let (dir, stem) = place(&e.path);
        match entries.get(dir, stem) {
            Some(i) if artifacts[i].kind == e.kind => artifacts[i] = e,
            _ => return false,
        }
    }
    true
}

/// How many document-shard files (`chunks`, `lookup`, `vectors`) of shard `<library>/<stem>`
/// `artifacts` names.
pub(super) fn shard_entries(entries: &Entries, library: &str, stem: &str) -> usize {
    [Kind::Chunks, Kind::Lookup, Kind::Vectors]
        .iter()
        .filter(|k| {
            entries
                .get(&format!("{}/{library}", k.as_str()), stem)
                .is_some()
        })
        .count()
}

/// The set of domains the documents carry.
pub(super) fn domains_of(docs: &[&BuiltDoc]) -> BTreeSet<String> {
    docs.iter()
        .flat_map(|d| d.domains.iter().cloned())
        .collect()
}

/// The build being resumed: its recorded state, its manifest, and the metas and term shards
/// parsed by earlier patches of this engine.
struct Previous {
    state: State,
    manifest: Manifest,
    metas: BTreeMap<String, LexMeta>,
    shards: ShardCache,
}

/// The edited files (positions in the file list and the recorded state) and their documents
/// before (from the compile cache) and after (compiled now), in the same order.
struct Edit {
    files: Vec<usize>,
    old: Vec<Vec<BuiltDoc>>,
    new: Vec<Arc<Compiled>>,
}

impl Edit {
    fn old_docs(&self) -> Vec<&BuiltDoc> {
        self.old.iter().flatten().collect()
    }

    fn new_docs(&self) -> Vec<&BuiltDoc> {
        self.new.iter().flat_map(|c| c.docs.iter()).collect()
    }
}

/// The files a patch writes: the document shards holding the edited files, rendered again, and
/// per domain of the edited documents its patched lexical files.
struct Patch {
    shards: Vec<Arc<Vec<Rendered>>>,
    domains: BTreeMap<String, DomainPatch>,
}

/// What storing a patch ended in.
enum Stored {
    Written {
        write: store::WriteStats,
        manifest_path: PathBuf,
        /// Milliseconds from the build's start to the manifest's rename.
        ms: u128,
    },
    /// An artifact has no single previous entry to replace: the caller builds in full.
    Unpatchable,
    /// A write failed: the build fails with it.
    Failed(std::io::Error),
}

impl Engine {
    /// Patches the build in place for the files whose bytes differ from the recorded state (see
    /// the module docs); `None` when it cannot, and the caller builds in full. Nothing is written
    /// before everything has been rendered.
    pub(super) fn resume(
        &mut self,
        req: &BuildRequest,
        files: &[SourceFile],
        settings_hash: &str,
        stats: &BuildStats,
        run: &Stats,
        started: Instant,
    ) -> Option<BuildReport> {
        crate::embed::inline_hash(&self.cfg.embedding)?;
        let mut prev = self.previous_build(req)?;
        let changed = self.edited_files(&prev, files, settings_hash)?;
        let cache = self.db.compile_cache()?;
        let edit = self.edited_documents(&cache, &prev.state, files, changed)?;
        if !doc_ids_stay_unique(&prev.state, &edit) {
            return None; // a duplicate doc ID: the full build names both files
        }
        let entries = Entries::new(&prev.manifest.artifacts);
        let patch = Patch {
            shards: self.render_edited_shards(files, &edit, &entries)?,
            domains: self.patch_domains(&req.out, &mut prev, &entries, &edit)?,
        };
        self.count_edit(&mut prev.manifest, files, &edit)?;
        if prev.manifest.libraries.iter().all(|l| l.docs == 0) {
            return None; // the full build refuses it, or publishes it under --allow-empty
        }

        let mut run = run.clone();
        let (write, manifest_path, ms) =
            match self.store_patch(req, &patch, &mut prev.manifest, &entries, &mut run, started) {
                Stored::Written {
                    write,
                    manifest_path,
                    ms,
                } => (write, manifest_path, ms),
                Stored::Unpatchable => return None,
                Stored::Failed(e) => return Some(write_failed(req, e, stats, &run, started)),
            };
        cache.flush();
        let manifest = self.record_patched(req, files, prev, edit, patch.domains, &manifest_path);
        Some(self.resumed_report(stats, run, manifest, manifest_path, write, ms))
    }

    /// The build in place: the one this engine last wrote if the manifest is still that one,
    /// else the state and manifest on disk.
    fn previous_build(&mut self, req: &BuildRequest) -> Option<Previous> {
        let env = req.env.as_deref();
        Some(
            match self.last.take().filter(|l| l.current(&req.out, env)) {
                Some(l) => Previous {
                    state: l.state,
                    manifest: l.manifest,
                    metas: l.metas,
                    shards: l.shards,
                },
                None => Previous {
                    state: load(&req.out, env)?,
                    manifest: store::read_manifest(&req.out, env).ok()?,
                    metas: BTreeMap::new(),
                    shards: ShardCache::new(),
                },
            },
        )
    }

    /// The positions of the files whose bytes changed since the recorded build: `None` when the
    /// settings or the file set differ, or when none or too many changed.
    fn edited_files(
        &self,
        prev: &Previous,
        files: &[SourceFile],
        settings_hash: &str,
    ) -> Option<Vec<usize>> {
        let state = &prev.state;
        if state.settings != settings_hash
            || state.files.len() != files.len()
            || prev.manifest.corpus_version != state.corpus_version
        {
            return None;
        }
        let mut changed = Vec::new();
        for (i, (f, s)) in files.iter().zip(&state.files).enumerate() {
            if self.cfg.libraries[f.library].id != s.library
                || f.rel != s.rel
                || f.format as u8 != s.format
            {
                return None;
            }
            if self.sources.get(&f.path)?.hash(&self.db) != s.hash {
                changed.push(i);
            }
        }
        (!changed.is_empty() && changed.len() <= MAX_FILES).then_some(changed)
    }

    /// The edited files' documents before (compile cache, by the recorded hash) and after:
    /// `None` when one is not cached, one now has problems, or one's set of domains changed.
    fn edited_documents(
        &self,
        cache: &CompileCache,
        state: &State,
        files: &[SourceFile],
        changed: Vec<usize>,
    ) -> Option<Edit> {
        let mut old: Vec<Vec<BuiltDoc>> = Vec::new();
        for &i in &changed {
            let (f, lib) = (&files[i], &self.cfg.libraries[files[i].library]);
            old.push(cache.get(
                &CompileCache::slot(lib, &f.rel),
                &cache.key(lib, &f.rel, f.format, &state.files[i].hash),
            )?);
        }
        let new: Vec<Arc<Compiled>> = changed
            .iter()
            .map(|&i| compiled(&self.db, self.settings, self.sources[&files[i].path]))
            .collect();
        if new.iter().any(|c| !c.problems.is_empty()) {
            return None; // the full build reports them with every other file's
        }
        for (o, n) in old.iter().zip(&new) {
            if domains_of(&o.iter().collect::<Vec<_>>())
                != domains_of(&n.docs.iter().collect::<Vec<_>>())
            {
                return None;
            }
            // A changed URL may now be another page's: the full build checks every URL.
            if !o.iter().map(|d| &d.url).eq(n.docs.iter().map(|d| &d.url)) {
                return None;
            }
        }
        Some(Edit {
            files: changed,
            old,
            new,
        })
    }

    /// The document shards holding the edited files, rendered again: `None` when one's number
    /// of files differs from the manifest's.
    fn render_edited_shards(
        &mut self,
        files: &[SourceFile],
        edit: &Edit,
        entries: &Entries,
    ) -> Option<Vec<Arc<Vec<Rendered>>>> {
        let mut per_lib: BTreeMap<usize, usize> = BTreeMap::new();
        for f in files {
            *per_lib.entry(f.library).or_default() += 1;
        }
        let key_of = |f: &SourceFile| (f.library, bucket(&f.rel, shard_count(per_lib[&f.library])));
        let keys: BTreeSet<(usize, u32)> = edit.files.iter().map(|&i| key_of(&files[i])).collect();
        let mut rendered = Vec::new();
        for key in keys {
            let members: Vec<Source> = files
                .iter()
                .filter(|f| key_of(f) == key)
                .map(|f| self.sources[&f.path])
                .collect();
            let shard = self.shard_input(key, members);
            let r = shard_artifacts(&self.db, self.settings, shard);
            let library = &self.cfg.libraries[key.0].id;
            if shard_entries(entries, library, &format!("{:03}", key.1)) != r.len() {
                return None;
            }
            rendered.push(r);
        }
        Some(rendered)
    }

    /// Per domain of the edited documents: the meta and the term shards whose postings changed,
    /// patched (`patch_domain`).
    fn patch_domains(
        &self,
        out: &Path,
        prev: &mut Previous,
        entries: &Entries,
        edit: &Edit,
    ) -> Option<BTreeMap<String, DomainPatch>> {
        let (old, new) = (edit.old_docs(), edit.new_docs());
        let build = InPlace {
            out,
            manifest: &prev.manifest,
            entries,
            extras: self.cfg.word_extras(),
        };
        let mut patches = BTreeMap::new();
        for d in domains_of(&old) {
            let p = patch_domain(
                &build,
                &mut prev.shards,
                &d,
                prev.metas.remove(&d),
                *prev.state.domains.get(&d)?,
                &old,
                &new,
            )?;
            patches.insert(d, p);
        }
        Some(patches)
    }

    /// Moves the manifest's per-library counts (docs, chunks, mapped and transliterated IDs)
    /// from the edited files' old documents to their new ones.
    fn count_edit(&self, manifest: &mut Manifest, files: &[SourceFile], edit: &Edit) -> Option<()> {
        use crate::identity::{is_mapped, is_transliterated};
        fn count<'a>(
            ds: impl Iterator<Item = &'a crate::identity::DocId>,
            f: fn(&str) -> bool,
        ) -> usize {
            ds.filter(|id| f(id.as_str())).count()
        }
        for ((&i, o), n) in edit.files.iter().zip(&edit.old).zip(&edit.new) {
            let lib = &self.cfg.libraries[files[i].library].id;
            let e = manifest.libraries.iter_mut().find(|e| &e.id == lib)?;
            e.docs = (e.docs + n.docs.len()).checked_sub(o.len())?;
            e.chunks = (e.chunks + n.docs.iter().map(|d| d.chunks.len()).sum::<usize>())
                .checked_sub(o.iter().map(|d| d.chunks.len()).sum())?;
            let new = || n.docs.iter().map(|d| &d.doc_id);
            let old = || o.iter().map(|d| &d.doc_id);
            e.mapped_ids =
                (e.mapped_ids + count(new(), is_mapped)).checked_sub(count(old(), is_mapped))?;
            e.transliterated_ids = (e.transliterated_ids + count(new(), is_transliterated))
                .checked_sub(count(old(), is_transliterated))?;
        }
        Some(())
    }

    /// Stores the patch's files, then the manifest last, under the output lock; `manifest`'s
    /// entries and corpus version become the patched build's, `run.shards_written` its count.
    fn store_patch(
        &mut self,
        req: &BuildRequest,
        patch: &Patch,
        manifest: &mut Manifest,
        entries: &Entries,
        run: &mut Stats,
        started: Instant,
    ) -> Stored {
        let lock = match store::OutLock::acquire(&req.out) {
            Ok(l) => l,
            Err(e) => return Stored::Failed(e),
        };
        self.known.sealed_at = store::sealed_at(&req.out);
        if self.known.previous.is_empty() {
            store::remove_stale_temp_files(&req.out);
        }
        // What an earlier, failed build left queued (its failures are not this build's).
        let _ = store::finish_writes(&self.known);
        let mut write = store::WriteStats::default();
        let mut stored = Vec::new();
        for r in patch
            .shards
            .iter()
            .map(|r| r.as_slice())
            .chain(patch.domains.values().map(|p| p.rendered.as_slice()))
        {
            match store::store_artifacts(&req.out, r, &self.known) {
                Ok((e, w)) => {
                    stored.extend(e);
                    write.files_written += w.files_written;
                    write.bytes_written += w.bytes_written;
                }
                Err(e) => return Stored::Failed(e),
            }
        }
        if !replace_entries(&mut manifest.artifacts, entries, stored) {
            return Stored::Unpatchable;
        }
        manifest.corpus_version = corpus_version(manifest.fingerprint(), &manifest.artifacts);
        run.shards_written = write.files_written;
        write.files_reused = manifest.artifacts.len() - write.files_written;
        if let Err(e) = store::finish_writes(&self.known) {
            return Stored::Failed(e);
        }
        let manifest_path =
            match store::store_manifest(&req.out, req.env.as_deref(), manifest, &mut write) {
                Ok(p) => p,
                Err(e) => return Stored::Failed(e),
            };
        // `ms` ends at the manifest rename; the caches are written after it.
        let ms = started.elapsed().as_millis();
        drop(lock);
        self.known.rotate();
        Stored::Written {
            write,
            manifest_path,
            ms,
        }
    }

    /// Records the patched build: its state on disk, and in memory with the manifest, the
    /// patched metas and the parsed term shards for the next edit. Returns the manifest.
    fn record_patched(
        &mut self,
        req: &BuildRequest,
        files: &[SourceFile],
        prev: Previous,
        edit: Edit,
        domains: BTreeMap<String, DomainPatch>,
        manifest_path: &Path,
    ) -> Manifest {
        let Previous {
            mut state,
            manifest,
            mut metas,
            shards,
        } = prev;
        state.corpus_version = manifest.corpus_version.clone();
        for (&i, n) in edit.files.iter().zip(&edit.new) {
            state.files[i].hash = self.sources[&files[i].path].hash(&self.db);
            state.files[i].docs = n
                .docs
                .iter()
                .map(|d| d.doc_id.as_str().to_string())
                .collect();
        }
        for (d, p) in domains {
            state.domains.insert(d.clone(), p.estimate);
            metas.insert(d, p.meta);
        }
        save(&req.out, req.env.as_deref(), &state);
        self.last = Some(Last {
            written: file_id(manifest_path),
            manifest: manifest.clone(),
            state,
            metas,
            shards,
        });
        manifest
    }

    /// The report of a build patched in place.
    fn resumed_report(
        &self,
        stats: &BuildStats,
        mut run: Stats,
        manifest: Manifest,
        manifest_path: PathBuf,
        write: store::WriteStats,
        ms: u128,
    ) -> BuildReport {
        let mut stats = stats.clone();
        stats.docs = manifest.libraries.iter().map(|l| l.docs).sum();
        stats.chunks = manifest.libraries.iter().map(|l| l.chunks).sum();
        stats.write = write;
        stats.ms = ms;
        run.set_counted(self.db.counters.take());
        run.bytes_written = stats.write.bytes_written;
        run.ms = stats.ms;
        run.corpus_version = Some(manifest.corpus_version.clone());
        run.resumed = true;
        BuildReport {
            manifest: Some(manifest),
            manifest_path: Some(manifest_path),
            problems: Problems::default(),
            stats,
            run,
        }
    }
}

/// Whether the edited files' new doc IDs clash neither with each other nor with the IDs of the
/// files not edited.
fn doc_ids_stay_unique(state: &State, edit: &Edit) -> bool {
    let edited: HashSet<usize> = edit.files.iter().copied().collect();
    let mut ids: rustc_hash::FxHashSet<&str> = state
        .files
        .iter()
        .enumerate()
        .filter(|(i, _)| !edited.contains(i))
        .flat_map(|(_, s)| s.docs.iter().map(String::as_str))
        .collect();
    edit.new_docs()
        .iter()
        .all(|d| ids.insert(d.doc_id.as_str()))
}

/// The failed build's report for a write that failed while patching.
fn write_failed(
    req: &BuildRequest,
    e: std::io::Error,
    stats: &BuildStats,
    run: &Stats,
    started: Instant,
) -> BuildReport {
    let mut problems = Problems::default();
    problems.push(write_failure(&req.out, e));
    super::finish_failed(problems, stats.clone(), run.clone(), started)
}
