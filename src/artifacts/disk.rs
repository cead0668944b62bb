//! disk: the low-level file writes under `out/`, shared by `store` and the `writer` threads.
//! A file appears whole under its name: `write_new` links an unnamed temp file in place (a
//! content-addressed artifact), `write_atomic` renames a temp file over the old one (caches,
//! manifests). Large files may be written straight to the disk (`O_DIRECT`) through an aligned
//! buffer, until a filesystem refuses. Also the output directory's lock, the removal of temp
//! files a killed build left, and the test hooks that fail or kill a build midway.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Cleared when a filesystem refuses `O_DIRECT`.
static DIRECT: AtomicBool = AtomicBool::new(true);

/// Turns direct writes off for the rest of the process (a filesystem refused them).
fn refused() {
    DIRECT.store(false, Ordering::Relaxed);
}

/// Whether direct writes may be tried.
pub(super) fn direct_enabled() -> bool {
    DIRECT.load(Ordering::Relaxed)
}

#[cfg(feature = "test-hooks")]
static WRITES: AtomicUsize = AtomicUsize::new(0);

/// Test hook: `ASKZICO_FAIL_AFTER_WRITES=N` makes the (N+1)-th file write fail, to prove that a
/// build failing midway leaves the previous build intact. Compiled only with the `test-hooks`
/// feature.
#[cfg(feature = "test-hooks")]
fn injected_failure() -> io::Result<()> {
    if let Some(n) = crate::knobs::hook_number(crate::knobs::FAIL_AFTER_WRITES)
        && WRITES.fetch_add(1, Ordering::SeqCst) as u64 >= n
    {
        return Err(io::Error::other(
            "injected write failure (ASKZICO_FAIL_AFTER_WRITES)",
        ));
    }
    Ok(())
}

#[cfg(not(feature = "test-hooks"))]
fn injected_failure() -> io::Result<()> {
    Ok(())
}

/// Writes `bytes` to `path` atomically: a temp file beside it, then rename. A killed process
/// leaves either the old file or the new one, never a torn one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_opts(path, bytes, false, None)
}

/// As `write_atomic`, with the data flushed to disk before the rename (for the manifest, so a
/// power loss cannot leave a manifest naming files that never reached the disk).
pub(crate) fn write_atomic_durable(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_opts(path, bytes, true, None)
}

/// Writes a content-addressed file that is not in place yet: on Linux an unnamed file
/// (`O_TMPFILE`) in its directory, written, then linked under its name, so the directory changes
/// once (a temp name and a rename change it twice, and concurrent writers contend for it) and a
/// killed process leaves nothing behind. Anywhere else, or when the name is taken (a file of the
/// wrong size), or the filesystem lacks `O_TMPFILE`: `write_atomic`.
pub(crate) fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
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

/// Whether `dir` lies on a filesystem held in memory (tmpfs, ramfs): one with no disk for a
/// direct write to bypass, so `O_DIRECT` (which tmpfs takes since Linux 6.6) would only add a
/// copy through the aligned buffer. Checked before a direct write is tried.
#[cfg(target_os = "linux")]
fn memory_backed(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    const RAMFS_MAGIC: i64 = 0x8584_58f6;
    let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: statfs(2) with a NUL-terminated path that outlives the call and a zeroed struct
    // it fills.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statfs(path.as_ptr(), &mut st) } != 0 {
        return false;
    }
    matches!(st.f_type as i64, TMPFS_MAGIC | RAMFS_MAGIC)
}

/// Whether an error is a filesystem refusing `O_DIRECT` (or the alignment it was given).
fn refuses_direct(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EINVAL | libc::EOPNOTSUPP))
}

/// An unnamed file in `dir` (made if missing) that a large artifact is rendered into while it
/// is made (`artifacts::Body::Spilled`); `link_spilled` gives it its name.
pub(crate) fn spill_file(dir: &Path) -> io::Result<std::fs::File> {
    std::fs::create_dir_all(dir)?;
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .mode(0o666)
            .custom_flags(libc::O_TMPFILE)
            .open(dir)
    }
    #[cfg(not(target_os = "linux"))]
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// Gives a spilled file its name, whole, as `write_new` does; `Ok(false)` when it cannot (a
/// filesystem without unnamed files, no `/proc`, or the name taken by a torn copy): the caller
/// then writes its bytes with `write_new`.
pub(crate) fn link_spilled(f: &std::fs::File, path: &Path) -> io::Result<bool> {
    let _t = crate::timings::start(crate::timings::Stage::Write);
    injected_failure()?;
    injected_kill();
    #[cfg(target_os = "linux")]
    return link_fd(f, path);
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (f, path);
        Ok(false)
    }
}

/// `write_new`'s Linux path; `Ok(false)` when it cannot be used (nothing was written).
#[cfg(target_os = "linux")]
fn write_linked(path: &Path, bytes: &[u8], mut direct: Option<&mut Aligned>) -> io::Result<bool> {
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
    if direct.is_some() && memory_backed(dir) {
        refused();
        direct = None;
    }
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
        refused();
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
                refused();
                return Ok(false);
            }
            r => r?,
        },
        None => f.write_all(bytes)?,
    }
    injected_kill();
    link_fd(&f, path)
}

