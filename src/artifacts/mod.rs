//! artifacts: the coordinated outputs of one build, rendered in memory (pure) and then stored
//! content-addressed by `store`. Kinds: `chunks` (the chunk JSONL), `lookup` (KV hydration
//! records keyed by chunk_id), `lexical` (per-domain BM25 shards from search_text only) and
//! `vectors` (the embedder's vectors, vector ID = chunk_id). The manifest names them all.

pub(crate) mod disk;
pub(crate) mod gc;
mod jsonl;
pub(crate) mod lexical;
pub(crate) mod manifest;
pub(crate) mod marker;
pub(crate) mod store;
pub(crate) mod vectors;
pub(crate) mod verify;
pub(crate) mod writer;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::identity::{ChunkId, DocId};
use crate::text::{SearchText, Text, Tokens};

/// One chunk as the build produced it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuiltChunk {
    pub chunk_id: ChunkId,
    pub index: usize,
    pub text: Text,
    pub search_text: SearchText,
    /// Additive lexical tokens of the text kept apart from `search_text`: spelling variants
    /// (dagger alef read as ا, Uthmani madda). The index adds those of each search word (the
    /// MSA forms of colloquial words, article and light stems: `normalize::WordExtras`).
    pub extra_tokens: Tokens,
    /// Search tokens of where the chunk sits — document title and section headings — a
    /// separate field so a question naming the title matches every chunk under it.
    pub context_tokens: Tokens,
    pub heading_path: Vec<String>,
    /// Where each section the chunk holds begins in `text` (a byte offset) and the heading id a
    /// link to it takes ("" for the page's top): `chunk::ChunkSpan::section_anchors`.
    pub anchors: Vec<(usize, String)>,
    /// Byte range of the chunk in the document's extracted text.
    pub span: (usize, usize),
    pub vector: Vec<f32>,
}

/// One document as the build produced it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuiltDoc {
    pub doc_id: DocId,
    pub library: String,
    pub source: String,
    pub title: String,
    pub url: String,
    pub domains: Vec<String>,
    pub metadata: Map<String, Value>,
    pub chunks: Vec<BuiltChunk>,
}

/// A chunk record as stored in a chunks file (read side).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct ChunkRecord {
    pub doc_id: String,
    pub chunk_id: String,
    pub library: String,
    pub source: String,
    pub title: String,
    pub url: String,
    pub chunk_index: usize,
    pub domains: Vec<String>,
    pub text: String,
    pub anchors: Vec<(usize, String)>,
    pub search_text: String,
    pub metadata: Map<String, Value>,
}

/// A KV hydration record (read side): the core's, which a runtime reads too.
pub(crate) use askzico_core::tables::LookupRecord;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Chunks,
    Lookup,
    Lexical,
    Vectors,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Chunks => "chunks",
            Kind::Lookup => "lookup",
            Kind::Lexical => "lexical",
            Kind::Vectors => "vectors",
        }
    }
}

/// One rendered artifact file. Its blake3 is computed once, when rendered; its bytes are held
/// only until the store writes them (`take_body`), so a build never keeps every artifact in
/// memory, and memoized renders stay small.
#[derive(Debug)]
pub(crate) struct Rendered {
    pub kind: Kind,
    /// Name before the content hash, e.g. `chunks/seneksar/000` or `lexical/faith/0003`.
    pub stem: String,
    pub ext: &'static str,
    body: std::sync::Mutex<Option<Body>>,
    pub len: u64,
    pub records: usize,
    pub domain: Option<String>,
    pub library: Option<String>,
    hash: String,
}

/// A rendered artifact's bytes until the store takes them: in memory, or, for a large shard
/// file, in an unnamed file of the directory it is stored in, written as it was rendered
/// (`render_library`), which the store links under its name.
#[derive(Debug)]
pub(crate) enum Body {
    Bytes(Vec<u8>),
    Spilled(std::fs::File),
}

