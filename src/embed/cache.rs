//! The on-disk embedding cache: vectors keyed by blake3(canonical describe() JSON, 0x00, text),
//! so a rebuild embeds only texts it has not seen with the same provider settings. The cache is
//! an optimization only: a missing, stale or damaged cache changes no output, only the time.
//!
//! Layout: `<dir>/v1/<xx>.bin`, one append-only file per first key byte `xx` (hex). A record is
//!
//! ```text
//! magic "AZE1" | key: 32 bytes | dims: u32 LE | dims × f32 LE | check: 8 bytes
//! ```
//!
//! where `check` is the first 8 bytes of blake3(key ‖ dims ‖ values). A process killed mid-write
//! leaves a torn record; the loader skips anything that is not a whole record with a good check
//! (resyncing on the magic) and trims a damaged tail before appending. Writers hold an exclusive
//! `flock` on the shard file while they append or trim, so concurrent builds sharing a cache
//! do not interleave records.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::embed::{EmbedError, Embedder, canonical_json, check_vectors};
use crate::fsio::{ReadError, open_regular, read_open_capped};

const MAGIC: [u8; 4] = *b"AZE1";
const HEADER: usize = 4 + 32 + 4;
const CHECK: usize = 8;
/// More than any real model (Vectorize's maximum is 1536); a larger `dims` field is damage.
const MAX_DIMS: usize = 1 << 16;
const FORMAT_DIR: &str = "v1";

type Key = [u8; 32];

#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct CacheStats {
    /// Texts answered without calling the provider (a text repeated within one call counts as
    /// a hit after its first occurrence).
    pub hits: usize,
    /// Texts sent to the provider. `hits + misses` is the number of texts.
    pub misses: usize,
}

pub(crate) struct CachedEmbedder<E: Embedder> {
    inner: E,
    dir: PathBuf,
    /// blake3 state after the canonical describe() bytes and the 0x00 separator.
    key_prefix: blake3::Hasher,
    dims: usize,
    state: Mutex<State>,
}

struct State {
    shards: Vec<Shard>,
    /// The first cache I/O failure since the last `flush`, reported by it.
    io_error: Option<EmbedError>,
    /// After a failed write, stop writing (the cache is only an optimization).
    read_only: bool,
}

#[derive(Default)]
struct Shard {
    loaded: bool,
    file: Option<File>,
    /// key → offset of its record in the file.
    index: HashMap<Key, u64>,
    dirty: bool,
}

impl<E: Embedder> CachedEmbedder<E> {
    /// Opens (creating if needed) the cache under `dir`, e.g. `out/cache/embeddings`. Shards
    /// are read lazily, on first lookup.
    pub(crate) fn open(inner: E, dir: &Path) -> Result<Self, EmbedError> {
        let dir = dir.join(FORMAT_DIR);
        std::fs::create_dir_all(&dir).map_err(|e| {
            EmbedError::new(
                format!(
                    "could not create the embedding cache directory {}: {e}",
                    dir.display()
                ),
                "check that the output directory is writable, or choose another cache directory",
            )
        })?;
        let mut key_prefix = blake3::Hasher::new();
        key_prefix.update(canonical_json(&inner.describe()).as_bytes());
        key_prefix.update(&[0]);
        let dims = inner.dims();
        let shards = (0..256).map(|_| Shard::default()).collect();
        Ok(CachedEmbedder {
            inner,
            dir,
            key_prefix,
            dims,
            state: Mutex::new(State {
                shards,
                io_error: None,
                read_only: false,
            }),
        })
    }

    #[cfg(test)]
    pub(crate) fn inner(&self) -> &E {
        &self.inner
    }

    /// The cache key of one text under this provider's settings.
    pub(crate) fn key(&self, text: &str) -> [u8; 32] {
        let mut h = self.key_prefix.clone();
        h.update(text.as_bytes());
        *h.finalize().as_bytes()
    }