/// Links an unnamed file (`O_TMPFILE`) under `path`; `Ok(false)` when it cannot.
#[cfg(target_os = "linux")]
fn link_fd(f: &std::fs::File, path: &Path) -> io::Result<bool> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
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
/// Compiled only with the `test-hooks` feature.
#[cfg(feature = "test-hooks")]
fn injected_kill() {
    if let Some(n) = crate::knobs::hook_number(crate::knobs::KILL_AFTER_WRITES)
        && KILL_WRITES.fetch_add(1, Ordering::SeqCst) as u64 >= n
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

#[cfg(not(feature = "test-hooks"))]
fn injected_kill() {}

/// This process's ID (one syscall per process, not per file).
fn pid() -> u32 {
    static PID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *PID.get_or_init(std::process::id)
}

#[cfg(feature = "test-hooks")]
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
    #[cfg(target_os = "linux")]
    if direct.is_some() && memory_backed(dir) {
        refused();
        direct = None;
    }
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
                refused();
                direct = None;
                create(false)?
            }
            r => r?,
        };
        match direct {
            Some(buf) => match write_aligned(&f, bytes, buf) {
                Err(e) if refuses_direct(&e) => {
                    refused();
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
pub(crate) struct OutLock {
    _file: std::fs::File,
}

impl OutLock {
    pub(crate) fn acquire(out: &Path) -> io::Result<OutLock> {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        std::fs::create_dir_all(out)?;
        let path = out.join(".askzico.lock");
        // Never through a link, and never waiting on what is not a plain file: opening a FIFO
        // for writing blocks until a reader comes, so the open is non-blocking (a FIFO without
        // a reader then fails at once) and the type is checked on the open descriptor.
        let opened = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path);
        let kind = |t: std::fs::FileType| {
            if t.is_fifo() {
                "a FIFO"
            } else if t.is_char_device() || t.is_block_device() {
                "a device"
            } else if t.is_socket() {
                "a socket"
            } else if t.is_symlink() {
                "a symbolic link"
            } else if t.is_dir() {
                "a directory"
            } else {
                "not a regular file"
            }
        };
        let f = match opened {
            Ok(f) => f,
            Err(e) => {
                return Err(match std::fs::symlink_metadata(&path) {
                    Ok(m) if !m.is_file() => LockNotAFile::error(&path, kind(m.file_type())),
                    _ => e,
                });
            }
        };
        let meta = f.metadata()?;
        if !meta.is_file() {
            return Err(LockNotAFile::error(&path, kind(meta.file_type())));
        }
        // SAFETY: flock on a file descriptor this struct owns.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(OutLock { _file: f })
    }
}

/// Something other than a plain file (a FIFO, device, socket, link or directory) where the output
/// lock belongs: refused at once instead of waited on or written through.
#[derive(Debug, thiserror::Error)]
#[error("{} is {kind}, not askzico's lock file", path.display())]
pub(crate) struct LockNotAFile {
    pub path: PathBuf,
    pub kind: &'static str,
}

impl LockNotAFile {
    fn error(path: &Path, kind: &'static str) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            LockNotAFile {
                path: path.to_path_buf(),
                kind,
            },
        )
    }

    /// The refusal carried inside a lock error, if it is one.
    pub(crate) fn of(e: &io::Error) -> Option<&LockNotAFile> {
        e.get_ref()
            .and_then(|inner| inner.downcast_ref::<LockNotAFile>())
    }

    /// The diagnostic: which file, and the way out.
    pub(crate) fn problem(&self) -> crate::diag::Problem {
        crate::diag::Problem::error("lock", self.to_string())
            .in_file(self.path.display().to_string())
            .help(format!(
                "askzico locks its output directory with a plain file of that name; remove `{}` (askzico makes it again) and run again",
                self.path.display()
            ))
    }
}

/// Removes `.<name>.tmp-<pid>` files under `out` (cache included; or under any directory given)
/// whose writing process is gone:
/// what a build killed between writing a temp file and renaming it leaves. Files of a live
/// process (another build writing now) are kept. Best effort: errors are ignored. Linux only
/// (liveness is read from /proc); elsewhere nothing is removed.
pub(crate) fn remove_stale_temp_files(out: &Path) {
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

#[cfg(test)]
mod tests {
    use super::{Aligned, write_atomic_direct, write_new, write_new_direct};

    /// tmpfs is told apart from filesystems with a disk behind them, and a path that cannot be
    /// asked about counts as a disk (a direct write is then tried, as before).
    #[cfg(target_os = "linux")]
    #[test]
    fn memory_filesystems_are_told_apart() {
        use std::path::Path;
        let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
        // The filesystem mounted last at `dir` (a later mount hides an earlier one).
        let fs_at = |dir: &str| {
            mounts.lines().rev().find_map(|l| {
                let f: Vec<&str> = l.split(' ').collect();
                (f.get(1) == Some(&dir)).then(|| f.get(2).copied().unwrap_or(""))
            })
        };
        if fs_at("/dev/shm") == Some("tmpfs") {
            assert!(super::memory_backed(Path::new("/dev/shm")));
        }
        if let Some(fs) = fs_at("/") {
            assert_eq!(
                super::memory_backed(Path::new("/")),
                matches!(fs, "tmpfs" | "ramfs"),
                "/ is {fs}"
            );
        }
        assert!(!super::memory_backed(Path::new("/proc")));
        assert!(!super::memory_backed(Path::new("/no/such/directory")));
    }

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
        let mut buf = Aligned::new();
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
            write_new_direct(&new, &bytes, &mut buf).unwrap();
            assert_eq!(std::fs::read(&new).unwrap(), bytes, "new, {len} bytes");
            let replaced = t.path().join("cache/pack-00.mp");
            write_atomic_direct(&replaced, &bytes, &mut buf).unwrap();
            assert_eq!(
                std::fs::read(&replaced).unwrap(),
                bytes,
                "replaced, {len} bytes"
            );
        }
        assert_eq!(entries(&t.path().join("cache")), ["pack-00.mp"]);
        assert_eq!(entries(&t.path().join("lexical/md")).len(), 9);
    }
}
