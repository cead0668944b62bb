//! Full renders of a domain's lexical files from its parts: the document table with its slots,
//! the meta, and term shards written straight from the parts' postings.

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::Serialize;

use super::{ChunkRef, FIELDS, Field, Posting, Postings, avgdl, has_tf, shard_of, slots};
use crate::artifacts::{Kind, Rendered};
use crate::text::prefix_key;

/// Target size of one shard, in estimated bytes (`Postings::estimate` runs 10–20 % above the
/// rendered JSON, so shards average ~70 KB); a Worker reads one shard per question term.
pub(super) const SHARD_TARGET_BYTES: usize = 80 * 1024;

/// A domain's document table: its documents sorted by ID with their slots, per part the
/// position in `docs` of each of the part's documents, and per part the chunk each local chunk
/// index stands for.
pub(crate) struct Table<'a> {
    pub docs: Vec<&'a str>,
    pub slots: Vec<u32>,
    pub positions: Vec<Vec<u32>>,
    pub chunks: Vec<Vec<ChunkRef>>,
}

/// The document table of a domain's parts (a document ID is unique in a build).
pub(crate) fn table<'a>(parts: &[&'a Postings]) -> Table<'a> {
    let mut docs: Vec<&str> = parts
        .iter()
        .flat_map(|p| p.docs.iter().map(String::as_str))
        .collect();
    docs.par_sort_unstable();
    docs.dedup();
    let slots = slots(&docs);
    let pos: FxHashMap<&str, u32> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| (*d, i as u32))
        .collect();
    let positions: Vec<Vec<u32>> = parts
        .iter()
        .map(|p| p.docs.iter().map(|d| pos[d.as_str()]).collect())
        .collect();
    let chunks = parts
        .iter()
        .zip(&positions)
        .map(|(p, at)| {
            p.refs
                .iter()
                .map(|&(d, index)| ChunkRef {
                    ord: slots[at[d as usize] as usize],
                    index,
                })
                .collect()
        })
        .collect();
    Table {
        docs,
        slots,
        positions,
        chunks,
    }
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
    docs: Vec<(u32, &'a str, Vec<u32>)>,
}

