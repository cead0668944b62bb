//! Lexical shards: per domain, a BM25 index over `search_text` tokens only, sharded by term hash
//! the way static search indexes are (a question reads only the shards of its terms).
//!
//! `lexical/<domain>/meta` holds `{domain, chunks, avgdl, shards, hash}`; shard `k` holds
//! `{domain, shard, terms: {term: [[chunk_id, tf, dl], …]}}` for the terms whose
//! `fnv1a64(term) % shards == k`. No evidence text appears in any shard.

use std::collections::BTreeMap;

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

type PostingList = Vec<(String, u32, u32)>;

/// The lexical contribution of a set of documents to one domain: per field, term → postings.
/// Built per document shard and merged per domain, so an edit re-tokenizes only its shard.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Postings {
    pub chunks: usize,
    pub total_len: u64,
    pub terms: BTreeMap<String, PostingList>,
    pub alias_terms: BTreeMap<String, PostingList>,
    pub context_terms: BTreeMap<String, PostingList>,
}

/// Postings of the chunks of `docs` that carry `domain`.
pub fn postings(domain: &str, docs: &[&BuiltDoc]) -> Postings {
    let mut p = Postings::default();
    for d in docs.iter().filter(|d| d.domains.iter().any(|x| x == domain)) {
        for c in &d.chunks {
            let mut tf: BTreeMap<&str, u32> = BTreeMap::new();
            let mut len = 0u32;
            for t in c.search_text.tokens() {
                *tf.entry(t).or_default() += 1;
                len += 1;
            }
            p.chunks += 1;
            p.total_len += len as u64;
            let id = c.chunk_id.as_str();
            for (t, f) in tf {
                p.terms.entry(t.to_string()).or_default().push((id.to_string(), f, len));
            }
            for t in &c.extra_tokens {
                p.alias_terms.entry(t.clone()).or_default().push((id.to_string(), 1, len));
            }
            for t in &c.context_tokens {
                p.context_terms.entry(t.clone()).or_default().push((id.to_string(), 1, len));
            }
        }
    }
    p
}

/// Renders the lexical artifacts of one domain from the chunks that carry it.
pub fn render_domain(domain: &str, docs: &[&BuiltDoc]) -> Vec<Rendered> {
    render_postings(domain, &[&postings(domain, docs)])
}

/// Renders a domain's meta and term-hash shards from the postings of its document shards, in order.
pub fn render_postings(domain: &str, parts: &[&Postings]) -> Vec<Rendered> {
    let n: usize = parts.iter().map(|p| p.chunks).sum();
    let total_len: u64 = parts.iter().map(|p| p.total_len).sum();
    let merge = |pick: fn(&Postings) -> &BTreeMap<String, PostingList>| {
        let mut out: BTreeMap<&str, Vec<&(String, u32, u32)>> = BTreeMap::new();
        for p in parts {
            for (t, ps) in pick(p) {
                out.entry(t.as_str()).or_default().extend(ps.iter());
            }
        }
        out
    };
    let index = merge(|p| &p.terms);
    let extra = merge(|p| &p.alias_terms);
    let context = merge(|p| &p.context_terms);
    let estimate: usize = index.iter().chain(extra.iter()).chain(context.iter()).map(|(t, ps)| t.len() + 6 + ps.iter().map(|(id, _, _)| id.len() + 14).sum::<usize>()).sum();
    let shards = (estimate / SHARD_TARGET_BYTES + 1).next_power_of_two();
    type Field = BTreeMap<String, PostingList>;
    let mut per_shard: Vec<(Field, Field, Field)> = vec![(BTreeMap::new(), BTreeMap::new(), BTreeMap::new()); shards];
    let own = |ps: Vec<&(String, u32, u32)>| ps.into_iter().cloned().collect::<Vec<_>>();
    for (t, ps) in index {
        per_shard[shard_of(t, shards)].0.insert(t.to_string(), own(ps));
    }
    for (t, ps) in extra {
        per_shard[shard_of(t, shards)].1.insert(t.to_string(), own(ps));
    }
    for (t, ps) in context {
        per_shard[shard_of(t, shards)].2.insert(t.to_string(), own(ps));
    }
    let meta = LexMeta {
        domain: domain.to_string(),
        chunks: n,
        avgdl: if n == 0 { 0.0 } else { total_len as f64 / n as f64 },
        shards,
        hash: "fnv1a64".into(),
    };
    let dom = Some(domain.to_string());
    let mut out = vec![Rendered::new(Kind::Lexical, format!("lexical/{domain}/meta"), "json", serde_json::to_vec(&meta).expect("meta serializes"), n, dom.clone(), None)];
    for (k, (terms, alias_terms, context_terms)) in per_shard.into_iter().enumerate() {
        let records = terms.len();
        let shard = LexShard { domain: domain.to_string(), shard: k, terms, alias_terms, context_terms };
        out.push(Rendered::new(Kind::Lexical, format!("lexical/{domain}/{k:04}"), "json", serde_json::to_vec(&shard).expect("shard serializes"), records, dom.clone(), None));
    }
    out
}
