//! Lexical shards: per domain, a BM25 index over `search_text` tokens only, sharded by term hash
//! the way static search indexes are (a question reads only the shards of its terms).
//!
//! `lexical/<domain>/meta` holds `{domain, chunks, avgdl, shards, hash}`; shard `k` holds
//! `{domain, shard, terms: {term: [[chunk_id, tf, dl], …]}}` for the terms whose
//! `fnv1a64(term) % shards == k`, and optionally, for the same shard of each term, the additive
//! fields `alias_terms` (variants and alias forms), `context_terms` (title and headings) and
//! `stem_terms` (stem keys, `normalize::stem`). No evidence text appears in any shard.

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

/// Postings of one term inside a `Postings` part: `(chunk index in the part, tf, chunk length)`.
type LocalList = Vec<(u32, u32, u32)>;

/// The lexical contribution of a set of documents to one domain: the chunk IDs once, and per
/// field, term → postings by chunk index. Built per document shard and merged per domain, so an
/// edit re-tokenizes only its shard; IDs are not copied per posting.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Postings {
    pub chunks: usize,
    pub total_len: u64,
    pub ids: Vec<String>,
    /// `terms`, `alias_terms`, `context_terms`, `stem_terms`.
    pub fields: [std::collections::HashMap<String, LocalList>; 4],
}

fn add(map: &mut std::collections::HashMap<String, LocalList>, term: &str, posting: (u32, u32, u32)) {
    match map.get_mut(term) {
        Some(v) => v.push(posting),
        None => {
            map.insert(term.to_string(), vec![posting]);
        }
    }
}

/// Postings of the chunks of `docs` that carry `domain`.
pub fn postings(domain: &str, docs: &[&BuiltDoc]) -> Postings {
    let mut p = Postings::default();
    let mut tf: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    let mut stem_tf: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
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
                add(&mut p.fields[0], t, (idx, *f, len));
            }
            for t in &c.extra_tokens {
                add(&mut p.fields[1], t, (idx, 1, len));
            }
            for t in &c.context_tokens {
                add(&mut p.fields[2], t, (idx, 1, len));
            }
            for (t, f) in &stem_tf {
                add(&mut p.fields[3], t, (idx, *f, len));
            }
        }
    }
    p
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

/// One field of a shard being rendered: term → postings with borrowed chunk IDs.
type Field<'a> = BTreeMap<&'a str, Vec<(&'a str, u32, u32)>>;

/// Renders a domain's meta and term-hash shards from the postings of its document shards, in order.
pub fn render_postings(domain: &str, parts: &[&Postings]) -> Vec<Rendered> {
    let n: usize = parts.iter().map(|p| p.chunks).sum();
    let total_len: u64 = parts.iter().map(|p| p.total_len).sum();
    // Every field's terms in order, postings in part order, with IDs borrowed from the parts.
    let mut merged: [Field<'_>; 4] = Default::default();
    for (f, out) in merged.iter_mut().enumerate() {
        for p in parts {
            for (t, ps) in &p.fields[f] {
                out.entry(t.as_str()).or_default().extend(ps.iter().map(|(i, tf, dl)| (p.ids[*i as usize].as_str(), *tf, *dl)));
            }
        }
    }
    let estimate: usize = merged.iter().flat_map(|m| m.iter()).map(|(t, ps)| t.len() + 6 + ps.iter().map(|(id, _, _)| id.len() + 14).sum::<usize>()).sum();
    let shards = (estimate / SHARD_TARGET_BYTES + 1).next_power_of_two();
    let mut per_shard: Vec<ShardOut> = (0..shards)
        .map(|k| ShardOut { domain, shard: k, terms: BTreeMap::new(), alias_terms: BTreeMap::new(), context_terms: BTreeMap::new(), stem_terms: BTreeMap::new() })
        .collect();
    let [terms, alias_terms, context_terms, stem_terms] = merged;
    for (t, ps) in terms {
        per_shard[shard_of(t, shards)].terms.insert(t, ps);
    }
    for (t, ps) in alias_terms {
        per_shard[shard_of(t, shards)].alias_terms.insert(t, ps);
    }
    for (t, ps) in context_terms {
        per_shard[shard_of(t, shards)].context_terms.insert(t, ps);
    }
    for (t, ps) in stem_terms {
        per_shard[shard_of(t, shards)].stem_terms.insert(t, ps);
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
    for shard in per_shard {
        let records = shard.terms.len();
        let k = shard.shard;
        out.push(Rendered::new(Kind::Lexical, format!("lexical/{domain}/{k:04}"), "json", serde_json::to_vec(&shard).expect("shard serializes"), records, dom.clone(), None));
    }
    out
}
