//! The compile cache: what `db::compiled` produced for a file, on disk under `out/cache/compiled/`,
//! keyed by blake3 of everything that shapes it (pipeline and rules versions, the settings the
//! compile reads, the library, the path and the bytes). A fresh process then re-extracts only
//! files whose key is new. It never changes output: deleting it only costs time. Files with
//! diagnostics are not cached (they are recompiled, so their warnings are shown again).
//!
//! Entries live in 256 pack files (`pack-XX.mp`, by the first byte of blake3(library, path)),
//! one entry per source path: creating thousands of small files costs more than compiling them.
//! A pack is read on first use and rewritten (temp + rename) by `flush` when an entry changed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// One pack: source slot (blake3 of library and path) → (compile key, msgpack of the documents).
type Pack = BTreeMap<String, (String, serde_bytes::ByteBuf)>;

use crate::artifacts::BuiltDoc;
use crate::config::{Config, Format, Library};

pub(crate) struct CompileCache {
    /// The output directory whose `cache/compiled` holds the packs.
    out: PathBuf,
    dir: PathBuf,
    /// blake3 of the compile-relevant settings, computed once per config.
    settings_key: String,
    /// Each library's shape (`Library::shape`, serialized), part of every key of its files.
    shapes: std::collections::HashMap<String, Vec<u8>>,
    /// Packs read so far (`None`: not read yet, or released after a flush).
    packs: Vec<Mutex<Option<Pack>>>,
    /// Entries compiled since the last flush.
    pending: Mutex<Vec<(Slot, String, std::sync::Arc<super::Compiled>)>>,
}

impl CompileCache {
    pub(crate) fn new(out: &Path, cfg: &Config) -> Self {
        let shape = serde_json::json!({
            "format": 3,
            "pipeline": crate::compile::PIPELINE_VERSION,
            "rules": crate::normalize::RULES_VERSION,
            "chunking": cfg.chunking,
            "max_chunks": cfg.max_chunks,
            "normalize": cfg.normalize,
            "aliases": cfg.aliases.aliases,
            "article_stems": cfg.article_stems,
            "embedding": crate::embed::describe(&cfg.embedding),
            "id_width": cfg.id_width,
            "strict_ids": cfg.strict_ids,
            "askzico": env!("CARGO_PKG_VERSION"),
            // Any change to the compiler itself invalidates the cache, not only version bumps.
            "binary": binary_id(),
        });
        let settings_key = blake3::hash(&serde_json::to_vec(&shape).expect("serializes"))
            .to_hex()
            .to_string();
        let packs = (0..256).map(|_| Mutex::new(None)).collect();
        let shapes = cfg
            .libraries
            .iter()
            .map(|l| (l.id.clone(), shape_bytes(l)))
            .collect();
        CompileCache {
            out: out.to_path_buf(),
            dir: out.join("cache").join("compiled"),
            settings_key,
            shapes,
            packs,
            pending: Mutex::default(),
        }
    }
}

impl CompileCache {
    /// blake3 of the compiler binary and every setting a compile reads.
    pub(crate) fn settings_key(&self) -> &str {
        &self.settings_key
    }
}

/// The identity of the running executable: its path, size and modification time (any rebuild
/// or reinstall changes them), computed once per process. Hashing the whole binary (~74 MB with
/// debug info) cost ~100 ms per process, most of a one-file edit's build.
fn binary_id() -> String {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        let id = std::env::current_exe().and_then(|p| {
            let m = std::fs::metadata(&p)?;
            let modified = m
                .modified()?
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            Ok(format!("{}\0{}\0{modified}", p.display(), m.len()))
        });
        id.map(|s| blake3::hash(s.as_bytes()).to_hex().to_string())
            .unwrap_or_else(|_| "unknown".into())
    })
    .clone()
}

fn shape_bytes(lib: &Library) -> Vec<u8> {
    serde_json::to_vec(&lib.shape()).expect("serializes")
}

/// Where a source's entry lives: its slot (blake3 of library id and path) and pack number.
pub(crate) struct Slot {
    id: String,
    pack: usize,
}

impl CompileCache {
    pub(crate) fn slot(lib: &Library, rel: &str) -> Slot {
        let h = blake3::hash(format!("{}\0{rel}", lib.id).as_bytes());
        Slot {
            id: h.to_hex().to_string(),
            pack: h.as_bytes()[0] as usize,
        }
    }

