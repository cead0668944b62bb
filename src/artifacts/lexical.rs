//! Lexical shards: per domain, a BM25 index over `search_text` tokens only, sharded by term hash
//! the way static search indexes are (a question reads only the shards of its terms).
//!
//! `lexical/<domain>/meta` holds `{domain, chunks, avgdl, shards, hash}`; shard `k` holds
//! `{domain, shard, terms: {term: [[chunk_id, tf, dl], …]}}` for the terms whose
//! `fnv1a64(term) % shards == k`, and optionally, for the same shard of each term, the additive
//! fields `alias_terms` (variants and alias forms), `context_terms` (title and headings) and
//! `stem_terms` (stem keys, `normalize::stem`). No evidence text appears in any shard.

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
    pub avgdl: f64,
    pub shards: usize,
    pub hash: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LexShard {
    pub domain: String,
    pub shard: usize,
    /// term → postings `(chunk_id, term frequency, chunk length in tokens)`.
    pub terms: BTreeMap<String, Vec<(String, u32, u32)>>,
    /// Additive tokens kept apart from `terms`: spelling variants and alias forms
    /// (`(chunk_id, 1, chunk length)`); never part of `search_text`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub alias_terms: BTreeMap<String, Vec<(String, u32, u32)>>,
    /// Title and section-heading tokens of each chunk (`(chunk_id, 1, chunk length)`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub context_terms: BTreeMap<String, Vec<(String, u32, u32)>>,
    /// Stem keys of the chunk's Arabic search tokens (`normalize::stem`), with their real term
    /// frequency (`(chunk_id, tf, chunk length)`); never part of `search_text`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stem_terms: BTreeMap<String, Vec<(String, u32, u32)>>,
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

/// Postings of one term inside a `Postings` part: `(chunk index in the part, tf, chunk length)`.
type LocalList = Vec<(u32, u32, u32)>;

/// The lexical contribution of a set of documents to one domain: the chunk IDs once, and per
/// field, its terms in order with their postings by chunk index. Built per document shard and
/// merged per domain, so an edit re-tokenizes only its shard; IDs are not copied per posting.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Postings {
    pub chunks: usize,
    pub total_len: u64,
    pub ids: Vec<String>,
    /// `terms`, `alias_terms`, `context_terms`, `stem_terms`: (term, postings), sorted by term.
    pub fields: [Vec<(String, LocalList)>; FIELDS],
    /// This part's share of the serialized size (what the shard count is computed from).
    pub estimate: usize,
}

fn add(map: &mut FxHashMap<String, LocalList>, term: &str, posting: (u32, u32, u32)) {
    match map.get_mut(term) {
        Some(v) => v.push(posting),
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
            p.chunks += 1;
            p.total_len += len as u64;
            for (t, f) in &tf {
                add(&mut maps[0], t, (idx, *f, len));
            }
            for t in c.extra_tokens.iter() {
                add(&mut maps[1], t, (idx, 1, len));
            }
            for t in c.context_tokens.iter() {
                add(&mut maps[2], t, (idx, 1, len));
            }
            for (t, f) in &stem_tf {
                add(&mut maps[3], t, (idx, *f, len));
            }
        }
    }
    p.set_fields(maps.map(|m| m.into_iter().collect()));
    p
}

impl Postings {
    /// Sets the fields (sorting their terms) and the size estimate; `ids` must be in place.
    pub fn set_fields(&mut self, fields: [Vec<(String, LocalList)>; FIELDS]) {
        self.estimate = 0;
        for (f, mut v) in fields.into_iter().enumerate() {
            v.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            self.estimate += v.iter().map(|(t, ps)| t.len() + 6 + ps.iter().map(|(i, _, _)| self.ids[*i as usize].len() + 14).sum::<usize>()).sum::<usize>();
            self.fields[f] = v;
        }
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
    terms: BTreeMap<&'a str, Vec<(&'a str, u32, u32)>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    alias_terms: BTreeMap<&'a str, Vec<(&'a str, u32, u32)>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    context_terms: BTreeMap<&'a str, Vec<(&'a str, u32, u32)>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    stem_terms: BTreeMap<&'a str, Vec<(&'a str, u32, u32)>>,
}

/// The term-shard count of a domain whose parts are `parts`: powers of two, so that a shard is
/// about `SHARD_TARGET_BYTES`.
pub fn shard_count(parts: &[&Postings]) -> usize {
    let estimate: usize = parts.iter().map(|p| p.estimate).sum();
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

/// Renders term shard `k` of a domain from its parts (in order) and their dealt entries. A term's
/// postings keep part order, then chunk order.
pub fn render_shard(domain: &str, k: usize, parts: &[&Postings], dealt: &[&Dealt]) -> Rendered {
    let _t = crate::timings::start(crate::timings::Stage::Serialize);
    let mut shard = ShardOut { domain, shard: k, terms: BTreeMap::new(), alias_terms: BTreeMap::new(), context_terms: BTreeMap::new(), stem_terms: BTreeMap::new() };
    for (p, d) in parts.iter().zip(dealt) {
        for &(f, i) in &d[k] {
            let (t, ps) = &p.fields[f as usize][i as usize];
            let field = match f {
                0 => &mut shard.terms,
                1 => &mut shard.alias_terms,
                2 => &mut shard.context_terms,
                _ => &mut shard.stem_terms,
            };
            field.entry(t.as_str()).or_default().extend(ps.iter().map(|(c, tf, dl)| (p.ids[*c as usize].as_str(), *tf, *dl)));
        }
    }
    let records = shard.terms.len();
    Rendered::new(Kind::Lexical, format!("lexical/{domain}/{k:04}"), "json", serde_json::to_vec(&shard).expect("shard serializes"), records, Some(domain.to_string()), None)
}

/// Renders a domain's meta file.
pub fn render_meta(domain: &str, parts: &[&Postings], shards: usize) -> Rendered {
    let _t = crate::timings::start(crate::timings::Stage::Serialize);
    let n: usize = parts.iter().map(|p| p.chunks).sum();
    let total_len: u64 = parts.iter().map(|p| p.total_len).sum();
    let meta = LexMeta {
        domain: domain.to_string(),
        chunks: n,
        avgdl: if n == 0 { 0.0 } else { total_len as f64 / n as f64 },
        shards,
        hash: "fnv1a64".into(),
    };
    Rendered::new(Kind::Lexical, format!("lexical/{domain}/meta"), "json", serde_json::to_vec(&meta).expect("meta serializes"), n, Some(domain.to_string()), None)
}

/// Renders a domain's meta and every term shard from the postings of its document shards, in
/// order (shards in parallel).
pub fn render_postings(domain: &str, parts: &[&Postings]) -> Vec<Rendered> {
    let shards = shard_count(parts);
    let dealt: Vec<Dealt> = parts.par_iter().map(|p| deal(p, shards)).collect();
    let dealt_refs: Vec<&Dealt> = dealt.iter().collect();
    let mut out: Vec<Rendered> = (0..shards).into_par_iter().map(|k| render_shard(domain, k, parts, &dealt_refs)).collect();
    out.insert(0, render_meta(domain, parts, shards));
    out
}

/// The term shards whose content differs between two versions of one part (same position in
/// the domain's part list): those holding a term whose postings or chunk IDs changed.
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
                    if !ids_same || a[i].1 != b[j].1 {
                        into.insert(shard_of(&a[i].0, shards));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
    }
}
