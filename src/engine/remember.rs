//! What a build leaves for the next: the build stamp of what the database holds (also compared
//! before a build, to reuse the build in place), the stat cache and the resume state. Apart from
//! the phases that make the output: none of this shapes it, it only spares a later build work.

use std::sync::Arc;

use super::request::BuildRequest;
use super::{Engine, resume, stamp, statcache};
use crate::artifacts::manifest::Manifest;
use crate::compile::settings_values;
use crate::config::Config;
use crate::db::{Source, shard_ids};

/// The build stamp of what the database holds (`stamp`), and the hash of its settings part
/// (recorded in the resume state).
pub(super) struct StampKeys {
    pub(super) stamp: String,
    pub(super) settings_hash: String,
}

impl Engine {
    /// After a build without errors: its stamp (the next no-op) with the warnings its sources
    /// gave, and the stat cache. Returns the hash of the settings part of the stamp.
    pub(super) fn remember(
        &mut self,
        libs: &[&crate::config::Library],
        req: &BuildRequest,
        files: &[crate::discover::SourceFile],
        taken_at: i128,
        manifest: &Manifest,
        warnings: &[crate::diag::Problem],
    ) -> String {
        let cfg = self.cfg.clone();
        let keys = self.stamp(&cfg, libs, req, files);
        stamp::record(
            &req.out,
            req.env.as_deref(),
            &keys.stamp,
            &manifest.corpus_version,
            warnings,
        );
        self.save_stats(req, files, taken_at);
        keys.settings_hash
    }

    /// Records what this build read and produced, for `resume` (best effort).
    pub(super) fn record_state(
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
    pub(super) fn stamp(
        &self,
        cfg: &Config,
        libs: &[&crate::config::Library],
        req: &BuildRequest,
        files: &[crate::discover::SourceFile],
    ) -> StampKeys {
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
            "settings": settings_values(&cfg.compile_settings(), libs.iter().map(|l| l.shape())),
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
        StampKeys {
            stamp: stamp::stamp(
                &settings,
                hashes
                    .iter()
                    .map(|(l, rel, fmt, h)| (cfg.libraries[*l].id.as_str(), *rel, *fmt, *h)),
            ),
            settings_hash,
        }
    }

    /// Records the stat cache for `files`: each one's stat when read or found unchanged, and
    /// its hash (see `statcache`).
    pub(super) fn save_stats(
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
}
