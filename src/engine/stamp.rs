//! The build stamp: what the last successful build of an output directory read, as one hash
//! (the compiler binary, the settings, the environment, and every source's library, path, format
//! and bytes), beside the corpus version it produced, in `out/cache/stamp[.env].json`.
//!
//! A fresh process whose inputs hash to the stamp of the manifest in place has nothing to do: the
//! early cutoff of the whole build, persisted. Only builds without errors are stamped, with the
//! warnings their sources gave: a no-op shows the same warnings as the build it stands for
//! without reading those sources again. Like every cache, it never shapes output: deleting it
//! only costs time.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::artifacts::manifest::Manifest;
use crate::artifacts::store;

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct StampFile {
    stamp: String,
    corpus_version: String,
    /// The warnings of the stamped build's sources (not of the listing, which every build does).
    #[serde(default)]
    warnings: Vec<crate::diag::StoredWarning>,
}

/// Its file under `out/cache/` (`store::out_path`: never outside `out/`).
fn path(out: &Path, env: Option<&str>) -> std::io::Result<PathBuf> {
    let name = match env {
        Some(e) => format!("stamp.{e}.json"),
        None => "stamp.json".to_string(),
    };
    crate::artifacts::store::out_path(out, &format!("cache/{name}"))
}

/// Hashes the inputs of a build: `settings` (everything of the config and compiler that shapes
/// output, as JSON) and each source as (library, path, format, blake3 of its bytes), in order.
pub(super) fn stamp<'a>(
    settings: &serde_json::Value,
    sources: impl Iterator<Item = (&'a str, &'a str, u8, blake3::Hash)>,
) -> String {
    let mut h = blake3::Hasher::new();
    h.update(&serde_json::to_vec(settings).expect("serializes"));
    for (lib, rel, format, bytes) in sources {
        h.update(b"\n");
        h.update(lib.as_bytes());
        h.update(b"\0");
        h.update(rel.as_bytes());
        h.update(&[0, format, 0]);
        h.update(bytes.as_bytes());
    }
    h.finalize().to_hex().to_string()
}

/// The manifest in place, if it was produced from inputs hashing to `stamp` and every file it
/// names is still there with its size, with the warnings of the build that produced it.
pub(super) fn reusable(
    out: &Path,
    env: Option<&str>,
    stamp: &str,
) -> Option<(Manifest, Vec<crate::diag::Problem>)> {
    let bytes = crate::fsio::read_capped(&path(out, env).ok()?, crate::fsio::cap::STAMP).ok()?;
    let saved: StampFile = serde_json::from_slice(&bytes).ok()?;
    if saved.stamp != stamp {
        return None;
    }
    let manifest = store::read_manifest(out, env).ok()?;
    if manifest.corpus_version != saved.corpus_version {
        return None;
    }
    // Every artifact in place, of its size, and unchanged since a build sealed its manifest: older
    // than the seal, or of the seal's very time and still of its content (a file changed in place
    // since is hashed by the store, and rewritten when damaged).
    let sealed = store::sealed_at(out)?;
    let complete = manifest.artifacts.iter().all(|a| {
        let path = out.join(&a.path);
        store::is_safe_artifact_path(&a.path)
            && std::fs::metadata(&path).is_ok_and(|m| {
                m.is_file()
                    && m.len() == a.bytes
                    && (store::sealed_before(&m, sealed)
                        || m.modified().is_ok_and(|t| t == sealed)
                            && store::same_content(&path, &a.blake3))
            })
    });
    let warnings = saved
        .warnings
        .into_iter()
        .map(crate::diag::Problem::from_stored)
        .collect();
    complete.then_some((manifest, warnings))
}

/// Records the stamp of a build that just wrote `corpus_version`, with the warnings its sources
/// gave (best effort).
pub(super) fn record(
    out: &Path,
    env: Option<&str>,
    stamp: &str,
    corpus_version: &str,
    warnings: &[crate::diag::Problem],
) {
    let file = StampFile {
        stamp: stamp.to_string(),
        corpus_version: corpus_version.to_string(),
        warnings: warnings.iter().filter_map(|p| p.to_stored()).collect(),
    };
    if let Ok(path) = path(out, env) {
        let _ = store::write_atomic(&path, &serde_json::to_vec(&file).expect("serializes"));
    }
}
