//! store: decides what is written under `out/` and where. Artifact files are content-addressed
//! and appear whole under their name (`disk::write_new`; large ones queued for the `writer`
//! threads); an existing file with the right hash is reused. The manifest is written last, by
//! rename (`disk::write_atomic_durable`), so a killed build leaves the previous manifest and every
//! file it names intact. Every path is checked to stay inside `out/` first (`out_path`).

use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub use super::disk::write_atomic;
pub(crate) use super::disk::{
    LockNotAFile, OutLock, remove_stale_temp_files, write_atomic_durable, write_new,
};
use super::manifest::{ArtifactEntry, Manifest, manifest_file_name};
use super::{Body, Rendered};
use crate::diag::Problem;

/// What storing a build did.
#[derive(Debug, Default, Clone, Copy)]
pub struct WriteStats {
    pub files_written: usize,
    pub files_reused: usize,
    pub bytes_written: u64,
}

/// Stores a content-addressed artifact not in place yet: queued for the writer thread when it
/// is large (`writer`), else written now (`write_new`). `key` is its `Known` key.
fn store_new(path: PathBuf, bytes: Vec<u8>, key: String, known: &Known) -> io::Result<()> {
    // Queued, it counts as stored (the domain render stores its term shards once as rendered,
    // then looks them up again); `finish_writes` takes it back if its write fails.
    if let Err((path, bytes)) = super::writer::submit(
        path,
        bytes,
        super::writer::Mode::New,
        Some(key.clone()),
        &known.writes,
    ) {
        write_new(&path, &bytes)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    }
    if let Ok(mut k) = known.current.lock() {
        k.insert(key);
    }
    Ok(())
}

/// Stores an artifact rendered into an unnamed file (`Body::Spilled`): linked under its name,
/// or, where that cannot be done, its bytes read back and written as `store_new` does.
fn store_spilled(
    path: PathBuf,
    file: std::fs::File,
    len: u64,
    key: String,
    known: &Known,
) -> io::Result<()> {
    let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    if !super::disk::link_spilled(&file, &path).map_err(named)? {
        let bytes = Body::Spilled(file).into_bytes(len).map_err(named)?;
        write_new(&path, &bytes).map_err(named)?;
    }
    if let Ok(mut k) = known.current.lock() {
        k.insert(key);
    }
    Ok(())
}

/// Best effort, for caches: the bytes `render` makes replace `path`, rendered and written on the
/// writer thread (while the build goes on), or here when it is off.
pub(crate) fn write_atomic_rendered(path: PathBuf, render: super::writer::Render) {
    if let Err((path, render)) = super::writer::submit_render(path, render)
        && let Some(bytes) = render()
    {
        let _ = write_atomic(&path, &bytes);
    }
}

/// Waits for every file queued for the writer thread and returns the first failure; the
/// artifacts that failed leave `known` (they are not on disk). The engine calls it before
/// writing a manifest.
pub(crate) fn finish_writes(known: &Known) -> io::Result<()> {
    let (failed, first) = known.writes.finish();
    if let Ok(mut k) = known.current.lock() {
        for key in &failed {
            k.remove(key);
        }
    }
    first.map_or(Ok(()), Err)
}

/// Whether a content-addressed file is already in place. Its name carries the content hash, so
/// a file of the right size that no one changed since the last build sealed its manifest
/// (`sealed_at`, see `sealed_before`) is trusted without reading it; one that may have changed
/// since (damaged in place: same name, other bytes), or any file when nothing is sealed, is
/// hashed, and rewritten when it differs.
fn has_content(path: &Path, hash: &str, len: usize, sealed_at: Option<SystemTime>) -> bool {
    let Ok(m) = std::fs::metadata(path) else {
        return false;
    };
    if !m.is_file() || m.len() != len as u64 {
        return false;
    }
    if sealed_at.is_some_and(|sealed| sealed_before(&m, sealed)) {
        return true;
    }
    same_content(path, hash)
}

/// Whether the file at `path` hashes to `hash` (hex blake3).
pub(crate) fn same_content(path: &Path, hash: &str) -> bool {
    std::fs::read(path).is_ok_and(|b| crate::timings::blake3(&b).to_hex().as_str() == hash)
}

/// Whether a file's modification time proves it unchanged since a build sealed its manifest at
/// `sealed`: strictly earlier. File systems keep coarse times, so a file changed just after the
/// manifest was written can carry the manifest's very time; such a file is "racy" (as git calls
/// it) and only its content can tell.
pub(crate) fn sealed_before(m: &std::fs::Metadata, sealed: SystemTime) -> bool {
    m.modified().is_ok_and(|t| t < sealed)
}

