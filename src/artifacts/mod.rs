//! artifacts: the coordinated outputs of one build, rendered in memory (pure) and then stored
//! content-addressed by `store`. Kinds: `chunks` (the chunk JSONL), `lookup` (KV hydration
//! records keyed by chunk_id), `lexical` (per-domain BM25 shards from search_text only) and
//! `vectors` (the embedder's vectors, vector ID = chunk_id). The manifest names them all.

mod disk;
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
/// only until the store writes them (`take_bytes`), so a build never keeps every artifact in
/// memory, and memoized renders stay small.
#[derive(Debug)]
pub(crate) struct Rendered {
    pub kind: Kind,
    /// Name before the content hash, e.g. `chunks/seneksar/000` or `lexical/faith/0003`.
    pub stem: String,
    pub ext: &'static str,
    body: std::sync::Mutex<Option<Vec<u8>>>,
    pub len: u64,
    pub records: usize,
    pub domain: Option<String>,
    pub library: Option<String>,
    hash: String,
}

impl Clone for Rendered {
    fn clone(&self) -> Self {
        Rendered {
            kind: self.kind,
            stem: self.stem.clone(),
            ext: self.ext,
            body: std::sync::Mutex::new(self.bytes()),
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
            body: std::sync::Mutex::new(Some(bytes)),
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
    pub(crate) fn bytes(&self) -> Option<Vec<u8>> {
        self.body.lock().map(|b| b.clone()).unwrap_or(None)
    }

    /// The bytes, handed over once (to the store, which writes them).
    pub(crate) fn take_bytes(&self) -> Option<Vec<u8>> {
        self.body.lock().ok().and_then(|mut b| b.take())
    }
}

/// Renders the chunks, lookup and vectors artifacts of one shard of a library's documents;
/// `shard` names it (`seneksar/003`), so an edit rewrites only its own shard's files.
pub(crate) fn render_library(
    library: &str,
    shard: &str,
    docs: &[&BuiltDoc],
    dims: usize,
) -> Vec<Rendered> {
    let _t = crate::timings::start(crate::timings::Stage::Serialize);
    let (chunks, lookup, n) = jsonl::chunks_and_lookup(docs);
    let ids_and_vectors: Vec<(&str, &[f32])> = docs
        .iter()
        .flat_map(|d| {
            d.chunks
                .iter()
                .map(|c| (c.chunk_id.as_str(), c.vector.as_slice()))
        })
        .collect();
    let vecs = vectors::encode(dims, ids_and_vectors.into_iter());
    let lib = Some(library.to_string());
    vec![
        Rendered::new(
            Kind::Chunks,
            format!("chunks/{shard}"),
            "jsonl",
            chunks,
            n,
            None,
            lib.clone(),
        ),
        Rendered::new(
            Kind::Lookup,
            format!("lookup/{shard}"),
            "jsonl",
            lookup,
            n,
            None,
            lib.clone(),
        ),
        Rendered::new(
            Kind::Vectors,
            format!("vectors/{shard}"),
            "bin",
            vecs.0,
            vecs.1,
            None,
            lib,
        ),
    ]
}
