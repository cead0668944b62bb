//! A part's postings: the lexical contribution of a set of documents to one domain, built per
//! document shard (memoized) and merged per domain by `render`.

use super::{FIELDS, has_tf};
use crate::artifacts::BuiltDoc;
use crate::normalize::WordExtras;

/// Postings of one term inside a `Postings` part: `(chunk index in the part, tf)`.
#[cfg(test)]
pub(crate) type LocalList = Vec<(u32, u32)>;

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

/// One postings field of a part in three flat arrays: the terms' bytes, their postings `(local
/// chunk, tf)`, and per term where each ends. A part holds tens of thousands of terms; a
/// `String` and a `Vec` each cost three allocations' worth of memory and time, these cost none
/// per term. The terms are sorted unless the part is a one-shot build's (`Order::AsGiven`).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Field {
    text: String,
    postings: Vec<(u32, u32)>,
    /// Per term: the end of its bytes in `text` and of its postings in `postings`.
    ends: Vec<(u32, u32)>,
    /// Whether the terms are sorted (what `find` needs).
    sorted: bool,
}

impl Field {
    /// A field from (term, postings) pairs in any order.
    #[cfg(test)]
    pub(crate) fn from_terms<S: AsRef<str>>(mut terms: Vec<(S, LocalList)>) -> Field {
        terms.sort_unstable_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
        let mut f = Field {
            text: String::with_capacity(terms.iter().map(|(t, _)| t.as_ref().len()).sum()),
            postings: Vec::with_capacity(terms.iter().map(|(_, l)| l.len()).sum()),
            ends: Vec::with_capacity(terms.len()),
            sorted: true,
        };
        for (t, list) in &terms {
            f.text.push_str(t.as_ref());
            f.postings.extend_from_slice(list);
            f.ends.push((f.text.len() as u32, f.postings.len() as u32));
        }
        f
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
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
    pub(crate) fn term(&self, i: usize) -> &str {
        &self.text[self.starts(i).0..self.ends[i].0 as usize]
    }

    /// Asks the CPU to bring the start of term `i`'s postings into its cache.
    #[inline]
    pub(super) fn prefetch_list(&self, i: usize) {
        if let Some(p) = self.postings.get(self.starts(i).1) {
            prefetch(p);
        }
    }

    /// The postings of term `i`.
    pub(crate) fn list(&self, i: usize) -> &[(u32, u32)] {
        &self.postings[self.starts(i).1..self.ends[i].1 as usize]
    }

    /// The position of `term`, if the field has it (its terms sorted).
    pub(crate) fn find(&self, term: &str) -> Option<usize> {
        debug_assert!(
            self.sorted || self.len() <= 1,
            "a field whose terms are not sorted is searched"
        );
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
    pub(crate) fn postings_len(&self) -> usize {
        self.postings.len()
    }

    /// Mutable postings of term `i` (tests: a one-posting edit).
    #[cfg(test)]
    pub(crate) fn list_mut(&mut self, i: usize) -> &mut [(u32, u32)] {
        let (a, b) = (self.starts(i).1, self.ends[i].1 as usize);
        &mut self.postings[a..b]
    }
}

/// The lexical contribution of a set of documents to one domain: its documents and chunks once,
/// and per field, its terms in order with their postings by local chunk index. Built per
/// document shard and merged per domain, so an edit re-tokenizes only its shard; IDs are not
/// copied per posting.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Postings {
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

    /// The field of terms `terms` (by ID): sorted by term when `sorted`, else in ID order; each
    /// term's postings in chunk order (a counting sort by rank, which keeps the entries' order).
    fn field(self, terms: &[&str], sorted: bool) -> Field {
        let order = if sorted {
            crate::text::sorted_order(terms)
        } else {
            (0..terms.len() as u32).collect()
        };
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
            sorted,
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
pub(super) struct Interner {
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

    fn field(self, order: Order) -> Field {
        let Interner {
            text, ends, lists, ..
        } = self;
        let terms: Vec<&str> = (0..ends.len() as u32)
            .map(|id| term_of(&text, &ends, id))
            .collect();
        lists.field(&terms, order == Order::Sorted)
    }
}

/// How a part orders its documents and its fields' terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    /// Documents by ID and terms sorted: a part kept across builds (a document shard's, or a
    /// resumed build's), whose bytes do not depend on the order the documents come in and whose
    /// terms a patch finds by binary search (`Field::find`).
    Sorted,
    /// Documents as given and terms in the order first met: a one-shot build's part, rendered
    /// once and dropped. Given in slot order, each term's postings come out in the order a shard
    /// lists them, and the render sorts each shard's terms anyway, so neither is sorted twice.
    AsGiven,
}

/// Postings of the chunks of `docs` that carry `domain`, in `Order::Sorted`. The alias field
/// holds each chunk's `extra_tokens` and the tokens `extras` gives for each of its search words
/// (computed once per distinct term of the part).
pub(crate) fn postings(domain: &str, docs: &[&BuiltDoc], extras: WordExtras) -> Postings {
    postings_in(domain, docs, extras, Order::Sorted)
}

/// Postings of the chunks of `docs` that carry `domain`, laid out in `order`.
pub(crate) fn postings_in(
    domain: &str,
    docs: &[&BuiltDoc],
    extras: WordExtras,
    order: Order,
) -> Postings {
    let _t = crate::timings::start(crate::timings::Stage::Index);
    let mut docs: Vec<&BuiltDoc> = docs
        .iter()
        .copied()
        .filter(|d| d.domains.iter().any(|x| x == domain))
        .collect();
    if order == Order::Sorted && !docs.is_sorted_by(|a, b| a.doc_id.as_str() <= b.doc_id.as_str()) {
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
    p.set_fields([
        terms.field(order),
        alias.field(order),
        context.field(order),
        stems.field(order),
    ]);
    p
}

impl Postings {
    /// Adds chunk `index` of document `doc` (IDs of `id_len` bytes, `len` tokens) and returns
    /// its local index. A document's chunks come together, in order.
    pub(crate) fn push_chunk(&mut self, doc: &str, index: u32, id_len: usize, len: u32) -> u32 {
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
    pub(crate) fn set_fields(&mut self, fields: [Field; FIELDS]) {
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
    pub(super) fn resolved<'a>(
        &'a self,
        list: &'a [(u32, u32)],
    ) -> impl Iterator<Item = (&'a str, u32, u32)> + 'a {
        list.iter().map(|(c, tf)| {
            let (d, index) = self.refs[*c as usize];
            (self.docs[d as usize].as_str(), index, *tf)
        })
    }

    /// Whether the two parts hold the same chunks in the same local places.
    pub(super) fn same_chunks(&self, other: &Postings) -> bool {
        self.docs == other.docs && self.refs == other.refs
    }
}

/// Estimated bytes of one posting without a frequency (`gap,index,`, the gap between spread
/// slots a few digits); one with adds 2.
const POSTING_BYTES: usize = 10;

#[cfg(test)]
mod tests {
    use super::*;

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
        let f = i.field(Order::Sorted);
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
}
