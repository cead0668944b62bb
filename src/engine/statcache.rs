//! The stat cache: per source file the last builds read, its (size, mtime, ctime, inode, device)
//! and the blake3 of its bytes, in `out/cache/stat[.env].mp`. A fresh process takes a file's
//! hash from here instead of reading it when the file's stat is the recorded one, as git's index
//! does: a no-op or a one-file edit then reads only what changed (100k documents: 1.3 GB read and
//! hashed per no-op without it).
//!
//! - ctime is compared too: every change of content or times (`touch -d`, `tar`, `rsync -t`)
//!   sets it to now, and nothing but the kernel can set it back.
//! - Racy entries are not trusted: a file whose mtime or ctime is within `RACY_NS` of the moment
//!   the recording build started could have changed again within the same timestamp tick after
//!   it was read. It is read again, and recorded afresh, by the next build.
//! - A source compiled from a trusted entry is still checked: when its bytes are needed (a
//!   compile cache miss) they are read and must hash to the recorded value
//!   (`db::compiled`), or the build reports that the file changed during the build, and the
//!   engine forgets the stat cache, so that building again reads every file.
//! - Like every cache, it never shapes output: deleting it only costs time.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use serde::{Deserialize, Serialize};

/// Timestamps this close to the recording build's start are racy (2 s: the coarsest
/// timestamps in use, FAT's, tick every 2 s).
const RACY_NS: i128 = 2_000_000_000;

/// What the stat cache compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct FileStat {
    pub len: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    pub ino: u64,
    pub dev: u64,
}

