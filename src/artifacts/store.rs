//! store: the only writer under `out/`. Artifact files are content-addressed and written by temp
//! file + rename; an existing file with the right hash is reused. The manifest is written last,
//! also by rename, so a killed build leaves the previous manifest and every file it names intact.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::Rendered;
use super::manifest::{ArtifactEntry, Manifest, manifest_file_name};
use crate::diag::Problem;

/// What storing a build did.
#[derive(Debug, Default, Clone, Copy)]
pub struct WriteStats {
    pub files_written: usize,
    pub files_reused: usize,
    pub bytes_written: u64,
}

static WRITES: AtomicUsize = AtomicUsize::new(0);

/// Test hook: `ASKZICO_FAIL_AFTER_WRITES=N` makes the (N+1)-th file write fail, to prove that a
/// build failing midway leaves the previous build intact.
fn injected_failure() -> io::Result<()> {
    if let Ok(n) = std::env::var("ASKZICO_FAIL_AFTER_WRITES") {
        if let Ok(n) = n.parse::<usize>() {
            if WRITES.fetch_add(1, Ordering::SeqCst) >= n {
                return Err(io::Error::other("injected write failure (ASKZICO_FAIL_AFTER_WRITES)"));
            }
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically: a temp file beside it, then rename. A killed process
/// leaves either the old file or the new one, never a torn one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_opts(path, bytes, false)
}

/// As `write_atomic`, with the data flushed to disk before the rename (for the manifest, so a
/// power loss cannot leave a manifest naming files that never reached the disk).
pub fn write_atomic_durable(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_opts(path, bytes, true)
}

fn write_atomic_opts(path: &Path, bytes: &[u8], durable: bool) -> io::Result<()> {
    let _t = crate::timings::start(crate::timings::Stage::Write);
    injected_failure()?;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("artifact");
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        if durable {
            f.sync_data()?;
        }
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Whether a manifest's artifact path stays inside `out/`: relative, no `..`, no empty part.
pub fn safe_relative(path: &str) -> bool {
    !path.is_empty() && !path.starts_with('/') && !path.contains('\\') && path.split('/').all(|c| !c.is_empty() && c != ".." && c != ".")
}

/// Whether a content-addressed file is already in place. Its name carries the content hash,
/// so a file of the right size is trusted (`askzico verify` re-hashes everything).
fn has_content(path: &Path, _hash: &str, len: usize) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == len as u64)
}

/// Stores rendered artifacts under `out` (in parallel), returning their manifest entries (in
/// input order) and what was written. `known` holds paths this process already wrote or found in
/// place; they are not looked up again. A written artifact's bytes are released (see
/// `Rendered::take_bytes`).
pub fn store_artifacts(out: &Path, rendered: &[Rendered], known: &std::sync::Mutex<std::collections::HashSet<String>>) -> io::Result<(Vec<ArtifactEntry>, WriteStats)> {
    use rayon::prelude::*;
    let stored: Vec<io::Result<(ArtifactEntry, WriteStats)>> = rendered.par_iter().map(|r| store_one(out, r, known)).collect();
    let mut entries = Vec::with_capacity(stored.len());
    let mut stats = WriteStats::default();
    for s in stored {
        let (entry, w) = s?;
        entries.push(entry);
        stats.files_written += w.files_written;
        stats.files_reused += w.files_reused;
        stats.bytes_written += w.bytes_written;
    }
    Ok((entries, stats))
}

fn store_one(out: &Path, r: &Rendered, known: &std::sync::Mutex<std::collections::HashSet<String>>) -> io::Result<(ArtifactEntry, WriteStats)> {
    let mut stats = WriteStats::default();
    let (rel, hash) = r.path_and_hash();
    let path = out.join(&rel);
    let key = path.to_string_lossy().into_owned();
    let seen = known.lock().map(|k| k.contains(&key)).unwrap_or(false);
    if seen || has_content(&path, &hash, r.len as usize) {
        stats.files_reused += 1;
        let _ = r.take_bytes();
    } else {
        let bytes = r.take_bytes().ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("{GONE}: {}", path.display())))?;
        write_atomic(&path, &bytes).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        stats.files_written += 1;
        stats.bytes_written += bytes.len() as u64;
    }
    if let Ok(mut k) = known.lock() {
        k.insert(key);
    }
    let entry = ArtifactEntry { kind: r.kind, path: rel, blake3: hash, bytes: r.len, records: r.records, domain: r.domain.clone(), library: r.library.clone() };
    Ok((entry, stats))
}