    /// The compile key of a source whose bytes hash (blake3) to `content`.
    pub(crate) fn key(
        &self,
        lib: &Library,
        rel: &str,
        format: Format,
        content: &[u8; 32],
    ) -> String {
        let _t = crate::timings::start(crate::timings::Stage::Hash);
        let mut h = blake3::Hasher::new();
        h.update(self.settings_key.as_bytes());
        match self.shapes.get(&lib.id) {
            Some(shape) => h.update(shape),
            None => h.update(&shape_bytes(lib)),
        };
        h.update(rel.as_bytes());
        h.update(&[0, format as u8, 0]);
        h.update(content);
        h.finalize().to_hex().to_string()
    }

    fn pack_path(&self, n: usize) -> PathBuf {
        self.dir.join(format!("pack-{n:02x}.mp"))
    }

    /// A pack, read from disk on first use; anything unreadable, damaged or over the cap is an
    /// empty pack (replaced by the next flush that writes it).
    fn pack(&self, n: usize) -> Option<MutexGuard<'_, Option<Pack>>> {
        let mut guard = self.packs[n].lock().ok()?;
        if guard.is_none() {
            // A pack flushed earlier may still be queued for the writer thread.
            crate::artifacts::writer::caches_written();
            let read = crate::fsio::read_capped(&self.pack_path(n), crate::fsio::cap::CORPUS_STATE)
                .ok()
                .and_then(|b| rmp_serde::from_slice::<Pack>(&b).ok());
            *guard = Some(read.unwrap_or_default());
        }
        Some(guard)
    }

    /// The cached documents of a source whose compile key is `key`; anything else is a miss.
    pub(crate) fn get(&self, slot: &Slot, key: &str) -> Option<Vec<BuiltDoc>> {
        let _t = crate::timings::start(crate::timings::Stage::Cache);
        let pack = self.pack(slot.pack)?;
        let (k, bytes) = pack.as_ref()?.get(&slot.id)?;
        if k != key {
            return None;
        }
        rmp_serde::from_slice(bytes).ok()
    }

    /// Records a source's new entry; `flush` serializes it into its pack (the documents are
    /// shared with the database meanwhile, not copied).
    pub(crate) fn put(&self, slot: Slot, key: String, compiled: std::sync::Arc<super::Compiled>) {
        if let Ok(mut p) = self.pending.lock() {
            p.push((slot, key, compiled));
        }
    }

    /// Best effort: writes the packs that changed since the last flush (a cache that cannot be
    /// written only costs time next run), then releases every pack read so far: they are read
    /// again from disk when needed. The packs are rendered and written by the writer thread
    /// (`artifacts::writer`) while the build renders its artifacts; reading a pack back waits
    /// for them.
    pub(crate) fn flush(&self) {
        let pending = self
            .pending
            .lock()
            .map(|mut p| std::mem::take(&mut *p))
            .unwrap_or_default();
        let mut by_pack: BTreeMap<usize, Vec<(Slot, String, std::sync::Arc<super::Compiled>)>> =
            BTreeMap::new();
        for entry in pending {
            by_pack.entry(entry.0.pack).or_default().push(entry);
        }
        for (n, entries) in by_pack {
            let Some(mut guard) = self.pack(n) else {
                continue;
            };
            let Some(pack) = guard.take() else { continue };
            drop(guard); // released: read again from disk when needed
            let render = move || {
                crate::timings::timed(crate::timings::Stage::Cache, || render_pack(pack, entries))
            };
            // Best effort, and never outside `out/` (`out_path`).
            let rel = format!("cache/compiled/pack-{n:02x}.mp");
            if let Ok(path) = crate::artifacts::store::out_path(&self.out, &rel) {
                crate::artifacts::store::write_atomic_rendered(path, Box::new(render));
            }
        }
        for p in &self.packs {
            if let Ok(mut p) = p.lock() {
                *p = None;
            }
        }
    }
}

