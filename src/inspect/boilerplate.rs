//! The `boilerplate` check: lines and sentences a library repeats over many chunks, chrome
//! when they sit at the same edge of many pages, content when they recur inside the bodies.

use std::collections::{BTreeMap, BTreeSet};

use super::{InspectSettings, collapse, prose};
use crate::artifacts::ChunkRecord;

/// Whether an allowlist entry accepts a repeated unit: equal, part of it, or its beginning.
pub(super) fn allowed(entry: &str, unit: &str) -> bool {
    entry == unit || entry.contains(unit) || unit.starts_with(entry)
}

/// Lines and sentences of a text that are long enough to be chrome, trimmed.
fn repeatable_units(text: &str) -> BTreeSet<String> {
    units_of_lines(text.lines())
}

/// How many of a page's first and last non-empty lines are its edges, where site chrome
/// (navigation, breadcrumbs, share and "next page" links) sits.
const EDGE_LINES: usize = 4;

/// The repeatable units of the lines at a page's edges that `text` holds: its first
/// `EDGE_LINES` when it is the page's first chunk, its last when it is the page's last.
fn edge_units(text: &str, first: bool, last: bool) -> BTreeSet<String> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let head = if first {
        EDGE_LINES.min(lines.len())
    } else {
        0
    };
    let tail = if last {
        lines.len().saturating_sub(EDGE_LINES).max(head)
    } else {
        lines.len()
    };
    units_of_lines(lines[..head].iter().chain(&lines[tail..]).copied())
}

/// The lines of at least 20 characters (whitespace collapsed) and their sentences of at least
/// 20 characters.
fn units_of_lines<'a>(lines: impl Iterator<Item = &'a str>) -> BTreeSet<String> {
    let mut units = BTreeSet::new();
    for line in lines {
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.chars().count() >= 20 {
            for sentence in line.split_inclusive(['.', '!', '?', '؟', '۔']) {
                let s = sentence.trim();
                if s.chars().count() >= 20 && s.len() != line.len() {
                    units.insert(s.to_string());
                }
            }
            units.insert(line);
        }
    }
    units
}

/// The repeated units of one library's chunks over its limits, as (chunks, unit, first chunk
/// ID), the most frequent first, without the units its allowlist accepts. A unit is chrome when
/// most chunks that hold it hold it at an edge of their page (`edge_units`): the same block at
/// the same place of every page. One that recurs inside the bodies (a formula, a refrain) is
/// the pages' content.
pub(super) fn boilerplate_of_library<'r>(
    lib: &str,
    rs: &[&'r ChunkRecord],
    settings: &InspectSettings,
) -> Vec<(usize, String, &'r str)> {
    let allow: Vec<String> = settings
        .allow
        .get(lib)
        .map(|v| v.iter().map(|s| collapse(s)).collect())
        .unwrap_or_default();
    let mut last: BTreeMap<&str, usize> = BTreeMap::new();
    for r in rs {
        let e = last.entry(&r.doc_id).or_default();
        *e = (*e).max(r.chunk_index);
    }
    // Per unit: the chunks that hold it, those that hold it at a page edge, the documents, the
    // first chunk.
    let mut seen: BTreeMap<String, (usize, usize, BTreeSet<&str>, &str)> = BTreeMap::new();
    for r in rs {
        let text = prose(&r.text);
        let edges = edge_units(
            &text,
            r.chunk_index == 0,
            r.chunk_index == last[r.doc_id.as_str()],
        );
        for u in repeatable_units(&text) {
            let at_edge = edges.contains(&u);
            let e = seen
                .entry(u)
                .or_insert((0, 0, BTreeSet::new(), &r.chunk_id));
            e.0 += 1;
            e.1 += usize::from(at_edge);
            e.2.insert(&r.doc_id);
        }
    }
    let limit = rs.len() as f64 * settings.boilerplate_percent / 100.0;
    let mut found: Vec<(usize, String, &str)> = seen
        .into_iter()
        .filter(|(_, (n, edge, docs, _))| {
            (*n as f64) > limit
                && *n >= settings.boilerplate_min_chunks
                && docs.len() > 1
                && 2 * edge > *n
        })
        .map(|(u, (n, _, _, id))| (n, u, id))
        .collect();
    // A repeated line also repeats its sentences: keep the longest unit only, then drop the
    // units the library's allowlist accepts (with the sentences inside them).
    let lines: Vec<String> = found.iter().map(|(_, u, _)| u.clone()).collect();
    found.retain(|(_, u, _)| {
        !lines
            .iter()
            .any(|l| l.len() > u.len() && l.contains(u.as_str()))
    });
    found.retain(|(_, u, _)| !allow.iter().any(|a| allowed(a, u)));
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    found
}
