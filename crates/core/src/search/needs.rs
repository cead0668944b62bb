//! What one bulk read of lookup records must hold for an answer: the second stage's candidates
//! and every chunk the top `k` pages can show, named before the second stage has run.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

use super::{Ranker, SECTIONS, Scored, rrf, vector_weight};

impl Scored {
    /// The lookup records [`Ranker::finish`] reads (the second stage's candidates) and, with
    /// `Some(k)`, every record the top `k` pages can need (their best chunks and sections), in
    /// ID order. The second stage only reorders its candidates, so each chunk's fused score
    /// lies between bounds known now; a chunk whose page `k` other pages surely outrank cannot
    /// be shown. Without a second stage the scores are exact, and the records named are exactly
    /// the top `k` pages' chunks.
    pub fn needs(&self, ranker: &Ranker<'_>, k: Option<usize>) -> Vec<String> {
        let s = ranker.cfg.retrieval;
        let mut need: BTreeSet<&str> = self
            .lex
            .iter()
            .take(self.rerank)
            .map(|(id, _)| id.as_str())
            .collect();
        let Some(k) = k else {
            return need.into_iter().map(str::to_string).collect();
        };
        let depth = s.depth;
        let lex_part = |rank: usize| {
            if rank < depth {
                rrf(s.lexical_weight, s.rrf_k, rank)
            } else {
                0.0
            }
        };
        // Per candidate: the bounds of its lexical part and its vector part.
        let mut parts: FxHashMap<&str, Parts> = FxHashMap::default();
        for (rank, (id, _)) in self.lex.iter().take(depth.max(self.rerank)).enumerate() {
            let bounds = if rank < self.rerank {
                (lex_part(self.rerank - 1), lex_part(0))
            } else {
                (lex_part(rank), lex_part(rank))
            };
            parts.entry(id).or_default().0 = Some(bounds);
        }
        let vw = vector_weight(s, self.plan.mode);
        if vw > 0.0 {
            for (rank, (id, _)) in self.vec.iter().take(depth).enumerate() {
                parts.entry(id).or_default().1 = Some(rrf(vw, s.rrf_k, rank));
            }
        }
        for id in &self.dated {
            parts.entry(id).or_default();
        }
        // The same additions, in the same order, as the fused score: rounding is monotone, so
        // the bounds hold bit for bit.
        let bounds: Vec<Bounds> = parts
            .into_iter()
            .map(|(id, (lex, vec))| {
                let boost = if ranker.date_matches(id, &self.dates) {
                    s.date_boost
                } else {
                    0.0
                };
                let at = |l: Option<f64>| {
                    let fused = match (l, vec) {
                        (None, None) => return s.date_boost,
                        (Some(l), None) => 0.0 + l,
                        (None, Some(v)) => 0.0 + v,
                        (Some(l), Some(v)) => 0.0 + l + v,
                    };
                    fused + boost
                };
                (id, at(lex.map(|b| b.0)), at(lex.map(|b| b.1)))
            })
            .collect();
        // The results are pages: a chunk is shown when its page is among the first `k` and at
        // most `SECTIONS` chunks of its page rank above it. A chunk is left out when at least `k`
        // other pages surely rank above its page (each has a chunk whose lowest score beats the
        // highest of every chunk of it, in the final order: score, then chunk ID), or when more
        // than `SECTIONS` chunks of its own page surely rank above it.
        let above = |y: &Bounds, x: &Bounds| y.1.total_cmp(&x.2).then_with(|| x.0.cmp(y.0)).is_gt();
        let mut pages: FxHashMap<&str, Vec<&Bounds>> = FxHashMap::default();
        for b in &bounds {
            pages.entry(ranker.page_of(b.0)).or_default().push(b);
        }
        // Per page: its chunk that may rank highest, and its chunk surely ranked highest.
        let order = |a: &&Bounds, b: &&Bounds, lo: bool| {
            let (x, y) = if lo { (a.1, b.1) } else { (a.2, b.2) };
            x.total_cmp(&y).then_with(|| b.0.cmp(a.0))
        };
        let tops: Vec<(&str, &Bounds, &Bounds)> = pages
            .iter()
            .map(|(page, chunks)| {
                let high = chunks.iter().max_by(|a, b| order(a, b, false));
                let low = chunks.iter().max_by(|a, b| order(a, b, true));
                (
                    *page,
                    *high.expect("a page has a chunk"),
                    *low.expect("a page has a chunk"),
                )
            })
            .collect();
        for (page, high, _) in &tops {
            let pages_above = tops
                .iter()
                .filter(|(other, _, low)| other != page && above(low, high))
                .take(k)
                .count();
            if pages_above >= k {
                continue;
            }
            let chunks = &pages[page];
            for x in chunks {
                let same_above = chunks
                    .iter()
                    .filter(|y| y.0 != x.0 && above(y, x))
                    .take(SECTIONS + 1)
                    .count();
                if same_above <= SECTIONS {
                    need.insert(x.0);
                }
            }
        }
        need.into_iter().map(str::to_string).collect()
    }
}

/// A candidate and the bounds (low, high) of its fused score.
type Bounds<'a> = (&'a str, f64, f64);

/// A candidate's parts of the fused score: the bounds (low, high) of its lexical part, and its
/// vector part.
type Parts = (Option<(f64, f64)>, Option<f64>);