impl Body {
    fn try_clone(&self) -> Option<Body> {
        match self {
            Body::Bytes(b) => Some(Body::Bytes(b.clone())),
            Body::Spilled(f) => f.try_clone().ok().map(Body::Spilled),
        }
    }

    /// The bytes, read back from a spilled file.
    pub(crate) fn into_bytes(self, len: u64) -> std::io::Result<Vec<u8>> {
        match self {
            Body::Bytes(b) => Ok(b),
            Body::Spilled(f) => {
                use std::os::unix::fs::FileExt;
                let mut b = vec![0; usize::try_from(len).map_err(std::io::Error::other)?];
                f.read_exact_at(&mut b, 0)?;
                Ok(b)
            }
        }
    }
}

impl Clone for Rendered {
    fn clone(&self) -> Self {
        Rendered {
            kind: self.kind,
            stem: self.stem.clone(),
            ext: self.ext,
            body: std::sync::Mutex::new(
                self.body
                    .lock()
                    .ok()
                    .and_then(|b| b.as_ref().and_then(Body::try_clone)),
            ),
            len: self.len,
            records: self.records,
            domain: self.domain.clone(),
            library: self.library.clone(),
            hash: self.hash.clone(),
        }
    }
}

/// Two renders are equal when they name the same content: the hash stands for the bytes.
impl PartialEq for Rendered {
    fn eq(&self, o: &Self) -> bool {
        (
            self.kind,
            &self.stem,
            self.ext,
            self.len,
            self.records,
            &self.domain,
            &self.library,
            &self.hash,
        ) == (
            o.kind, &o.stem, o.ext, o.len, o.records, &o.domain, &o.library, &o.hash,
        )
    }
}
impl Eq for Rendered {}

/// An artifact's name before its content hash (`<dir>/<name>.<hash>.<ext>`): `meta` or a
/// lexical shard's number (`0003`).
pub(crate) fn artifact_name(path: &str) -> &str {
    let file = path.rsplit('/').next().unwrap_or("");
    file.split('.').next().unwrap_or("")
}

impl Rendered {
    pub(crate) fn new(
        kind: Kind,
        stem: String,
        ext: &'static str,
        bytes: Vec<u8>,
        records: usize,
        domain: Option<String>,
        library: Option<String>,
    ) -> Self {
        let hash = crate::timings::blake3(&bytes).to_hex().to_string();
        let len = bytes.len() as u64;
        Rendered {
            kind,
            stem,
            ext,
            body: std::sync::Mutex::new(Some(Body::Bytes(bytes))),
            len,
            records,
            domain,
            library,
            hash,
        }
    }

    /// The content-addressed path under `out/`: `<stem>.<first 16 hex of blake3>.<ext>`.
    pub(crate) fn path_and_hash(&self) -> (String, String) {
        (
            format!("{}.{}.{}", self.stem, &self.hash[..16], self.ext),
            self.hash.clone(),
        )
    }

    /// A copy of the bytes, if the store has not taken them yet.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> Option<Vec<u8>> {
        let body = self.body.lock().ok()?.as_ref()?.try_clone()?;
        body.into_bytes(self.len).ok()
    }

    /// The bytes, handed over once (to the store, which writes them).
    pub(crate) fn take_body(&self) -> Option<Body> {
        self.body.lock().ok().and_then(|mut b| b.take())
    }
}

/// Where the vectors of a shard's chunks come from.
#[derive(Clone, Copy)]
pub(crate) enum VectorSource<'a> {
    /// The inline `hash` embedder: a chunk's own vector when it was made at compile (an engine
    /// that builds again keeps them, so an edit embeds only its own chunks), else made here.
    Hash(&'a askzico_core::embed::HashEmbedder),
    /// A non-inline provider's, one per chunk in order (`db::shard_vectors`).
    Given(&'a [Vec<f32>]),
}

/// Where a large chunks, lookup or vectors file is rendered instead of memory
/// (`Body::Spilled`): the output directory, and the size from which a file goes there.
#[derive(Clone, Copy)]
pub(crate) struct Spill<'a> {
    pub out: &'a std::path::Path,
    pub min: usize,
}

