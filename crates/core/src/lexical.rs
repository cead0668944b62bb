//! Lexical shards: per domain, a BM25 index over `search_text` tokens only, sharded by term hash
//! the way static search indexes are (a question reads only the shards of its terms).
//!
//! `lexical/<domain>/meta` holds `{domain, chunks, total_len, avgdl, shards, hash, width, docs}`:
//! the BM25 statistics and the domain's document table, read once per version. `docs` lists
//! every document of the domain with its *slot* and its chunks' lengths in tokens by chunk
//! index, sorted by slot: `[[slot, doc_id, [len₀, len₁, …]], …]`. A posting names a chunk by
//! its document's slot and its chunk index; the chunk ID is `doc_id + ":" + index` zero-padded
//! to `width` digits.
//!
//! A slot is a pure function of the document's ID and the domain's slot space (`slots`): the
//! blake3 of the ID modulo the space, which is 128 to 256 times the document count (a power of
//! two times 128), the rare collision resolved by the next free slot in `doc_id` order. So a
//! shard's bytes depend only on the postings of its own terms: adding, removing or renaming a
//! page rewrites the shards of that page's terms and the meta, nothing else (unless the space
//! or the shard count moves to its next rung, or the page collides with another one's slot).
//!
//! Term shard `k` holds the terms whose `fnv1a64(term) % shards == k`:
//! `{domain, shard, terms, alias_terms?, context_terms?, stem_terms?}`, each a map from term to a
//! flat list of integers. `terms` (search tokens) and `stem_terms` (stem keys, `normalize::stem`)
//! carry term frequencies: `[gap, index, tf, gap, index, tf, …]`; `alias_terms` (variants and
//! alias forms, never part of `search_text`) and `context_terms` (title and heading tokens) do
//! not: `[gap, index, …]`. Postings are sorted by (slot, index); `gap` is the slot minus the
//! previous posting's (the first one's is its slot). Lengths live in the meta, not in every
//! posting: a small edit changes the postings of the few terms it touches, not those of every
//! term of its chunk. No evidence text appears in any file.
//!
//! This module is the stored format, read and encoded; the build's writers (a part's postings,
//! full renders, the patches of a resumed build) are the CLI's `artifacts::lexical`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A chunk of a domain: its document's slot in the meta's table (`ord`) and its chunk index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChunkRef {
    pub ord: u32,
    pub index: u32,
}

/// One posting: a chunk and the term's frequency in it (1 for alias and context fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posting {
    pub chunk: ChunkRef,
    pub tf: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LexMeta {
    pub domain: String,
    pub chunks: usize,
    /// Sum of the chunks' lengths in tokens (`avgdl = total_len / chunks`).
    pub total_len: u64,
    pub avgdl: f64,
    pub shards: usize,
    pub hash: String,
    /// Digits of a chunk index in a chunk ID (zero-padded; a larger index prints in full).
    pub width: usize,
    /// Every document of the domain, sorted by slot: its slot, its ID and its chunks' lengths
    /// in `search_text` tokens, by chunk index. A posting names a document by its slot.
    pub docs: Vec<(u32, String, Vec<u32>)>,
}

impl LexMeta {
    /// The table entry of the document in `slot`.
    fn doc_at(&self, slot: u32) -> Option<&(u32, String, Vec<u32>)> {
        let i = self.docs.binary_search_by_key(&slot, |d| d.0).ok()?;
        self.docs.get(i)
    }

    /// The ID of a chunk a posting names, if the table has it.
    pub fn chunk_id(&self, c: ChunkRef) -> Option<String> {
        let (_, doc, lens) = self.doc_at(c.ord)?;
        ((c.index as usize) < lens.len()).then(|| format!("{doc}:{:0w$}", c.index, w = self.width))
    }

    /// The length in tokens of a chunk a posting names.
    pub fn len_of(&self, c: ChunkRef) -> Option<u32> {
        self.doc_at(c.ord)?.2.get(c.index as usize).copied()
    }

    /// The slot of a document (a scan: only patches of a few documents ask).
    pub fn slot_of(&self, doc_id: &str) -> Option<u32> {
        self.docs.iter().find(|d| d.1 == doc_id).map(|d| d.0)
    }

    /// Sets `chunks`, `total_len` and `avgdl` from the document table.
    pub fn recount(&mut self) {
        self.chunks = self.docs.iter().map(|d| d.2.len()).sum();
        self.total_len = self.docs.iter().flat_map(|d| &d.2).map(|l| *l as u64).sum();
        self.avgdl = avgdl(self.total_len, self.chunks);
    }
}

pub fn avgdl(total_len: u64, chunks: usize) -> f64 {
    if chunks == 0 {
        0.0
    } else {
        total_len as f64 / chunks as f64
    }
}

/// Slots per document of a domain's slot space (before rounding the count up to a power of
/// two): a new page lands on a taken slot, and moves the page that had it, with a chance
/// below 1/128.
const SLOT_SPREAD: u64 = 128;

