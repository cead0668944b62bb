//! Lexical shards: per domain, a BM25 index over `search_text` tokens only, sharded by term hash
//! the way static search indexes are (a question reads only the shards of its terms).
//!
//! `lexical/<domain>/meta` holds `{domain, chunks, total_len, avgdl, shards, hash, width, docs}`:
//! the BM25 statistics and the domain's document table, read once per version. `docs` lists
//! every document of the domain, sorted by `doc_id`, each with its chunks' lengths in tokens by
//! chunk index: `[[doc_id, [len₀, len₁, …]], …]`. A posting names a chunk by its document's
//! position in that table (its *ordinal*) and its chunk index; the chunk ID is
//! `doc_id + ":" + index` zero-padded to `width` digits.
//!
//! Term shard `k` holds the terms whose `fnv1a64(term) % shards == k`:
//! `{domain, shard, terms, alias_terms?, context_terms?, stem_terms?}`, each a map from term to a
//! flat list of integers. `terms` (search tokens) and `stem_terms` (stem keys, `normalize::stem`)
//! carry term frequencies: `[gap, index, tf, gap, index, tf, …]`; `alias_terms` (variants and
//! alias forms, never part of `search_text`) and `context_terms` (title and heading tokens) do
//! not: `[gap, index, …]`. Postings are sorted by (ordinal, index); `gap` is the ordinal minus
//! the previous posting's (the first one's is its ordinal), so the common case is a digit or two.
//! Lengths live in the meta, not in every posting: a small edit changes the postings of the few
//! terms it touches, not those of every term of its chunk. No evidence text appears in any file.
//!
//! Ordinals change only when the domain's set of documents changes (a file added, removed or
//! renamed); such a build renders the domain's lexical files in full.

use std::collections::BTreeMap;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::{BuiltDoc, Kind, Rendered};
use crate::normalize::WordExtras;
use crate::text::prefix_key;

/// Target size of one shard, in estimated bytes (`Postings::estimate` runs 10–20 % above the
/// rendered JSON, so shards average ~70 KB); a Worker reads one shard per question term.
const SHARD_TARGET_BYTES: usize = 80 * 1024;

/// A chunk of a domain: its document's ordinal in the meta's table and its chunk index.
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
    /// Every document of the domain, sorted by `doc_id`: its chunks' lengths in `search_text`
    /// tokens, by chunk index. A posting's ordinal is a position in this list.
    pub docs: Vec<(String, Vec<u32>)>,
}

impl LexMeta {
    /// The ID of a chunk a posting names, if the table has it.
    pub fn chunk_id(&self, c: ChunkRef) -> Option<String> {
        let (doc, lens) = self.docs.get(c.ord as usize)?;
        ((c.index as usize) < lens.len()).then(|| format!("{doc}:{:0w$}", c.index, w = self.width))
    }

    /// The length in tokens of a chunk a posting names.
    pub fn len_of(&self, c: ChunkRef) -> Option<u32> {
        self.docs
            .get(c.ord as usize)?
            .1
            .get(c.index as usize)
            .copied()
    }

    /// The ordinal of a document.
    pub fn ord_of(&self, doc_id: &str) -> Option<u32> {
        self.docs
            .binary_search_by(|(d, _)| d.as_str().cmp(doc_id))
            .ok()
            .map(|i| i as u32)
    }

    /// Sets `chunks`, `total_len` and `avgdl` from the document table.
    fn recount(&mut self) {
        self.chunks = self.docs.iter().map(|(_, l)| l.len()).sum();
        self.total_len = self
            .docs
            .iter()
            .flat_map(|(_, l)| l)
            .map(|l| *l as u64)
            .sum();
        self.avgdl = avgdl(self.total_len, self.chunks);
    }
}

