//! Patches of a resumed build: the terms whose postings an edit changed, and the previous
//! build's shards and meta rewritten for them (bytes equal to a full render's).

use rustc_hash::FxHashMap;

use super::{ChunkRef, FIELDS, LexMeta, LexShard, Posting, Postings, encode, has_tf, shard_of};
use crate::artifacts::{Kind, Rendered};

/// Calls `f(term)` for every term, per field, whose postings differ between two versions of
/// the same chunks (the domain's document set unchanged).
fn each_changed<'a>(old: &'a Postings, new: &'a Postings, mut f: impl FnMut(usize, &'a str)) {
    let same = old.same_chunks(new);
    for field in 0..FIELDS {
        let (a, b) = (&old.fields[field], &new.fields[field]);
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let ord = match (i < a.len(), j < b.len()) {
                (true, true) => a.term(i).cmp(b.term(j)),
                (true, false) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            match ord {
                std::cmp::Ordering::Equal => {
                    let (x, y) = (a.list(i), b.list(j));
                    let equal = if same {
                        x == y
                    } else {
                        old.resolved(x).eq(new.resolved(y))
                    };
                    if !equal {
                        f(field, a.term(i));
                    }
                    i += 1;
                    j += 1;
                }
                std::cmp::Ordering::Less => {
                    f(field, a.term(i));
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    f(field, b.term(j));
                    j += 1;
                }
            }
        }
    }
}

/// The term shards whose content differs between two versions of one part (same position in
/// the domain's part list, same document table): those holding a term whose postings changed.
/// Lengths live in the meta, which is always rendered.
pub(crate) fn changed_shards(
    old: &Postings,
    new: &Postings,
    shards: usize,
    into: &mut std::collections::BTreeSet<usize>,
) {
    each_changed(old, new, |_, t| {
        into.insert(shard_of(t, shards));
    });
}

/// The terms, per field, whose postings differ between `old` and `new` (the same documents
/// before and after an edit, e.g. one file's): the only ones a patch has to rewrite.
pub(crate) fn changed_terms(
    old: &Postings,
    new: &Postings,
) -> [std::collections::BTreeSet<String>; FIELDS] {
    let mut out: [std::collections::BTreeSet<String>; FIELDS] = Default::default();
    each_changed(old, new, |f, t| {
        out[f].insert(t.to_string());
    });
    out
}

/// The sorted document IDs of a part.
fn sorted_docs(p: &Postings) -> Vec<&str> {
    let mut v: Vec<&str> = p.docs.iter().map(String::as_str).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The slots of the documents a patch replaces, found once per domain (`doc_slots`).
pub(crate) struct DocSlots {
    /// The slots of the old postings' documents: their postings go.
    gone: rustc_hash::FxHashSet<u32>,
    /// The slot of each document of the new postings, in their order.
    ords: Vec<u32>,
}

/// Each of `docs`' slot in the meta's table, in order: one pass over the table, so a patch of a
/// file of many records costs the table once, not once per record. `None` when one is not there.
fn slots_in(meta: &LexMeta, docs: &[String]) -> Option<Vec<u32>> {
    let want: FxHashMap<&str, usize> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.as_str(), i))
        .collect();
    let mut slots = vec![None; docs.len()];
    for (slot, id, _) in &meta.docs {
        if let Some(&i) = want.get(id.as_str()) {
            slots[i] = Some(*slot);
        }
    }
    slots.into_iter().collect()
}

/// The slots a patch of `old` by `new` works with; `None` when a document is not in the meta's
/// table.
pub(crate) fn doc_slots(meta: &LexMeta, old: &Postings, new: &Postings) -> Option<DocSlots> {
    Some(DocSlots {
        gone: slots_in(meta, &old.docs)?.into_iter().collect(),
        ords: slots_in(meta, &new.docs)?,
    })
}

/// Patches a term shard of the previous build: for each term of `terms` (per field), the
/// postings of the documents of `old` are replaced by those of `new` (the same documents, at
/// `slots`); a term left without postings goes. `None` when the shard is malformed. The bytes
/// equal those of a full render of the same chunks.
pub(crate) fn patch_shard(
    shard: &mut LexShard,
    terms: &[Vec<&String>; FIELDS],
    slots: &DocSlots,
    new: &Postings,
) -> Option<()> {
    let DocSlots { gone, ords } = slots;
    for (f, list) in terms.iter().enumerate() {
        for t in list {
            let mut v: Vec<Posting> = shard
                .field(f, t)
                .ok()?
                .into_iter()
                .filter(|p| !gone.contains(&p.chunk.ord))
                .collect();
            if let Some(i) = new.fields[f].find(t) {
                v.extend(new.fields[f].list(i).iter().map(|&(c, tf)| {
                    let (d, index) = new.refs[c as usize];
                    Posting {
                        chunk: ChunkRef {
                            ord: ords[d as usize],
                            index,
                        },
                        tf,
                    }
                }));
            }
            v.sort_unstable_by_key(|p| p.chunk);
            let map = shard.map_mut(f);
            if v.is_empty() {
                map.remove(t.as_str());
            } else {
                map.insert((*t).clone(), encode(v, has_tf(f)));
            }
        }
    }
    Some(())
}

/// A patched term shard, rendered.
pub(crate) fn render_patched(shard: &LexShard) -> Rendered {
    let _t = crate::timings::start(crate::timings::Stage::Serialize);
    Rendered::new(
        Kind::Lexical,
        format!("lexical/{}/{:04}", shard.domain, shard.shard),
        "json",
        serde_json::to_vec(shard).expect("shard serializes"),
        shard.terms.len(),
        Some(shard.domain.clone()),
        None,
    )
}

/// Patches a domain's meta: the chunk lengths of the documents of `new` replace those of `old`.
/// `None` unless both hold the same documents, all in the meta's table (another set of
/// documents may move slots and changes the slot space: the caller renders in full).
pub(crate) fn patch_meta(meta: &mut LexMeta, old: &Postings, new: &Postings) -> Option<()> {
    if sorted_docs(old) != sorted_docs(new) {
        return None;
    }
    let slots = slots_in(meta, &new.docs)?;
    let mut lens: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    for (&(d, index), len) in new.refs.iter().zip(&new.lens) {
        let l = lens.entry(slots[d as usize]).or_default();
        if l.len() <= index as usize {
            l.resize(index as usize + 1, 0);
        }
        l[index as usize] = *len;
    }
    for (slot, l) in lens {
        let i = meta.docs.binary_search_by_key(&slot, |d| d.0).ok()?;
        meta.docs[i].2 = l;
    }
    meta.recount();
    Some(())
}

/// A patched meta, rendered.
pub(crate) fn render_patched_meta(meta: &LexMeta) -> Rendered {
    let _t = crate::timings::start(crate::timings::Stage::Serialize);
    Rendered::new(
        Kind::Lexical,
        format!("lexical/{}/meta", meta.domain),
        "json",
        serde_json::to_vec(meta).expect("meta serializes"),
        meta.chunks,
        Some(meta.domain.clone()),
        None,
    )
}