/// The slot space of a domain of `docs` documents: the count rounded up to a power of two,
/// times `SLOT_SPREAD` (so it changes only when the domain doubles or halves), at most 2³².
pub fn slot_space(docs: usize) -> u64 {
    ((docs.max(1) as u64).next_power_of_two() * SLOT_SPREAD).min(1 << 32)
}

/// The slots of a domain's documents, given sorted by ID (and distinct): each the blake3 of its
/// ID modulo the slot space, or, when an earlier document holds that slot, the next free one.
pub fn slots(docs: &[&str]) -> Vec<u32> {
    let space = slot_space(docs.len());
    let mut taken = rustc_hash::FxHashSet::default();
    taken.reserve(docs.len());
    docs.iter()
        .map(|d| {
            let h = blake3::hash(d.as_bytes());
            let bytes: [u8; 8] = h.as_bytes()[..8].try_into().expect("8 bytes");
            let mut s = u64::from_le_bytes(bytes) % space;
            while !taken.insert(s) {
                s = (s + 1) % space;
            }
            s as u32
        })
        .collect()
}

/// A term shard as stored: per field, term → encoded postings (see the module docs).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LexShard {
    pub domain: String,
    pub shard: usize,
    /// Search tokens: `[gap, index, tf, …]`.
    pub terms: BTreeMap<String, Vec<u32>>,
    /// Additive tokens kept apart from `terms`: spelling variants and alias forms (the chunks
    /// holding them, `[gap, index, …]`); never part of `search_text`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub alias_terms: BTreeMap<String, Vec<u32>>,
    /// Title and section-heading tokens: the chunks under them (`[gap, index, …]`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub context_terms: BTreeMap<String, Vec<u32>>,
    /// Stem keys of the chunk's Arabic search tokens (`normalize::stem`), with their real term
    /// frequency (`[gap, index, tf, …]`); never part of `search_text`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stem_terms: BTreeMap<String, Vec<u32>>,
}

impl LexShard {
    pub fn map(&self, f: usize) -> &BTreeMap<String, Vec<u32>> {
        match f {
            0 => &self.terms,
            1 => &self.alias_terms,
            2 => &self.context_terms,
            _ => &self.stem_terms,
        }
    }

    pub fn map_mut(&mut self, f: usize) -> &mut BTreeMap<String, Vec<u32>> {
        match f {
            0 => &mut self.terms,
            1 => &mut self.alias_terms,
            2 => &mut self.context_terms,
            _ => &mut self.stem_terms,
        }
    }

    /// The postings of `term` in field `f` (0 terms, 1 alias, 2 context, 3 stem); alias and
    /// context postings have tf 1. `Err` when the encoded list is malformed.
    pub fn field(&self, f: usize, term: &str) -> Result<Vec<Posting>, String> {
        match self.map(f).get(term) {
            Some(list) => decode(list, has_tf(f)),
            None => Ok(Vec::new()),
        }
    }

    /// Every posting of every field, with its field and term (for `verify`).
    pub fn all(&self) -> impl Iterator<Item = (usize, &str, Result<Vec<Posting>, String>)> {
        (0..FIELDS).flat_map(move |f| {
            self.map(f)
                .iter()
                .map(move |(t, l)| (f, t.as_str(), decode(l, has_tf(f))))
        })
    }
}

/// Decodes a posting list (`[gap, index, tf?, …]`).
pub fn decode(list: &[u32], tf: bool) -> Result<Vec<Posting>, String> {
    let step = if tf { 3 } else { 2 };
    if !list.len().is_multiple_of(step) {
        return Err(format!(
            "a posting list of {} numbers is not a multiple of {step}",
            list.len()
        ));
    }
    let mut ord: u32 = 0;
    let mut out = Vec::with_capacity(list.len() / step);
    let mut prev: Option<ChunkRef> = None;
    for p in list.chunks_exact(step) {
        ord = ord
            .checked_add(p[0])
            .ok_or("a posting's ordinal overflows")?;
        let chunk = ChunkRef { ord, index: p[1] };
        if prev.is_some_and(|q| q >= chunk) {
            return Err(format!(
                "postings out of order at ordinal {ord}, index {}",
                p[1]
            ));
        }
        prev = Some(chunk);
        out.push(Posting {
            chunk,
            tf: if tf { p[2] } else { 1 },
        });
    }
    Ok(out)
}

/// Encodes postings sorted by chunk (see `decode`).
pub fn encode(postings: impl IntoIterator<Item = Posting>, tf: bool) -> Vec<u32> {
    let mut out = Vec::new();
    let mut prev = 0u32;
    for p in postings {
        out.push(p.chunk.ord - prev);
        out.push(p.chunk.index);
        if tf {
            out.push(p.tf);
        }
        prev = p.chunk.ord;
    }
    out
}

/// The shard of a term: FNV-1a 64 of its UTF-8 bytes, modulo the shard count.
pub fn shard_of(term: &str, shards: usize) -> usize {
    (crate::fnv::hash(term.as_bytes()) % shards.max(1) as u64) as usize
}

/// The number of postings fields of a shard.
pub const FIELDS: usize = 4;

/// Whether field `f` stores term frequencies (`terms`, `stem_terms`) or only chunks.
pub fn has_tf(f: usize) -> bool {
    f == 0 || f == 3
}
