//! Lexical shards: per domain, a BM25 index over `search_text` tokens only, sharded by term hash
//! the way static search indexes are (a question reads only the shards of its terms).
//!
//! `lexical/<domain>/meta` holds `{domain, chunks, total_len, avgdl, shards, hash, lengths}`:
//! the BM25 statistics and every chunk's length in tokens (`chunk_id → length`), read once per
//! version. Term shard `k` holds the terms whose `fnv1a64(term) % shards == k`:
//! `{domain, shard, terms: {term: [[chunk_id, tf], …]}}` and, for the same shard of each term,
//! the additive fields `alias_terms` (variants and alias forms: `term: [chunk_id, …]`),
//! `context_terms` (title and headings: `term: [chunk_id, …]`) and `stem_terms` (stem keys,
//! `normalize::stem`: `term: [[chunk_id, tf], …]`). Postings are sorted by `chunk_id`. Lengths live
//! in the meta, not in every posting: a small edit changes the postings of the few terms it
//! touches, not those of every term of its chunk. No evidence text appears in any file.

use std::collections::BTreeMap;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::{BuiltDoc, Kind, Rendered};

/// Target size of one shard; a Worker reads a few of them per question.
const SHARD_TARGET_BYTES: usize = 64 * 1024;

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
    /// Every chunk of the domain: its length in `search_text` tokens.
    pub lengths: BTreeMap<String, u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LexShard {
    pub domain: String,
    pub shard: usize,
    /// term → postings `(chunk_id, term frequency)`, by chunk_id.
    pub terms: BTreeMap<String, Vec<(String, u32)>>,
    /// Additive tokens kept apart from `terms`: spelling variants and alias forms (the chunks
    /// holding them); never part of `search_text`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub alias_terms: BTreeMap<String, Vec<String>>,
    /// Title and section-heading tokens: the chunks under them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub context_terms: BTreeMap<String, Vec<String>>,
    /// Stem keys of the chunk's Arabic search tokens (`normalize::stem`), with their real term
    /// frequency; never part of `search_text`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stem_terms: BTreeMap<String, Vec<(String, u32)>>,
}

impl LexShard {
    /// The postings of `term` in field `f` (0 terms, 1 alias, 2 context, 3 stem) as
    /// `(chunk_id, tf)`; alias and context postings have tf 1.
    pub fn field(&self, f: usize, term: &str) -> Vec<(&str, u32)> {
        match f {
            0 => self.terms.get(term).map(|v| v.iter().map(|(c, tf)| (c.as_str(), *tf)).collect()),
            1 => self.alias_terms.get(term).map(|v| v.iter().map(|c| (c.as_str(), 1)).collect()),
            2 => self.context_terms.get(term).map(|v| v.iter().map(|c| (c.as_str(), 1)).collect()),
            _ => self.stem_terms.get(term).map(|v| v.iter().map(|(c, tf)| (c.as_str(), *tf)).collect()),
        }
        .unwrap_or_default()
    }

    /// Every chunk ID any posting names.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        let pairs = self.terms.values().chain(self.stem_terms.values()).flatten().map(|(c, _)| c.as_str());
        let plain = self.alias_terms.values().chain(self.context_terms.values()).flatten().map(String::as_str);
        pairs.chain(plain)
    }
}

/// The shard of a term: FNV-1a 64 of its UTF-8 bytes, modulo the shard count.
pub fn shard_of(term: &str, shards: usize) -> usize {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in term.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    (h % shards.max(1) as u64) as usize
}

/// The number of postings fields of a shard.
pub const FIELDS: usize = 4;

/// Whether field `f` stores term frequencies (`terms`, `stem_terms`) or only chunk IDs.
fn has_tf(f: usize) -> bool {
    f == 0 || f == 3
}

/// Postings of one term inside a `Postings` part: `(chunk index in the part, tf)`.
type LocalList = Vec<(u32, u32)>;

/// The lexical contribution of a set of documents to one domain: the chunk IDs and lengths once,
/// and per field, its terms in order with their postings by chunk index. Built per document shard
/// and merged per domain, so an edit re-tokenizes only its shard; IDs are not copied per posting.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Postings {
    pub chunks: usize,
    pub total_len: u64,
    pub ids: Vec<String>,
    /// Each chunk's length in tokens, by chunk index.
    pub lens: Vec<u32>,
    /// `terms`, `alias_terms`, `context_terms`, `stem_terms`: (term, postings), sorted by term.
    pub fields: [Vec<(String, LocalList)>; FIELDS],
    /// This part's share of the serialized size (what the shard count is computed from).
    pub estimate: usize,
}

