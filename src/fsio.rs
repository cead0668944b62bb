//! Bounded reads of every file a command opens besides sources (those have `[corpus]
//! max_file_mb`): the config, eval fixtures and baselines, manifests and the artifacts they
//! name, deploy journals and the caches under `out/cache`. A read never allocates past its cap,
//! and anything but a regular file (a FIFO, a device such as `/dev/zero`, a directory) is
//! refused before a byte is read, without blocking. Also `resolve`: a path as the file system
//! will see it once its missing directories are made.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

const MIB: u64 = 1024 * 1024;

/// The cap of each kind of file: far above real use, far below what would exhaust a machine.
pub mod cap {
    use super::MIB;

    /// `corpus.toml`: a few KB in practice, alias tables included.
    pub const CONFIG: u64 = 16 * MIB;
    /// An eval fixture file, a baseline report or the checkpoint history: a case or a row is
    /// well under 1 KB, so this holds tens of thousands.
    pub const FIXTURES: u64 = 64 * MIB;
    /// A manifest: about 250 bytes per artifact file, and 100k documents make about 15k files
    /// (4 MB); the cap holds a million.
    pub const MANIFEST: u64 = 256 * MIB;
    /// Files that grow with the corpus: a deploy journal (a vector ID and hash per chunk and
    /// index), the stat cache and resume state (an entry per source), a compile cache pack
    /// (1/256 of the compiled corpus) and an embedding cache shard (1/256 of the vectors). At
    /// 100k documents (1 GB of sources) each is tens of MB at most.
    pub const CORPUS_STATE: u64 = 1024 * MIB;
    /// The build stamp: two hashes.
    pub const STAMP: u64 = MIB;
}

/// Why a bounded read failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("it is larger than {}, the limit for this kind of file", size(*cap))]
    TooLarge { cap: u64 },
    #[error("it is {kind}, not a regular file")]
    NotAFile { kind: &'static str },
    #[error("it is not UTF-8 text")]
    NotUtf8,
}

impl ReadError {
    /// The file does not exist (many readers treat that as "nothing yet").
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

/// A byte count as people say it: `16 MiB`, `1 GiB`, `300 bytes`.
pub(crate) fn size(bytes: u64) -> String {
    const KIB: u64 = 1024;
    match bytes {
        b if b >= 1024 * MIB && b % (1024 * MIB) == 0 => format!("{} GiB", b / (1024 * MIB)),
        b if b >= MIB && b % MIB == 0 => format!("{} MiB", b / MIB),
        b if b >= KIB && b % KIB == 0 => format!("{} KiB", b / KIB),
        b => format!("{b} bytes"),
    }
}

/// What a file that is not a regular file is, for the message.
fn kind_of(t: std::fs::FileType) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a named pipe (FIFO)");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    if t.is_dir() {
        Some("a directory")
    } else if t.is_file() {
        None
    } else {
        Some("a special file")
    }
}

/// Opens `path` with `opts` if it is a regular file. The type is checked before opening (so a
/// device is never opened) and again on the open file (the path may have changed between); the
/// open itself is non-blocking, so a FIFO swapped in between never hangs it.
pub(crate) fn open_regular(path: &Path, opts: &mut OpenOptions) -> Result<File, ReadError> {
    match std::fs::metadata(path) {
        Ok(m) => {
            if let Some(kind) = kind_of(m.file_type()) {
                return Err(ReadError::NotAFile { kind });
            }
        }
        // Nothing there yet: the open says so, or creates it when `opts` asks to.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e.into()),
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK has no effect on a regular file's reads and writes.
        opts.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = opts.open(path)?;
    if let Some(kind) = kind_of(file.metadata()?.file_type()) {
        return Err(ReadError::NotAFile { kind });
    }
    Ok(file)
}

/// The rest of an open file, at most `cap` bytes; more is `TooLarge`, and no more than
/// `cap + 1` bytes are ever held.
pub(crate) fn read_open_capped(file: &File, cap: u64) -> Result<Vec<u8>, ReadError> {
    let len = file.metadata()?.len();
    if len > cap {
        return Err(ReadError::TooLarge { cap });
    }
    // The size is a hint (the file may change while it is read); `take` is the bound.
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::TooLarge { cap });
    }
    Ok(bytes)
}

