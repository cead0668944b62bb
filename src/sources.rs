//! sources: reading one source file for a build — whole, within `[corpus] max_file_mb`, into
//! the shared buffer the database holds — with the problem a user sees when it cannot be read.

use std::path::Path;
use std::sync::Arc;

use crate::config::{Config, Library};
use crate::diag::Problem;
use crate::extract::{Includes, include};
use crate::timings::{Stage, timed};

/// Test hook: `ASKZICO_TEST_DELETE_BEFORE_READ=<library>/<rel>` deletes that source file after
/// discovery listed it and right before it is read, so a test meets the race of a file removed
/// mid-build deterministically. Compiled only with the `test-hooks` feature.
#[cfg(feature = "test-hooks")]
fn test_delete_before_read(lib: &Library, rel: &str, path: &Path) {
    if crate::knobs::text(crate::knobs::TEST_DELETE_BEFORE_READ)
        .is_some_and(|target| target == format!("{}/{rel}", lib.id))
    {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(not(feature = "test-hooks"))]
fn test_delete_before_read(_: &Library, _: &str, _: &Path) {}

/// A source as a build reads it: its bytes, the files it includes, and its content hash, which
/// covers both (`Includes::digest`).
pub(crate) struct PageRead {
    pub bytes: Arc<[u8]>,
    pub includes: Includes,
    /// The canonical paths of the included files.
    pub included: Vec<std::path::PathBuf>,
    pub hash: [u8; 32],
    pub meta: std::fs::Metadata,
}

/// Reads a source, then the files it includes (`read_includes`), and hashes them.
pub(crate) fn read_page(
    cfg: &Config,
    lib: &Library,
    path: &Path,
    rel: &str,
) -> Result<PageRead, Problem> {
    let (bytes, meta) = timed(Stage::Read, || read_source_meta(cfg, lib, path, rel))?;
    let own = *timed(Stage::Hash, || blake3::hash(&bytes)).as_bytes();
    let (includes, included) = timed(Stage::Read, || read_includes(cfg, lib, rel, &bytes));
    let hash = includes.digest(own);
    Ok(PageRead {
        bytes,
        includes,
        included,
        hash,
        meta,
    })
}

/// `read_source`, with the file's metadata as it was before it was read.
///
/// The bytes are read straight into their shared buffer: reading into a `Vec` and moving it
/// into an `Arc<[u8]>` copied every source once more (10k documents: ~110 MB copied, and as
/// much fresh memory faulted in, by the read phase's threads at once).
pub(crate) fn read_source_meta(
    cfg: &Config,
    lib: &Library,
    path: &Path,
    rel: &str,
) -> Result<(Arc<[u8]>, std::fs::Metadata), Problem> {
    use std::io::Read;
    let display = lib.display_name(rel);
    test_delete_before_read(lib, rel, path);
    let gone = |e: std::io::Error| {
        let help = match e.kind() {
            std::io::ErrorKind::NotFound => {
                "the file was deleted or moved during the build; build again"
            }
            std::io::ErrorKind::PermissionDenied => {
                "make the file readable (chmod +r), or exclude it in corpus.toml"
            }
            _ => "check the file and its permissions, or exclude it in corpus.toml",
        };
        Problem::error("read", format!("cannot read: {e}"))
            .in_file(display.clone())
            .help(help)
    };
    let too_large = |len: u64| {
        Problem::error(
            "too-large",
            format!(
                "{len} bytes is over the {} MiB limit per source file",
                cfg.max_file_bytes / (1024 * 1024)
            ),
        )
        .in_file(display.clone())
        .help("split the file, exclude it, or raise `max_file_mb` under [corpus]")
    };
    let mut file = std::fs::File::open(path).map_err(gone)?;
    let meta = file.metadata().map_err(gone)?;
    let len = meta.len();
    if len > cfg.max_file_bytes {
        return Err(too_large(len));
    }
    // One allocation of the file's size, zeroed in place (an iterator of known length).
    let mut shared: Arc<[u8]> = std::iter::repeat_n(0u8, len as usize).collect();
    let buf = Arc::get_mut(&mut shared).expect("a new Arc is unique");
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(gone(e)),
        }
    }
    // A file that shrank or grew while it was read (rare): what it holds now, never more than
    // the limit.
    let mut more = Vec::new();
    file.take(cfg.max_file_bytes + 1 - filled as u64)
        .read_to_end(&mut more)
        .map_err(gone)?;
    if filled < buf.len() || !more.is_empty() {
        let mut bytes = buf[..filled].to_vec();
        bytes.extend_from_slice(&more);
        if bytes.len() as u64 > cfg.max_file_bytes {
            return Err(too_large(bytes.len() as u64));
        }
        shared = Arc::from(bytes);
    }
    Ok((shared, meta))
}