impl<'a> Spill<'a> {
    /// From 64 MiB: a shard of many small records would otherwise hold hundreds of megabytes
    /// of records and vectors at once, per thread; a shard of pages (≈100 KB of vectors)
    /// never spills.
    pub(crate) fn at(out: &'a std::path::Path) -> Self {
        Spill { out, min: 64 << 20 }
    }
}

/// Renders the chunks, lookup and vectors artifacts of one shard of a library's documents;
/// `shard` names it (`seneksar/003`), so an edit rewrites only its own shard's files. A large
/// file is written as it is rendered to an unnamed file of `spill`, when given.
pub(crate) fn render_library(
    library: &str,
    shard: &str,
    docs: &[&BuiltDoc],
    dims: usize,
    vectors: VectorSource<'_>,
    spill: Option<Spill<'_>>,
) -> Vec<Rendered> {
    let _t = crate::timings::start(crate::timings::Stage::Serialize);
    let lib = Some(library.to_string());
    let all: Vec<&BuiltChunk> = docs.iter().flat_map(|d| &d.chunks).collect();
    let vector = |i: usize| -> Option<(&str, std::borrow::Cow<'_, [f32]>)> {
        let c = all.get(i)?;
        let v = match vectors {
            VectorSource::Hash(_) if !c.vector.is_empty() => {
                std::borrow::Cow::Borrowed(&c.vector[..])
            }
            VectorSource::Hash(h) => {
                let _t = crate::timings::start(crate::timings::Stage::Embed);
                std::borrow::Cow::Owned(h.embed(c.search_text.as_str()))
            }
            VectorSource::Given(v) => {
                std::borrow::Cow::Borrowed(v.get(i).map_or(&[][..], |v| &v[..]))
            }
        };
        Some((c.chunk_id.as_str(), v))
    };
    let (chunks_len, lookup_len, n) = jsonl::estimates(docs);
    let vectors_len = vectors::encoded_len(dims, all.iter().map(|c| c.chunk_id.as_str().len()));
    let big = |len: usize| spill.filter(|s| len >= s.min);
    let stems = [
        format!("chunks/{shard}"),
        format!("lookup/{shard}"),
        format!("vectors/{shard}"),
    ];
    // Spilling only saves memory: where it fails, the file is rendered in memory (and the
    // store then reports what is wrong with the output directory).
    let jsonl = big(chunks_len.max(lookup_len))
        .and_then(|s| {
            let (mut c, mut l) = (
                SpillWriter::open(s, &stems[0])?,
                SpillWriter::open(s, &stems[1])?,
            );
            jsonl::chunks_and_lookup_into(docs, &mut c, &mut l).ok()?;
            Some([
                c.finish(Kind::Chunks, &stems[0], "jsonl", n, &lib)?,
                l.finish(Kind::Lookup, &stems[1], "jsonl", n, &lib)?,
            ])
        })
        .unwrap_or_else(|| {
            let (chunks, lookup, n) = jsonl::chunks_and_lookup(docs);
            [
                Rendered::new(
                    Kind::Chunks,
                    stems[0].clone(),
                    "jsonl",
                    chunks,
                    n,
                    None,
                    lib.clone(),
                ),
                Rendered::new(
                    Kind::Lookup,
                    stems[1].clone(),
                    "jsonl",
                    lookup,
                    n,
                    None,
                    lib.clone(),
                ),
            ]
        });
    let vecs = big(vectors_len)
        .and_then(|s| {
            let mut w = SpillWriter::open(s, &stems[2])?;
            vectors::encode_into(&mut w, dims, all.len(), &vector).ok()?;
            w.finish(Kind::Vectors, &stems[2], "bin", all.len(), &lib)
        })
        .unwrap_or_else(|| {
            let mut bytes = Vec::with_capacity(vectors_len);
            vectors::encode_into(&mut bytes, dims, all.len(), &vector)
                .expect("writing to memory cannot fail");
            Rendered::new(
                Kind::Vectors,
                stems[2].clone(),
                "bin",
                bytes,
                all.len(),
                None,
                lib.clone(),
            )
        });
    let [chunks, lookup] = jsonl;
    vec![chunks, lookup, vecs]
}

