//! The lexical artifacts of a domain, patched across builds. Salsa memoizes each document
//! shard's postings (`db::shard_postings`), but a domain's term shards merge the postings of every
//! document shard: as one query, any edit would re-render all of them (thousands of files at 10k
//! documents). Instead the engine keeps the previous render of each domain with its parts, finds
//! the term shards holding a term whose postings changed in a changed part, and re-renders only
//! those (plus the meta). When the domain's set of documents changed, postings' ordinals move
//! and everything is rendered again. The bytes are exactly those of a full render of the same
//! parts: the property tests in `tests/incremental.rs` compare incremental builds with clean
//! ones.

use std::collections::BTreeSet;
use std::sync::Arc;

use rayon::prelude::*;

use crate::artifacts::Rendered;
use crate::artifacts::lexical::{
    Dealt, Postings, SHARDS_PER_TASK, changed_shards, deal, render_meta, render_range,
    render_shard, shard_count, table,
};

pub(super) struct DomainLex {
    shards: usize,
    parts: Vec<Arc<Postings>>,
    dealt: Vec<Arc<Dealt>>,
    /// The domain's documents, sorted (postings' ordinals are positions here).
    docs: Vec<String>,
    /// The meta, then term shards `0..shards`.
    pub rendered: Arc<Vec<Rendered>>,
}

impl DomainLex {
    /// The domain's size estimate (what its shard count comes from).
    pub(super) fn estimate(&self) -> usize {
        self.parts.iter().map(|p| p.estimate).sum()
    }