fn avgdl(total_len: u64, chunks: usize) -> f64 {
    if chunks == 0 {
        0.0
    } else {
        total_len as f64 / chunks as f64
    }
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
    fn map(&self, f: usize) -> &BTreeMap<String, Vec<u32>> {
        match f {
            0 => &self.terms,
            1 => &self.alias_terms,
            2 => &self.context_terms,
            _ => &self.stem_terms,
        }
    }

    fn map_mut(&mut self, f: usize) -> &mut BTreeMap<String, Vec<u32>> {
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

/// Postings of one term inside a `Postings` part: `(chunk index in the part, tf)`.
pub type LocalList = Vec<(u32, u32)>;

/// A hint to the CPU to fetch the cache line holding `*p` into its caches: no effect on
/// results (a no-op on other targets).
#[inline(always)]
fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and cannot fault (the address is a live reference's);
    // SSE, which it needs, is part of every x86_64 target.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (p as *const T).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// One postings field of a part, its terms sorted, in three flat arrays: the terms' bytes,
/// their postings `(local chunk, tf)`, and per term where each ends. A part holds tens of
/// thousands of terms; a `String` and a `Vec` each cost three allocations' worth of memory and
/// time, these cost none per term.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Field {
    text: String,
    postings: Vec<(u32, u32)>,
    /// Per term: the end of its bytes in `text` and of its postings in `postings`.
    ends: Vec<(u32, u32)>,
}

impl Field {
    /// A field from (term, postings) pairs in any order.
    pub fn from_terms<S: AsRef<str>>(mut terms: Vec<(S, LocalList)>) -> Field {
        terms.sort_unstable_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
        let mut f = Field {
            text: String::with_capacity(terms.iter().map(|(t, _)| t.as_ref().len()).sum()),
            postings: Vec::with_capacity(terms.iter().map(|(_, l)| l.len()).sum()),
            ends: Vec::with_capacity(terms.len()),
        };
        for (t, list) in &terms {
            f.text.push_str(t.as_ref());
            f.postings.extend_from_slice(list);
            f.ends.push((f.text.len() as u32, f.postings.len() as u32));
        }
        f
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn starts(&self, i: usize) -> (usize, usize) {
        if i == 0 {
            (0, 0)
        } else {
            (self.ends[i - 1].0 as usize, self.ends[i - 1].1 as usize)
        }
    }

    /// Term `i`.
    pub fn term(&self, i: usize) -> &str {
        &self.text[self.starts(i).0..self.ends[i].0 as usize]
    }

    /// Asks the CPU to bring the start of term `i`'s postings into its cache.
    #[inline]
    fn prefetch_list(&self, i: usize) {
        if let Some(p) = self.postings.get(self.starts(i).1) {
            prefetch(p);
        }
    }

    /// The postings of term `i`.
    pub fn list(&self, i: usize) -> &[(u32, u32)] {
        &self.postings[self.starts(i).1..self.ends[i].1 as usize]
    }

    /// The position of `term`, if the field has it.
    pub fn find(&self, term: &str) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.term(mid).cmp(term) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The total number of postings.
    pub fn postings_len(&self) -> usize {
        self.postings.len()
    }

    /// Mutable postings of term `i` (tests: a one-posting edit).
    pub fn list_mut(&mut self, i: usize) -> &mut [(u32, u32)] {
        let (a, b) = (self.starts(i).1, self.ends[i].1 as usize);
        &mut self.postings[a..b]
    }
}

/// The lexical contribution of a set of documents to one domain: its documents and chunks once,
/// and per field, its terms in order with their postings by local chunk index. Built per
/// document shard and merged per domain, so an edit re-tokenizes only its shard; IDs are not
/// copied per posting.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Postings {
    pub chunks: usize,
    pub total_len: u64,
    /// The part's documents, in order.
    pub docs: Vec<String>,
    /// Each chunk's document (an index into `docs`) and chunk index, by local chunk index.
    pub refs: Vec<(u32, u32)>,
    /// Digits of the chunk index in the chunk IDs (from the first chunk; 0 when empty).
    pub width: usize,
    /// Each chunk's ID length (what the size estimate counts), by local chunk index.
    id_lens: Vec<u32>,
    /// Each chunk's length in tokens, by local chunk index.
    pub lens: Vec<u32>,
    /// `terms`, `alias_terms`, `context_terms`, `stem_terms`: (term, postings), sorted by term.
    pub fields: [Field; FIELDS],
    /// This part's share of the serialized size (what the shard count is computed from).
    pub estimate: usize,
}

/// The postings of one field while a part is built, by term ID: one flat list of `(term, tf)`
/// in chunk order (where each chunk's entries start is kept once per chunk), grouped by term
/// only once at the end (`field`). A list per term would cost an allocation per term, and
/// adding to it reads the list's last entry: a cache miss per token on a large vocabulary.
struct Lists {
    /// Per term: the last chunk it was added to (`u32::MAX`: none yet) and that posting's place.
    last: Vec<(u32, u32)>,
    entries: Vec<(u32, u32)>,
    /// Per chunk with entries: the chunk and where its entries start.
    chunks: Vec<(u32, u32)>,
}

impl Lists {
    fn new() -> Self {
        Lists {
            last: Vec::new(),
            entries: Vec::new(),
            chunks: Vec::new(),
        }
    }

    /// Appends a posting of term `id` in chunk `chunk`.
    fn push(&mut self, id: u32, chunk: u32, tf: u32) {
        if self.chunks.last().is_none_or(|c| c.0 != chunk) {
            self.chunks.push((chunk, self.entries.len() as u32));
        }
        self.last[id as usize] = (chunk, self.entries.len() as u32);
        self.entries.push((id, tf));
    }

    /// Room for term IDs below `n`.
    fn grow(&mut self, n: usize) {
        if self.last.len() < n {
            self.last.resize(n, (u32::MAX, 0));
        }
    }

    /// Adds `tf` occurrences of term `id` to chunk `chunk` (chunks come in increasing order).
    fn add(&mut self, id: u32, chunk: u32, tf: u32) {
        let last = self.last[id as usize];
        if last.0 == chunk {
            self.entries[last.1 as usize].1 += tf;
        } else {
            self.push(id, chunk, tf);
        }
    }

    /// Adds term `id` to chunk `chunk` once (additive fields: presence, not frequency).
    fn add_once(&mut self, id: u32, chunk: u32) {
        if self.last[id as usize].0 != chunk {
            self.push(id, chunk, 1);
        }
    }

    /// The field of terms `terms` (by ID): sorted by term, each term's postings in chunk order
    /// (a counting sort by rank, which keeps the entries' order).
    fn field(self, terms: &[&str]) -> Field {
        let order = crate::text::sorted_order(terms);
        let mut rank = vec![0u32; terms.len()];
        for (r, &id) in order.iter().enumerate() {
            rank[id as usize] = r as u32;
        }
        let mut at = vec![0u32; terms.len() + 1];
        for e in &self.entries {
            at[rank[e.0 as usize] as usize + 1] += 1;
        }
        for r in 0..terms.len() {
            at[r + 1] += at[r];
        }
        let mut f = Field {
            text: String::with_capacity(terms.iter().map(|t| t.len()).sum()),
            postings: vec![(0, 0); self.entries.len()],
            ends: Vec::with_capacity(terms.len()),
        };
        for (r, &id) in order.iter().enumerate() {
            f.text.push_str(terms[id as usize]);
            f.ends.push((f.text.len() as u32, at[r + 1]));
        }
        for (k, &(chunk, start)) in self.chunks.iter().enumerate() {
            let end = self
                .chunks
                .get(k + 1)
                .map_or(self.entries.len(), |c| c.1 as usize);
            for &(id, tf) in &self.entries[start as usize..end] {
                let slot = &mut at[rank[id as usize] as usize];
                f.postings[*slot as usize] = (chunk, tf);
                *slot += 1;
            }
        }
        f
    }
}

/// Whether two byte strings are equal, compared a word at a time without a `memcmp` call
/// (words are a few bytes).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], i: usize| u64::from_ne_bytes(s[i..i + 8].try_into().expect("8 bytes"));
    let half = |s: &[u8], i: usize| u32::from_ne_bytes(s[i..i + 4].try_into().expect("4 bytes"));
    match n {
        // Whole words, the last one overlapping the one before.
        8.. => {
            (0..n - 8).step_by(8).all(|i| word(a, i) == word(b, i))
                && word(a, n - 8) == word(b, n - 8)
        }
        4..8 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        _ => a == b,
    }
}

/// Terms of one field while a part is built: each distinct term once, with its postings. A
/// part looks up every token of its chunks, so the table is small (a term ID per slot) and a
/// lookup compares the token with the term's copy in `text`, compact where the documents' bytes
/// are spread over memory (each a likely cache miss). Terms computed on the way (stem keys)
/// are interned the same way, without an allocation each.
struct Interner {
    ids: hashbrown::HashTable<u32>,
    /// Per term: its hash (the table's, when it grows).
    hashes: Vec<u64>,
    /// The terms one after another, and where each term ends.
    text: String,
    ends: Vec<u32>,
    lists: Lists,
}

/// Where item `id` starts and ends in a sequence whose items end at `ends` (the first at 0).
#[inline]
fn span_of(ends: &[u32], id: u32) -> std::ops::Range<usize> {
    let start = if id == 0 {
        0
    } else {
        ends[id as usize - 1] as usize
    };
    start..ends[id as usize] as usize
}

/// Term `id` of an interner's `text` and `ends`.
#[inline]
fn term_of<'b>(text: &'b str, ends: &[u32], id: u32) -> &'b str {
    &text[span_of(ends, id)]
}

impl Interner {
    fn new() -> Self {
        Interner {
            ids: hashbrown::HashTable::new(),
            hashes: Vec::new(),
            text: String::new(),
            ends: Vec::new(),
            lists: Lists::new(),
        }
    }

    fn id(&mut self, term: &str) -> u32 {
        use std::hash::BuildHasher;
        self.id_hashed(term, rustc_hash::FxBuildHasher.hash_one(term))
    }

    /// The ID of `term`, whose hash is `h`.
    fn id_hashed(&mut self, term: &str, h: u64) -> u32 {
        let (text, ends) = (&self.text, &self.ends);
        if let Some(&id) = self.ids.find(h, |&id| {
            same_bytes(&text.as_bytes()[span_of(ends, id)], term.as_bytes())
        }) {
            return id;
        }
        let id = self.ends.len() as u32;
        self.hashes.push(h);
        self.text.push_str(term);
        self.ends.push(self.text.len() as u32);
        self.lists.grow(self.ends.len());
        let hashes = &self.hashes;
        self.ids.insert_unique(h, id, |&id| hashes[id as usize]);
        id
    }

    /// Term `id`.
    fn term(&self, id: u32) -> &str {
        term_of(&self.text, &self.ends, id)
    }

    /// Adds one occurrence of `term` to chunk `chunk`.
    fn add(&mut self, term: &str, chunk: u32) {
        let id = self.id(term);
        self.lists.add(id, chunk, 1);
    }