/// A file written through a blake3 hasher: a spilled artifact's bytes and their hash in one pass.
struct SpillWriter {
    out: std::io::BufWriter<std::fs::File>,
    hasher: blake3::Hasher,
    len: u64,
}

impl SpillWriter {
    /// A writer into an unnamed file of the folder `stem`'s artifact is stored in; `None` where
    /// one cannot be made, or the folder is not a real one inside `out/` (`store::out_path`).
    fn open(spill: Spill<'_>, stem: &str) -> Option<Self> {
        let path = store::out_path(spill.out, stem).ok()?;
        let file = disk::spill_file(path.parent()?).ok()?;
        Some(SpillWriter {
            out: std::io::BufWriter::with_capacity(1 << 20, file),
            hasher: blake3::Hasher::new(),
            len: 0,
        })
    }

    /// The rendered artifact whose bytes this wrote; `None` when the last write fails.
    fn finish(
        self,
        kind: Kind,
        stem: &str,
        ext: &'static str,
        records: usize,
        library: &Option<String>,
    ) -> Option<Rendered> {
        let file = self.out.into_inner().ok()?;
        Some(Rendered {
            kind,
            stem: stem.to_string(),
            ext,
            body: std::sync::Mutex::new(Some(Body::Spilled(file))),
            len: self.len,
            records,
            domain: None,
            library: library.clone(),
            hash: self.hasher.finalize().to_hex().to_string(),
        })
    }
}

impl std::io::Write for SpillWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files rendered into unnamed files are stored under the names, and with the bytes, of
    /// the same files rendered in memory.
    #[test]
    fn spilled_files_are_stored_as_the_ones_rendered_in_memory() {
        let docs = [
            jsonl::tests::doc("a", serde_json::json!({"n": 1}), &["واحد", "اثنان"]),
            jsonl::tests::doc("b", serde_json::json!({}), &["ثلاثة"]),
        ];
        let refs: Vec<&BuiltDoc> = docs.iter().collect();
        let given = [vec![0.5f32, -0.25], vec![1.0, 0.0], vec![0.0, 1.0]];
        let t = tempfile::tempdir().unwrap();
        let render = |spill| {
            render_library(
                "lib",
                "lib/000",
                &refs,
                2,
                VectorSource::Given(&given),
                spill,
            )
        };
        let in_memory = render(None);
        let spilled = render(Some(Spill {
            out: t.path(),
            min: 0,
        }));
        assert_eq!(spilled, in_memory);
        let known = store::Known::default();
        for (s, m) in spilled.iter().zip(&in_memory) {
            assert!(matches!(*s.body.lock().unwrap(), Some(Body::Spilled(_))));
            assert!(matches!(*m.body.lock().unwrap(), Some(Body::Bytes(_))));
            let bytes = m.bytes().unwrap();
            assert_eq!(s.bytes().unwrap(), bytes);
            let (entry, w) = store::store_one(t.path(), s, &known).unwrap();
            assert_eq!((w.files_written, entry.bytes), (1, bytes.len() as u64));
            assert_eq!(std::fs::read(t.path().join(&entry.path)).unwrap(), bytes);
        }
        // Only the named files are left.
        for dir in ["chunks", "lookup", "vectors"] {
            let dir = t.path().join(dir).join("lib");
            assert_eq!(std::fs::read_dir(dir).unwrap().count(), 1);
        }
    }
}