    /// Renders (or patches) the domain; `sink` receives every freshly rendered file as soon as it
    /// exists (the engine stores it and releases its bytes).
    pub(super) fn render(
        domain: &str,
        parts: Vec<Arc<Postings>>,
        prev: Option<DomainLex>,
        sink: &(dyn Fn(&Rendered) + Sync),
    ) -> DomainLex {
        let refs: Vec<&Postings> = parts.iter().map(|p| p.as_ref()).collect();
        let shards = shard_count(&refs);
        let table = table(&refs);
        // Which term shards to render: all of them, unless the previous render has the same
        // shard count, documents and parts in the same places (an edit inside document shards).
        let mut todo: Option<BTreeSet<usize>> = None;
        let mut dealt: Vec<Option<Arc<Dealt>>> = vec![None; parts.len()];
        if let Some(prev) = &prev
            && prev.shards == shards
            && prev.parts.len() == parts.len()
            && prev
                .docs
                .iter()
                .map(String::as_str)
                .eq(table.docs.iter().copied())
        {
            let mut set = BTreeSet::new();
            for (i, (old, new)) in prev.parts.iter().zip(&parts).enumerate() {
                if Arc::ptr_eq(old, new) || old == new {
                    dealt[i] = Some(prev.dealt[i].clone());
                } else {
                    changed_shards(old, new, shards, &mut set);
                }
            }
            todo = Some(set);
        }
        let dealt: Vec<Arc<Dealt>> = dealt
            .into_par_iter()
            .zip(parts.par_iter())
            .map(|(d, p)| d.unwrap_or_else(|| Arc::new(deal(p, shards))))
            .collect();
        let dealt_refs: Vec<&Dealt> = dealt.iter().map(|d| d.as_ref()).collect();
        let mut rendered: Vec<Rendered> = Vec::with_capacity(shards + 1);
        let meta = render_meta(domain, &refs, shards, &table);
        sink(&meta);
        rendered.push(meta);
        match (todo, prev) {
            (Some(todo), Some(prev)) => {
                let fresh: Vec<(usize, Rendered)> = todo
                    .par_iter()
                    .map(|&k| {
                        let r = render_shard(domain, k, &refs, &dealt_refs, &table);
                        sink(&r);
                        (k, r)
                    })
                    .collect();
                let mut fresh = fresh.into_iter().peekable();
                for k in 0..shards {
                    match fresh.peek() {
                        Some((j, _)) if *j == k => rendered.push(fresh.next().expect("peeked").1),
                        _ => rendered.push(prev.rendered[k + 1].clone()),
                    }
                }
            }
            _ => {
                let tasks: Vec<std::ops::Range<usize>> = (0..shards)
                    .step_by(SHARDS_PER_TASK)
                    .map(|s| s..(s + SHARDS_PER_TASK).min(shards))
                    .collect();
                rendered.extend(
                    tasks
                        .into_par_iter()
                        .flat_map_iter(|r| {
                            render_range(domain, r, &refs, &dealt_refs, &table, sink)
                        })
                        .collect::<Vec<_>>(),
                )
            }
        }
        let docs = table.docs.iter().map(|d| d.to_string()).collect();
        DomainLex {
            shards,
            parts,
            dealt,
            docs,
            rendered: Arc::new(rendered),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic pseudo-random part: `chunks` chunks over a vocabulary of `vocab` terms.
    fn part(seed: u64, tag: &str, chunks: u32, vocab: u64) -> Postings {
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut p = Postings::default();
        let mut fields: [std::collections::BTreeMap<String, Vec<(u32, u32)>>;
            crate::artifacts::lexical::FIELDS] = Default::default();
        for c in 0..chunks {
            let len = 50 + (next() % 200) as u32;
            let doc = format!("lib:{tag}/doc{}", c / 2);
            p.push_chunk(&doc, c % 2, doc.len() + 4, len);
            for _ in 0..len {
                let f = (next() % crate::artifacts::lexical::FIELDS as u64) as usize;
                let t = format!("t{}", next() % vocab);
                let list = fields[f].entry(t).or_default();
                match list.last_mut() {
                    Some(last) if last.0 == c => last.1 += 1,
                    _ => list.push((c, 1)),
                }
            }
        }
        p.set_fields(
            fields.map(|m| crate::artifacts::lexical::Field::from_terms(m.into_iter().collect())),
        );
        p
    }

    fn bytes(r: &[Rendered]) -> Vec<(String, Option<Vec<u8>>)> {
        r.iter().map(|r| (r.path_and_hash().0, r.bytes())).collect()
    }

    #[test]
    fn a_patched_render_equals_a_full_render() {
        let parts: Vec<Arc<Postings>> = (0..6)
            .map(|i| Arc::new(part(i, &format!("s{i}"), 100, 4000)))
            .collect();
        let first = DomainLex::render("d", parts.clone(), None, &|_| {});
        assert!(
            first.shards > 4,
            "the test needs several term shards, got {}",
            first.shards
        );
        let mut prev = first;
        let mut current = parts;
        // Edit one part at a time: a one-posting change (a small edit in a document shard), or a
        // new part under other chunk IDs.
        for (round, pos) in [2usize, 0, 5, 2].into_iter().enumerate() {
            let mut next = current.clone();
            let small = round % 2 == 0;
            next[pos] = if small {
                let mut p = (*current[pos]).clone();
                let mut fields = std::mem::take(&mut p.fields);
                fields[0].list_mut(7)[0].1 += 1;
                p.set_fields(fields);
                Arc::new(p)
            } else {
                Arc::new(part(
                    100 + round as u64,
                    &format!("renamed{round}"),
                    100,
                    4000,
                ))
            };
            current = next.clone();
            let full = DomainLex::render("d", next.clone(), None, &|_| {});
            let kept = bytes(&prev.rendered);
            let patched = DomainLex::render("d", next, Some(prev), &|_| {});
            assert_eq!(patched.shards, full.shards);
            // Same paths (content hashes) everywhere; fresh bytes equal where rendered again.
            let (p, f) = (bytes(&patched.rendered), bytes(&full.rendered));
            assert_eq!(
                p.iter().map(|x| &x.0).collect::<Vec<_>>(),
                f.iter().map(|x| &x.0).collect::<Vec<_>>(),
                "round {round}"
            );
            for (a, b) in p.iter().zip(&f) {
                if a.1.is_some() {
                    assert_eq!(a.1, b.1, "round {round}");
                }
            }
            let changed = p.iter().zip(&kept).filter(|(a, b)| a.0 != b.0).count();
            if small {
                // The meta (avgdl is unchanged, but it is always rendered) and one term shard.
                assert!(
                    changed <= 2,
                    "round {round}: {changed} files changed for a one-posting edit"
                );
            }
            prev = patched;
        }
    }
}
