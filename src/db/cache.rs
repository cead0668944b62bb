//! The compile cache: what `db::compiled` produced for a file, on disk under `out/cache/compiled/`,
//! keyed by blake3 of everything that shapes it (pipeline and rules versions, the settings the
//! compile reads, the library, the path and the bytes). A fresh process then re-extracts only
//! files whose key is new. It never changes output: deleting it only costs time. Files with
//! diagnostics are not cached (they are recompiled, so their warnings are shown again).

use std::path::{Path, PathBuf};

use crate::artifacts::BuiltDoc;
use crate::config::{Config, Format, Library};

pub struct CompileCache {
    dir: PathBuf,
    /// blake3 of the compile-relevant settings, computed once per config.
    settings_key: String,
}

impl CompileCache {
    pub fn new(out: &Path, cfg: &Config) -> Self {
        let shape = serde_json::json!({
            "format": 1,
            "pipeline": crate::build::PIPELINE_VERSION,
            "rules": crate::normalize::RULES_VERSION,
            "chunking": cfg.chunking,
            "max_chunks": cfg.max_chunks,
            "normalize": cfg.normalize,
            "aliases": cfg.aliases.aliases,
            "article_stems": cfg.article_stems,
            "embedding": crate::embed::describe(&cfg.embedding),
            "id_width": cfg.id_width,
            "askzico": env!("CARGO_PKG_VERSION"),
            // Any change to the compiler itself invalidates the cache, not only version bumps.
            "binary": binary_id(),
        });
        let settings_key = blake3::hash(&serde_json::to_vec(&shape).expect("serializes")).to_hex().to_string();
        CompileCache { dir: out.join("cache").join("compiled"), settings_key }
    }

}

/// blake3 of the running executable, computed once per process.
fn binary_id() -> String {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        std::env::current_exe()
            .and_then(std::fs::read)
            .map(|b| blake3::hash(&b).to_hex().to_string())
            .unwrap_or_else(|_| "unknown".into())
    })
    .clone()
}

impl CompileCache {
    pub fn key(&self, lib: &Library, rel: &str, format: Format, bytes: &[u8]) -> String {
        let mut h = blake3::Hasher::new();
        h.update(self.settings_key.as_bytes());
        h.update(serde_json::to_vec(&lib.shape()).expect("serializes").as_slice());
        h.update(rel.as_bytes());
        h.update(&[0, format as u8, 0]);
        h.update(bytes);
        h.finalize().to_hex().to_string()
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.mp"))
    }

    /// The cached documents of a key; anything unreadable is a miss.
    pub fn get(&self, key: &str) -> Option<Vec<BuiltDoc>> {
        let bytes = std::fs::read(self.path(key)).ok()?;
        rmp_serde::from_slice(&bytes).ok()
    }

    /// Best effort: a cache that cannot be written only costs time next run.
    pub fn put(&self, key: &str, docs: &[BuiltDoc]) {
        if let Ok(bytes) = rmp_serde::to_vec(docs) {
            let _ = crate::artifacts::store::write_atomic(&self.path(key), &bytes);
        }
    }
}