    /// Adds `term` to chunk `chunk` once.
    fn add_once(&mut self, term: &str, chunk: u32) {
        let id = self.id(term);
        self.lists.add_once(id, chunk);
    }

    fn field(self) -> Field {
        let Interner {
            text, ends, lists, ..
        } = self;
        let terms: Vec<&str> = (0..ends.len() as u32)
            .map(|id| term_of(&text, &ends, id))
            .collect();
        lists.field(&terms)
    }
}

/// Postings of the chunks of `docs` that carry `domain`. The part takes the documents in `doc_id`
/// order (stable), so that its local chunk order is the order of the domain's table: a term's
/// postings from one part need no sorting when rendered. The alias field holds each chunk's
/// `extra_tokens` and the tokens `extras` gives for each of its search words (computed once per
/// distinct term of the part).
pub fn postings(domain: &str, docs: &[&BuiltDoc], extras: WordExtras) -> Postings {
    let _t = crate::timings::start(crate::timings::Stage::Index);
    let mut docs: Vec<&BuiltDoc> = docs
        .iter()
        .copied()
        .filter(|d| d.domains.iter().any(|x| x == domain))
        .collect();
    if !docs.is_sorted_by(|a, b| a.doc_id.as_str() <= b.doc_id.as_str()) {
        docs.sort_by(|a, b| a.doc_id.as_str().cmp(b.doc_id.as_str()));
    }
    let mut p = Postings::default();
    let [mut terms, mut alias, mut context, mut stems] = [
        Interner::new(),
        Interner::new(),
        Interner::new(),
        Interner::new(),
    ];
    // Stem keys: computed once per distinct term of the part (`stem_of[term id]`), interned.
    let mut stem_of: Vec<Option<u32>> = Vec::new();
    // Each term's word tokens as alias IDs, one after another: term `id`'s are
    // `extra_ids[span_of(&extra_end, id)]`.
    let (mut extra_ids, mut extra_end): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    for d in docs {
        for c in &d.chunks {
            let idx = p.refs.len() as u32;
            let first = terms.lists.entries.len();
            let mut len = 0u32;
            for t in c.search_text.tokens() {
                terms.add(t, idx);
                len += 1;
            }
            let pushed = p.push_chunk(
                d.doc_id.as_str(),
                c.index as u32,
                c.chunk_id.as_str().len(),
                len,
            );
            debug_assert_eq!(pushed, idx);
            debug_assert_eq!(
                c.chunk_id.as_str(),
                format!("{}:{:0w$}", d.doc_id.as_str(), c.index, w = p.width)
            );
            // The chunk's distinct terms with their tf, in order of first occurrence.
            for &(id, tf) in &terms.lists.entries[first..] {
                if stem_of.len() <= id as usize {
                    // A term new to the part (IDs are given in order, so this is the next one):
                    // its word tokens and stem key, once.
                    debug_assert_eq!((extra_end.len(), stem_of.len()), (id as usize, id as usize));
                    let term = terms.term(id);
                    extras.each(term, |t| extra_ids.push(alias.id(t)));
                    extra_end.push(extra_ids.len() as u32);
                    stem_of
                        .push(crate::normalize::stem::stem_key(term).map(|k| stems.id(k.as_str())));
                }
                if let Some(sid) = stem_of[id as usize] {
                    stems.lists.add(sid, idx, tf);
                }
                for &x in &extra_ids[span_of(&extra_end, id)] {
                    alias.lists.add_once(x, idx);
                }
            }
            // Additive fields count presence, not frequency.
            for t in c.extra_tokens.iter() {
                alias.add_once(t, idx);
            }
            for t in c.context_tokens.iter() {
                context.add_once(t, idx);
            }
        }
    }
    p.set_fields([terms.field(), alias.field(), context.field(), stems.field()]);
    p
}

impl Postings {
    /// Adds chunk `index` of document `doc` (IDs of `id_len` bytes, `len` tokens) and returns
    /// its local index. A document's chunks come together, in order.
    pub fn push_chunk(&mut self, doc: &str, index: u32, id_len: usize, len: u32) -> u32 {
        if self.docs.last().is_none_or(|d| d != doc) {
            self.docs.push(doc.to_string());
        }
        if index == 0 && self.width == 0 {
            self.width = id_len.saturating_sub(doc.len() + 1);
        }
        self.refs.push((self.docs.len() as u32 - 1, index));
        self.id_lens.push(id_len as u32);
        self.lens.push(len);
        self.chunks += 1;
        self.total_len += len as u64;
        self.refs.len() as u32 - 1
    }

    /// Sets the fields (sorting their terms) and the size estimate; the chunks must be in
    /// place. The estimate is a sum over chunks and postings (no per-term part), so it adds up
    /// over any grouping of the chunks: a resumed build derives a domain's total from the
    /// previous one and the edited files alone (`engine::resume`).
    pub fn set_fields(&mut self, fields: [Field; FIELDS]) {
        self.estimate = self.id_lens.iter().map(|l| *l as usize + 10).sum();
        for (f, field) in fields.into_iter().enumerate() {
            let per = if has_tf(f) {
                POSTING_BYTES + 2
            } else {
                POSTING_BYTES
            };
            self.estimate += field.postings_len() * per;
            self.fields[f] = field;
        }
    }

    /// A term's postings by document ID: `(doc_id, chunk index, tf)` in part order.
    fn resolved<'a>(
        &'a self,
        list: &'a [(u32, u32)],
    ) -> impl Iterator<Item = (&'a str, u32, u32)> + 'a {
        list.iter().map(|(c, tf)| {
            let (d, index) = self.refs[*c as usize];
            (self.docs[d as usize].as_str(), index, *tf)
        })
    }

    /// Whether the two parts hold the same chunks in the same local places.
    fn same_chunks(&self, other: &Postings) -> bool {
        self.docs == other.docs && self.refs == other.refs
    }
}

/// Estimated bytes of one posting without a frequency (`gap,index,`); one with adds 2.
const POSTING_BYTES: usize = 6;

/// A domain's document table: its documents sorted by ID, and per part the chunk each local
/// chunk index stands for.
pub struct Table<'a> {
    pub docs: Vec<&'a str>,
    pub chunks: Vec<Vec<ChunkRef>>,
}

/// The document table of a domain's parts (a document ID is unique in a build).
pub fn table<'a>(parts: &[&'a Postings]) -> Table<'a> {
    let mut docs: Vec<&str> = parts
        .iter()
        .flat_map(|p| p.docs.iter().map(String::as_str))
        .collect();
    docs.par_sort_unstable();
    docs.dedup();
    let ord: FxHashMap<&str, u32> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| (*d, i as u32))
        .collect();
    let chunks = parts
        .iter()
        .map(|p| {
            let ords: Vec<u32> = p.docs.iter().map(|d| ord[d.as_str()]).collect();
            p.refs
                .iter()
                .map(|&(d, index)| ChunkRef {
                    ord: ords[d as usize],
                    index,
                })
                .collect()
        })
        .collect();
    Table { docs, chunks }
}

/// Appends `s` as a JSON string, as serde_json writes it.
fn push_json_str(out: &mut Vec<u8>, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        serde_json::to_writer(&mut *out, s).expect("a string serializes");
    }
}