/// The files a page of an mdBook library includes (`extract::include`), read, and their
/// canonical paths (a watch maps an event on one to the pages that include it). Only files
/// inside the folder that holds the library's root are read (a book's `src/` includes from
/// `../listings/`), each and all together within `[corpus] max_file_mb`; a file that cannot be
/// read, or is not UTF-8, is left out, and the page notes its include as left out.
pub(crate) fn read_includes(
    cfg: &Config,
    lib: &Library,
    rel: &str,
    bytes: &[u8],
) -> (Includes, Vec<std::path::PathBuf>) {
    let mut inc = Includes::default();
    let mut paths = Vec::new();
    if lib.generator != crate::extract::Generator::Mdbook {
        return (inc, paths);
    }
    let Ok(page) = std::str::from_utf8(bytes) else {
        return (inc, paths);
    };
    let root = lib.root.canonicalize().ok();
    let Some(book) = root
        .as_deref()
        .map(|r| r.parent().unwrap_or(r).to_path_buf())
    else {
        return (inc, paths);
    };
    let mut budget = cfg.max_file_bytes;
    let mut tried = std::collections::BTreeSet::new();
    let mut queue: Vec<(String, usize)> = include::wanted(page, include::dir_of(rel))
        .into_iter()
        .map(|k| (k, 1))
        .collect();
    while let Some((key, depth)) = queue.pop() {
        if depth > include::MAX_DEPTH || !tried.insert(key.clone()) {
            continue;
        }
        let Some(path) = lib.root.join(&key).canonicalize().ok() else {
            continue;
        };
        if !path.starts_with(&book) {
            continue; // a symlink out of the book
        }
        let text = std::fs::metadata(&path)
            .ok()
            .filter(|m| m.is_file() && m.len() <= budget)
            .and_then(|_| std::fs::read(&path).ok())
            .and_then(|b| String::from_utf8(b).ok());
        let Some(text) = text else { continue };
        budget = budget.saturating_sub(text.len() as u64);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        queue.extend(
            include::wanted(text, include::dir_of(&key))
                .into_iter()
                .map(|k| (k, depth + 1)),
        );
        inc.insert(key, Arc::from(text));
        paths.push(path);
    }
    (inc, paths)
}

#[cfg(test)]
mod read_tests {
    use super::*;

    fn config(dir: &Path, max_file_mb: Option<u64>) -> Config {
        let limit = max_file_mb.map_or(String::new(), |mb| format!("max_file_mb = {mb}\n"));
        let toml =
            format!("[corpus]\nname = \"t\"\n{limit}\n[[library]]\nid = \"lib\"\nroot = \".\"\n");
        Config::parse(&toml, "corpus.toml", dir, &dir.join("corpus.toml")).unwrap()
    }

    /// A file is read whole into its shared buffer; one larger than the limit is refused.
    #[test]
    fn sources_are_read_whole_and_within_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = config(dir.path(), Some(1));
        for len in [0usize, 1, 4095, 4096, 70_000, 1 << 20] {
            let path = dir.path().join(format!("f{len}.md"));
            let body: Vec<u8> = (0..len).map(|i| b"abc\n"[i % 4]).collect();
            std::fs::write(&path, &body).unwrap();
            let (bytes, meta) = read_source_meta(&cfg, &cfg.libraries[0], &path, "f.md").unwrap();
            assert_eq!((&bytes[..], meta.len()), (&body[..], len as u64), "{len}");
        }
        let path = dir.path().join("big.md");
        std::fs::write(&path, vec![b'a'; (1 << 20) + 1]).unwrap();
        let e = read_source_meta(&cfg, &cfg.libraries[0], &path, "big.md").unwrap_err();
        assert_eq!(e.code, "too-large");
    }

    /// A file whose bytes do not match its stat length (here a /proc file, length 0, the way a
    /// file that grows while it is read looks) is read to its end, and the limit still holds.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_longer_than_its_stat_is_read_to_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = config(dir.path(), None);
        let path = Path::new("/proc/self/cmdline");
        let (bytes, meta) = read_source_meta(&cfg, &cfg.libraries[0], path, "cmdline").unwrap();
        assert_eq!(meta.len(), 0);
        assert!(!bytes.is_empty() && bytes.ends_with(b"\0"), "{bytes:?}");
        let mut small = cfg.clone();
        small.max_file_bytes = 2;
        let e = read_source_meta(&small, &small.libraries[0], path, "cmdline").unwrap_err();
        assert_eq!(e.code, "too-large");
    }
}
