use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::render::{SHARD_TARGET_BYTES, render_with};
use super::*;
use crate::artifacts::BuiltDoc;
use crate::normalize::WordExtras;

/// Adds a posting; a repeated (term, chunk) of an additive field counts once.
fn add<K: std::borrow::Borrow<str> + std::hash::Hash + Eq>(
    map: &mut FxHashMap<K, LocalList>,
    term: &str,
    posting: (u32, u32),
    key: impl FnOnce() -> K,
) {
    match map.get_mut(term) {
        Some(v) => {
            if v.last().is_none_or(|l| l.0 != posting.0) {
                v.push(posting);
            }
        }
        None => {
            map.insert(key(), vec![posting]);
        }
    }
}

/// A part of one-chunk documents `lib:doc{d}` whose tokens come from `words`.
fn part(docs: &[(u32, &[&str])]) -> Postings {
    let mut p = Postings::default();
    let mut maps: [FxHashMap<String, LocalList>; FIELDS] = Default::default();
    for (d, words) in docs {
        let doc = format!("lib:doc{d}");
        let idx = p.push_chunk(&doc, 0, doc.len() + 4, words.len() as u32);
        let mut tf: BTreeMap<&str, u32> = BTreeMap::new();
        for w in *words {
            *tf.entry(w).or_default() += 1;
        }
        for (w, n) in tf {
            add(&mut maps[0], w, (idx, n), || w.to_string());
            let x = format!("{w}x");
            add(&mut maps[1], &x, (idx, 1), || x.clone());
        }
    }
    p.set_fields(maps.map(|m| Field::from_terms(m.into_iter().collect())));
    p
}

/// A document `lib:{slug}` of `domain` whose chunks hold `words` (search tokens, aliases,
/// title tokens).
fn built(slug: &str, domain: &str, chunks: &[(&str, &[&str], &[&str])]) -> BuiltDoc {
    use crate::text::{Text, Tokens};
    let id = crate::identity::doc_id("lib", slug).unwrap();
    BuiltDoc {
        chunks: chunks
            .iter()
            .enumerate()
            .map(|(i, (words, alias, ctx))| crate::artifacts::BuiltChunk {
                chunk_id: crate::identity::chunk_id(&id, i, 3),
                index: i,
                text: Text::new(*words),
                search_text: search_text_of(words.to_string()),
                extra_tokens: Tokens::from_strs(alias.to_vec()),
                context_tokens: Tokens::from_strs(ctx.to_vec()),
                heading_path: Vec::new(),
                anchors: Vec::new(),
                span: (0, words.len()),
                vector: Vec::new(),
            })
            .collect(),
        doc_id: id,
        library: "lib".into(),
        source: format!("{slug}.md"),
        title: String::new(),
        url: String::new(),
        domains: vec![domain.to_string()],
        metadata: Default::default(),
    }
}

/// What `postings` computes, the plain way: documents by ID, per chunk a map of term counts,
/// and its alias tokens: its own and those of each of its words.
fn reference(domain: &str, docs: &[&BuiltDoc], extras: WordExtras) -> Postings {
    let mut docs: Vec<&BuiltDoc> = docs
        .iter()
        .copied()
        .filter(|d| d.domains.iter().any(|x| x == domain))
        .collect();
    docs.sort_by(|a, b| a.doc_id.as_str().cmp(b.doc_id.as_str()));
    let mut p = Postings::default();
    let mut fields: [BTreeMap<String, LocalList>; FIELDS] = Default::default();
    for d in docs {
        for c in &d.chunks {
            let mut tf: BTreeMap<&str, u32> = BTreeMap::new();
            for t in c.search_text.tokens() {
                *tf.entry(t).or_default() += 1;
            }
            let len = tf.values().sum();
            let idx = p.push_chunk(
                d.doc_id.as_str(),
                c.index as u32,
                c.chunk_id.as_str().len(),
                len,
            );
            let mut alias: std::collections::BTreeSet<String> =
                c.extra_tokens.iter().map(str::to_string).collect();
            for t in tf.keys() {
                extras.each(t, |x| {
                    alias.insert(x.to_string());
                });
            }
            for x in alias {
                fields[1].entry(x).or_default().push((idx, 1));
            }
            let mut stems: BTreeMap<String, u32> = BTreeMap::new();
            for (t, n) in tf {
                fields[0].entry(t.to_string()).or_default().push((idx, n));
                if let Some(k) = crate::normalize::stem::stem_key(t) {
                    *stems.entry(k.as_str().to_string()).or_default() += n;
                }
            }
            for (k, n) in stems {
                fields[3].entry(k).or_default().push((idx, n));
            }
            for t in c.context_tokens.iter() {
                fields[2].entry(t.to_string()).or_default().push((idx, 1));
            }
        }
    }
    p.set_fields(fields.map(|m| Field::from_terms(m.into_iter().collect())));
    p
}

