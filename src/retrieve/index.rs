//! A built version's query index: the rows of its tables a question needs, found by binary
//! search in one file instead of read whole, so a local query over a large version reads its
//! terms' shards, a few index pages and the lines of the records it returns.
//!
//! The index lives at `out/cache/query/<hash of the corpus version>.idx`. The first local query
//! of a version makes it from the version's files (what every query read before), later ones
//! only search it. It is a cache: derived from content-addressed files, written whole (temp
//! file and rename), checked against the manifest it serves, and never needed (a query that
//! cannot write or read it reads the version's files whole).
//!
//! Layout: the line `askzico-query-index 1`, then sorted tables, then a JSON header naming them
//! and, last, the header's length (8 bytes, little-endian). A table is its entries
//! (`key length: u32, key, value length: u32, value`, by key in byte order) followed by one
//! `u64` position per entry; numbers are little-endian. Tables:
//! - per lexical domain, its document table by slot (key: the slot, big-endian, so byte order
//!   is slot order; value: `[doc_id, [chunk lengths]]` in JSON), beside the meta's statistics
//!   in the header;
//! - every chunk by ID (value: where its line lies in the chunks files and in the lookup
//!   files, `file: u32, offset: u64, length: u32` each; file `u32::MAX` where it has none).

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::artifacts::Kind;
use crate::artifacts::lexical::LexMeta;
use crate::artifacts::manifest::{ArtifactEntry, Manifest};

const MAGIC: &[u8] = b"askzico-query-index 1\n";

/// Beyond this many keys, a table is read in one pass rather than searched key by key (a
/// common word's postings name most documents).
const SEARCHED_KEYS: usize = 2048;

/// Newest indexes kept in `out/cache/query/` (one per version queried; older ones go).
const KEPT: usize = 4;

/// No line location.
const NONE: u32 = u32::MAX;

/// Where one line lies: its file (an index into the header's list), offset and length.
pub(super) type LineAt = (u32, u64, u32);

/// Where a chunk's lines lie, by chunk ID: in the chunks files and in the lookup files (each
/// `None` where the version has none).
pub(super) type Lines = BTreeMap<String, (Option<LineAt>, Option<LineAt>)>;

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Table {
    /// Position of the entries' positions.
    at: u64,
    n: u64,
}

#[derive(Debug, Serialize, Deserialize)]
struct Domain {
    /// The domain's lexical meta without its document table.
    meta: LexMeta,
    slots: Table,
}

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    corpus_version: String,
    chunk_files: Vec<String>,
    lookup_files: Vec<String>,
    domains: Vec<Domain>,
    chunks: Table,
}

/// An open query index.
pub(super) struct Index {
    file: File,
    /// The file's length, which no entry reaches past.
    len: u64,
    path: PathBuf,
    header: Header,
}

/// Why an index could not be made: a version file that could not be read or parsed (the
/// problem the full read reports), or the index file that could not be written (an output
/// directory the user cannot write: the query then reads the version whole).
pub(super) enum MakeError {
    Version(crate::diag::Problem),
    Write,
}

/// The index file of `corpus_version` under `out`.
pub(super) fn path_of(out: &Path, corpus_version: &str) -> PathBuf {
    let name = blake3::hash(corpus_version.as_bytes()).to_hex();
    out.join("cache/query").join(format!("{}.idx", &name[..32]))
}

/// The chunk ID of a JSONL line (the rest is skipped unread).
#[derive(Deserialize)]
struct IdOf {
    chunk_id: String,
}

/// Every line of the version's `kind` files with its chunk ID and place.
fn lines_of(
    out: &Path,
    files: &[&ArtifactEntry],
    version: &super::local::Version<'_>,
) -> Result<Vec<(String, LineAt)>, crate::diag::Problem> {
    let mut all = Vec::new();
    for (f, a) in files.iter().enumerate() {
        let text = crate::artifacts::store::read_artifact_text(out, a)
            .map_err(|e| version.read_err(&a.path, e))?;
        let mut at = 0u64;
        for line in text.split_inclusive('\n') {
            let body = line.trim_end_matches('\n');
            if !body.is_empty() {
                let r: IdOf =
                    serde_json::from_str(body).map_err(|e| super::local::load_err(&a.path, e))?;
                let len =
                    u32::try_from(body.len()).map_err(|e| super::local::load_err(&a.path, e))?;
                all.push((r.chunk_id, (f as u32, at, len)));
            }
            at += line.len() as u64;
        }
    }
    all.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(all)
}