/// A regular file's bytes, at most `cap` of them.
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    let file = open_regular(path, OpenOptions::new().read(true))?;
    read_open_capped(&file, cap)
}

/// A regular file's text (UTF-8), at most `cap` bytes of it.
pub fn read_capped_string(path: &Path, cap: u64) -> Result<String, ReadError> {
    String::from_utf8(read_capped(path, cap)?).map_err(|_| ReadError::NotUtf8)
}

/// Resolves `p` as the file system will once its missing directories are made: absolute, the
/// symlinks of its existing part resolved, `.` and `..` of the rest applied.
pub(crate) fn resolve(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut cur = PathBuf::new();
    let mut exists = true;
    for c in abs.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => cur.push(c.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                cur.pop();
            }
            Component::Normal(n) => {
                cur.push(n);
                if exists {
                    match cur.canonicalize() {
                        Ok(real) => cur = real,
                        Err(_) => exists = false,
                    }
                }
            }
        }
    }
    cur
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn a_file_within_the_cap_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        for len in [0usize, 1, 99, 100] {
            std::fs::write(&p, vec![b'x'; len]).unwrap();
            assert_eq!(read_capped(&p, 100).unwrap().len(), len);
        }
        std::fs::write(&p, "نص").unwrap();
        assert_eq!(read_capped_string(&p, 100).unwrap(), "نص");
    }

    #[test]
    fn a_file_over_the_cap_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, vec![b'x'; 101]).unwrap();
        let e = read_capped(&p, 100).unwrap_err();
        assert!(matches!(e, ReadError::TooLarge { cap: 100 }), "{e:?}");
        assert_eq!(
            e.to_string(),
            "it is larger than 100 bytes, the limit for this kind of file"
        );
    }

    /// A file whose size says nothing (procfs) is still bounded by reading.
    #[test]
    fn a_file_that_reports_no_size_is_bounded_by_reading() {
        let p = Path::new("/proc/self/status");
        if !p.exists() {
            return;
        }
        assert!(matches!(
            read_capped(p, 10),
            Err(ReadError::TooLarge { cap: 10 })
        ));
        assert!(!read_capped(p, 1 << 20).unwrap().is_empty());
    }

    #[test]
    fn devices_and_directories_are_refused_without_reading() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_capped(dir.path(), 100).unwrap_err();
        assert!(
            matches!(
                e,
                ReadError::NotAFile {
                    kind: "a directory"
                }
            ),
            "{e:?}"
        );
        let zero = Path::new("/dev/zero");
        if zero.exists() {
            let e = read_capped(zero, u64::MAX).unwrap_err();
            assert_eq!(
                e.to_string(),
                "it is a character device, not a regular file"
            );
            // A link to it is followed and refused the same way.
            let link = dir.path().join("zero");
            std::os::unix::fs::symlink(zero, &link).unwrap();
            assert!(matches!(
                read_capped(&link, u64::MAX),
                Err(ReadError::NotAFile { .. })
            ));
        }
    }

    /// A FIFO with no writer would block a plain open forever.
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("fifo");
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let started = Instant::now();
        let e = read_capped(&p, 100).unwrap_err();
        assert_eq!(
            e.to_string(),
            "it is a named pipe (FIFO), not a regular file"
        );
        // Opened directly (the check before opening skipped), the open does not block either.
        let e = {
            use std::os::unix::fs::OpenOptionsExt;
            let f = OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&p)
                .unwrap();
            kind_of(f.metadata().unwrap().file_type())
        };
        assert_eq!(e, Some("a named pipe (FIFO)"));
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn missing_and_non_utf8_files_say_so() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("absent");
        assert!(read_capped(&p, 100).unwrap_err().is_not_found());
        std::fs::write(&p, b"\xff").unwrap();
        assert!(matches!(
            read_capped_string(&p, 100),
            Err(ReadError::NotUtf8)
        ));
    }

    #[test]
    fn sizes_read_as_people_say_them() {
        assert_eq!(size(cap::CONFIG), "16 MiB");
        assert_eq!(size(cap::CORPUS_STATE), "1 GiB");
        assert_eq!(size(2048), "2 KiB");
        assert_eq!(size(1000), "1000 bytes");
    }
}