/// Adds a posting; a repeated (term, chunk) of an additive field counts once.
fn add(map: &mut FxHashMap<String, LocalList>, term: &str, posting: (u32, u32)) {
    match map.get_mut(term) {
        Some(v) => {
            if v.last().is_none_or(|l| l.0 != posting.0) {
                v.push(posting);
            }
        }
        None => {
            map.insert(term.to_string(), vec![posting]);
        }
    }
}

/// Postings of the chunks of `docs` that carry `domain`.
pub fn postings(domain: &str, docs: &[&BuiltDoc]) -> Postings {
    let _t = crate::timings::start(crate::timings::Stage::Index);
    let mut p = Postings::default();
    let mut maps: [FxHashMap<String, LocalList>; FIELDS] = Default::default();
    let mut tf: FxHashMap<&str, u32> = FxHashMap::default();
    let mut stem_tf: FxHashMap<String, u32> = FxHashMap::default();
    for d in docs.iter().filter(|d| d.domains.iter().any(|x| x == domain)) {
        for c in &d.chunks {
            tf.clear();
            stem_tf.clear();
            let mut len = 0u32;
            for t in c.search_text.tokens() {
                *tf.entry(t).or_default() += 1;
                len += 1;
            }
            for (t, f) in &tf {
                if let Some(k) = crate::normalize::stem::stem(t) {
                    *stem_tf.entry(k).or_default() += f;
                }
            }
            let idx = p.ids.len() as u32;
            p.ids.push(c.chunk_id.as_str().to_string());
            p.lens.push(len);
            p.chunks += 1;
            p.total_len += len as u64;
            for (t, f) in &tf {
                add(&mut maps[0], t, (idx, *f));
            }
            for t in c.extra_tokens.iter() {
                add(&mut maps[1], t, (idx, 1));
            }
            for t in c.context_tokens.iter() {
                add(&mut maps[2], t, (idx, 1));
            }
            for (t, f) in &stem_tf {
                add(&mut maps[3], t, (idx, *f));
            }
        }
    }
    p.set_fields(maps.map(|m| m.into_iter().collect()));
    p
}

impl Postings {
    /// Sets the fields (sorting their terms) and the size estimate; `ids` must be in place.
    /// The estimate is a sum over chunks and postings (no per-term part), so it adds up over
    /// any grouping of the chunks: a resumed build derives a domain's total from the previous
    /// one and the edited files alone (`engine::resume`).
    pub fn set_fields(&mut self, fields: [Vec<(String, LocalList)>; FIELDS]) {
        self.estimate = self.ids.iter().map(|id| id.len() + 10).sum();
        for (f, mut v) in fields.into_iter().enumerate() {
            v.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            let per = if has_tf(f) { 10 } else { 7 };
            self.estimate += v.iter().flat_map(|(_, ps)| ps.iter()).map(|(i, _)| self.ids[*i as usize].len() + per).sum::<usize>();
            self.fields[f] = v;
        }
    }

    /// A term's postings with chunk IDs: `(chunk_id, tf)` in part order.
    fn resolved<'a>(&'a self, list: &'a LocalList) -> impl Iterator<Item = (&'a str, u32)> + 'a {
        list.iter().map(|(c, tf)| (self.ids[*c as usize].as_str(), *tf))
    }
}

/// Renders the lexical artifacts of one domain from the chunks that carry it.
pub fn render_domain(domain: &str, docs: &[&BuiltDoc]) -> Vec<Rendered> {
    render_postings(domain, &[&postings(domain, docs)])
}

#[derive(Serialize)]
struct ShardOut<'a> {
    domain: &'a str,
    shard: usize,
    terms: BTreeMap<&'a str, Vec<(&'a str, u32)>>,
    #[serde(skip_serializing_if = "IdsOnly::is_empty")]
    alias_terms: IdsOnly<'a>,
    #[serde(skip_serializing_if = "IdsOnly::is_empty")]
    context_terms: IdsOnly<'a>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    stem_terms: BTreeMap<&'a str, Vec<(&'a str, u32)>>,
}