/// Appends a number as serde_json writes it (one digit without the formatter: most gaps, chunk
/// indexes and frequencies are one).
fn push_num(out: &mut Vec<u8>, num: &mut itoa::Buffer, n: u32) {
    if n < 10 {
        out.push(b'0' + n as u8);
    } else {
        out.extend_from_slice(num.format(n).as_bytes());
    }
}

/// Appends one term of a shard field, `"term":[gap,index,tf?,…]`, from its postings sorted by
/// chunk: the bytes serde_json writes for the same `LexShard` entry (`render_patched`; the unit
/// tests compare the two).
fn push_term(out: &mut Vec<u8>, term: &str, list: &[Posting], tf: bool) {
    let mut num = itoa::Buffer::new();
    push_json_str(out, term);
    out.extend_from_slice(b":[");
    let mut prev = 0u32;
    for (j, p) in list.iter().enumerate() {
        if j > 0 {
            out.push(b',');
        }
        push_num(out, &mut num, p.chunk.ord - prev);
        out.push(b',');
        push_num(out, &mut num, p.chunk.index);
        if tf {
            out.push(b',');
            push_num(out, &mut num, p.tf);
        }
        prev = p.chunk.ord;
    }
    out.push(b']');
}

/// The names of a shard's fields, in `LexShard`'s order.
const FIELD_NAMES: [&str; FIELDS] = ["terms", "alias_terms", "context_terms", "stem_terms"];

/// The bytes of a meta (the field order of `LexMeta`).
#[derive(Serialize)]
struct MetaOut<'a> {
    domain: &'a str,
    chunks: usize,
    total_len: u64,
    avgdl: f64,
    shards: usize,
    hash: &'static str,
    width: usize,
    docs: Vec<(&'a str, Vec<u32>)>,
}

/// The term-shard count of a domain whose parts are `parts` (see `shards_for`).
pub fn shard_count(parts: &[&Postings]) -> usize {
    shards_for(parts.iter().map(|p| p.estimate).sum())
}

/// The term-shard count for a domain's total size estimate: the rung of the ladder 1, 2, 3, 4,
/// 6, 8, 12, 16, 24… (powers of two and 1.5 times them) nearest in ratio to
/// `estimate / SHARD_TARGET_BYTES`, so shards average between 0.82× and 1.22× the target.
/// - A pure function of the estimate: the same inputs give the same shards on any machine and
///   in any build history.
/// - Rungs 1.33–1.5× apart: the count, and with it every term's shard, changes only when a
///   domain grows or shrinks by a third or more (then the domain's lexical files are all new).
/// - Not rounded up to a power of two: that made shards average 0.5–1× the target, up to twice
///   the files (each costs the filesystem far more than its bytes), for no gain to a Worker,
///   which reads one shard per term.
pub fn shards_for(estimate: usize) -> usize {
    let (e, t) = (estimate as u128, SHARD_TARGET_BYTES as u128);
    let mut a: u128 = 1;
    loop {
        let b = if a == 1 {
            2
        } else if a.is_power_of_two() {
            a / 2 * 3
        } else {
            a / 3 * 4
        };
        // Between the rungs `a < b`, `b` is nearer in ratio once estimate/target ≥ √(a·b).
        if e * e < a * b * t * t {
            return a as usize;
        }
        a = b;
    }
}

/// A part's terms dealt to the term shards they belong to: `(shard, field, term index)`,
/// sorted by shard. One flat list per part: a vector per (part, shard) pair grows with the
/// square of the corpus (parts and shards both grow with it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dealt(Vec<(u32, u8, u32)>);

impl Dealt {
    /// Where shard `k`'s entries start.
    fn start_of(&self, k: usize) -> usize {
        self.0.partition_point(|e| (e.0 as usize) < k)
    }

    /// The entries of shard `k` from `at` (a `start_of(k)`, or where shard `k - 1` ended).
    fn run(&self, k: usize, at: usize) -> &[(u32, u8, u32)] {
        let len = self.0[at..]
            .iter()
            .take_while(|e| e.0 as usize == k)
            .count();
        &self.0[at..at + len]
    }
}

pub fn deal(part: &Postings, shards: usize) -> Dealt {
    let _t = crate::timings::start(crate::timings::Stage::Index);
    let mut keyed: Vec<(u32, u8, u32)> =
        Vec::with_capacity(part.fields.iter().map(Field::len).sum());
    let shards = shards.max(1);
    let mut at = vec![0usize; shards + 1];
    for (f, field) in part.fields.iter().enumerate() {
        for i in 0..field.len() {
            let k = shard_of(field.term(i), shards) as u32;
            at[k as usize + 1] += 1;
            keyed.push((k, f as u8, i as u32));
        }
    }
    for k in 0..shards {
        at[k + 1] += at[k];
    }
    // A counting sort by shard: within a shard, fields and terms stay in order.
    let mut out = vec![(0, 0, 0); keyed.len()];
    for e in keyed {
        out[at[e.0 as usize]] = e;
        at[e.0 as usize] += 1;
    }
    Dealt(out)
}

/// Renders term shard `k` of a domain from its parts, their dealt entries and the domain's
/// table. A term's postings are sorted by chunk, so the bytes do not depend on how chunks are
/// grouped into parts.
pub fn render_shard(
    domain: &str,
    k: usize,
    parts: &[&Postings],
    dealt: &[&Dealt],
    table: &Table,
) -> Rendered {
    let runs: Vec<&[(u32, u8, u32)]> = dealt.iter().map(|d| d.run(k, d.start_of(k))).collect();
    render_runs(domain, k, parts, &runs, table)
}

/// Renders term shards `range`, in order. Each part's dealt list is walked once from the
/// range's start: looking every shard up in every part costs parts × shards searches, which
/// grows with the square of the corpus.
pub fn render_range(
    domain: &str,
    range: std::ops::Range<usize>,
    parts: &[&Postings],
    dealt: &[&Dealt],
    table: &Table,
    sink: &(dyn Fn(&Rendered) + Sync),
) -> Vec<Rendered> {
    let mut at: Vec<usize> = dealt.iter().map(|d| d.start_of(range.start)).collect();
    let mut out = Vec::with_capacity(range.len());
    for k in range {
        let runs: Vec<&[(u32, u8, u32)]> =
            dealt.iter().zip(&at).map(|(d, &a)| d.run(k, a)).collect();
        for (a, r) in at.iter_mut().zip(&runs) {
            *a += r.len();
        }
        let r = render_runs(domain, k, parts, &runs, table);
        sink(&r);
        out.push(r);
    }
    out
}

/// Term shards rendered together by one task of a full render.
pub const SHARDS_PER_TASK: usize = 16;

