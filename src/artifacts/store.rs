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

/// Test hook: `ASKZICO_KILL_AFTER_WRITES=N` kills the process with SIGKILL during the (N+1)-th
/// file write, after its temp file is written and before the rename: the state a real kill
/// leaves at that point (N files in place, one stray temp file), to prove crash consistency.
fn injected_kill() {
    if let Ok(n) = std::env::var("ASKZICO_KILL_AFTER_WRITES")
        && n.parse::<usize>().is_ok_and(|n| KILL_WRITES.fetch_add(1, Ordering::SeqCst) >= n)
    {
        // SAFETY: raise(2) has no preconditions; SIGKILL cannot be caught, so nothing after
        // this point (destructors, buffered output) runs, as with a kill from outside.
        #[cfg(unix)]
        unsafe {
            libc::raise(libc::SIGKILL);
        }
        std::process::abort();
    }
}

static KILL_WRITES: AtomicUsize = AtomicUsize::new(0);

fn write_atomic_opts(path: &Path, bytes: &[u8], durable: bool) -> io::Result<()> {
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
        injected_kill();
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Removes `.<name>.tmp-<pid>` files under `out` (cache included) whose writing process is gone:
/// what a build killed between writing a temp file and renaming it leaves. Files of a live
/// process (another build writing now) are kept. Best effort: errors are ignored. Linux only
/// (liveness is read from /proc); elsewhere nothing is removed.
pub fn remove_stale_temp_files(out: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    for e in walkdir::WalkDir::new(out).into_iter().filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy();
        let Some(pid) = name.strip_prefix('.').and_then(|n| n.rsplit_once(".tmp-")).map(|(_, pid)| pid) else { continue };
        let own = pid == std::process::id().to_string();
        if e.file_type().is_file() && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()) && !own && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Whether a content-addressed file is already in place. Its name carries the content hash,
/// so a file of the right size is trusted (`askzico verify` re-hashes everything).
fn has_content(path: &Path, _hash: &str, len: usize) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == len as u64)
}

/// Stores rendered artifacts under `out`, returning their manifest entries (in input order).
/// `known` holds the paths of the previous store (written or found in place); they are not looked
/// up again. It is replaced by this store's paths, so a long `build --watch` keeps only one
/// build's worth of paths (an older file is found on disk again if a later build needs it).
/// The first store of a process (nothing known yet) also removes the temp files that killed
/// builds left behind.
pub fn store_artifacts(out: &Path, rendered: &[&Rendered], stats: &mut WriteStats, known: &mut std::collections::HashSet<String>) -> io::Result<Vec<ArtifactEntry>> {
    if known.is_empty() {
        remove_stale_temp_files(out);
    }
    let mut entries = Vec::with_capacity(rendered.len());
    let mut current = std::collections::HashSet::with_capacity(rendered.len());
    for r in rendered {
        let (rel, hash) = r.path_and_hash();
        let path = out.join(&rel);
        let key = path.to_string_lossy().into_owned();
        if known.contains(&key) || has_content(&path, &hash, r.bytes.len()) {
            stats.files_reused += 1;
        } else {
            write_atomic(&path, &r.bytes).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            stats.files_written += 1;
            stats.bytes_written += r.bytes.len() as u64;
        }
        current.insert(key);
        entries.push(ArtifactEntry {
            kind: r.kind,
            path: rel,
            blake3: hash,
            bytes: r.bytes.len() as u64,
            records: r.records,
            domain: r.domain.clone(),
            library: r.library.clone(),
        });
    }
    *known = current;
    Ok(entries)
}

/// Writes the manifest: first its content-addressed copy `versions/<version>.json`, then the
/// environment's `manifest[.env].json`, last.
pub fn store_manifest(out: &Path, env: Option<&str>, m: &Manifest, stats: &mut WriteStats) -> io::Result<PathBuf> {
    let bytes = m.to_pretty_json();
    let version_path = out.join("versions").join(format!("{}.json", m.corpus_version));
    if !has_content(&version_path, blake3::hash(&bytes).to_hex().as_str(), bytes.len()) {
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
    serde_json::from_slice(&bytes).map_err(|e| {
        Problem::error("bad-manifest", format!("{display} is not a valid manifest: {e}"))
            .in_file(display.clone())
            .at_line(e.line())
            .help("rebuild with `askzico build`; never edit manifests by hand")
    })
}
