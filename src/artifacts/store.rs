//! store: the only writer under `out/`. Artifact files are content-addressed and appear whole
//! under their name (`write_new`: an unnamed temp file linked in place; `write_atomic`: a temp
//! file renamed, for caches); an existing file with the right hash is reused. The manifest is
//! written last, also by rename, so a killed build leaves the previous manifest and every file it
//! names intact.

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
    if let Ok(n) = std::env::var("ASKZICO_FAIL_AFTER_WRITES")
        && let Ok(n) = n.parse::<usize>()
        && WRITES.fetch_add(1, Ordering::SeqCst) >= n
    {
        return Err(io::Error::other(
            "injected write failure (ASKZICO_FAIL_AFTER_WRITES)",
        ));
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically: a temp file beside it, then rename. A killed process
/// leaves either the old file or the new one, never a torn one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_opts(path, bytes, false, None)
}

/// As `write_atomic`, with the data flushed to disk before the rename (for the manifest, so a
/// power loss cannot leave a manifest naming files that never reached the disk).
pub fn write_atomic_durable(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_opts(path, bytes, true, None)
}

/// Writes a content-addressed file that is not in place yet: on Linux an unnamed file
/// (`O_TMPFILE`) in its directory, written, then linked under its name, so the directory changes
/// once (a temp name and a rename change it twice, and concurrent writers contend for it) and a
/// killed process leaves nothing behind. Anywhere else, or when the name is taken (a file of the
/// wrong size), or the filesystem lacks `O_TMPFILE`: `write_atomic`.
pub fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    if write_linked(path, bytes, None)? {
        return Ok(());
    }
    write_atomic(path, bytes)
}

/// `write_new` with the bytes written straight to the disk through `buf` (`O_DIRECT`; see
/// `writer`), where the filesystem takes it.
pub(super) fn write_new_direct(path: &Path, bytes: &[u8], buf: &mut Aligned) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    if write_linked(path, bytes, Some(buf))? {
        return Ok(());
    }
    let _ = buf;
    write_atomic(path, bytes)
}

/// `write_atomic` with the bytes written straight to the disk through `buf`, where the
/// filesystem takes it.
pub(super) fn write_atomic_direct(path: &Path, bytes: &[u8], buf: &mut Aligned) -> io::Result<()> {
    write_atomic_opts(path, bytes, false, Some(buf))
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

/// Best effort, for caches: the bytes `render` makes replace `path`, rendered and written on the
/// writer thread (while the build goes on), or here when it is off.
pub fn write_atomic_rendered(path: PathBuf, render: super::writer::Render) {
    if let Err((path, render)) = super::writer::submit_render(path, render)
        && let Some(bytes) = render()
    {
        let _ = write_atomic(&path, &bytes);
    }
}

/// Waits for every file queued for the writer thread and returns the first failure; the
/// artifacts that failed leave `known` (they are not on disk). The engine calls it before
/// writing a manifest.
pub fn finish_writes(known: &Known) -> io::Result<()> {
    let (failed, first) = known.writes.finish();
    if let Ok(mut k) = known.current.lock() {
        for key in &failed {
            k.remove(key);
        }
    }
    first.map_or(Ok(()), Err)
}

/// A 1 MiB buffer aligned for `O_DIRECT` (4 KiB, every block size in use), without `unsafe`:
/// the aligned window of a slightly larger allocation.
pub(super) struct Aligned {
    raw: Vec<u8>,
    at: usize,
}

impl Aligned {
    const ALIGN: usize = 4096;
    const LEN: usize = 1 << 20;

    pub(super) fn new() -> Aligned {
        let raw = vec![0u8; Self::LEN + Self::ALIGN];
        let at = (Self::ALIGN - raw.as_ptr() as usize % Self::ALIGN) % Self::ALIGN;
        Aligned { raw, at }
    }

    fn get(&mut self) -> &mut [u8] {
        &mut self.raw[self.at..self.at + Self::LEN]
    }
}

/// Writes `bytes` to `f` (opened `O_DIRECT`, empty) in aligned pieces through `buf`, the last
/// padded with zeros to a whole block, then cuts the file to the bytes' length.
fn write_aligned(f: &std::fs::File, bytes: &[u8], buf: &mut Aligned) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    let buf = buf.get();
    let mut at = 0;
    while at < bytes.len() {
        let n = (bytes.len() - at).min(buf.len());
        buf[..n].copy_from_slice(&bytes[at..at + n]);
        let whole = n.div_ceil(Aligned::ALIGN) * Aligned::ALIGN;
        buf[n..whole].fill(0);
        f.write_all_at(&buf[..whole], at as u64)?;
        at += n;
    }
    f.set_len(bytes.len() as u64)
}