/// When the last build in `out` sealed its work: the newest modification time of its
/// manifests (`manifest.json`, `manifest.<env>.json`), each written last by a build. `None`
/// when there is none.
pub(crate) fn sealed_at(out: &Path) -> Option<SystemTime> {
    std::fs::read_dir(out)
        .ok()?
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("manifest") && name.ends_with(".json")
        })
        .filter_map(|e| e.metadata().ok()?.modified().ok())
        .max()
}

/// The artifact paths of the previous store of this process (written or found in place: not looked
/// up again), and those of the store under way. After a build the engine keeps only the latter,
/// so a long `build --watch` holds one build's worth of paths.
#[derive(Default)]
pub(crate) struct Known {
    /// When the build found in place sealed its manifest (`sealed_at`), read as a build starts.
    pub sealed_at: Option<SystemTime>,
    pub previous: std::collections::HashSet<String>,
    pub current: std::sync::Mutex<std::collections::HashSet<String>>,
    /// This engine's files queued for the writer threads (`finish_writes` waits for them).
    pub writes: std::sync::Arc<super::writer::Tally>,
}

impl Known {
    /// Ends a build: its paths become the previous ones.
    pub(crate) fn rotate(&mut self) {
        self.previous = std::mem::take(self.current.get_mut().unwrap_or_else(|e| e.into_inner()));
    }
}

/// Stores rendered artifacts under `out` (in parallel), returning their manifest entries (in
/// input order) and what was written. A written artifact's bytes are released (see
/// `Rendered::take_bytes`).
pub(crate) fn store_artifacts(
    out: &Path,
    rendered: &[Rendered],
    known: &Known,
) -> io::Result<(Vec<ArtifactEntry>, WriteStats)> {
    use rayon::prelude::*;
    let stored: Vec<io::Result<(ArtifactEntry, WriteStats)>> = rendered
        .par_iter()
        .map(|r| store_one(out, r, known))
        .collect();
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

/// Stores one rendered artifact (see `store_artifacts`).
pub(crate) fn store_one(
    out: &Path,
    r: &Rendered,
    known: &Known,
) -> io::Result<(ArtifactEntry, WriteStats)> {
    let mut stats = WriteStats::default();
    let (rel, hash) = r.path_and_hash();
    let path = out_path(out, &rel)?;
    let key = path.to_string_lossy().into_owned();
    let stored =
        known.previous.contains(&key) || known.current.lock().is_ok_and(|k| k.contains(&key));
    if stored || has_content(&path, &hash, r.len as usize, known.sealed_at) {
        stats.files_reused += 1;
        let _ = r.take_body();
        if let Ok(mut k) = known.current.lock() {
            k.insert(key);
        }
    } else {
        let body = r.take_body().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                Gone {
                    path: path.to_path_buf(),
                },
            )
        })?;
        stats.files_written += 1;
        stats.bytes_written += r.len;
        match body {
            Body::Bytes(bytes) => store_new(path, bytes, key, known)?,
            Body::Spilled(file) => store_spilled(path, file, r.len, key, known)?,
        }
    }
    let entry = ArtifactEntry {
        kind: r.kind,
        path: rel,
        blake3: hash,
        bytes: r.len,
        records: r.records,
        domain: r.domain.clone(),
        library: r.library.clone(),
    };
    Ok((entry, stats))
}

/// An artifact that vanished from `out/` after this process wrote it and released its bytes
/// (someone deleted it): the engine then renders everything again.
#[derive(Debug, thiserror::Error)]
#[error("an artifact written earlier by this process is missing from disk: {}", path.display())]
pub(crate) struct Gone {
    pub path: PathBuf,
}

impl Gone {
    /// Whether a store error is a `Gone` (carried inside the `io::Error`).
    pub(crate) fn is(e: &io::Error) -> bool {
        e.get_ref().is_some_and(|inner| inner.is::<Gone>())
    }
}

#[cfg(test)]
mod gone_tests {
    use super::*;

    /// The engine tells a vanished artifact from any other write error by its type, not by
    /// its message.
    #[test]
    fn gone_is_known_by_its_type() {
        let gone = io::Error::new(
            io::ErrorKind::NotFound,
            Gone {
                path: PathBuf::from("out/chunks/a.jsonl"),
            },
        );
        assert!(Gone::is(&gone));
        let same_words = io::Error::new(io::ErrorKind::NotFound, gone.to_string());
        assert!(!Gone::is(&same_words));
        assert!(!Gone::is(&io::Error::from(io::ErrorKind::NotFound)));
    }
}