/// The message of an artifact that vanished from `out/` after this process wrote it and released
/// its bytes (someone deleted it): the engine then renders everything again.
pub const GONE: &str = "an artifact written earlier in this session is missing from disk";

/// Writes the manifest: first its content-addressed copy `versions/<version>.json`, then the
/// environment's `manifest[.env].json`, last.
pub fn store_manifest(out: &Path, env: Option<&str>, m: &Manifest, stats: &mut WriteStats) -> io::Result<PathBuf> {
    let bytes = m.to_pretty_json();
    let version_path = out.join("versions").join(format!("{}.json", m.corpus_version));
    if !has_content(&version_path, crate::timings::blake3(&bytes).to_hex().as_str(), bytes.len()) {
        write_atomic(&version_path, &bytes)?;
        stats.files_written += 1;
        stats.bytes_written += bytes.len() as u64;
    }
    let path = out.join(manifest_file_name(env));
    write_atomic_durable(&path, &bytes)?;
    stats.bytes_written += bytes.len() as u64;
    Ok(path)
}

/// Reads the manifest of an environment from `out`.
pub fn read_manifest(out: &Path, env: Option<&str>) -> Result<Manifest, Problem> {
    let path = out.join(manifest_file_name(env));
    read_manifest_file(&path)
}

pub fn read_manifest_file(path: &Path) -> Result<Manifest, Problem> {
    let display = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        Problem::error("no-manifest", format!("cannot read {display}: {e}"))
            .in_file(display.clone())
            .help("run `askzico build` first (with the same --config/--out/--env)")
    })?;
    let m: Manifest = serde_json::from_slice(&bytes).map_err(|e| {
        Problem::error("bad-manifest", format!("{display} is not a valid manifest: {e}"))
            .in_file(display.clone())
            .at_line(e.line())
            .help("rebuild with `askzico build`; never edit manifests by hand")
    })?;
    // A hand-edited manifest must not lead readers (query, show, export, deploy) out of `out/`.
    if let Some(a) = m.artifacts.iter().find(|a| !is_safe_artifact_path(&a.path)) {
        return Err(Problem::error("bad-manifest", format!("{display} names the artifact path `{}`, which leaves the output directory", a.path))
            .in_file(display)
            .help("artifact paths are relative, `/`-separated and without `..`: rebuild with `askzico build`; never edit manifests by hand"));
    }
    Ok(m)
}

/// A manifest's artifact path: relative, `/`-separated, no empty, `.` or `..` segment.
pub fn is_safe_artifact_path(p: &str) -> bool {
    !p.is_empty() && !p.starts_with('/') && !p.contains('\\') && !p.contains(':') && p.split('/').all(|c| !c.is_empty() && c != "." && c != "..")
}

#[cfg(test)]
mod tests {
    use super::is_safe_artifact_path;

    #[test]
    fn artifact_paths_stay_inside_out() {
        assert!(is_safe_artifact_path("chunks/docs.0123.jsonl"));
        assert!(is_safe_artifact_path("lexical/history/0001.ab.json"));
        for bad in ["", "/etc/passwd", "../x", "chunks/../../x", "a//b", "./x", "C:\\x", "a\\..\\b"] {
            assert!(!is_safe_artifact_path(bad), "{bad}");
        }
    }
}