/// Renders term shard `k` from each part's run of dealt entries for it: `LexShard`'s fields in
/// order, the additive ones skipped when empty, each field's terms merged across the parts in
/// term order and written straight out (no map per shard, no list per term).
fn render_runs(
    domain: &str,
    k: usize,
    parts: &[&Postings],
    runs: &[&[(u32, u8, u32)]],
    table: &Table,
) -> Rendered {
    let _t = crate::timings::start(crate::timings::Stage::Serialize);
    let mut out = Vec::with_capacity(64 + runs_size(parts, runs));
    out.extend_from_slice(b"{\"domain\":");
    push_json_str(&mut out, domain);
    out.extend_from_slice(b",\"shard\":");
    out.extend_from_slice(itoa::Buffer::new().format(k).as_bytes());
    let mut records = 0;
    // (term's first bytes, term, part, term index in the part), and one term's postings: reused
    // across fields.
    let mut merged: Vec<(u64, &str, u32, u32)> = Vec::new();
    let mut list: Vec<Posting> = Vec::new();
    for (f, name) in FIELD_NAMES.into_iter().enumerate() {
        merged.clear();
        for (pi, (p, run)) in parts.iter().zip(runs).enumerate() {
            // A run is sorted by field, then term.
            let (a, b) = (
                run.partition_point(|e| (e.1 as usize) < f),
                run.partition_point(|e| (e.1 as usize) <= f),
            );
            merged.extend(run[a..b].iter().map(|e| {
                let field = &p.fields[f];
                // The term's postings are read once the field's terms are merged; they lie in
                // term order, far apart in a shard's order: asked for now, while the merge reads
                // the terms, not one cache miss at a time in the loop below.
                field.prefetch_list(e.2 as usize);
                let t = field.term(e.2 as usize);
                (prefix_key(t), t, pi as u32, e.2)
            }));
        }
        if f > 0 && merged.is_empty() {
            continue;
        }
        // Each part's terms are sorted: a stable merge sort only merges those runs (by term:
        // first bytes, then the whole term).
        merged.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
        out.extend_from_slice(b",\"");
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"\":{");
        let mut j = 0;
        while j < merged.len() {
            if j > 0 {
                out.push(b',');
            }
            let (key, term) = (merged[j].0, merged[j].1);
            list.clear();
            while j < merged.len() && merged[j].0 == key && merged[j].1 == term {
                let (_, _, pi, i) = merged[j];
                let chunks = &table.chunks[pi as usize];
                list.extend(parts[pi as usize].fields[f].list(i as usize).iter().map(
                    |&(c, tf)| Posting {
                        chunk: chunks[c as usize],
                        tf,
                    },
                ));
                j += 1;
            }
            // Each part's postings are in chunk order (`postings`); parts of contiguous ranges of
            // documents (a one-shot build) are in order too. Otherwise a merge sort merges the
            // parts' runs (chunks are unique: stable or not, the same order).
            if !list.is_sorted_by_key(|p| p.chunk) {
                list.sort_by_key(|p| p.chunk);
            }
            push_term(&mut out, term, &list, has_tf(f));
            if f == 0 {
                records += 1;
            }
        }
        out.push(b'}');
    }
    out.push(b'}');
    Rendered::new(
        Kind::Lexical,
        format!("lexical/{domain}/{k:04}"),
        "json",
        out,
        records,
        Some(domain.to_string()),
        None,
    )
}

/// About the bytes of a shard's fields: a term's bytes and 8 per posting.
fn runs_size(parts: &[&Postings], runs: &[&[(u32, u8, u32)]]) -> usize {
    let mut n = 0;
    for (p, run) in parts.iter().zip(runs) {
        for &(_, f, i) in run.iter() {
            let field = &p.fields[f as usize];
            n += field.term(i as usize).len() + 8 * field.list(i as usize).len() + 8;
        }
    }
    n
}

/// Renders a domain's meta file.
pub fn render_meta(domain: &str, parts: &[&Postings], shards: usize, table: &Table) -> Rendered {
    let _t = crate::timings::start(crate::timings::Stage::Serialize);
    let n: usize = parts.iter().map(|p| p.chunks).sum();
    let total_len: u64 = parts.iter().map(|p| p.total_len).sum();
    let mut lens: Vec<Vec<u32>> = vec![Vec::new(); table.docs.len()];
    for (p, chunks) in parts.iter().zip(&table.chunks) {
        for (c, len) in chunks.iter().zip(&p.lens) {
            let l = &mut lens[c.ord as usize];
            if l.len() <= c.index as usize {
                l.resize(c.index as usize + 1, 0);
            }
            l[c.index as usize] = *len;
        }
    }
    let width = parts.iter().map(|p| p.width).max().unwrap_or(0);
    let meta = MetaOut {
        domain,
        chunks: n,
        total_len,
        avgdl: avgdl(total_len, n),
        shards,
        hash: "fnv1a64",
        width,
        docs: table.docs.iter().copied().zip(lens).collect(),
    };
    Rendered::new(
        Kind::Lexical,
        format!("lexical/{domain}/meta"),
        "json",
        serde_json::to_vec(&meta).expect("meta serializes"),
        n,
        Some(domain.to_string()),
        None,
    )
}

/// Renders a domain's meta and its `shards` term shards (the engine's `DomainLex` does this with
/// its patching; the tests compare the two paths' bytes through this one).
#[cfg(test)]
fn render_with(domain: &str, parts: &[&Postings], shards: usize) -> Vec<Rendered> {
    let table = table(parts);
    let dealt: Vec<Dealt> = parts.par_iter().map(|p| deal(p, shards)).collect();
    let dealt_refs: Vec<&Dealt> = dealt.iter().collect();
    let tasks: Vec<std::ops::Range<usize>> = (0..shards)
        .step_by(SHARDS_PER_TASK)
        .map(|s| s..(s + SHARDS_PER_TASK).min(shards))
        .collect();
    let mut out: Vec<Rendered> = tasks
        .into_par_iter()
        .flat_map_iter(|r| render_range(domain, r, parts, &dealt_refs, &table, &|_| {}))
        .collect();
    out.insert(0, render_meta(domain, parts, shards, &table));
    out
}

/// Calls `f(term)` for every term, per field, whose postings differ between two versions of
/// the same chunks (the domain's document set unchanged).
fn each_changed<'a>(old: &'a Postings, new: &'a Postings, mut f: impl FnMut(usize, &'a str)) {
    let same = old.same_chunks(new);
    for field in 0..FIELDS {
        let (a, b) = (&old.fields[field], &new.fields[field]);
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let ord = match (i < a.len(), j < b.len()) {
                (true, true) => a.term(i).cmp(b.term(j)),
                (true, false) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            match ord {
                std::cmp::Ordering::Equal => {
                    let (x, y) = (a.list(i), b.list(j));
                    let equal = if same {
                        x == y
                    } else {
                        old.resolved(x).eq(new.resolved(y))
                    };
                    if !equal {
                        f(field, a.term(i));
                    }
                    i += 1;
                    j += 1;
                }
                std::cmp::Ordering::Less => {
                    f(field, a.term(i));
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    f(field, b.term(j));
                    j += 1;
                }
            }
        }
    }
}

/// The term shards whose content differs between two versions of one part (same position in
/// the domain's part list, same document table): those holding a term whose postings changed.
/// Lengths live in the meta, which is always rendered.
pub fn changed_shards(
    old: &Postings,
    new: &Postings,
    shards: usize,
    into: &mut std::collections::BTreeSet<usize>,
) {
    each_changed(old, new, |_, t| {
        into.insert(shard_of(t, shards));
    });
}

/// The terms, per field, whose postings differ between `old` and `new` (the same documents
/// before and after an edit, e.g. one file's): the only ones a patch has to rewrite.
pub fn changed_terms(
    old: &Postings,
    new: &Postings,
) -> [std::collections::BTreeSet<String>; FIELDS] {
    let mut out: [std::collections::BTreeSet<String>; FIELDS] = Default::default();
    each_changed(old, new, |f, t| {
        out[f].insert(t.to_string());
    });
    out
}

