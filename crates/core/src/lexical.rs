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
//! A deployed version of layout 4 stores each term shard in the **line format** instead
//! ([`to_lines`]): a header line `askzico-lexical-lines 1<TAB>domain<TAB>shard`, then one line
//! per field and term, `field<TAB>term<TAB>n,n,n…` (the same integers), sorted by those bytes.
//! A runtime finds a line by binary search over the line starts ([`LineShard`]), so a question
//! decodes only its own terms, never the whole shard; the bytes still depend only on the
//! shard's own terms, so an edit rewrites only the shards of the terms it touches.
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

/// The header of a shard in the line format, before its domain and number.
pub const LINES_HEADER: &str = "askzico-lexical-lines 1";

/// A shard in the line format (see the module docs): what a version of layout 4 stores.
pub fn to_lines(shard: &LexShard) -> String {
    let mut lines: Vec<String> = Vec::new();
    for f in 0..FIELDS {
        for (term, list) in shard.map(f) {
            let numbers: Vec<String> = list.iter().map(u32::to_string).collect();
            lines.push(format!("{f}\t{term}\t{}", numbers.join(",")));
        }
    }
    lines.sort_by(|a, b| line_key(a).cmp(line_key(b)));
    let mut out = format!("{LINES_HEADER}\t{}\t{}\n", shard.domain, shard.shard);
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// A line's sort key: its field and term with the tab after each (`f\tterm\t`), read from the
/// start of `rest` and never past the line's end.
fn line_key(rest: &str) -> &[u8] {
    let b = rest.as_bytes();
    let mut at = 0;
    for _ in 0..2 {
        match memchr::memchr2(b'\t', b'\n', &b[at..]) {
            Some(i) if b[at + i] == b'\t' => at += i + 1,
            Some(i) => return &b[..at + i],
            None => return b,
        }
    }
    &b[..at]
}

/// A shard in the line format: [`LineShard::field`] finds a term's line by binary search over
/// the starts of its lines, found once when the shard is read (a runtime keeps a shard for many
/// questions), so reading a term costs a few dozen key comparisons, not a pass over the shard or
/// over the long posting lines of common terms.
#[derive(Debug, Clone, PartialEq)]
pub struct LineShard {
    /// Shared: a runtime keeps a shard for many questions, each holding it cheaply.
    text: std::sync::Arc<str>,
    /// Where each line after the header starts, ascending.
    starts: std::sync::Arc<[u32]>,
    pub domain: String,
    pub shard: usize,
}

impl LineShard {
    pub fn parse(text: String) -> Result<LineShard, String> {
        let end = memchr::memchr(b'\n', text.as_bytes()).ok_or("no header line")?;
        let mut header = text[..end].split('\t');
        if header.next() != Some(LINES_HEADER) {
            return Err(format!("the header is not `{LINES_HEADER}`"));
        }
        let domain = header
            .next()
            .ok_or("the header names no domain")?
            .to_string();
        let shard = header
            .next()
            .and_then(|n| n.parse().ok())
            .ok_or("the header names no shard number")?;
        if !text.ends_with('\n') {
            return Err("the last line has no newline".into());
        }
        let size = u32::try_from(text.len()).map_err(|_| "the shard is over 4 GiB")?;
        // Every newline but the last ends a line another starts after.
        let starts: Vec<u32> = std::iter::once(end)
            .chain(memchr::memchr_iter(b'\n', &text.as_bytes()[end + 1..]).map(|i| end + 1 + i))
            .map(|nl| nl as u32 + 1)
            .filter(|&s| s < size)
            .collect();
        Ok(LineShard {
            text: text.into(),
            starts: starts.into(),
            domain,
            shard,
        })
    }

    /// Line `i`, without its newline.
    fn line(&self, i: usize) -> &str {
        let start = self.starts[i] as usize;
        let end = self
            .starts
            .get(i + 1)
            .map_or(self.text.len(), |&s| s as usize)
            - 1;
        &self.text[start..end]
    }

    /// The postings of `term` in field `f`; `Err` when its line is malformed.
    pub fn field(&self, f: usize, term: &str) -> Result<Vec<Posting>, String> {
        let key = format!("{f}\t{term}\t");
        // A line's first `key.len()` bytes order it as its key does: the key ends at its
        // second tab, and a term holds no tab, so two keys differ before either ends.
        let text = self.text.as_bytes();
        let Ok(i) = self.starts.binary_search_by(|&s| {
            let b = &text[s as usize..];
            b[..key.len().min(b.len())].cmp(key.as_bytes())
        }) else {
            return Ok(Vec::new());
        };
        let numbers = &self.line(i)[key.len()..];
        let list: Vec<u32> = if numbers.is_empty() {
            Vec::new()
        } else {
            numbers
                .split(',')
                .map(|n| n.parse::<u32>().map_err(|e| format!("`{n}`: {e}")))
                .collect::<Result<_, _>>()?
        };
        decode(&list, has_tf(f))
    }
}

/// A term shard as a store read it: JSON (a build's files, layouts 2 and 3) or lines (layout 4).
/// Cheap to clone: both hold their data shared.
#[derive(Debug, Clone, PartialEq)]
pub enum ShardData {
    Parsed(std::sync::Arc<LexShard>),
    Lines(LineShard),
}

impl ShardData {
    /// A stored shard in either format.
    pub fn read(text: String) -> Result<ShardData, String> {
        if text.starts_with(LINES_HEADER) {
            LineShard::parse(text).map(ShardData::Lines)
        } else {
            serde_json::from_str(&text)
                .map(|s| ShardData::Parsed(std::sync::Arc::new(s)))
                .map_err(|e| e.to_string())
        }
    }

    /// The postings of `term` in field `f` (see [`LexShard::field`]).
    pub fn field(&self, f: usize, term: &str) -> Result<Vec<Posting>, String> {
        match self {
            ShardData::Parsed(s) => s.field(f, term),
            ShardData::Lines(s) => s.field(f, term),
        }
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn field_map() -> impl Strategy<Value = BTreeMap<String, Vec<u32>>> {
        proptest::collection::btree_map("[a-z\u{621}-\u{64a}~]{1,6}", (1u32..50, 0u32..4), 0..12)
            .prop_map(|m| {
                m.into_iter()
                    .map(|(t, (gap, i))| (t, vec![gap, i, 1]))
                    .collect()
            })
    }

    proptest! {
        /// Every term of every field reads the same postings from the line format as from the
        /// JSON shard, and a term the shard lacks reads none.
        #[test]
        fn the_line_format_reads_every_term_as_the_json_shard(
            terms in field_map(), alias in field_map(), context in field_map(), stem in field_map(),
            absent in "[a-z]{7}",
        ) {
            let strip = |m: BTreeMap<String, Vec<u32>>| -> BTreeMap<String, Vec<u32>> {
                m.into_iter().map(|(t, l)| (t, l[..2].to_vec())).collect()
            };
            let shard = LexShard {
                domain: "d".into(),
                shard: 3,
                terms,
                alias_terms: strip(alias),
                context_terms: strip(context),
                stem_terms: stem,
            };
            let lines = to_lines(&shard);
            let read = ShardData::read(lines.clone()).unwrap();
            prop_assert!(matches!(read, ShardData::Lines(_)));
            for f in 0..FIELDS {
                for term in shard.map(f).keys() {
                    prop_assert_eq!(read.field(f, term).unwrap(), shard.field(f, term).unwrap());
                }
                prop_assert!(read.field(f, &absent).unwrap().is_empty());
            }
            // The bytes are a function of the shard alone.
            prop_assert_eq!(to_lines(&shard), lines);
        }
    }

    #[test]
    fn a_malformed_line_shard_is_refused_with_the_reason() {
        let bad = |text: &str| ShardData::read(text.to_string()).unwrap_err();
        assert!(bad("askzico-lexical-lines 1\td\n").contains("shard number"));
        assert!(bad("askzico-lexical-lines 1\td\t0\n0\ta\t1,0,1").contains("newline"));
        let s = ShardData::read("askzico-lexical-lines 1\td\t0\n0\ta\t1,x\n".into()).unwrap();
        assert!(s.field(0, "a").is_err());
        // A JSON shard still reads (layouts 2 and 3, and a build's files).
        let json = ShardData::read(r#"{"domain":"d","shard":0,"terms":{"a":[1,0,2]}}"#.into());
        assert_eq!(json.unwrap().field(0, "a").unwrap()[0].tf, 2);
    }
}