/// A field whose postings are written without their (always 1) frequencies: `term: [chunk_id, …]`.
struct IdsOnly<'a>(BTreeMap<&'a str, Vec<(&'a str, u32)>>);

impl IdsOnly<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for IdsOnly<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Ids<'b>(&'b [(&'b str, u32)]);
        impl Serialize for Ids<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.iter().map(|(c, _)| c))
            }
        }
        s.collect_map(self.0.iter().map(|(t, v)| (t, Ids(v))))
    }
}

#[derive(Serialize)]
struct MetaOut<'a> {
    domain: &'a str,
    chunks: usize,
    total_len: u64,
    avgdl: f64,
    shards: usize,
    hash: &'static str,
    lengths: BTreeMap<&'a str, u32>,
}

/// The term-shard count of a domain whose parts are `parts`: powers of two, so that a shard is
/// about `SHARD_TARGET_BYTES`.
pub fn shard_count(parts: &[&Postings]) -> usize {
    shards_for(parts.iter().map(|p| p.estimate).sum())
}

/// The term-shard count for a domain's total size estimate.
pub fn shards_for(estimate: usize) -> usize {
    (estimate / SHARD_TARGET_BYTES + 1).next_power_of_two()
}

/// A part's (field, term index) entries dealt to the term shards they belong to.
pub type Dealt = Vec<Vec<(u8, u32)>>;

pub fn deal(part: &Postings, shards: usize) -> Dealt {
    let _t = crate::timings::start(crate::timings::Stage::Index);
    let mut out: Dealt = vec![Vec::new(); shards];
    for (f, field) in part.fields.iter().enumerate() {
        for (i, (t, _)) in field.iter().enumerate() {
            out[shard_of(t, shards)].push((f as u8, i as u32));
        }
    }
    out
}

/// Renders term shard `k` of a domain from its parts and their dealt entries. A term's postings
/// are sorted by chunk ID (unique in a build), so the bytes do not depend on how chunks are
/// grouped into parts.
pub fn render_shard(domain: &str, k: usize, parts: &[&Postings], dealt: &[&Dealt]) -> Rendered {
    let _t = crate::timings::start(crate::timings::Stage::Serialize);
    let mut fields: [BTreeMap<&str, Vec<(&str, u32)>>; FIELDS] = Default::default();
    for (p, d) in parts.iter().zip(dealt) {
        for &(f, i) in &d[k] {
            let (t, ps) = &p.fields[f as usize][i as usize];
            fields[f as usize].entry(t.as_str()).or_default().extend(p.resolved(ps));
        }
    }
    for field in &mut fields {
        for list in field.values_mut() {
            list.sort_unstable_by(|a, b| a.0.cmp(b.0));
        }
    }
    let [terms, alias, context, stem_terms] = fields;
    let shard = ShardOut { domain, shard: k, terms, alias_terms: IdsOnly(alias), context_terms: IdsOnly(context), stem_terms };
    let records = shard.terms.len();
    Rendered::new(Kind::Lexical, format!("lexical/{domain}/{k:04}"), "json", serde_json::to_vec(&shard).expect("shard serializes"), records, Some(domain.to_string()), None)
}

/// Renders a domain's meta file.
pub fn render_meta(domain: &str, parts: &[&Postings], shards: usize) -> Rendered {
    let _t = crate::timings::start(crate::timings::Stage::Serialize);
    let n: usize = parts.iter().map(|p| p.chunks).sum();
    let total_len: u64 = parts.iter().map(|p| p.total_len).sum();
    let lengths: BTreeMap<&str, u32> = parts.iter().flat_map(|p| p.ids.iter().map(String::as_str).zip(p.lens.iter().copied())).collect();
    let meta = MetaOut { domain, chunks: n, total_len, avgdl: if n == 0 { 0.0 } else { total_len as f64 / n as f64 }, shards, hash: "fnv1a64", lengths };
    Rendered::new(Kind::Lexical, format!("lexical/{domain}/meta"), "json", serde_json::to_vec(&meta).expect("meta serializes"), n, Some(domain.to_string()), None)
}

/// Renders a domain's meta and every term shard from the postings of its document shards, in
/// order (shards in parallel).
pub fn render_postings(domain: &str, parts: &[&Postings]) -> Vec<Rendered> {
    render_with(domain, parts, shard_count(parts))
}