/// Documents with repeated words, Arabic words sharing a stem key, aliases, titles and a
/// term longer than 16 bytes; not in `doc_id` order.
fn sample_docs() -> Vec<BuiltDoc> {
    vec![
        built(
            "zeta",
            "d",
            &[
                ("ميلاد المسيح في بيت لحم ميلاد", &["ميلاد"], &["عيد", "الميلاد"]),
                ("مولد النبي اتولد في فين", &[], &["عيد"]),
            ],
        ),
        built(
            "alpha",
            "d",
            &[("القديسين القديسون قديس a b a", &["قديس", "قديسين"], &[])],
        ),
        built("other", "x", &[("ميلاد خارج", &[], &[])]),
        built(
            "mid",
            "d",
            &[
                (
                    "supercalifragilisticexpialidocious supercalifragilisticexpialidociouz ab abc abcd",
                    &[],
                    &["ab"],
                ),
                ("", &[], &[]),
                ("بيت بيت بيت لحم", &["لحم"], &["بيت"]),
            ],
        ),
        built(
            "beta",
            "d",
            &[("في في في الكنيسة الكنيسه كنيسة", &["كنيسه"], &["الكنيسة"])],
        ),
    ]
}

/// The shipped aliases, for word tokens.
fn shipped_table() -> crate::normalize::aliases::AliasTable {
    crate::normalize::aliases::AliasTable::new(
        crate::normalize::aliases::shipped(),
        &crate::normalize::Rules::default(),
    )
}

#[test]
fn postings_equal_the_plain_computation() {
    let docs = sample_docs();
    let refs: Vec<&BuiltDoc> = docs.iter().collect();
    let table = shipped_table();
    for (extras, stems) in [
        (WordExtras::new(&table, true), true),
        (WordExtras::new(&table, false), false),
        (WordExtras::NONE, false),
    ] {
        let p = postings("d", &refs, extras);
        assert_eq!(p, reference("d", &refs, extras));
        assert_eq!(
            p.docs,
            ["lib:alpha", "lib:beta", "lib:mid", "lib:zeta"],
            "in doc_id order"
        );
        assert!(!p.fields[3].is_empty(), "the sample has stem keys");
        // A word's alias target and article stem are in the alias field, no other field.
        assert_eq!(
            p.fields[1].find("اين").is_some(),
            extras.aliases_on(),
            "فين → اين"
        );
        assert_eq!(
            p.fields[1].find("قديسون").is_some(),
            stems,
            "القديسون → قديسون"
        );
        assert!(p.fields[0].find("اين").is_none() && p.fields[0].find("قديسون").is_none());
        // The same documents in another order make the same part.
        let reversed: Vec<&BuiltDoc> = refs.iter().rev().copied().collect();
        assert_eq!(postings("d", &reversed, extras), p);
    }
}

