//! The diff of two versions' chunk records (`inspect --against`).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::artifacts::ChunkRecord;

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct LibraryDiff {
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
    pub fn is_empty(&self) -> bool {
        *self == LibraryDiff::default()
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Diff {
    pub from: String,
    pub to: String,
    pub libraries: BTreeMap<String, LibraryDiff>,
}

/// What changed from `old` to `new` (chunk records of two builds), per library.
pub fn diff(old: &[ChunkRecord], new: &[ChunkRecord], from: &str, to: &str) -> Diff {
    let index = |rs: &[ChunkRecord]| -> BTreeMap<String, (String, String, String)> {
        rs.iter()
            .map(|r| {
                (
                    r.chunk_id.clone(),
                    (r.library.clone(), r.doc_id.clone(), r.text.clone()),
                )
            })
            .collect()
    };
    let (o, n) = (index(old), index(new));
    let docs = |m: &BTreeMap<String, (String, String, String)>| -> BTreeMap<String, String> {
        m.values().map(|(l, d, _)| (d.clone(), l.clone())).collect()
    };
    let (od, nd) = (docs(&o), docs(&n));
    let mut libs: BTreeMap<String, LibraryDiff> = BTreeMap::new();
    let mut changed_docs: BTreeSet<(String, String)> = BTreeSet::new();
    for (id, (lib, doc, text)) in &n {
        match o.get(id) {
            None => {
                libs.entry(lib.clone())
                    .or_default()
                    .chunks_added
                    .push(id.clone());
                changed_docs.insert((lib.clone(), doc.clone()));
            }
            Some((_, _, old_text)) if old_text != text => {
                libs.entry(lib.clone())
                    .or_default()
                    .chunks_changed
                    .push(id.clone());
                changed_docs.insert((lib.clone(), doc.clone()));
            }
            Some(_) => {}
        }
    }
    for (id, (lib, doc, _)) in &o {
        if !n.contains_key(id) {
            libs.entry(lib.clone())
                .or_default()
                .chunks_removed
                .push(id.clone());
            changed_docs.insert((lib.clone(), doc.clone()));
        }
    }
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
        if od.contains_key(&doc) && nd.contains_key(&doc) {
            libs.entry(lib).or_default().docs_changed.push(doc);
        }
    }
    // Shifts: a text that sat under one ID in the old build and under another in the new.
    let mut old_by_text: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
    for (id, (lib, _, text)) in &o {
        old_by_text.entry((lib, text)).or_default().push(id);
    }
    for (id, (lib, _, text)) in &n {
        if o.get(id).is_some_and(|(_, _, t)| t == text) {
            continue;
        }
        if let Some(ids) = old_by_text.get(&(lib.as_str(), text.as_str()))
            && let Some(old_id) = ids
                .iter()
                .find(|oid| n.get(**oid).is_none_or(|(_, _, t)| t != text))
        {
            libs.entry(lib.clone())
                .or_default()
                .shifted
                .push((old_id.to_string(), id.clone()));
        }
    }
    libs.retain(|_, d| !d.is_empty());
    Diff {
        from: from.to_string(),
        to: to.to_string(),
        libraries: libs,
    }
}

// ── loading ────────────────────────────────────────────────────────────────────────────────