/// Writes the manifest: first its content-addressed copy `versions/<version>.json`, then the
/// environment's `manifest[.env].json`, last.
pub(crate) fn store_manifest(
    out: &Path,
    env: Option<&str>,
    m: &Manifest,
    stats: &mut WriteStats,
) -> io::Result<PathBuf> {
    let bytes = m.to_pretty_json();
    let version_path = out_path(out, &format!("versions/{}.json", m.corpus_version))?;
    if !has_content(
        &version_path,
        crate::timings::blake3(&bytes).to_hex().as_str(),
        bytes.len(),
        None,
    ) {
        write_atomic(&version_path, &bytes)?;
        stats.files_written += 1;
        stats.bytes_written += bytes.len() as u64;
    }
    let path = out_path(out, &manifest_file_name(env))?;
    write_atomic_durable(&path, &bytes)?;
    stats.bytes_written += bytes.len() as u64;
    Ok(path)
}

/// Reads the manifest of an environment from `out`.
pub fn read_manifest(out: &Path, env: Option<&str>) -> Result<Manifest, Problem> {
    let path = out.join(manifest_file_name(env));
    read_manifest_file(&path)
}

pub(crate) fn read_manifest_file(path: &Path) -> Result<Manifest, Problem> {
    let display = path.display().to_string();
    let bytes = crate::fsio::read_capped(path, crate::fsio::cap::MANIFEST).map_err(|e| {
        let help = match e {
            crate::fsio::ReadError::Io(_) => {
                "run `askzico build` first (with the same --config/--out/--env)"
            }
            _ => "pass a manifest askzico wrote (out/manifest.json or out/versions/<corpus_version>.json); rebuild with `askzico build` if it was damaged",
        };
        Problem::error("no-manifest", format!("cannot read {display}: {e}"))
            .in_file(display.clone())
            .help(help)
    })?;
    let m: Manifest = serde_json::from_slice(&bytes).map_err(|e| {
        Problem::error(
            "bad-manifest",
            format!("{display} is not a valid manifest: {e}"),
        )
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

/// A manifest's artifact path: relative, `/`-separated, no empty, `.` or `..` segment, no
/// control character.
pub(crate) fn is_safe_artifact_path(p: &str) -> bool {
    !p.is_empty()
        && !p.starts_with('/')
        && !p.contains('\\')
        && !p.contains(':')
        && !p.chars().any(char::is_control)
        && p.split('/').all(|c| !c.is_empty() && c != "." && c != "..")
}

/// Directories under an output directory already proven real by `out_path` in this process.
static REAL_DIRS: std::sync::LazyLock<std::sync::Mutex<rustc_hash::FxHashSet<PathBuf>>> =
    std::sync::LazyLock::new(Default::default);

/// The path of `rel` under `out`, once proven to stay inside it: `rel` is a safe artifact path
/// (relative, no `..`: `is_safe_artifact_path`) and no directory between `out` and the file is
/// a symbolic link (one could lead the write anywhere; a missing one is made as a real
/// directory). The last check before anything is written under `out/`.
pub(crate) fn out_path(out: &Path, rel: &str) -> io::Result<PathBuf> {
    let refuse = |why: String| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("refusing to write `{rel}` under {}: {why}", out.display()),
        )
    };
    if !is_safe_artifact_path(rel) {
        return Err(refuse("the path would leave the output directory".into()));
    }
    let Some((dir, _)) = rel.rsplit_once('/') else {
        return Ok(out.join(rel));
    };
    let full = out.join(dir);
    if REAL_DIRS.lock().is_ok_and(|d| d.contains(&full)) {
        return Ok(out.join(rel));
    }
    let mut at = out.to_path_buf();
    let mut all_there = true;
    for seg in dir.split('/') {
        at.push(seg);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(refuse(format!(
                    "{} is a symbolic link (askzico writes only into real directories there)",
                    at.display()
                )));
            }
            Ok(_) => {}
            Err(_) => {
                all_there = false;
                break;
            }
        }
    }
    if all_there && let Ok(mut d) = REAL_DIRS.lock() {
        d.insert(full);
    }
    Ok(out.join(rel))
}

/// Why an artifact a manifest names cannot be read; the message reads after
/// "cannot read <path>: ".
#[derive(Debug, thiserror::Error)]
pub(crate) enum ArtifactReadError {
    #[error(
        "it is larger than the {recorded} bytes the manifest records (changed after the build)"
    )]
    Changed { recorded: u64 },
    #[error(transparent)]
    Read(crate::fsio::ReadError),
    #[error("it is not UTF-8 text: {0}")]
    NotUtf8(std::string::FromUtf8Error),
}