    /// Embeds with the cache: returns vectors plus (hits, misses) counts; only misses reach
    /// `inner`, in batches of `inner.batch_hint()`, each written to the cache as it arrives.
    /// A cache I/O failure does not fail this call (the vectors are still right); `flush`
    /// reports it.
    pub(crate) fn embed_all(
        &self,
        texts: &[&str],
    ) -> Result<(Vec<Vec<f32>>, CacheStats), EmbedError> {
        let keys: Vec<Key> = texts.iter().map(|t| self.key(t)).collect();
        let mut out: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        {
            let mut state = self.lock();
            for (slot, key) in out.iter_mut().zip(&keys) {
                *slot = state.get(&self.dir, key, self.dims);
            }
        }
        // Unique missing texts, by first occurrence.
        let mut first: HashMap<&Key, usize> = HashMap::new();
        let mut todo: Vec<usize> = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            if out[i].is_none() && !first.contains_key(key) {
                first.insert(key, i);
                todo.push(i);
            }
        }
        for chunk in todo.chunks(self.inner.batch_hint().max(1)) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            let vectors = self.inner.embed_batch(&batch)?;
            check_vectors("the embedding provider", &vectors, batch.len(), self.dims)?;
            let mut state = self.lock();
            state.append(&self.dir, chunk.iter().map(|&i| &keys[i]).zip(&vectors));
            for (&i, v) in chunk.iter().zip(vectors) {
                out[i] = Some(v);
            }
        }
        let misses = todo.len();
        let vectors = (0..texts.len())
            .map(|i| match &out[i] {
                Some(v) => v.clone(),
                None => out[first[&keys[i]]].clone().unwrap_or_default(),
            })
            .collect();
        Ok((
            vectors,
            CacheStats {
                hits: texts.len() - misses,
                misses,
            },
        ))
    }

    /// Makes the records written so far durable (fsync). Returns the first cache I/O failure
    /// since the last flush, if any: the vectors returned were still right, but the next build
    /// may have to embed those texts again.
    pub(crate) fn flush(&self) -> Result<(), EmbedError> {
        let mut state = self.lock();
        for shard in state.shards.iter_mut().filter(|s| s.dirty) {
            if let Some(f) = &shard.file
                && let Err(e) = f.sync_data()
            {
                return Err(cache_error(&self.dir, "could not sync", e));
            }
            shard.dirty = false;
        }
        match state.io_error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl<E: Embedder> Drop for CachedEmbedder<E> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// The cache is itself an embedder, so it can stand wherever a provider is expected.
impl<E: Embedder> Embedder for CachedEmbedder<E> {
    fn dims(&self) -> usize {
        self.dims
    }
    fn describe(&self) -> serde_json::Value {
        self.inner.describe()
    }
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_all(texts).map(|(v, _)| v)
    }
    fn batch_hint(&self) -> usize {
        self.inner.batch_hint()
    }
}

fn cache_error(dir: &Path, what: &str, e: impl std::fmt::Display) -> EmbedError {
    EmbedError::new(
        format!("embedding cache {}: {what}: {e}", dir.display()),
        "the build's output is unaffected; free disk space or fix permissions, or delete the cache directory",
    )
}

fn shard_path(dir: &Path, byte: u8) -> PathBuf {
    dir.join(format!("{byte:02x}.bin"))
}

fn check_of(key: &[u8], dims_le: &[u8], payload: &[u8]) -> [u8; CHECK] {
    let mut h = blake3::Hasher::new();
    h.update(key);
    h.update(dims_le);
    h.update(payload);
    let mut c = [0u8; CHECK];
    c.copy_from_slice(&h.finalize().as_bytes()[..CHECK]);
    c
}

fn record_len(dims: usize) -> usize {
    HEADER + 4 * dims + CHECK
}

fn encode_record(buf: &mut Vec<u8>, key: &Key, values: &[f32]) {
    let start = buf.len();
    buf.extend_from_slice(&MAGIC);
    buf.extend_from_slice(key);
    buf.extend_from_slice(&(values.len() as u32).to_le_bytes());
    for v in values {
        buf.extend_from_slice(&v.to_le_bytes());
    }
    let body = &buf[start + 4..];
    let check = check_of(&body[..32], &body[32..36], &body[36..]);
    buf.extend_from_slice(&check);
}

/// One whole, intact record at the start of `bytes`: its key, values and length.
fn decode_record(bytes: &[u8]) -> Option<(Key, Vec<f32>, usize)> {
    if bytes.len() < HEADER || bytes[..4] != MAGIC {
        return None;
    }
    let dims = u32::from_le_bytes(bytes[36..40].try_into().ok()?) as usize;
    if dims > MAX_DIMS || bytes.len() < record_len(dims) {
        return None;
    }
    let payload = &bytes[HEADER..HEADER + 4 * dims];
    let check = &bytes[HEADER + 4 * dims..record_len(dims)];
    if check_of(&bytes[4..36], &bytes[36..40], payload) != check {
        return None;
    }
    let key: Key = bytes[4..36].try_into().ok()?;
    let values = payload
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Some((key, values, record_len(dims)))
}

/// Scans a shard file's bytes: every intact record's (key, offset), and the end of the last
/// one. Damage is skipped by searching for the next magic.
fn scan_records(bytes: &[u8]) -> (Vec<(Key, u64)>, usize) {
    let mut found = Vec::new();
    let mut pos = 0;
    let mut valid_end = 0;
    while pos + HEADER <= bytes.len() {
        match decode_record(&bytes[pos..]) {
            Some((key, _, len)) => {
                found.push((key, pos as u64));
                pos += len;
                valid_end = pos;
            }
            None => {
                pos = match bytes[pos + 1..].windows(4).position(|w| w == MAGIC) {
                    Some(i) => pos + 1 + i,
                    None => bytes.len(),
                };
            }
        }
    }
    (found, valid_end)
}

impl State {
    fn record_error(&mut self, e: EmbedError) {
        self.io_error.get_or_insert(e);
    }