/// Whether an error is a filesystem refusing `O_DIRECT` (or the alignment it was given).
fn refuses_direct(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EINVAL | libc::EOPNOTSUPP))
}

/// `write_new`'s Linux path; `Ok(false)` when it cannot be used (nothing was written).
#[cfg(target_os = "linux")]
fn write_linked(path: &Path, bytes: &[u8], mut direct: Option<&mut Aligned>) -> io::Result<bool> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::OpenOptionsExt;
    let _t = crate::timings::start(crate::timings::Stage::Write);
    let dir = path.parent().unwrap_or(Path::new("."));
    let open = |direct: bool| {
        let flags = if direct {
            libc::O_TMPFILE | libc::O_DIRECT
        } else {
            libc::O_TMPFILE
        };
        std::fs::OpenOptions::new()
            .write(true)
            .mode(0o666)
            .custom_flags(flags)
            .open(dir)
    };
    let mut opened = match open(direct.is_some()) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).and_then(|()| open(direct.is_some()))
        }
        r => r,
    };
    if direct.is_some()
        && let Err(e) = &opened
        && refuses_direct(e)
    {
        // No O_DIRECT here (or no O_TMPFILE: the plain open tells).
        super::writer::refused();
        direct = None;
        opened = open(false);
    }
    let mut f = match opened {
        Ok(f) => f,
        // A filesystem or kernel without O_TMPFILE.
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL)
            ) =>
        {
            return Ok(false);
        }
        Err(e) => return Err(e),
    };
    injected_failure()?;
    match direct {
        Some(buf) => match write_aligned(&f, bytes, buf) {
            Err(e) if refuses_direct(&e) => {
                super::writer::refused();
                return Ok(false);
            }
            r => r?,
        },
        None => f.write_all(bytes)?,
    }
    injected_kill();
    let from = std::ffi::CString::new(format!("/proc/self/fd/{}", f.as_raw_fd()))
        .map_err(io::Error::other)?;
    let to = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: linkat(2) with two NUL-terminated paths that outlive the call; the descriptor
    // named by `from` is open (owned by `f`).
    if unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    } == 0
    {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        // The name is taken by a file of the wrong size (a torn copy): replace it by rename.
        // Without /proc, linking the descriptor is impossible: the same.
        Some(libc::EEXIST | libc::ENOENT) => Ok(false),
        _ => Err(e),
    }
}

