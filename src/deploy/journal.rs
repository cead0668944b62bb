//! The local deploy journal, `out/cache/deploy/<target>.json`: what each index is known to hold,
//! the pointer as last written, and the batches an unfinished deploy has had confirmed, so a rerun
//! finishes the same version without re-sending them. Never holds a token.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{DeployError, IndexState};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Journal {
    /// The pointer as this machine last wrote it.
    pub pointer: Option<Pointer>,
    /// Index name → what it holds after the last completed deploy into it.
    #[serde(default)]
    pub indexes: BTreeMap<String, IndexRecord>,
    /// An unfinished deploy.
    pub pending: Option<Pending>,
    /// Content-addressed KV keys this machine's deploys wrote and its GC has not deleted: what a
    /// plan without credentials takes as present.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub present: BTreeSet<String>,
}

pub(crate) use askzico_core::deployed::Pointer;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct IndexRecord {
    pub version: String,
    /// Vector ID → content hash.
    pub vectors: IndexState,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Pending {
    pub version: String,
    pub index: String,
    /// IDs of confirmed batches.
    pub done: BTreeSet<String>,
    /// The last mutationId Vectorize returned for this deploy.
    pub last_mutation: Option<String>,
    /// Vectorize reported the last mutation processed.
    #[serde(default)]
    pub vectors_applied: bool,
    /// A run waited the whole wait for `last_mutation` in vain: the next run asks once more, and
    /// sends the vector batches again if the index still has not applied it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wait_expired: bool,
}

/// The journal of a target: `out/cache/deploy/<target>.json`, the name a single file-name
/// component (`paths::component`) and the path inside `out/` (`store::out_path`).
pub(crate) fn path(out: &Path, target: &str) -> Result<PathBuf, DeployError> {
    let name = crate::paths::component(target)?;
    crate::artifacts::store::out_path(out, &format!("cache/deploy/{name}.json"))
        .map_err(DeployError::JournalPlace)
}

/// An exclusive lock on a target's journal (`<target>.lock` beside it), held while a deploy or
/// a rollback runs: a second one of the same target from this `out/` is refused at once instead
/// of writing the same inactive index. The file names the process holding it; the lock (not
/// the file) is what counts, so a killed deploy leaves nothing to clean up.
#[derive(Debug)]
pub(crate) struct Lock {
    _file: std::fs::File,
}

/// Takes the lock of the journal at `jpath`, without waiting.
pub(crate) fn lock(jpath: &Path, target: &str) -> Result<Lock, DeployError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let path = jpath.with_extension("lock");
    let io = |source: std::io::Error| DeployError::Io {
        path: path.clone(),
        writing: true,
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    // Never follow a link, never block on a FIFO; only a regular file is a lock.
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(&path)
        .map_err(io)?;
    if !file.metadata().map_err(io)?.is_file() {
        return Err(io(std::io::Error::other("not a regular file")));
    }
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let holder = std::fs::read_to_string(&path).unwrap_or_default();
            let holder = crate::term::line(holder.trim()).into_owned();
            return Err(DeployError::Busy {
                target: target.to_string(),
                lock: path,
                holder,
            });
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
    }
    file.set_len(0).map_err(io)?;
    write!(
        file,
        "process {} (askzico deploy --target {target})",
        std::process::id()
    )
    .map_err(io)?;
    Ok(Lock { _file: file })
}

/// Reads the journal; a missing file is an empty target.
pub(crate) fn load(path: &Path) -> Result<Journal, DeployError> {
    match crate::fsio::read_capped(path, crate::fsio::cap::CORPUS_STATE) {
        Ok(b) => serde_json::from_slice(&b).map_err(|detail| DeployError::CorruptJournal {
            path: path.to_path_buf(),
            detail,
        }),
        Err(e) if e.is_not_found() => Ok(Journal::default()),
        Err(crate::fsio::ReadError::Io(source)) => Err(DeployError::Io {
            path: path.to_path_buf(),
            writing: false,
            source,
        }),
        // Not a file askzico wrote: the help says how to start over (the index is then listed).
        Err(reason) => Err(DeployError::ForeignJournal {
            path: path.to_path_buf(),
            reason,
        }),
    }
}

pub(crate) fn save(path: &Path, j: &Journal) -> Result<(), DeployError> {
    let mut bytes = serde_json::to_vec_pretty(j).expect("journal serializes");
    bytes.push(b'\n');
    crate::artifacts::store::write_atomic(path, &bytes).map_err(|source| DeployError::Io {
        path: path.to_path_buf(),
        writing: true,
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Problem;

    /// A missing journal is an empty target; one that is not a file askzico wrote (over the
    /// cap, a FIFO) is refused without reading it, saying how to start over.
    #[test]
    fn journals_are_read_within_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.json");
        assert_eq!(load(&p).unwrap(), Journal::default());
        let f = std::fs::File::create(&p).unwrap();
        f.set_len(crate::fsio::cap::CORPUS_STATE + 1).unwrap(); // sparse
        let e = Problem::from(load(&p).unwrap_err());
        assert!(e.message.contains("larger than 1 GiB"), "{e}");
        assert!(e.help.as_deref().unwrap().contains("move it away"), "{e:?}");
        std::fs::remove_file(&p).unwrap();
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = load(&p).unwrap_err();
        assert!(e.to_string().contains("named pipe"), "{e}");
    }

    /// A journal cut short names its file and says what to do: move it away and deploy again,
    /// which lists the inactive index instead of trusting the journal.
    #[test]
    fn a_corrupt_journal_says_which_file_and_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("prod.json");
        std::fs::write(&p, "{\"pointer\": {\"version\": ").unwrap();
        let e = Problem::from(load(&p).unwrap_err());
        let shown = p.display().to_string();
        assert_eq!(e.code, "deploy-journal");
        assert!(
            e.message
                .starts_with(&format!("{shown} is not a deploy journal: EOF")),
            "{e}"
        );
        assert_eq!(
            e.help.as_deref(),
            Some(
                format!(
                    "move it away (`mv {shown} {shown}.bad`) and deploy again: the inactive index \
                     is then listed and every vector upserted; an unfinished deploy it recorded \
                     starts over"
                )
                .as_str()
            )
        );
    }

    /// A journal that cannot be written names the file and where to look.
    #[test]
    fn an_unwritable_journal_names_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("missing/prod.json");
        std::fs::write(dir.path().join("missing"), "a file, not a folder").unwrap();
        let e = Problem::from(save(&p, &Journal::default()).unwrap_err());
        assert!(
            e.message
                .starts_with(&format!("cannot write {}: ", p.display())),
            "{e}"
        );
        let help = e.help.unwrap();
        assert!(
            help.contains(&dir.path().join("missing").display().to_string())
                && help.contains("writable"),
            "{help}"
        );
    }
}