/// A pack's bytes, as `rmp_serde` writes a `Pack` (a map by slot, in slot order), with the new
/// entries' documents serialized straight into it: each entry's bytes are a `bin` whose length
/// is filled in after (a new entry is not serialized into a buffer of its own and copied).
fn render_pack(
    mut old: Pack,
    entries: Vec<(Slot, String, std::sync::Arc<super::Compiled>)>,
) -> Option<Vec<u8>> {
    /// An entry's documents: bytes kept from disk, or documents to serialize.
    enum Docs<'a> {
        Kept(&'a [u8]),
        New(&'a [super::BuiltDoc]),
    }
    let mut fresh: BTreeMap<String, (String, std::sync::Arc<super::Compiled>)> = BTreeMap::new();
    for (slot, key, compiled) in entries {
        old.remove(&slot.id);
        fresh.insert(slot.id, (key, compiled));
    }
    let mut all: Vec<(&str, &str, Docs)> = old
        .iter()
        .map(|(id, (k, b))| (id.as_str(), k.as_str(), Docs::Kept(b)))
        .collect();
    all.extend(
        fresh
            .iter()
            .map(|(id, (k, c))| (id.as_str(), k.as_str(), Docs::New(&c.docs))),
    );
    all.sort_unstable_by(|a, b| a.0.cmp(b.0));
    // Room for it all (an over-estimate costs only address space): per chunk its text about
    // three times (text, search text, tokens) and its vector (5 bytes per f32).
    let chunk_size =
        |c: &crate::artifacts::BuiltChunk| 3 * c.text.as_str().len() + 5 * c.vector.len() + 128;
    let size: usize = old.values().map(|(_, b)| b.len() + 80).sum::<usize>()
        + fresh
            .values()
            .map(|(_, c)| {
                c.docs
                    .iter()
                    .map(|d| d.chunks.iter().map(chunk_size).sum::<usize>() + 256)
                    .sum::<usize>()
                    + 80
            })
            .sum::<usize>();
    let mut out = Vec::with_capacity(size);
    out.push(0xdf); // map 32
    out.extend_from_slice(&u32::try_from(all.len()).ok()?.to_be_bytes());
    for (id, key, docs) in all {
        rmp_serde::encode::write(&mut out, id).ok()?;
        out.push(0x92); // [key, bytes]
        rmp_serde::encode::write(&mut out, key).ok()?;
        out.push(0xc6); // bin 32, its length after
        let at = out.len();
        out.extend_from_slice(&[0; 4]);
        match docs {
            Docs::Kept(b) => out.extend_from_slice(b),
            Docs::New(d) => rmp_serde::encode::write(&mut out, d).ok()?,
        }
        let len = u32::try_from(out.len() - at - 4).ok()?;
        out[at..at + 4].copy_from_slice(&len.to_be_bytes());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn docs_of(md: &str, rel: &str) -> Arc<crate::db::Compiled> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("docs")).unwrap();
        let toml = "[corpus]\nname = \"t\"\n\n[[library]]\nid = \"lib\"\nroot = \"docs\"\n";
        let cfg = Config::parse(
            toml,
            "corpus.toml",
            dir.path(),
            &dir.path().join("corpus.toml"),
        )
        .unwrap();
        let hash = crate::embed::inline_hash(&cfg.embedding);
        let (docs, problems) = crate::compile::compile_file(
            &cfg.compile_settings(),
            &cfg.libraries[0].compile_settings(),
            rel,
            md.as_bytes(),
            Format::Markdown,
            &crate::extract::Includes::default(),
            hash.as_ref(),
        );
        assert!(problems.is_empty() && !docs.is_empty(), "{problems:?}");
        Arc::new(crate::db::Compiled { docs, problems })
    }

    fn slot(id: &str) -> Slot {
        Slot {
            id: id.to_string(),
            pack: 0,
        }
    }

    /// The pack written in one pass reads back as the `Pack` serde writes: entries kept from
    /// disk, replaced and added, in slot order, each entry's bytes its documents' msgpack.
    #[test]
    fn a_rendered_pack_is_the_pack_serde_writes() {
        let a = docs_of("# النيل\n\nنهر طويل في أفريقيا.\n", "a.md");
        let b = docs_of(
            "# القاهرة\n\nعاصمة مصر.\n\n## التاريخ\n\nمدينة قديمة.\n",
            "b.md",
        );
        let c = docs_of("# الإسكندرية\n\nمدينة على البحر.\n", "c.md");
        let bin = |c: &crate::db::Compiled| {
            serde_bytes::ByteBuf::from(rmp_serde::to_vec(&c.docs).unwrap())
        };
        let mut old = Pack::new();
        old.insert(
            "bb".into(),
            (
                "old-key-b".into(),
                serde_bytes::ByteBuf::from(b"stale".to_vec()),
            ),
        );
        old.insert("dd".into(), ("key-d".into(), bin(&c)));
        let entries = vec![
            (slot("bb"), "key-b".to_string(), b.clone()),
            (slot("aa"), "key-a".to_string(), a.clone()),
        ];

        let mut expected = old.clone();
        expected.insert("aa".into(), ("key-a".into(), bin(&a)));
        expected.insert("bb".into(), ("key-b".into(), bin(&b)));
        let rendered = render_pack(old, entries).unwrap();
        assert_eq!(rmp_serde::from_slice::<Pack>(&rendered).unwrap(), expected);
        let docs: Vec<BuiltDoc> = rmp_serde::from_slice(&expected["aa"].1).unwrap();
        assert_eq!(docs, a.docs);
        assert!(
            render_pack(Pack::new(), Vec::new())
                .is_some_and(|b| rmp_serde::from_slice::<Pack>(&b).unwrap().is_empty())
        );
    }
}