/// The sorted document IDs of a part.
fn sorted_docs(p: &Postings) -> Vec<&str> {
    let mut v: Vec<&str> = p.docs.iter().map(String::as_str).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Patches a term shard of the previous build: for each term of `terms` (per field), the
/// postings of the documents of `old` are replaced by those of `new` (the same documents);
/// a term left without postings goes. `None` when a document is not in the meta's table or
/// the shard is malformed. The bytes equal those of a full render of the same chunks.
pub fn patch_shard(
    shard: &mut LexShard,
    terms: &[Vec<&String>; FIELDS],
    meta: &LexMeta,
    old: &Postings,
    new: &Postings,
) -> Option<()> {
    let gone: rustc_hash::FxHashSet<u32> = old
        .docs
        .iter()
        .map(|d| meta.ord_of(d))
        .collect::<Option<_>>()?;
    let ords: Vec<u32> = new
        .docs
        .iter()
        .map(|d| meta.ord_of(d))
        .collect::<Option<_>>()?;
    for (f, list) in terms.iter().enumerate() {
        for t in list {
            let mut v: Vec<Posting> = shard
                .field(f, t)
                .ok()?
                .into_iter()
                .filter(|p| !gone.contains(&p.chunk.ord))
                .collect();
            if let Some(i) = new.fields[f].find(t) {
                v.extend(new.fields[f].list(i).iter().map(|&(c, tf)| {
                    let (d, index) = new.refs[c as usize];
                    Posting {
                        chunk: ChunkRef {
                            ord: ords[d as usize],
                            index,
                        },
                        tf,
                    }
                }));
            }
            v.sort_unstable_by_key(|p| p.chunk);
            let map = shard.map_mut(f);
            if v.is_empty() {
                map.remove(t.as_str());
            } else {
                map.insert((*t).clone(), encode(v, has_tf(f)));
            }
        }
    }
    Some(())
}

/// A patched term shard, rendered.
pub fn render_patched(shard: &LexShard) -> Rendered {
    let _t = crate::timings::start(crate::timings::Stage::Serialize);
    Rendered::new(
        Kind::Lexical,
        format!("lexical/{}/{:04}", shard.domain, shard.shard),
        "json",
        serde_json::to_vec(shard).expect("shard serializes"),
        shard.terms.len(),
        Some(shard.domain.clone()),
        None,
    )
}

/// Patches a domain's meta: the chunk lengths of the documents of `new` replace those of `old`.
/// `None` unless both hold the same documents, all in the meta's table (otherwise ordinals
/// would move: the caller renders in full).
pub fn patch_meta(meta: &mut LexMeta, old: &Postings, new: &Postings) -> Option<()> {
    if sorted_docs(old) != sorted_docs(new) {
        return None;
    }
    let mut lens: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    for (&(d, index), len) in new.refs.iter().zip(&new.lens) {
        let ord = meta.ord_of(&new.docs[d as usize])?;
        let l = lens.entry(ord).or_default();
        if l.len() <= index as usize {
            l.resize(index as usize + 1, 0);
        }
        l[index as usize] = *len;
    }
    for (ord, l) in lens {
        meta.docs[ord as usize].1 = l;
    }
    meta.recount();
    Some(())
}

/// A patched meta, rendered.
pub fn render_patched_meta(meta: &LexMeta) -> Rendered {
    let _t = crate::timings::start(crate::timings::Stage::Serialize);
    Rendered::new(
        Kind::Lexical,
        format!("lexical/{}/meta", meta.domain),
        "json",
        serde_json::to_vec(meta).expect("meta serializes"),
        meta.chunks,
        Some(meta.domain.clone()),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adds a posting; a repeated (term, chunk) of an additive field counts once.
    fn add<K: std::borrow::Borrow<str> + std::hash::Hash + Eq>(
        map: &mut FxHashMap<K, LocalList>,
        term: &str,
        posting: (u32, u32),
        key: impl FnOnce() -> K,
    ) {
        match map.get_mut(term) {
            Some(v) => {
                if v.last().is_none_or(|l| l.0 != posting.0) {
                    v.push(posting);
                }
            }
            None => {
                map.insert(key(), vec![posting]);
            }
        }
    }

    /// A part of one-chunk documents `lib:doc{d}` whose tokens come from `words`.
    fn part(docs: &[(u32, &[&str])]) -> Postings {
        let mut p = Postings::default();
        let mut maps: [FxHashMap<String, LocalList>; FIELDS] = Default::default();
        for (d, words) in docs {
            let doc = format!("lib:doc{d}");
            let idx = p.push_chunk(&doc, 0, doc.len() + 4, words.len() as u32);
            let mut tf: BTreeMap<&str, u32> = BTreeMap::new();
            for w in *words {
                *tf.entry(w).or_default() += 1;
            }
            for (w, n) in tf {
                add(&mut maps[0], w, (idx, n), || w.to_string());
                let x = format!("{w}x");
                add(&mut maps[1], &x, (idx, 1), || x.clone());
            }
        }
        p.set_fields(maps.map(|m| Field::from_terms(m.into_iter().collect())));
        p
    }

    /// A document `lib:{slug}` of `domain` whose chunks hold `words` (search tokens, aliases,
    /// title tokens).
    fn built(slug: &str, domain: &str, chunks: &[(&str, &[&str], &[&str])]) -> BuiltDoc {
        use crate::text::{SearchText, Text, Tokens};
        let id = crate::identity::doc_id("lib", slug).unwrap();
        BuiltDoc {
            chunks: chunks
                .iter()
                .enumerate()
                .map(|(i, (words, alias, ctx))| super::super::BuiltChunk {
                    chunk_id: crate::identity::chunk_id(&id, i, 3),
                    index: i,
                    text: Text::new(*words),
                    search_text: SearchText::from_normalized(words.to_string()),
                    extra_tokens: Tokens::from_strs(alias.to_vec()),
                    context_tokens: Tokens::from_strs(ctx.to_vec()),
                    heading_path: Vec::new(),
                    span: (0, words.len()),
                    vector: Vec::new(),
                })
                .collect(),
            doc_id: id,
            library: "lib".into(),
            source: format!("{slug}.md"),
            title: String::new(),
            url: String::new(),
            domains: vec![domain.to_string()],
            metadata: Default::default(),
        }
    }

    /// What `postings` computes, the plain way: documents by ID, per chunk a map of term counts,
    /// and its alias tokens: its own and those of each of its words.
    fn reference(domain: &str, docs: &[&BuiltDoc], extras: WordExtras) -> Postings {
        let mut docs: Vec<&BuiltDoc> = docs
            .iter()
            .copied()
            .filter(|d| d.domains.iter().any(|x| x == domain))
            .collect();
        docs.sort_by(|a, b| a.doc_id.as_str().cmp(b.doc_id.as_str()));
        let mut p = Postings::default();
        let mut fields: [BTreeMap<String, LocalList>; FIELDS] = Default::default();
        for d in docs {
            for c in &d.chunks {
                let mut tf: BTreeMap<&str, u32> = BTreeMap::new();
                for t in c.search_text.tokens() {
                    *tf.entry(t).or_default() += 1;
                }
                let len = tf.values().sum();
                let idx = p.push_chunk(
                    d.doc_id.as_str(),
                    c.index as u32,
                    c.chunk_id.as_str().len(),
                    len,
                );
                let mut alias: std::collections::BTreeSet<String> =
                    c.extra_tokens.iter().map(str::to_string).collect();
                for t in tf.keys() {
                    extras.each(t, |x| {
                        alias.insert(x.to_string());
                    });
                }
                for x in alias {
                    fields[1].entry(x).or_default().push((idx, 1));
                }
                let mut stems: BTreeMap<String, u32> = BTreeMap::new();
                for (t, n) in tf {
                    fields[0].entry(t.to_string()).or_default().push((idx, n));
                    if let Some(k) = crate::normalize::stem::stem_key(t) {
                        *stems.entry(k.as_str().to_string()).or_default() += n;
                    }
                }
                for (k, n) in stems {
                    fields[3].entry(k).or_default().push((idx, n));
                }
                for t in c.context_tokens.iter() {
                    fields[2].entry(t.to_string()).or_default().push((idx, 1));
                }
            }
        }
        p.set_fields(fields.map(|m| Field::from_terms(m.into_iter().collect())));
        p
    }

    /// Documents with repeated words, Arabic words sharing a stem key, aliases, titles and a
    /// term longer than 16 bytes; not in `doc_id` order.
    fn sample_docs() -> Vec<BuiltDoc> {
        vec![
            built(
                "zeta",
                "d",
                &[
                    ("ميلاد المسيح في بيت لحم ميلاد", &["ميلاد"], &["عيد", "الميلاد"]),
                    ("مولد النبي اتولد في فين", &[], &["عيد"]),
                ],
            ),
            built(
                "alpha",
                "d",
                &[("القديسين القديسون قديس a b a", &["قديس", "قديسين"], &[])],
            ),
            built("other", "x", &[("ميلاد خارج", &[], &[])]),
            built(
                "mid",
                "d",
                &[
                    (
                        "supercalifragilisticexpialidocious supercalifragilisticexpialidociouz ab abc abcd",
                        &[],
                        &["ab"],
                    ),
                    ("", &[], &[]),
                    ("بيت بيت بيت لحم", &["لحم"], &["بيت"]),
                ],
            ),
            built(
                "beta",
                "d",
                &[("في في في الكنيسة الكنيسه كنيسة", &["كنيسه"], &["الكنيسة"])],
            ),
        ]
    }

    /// The shipped aliases, for word tokens.
    fn shipped_table() -> crate::normalize::aliases::AliasTable {
        crate::normalize::aliases::AliasTable::new(
            crate::normalize::aliases::shipped(),
            &crate::normalize::Rules::default(),
        )
    }

    #[test]
    fn postings_equal_the_plain_computation() {
        let docs = sample_docs();
        let refs: Vec<&BuiltDoc> = docs.iter().collect();
        let table = shipped_table();
        for (extras, stems) in [
            (WordExtras::new(&table, true), true),
            (WordExtras::new(&table, false), false),
            (WordExtras::NONE, false),
        ] {
            let p = postings("d", &refs, extras);
            assert_eq!(p, reference("d", &refs, extras));
            assert_eq!(
                p.docs,
                ["lib:alpha", "lib:beta", "lib:mid", "lib:zeta"],
                "in doc_id order"
            );
            assert!(!p.fields[3].is_empty(), "the sample has stem keys");
            // A word's alias target and article stem are in the alias field, no other field.
            assert_eq!(
                p.fields[1].find("اين").is_some(),
                extras.aliases_on(),
                "فين → اين"
            );
            assert_eq!(
                p.fields[1].find("قديسون").is_some(),
                stems,
                "القديسون → قديسون"
            );
            assert!(p.fields[0].find("اين").is_none() && p.fields[0].find("قديسون").is_none());
            // The same documents in another order make the same part.
            let reversed: Vec<&BuiltDoc> = refs.iter().rev().copied().collect();
            assert_eq!(postings("d", &reversed, extras), p);
        }
    }

    #[test]
    fn a_render_is_serdes_and_does_not_depend_on_the_grouping() {
        let docs = sample_docs();
        let refs: Vec<&BuiltDoc> = docs.iter().collect();
        let table = shipped_table();
        let extras = WordExtras::new(&table, true);
        let whole = postings("d", &refs, extras);
        // Contiguous documents per part (a one-shot build), interleaved ones (document shards).
        let groupings: [Vec<Vec<usize>>; 3] = [
            vec![vec![0, 1, 2, 3, 4]],
            vec![vec![1, 4], vec![3, 0]],
            vec![vec![0, 1], vec![4], vec![3]],
        ];
        for shards in [1, 2, 4] {
            let full = render_with("d", &[&whole], shards);
            for (gi, g) in groupings.iter().enumerate() {
                let parts: Vec<Postings> = g
                    .iter()
                    .map(|ix| {
                        postings(
                            "d",
                            &ix.iter().map(|&i| &docs[i]).collect::<Vec<_>>(),
                            extras,
                        )
                    })
                    .collect();
                let parts: Vec<&Postings> = parts.iter().collect();
                let out = render_with("d", &parts, shards);
                assert_eq!(out.len(), shards + 1);
                for (a, b) in out.iter().zip(&full) {
                    assert_eq!(
                        a.path_and_hash(),
                        b.path_and_hash(),
                        "grouping {gi}, {shards} shards"
                    );
                }
                for r in &out[1..] {
                    let bytes = r.bytes().unwrap();
                    let shard: LexShard = serde_json::from_slice(&bytes).unwrap();
                    assert_eq!(
                        serde_json::to_vec(&shard).unwrap(),
                        bytes,
                        "the hand-written JSON is serde's"
                    );
                }
            }
        }
        // Every posting of the render is the plain computation's.
        let meta: LexMeta =
            serde_json::from_slice(&render_with("d", &[&whole], 1)[0].bytes().unwrap()).unwrap();
        let shard: LexShard =
            serde_json::from_slice(&render_with("d", &[&whole], 1)[1].bytes().unwrap()).unwrap();
        let plain = reference("d", &refs, extras);
        for f in 0..FIELDS {
            assert_eq!(shard.map(f).len(), plain.fields[f].len(), "field {f}");
            for i in 0..plain.fields[f].len() {
                let got: Vec<(String, u32)> = shard
                    .field(f, plain.fields[f].term(i))
                    .unwrap()
                    .iter()
                    .map(|p| (meta.chunk_id(p.chunk).unwrap(), p.tf))
                    .collect();
                let want: Vec<(String, u32)> = plain.fields[f]
                    .list(i)
                    .iter()
                    .map(|&(c, tf)| {
                        let (d, index) = plain.refs[c as usize];
                        (format!("{}:{index:03}", plain.docs[d as usize]), tf)
                    })
                    .collect();
                assert_eq!(got, want, "field {f}, term {}", plain.fields[f].term(i));
            }
        }
    }

    #[test]
    fn terms_with_the_same_hash_stay_apart() {
        let mut i = Interner::new();
        // Three terms under one hash (a collision), one under another.
        let ids: Vec<u32> = ["قديس", "قديسين", "قديس", "a", "قديسين", "a"]
            .iter()
            .map(|t| i.id_hashed(t, 7))
            .collect();
        assert_eq!(ids, [0, 1, 0, 2, 1, 2]);
        assert_eq!(i.id_hashed("b", 8), 3);
        for (chunk, t) in [(0, "قديس"), (0, "a"), (1, "قديسين"), (1, "قديس")] {
            let id = i.id_hashed(t, 7);
            i.lists.add(id, chunk, 1);
        }
        let f = i.field();
        let got: Vec<(&str, &[(u32, u32)])> =
            (0..f.len()).map(|k| (f.term(k), f.list(k))).collect();
        assert_eq!(
            got,
            [
                ("a", &[(0, 1)][..]),
                ("b", &[][..]),
                ("قديس", &[(0, 1), (1, 1)][..]),
                ("قديسين", &[(1, 1)][..])
            ]
        );
    }

    #[test]
    fn shard_counts_are_the_rungs_nearest_the_target_size() {
        let rung = |n: usize| {
            n == 1 || n.is_power_of_two() || (n.is_multiple_of(3) && (n / 3).is_power_of_two())
        };
        let mut last = 1;
        for estimate in (0..40_000_000).step_by(9_973).chain([usize::MAX / 4]) {
            let n = shards_for(estimate);
            assert!(rung(n), "{estimate}: {n} is not 2^k or 3·2^k");
            assert!(n >= last, "monotonic: {estimate} gives {n} after {last}");
            last = n;
            if (4 * SHARD_TARGET_BYTES..usize::MAX / 4).contains(&estimate) {
                let avg = estimate as f64 / n as f64 / SHARD_TARGET_BYTES as f64;
                assert!(
                    (0.81..=1.23).contains(&avg),
                    "{estimate} bytes in {n} shards: {avg:.2}× the target"
                );
            }
        }
        assert_eq!(shards_for(0), 1);
        assert_eq!(shards_for(SHARD_TARGET_BYTES), 1);
        assert_eq!(shards_for(SHARD_TARGET_BYTES * 2), 2);
        assert_eq!(
            shards_for(SHARD_TARGET_BYTES * 1200),
            1024,
            "√(1024·1536) ≈ 1254: 1200 targets' worth is nearer 1024"
        );
        assert_eq!(shards_for(SHARD_TARGET_BYTES * 1300), 1536);
        assert_eq!(shards_for(SHARD_TARGET_BYTES * 1800), 2048);
    }

    #[test]
    fn postings_round_trip_through_their_encoding() {
        let ps = vec![
            Posting {
                chunk: ChunkRef { ord: 0, index: 2 },
                tf: 1,
            },
            Posting {
                chunk: ChunkRef { ord: 0, index: 5 },
                tf: 3,
            },
            Posting {
                chunk: ChunkRef { ord: 7, index: 0 },
                tf: 2,
            },
            Posting {
                chunk: ChunkRef {
                    ord: 1000,
                    index: 1,
                },
                tf: 1,
            },
        ];
        let enc = encode(ps.clone(), true);
        assert_eq!(enc, vec![0, 2, 1, 0, 5, 3, 7, 0, 2, 993, 1, 1]);
        assert_eq!(decode(&enc, true).unwrap(), ps);
        let plain = encode(ps.clone(), false);
        assert_eq!(
            decode(&plain, false)
                .unwrap()
                .iter()
                .map(|p| p.chunk)
                .collect::<Vec<_>>(),
            ps.iter().map(|p| p.chunk).collect::<Vec<_>>()
        );
        assert!(
            decode(&[1, 0], true).is_err(),
            "a truncated list is malformed"
        );
        assert!(
            decode(&[3, 1, 0, 0], false).is_err(),
            "a repeated chunk is out of order"
        );
    }

    #[test]
    fn a_shard_names_chunks_through_the_meta() {
        let a = part(&[(2, &["نيل", "مصر", "نيل"]), (1, &["قاهره", "مصر"])]);
        let out = render_with("d", &[&a], 1);
        let meta: LexMeta = serde_json::from_slice(&out[0].bytes().unwrap()).unwrap();
        assert_eq!(
            meta.docs
                .iter()
                .map(|(d, _)| d.as_str())
                .collect::<Vec<_>>(),
            ["lib:doc1", "lib:doc2"],
            "sorted by doc_id"
        );
        assert_eq!((meta.width, meta.chunks, meta.total_len), (3, 2, 5));
        let shard: LexShard = serde_json::from_slice(&out[1].bytes().unwrap()).unwrap();
        let nile = shard.field(0, "نيل").unwrap();
        assert_eq!(nile.len(), 1);
        assert_eq!(
            meta.chunk_id(nile[0].chunk).as_deref(),
            Some("lib:doc2:000")
        );
        assert_eq!((nile[0].tf, meta.len_of(nile[0].chunk)), (2, Some(3)));
        let egypt: Vec<String> = shard
            .field(0, "مصر")
            .unwrap()
            .iter()
            .map(|p| meta.chunk_id(p.chunk).unwrap())
            .collect();
        assert_eq!(egypt, ["lib:doc1:000", "lib:doc2:000"]);
        assert_eq!(meta.chunk_id(ChunkRef { ord: 2, index: 0 }), None);
        assert_eq!(meta.chunk_id(ChunkRef { ord: 0, index: 1 }), None);
    }

    #[test]
    fn a_patched_shard_and_meta_equal_a_full_render() {
        let a = part(&[(1, &["نيل", "مصر", "نيل"]), (2, &["قاهره", "مصر"])]);
        let b_old = part(&[(3, &["نيل", "بحر"]), (4, &["اسكندريه"])]);
        let b_new = part(&[(3, &["نيل", "نيل", "جبل"]), (4, &["اسكندريه"])]);
        // The edited file alone, before and after.
        let (f_old, f_new) = (
            part(&[(3, &["نيل", "بحر"])]),
            part(&[(3, &["نيل", "نيل", "جبل"])]),
        );
        assert_eq!(
            a.estimate + b_old.estimate - f_old.estimate + f_new.estimate,
            a.estimate + b_new.estimate,
            "the estimate adds up"
        );
        assert_eq!(shard_count(&[&a, &b_new]), shard_count(&[&a, &b_old]));
        for n in [1, 2, 4] {
            let before = render_with("d", &[&a, &b_old], n);
            let after = render_with("d", &[&a, &b_new], n);
            let changed = changed_terms(&f_old, &f_new);
            assert!(
                changed[0].contains("جبل")
                    && changed[0].contains("نيل")
                    && !changed[0].contains("مصر")
            );
            let mut meta: LexMeta = serde_json::from_slice(&before[0].bytes().unwrap()).unwrap();
            let old_meta = meta.clone();
            patch_meta(&mut meta, &f_old, &f_new).expect("same documents");
            assert_eq!(render_patched_meta(&meta).bytes(), after[0].bytes());
            for k in 0..n {
                let mut terms: [Vec<&String>; FIELDS] = Default::default();
                for (f, set) in changed.iter().enumerate() {
                    terms[f] = set.iter().filter(|t| shard_of(t, n) == k).collect();
                }
                let mut shard: LexShard =
                    serde_json::from_slice(&before[k + 1].bytes().unwrap()).unwrap();
                patch_shard(&mut shard, &terms, &old_meta, &f_old, &f_new).expect("patchable");
                assert_eq!(
                    render_patched(&shard).bytes(),
                    after[k + 1].bytes(),
                    "shard {k}"
                );
            }
        }
        // Another document set moves ordinals: no patch.
        let mut meta: LexMeta =
            serde_json::from_slice(&render_with("d", &[&a, &b_old], 1)[0].bytes().unwrap())
                .unwrap();
        assert!(patch_meta(&mut meta, &f_old, &part(&[(5, &["نيل"])])).is_none());
    }
}