/// Renders a domain's meta and its `shards` term shards.
fn render_with(domain: &str, parts: &[&Postings], shards: usize) -> Vec<Rendered> {
    let dealt: Vec<Dealt> = parts.par_iter().map(|p| deal(p, shards)).collect();
    let dealt_refs: Vec<&Dealt> = dealt.iter().collect();
    let mut out: Vec<Rendered> = (0..shards).into_par_iter().map(|k| render_shard(domain, k, parts, &dealt_refs)).collect();
    out.insert(0, render_meta(domain, parts, shards));
    out
}

/// The term shards whose content differs between two versions of one part (same position in
/// the domain's part list): those holding a term whose postings (chunk IDs and frequencies)
/// changed. Lengths live in the meta, which is always rendered.
pub fn changed_shards(old: &Postings, new: &Postings, shards: usize, into: &mut std::collections::BTreeSet<usize>) {
    let ids_same = old.ids == new.ids;
    for f in 0..FIELDS {
        let (a, b) = (&old.fields[f], &new.fields[f]);
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let ord = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) => x.0.cmp(&y.0),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            match ord {
                std::cmp::Ordering::Less => {
                    into.insert(shard_of(&a[i].0, shards));
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    into.insert(shard_of(&b[j].0, shards));
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    let same = if ids_same { a[i].1 == b[j].1 } else { old.resolved(&a[i].1).eq(new.resolved(&b[j].1)) };
                    if !same {
                        into.insert(shard_of(&a[i].0, shards));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
    }
}

/// The terms, per field, whose postings differ between `old` and `new` (the same chunks before
/// and after an edit, e.g. one file's): the only ones a patch has to rewrite.
pub fn changed_terms(old: &Postings, new: &Postings) -> [std::collections::BTreeSet<String>; FIELDS] {
    let mut out: [std::collections::BTreeSet<String>; FIELDS] = Default::default();
    for (f, set) in out.iter_mut().enumerate() {
        let (a, b) = (&old.fields[f], &new.fields[f]);
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x.0 == y.0 => {
                    if !old.resolved(&x.1).eq(new.resolved(&y.1)) {
                        set.insert(x.0.clone());
                    }
                    i += 1;
                    j += 1;
                }
                (Some(x), Some(y)) if x.0 < y.0 => {
                    set.insert(x.0.clone());
                    i += 1;
                }
                (Some(x), None) => {
                    set.insert(x.0.clone());
                    i += 1;
                }
                (_, Some(y)) => {
                    set.insert(y.0.clone());
                    j += 1;
                }
                (None, None) => break,
            }
        }
    }
    out
}

/// Patches a term shard of the previous build: for each term of `terms` (per field), the
/// postings of the chunks in `old` are replaced by those in `new`; a term left without postings
/// goes. The bytes equal those of a full render of the same chunks (same struct, same order).
pub fn patch_shard(shard: &mut LexShard, terms: &[Vec<&String>; FIELDS], old: &Postings, new: &Postings) {
    let gone: rustc_hash::FxHashSet<&str> = old.ids.iter().chain(&new.ids).map(String::as_str).collect();
    let postings_of = |p: &Postings, f: usize, t: &str| -> Vec<(String, u32)> {
        match p.fields[f].binary_search_by(|(x, _)| x.as_str().cmp(t)) {
            Ok(i) => p.resolved(&p.fields[f][i].1).map(|(c, tf)| (c.to_string(), tf)).collect(),
            Err(_) => Vec::new(),
        }
    };
    for (f, list) in terms.iter().enumerate() {
        for t in list {
            let mut v: Vec<(String, u32)> = shard.field(f, t).into_iter().filter(|(c, _)| !gone.contains(c)).map(|(c, tf)| (c.to_string(), tf)).collect();
            v.extend(postings_of(new, f, t));
            v.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            let t = (*t).clone();
            match f {
                0 | 3 => {
                    let map = if f == 0 { &mut shard.terms } else { &mut shard.stem_terms };
                    if v.is_empty() { map.remove(&t) } else { map.insert(t, v) };
                }
                _ => {
                    let map = if f == 1 { &mut shard.alias_terms } else { &mut shard.context_terms };
                    if v.is_empty() { map.remove(&t) } else { map.insert(t, v.into_iter().map(|(c, _)| c).collect()) };
                }
            }
        }
    }
}

