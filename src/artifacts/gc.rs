//! `askzico gc --keep N`: removes the content-addressed files under `out/` that no kept manifest
//! names. Kept: every current manifest (`manifest.json`, `manifest.<env>.json`) and the `N` newest
//! manifests under `versions/` (by when they were written). Caches (`out/cache/`) are never
//! touched. A build holds the output lock (`store::OutLock`) from its first artifact write to its
//! manifest rename, and gc holds it throughout, so gc never removes a file a build is about to name.
//!
//! gc deletes only what it can prove is its own: it runs only in a directory holding askzico's
//! marker (`paths::claim` writes it), and removes only files in askzico's layout
//! (`chunks|lookup|lexical|vectors/<name>/<stem>.<16 hex>.<ext>`, `versions/<version>.json`)
//! that a manifest of the directory names, or whose bytes hash to the name they carry (what a
//! killed build left). Anything else is left in place and listed in the report.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::manifest::Manifest;
use super::store::{self, OutLock};
use crate::diag::Problem;

/// The artifact directories gc sweeps (everything a manifest can name).
const SWEPT: [&str; 4] = ["chunks", "lookup", "lexical", "vectors"];

#[derive(Debug, Default, serde::Serialize)]
pub(crate) struct GcReport {
    pub versions_kept: Vec<String>,
    pub versions_removed: usize,
    pub files_removed: usize,
    pub bytes_removed: u64,
    /// Files no kept manifest names that gc cannot prove askzico wrote: left in place.
    pub left_in_place: Vec<String>,
}

/// Whether `rel` is an artifact path of askzico's layout: `<kind dir>/<name>/<stem>.<16 hex>.<ext>`.
fn in_layout(rel: &str) -> bool {
    let word = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    let parts: Vec<&str> = rel.split('/').collect();
    let [dir, name, file] = parts[..] else {
        return false;
    };
    let pieces: Vec<&str> = file.split('.').collect();
    let [stem, hash, ext] = pieces[..] else {
        return false;
    };
    SWEPT.contains(&dir)
        && word(name)
        && word(stem)
        && hash.len() == 16
        && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        && matches!(ext, "jsonl" | "json" | "bin")
}

/// Whether the file's bytes hash to the 16 hex digits its name carries (askzico's own naming).
fn hash_matches_name(path: &Path, rel: &str) -> bool {
    let Some(hash) = rel.rsplit('.').nth(1) else {
        return false;
    };
    std::fs::read(path).is_ok_and(|b| blake3::hash(&b).to_hex().as_str().starts_with(hash))
}

/// Runs gc on `out`; with `dry_run` nothing is removed and the report says what would be.
pub(crate) fn gc(out: &Path, keep: usize, dry_run: bool) -> Result<GcReport, Problem> {
    // Before anything, even the lock file: only a directory askzico marked as its own.
    if !super::marker::is_marked(out) {
        return Err(fail(out, format!(
            "{} is not an askzico output directory (it holds no `{}` marker): gc deletes only in a directory askzico built",
            out.display(),
            super::marker::MARKER
        ))
        .help("check --out or `[corpus] out`; an output directory built by an earlier askzico gets the marker on its next `askzico build`"));
    }
    let _lock = OutLock::acquire(out).map_err(|e| match store::LockNotAFile::of(&e) {
        Some(lock) => lock.problem(),
        None => fail(out, format!("cannot lock the output directory: {e}")),
    })?;
    let mut sweep = Sweep {
        out,
        dry_run,
        kept: current_manifests(out)?,
        listed: HashSet::new(),
        report: GcReport::default(),
    };
    sweep.versions(keep)?;
    let named: HashSet<String> = sweep
        .kept
        .iter()
        .flat_map(|m| m.artifacts.iter())
        .map(|a| a.path.clone())
        .collect();
    sweep.listed.extend(named.iter().cloned());
    for dir in SWEPT {
        sweep.artifacts(dir, &named)?;
    }
    sweep.report.left_in_place.sort();
    Ok(sweep.report)
}

/// A gc problem about the output directory.
fn fail(out: &Path, what: String) -> Problem {
    Problem::error("gc", what).in_file(out.display().to_string())
}

/// The current manifest of every environment (`manifest.json`, `manifest.<env>.json`).
fn current_manifests(out: &Path) -> Result<Vec<Manifest>, Problem> {
    let mut kept = Vec::new();
    for entry in std::fs::read_dir(out)
        .map_err(|e| fail(out, format!("cannot read: {e}")))?
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "manifest.json" || (name.starts_with("manifest.") && name.ends_with(".json")) {
            kept.push(store::read_manifest_file(&entry.path())?);
        }
    }
    Ok(kept)
}

/// A manifest under `versions/`.
struct VersionFile {
    modified: std::time::SystemTime,
    version: String,
    path: PathBuf,
}