#[test]
fn a_render_is_serdes_and_does_not_depend_on_the_grouping() {
    let docs = sample_docs();
    let refs: Vec<&BuiltDoc> = docs.iter().collect();
    let table = shipped_table();
    let extras = WordExtras::new(&table, true);
    let whole = postings("d", &refs, extras);
    // Contiguous documents per part (a one-shot build), interleaved ones (document shards).
    let groupings: [Vec<Vec<usize>>; 3] = [
        vec![vec![0, 1, 2, 3, 4]],
        vec![vec![1, 4], vec![3, 0]],
        vec![vec![0, 1], vec![4], vec![3]],
    ];
    for shards in [1, 2, 4] {
        let full = render_with("d", &[&whole], shards);
        for (gi, g) in groupings.iter().enumerate() {
            let parts: Vec<Postings> = g
                .iter()
                .map(|ix| {
                    postings(
                        "d",
                        &ix.iter().map(|&i| &docs[i]).collect::<Vec<_>>(),
                        extras,
                    )
                })
                .collect();
            let parts: Vec<&Postings> = parts.iter().collect();
            let out = render_with("d", &parts, shards);
            assert_eq!(out.len(), shards + 1);
            for (a, b) in out.iter().zip(&full) {
                assert_eq!(
                    a.path_and_hash(),
                    b.path_and_hash(),
                    "grouping {gi}, {shards} shards"
                );
            }
            for r in &out[1..] {
                let bytes = r.bytes().unwrap();
                let shard: LexShard = serde_json::from_slice(&bytes).unwrap();
                assert_eq!(
                    serde_json::to_vec(&shard).unwrap(),
                    bytes,
                    "the hand-written JSON is serde's"
                );
            }
        }
    }
    // Every posting of the render is the plain computation's.
    let meta: LexMeta =
        serde_json::from_slice(&render_with("d", &[&whole], 1)[0].bytes().unwrap()).unwrap();
    let shard: LexShard =
        serde_json::from_slice(&render_with("d", &[&whole], 1)[1].bytes().unwrap()).unwrap();
    let plain = reference("d", &refs, extras);
    for f in 0..FIELDS {
        assert_eq!(shard.map(f).len(), plain.fields[f].len(), "field {f}");
        for i in 0..plain.fields[f].len() {
            let got: Vec<(String, u32)> = shard
                .field(f, plain.fields[f].term(i))
                .unwrap()
                .iter()
                .map(|p| (meta.chunk_id(p.chunk).unwrap(), p.tf))
                .collect();
            let want: Vec<(String, u32)> = plain.fields[f]
                .list(i)
                .iter()
                .map(|&(c, tf)| {
                    let (d, index) = plain.refs[c as usize];
                    (format!("{}:{index:03}", plain.docs[d as usize]), tf)
                })
                .collect();
            assert_eq!(got, want, "field {f}, term {}", plain.fields[f].term(i));
        }
    }
}

#[test]
fn shard_counts_are_the_rungs_nearest_the_target_size() {
    let rung = |n: usize| {
        n == 1 || n.is_power_of_two() || (n.is_multiple_of(3) && (n / 3).is_power_of_two())
    };
    let mut last = 1;
    for estimate in (0..40_000_000).step_by(9_973).chain([usize::MAX / 4]) {
        let n = shards_for(estimate);
        assert!(rung(n), "{estimate}: {n} is not 2^k or 3·2^k");
        assert!(n >= last, "monotonic: {estimate} gives {n} after {last}");
        last = n;
        if (4 * SHARD_TARGET_BYTES..usize::MAX / 4).contains(&estimate) {
            let avg = estimate as f64 / n as f64 / SHARD_TARGET_BYTES as f64;
            assert!(
                (0.81..=1.23).contains(&avg),
                "{estimate} bytes in {n} shards: {avg:.2}× the target"
            );
        }
    }
    assert_eq!(shards_for(0), 1);
    assert_eq!(shards_for(SHARD_TARGET_BYTES), 1);
    assert_eq!(shards_for(SHARD_TARGET_BYTES * 2), 2);
    assert_eq!(
        shards_for(SHARD_TARGET_BYTES * 1200),
        1024,
        "√(1024·1536) ≈ 1254: 1200 targets' worth is nearer 1024"
    );
    assert_eq!(shards_for(SHARD_TARGET_BYTES * 1300), 1536);
    assert_eq!(shards_for(SHARD_TARGET_BYTES * 1800), 2048);
}

#[test]
fn postings_round_trip_through_their_encoding() {
    let ps = vec![
        Posting {
            chunk: ChunkRef { ord: 0, index: 2 },
            tf: 1,
        },
        Posting {
            chunk: ChunkRef { ord: 0, index: 5 },
            tf: 3,
        },
        Posting {
            chunk: ChunkRef { ord: 7, index: 0 },
            tf: 2,
        },
        Posting {
            chunk: ChunkRef {
                ord: 1000,
                index: 1,
            },
            tf: 1,
        },
    ];
    let enc = encode(ps.clone(), true);
    assert_eq!(enc, vec![0, 2, 1, 0, 5, 3, 7, 0, 2, 993, 1, 1]);
    assert_eq!(decode(&enc, true).unwrap(), ps);
    let plain = encode(ps.clone(), false);
    assert_eq!(
        decode(&plain, false)
            .unwrap()
            .iter()
            .map(|p| p.chunk)
            .collect::<Vec<_>>(),
        ps.iter().map(|p| p.chunk).collect::<Vec<_>>()
    );
    assert!(
        decode(&[1, 0], true).is_err(),
        "a truncated list is malformed"
    );
    assert!(
        decode(&[3, 1, 0, 0], false).is_err(),
        "a repeated chunk is out of order"
    );
}