/// Test hook: `ASKZICO_KILL_AFTER_WRITES=N` kills the process with SIGKILL during the (N+1)-th
/// file write, after its temp file is written and before the rename: the state a real kill
/// leaves at that point (N files in place, one stray temp file), to prove crash consistency.
fn injected_kill() {
    if let Ok(n) = std::env::var("ASKZICO_KILL_AFTER_WRITES")
        && n.parse::<usize>()
            .is_ok_and(|n| KILL_WRITES.fetch_add(1, Ordering::SeqCst) >= n)
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

/// This process's ID (one syscall per process, not per file).
fn pid() -> u32 {
    static PID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *PID.get_or_init(std::process::id)
}

static KILL_WRITES: AtomicUsize = AtomicUsize::new(0);

/// Temp files made so far by this process: each gets its own name (the writer thread and a
/// caller may write the same file at once).
static TEMPS: AtomicUsize = AtomicUsize::new(0);

fn write_atomic_opts(
    path: &Path,
    bytes: &[u8],
    durable: bool,
    mut direct: Option<&mut Aligned>,
) -> io::Result<()> {
    let _t = crate::timings::start(crate::timings::Stage::Write);
    injected_failure()?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("artifact");
    let tmp = dir.join(format!(
        ".{name}.tmp-{}.{}",
        pid(),
        TEMPS.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let create = |direct: bool| {
            #[cfg(unix)]
            use std::os::unix::fs::OpenOptionsExt;
            let mut o = std::fs::OpenOptions::new();
            o.write(true).create(true).truncate(true);
            #[cfg(target_os = "linux")]
            if direct {
                o.custom_flags(libc::O_DIRECT);
            }
            #[cfg(not(target_os = "linux"))]
            let _ = direct;
            o.open(&tmp)
        };
        // The directory usually exists: create it only when the file cannot be (two syscalls
        // fewer per file than creating it first).
        let mut f = match create(direct.is_some()) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                std::fs::create_dir_all(dir)?;
                create(direct.is_some())?
            }
            Err(e) if direct.is_some() && refuses_direct(&e) => {
                super::writer::refused();
                direct = None;
                create(false)?
            }
            r => r?,
        };
        match direct {
            Some(buf) => match write_aligned(&f, bytes, buf) {
                Err(e) if refuses_direct(&e) => {
                    super::writer::refused();
                    drop(f);
                    f = create(false)?;
                    f.write_all(bytes)?;
                }
                r => r?,
            },
            None => f.write_all(bytes)?,
        }
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

/// The output directory's lock (`out/.askzico.lock`, an exclusive `flock`): a build holds it from
/// its first artifact write to its manifest rename, `gc` throughout. Released on drop (and by
/// the kernel when a process dies).
pub struct OutLock {
    _file: std::fs::File,
}

impl OutLock {
    pub fn acquire(out: &Path) -> io::Result<OutLock> {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::create_dir_all(out)?;
        // Never through a link: the lock file is askzico's own.
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(out.join(".askzico.lock"))?;
        // SAFETY: flock on a file descriptor this struct owns.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(OutLock { _file: f })
    }
}

/// Removes `.<name>.tmp-<pid>` files under `out` (cache included; or under any directory given)
/// whose writing process is gone:
/// what a build killed between writing a temp file and renaming it leaves. Files of a live
/// process (another build writing now) are kept. Best effort: errors are ignored. Linux only
/// (liveness is read from /proc); elsewhere nothing is removed.
pub fn remove_stale_temp_files(out: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    for e in walkdir::WalkDir::new(out)
        .into_iter()
        .filter_map(Result::ok)
    {
        let name = e.file_name().to_string_lossy();
        // `.<name>.tmp-<pid>.<n>` (or `.tmp-<pid>`, from older builds).
        let Some(pid) = name
            .strip_prefix('.')
            .and_then(|n| n.rsplit_once(".tmp-"))
            .map(|(_, pid)| pid.split('.').next().unwrap_or_default())
        else {
            continue;
        };
        let own = pid == std::process::id().to_string();
        if e.file_type().is_file()
            && !pid.is_empty()
            && pid.bytes().all(|b| b.is_ascii_digit())
            && !own
            && !Path::new("/proc").join(pid).exists()
        {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Whether a content-addressed file is already in place. Its name carries the content hash,
/// so a file of the right size is trusted (`askzico verify` re-hashes everything).
fn has_content(path: &Path, _hash: &str, len: usize) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == len as u64)
}

/// The artifact paths of the previous store of this process (written or found in place: not looked
/// up again), and those of the store under way. After a build the engine keeps only the latter,
/// so a long `build --watch` holds one build's worth of paths.
#[derive(Default)]
pub struct Known {
    pub previous: std::collections::HashSet<String>,
    pub current: std::sync::Mutex<std::collections::HashSet<String>>,
    /// This engine's files queued for the writer threads (`finish_writes` waits for them).
    pub writes: std::sync::Arc<super::writer::Tally>,
}

impl Known {
    /// Ends a build: its paths become the previous ones.
    pub fn rotate(&mut self) {
        self.previous = std::mem::take(self.current.get_mut().unwrap_or_else(|e| e.into_inner()));
    }
}

/// Stores rendered artifacts under `out` (in parallel), returning their manifest entries (in
/// input order) and what was written. A written artifact's bytes are released (see
/// `Rendered::take_bytes`).
pub fn store_artifacts(
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
pub fn store_one(
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
    if stored || has_content(&path, &hash, r.len as usize) {
        stats.files_reused += 1;
        let _ = r.take_bytes();
        if let Ok(mut k) = known.current.lock() {
            k.insert(key);
        }
    } else {
        let bytes = r.take_bytes().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                Gone {
                    path: path.to_path_buf(),
                },
            )
        })?;
        stats.files_written += 1;
        stats.bytes_written += bytes.len() as u64;
        store_new(path, bytes, key, known)?;
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
pub struct Gone {
    pub path: PathBuf,
}

impl Gone {
    /// Whether a store error is a `Gone` (carried inside the `io::Error`).
    pub fn is(e: &io::Error) -> bool {
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
pub fn store_manifest(
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

pub fn read_manifest_file(path: &Path) -> Result<Manifest, Problem> {
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
pub fn is_safe_artifact_path(p: &str) -> bool {
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
pub fn out_path(out: &Path, rel: &str) -> io::Result<PathBuf> {
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

/// An artifact a manifest names, read no further than the size the manifest records (a larger
/// file was changed after the build). `Err` says why, for "cannot read <path>: …".
pub fn read_artifact(out: &Path, a: &ArtifactEntry) -> Result<Vec<u8>, String> {
    crate::fsio::read_capped(&out.join(&a.path), a.bytes).map_err(|e| match e {
        crate::fsio::ReadError::TooLarge { .. } => format!(
            "it is larger than the {} bytes the manifest records (changed after the build)",
            a.bytes
        ),
        e => e.to_string(),
    })
}

/// `read_artifact` of a text artifact (chunks, lookup).
pub fn read_artifact_text(out: &Path, a: &ArtifactEntry) -> Result<String, String> {
    String::from_utf8(read_artifact(out, a)?).map_err(|e| format!("it is not UTF-8 text: {e}"))
}

#[cfg(test)]
mod tests {
    use super::{is_safe_artifact_path, write_new};

    /// Every entry under `dir`, as relative paths, sorted (hidden temp files included).
    fn entries(dir: &std::path::Path) -> Vec<String> {
        let mut v: Vec<String> = walkdir::WalkDir::new(dir)
            .min_depth(1)
            .into_iter()
            .map(|e| {
                e.unwrap()
                    .path()
                    .strip_prefix(dir)
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn new_files_appear_whole_under_their_name_and_leave_nothing_else() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("lexical/md/0001.abc.json");
        write_new(&path, b"{\"terms\":{}}").unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"{\"terms\":{}}",
            "the missing directories are made"
        );
        assert_eq!(
            entries(t.path()),
            ["lexical", "lexical/md", "lexical/md/0001.abc.json"]
        );
        // A torn copy under the name (the wrong size) is replaced.
        let torn = t.path().join("lexical/md/0002.def.json");
        std::fs::write(&torn, b"{\"te").unwrap();
        write_new(&torn, b"{\"terms\":{\"x\":[]}}").unwrap();
        assert_eq!(std::fs::read(&torn).unwrap(), b"{\"terms\":{\"x\":[]}}");
        assert_eq!(
            entries(t.path()),
            [
                "lexical",
                "lexical/md",
                "lexical/md/0001.abc.json",
                "lexical/md/0002.def.json"
            ]
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            let plain = t.path().join("plain");
            std::fs::write(&plain, b"").unwrap();
            assert_eq!(
                mode,
                std::fs::metadata(&plain).unwrap().permissions().mode() & 0o777,
                "the mode a plain create gives"
            );
        }
    }

    /// Direct writes (where the filesystem takes them; else the buffered fallback) give the
    /// bytes exactly, at sizes around the block and the buffer's piece, and leave no temp file.
    #[test]
    fn direct_writes_give_the_bytes_exactly() {
        let t = tempfile::tempdir().unwrap();
        let mut buf = super::Aligned::new();
        let piece = 1 << 20;
        for (i, len) in [
            0,
            1,
            4095,
            4096,
            4097,
            piece - 1,
            piece,
            piece + 1,
            2 * piece + 12_345,
        ]
        .into_iter()
        .enumerate()
        {
            let bytes: Vec<u8> = (0..len).map(|j| (j % 251) as u8 ^ i as u8).collect();
            let new = t.path().join(format!("lexical/md/{i:04}.json"));
            super::write_new_direct(&new, &bytes, &mut buf).unwrap();
            assert_eq!(std::fs::read(&new).unwrap(), bytes, "new, {len} bytes");
            let replaced = t.path().join("cache/pack-00.mp");
            super::write_atomic_direct(&replaced, &bytes, &mut buf).unwrap();
            assert_eq!(
                std::fs::read(&replaced).unwrap(),
                bytes,
                "replaced, {len} bytes"
            );
        }
        assert_eq!(entries(&t.path().join("cache")), ["pack-00.mp"]);
        assert_eq!(entries(&t.path().join("lexical/md")).len(), 9);
    }

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
}