/// An artifact a manifest names, read no further than the size the manifest records (a larger
/// file was changed after the build).
pub(crate) fn read_artifact(out: &Path, a: &ArtifactEntry) -> Result<Vec<u8>, ArtifactReadError> {
    crate::fsio::read_capped(&out.join(&a.path), a.bytes).map_err(|e| match e {
        crate::fsio::ReadError::TooLarge { .. } => ArtifactReadError::Changed { recorded: a.bytes },
        e => ArtifactReadError::Read(e),
    })
}

/// `read_artifact` of a text artifact (chunks, lookup).
pub(crate) fn read_artifact_text(
    out: &Path,
    a: &ArtifactEntry,
) -> Result<String, ArtifactReadError> {
    String::from_utf8(read_artifact(out, a)?).map_err(ArtifactReadError::NotUtf8)
}

#[cfg(test)]
mod tests {
    use super::is_safe_artifact_path;

    /// The store's last check: a path leaving `out/`, by `..` or through a symlinked folder,
    /// is refused before anything is written.
    #[test]
    fn writes_stay_inside_out() {
        let t = tempfile::tempdir().unwrap();
        let out = t.path().join("out");
        let src = t.path().join("src");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::create_dir_all(&src).unwrap();
        assert_eq!(
            super::out_path(&out, "chunks/docs/000.ab.jsonl").unwrap(),
            out.join("chunks/docs/000.ab.jsonl")
        );
        for bad in ["../x.json", "manifest.../../x.json", "/etc/x", "cache/a\0b"] {
            let e = super::out_path(&out, bad).unwrap_err();
            assert!(
                e.to_string().contains("would leave the output directory"),
                "{bad}: {e}"
            );
        }
        std::os::unix::fs::symlink(&src, out.join("lexical")).unwrap();
        let e = super::out_path(&out, "lexical/docs/0000.ab.json").unwrap_err();
        assert!(e.to_string().contains("is a symbolic link"), "{e}");
        std::fs::create_dir_all(out.join("lookup")).unwrap();
        std::os::unix::fs::symlink(&src, out.join("lookup/docs")).unwrap();
        assert!(super::out_path(&out, "lookup/docs/000.ab.jsonl").is_err());
        assert_eq!(std::fs::read_dir(&src).unwrap().count(), 0);
    }

    #[test]
    fn artifact_paths_stay_inside_out() {
        assert!(is_safe_artifact_path("chunks/docs.0123.jsonl"));
        assert!(is_safe_artifact_path("lexical/history/0001.ab.json"));
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "chunks/../../x",
            "a//b",
            "./x",
            "C:\\x",
            "a\\..\\b",
        ] {
            assert!(!is_safe_artifact_path(bad), "{bad}");
        }
    }

    /// A cache rendered on a writer thread (or here, when direct writes are off) replaces the
    /// old file whole.
    #[test]
    fn a_cache_rendered_by_the_writer_replaces_the_old_file() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("cache/compiled/pack-00.mp");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"old").unwrap();
        let bytes: Vec<u8> = (0..(1 << 20) + 3).map(|i| (i % 251) as u8).collect();
        let want = bytes.clone();
        super::write_atomic_rendered(path.clone(), Box::new(move || Some(bytes)));
        crate::artifacts::writer::caches_written();
        assert_eq!(std::fs::read(&path).unwrap(), want);
        let names: Vec<String> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["pack-00.mp"], "no temp file left");
    }

    /// `verify` refuses every artifact path the store refuses (a `.` segment, a backslash, a
    /// drive letter, a control character), not only `..` and absolute paths.
    #[test]
    fn verify_refuses_the_paths_the_store_refuses() {
        use crate::artifacts::Kind;
        use crate::artifacts::manifest::{ArtifactEntry, Manifest};
        let t = tempfile::tempdir().unwrap();
        let bad = [
            "chunks/./x.jsonl",
            "chunks\\..\\x.jsonl",
            "C:x.jsonl",
            "chunks/a\u{1}b.jsonl",
        ];
        let m = Manifest {
            askzico_manifest: 1,
            corpus: "c".into(),
            corpus_version: String::new(),
            environment: "e".into(),
            settings: Default::default(),
            libraries: Vec::new(),
            artifacts: bad
                .iter()
                .map(|p| ArtifactEntry {
                    kind: Kind::Chunks,
                    path: p.to_string(),
                    blake3: String::new(),
                    bytes: 0,
                    records: 0,
                    domain: None,
                    library: None,
                })
                .collect(),
        };
        let problems = crate::artifacts::verify::verify(t.path(), &m);
        for p in bad {
            assert!(
                problems.iter().any(|x| x.file.as_deref() == Some(p)
                    && x.message.contains("escapes the output directory")),
                "{p:?}: {problems:#?}"
            );
        }
    }
}