#[test]
fn a_shard_names_chunks_through_the_meta() {
    let a = part(&[(2, &["نيل", "مصر", "نيل"]), (1, &["قاهره", "مصر"])]);
    let out = render_with("d", &[&a], 1);
    let meta: LexMeta = serde_json::from_slice(&out[0].bytes().unwrap()).unwrap();
    let mut ids: Vec<&str> = meta.docs.iter().map(|(_, d, _)| d.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["lib:doc1", "lib:doc2"]);
    assert!(meta.docs.is_sorted_by(|a, b| a.0 < b.0), "sorted by slot");
    assert_eq!(
        meta.docs.iter().map(|d| d.0).collect::<Vec<_>>(),
        {
            let mut s = slots(&["lib:doc1", "lib:doc2"]);
            s.sort_unstable();
            s
        },
        "each document in its slot"
    );
    assert_eq!((meta.width, meta.chunks, meta.total_len), (3, 2, 5));
    let shard: LexShard = serde_json::from_slice(&out[1].bytes().unwrap()).unwrap();
    let nile = shard.field(0, "نيل").unwrap();
    assert_eq!(nile.len(), 1);
    assert_eq!(
        meta.chunk_id(nile[0].chunk).as_deref(),
        Some("lib:doc2:000")
    );
    assert_eq!((nile[0].tf, meta.len_of(nile[0].chunk)), (2, Some(3)));
    let egypt: Vec<String> = shard
        .field(0, "مصر")
        .unwrap()
        .iter()
        .map(|p| meta.chunk_id(p.chunk).unwrap())
        .collect();
    let mut egypt_sorted = egypt.clone();
    egypt_sorted.sort_unstable();
    assert_eq!(egypt_sorted, ["lib:doc1:000", "lib:doc2:000"]);
    let free = (0..).find(|s| meta.docs.iter().all(|d| d.0 != *s)).unwrap();
    assert_eq!(
        meta.chunk_id(ChunkRef {
            ord: free,
            index: 0
        }),
        None
    );
    let taken = meta.docs[0].0;
    assert_eq!(
        meta.chunk_id(ChunkRef {
            ord: taken,
            index: 1
        }),
        None
    );
}

#[test]
fn a_patched_shard_and_meta_equal_a_full_render() {
    let a = part(&[(1, &["نيل", "مصر", "نيل"]), (2, &["قاهره", "مصر"])]);
    let b_old = part(&[(3, &["نيل", "بحر"]), (4, &["اسكندريه"])]);
    let b_new = part(&[(3, &["نيل", "نيل", "جبل"]), (4, &["اسكندريه"])]);
    // The edited file alone, before and after.
    let (f_old, f_new) = (
        part(&[(3, &["نيل", "بحر"])]),
        part(&[(3, &["نيل", "نيل", "جبل"])]),
    );
    assert_eq!(
        a.estimate + b_old.estimate - f_old.estimate + f_new.estimate,
        a.estimate + b_new.estimate,
        "the estimate adds up"
    );
    assert_eq!(shard_count(&[&a, &b_new]), shard_count(&[&a, &b_old]));
    for n in [1, 2, 4] {
        let before = render_with("d", &[&a, &b_old], n);
        let after = render_with("d", &[&a, &b_new], n);
        let changed = changed_terms(&f_old, &f_new);
        assert!(
            changed[0].contains("جبل") && changed[0].contains("نيل") && !changed[0].contains("مصر")
        );
        let mut meta: LexMeta = serde_json::from_slice(&before[0].bytes().unwrap()).unwrap();
        let old_meta = meta.clone();
        patch_meta(&mut meta, &f_old, &f_new).expect("same documents");
        assert_eq!(render_patched_meta(&meta).bytes(), after[0].bytes());
        let slots = doc_slots(&old_meta, &f_old, &f_new).expect("documents in the table");
        for k in 0..n {
            let mut terms: [Vec<&String>; FIELDS] = Default::default();
            for (f, set) in changed.iter().enumerate() {
                terms[f] = set.iter().filter(|t| shard_of(t, n) == k).collect();
            }
            let mut shard: LexShard =
                serde_json::from_slice(&before[k + 1].bytes().unwrap()).unwrap();
            patch_shard(&mut shard, &terms, &slots, &f_new).expect("patchable");
            assert_eq!(
                render_patched(&shard).bytes(),
                after[k + 1].bytes(),
                "shard {k}"
            );
        }
    }
    // Another document set moves ordinals: no patch.
    let mut meta: LexMeta =
        serde_json::from_slice(&render_with("d", &[&a, &b_old], 1)[0].bytes().unwrap()).unwrap();
    assert!(patch_meta(&mut meta, &f_old, &part(&[(5, &["نيل"])])).is_none());
}