/// The term-shard count of a domain whose parts are `parts` (see `shards_for`).
pub(crate) fn shard_count(parts: &[&Postings]) -> usize {
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
pub(crate) fn shards_for(estimate: usize) -> usize {
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

/// A part's terms dealt to the term shards they belong to, sorted by shard. One flat list per part: a vector per (part, shard) pair grows with the
/// square of the corpus (parts and shards both grow with it).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Dealt(Vec<DealtTerm>);

/// One term of a part and the shard it belongs to.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct DealtTerm {
    shard: u32,
    /// The field's index in `Postings::fields`.
    field: u8,
    /// The term's index in its field.
    term: u32,
}

impl Dealt {
    /// Where shard `k`'s entries start.
    fn start_of(&self, k: usize) -> usize {
        self.0.partition_point(|e| (e.shard as usize) < k)
    }

    /// The entries of shard `k` from `at` (a `start_of(k)`, or where shard `k - 1` ended).
    fn run(&self, k: usize, at: usize) -> &[DealtTerm] {
        let len = self.0[at..]
            .iter()
            .take_while(|e| e.shard as usize == k)
            .count();
        &self.0[at..at + len]
    }
}

pub(crate) fn deal(part: &Postings, shards: usize) -> Dealt {
    let _t = crate::timings::start(crate::timings::Stage::Index);
    let mut keyed: Vec<DealtTerm> = Vec::with_capacity(part.fields.iter().map(Field::len).sum());
    let shards = shards.max(1);
    let mut at = vec![0usize; shards + 1];
    for (f, field) in part.fields.iter().enumerate() {
        for i in 0..field.len() {
            let k = shard_of(field.term(i), shards) as u32;
            at[k as usize + 1] += 1;
            keyed.push(DealtTerm {
                shard: k,
                field: f as u8,
                term: i as u32,
            });
        }
    }
    for k in 0..shards {
        at[k + 1] += at[k];
    }
    // A counting sort by shard: within a shard, fields and terms stay in order.
    let mut out = vec![DealtTerm::default(); keyed.len()];
    for e in keyed {
        out[at[e.shard as usize]] = e;
        at[e.shard as usize] += 1;
    }
    Dealt(out)
}

/// Renders term shard `k` of a domain from its parts, their dealt entries and the domain's
/// table. A term's postings are sorted by chunk, so the bytes do not depend on how chunks are
/// grouped into parts.
pub(crate) fn render_shard(
    domain: &str,
    k: usize,
    parts: &[&Postings],
    dealt: &[&Dealt],
    table: &Table,
) -> Rendered {
    let runs: Vec<&[DealtTerm]> = dealt.iter().map(|d| d.run(k, d.start_of(k))).collect();
    render_runs(domain, k, parts, &runs, table)
}

/// Renders term shards `range`, in order. Each part's dealt list is walked once from the
/// range's start: looking every shard up in every part costs parts × shards searches, which
/// grows with the square of the corpus.
pub(crate) fn render_range(
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
        let runs: Vec<&[DealtTerm]> = dealt.iter().zip(&at).map(|(d, &a)| d.run(k, a)).collect();
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
pub(crate) const SHARDS_PER_TASK: usize = 16;

/// Renders term shard `k` from each part's run of dealt entries for it: `LexShard`'s fields in
/// order, the additive ones skipped when empty, each field's terms merged across the parts in
/// term order and written straight out (no map per shard, no list per term).
fn render_runs(
    domain: &str,
    k: usize,
    parts: &[&Postings],
    runs: &[&[DealtTerm]],
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
                run.partition_point(|e| (e.field as usize) < f),
                run.partition_point(|e| (e.field as usize) <= f),
            );
            merged.extend(run[a..b].iter().map(|e| {
                let field = &p.fields[f];
                // The term's postings are read once the field's terms are merged; they lie in
                // term order, far apart in a shard's order: asked for now, while the merge reads
                // the terms, not one cache miss at a time in the loop below.
                field.prefetch_list(e.term as usize);
                let t = field.term(e.term as usize);
                (prefix_key(t), t, pi as u32, e.term)
            }));
        }
        if f > 0 && merged.is_empty() {
            continue;
        }
        // By term: first bytes, then the whole term. A kept part's terms are sorted, and a
        // stable merge sort only merges those runs; a one-shot build's are sorted here alone.
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
            // Postings name chunks by slot, a hash of the document ID, so a term's postings from
            // a part of documents in ID order are in slot order only by chance (a one-shot
            // build's parts are in slot order). A chunk appears once per term, so an unstable
            // sort (no scratch buffer) gives the one order.
            if !list.is_sorted_by_key(|p| p.chunk) {
                list.sort_unstable_by_key(|p| p.chunk);
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
fn runs_size(parts: &[&Postings], runs: &[&[DealtTerm]]) -> usize {
    let mut n = 0;
    for (p, run) in parts.iter().zip(runs) {
        for e in run.iter() {
            let field = &p.fields[e.field as usize];
            let i = e.term as usize;
            n += field.term(i).len() + 8 * field.list(i).len() + 8;
        }
    }
    n
}

/// Renders a domain's meta file.
pub(crate) fn render_meta(
    domain: &str,
    parts: &[&Postings],
    shards: usize,
    table: &Table,
) -> Rendered {
    let _t = crate::timings::start(crate::timings::Stage::Serialize);
    let n: usize = parts.iter().map(|p| p.chunks).sum();
    let total_len: u64 = parts.iter().map(|p| p.total_len).sum();
    let mut lens: Vec<Vec<u32>> = vec![Vec::new(); table.docs.len()];
    for (p, at) in parts.iter().zip(&table.positions) {
        for (&(d, index), len) in p.refs.iter().zip(&p.lens) {
            let l = &mut lens[at[d as usize] as usize];
            if l.len() <= index as usize {
                l.resize(index as usize + 1, 0);
            }
            l[index as usize] = *len;
        }
    }
    let mut docs: Vec<(u32, &str, Vec<u32>)> = table
        .slots
        .iter()
        .copied()
        .zip(table.docs.iter().copied())
        .zip(lens)
        .map(|((s, d), l)| (s, d, l))
        .collect();
    docs.sort_unstable_by_key(|d| d.0);
    let width = parts.iter().map(|p| p.width).max().unwrap_or(0);
    let meta = MetaOut {
        domain,
        chunks: n,
        total_len,
        avgdl: avgdl(total_len, n),
        shards,
        hash: "fnv1a64",
        width,
        docs,
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
pub(super) fn render_with(domain: &str, parts: &[&Postings], shards: usize) -> Vec<Rendered> {
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