/// The manifests under `versions/`, newest first (then by version).
fn version_files(out: &Path) -> Vec<VersionFile> {
    let mut versions: Vec<VersionFile> = std::fs::read_dir(out.join("versions"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let version = name.strip_suffix(".json")?.to_string();
            let modified = e.metadata().ok()?.modified().ok()?;
            Some(VersionFile {
                modified,
                version,
                path: e.path(),
            })
        })
        .collect();
    versions.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| a.version.cmp(&b.version))
    });
    versions
}

/// One gc run over `out`: the manifests it keeps, every artifact path a manifest of the
/// directory names (kept or removed), and the report.
struct Sweep<'a> {
    out: &'a Path,
    dry_run: bool,
    kept: Vec<Manifest>,
    listed: HashSet<String>,
    report: GcReport,
}

impl Sweep<'_> {
    /// Keeps the current versions and the `keep` newest others; removes every other version
    /// manifest that is askzico's manifest of that very version, remembering what it named.
    fn versions(&mut self, keep: usize) -> Result<(), Problem> {
        let current: HashSet<String> = self.kept.iter().map(|m| m.corpus_version.clone()).collect();
        let mut newest = 0;
        for VersionFile { version, path, .. } in &version_files(self.out) {
            if current.contains(version) || newest < keep {
                if !current.contains(version) {
                    newest += 1;
                    self.kept.push(store::read_manifest_file(path)?);
                }
                self.report.versions_kept.push(version.clone());
                continue;
            }
            // Removed only when it is askzico's manifest of that very version.
            let rel = format!("versions/{version}.json");
            let own = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
                && store::read_manifest_file(path).is_ok_and(|m| {
                    let own = m.corpus_version == *version;
                    if own {
                        self.listed.extend(m.artifacts.into_iter().map(|a| a.path));
                    }
                    own
                });
            if !own {
                self.report.left_in_place.push(rel);
                continue;
            }
            self.report.versions_removed += 1;
            self.remove(&rel)?;
        }
        Ok(())
    }

    /// Removes the files under `dir` no kept manifest names (`named`) that are askzico's: in its
    /// layout, and named by a manifest of the directory or hashing to their name.
    fn artifacts(&mut self, dir: &str, named: &HashSet<String>) -> Result<(), Problem> {
        let out = self.out;
        // A link in askzico's place is not askzico's: never followed.
        if !std::fs::symlink_metadata(out.join(dir)).is_ok_and(|m| m.is_dir()) {
            if std::fs::symlink_metadata(out.join(dir)).is_ok() {
                self.report.left_in_place.push(dir.to_string());
            }
            return Ok(());
        }
        for entry in walkdir::WalkDir::new(out.join(dir)).into_iter().flatten() {
            if entry.file_type().is_dir() {
                continue;
            }
            let Some(rel) = entry
                .path()
                .strip_prefix(out)
                .ok()
                .and_then(Path::to_str)
                .map(str::to_string)
            else {
                continue;
            };
            if named.contains(&rel) {
                continue;
            }
            let own = entry.file_type().is_file()
                && in_layout(&rel)
                && (self.listed.contains(&rel) || hash_matches_name(entry.path(), &rel));
            if !own {
                self.report.left_in_place.push(rel);
                continue;
            }
            self.report.files_removed += 1;
            self.report.bytes_removed += entry.metadata().map(|m| m.len()).unwrap_or(0);
            self.remove(&rel)?;
        }
        if !self.dry_run {
            remove_empty_dirs(&out.join(dir));
        }
        Ok(())
    }

    /// Removes the file at `rel` under the output directory (nothing on a dry run).
    fn remove(&self, rel: &str) -> Result<(), Problem> {
        if self.dry_run {
            return Ok(());
        }
        let path = store::out_path(self.out, rel).map_err(|e| fail(self.out, e.to_string()))?;
        std::fs::remove_file(&path)
            .map_err(|e| fail(self.out, format!("cannot remove {}: {e}", path.display())))
    }
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

#[cfg(test)]
mod tests {
    use super::in_layout;

    #[test]
    fn the_layout_is_askzicos_artifact_names_only() {
        for good in [
            "chunks/docs/000.0123456789abcdef.jsonl",
            "lookup/seneksar/012.0123456789abcdef.jsonl",
            "vectors/docs/000.0123456789abcdef.bin",
            "lexical/general/0003.0123456789abcdef.json",
            "lexical/general/meta.0123456789abcdef.json",
        ] {
            assert!(in_layout(good), "{good}");
        }
        for bad in [
            "chunks/docs/notes.md",
            "chunks/docs/000.0123456789ABCDEF.jsonl",
            "chunks/docs/000.0123456789abcde.jsonl",
            "chunks/000.0123456789abcdef.jsonl",
            "chunks/a/b/000.0123456789abcdef.jsonl",
            "src/docs/000.0123456789abcdef.jsonl",
            "chunks/docs/000.0123456789abcdef.md",
            "chunks/../000.0123456789abcdef.jsonl",
        ] {
            assert!(!in_layout(bad), "{bad}");
        }
    }
}