/// Appends a table of `entries` (sorted by key) to `buf`.
fn table<'e>(buf: &mut Vec<u8>, entries: impl Iterator<Item = (&'e [u8], Vec<u8>)>) -> Table {
    let mut at = Vec::new();
    for (k, v) in entries {
        at.push(buf.len() as u64);
        buf.extend_from_slice(&(k.len() as u32).to_le_bytes());
        buf.extend_from_slice(k);
        buf.extend_from_slice(&(v.len() as u32).to_le_bytes());
        buf.extend_from_slice(&v);
    }
    let t = Table {
        at: buf.len() as u64,
        n: at.len() as u64,
    };
    for p in at {
        buf.extend_from_slice(&p.to_le_bytes());
    }
    t
}

fn line_bytes(at: Option<LineAt>, v: &mut Vec<u8>) {
    let (f, o, l) = at.unwrap_or((NONE, 0, 0));
    v.extend_from_slice(&f.to_le_bytes());
    v.extend_from_slice(&o.to_le_bytes());
    v.extend_from_slice(&l.to_le_bytes());
}

/// Makes the index of the version `manifest` names in `out` and stores it in place.
pub(super) fn make(
    out: &Path,
    manifest: &Manifest,
    version: &super::local::Version<'_>,
) -> Result<PathBuf, MakeError> {
    let of = |k: Kind| -> Vec<&ArtifactEntry> {
        manifest.artifacts.iter().filter(|a| a.kind == k).collect()
    };
    let (chunk_files, lookup_files) = (of(Kind::Chunks), of(Kind::Lookup));
    let chunks = lines_of(out, &chunk_files, version).map_err(MakeError::Version)?;
    let lookup = lines_of(out, &lookup_files, version).map_err(MakeError::Version)?;
    let mut buf = MAGIC.to_vec();
    let mut domains = Vec::new();
    for a in of(Kind::Lexical) {
        if crate::artifacts::artifact_name(&a.path) != "meta" {
            continue;
        }
        let bytes = crate::artifacts::store::read_artifact(out, a)
            .map_err(|e| MakeError::Version(version.read_err(&a.path, e)))?;
        let mut meta: LexMeta = serde_json::from_slice(&bytes)
            .map_err(|e| MakeError::Version(super::local::load_err(&a.path, e)))?;
        let docs = std::mem::take(&mut meta.docs);
        let keys: Vec<[u8; 4]> = docs.iter().map(|d| d.0.to_be_bytes()).collect();
        let slots = table(
            &mut buf,
            keys.iter().zip(&docs).map(|(k, (_, doc, lens))| {
                (
                    &k[..],
                    serde_json::to_vec(&(doc, lens)).expect("a table row serializes"),
                )
            }),
        );
        domains.push(Domain { meta, slots });
    }
    // Every chunk ID of either kind, with its line in each.
    let mut ids: BTreeMap<&str, (Option<LineAt>, Option<LineAt>)> = BTreeMap::new();
    for (id, at) in &chunks {
        ids.entry(id).or_default().0 = Some(*at);
    }
    for (id, at) in &lookup {
        ids.entry(id).or_default().1 = Some(*at);
    }
    let chunks = table(
        &mut buf,
        ids.iter().map(|(id, (c, l))| {
            let mut v = Vec::with_capacity(32);
            line_bytes(*c, &mut v);
            line_bytes(*l, &mut v);
            (id.as_bytes(), v)
        }),
    );
    let paths = |files: &[&ArtifactEntry]| files.iter().map(|a| a.path.clone()).collect();
    let header = Header {
        corpus_version: manifest.corpus_version.clone(),
        chunk_files: paths(&chunk_files),
        lookup_files: paths(&lookup_files),
        domains,
        chunks,
    };
    let head = serde_json::to_vec(&header).expect("a header serializes");
    buf.extend_from_slice(&head);
    buf.extend_from_slice(&(head.len() as u64).to_le_bytes());
    let path = path_of(out, &manifest.corpus_version);
    let rel = path
        .strip_prefix(out)
        .expect("under out")
        .to_string_lossy()
        .into_owned();
    let at = crate::artifacts::store::out_path(out, &rel).map_err(|_| MakeError::Write)?;
    crate::artifacts::disk::write_atomic(&at, &buf).map_err(|_| MakeError::Write)?;
    forget_old(at.parent().expect("in a folder"));
    Ok(at)
}

