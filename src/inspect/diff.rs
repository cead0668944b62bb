//! The diff of two versions' chunk records (`inspect --against`).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::artifacts::ChunkRecord;

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub(crate) struct LibraryDiff {
    pub docs_added: Vec<String>,
    pub docs_removed: Vec<String>,
    pub docs_changed: Vec<String>,
    pub chunks_added: Vec<String>,
    pub chunks_removed: Vec<String>,
    pub chunks_changed: Vec<String>,
    /// Same text under another ID: (old chunk_id, new chunk_id).
    pub shifted: Vec<(String, String)>,
}

impl LibraryDiff {
    pub(crate) fn is_empty(&self) -> bool {
        *self == LibraryDiff::default()
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct Diff {
    pub from: String,
    pub to: String,
    pub libraries: BTreeMap<String, LibraryDiff>,
}

/// What changed from `old` to `new` (chunk records of two builds), per library.
pub(crate) fn diff(old: &[ChunkRecord], new: &[ChunkRecord], from: &str, to: &str) -> Diff {
    let (o, n) = (index(old), index(new));
    let mut libs: BTreeMap<String, LibraryDiff> = BTreeMap::new();
    let changed_docs = chunk_changes(&o, &n, &mut libs);
    doc_changes(&o, &n, changed_docs, &mut libs);
    shifts(&o, &n, &mut libs);
    libs.retain(|_, d| !d.is_empty());
    Diff {
        from: from.to_string(),
        to: to.to_string(),
        libraries: libs,
    }
}

/// A chunk record as the diff compares it.
struct Chunk<'a> {
    library: &'a str,
    doc: &'a str,
    text: &'a str,
}

/// A build's chunks by chunk ID.
fn index(rs: &[ChunkRecord]) -> BTreeMap<&str, Chunk<'_>> {
    rs.iter()
        .map(|r| {
            (
                r.chunk_id.as_str(),
                Chunk {
                    library: &r.library,
                    doc: &r.doc_id,
                    text: &r.text,
                },
            )
        })
        .collect()
}

/// Chunks added, changed and removed; returns the documents they belong to, as (library, doc).
fn chunk_changes<'a>(
    o: &BTreeMap<&'a str, Chunk<'a>>,
    n: &BTreeMap<&'a str, Chunk<'a>>,
    libs: &mut BTreeMap<String, LibraryDiff>,
) -> BTreeSet<(&'a str, &'a str)> {
    let mut changed_docs = BTreeSet::new();
    for (id, c) in n {
        match o.get(id) {
            None => {
                libs.entry(c.library.to_string())
                    .or_default()
                    .chunks_added
                    .push(id.to_string());
                changed_docs.insert((c.library, c.doc));
            }
            Some(old) if old.text != c.text => {
                libs.entry(c.library.to_string())
                    .or_default()
                    .chunks_changed
                    .push(id.to_string());
                changed_docs.insert((c.library, c.doc));
            }
            Some(_) => {}
        }
    }
    for (id, c) in o {
        if !n.contains_key(id) {
            libs.entry(c.library.to_string())
                .or_default()
                .chunks_removed
                .push(id.to_string());
            changed_docs.insert((c.library, c.doc));
        }
    }
    changed_docs
}

/// Documents added and removed, and changed: in both builds, with a chunk added, changed or
/// removed (`changed_docs`).
fn doc_changes(
    o: &BTreeMap<&str, Chunk>,
    n: &BTreeMap<&str, Chunk>,
    changed_docs: BTreeSet<(&str, &str)>,
    libs: &mut BTreeMap<String, LibraryDiff>,
) {
    // Document → library.
    let docs = |m: &BTreeMap<&str, Chunk>| -> BTreeMap<String, String> {
        m.values()
            .map(|c| (c.doc.to_string(), c.library.to_string()))
            .collect()
    };
    let (od, nd) = (docs(o), docs(n));
    for (doc, lib) in &nd {
        if !od.contains_key(doc) {
            libs.entry(lib.clone())
                .or_default()
                .docs_added
                .push(doc.clone());
        }
    }
    for (doc, lib) in &od {
        if !nd.contains_key(doc) {
            libs.entry(lib.clone())
                .or_default()
                .docs_removed
                .push(doc.clone());
        }
    }
    for (lib, doc) in changed_docs {
        if od.contains_key(doc) && nd.contains_key(doc) {
            libs.entry(lib.to_string())
                .or_default()
                .docs_changed
                .push(doc.to_string());
        }
    }
}

/// Shifts: a text that sat under one ID in the old build and under another in the new.
fn shifts(
    o: &BTreeMap<&str, Chunk>,
    n: &BTreeMap<&str, Chunk>,
    libs: &mut BTreeMap<String, LibraryDiff>,
) {
    let mut old_by_text: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
    for (id, c) in o {
        old_by_text.entry((c.library, c.text)).or_default().push(id);
    }
    for (id, c) in n {
        if o.get(id).is_some_and(|old| old.text == c.text) {
            continue;
        }
        if let Some(ids) = old_by_text.get(&(c.library, c.text))
            && let Some(old_id) = ids
                .iter()
                .find(|oid| n.get(**oid).is_none_or(|new| new.text != c.text))
        {
            libs.entry(c.library.to_string())
                .or_default()
                .shifted
                .push((old_id.to_string(), id.to_string()));
        }
    }
}

// ── loading ────────────────────────────────────────────────────────────────────────────────