/// A patched term shard, rendered.
pub fn render_patched(shard: &LexShard) -> Rendered {
    let _t = crate::timings::start(crate::timings::Stage::Serialize);
    Rendered::new(Kind::Lexical, format!("lexical/{}/{:04}", shard.domain, shard.shard), "json", serde_json::to_vec(shard).expect("shard serializes"), shard.terms.len(), Some(shard.domain.clone()), None)
}

/// Patches a domain's meta: the lengths of the chunks in `old` are replaced by those in `new`.
pub fn patch_meta(meta: &mut LexMeta, old: &Postings, new: &Postings) {
    for id in &old.ids {
        meta.lengths.remove(id);
    }
    for (id, len) in new.ids.iter().zip(&new.lens) {
        meta.lengths.insert(id.clone(), *len);
    }
    meta.chunks = meta.lengths.len();
    meta.total_len = meta.lengths.values().map(|l| *l as u64).sum();
    meta.avgdl = if meta.chunks == 0 { 0.0 } else { meta.total_len as f64 / meta.chunks as f64 };
}

/// A patched meta, rendered.
pub fn render_patched_meta(meta: &LexMeta) -> Rendered {
    let _t = crate::timings::start(crate::timings::Stage::Serialize);
    Rendered::new(Kind::Lexical, format!("lexical/{}/meta", meta.domain), "json", serde_json::to_vec(meta).expect("meta serializes"), meta.chunks, Some(meta.domain.clone()), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A part of `n` chunks `lib:doc{d}:{c}` whose tokens come from `words`.
    fn part(docs: &[(u32, &[&str])]) -> Postings {
        let mut p = Postings::default();
        let mut maps: [FxHashMap<String, LocalList>; FIELDS] = Default::default();
        for (d, words) in docs {
            let idx = p.ids.len() as u32;
            p.ids.push(format!("lib:doc{d}:0000"));
            p.lens.push(words.len() as u32);
            p.chunks += 1;
            p.total_len += words.len() as u64;
            let mut tf: BTreeMap<&str, u32> = BTreeMap::new();
            for w in *words {
                *tf.entry(w).or_default() += 1;
            }
            for (w, n) in tf {
                add(&mut maps[0], w, (idx, n));
                add(&mut maps[1], &format!("{w}x"), (idx, 1));
            }
        }
        p.set_fields(maps.map(|m| m.into_iter().collect()));
        p
    }

    #[test]
    fn a_patched_shard_and_meta_equal_a_full_render() {
        let a = part(&[(1, &["نيل", "مصر", "نيل"]), (2, &["قاهره", "مصر"])]);
        let b_old = part(&[(3, &["نيل", "بحر"]), (4, &["اسكندريه"])]);
        let b_new = part(&[(3, &["نيل", "نيل", "جبل"]), (4, &["اسكندريه"])]);
        // The edited file alone, before and after.
        let (f_old, f_new) = (part(&[(3, &["نيل", "بحر"])]), part(&[(3, &["نيل", "نيل", "جبل"])]));
        assert_eq!(a.estimate + b_old.estimate - f_old.estimate + f_new.estimate, a.estimate + b_new.estimate, "the estimate adds up");
        assert_eq!(shard_count(&[&a, &b_new]), shard_count(&[&a, &b_old]));
        for n in [1, 2, 4] {
            let before = render_with("d", &[&a, &b_old], n);
            let after = render_with("d", &[&a, &b_new], n);
            let changed = changed_terms(&f_old, &f_new);
            assert!(changed[0].contains("جبل") && changed[0].contains("نيل") && !changed[0].contains("مصر"));
            let mut meta: LexMeta = serde_json::from_slice(&before[0].bytes().unwrap()).unwrap();
            patch_meta(&mut meta, &f_old, &f_new);
            assert_eq!(render_patched_meta(&meta).bytes(), after[0].bytes());
            for k in 0..n {
                let mut terms: [Vec<&String>; FIELDS] = Default::default();
                for (f, set) in changed.iter().enumerate() {
                    terms[f] = set.iter().filter(|t| shard_of(t, n) == k).collect();
                }
                let mut shard: LexShard = serde_json::from_slice(&before[k + 1].bytes().unwrap()).unwrap();
                patch_shard(&mut shard, &terms, &f_old, &f_new);
                assert_eq!(render_patched(&shard).bytes(), after[k + 1].bytes(), "shard {k}");
            }
        }
    }
}