/// Removes the indexes of `dir` beyond the newest [`KEPT`] (askzico's own files only: a name of
/// 32 hex digits and `.idx`).
fn forget_old(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.strip_suffix(".idx")
                .is_some_and(|h| h.len() == 32 && h.bytes().all(|b| b.is_ascii_hexdigit()))
                && e.file_type().is_ok_and(|t| t.is_file())
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (_, p) in found.into_iter().skip(KEPT) {
        let _ = std::fs::remove_file(p);
    }
}

fn bad(path: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{} is not a query index: {why}", path.display()),
    )
}

impl Index {
    /// Opens the index at `path` if it is the index of `manifest`'s version: `None` when it is
    /// missing, of another version or format, or names a file the manifest does not.
    pub(super) fn open(path: &Path, manifest: &Manifest) -> Option<Index> {
        let file = File::open(path).ok()?;
        if !file.metadata().ok()?.is_file() {
            return None;
        }
        let len = file.metadata().ok()?.len();
        let mut magic = vec![0; MAGIC.len()];
        file.read_exact_at(&mut magic, 0).ok()?;
        if magic != MAGIC || len < (MAGIC.len() + 8) as u64 {
            return None;
        }
        let mut n = [0; 8];
        file.read_exact_at(&mut n, len - 8).ok()?;
        let head_len = u64::from_le_bytes(n);
        let head_at = (len - 8).checked_sub(head_len)?;
        let mut head = vec![0; usize::try_from(head_len).ok()?];
        file.read_exact_at(&mut head, head_at).ok()?;
        let header: Header = serde_json::from_slice(&head).ok()?;
        let named = |paths: &[String], k: Kind| {
            paths.len() == manifest.artifacts.iter().filter(|a| a.kind == k).count()
                && paths.iter().all(|p| {
                    manifest
                        .artifacts
                        .iter()
                        .any(|a| a.kind == k && &a.path == p)
                })
        };
        let fits = |t: &Table| {
            t.n.checked_mul(8)
                .and_then(|n| t.at.checked_add(n))
                .is_some_and(|end| end <= head_at)
        };
        let ok = header.corpus_version == manifest.corpus_version
            && named(&header.chunk_files, Kind::Chunks)
            && named(&header.lookup_files, Kind::Lookup)
            && fits(&header.chunks)
            && header.domains.iter().all(|d| fits(&d.slots));
        ok.then(|| Index {
            file,
            len,
            path: path.to_path_buf(),
            header,
        })
    }

    /// The chunks files and the lookup files, as the index's line places number them.
    pub(super) fn files(&self) -> (&[String], &[String]) {
        (&self.header.chunk_files, &self.header.lookup_files)
    }

    /// Each domain's lexical meta holding the rows of its document table that `slots` names.
    pub(super) fn metas(
        &self,
        slots: &BTreeMap<String, BTreeSet<u32>>,
    ) -> io::Result<BTreeMap<String, LexMeta>> {
        let mut out = BTreeMap::new();
        for d in &self.header.domains {
            let mut meta = d.meta.clone();
            if let Some(want) = slots.get(&d.meta.domain) {
                let keys: Vec<[u8; 4]> = want.iter().map(|s| s.to_be_bytes()).collect();
                let keys: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
                for (k, v) in self.rows(d.slots, &keys)? {
                    let slot = u32::from_be_bytes(
                        k.try_into()
                            .map_err(|_| bad(&self.path, "a slot is not 4 bytes"))?,
                    );
                    let (doc, lens): (String, Vec<u32>) = serde_json::from_slice(&v)
                        .map_err(|_| bad(&self.path, "a document row is not JSON"))?;
                    meta.docs.push((slot, doc, lens));
                }
            }
            out.insert(d.meta.domain.clone(), meta);
        }
        Ok(out)
    }