/// A shard's bytes depend only on its own terms' postings: adding or removing a document
/// rewrites the shards of that document's terms (and the meta), no other.
#[test]
fn a_document_added_or_removed_rewrites_only_its_own_terms_shards() {
    let words: Vec<String> = (0..60).map(|i| format!("w{i}")).collect();
    let docs: Vec<(u32, Vec<&str>)> = (0..20u32)
        .map(|d| {
            let w: Vec<&str> = (0..3)
                .map(|k| words[(d as usize * 3 + k) % words.len()].as_str())
                .collect();
            (d, w)
        })
        .collect();
    let as_part = |docs: &[(u32, Vec<&str>)]| {
        let v: Vec<(u32, &[&str])> = docs.iter().map(|(d, w)| (*d, &w[..])).collect();
        part(&v)
    };
    let before = as_part(&docs);
    let mut more = docs.clone();
    more.push((100, vec!["w5", "new"]));
    let after = as_part(&more);
    let fewer = as_part(&docs[1..]);
    let n = 8;
    let (b, a, f) = (
        render_with("d", &[&before], n),
        render_with("d", &[&after], n),
        render_with("d", &[&fewer], n),
    );
    let changed = |x: &[crate::artifacts::Rendered], y: &[crate::artifacts::Rendered]| {
        (0..n)
            .filter(|k| x[k + 1].bytes() != y[k + 1].bytes())
            .collect::<std::collections::BTreeSet<_>>()
    };
    // A document's terms: its words and their alias forms (`part` adds `{word}x`).
    let own = |terms: &[&str]| {
        terms
            .iter()
            .flat_map(|t| [shard_of(t, n), shard_of(&format!("{t}x"), n)])
            .collect::<std::collections::BTreeSet<_>>()
    };
    assert_eq!(changed(&b, &a), own(&["w5", "new"]), "added");
    assert_eq!(changed(&b, &f), own(&docs[0].1), "removed");
    assert_ne!(b[0].bytes(), a[0].bytes(), "the meta changes");
}

/// Slots are a pure function of the document IDs; a taken slot moves the later ID on.
#[test]
fn slots_are_stable_and_distinct() {
    let ids: Vec<String> = (0..1000).map(|i| format!("lib:page-{i}")).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let s = slots(&refs);
    assert_eq!(s, slots(&refs));
    let distinct: std::collections::BTreeSet<u32> = s.iter().copied().collect();
    assert_eq!(distinct.len(), ids.len());
    assert!(s.iter().all(|x| (*x as u64) < slot_space(ids.len())));
    assert_eq!(slot_space(1000), 1024 * 128);
    // One more document keeps every slot but (rarely) one it collides with.
    let mut more = refs.clone();
    more.push("lib:page-extra");
    more.sort_unstable();
    let s2 = slots(&more);
    let before: std::collections::BTreeMap<&str, u32> = refs.iter().copied().zip(s).collect();
    let moved = more
        .iter()
        .zip(&s2)
        .filter(|(d, x)| before.get(*d).is_some_and(|y| y != *x))
        .count();
    assert_eq!(moved, 0);
}

/// A search text as given (the compile cache's way of reading one back).
fn search_text_of(s: impl Into<String>) -> crate::text::SearchText {
    serde_json::from_value(serde_json::Value::String(s.into())).unwrap()
}
