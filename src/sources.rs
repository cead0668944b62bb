//! sources: reading one source file for a build — whole, within `[corpus] max_file_mb`, into
//! the shared buffer the database holds — with the problem a user sees when it cannot be read.

use std::path::Path;
use std::sync::Arc;

use crate::config::{Config, Library};
use crate::diag::Problem;

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

pub(crate) fn read_source(
    cfg: &Config,
    lib: &Library,
    path: &Path,
    rel: &str,
) -> Result<Arc<[u8]>, Problem> {
    read_source_meta(cfg, lib, path, rel).map(|(bytes, _)| bytes)
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