impl FileStat {
    /// The stat of `meta` (Unix only: elsewhere there is no ctime to trust, and no cache).
    pub(super) fn of(meta: &std::fs::Metadata) -> Option<FileStat> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let ns = |s: i64, n: i64| s as i128 * 1_000_000_000 + n as i128;
            Some(FileStat {
                len: meta.len(),
                mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
                ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
                ino: meta.ino(),
                dev: meta.dev(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }
}

/// Now, in nanoseconds since the Unix epoch (the clock file timestamps use).
pub(super) fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct StatFile {
    /// When the build that recorded these entries started (`now_ns`).
    taken_at_ns: i128,
    entries: Vec<(String, FileStat, [u8; 32])>,
}

/// The recorded entries a fresh process may trust.
/// (Keyed by the paths' bytes: hashing a `Path` parses its components, and a no-op of 100k
/// documents looks every source up.)
#[derive(Debug, Default)]
pub(super) struct StatCache {
    entries: FxHashMap<OsString, (FileStat, [u8; 32])>,
}

impl StatCache {
    /// The stat and blake3 recorded for `path`, when its stat now is the recorded one.
    pub(super) fn hash_of(&self, path: &Path) -> Option<(FileStat, [u8; 32])> {
        let (recorded, hash) = self.entries.get(path.as_os_str())?;
        let meta = std::fs::metadata(path).ok()?;
        (meta.is_file() && FileStat::of(&meta).as_ref() == Some(recorded))
            .then_some((*recorded, *hash))
    }

    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Its file under `out/cache/` (`store::out_path`: never outside `out/`).
fn path(out: &Path, env: Option<&str>) -> std::io::Result<PathBuf> {
    let name = match env {
        Some(e) => format!("stat.{e}.mp"),
        None => "stat.mp".to_string(),
    };
    crate::artifacts::store::out_path(out, &format!("cache/{name}"))
}

/// The entries of the stat cache in `out` that are not racy; empty when there is none.
pub(super) fn load(out: &Path, env: Option<&str>) -> StatCache {
    // Anything unreadable, oversized or damaged is an empty cache (rebuilt by this build).
    let Some(file) = path(out, env)
        .ok()
        .and_then(|p| crate::fsio::read_capped(&p, crate::fsio::cap::CORPUS_STATE).ok())
        .and_then(|b| rmp_serde::from_slice::<StatFile>(&b).ok())
    else {
        return StatCache::default();
    };
    let settled = |t: i128| t < file.taken_at_ns - RACY_NS;
    let entries = file
        .entries
        .into_iter()
        .filter(|(_, s, _)| settled(s.mtime_ns) && settled(s.ctime_ns))
        .map(|(p, s, h)| (OsString::from(p), (s, h)))
        .collect();
    StatCache { entries }
}

/// Records `entries` (path, stat when read or checked, blake3) for a build that started at
/// `taken_at_ns` (best effort).
pub(super) fn save(
    out: &Path,
    env: Option<&str>,
    taken_at_ns: i128,
    entries: impl Iterator<Item = (PathBuf, FileStat, [u8; 32])>,
) {
    let file = StatFile {
        taken_at_ns,
        entries: entries
            .map(|(p, s, h)| (p.to_string_lossy().into_owned(), s, h))
            .collect(),
    };
    if let (Ok(bytes), Ok(path)) = (rmp_serde::to_vec(&file), path(out, env)) {
        let _ = crate::artifacts::store::write_atomic(&path, &bytes);
    }
}

/// Forgets the stat cache (best effort).
pub(super) fn clear(out: &Path, env: Option<&str>) {
    if let Ok(p) = path(out, env) {
        let _ = std::fs::remove_file(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The repository's project in a temp dir, its files older than the racy window.
    fn project() -> tempfile::TempDir {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let t = tempfile::tempdir().unwrap();
        std::fs::copy(repo.join("corpus.toml"), t.path().join("corpus.toml")).unwrap();
        for e in walkdir::WalkDir::new(repo.join("sources"))
            .into_iter()
            .map(Result::unwrap)
        {
            let to = t.path().join(e.path().strip_prefix(repo).unwrap());
            if e.file_type().is_dir() {
                std::fs::create_dir_all(&to).unwrap();
            } else {
                std::fs::copy(e.path(), &to).unwrap();
            }
        }
        t
    }

    #[test]
    fn a_wrong_recorded_hash_fails_one_build_and_is_forgotten() {
        use crate::engine::BuildRequest;
        let p = project();
        let out = p.path().join("out");
        let req = BuildRequest {
            out: out.clone(),
            env: None,
            progress: false,
            allow_empty: false,
        };
        let cfg = || crate::config::Config::load(&p.path().join("corpus.toml")).unwrap();
        let first = crate::engine::Engine::one_shot(cfg()).build(&req);
        let v1 = first.manifest.expect("builds").corpus_version;
        // A stat cache that trusts every file, with a wrong hash for one of them (what a stale
        // entry would be), and no compile cache to hide it.
        let file = p
            .path()
            .join("sources/articles/faq.md")
            .canonicalize()
            .unwrap();
        let entries: Vec<(PathBuf, FileStat, [u8; 32])> =
            walkdir::WalkDir::new(p.path().join("sources"))
                .into_iter()
                .map(Result::unwrap)
                .filter(|e| e.file_type().is_file())
                .map(|e| {
                    let path = e.path().canonicalize().unwrap();
                    let hash = if path == file {
                        [7; 32]
                    } else {
                        *blake3::hash(&std::fs::read(&path).unwrap()).as_bytes()
                    };
                    (path.clone(), stat_of(&path), hash)
                })
                .collect();
        save(&out, None, now_ns() + 3 * RACY_NS, entries.into_iter());
        std::fs::remove_dir_all(out.join("cache/compiled")).unwrap();
        let bad = crate::engine::Engine::one_shot(cfg()).build(&req);
        assert!(
            bad.problems
                .0
                .iter()
                .any(|p| p.cause == Some(crate::diag::Cause::ChangedDuringBuild)),
            "{:?}",
            bad.problems.0
        );
        assert!(load(&out, None).is_empty(), "the stat cache is forgotten");
        let again = crate::engine::Engine::one_shot(cfg()).build(&req);
        assert_eq!(again.manifest.expect("builds again").corpus_version, v1);
    }

    fn stat_of(p: &Path) -> FileStat {
        FileStat::of(&std::fs::metadata(p).unwrap()).unwrap()
    }

    #[test]
    fn an_entry_is_trusted_only_while_the_stat_is_the_same_and_not_racy() {
        let t = tempfile::tempdir().unwrap();
        let (a, b) = (t.path().join("a.md"), t.path().join("b.md"));
        std::fs::write(&a, "نص").unwrap();
        std::fs::write(&b, "نص آخر").unwrap();
        let (sa, sb) = (stat_of(&a), stat_of(&b));
        let out = t.path().join("out");
        // Recorded by a build that started well after both files were written: trusted.
        save(
            &out,
            None,
            now_ns() + 3 * RACY_NS,
            [(a.clone(), sa, [1; 32]), (b.clone(), sb, [2; 32])].into_iter(),
        );
        let c = load(&out, None);
        assert_eq!(
            (c.hash_of(&a), c.hash_of(&b)),
            (Some((sa, [1; 32])), Some((sb, [2; 32])))
        );
        // Same size, mtime set back to the recorded one: ctime still tells. (The pauses put the
        // changes on a later timestamp tick than the recorded stats.)
        std::thread::sleep(std::time::Duration::from_millis(50));
        let mtime = std::fs::metadata(&a).unwrap().modified().unwrap();
        std::fs::write(&a, "نس").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&a)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        assert_eq!(stat_of(&a).mtime_ns, sa.mtime_ns);
        assert_eq!(
            c.hash_of(&a),
            None,
            "a content change with the old mtime is seen"
        );
        assert_eq!(c.hash_of(&b), Some((sb, [2; 32])));
        // Recorded by a build that started as the files were written: racy, not trusted.
        save(&out, None, now_ns(), [(b.clone(), sb, [2; 32])].into_iter());
        assert!(load(&out, None).is_empty());
        // A file replaced by another (new inode) is not the recorded one.
        save(
            &out,
            None,
            now_ns() + 3 * RACY_NS,
            [(b.clone(), sb, [2; 32])].into_iter(),
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
        std::fs::remove_file(&b).unwrap();
        std::fs::write(&b, "نص آخر").unwrap();
        let c = load(&out, None);
        assert!(stat_of(&b).ino != sb.ino || stat_of(&b).ctime_ns != sb.ctime_ns);
        assert_eq!(c.hash_of(&b), None);
    }
}
