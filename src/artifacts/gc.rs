//! `askzico gc --keep N`: removes the content-addressed files under `out/` that no kept manifest
//! names. Kept: every current manifest (`manifest.json`, `manifest.<env>.json`) and the `N` newest
//! manifests under `versions/` (by when they were written). Caches (`out/cache/`) are never
//! touched. A build holds the output lock (`store::OutLock`) from its first artifact write to its
//! manifest rename, and gc holds it throughout, so gc never removes a file a build is about to name.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::manifest::Manifest;
use super::store::{self, OutLock};
use crate::diag::Problem;

/// The artifact directories gc sweeps (everything a manifest can name).
const SWEPT: [&str; 4] = ["chunks", "lookup", "lexical", "vectors"];

#[derive(Debug, Default, serde::Serialize)]
pub struct GcReport {
    pub versions_kept: Vec<String>,
    pub versions_removed: usize,
    pub files_removed: usize,
    pub bytes_removed: u64,
}

/// Runs gc on `out`; with `dry_run` nothing is removed and the report says what would be.
pub fn gc(out: &Path, keep: usize, dry_run: bool) -> Result<GcReport, Problem> {
    let fail = |what: String| Problem::error("gc", what).in_file(out.display().to_string());
    let _lock = OutLock::acquire(out)
        .map_err(|e| fail(format!("cannot lock the output directory: {e}")))?;
    let mut kept: Vec<Manifest> = Vec::new();
    // Current manifests of every environment.
    for entry in std::fs::read_dir(out)
        .map_err(|e| fail(format!("cannot read: {e}")))?
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "manifest.json" || (name.starts_with("manifest.") && name.ends_with(".json")) {
            let m = store::read_manifest_file(&entry.path())?;
            kept.push(m);
        }
    }
    // The N newest version manifests.
    let mut versions: Vec<(std::time::SystemTime, String, PathBuf)> =
        std::fs::read_dir(out.join("versions"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let version = name.strip_suffix(".json")?.to_string();
                let modified = e.metadata().ok()?.modified().ok()?;
                Some((modified, version, e.path()))
            })
            .collect();
    versions.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let current: HashSet<String> = kept.iter().map(|m| m.corpus_version.clone()).collect();
    let mut report = GcReport::default();
    let mut newest = 0;
    for (_, version, path) in &versions {
        if current.contains(version) || newest < keep {
            if !current.contains(version) {
                newest += 1;
                kept.push(store::read_manifest_file(path)?);
            }
            report.versions_kept.push(version.clone());
        } else {
            report.versions_removed += 1;
            if !dry_run {
                std::fs::remove_file(path)
                    .map_err(|e| fail(format!("cannot remove {}: {e}", path.display())))?;
            }
        }
    }
    let named: HashSet<PathBuf> = kept
        .iter()
        .flat_map(|m| m.artifacts.iter())
        .filter(|a| store::is_safe_artifact_path(&a.path))
        .map(|a| out.join(&a.path))
        .collect();
    for dir in SWEPT {
        for entry in walkdir::WalkDir::new(out.join(dir)).into_iter().flatten() {
            if !entry.file_type().is_file() || named.contains(entry.path()) {
                continue;
            }
            report.files_removed += 1;
            report.bytes_removed += entry.metadata().map(|m| m.len()).unwrap_or(0);
            if !dry_run {
                std::fs::remove_file(entry.path())
                    .map_err(|e| fail(format!("cannot remove {}: {e}", entry.path().display())))?;
            }
        }
        if !dry_run {
            remove_empty_dirs(&out.join(dir));
        }
    }
    Ok(report)
}

fn remove_empty_dirs(dir: &Path) {
    for entry in walkdir::WalkDir::new(dir)
        .contents_first(true)
        .min_depth(1)
        .into_iter()
        .flatten()
    {
        if entry.file_type().is_dir() {
            let _ = std::fs::remove_dir(entry.path()); // fails (and stays) when not empty
        }
    }
}