    /// Where the lines of `ids` lie: in the chunks files, in the lookup files (each `None`
    /// where the version has none), by chunk ID.
    pub(super) fn lines(&self, ids: &[&str]) -> io::Result<Lines> {
        let mut sorted: Vec<&[u8]> = ids.iter().map(|i| i.as_bytes()).collect();
        sorted.sort_unstable();
        sorted.dedup();
        let mut out = BTreeMap::new();
        for (k, v) in self.rows(self.header.chunks, &sorted)? {
            let read = |at: usize| -> Option<LineAt> {
                let f = u32::from_le_bytes(v.get(at..at + 4)?.try_into().ok()?);
                let o = u64::from_le_bytes(v.get(at + 4..at + 12)?.try_into().ok()?);
                let l = u32::from_le_bytes(v.get(at + 12..at + 16)?.try_into().ok()?);
                (f != NONE).then_some((f, o, l))
            };
            if v.len() != 32 {
                return Err(bad(&self.path, "a chunk row is not 32 bytes"));
            }
            let id =
                String::from_utf8(k).map_err(|_| bad(&self.path, "a chunk ID is not UTF-8"))?;
            out.insert(id, (read(0), read(16)));
        }
        Ok(out)
    }

    /// The entries of table `t` whose keys are among `keys` (sorted, distinct), in key order:
    /// each found by binary search, or, for many keys, the table read in one pass.
    fn rows(&self, t: Table, keys: &[&[u8]]) -> io::Result<Vec<(Vec<u8>, Vec<u8>)>> {
        if keys.is_empty() || t.n == 0 {
            return Ok(Vec::new());
        }
        if keys.len() > SEARCHED_KEYS {
            let want: BTreeSet<&[u8]> = keys.iter().copied().collect();
            let first = self.position(t, 0)?;
            let mut all = vec![0; usize::try_from(t.at - first).map_err(io::Error::other)?];
            self.file.read_exact_at(&mut all, first)?;
            let mut out = Vec::new();
            let mut at = 0;
            for _ in 0..t.n {
                let (k, v, next) =
                    entry_in(&all, at).ok_or_else(|| bad(&self.path, "a table entry is cut"))?;
                if want.contains(k) {
                    out.push((k.to_vec(), v.to_vec()));
                }
                at = next;
            }
            return Ok(out);
        }
        let mut out = Vec::new();
        for key in keys {
            let (mut lo, mut hi) = (0, t.n);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                let pos = self.position(t, mid)?;
                let k = self.read_len_prefixed(pos)?;
                match k.as_slice().cmp(key) {
                    std::cmp::Ordering::Less => lo = mid + 1,
                    std::cmp::Ordering::Greater => hi = mid,
                    std::cmp::Ordering::Equal => {
                        let v = self.read_len_prefixed(pos + 4 + k.len() as u64)?;
                        out.push((k, v));
                        break;
                    }
                }
            }
        }
        Ok(out)
    }

    /// The position of entry `i` of table `t`.
    fn position(&self, t: Table, i: u64) -> io::Result<u64> {
        let mut b = [0; 8];
        self.file.read_exact_at(&mut b, t.at + 8 * i)?;
        let p = u64::from_le_bytes(b);
        if p >= t.at {
            return Err(bad(&self.path, "an entry lies past its table"));
        }
        Ok(p)
    }

    /// The bytes of a `u32` length and what follows it, at `pos`.
    fn read_len_prefixed(&self, pos: u64) -> io::Result<Vec<u8>> {
        let mut n = [0; 4];
        self.file.read_exact_at(&mut n, pos)?;
        let n = u64::from(u32::from_le_bytes(n));
        if pos + 4 + n > self.len {
            return Err(bad(&self.path, "an entry runs past the end of the file"));
        }
        let mut b = vec![0; n as usize];
        self.file.read_exact_at(&mut b, pos + 4)?;
        Ok(b)
    }
}

/// The key and value of the entry at `at` of a table's bytes, and where the next one begins.
fn entry_in(b: &[u8], at: usize) -> Option<(&[u8], &[u8], usize)> {
    let len = |at: usize| -> Option<usize> {
        Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as usize)
    };
    let kl = len(at)?;
    let k = b.get(at + 4..at + 4 + kl)?;
    let vat = at + 4 + kl;
    let vl = len(vat)?;
    let v = b.get(vat + 4..vat + 4 + vl)?;
    Some((k, v, vat + 4 + vl))
}