    fn get(&mut self, dir: &Path, key: &Key, dims: usize) -> Option<Vec<f32>> {
        let s = key[0] as usize;
        if !self.shards[s].loaded {
            self.load(dir, key[0]);
        }
        let shard = &mut self.shards[s];
        let offset = *shard.index.get(key)?;
        let file = shard.file.as_ref()?;
        let mut buf = vec![0u8; record_len(dims)];
        let intact = read_exact_at(file, &mut buf, offset)
            .ok()
            .and_then(|()| decode_record(&buf))
            .filter(|(k, v, _)| k == key && v.len() == dims);
        match intact {
            Some((_, values, _)) => Some(values),
            None => {
                // Changed under us (or another dims): treat as a miss; a fresh record will follow.
                shard.index.remove(key);
                None
            }
        }
    }

    fn load(&mut self, dir: &Path, byte: u8) {
        let path = shard_path(dir, byte);
        let shard = &mut self.shards[byte as usize];
        shard.loaded = true;
        // Only a regular file is opened (never a FIFO or a device in its place).
        let file = match open_regular(&path, OpenOptions::new().read(true).append(true)) {
            Ok(f) => f,
            Err(e) if e.is_not_found() => return,
            Err(e @ ReadError::Io(_)) => {
                // Perhaps a read-only cache: try reading without writing.
                match open_regular(&path, OpenOptions::new().read(true)) {
                    Ok(f) => f,
                    Err(_) => {
                        let err =
                            cache_error(dir, &format!("could not open {}", path.display()), e);
                        self.record_error(err);
                        return;
                    }
                }
            }
            Err(e) => {
                let err = cache_error(dir, &format!("could not open {}", path.display()), e);
                self.record_error(err);
                return;
            }
        };
        // Exclusive: we may trim a torn tail, and must not read a record being written.
        let _ = file.lock();
        let bytes = match read_open_capped(&file, crate::fsio::cap::CORPUS_STATE) {
            Ok(b) => b,
            Err(ReadError::TooLarge { .. }) => {
                // Far larger than any real shard: damage. Start it over, like a damaged tail.
                let _ = file.set_len(0);
                Vec::new()
            }
            Err(e) => {
                let _ = file.unlock();
                let err = cache_error(dir, &format!("could not read {}", path.display()), e);
                self.record_error(err);
                return;
            }
        };
        let (records, valid_end) = scan_records(&bytes);
        if valid_end < bytes.len() {
            // A torn or damaged tail: drop it so the next record starts on a clean boundary.
            // (Failure is harmless: the scanner resyncs on the magic anyway.)
            let _ = file.set_len(valid_end as u64);
        }
        let _ = file.unlock();
        let shard = &mut self.shards[byte as usize];
        shard.index.extend(records);
        shard.file = Some(file);
    }

    fn append<'a>(&mut self, dir: &Path, items: impl Iterator<Item = (&'a Key, &'a Vec<f32>)>) {
        if self.read_only {
            return;
        }
        let mut per_shard: Vec<Vec<(Key, usize, Vec<u8>)>> = vec![Vec::new(); 256];
        for (key, values) in items {
            let mut rec = Vec::with_capacity(record_len(values.len()));
            encode_record(&mut rec, key, values);
            per_shard[key[0] as usize].push((*key, rec.len(), rec));
        }
        for (byte, recs) in per_shard.into_iter().enumerate() {
            if recs.is_empty() {
                continue;
            }
            if let Err(e) = self.append_shard(dir, byte as u8, recs) {
                self.record_error(e);
                self.read_only = true;
                return;
            }
        }
    }

    fn append_shard(
        &mut self,
        dir: &Path,
        byte: u8,
        recs: Vec<(Key, usize, Vec<u8>)>,
    ) -> Result<(), EmbedError> {
        if !self.shards[byte as usize].loaded {
            self.load(dir, byte);
        }
        let shard = &mut self.shards[byte as usize];
        let path = shard_path(dir, byte);
        if shard.file.is_none() {
            std::fs::create_dir_all(dir)
                .map_err(|e| cache_error(dir, "could not create the directory", e))?;
            let f = open_regular(
                &path,
                OpenOptions::new().read(true).append(true).create(true),
            )
            .map_err(|e| cache_error(dir, &format!("could not create {}", path.display()), e))?;
            shard.file = Some(f);
        }
        let file = shard.file.as_ref().expect("opened above");
        let mut buf = Vec::with_capacity(recs.iter().map(|r| r.1).sum());
        for r in &recs {
            buf.extend_from_slice(&r.2);
        }
        let _ = file.lock();
        let written = file.metadata().map(|m| m.len()).and_then(|start| {
            (&*file).write_all(&buf)?;
            Ok(start)
        });
        let _ = file.unlock();
        let start = written
            .map_err(|e| cache_error(dir, &format!("could not write {}", path.display()), e))?;
        let mut offset = start;
        for (key, len, _) in recs {
            shard.index.insert(key, offset);
            offset += len as u64;
        }
        shard.dirty = true;
        Ok(())
    }
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
