//! The local deploy journal, `out/cache/deploy/<target>.json`: what each index is known to hold,
//! the pointer as last written, and the batches an unfinished deploy has had confirmed, so a rerun
//! finishes the same version without re-sending them. Never holds a token.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::IndexState;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Journal {
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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pointer {
    pub version: String,
    pub index: String,
    /// The KV key scheme of the version (`keys::LAYOUT`); absent: layout 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<u32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IndexRecord {
    pub version: String,
    /// Vector ID → content hash.
    pub vectors: IndexState,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Pending {
    pub version: String,
    pub index: String,
    /// IDs of confirmed batches.
    pub done: BTreeSet<String>,
    /// The last mutationId Vectorize returned for this deploy.
    pub last_mutation: Option<String>,
    /// Vectorize reported the last mutation processed.
    #[serde(default)]
    pub vectors_applied: bool,
}

/// The journal of a target: `out/cache/deploy/<target>.json`, the name a single file-name
/// component (`paths::component`) and the path inside `out/` (`store::out_path`).
pub fn path(out: &Path, target: &str) -> Result<PathBuf, String> {
    let name = crate::paths::component(target).map_err(|e| format!("deploy target {e}"))?;
    crate::artifacts::store::out_path(out, &format!("cache/deploy/{name}.json"))
        .map_err(|e| e.to_string())
}

/// Reads the journal; a missing file is an empty target.
pub fn load(path: &Path) -> Result<Journal, String> {
    match crate::fsio::read_capped(path, crate::fsio::cap::CORPUS_STATE) {
        Ok(b) => serde_json::from_slice(&b)
            .map_err(|e| format!("{} is not a deploy journal: {e}", path.display())),
        Err(e) if e.is_not_found() => Ok(Journal::default()),
        Err(e @ crate::fsio::ReadError::Io(_)) => {
            Err(format!("cannot read {}: {e}", path.display()))
        }
        // Not a file askzico wrote: say how to start over (the index is then listed).
        Err(e) => Err(format!(
            "cannot read the deploy journal {}: {e}; move it away and deploy again (the inactive index is then listed and every vector upserted)",
            path.display()
        )),
    }
}

pub fn save(path: &Path, j: &Journal) -> Result<(), String> {
    let mut bytes = serde_json::to_vec_pretty(j).expect("journal serializes");
    bytes.push(b'\n');
    crate::artifacts::store::write_atomic(path, &bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A missing journal is an empty target; one that is not a file askzico wrote (over the
    /// cap, a FIFO) is refused without reading it, saying how to start over.
    #[test]
    fn journals_are_read_within_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.json");
        assert_eq!(load(&p).unwrap(), Journal::default());
        let f = std::fs::File::create(&p).unwrap();
        f.set_len(crate::fsio::cap::CORPUS_STATE + 1).unwrap(); // sparse
        let e = load(&p).unwrap_err();
        assert!(
            e.contains("larger than 1 GiB") && e.contains("move it away"),
            "{e}"
        );
        std::fs::remove_file(&p).unwrap();
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = load(&p).unwrap_err();
        assert!(e.contains("named pipe"), "{e}");
    }
}
