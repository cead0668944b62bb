use serde_json::json;

use super::*;

fn vec_item(id: &str, x: f32, version: &str) -> VectorItem {
    VectorItem::from_record(
        &json!({"id": id, "values": [x, 0.5], "metadata": {"doc_id": id, "corpus_version": version}}),
    )
}

fn records(version: &str, ids: &[(&str, f32)], kv: usize) -> Records {
    Records {
        version: version.into(),
        vectors: ids
            .iter()
            .map(|(id, x)| vec_item(id, *x, version))
            .collect(),
        kv: (0..kv)
            .map(|i| (format!("{version}/chunk/{i}"), format!("value {i}")))
            .collect(),
        kv_breaks: vec![],
        kv_present: 0,
    }
}

#[test]
fn first_deploy_upserts_everything_and_deletes_nothing() {
    let r = records("v1", &[("a", 1.0), ("b", 2.0)], 3);
    let p = plan(&r, None, &Limits::default()).unwrap();
    assert_eq!(
        (p.upsert_count(), p.delete_count(), p.kv_count()),
        (2, 0, 3)
    );
    assert_eq!((p.vectors_new, p.vectors_changed, p.unchanged), (2, 0, 0));
    assert_eq!(p.upserts.len(), 1);
    assert_eq!(
        p.upserts[0].bytes,
        r.vectors.iter().map(|v| v.line.len() + 1).sum::<usize>()
    );
}

#[test]
fn diff_upserts_new_and_changed_and_deletes_removed() {
    let old = records("v1", &[("a", 1.0), ("b", 2.0), ("gone", 3.0)], 0);
    let prev = state_after(&old);
    // corpus_version alone does not make a vector changed.
    let new = records("v2", &[("a", 1.0), ("b", 9.0), ("c", 4.0)], 1);
    let p = plan(&new, Some(&prev), &Limits::default()).unwrap();
    assert_eq!((p.vectors_new, p.vectors_changed, p.unchanged), (1, 1, 1));
    let ids: Vec<String> = p
        .upserts
        .iter()
        .flat_map(|b| b.items.iter())
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(ids, ["b", "c"]);
    assert_eq!(p.deletes[0].items, ["gone"]);
    // Every uploaded line carries the new version.
    assert!(
        p.upserts[0]
            .items
            .iter()
            .all(|l| l.contains("\"corpus_version\":\"v2\""))
    );
}

#[test]
fn batches_respect_counts_and_bytes() {
    let ids: Vec<(String, f32)> = (0..25).map(|i| (format!("id{i:02}"), i as f32)).collect();
    let refs: Vec<(&str, f32)> = ids.iter().map(|(s, x)| (s.as_str(), *x)).collect();
    let r = records("v1", &refs, 23);
    let line = r.vectors[0].line.len() + 1;
    let limits = Limits {
        upsert_max_vectors: 4,
        upsert_max_bytes: MULTIPART_OVERHEAD + 3 * line + 2,
        delete_max_ids: 2,
        kv_max_pairs: 5,
        kv_max_bytes: 200,
        ..Limits::default()
    };
    let p = plan(&r, None, &limits).unwrap();
    assert_eq!(p.upsert_count(), 25);
    for b in &p.upserts {
        assert!(
            b.items.len() <= 4 && b.bytes + MULTIPART_OVERHEAD <= limits.upsert_max_bytes,
            "{b:?}"
        );
    }
    assert!(p.upserts.len() >= 9);
    for b in &p.kv {
        assert!(b.items.len() <= 5 && b.bytes <= 200);
        assert_eq!(
            b.bytes,
            serde_json::to_vec(
                &b.items
                    .iter()
                    .map(|(k, v)| json!({"key": k, "value": v}))
                    .collect::<Vec<_>>()
            )
            .unwrap()
            .len()
        );
    }
    assert_eq!(p.kv_count(), 23);
    let prev = state_after(&r);
    let p = plan(&records("v2", &[], 0), Some(&prev), &limits).unwrap();
    assert_eq!(p.delete_count(), 25);
    assert!(p.deletes.iter().all(|b| b.items.len() <= 2));
    // Batch IDs are stable across runs and distinct.
    let again = plan(&records("v2", &[], 0), Some(&prev), &limits).unwrap();
    assert_eq!(p, again);
    let ids: BTreeSet<_> = p.deletes.iter().map(|b| &b.id).collect();
    assert_eq!(ids.len(), p.deletes.len());
}

#[test]
fn a_limit_violation_fails_the_whole_plan() {
    let mut r = records("v1", &[("a", 1.0)], 1);
    r.vectors.push(VectorItem::from_record(
        &json!({"id": "x".repeat(65), "values": [1.0], "metadata": {}}),
    ));
    r.vectors.push(VectorItem::from_record(
        &json!({"id": "big", "values": [1.0], "metadata": {"doc_id": "y".repeat(11 * 1024)}}),
    ));
    r.kv.push(("k".repeat(513), "v".into()));
    let e = plan(&r, None, &Limits::default()).unwrap_err();
    assert_eq!(e.len(), 3, "{e:?}");
    assert!(
        e[0].contains("65 bytes")
            && e[1].contains("metadata of vector big")
            && e[2].contains("513 bytes"),
        "{e:?}"
    );
    // A tiny injected value limit.
    let r = records("v1", &[("a", 1.0)], 2);
    let e = plan(
        &r,
        None,
        &Limits {
            max_value_bytes: 3,
            ..Limits::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.len(), 2);
}

#[test]
fn duplicate_ids_and_keys_are_refused() {
    let mut r = records("v1", &[("a", 1.0), ("a", 2.0)], 1);
    r.kv.push(r.kv[0].clone());
    let e = plan(&r, None, &Limits::default()).unwrap_err();
    assert!(
        e.iter().any(|m| m.contains("duplicate vector ID a"))
            && e.iter().any(|m| m.contains("written twice")),
        "{e:?}"
    );
}

fn manifest(
    version: &str,
    lookup: &[usize],
    lexical: &[(&str, &str)],
) -> crate::artifacts::manifest::Manifest {
    use crate::artifacts::manifest::{ArtifactEntry, Manifest};
    let entry = |kind, path: String, records, domain: Option<&str>| ArtifactEntry {
        kind,
        path,
        blake3: "h".into(),
        bytes: 1,
        records,
        domain: domain.map(String::from),
        library: None,
    };
    let mut artifacts: Vec<ArtifactEntry> = lookup
        .iter()
        .enumerate()
        .map(|(i, n)| {
            entry(
                crate::artifacts::Kind::Lookup,
                format!("lookup/s{i}.abc.jsonl"),
                *n,
                None,
            )
        })
        .collect();
    artifacts.extend(lexical.iter().map(|(d, name)| {
        entry(
            crate::artifacts::Kind::Lexical,
            format!("lexical/{d}/{name}.0123.json"),
            3,
            Some(*d),
        )
    }));
    Manifest {
        askzico_manifest: 1,
        corpus: "c".into(),
        corpus_version: version.into(),
        environment: "default".into(),
        settings: Default::default(),
        libraries: vec![],
        artifacts,
    }
}

#[test]
fn a_manifest_and_its_key_pages_name_every_key_of_a_version() {
    // 7 lookup records over two artifacts, pages of 3: pages 0..3 hold 3, 3, 1 IDs.
    let m = manifest("v1", &[4, 3], &[("faith", "t00"), ("tech", "t01")]);
    let ids: Vec<String> = (0..7).map(|i| format!("doc:{i:03}")).collect();
    let pages = keys::pages("p/", "v1", &ids, 3);
    assert_eq!(
        pages.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
        ["p/v1/keys/0", "p/v1/keys/1", "p/v1/keys/2"]
    );
    assert_eq!(
        keys::page_keys(&m, "p/", 3),
        pages.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>()
    );
    let read: Vec<Option<String>> = pages.iter().map(|(_, v)| Some(v.clone())).collect();
    let ks = keys::version_keys(&m, "p/", &read, 3).unwrap();
    let mut want: Vec<String> = ids.iter().map(|id| format!("p/v1/chunk/{id}")).collect();
    want.extend([
        "p/v1/lex/faith/t00".to_string(),
        "p/v1/lex/tech/t01".to_string(),
    ]);
    assert_eq!(ks.content, want);
    assert_eq!(ks.manifest, "p/v1/manifest");
    assert_eq!(ks.count(), 7 + 2 + 3 + 1);
    // A page the deploy never wrote names nothing (its chunk keys were never written either).
    let partial = vec![read[0].clone(), None, None];
    assert_eq!(
        keys::version_keys(&m, "p/", &partial, 3)
            .unwrap()
            .content
            .len(),
        3 + 2
    );
    // A page that disagrees with the manifest's counts is refused, not half-trusted.
    let short = vec![read[0].clone(), read[2].clone(), None];
    let e = keys::version_keys(&m, "p/", &short, 3)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("p/v1/keys/1 names 1 chunk IDs; the manifest of v1 implies 3"),
        "{e}"
    );
    assert!(
        keys::version_keys(&m, "p/", &[Some("{".into()), None, None], 3)
            .unwrap_err()
            .to_string()
            .contains("not a JSON array")
    );
}

#[test]
fn the_registry_claims_an_index_once() {
    let mut r = keys::Registry::default();
    assert!(r.claim("blue", "v1"));
    assert!(!r.claim("blue", "v1"));
    assert!(r.claim("green", "v2"));
    assert!(r.claim("blue", "v3"));
    assert!(r.claim("green", "v1"), "an old version deployed again");
    assert_eq!(r.versions, ["v1", "v2", "v3"]);
    assert_eq!(r, keys::Registry::parse(&r.to_json(), "k").unwrap());
    assert!(
        keys::Registry::parse("[1]", "p/versions")
            .unwrap_err()
            .to_string()
            .contains("p/versions is not a deploy registry")
    );
}

#[test]
fn gc_never_picks_the_live_version_nor_what_an_index_holds() {
    use super::journal::{Journal, Pending, Pointer};
    let t = crate::config::DeployTarget {
        max_kv_writes: None,
        account_id: None,
        indexes: ["blue".into(), "green".into()],
        kv_namespace_id: "ns".into(),
        prefix: "p/".into(),
    };
    let mut r = keys::Registry::default();
    for (i, v) in [
        ("blue", "v1"),
        ("green", "v2"),
        ("blue", "v3"),
        ("green", "v4"),
        ("old-index", "v5"),
    ] {
        r.claim(i, v);
    }
    let live = Pointer {
        version: "v4".into(),
        index: "green".into(),
        layout: None,
    };
    let mut j = Journal::default();
    let keep = gc::protected(&r, &t, Some(&live), &j);
    assert_eq!(
        keep.iter().map(String::as_str).collect::<Vec<_>>(),
        ["v3", "v4"]
    );
    assert_eq!(gc::candidates(&r, &keep), ["v1", "v2", "v5"]);
    // An unfinished local deploy is kept too, and so is a live version the registry lost.
    j.pending = Some(Pending {
        version: "v2".into(),
        index: "blue".into(),
        ..Pending::default()
    });
    let live = Pointer {
        version: "v1".into(),
        index: "blue".into(),
        layout: None,
    };
    let keep = gc::protected(&r, &t, Some(&live), &j);
    assert_eq!(gc::candidates(&r, &keep), ["v5"]);
}

#[test]
fn kv_groups_open_new_batches_and_deletes_respect_the_limits() {
    let mut r = records("v1", &[("a", 1.0)], 7);
    r.kv_breaks = vec![1, 3];
    let p = plan(
        &r,
        None,
        &Limits {
            kv_max_pairs: 10,
            ..Limits::default()
        },
    )
    .unwrap();
    assert_eq!(
        p.kv.iter().map(|b| b.items.len()).collect::<Vec<_>>(),
        [1, 2, 4]
    );
    let keys: Vec<String> = (0..25).map(|i| format!("p/v1/chunk/{i:02}")).collect();
    let limits = Limits {
        kv_delete_max_keys: 10,
        kv_max_bytes: 100,
        ..Limits::default()
    };
    let batches = delete_batches(&keys, &limits);
    assert_eq!(batches.iter().map(|b| b.items.len()).sum::<usize>(), 25);
    for b in &batches {
        assert!(b.items.len() <= 10);
        assert!(serde_json::to_vec(&b.items).unwrap().len() <= 100, "{b:?}");
    }
    assert!(batches.len() >= 5);
}

/// A layout-2 version names its record tables, the records they list, its document tables and
/// its lexical files; a record table that cannot be read leaves which records it names unknown
/// (an `Err`). A key table without document tables (deployed before them) still parses.
#[test]
fn a_version_table_names_its_values() {
    use crate::deploy::keys::{LexTable, VersionTable};
    let t = VersionTable {
        layout: 2,
        records: [("d".to_string(), "t1".to_string())].into(),
        lexical: [(
            "d".to_string(),
            LexTable {
                meta: "m1".into(),
                shards: vec!["s0".into(), "s1".into()],
            },
        )]
        .into(),
        docs: [("d".to_string(), "d1".to_string())].into(),
        settings: Some("q1".into()),
    };
    let table = r#"{"lib:a:000":"r1","lib:b:000":"r2"}"#.to_string();
    let keys = keys::value_keys(&t, "p/", &[Some(table)]).unwrap();
    assert_eq!(
        keys.into_iter().collect::<Vec<_>>(),
        [
            "p/d/d1", "p/l/m1", "p/l/s0", "p/l/s1", "p/r/r1", "p/r/r2", "p/s/q1", "p/t/t1"
        ]
    );
    let before = r#"{"layout":2,"records":{"d":"t1"},"lexical":{}}"#;
    let old = keys::parse_table(before, "k").unwrap();
    assert!(old.docs.is_empty() && old.settings.is_none());
    assert!(
        keys::value_keys(&t, "p/", &[None])
            .unwrap_err()
            .to_string()
            .contains("missing")
    );
    assert!(
        keys::value_keys(&t, "p/", &[Some("[]".into())])
            .unwrap_err()
            .to_string()
            .contains("not a record table")
    );
    assert_eq!(keys::parse_table(&keys::table_json(&t), "k").unwrap(), t);
    assert_eq!(crate::deploy::keys::value_hash(b"x").len(), 32);
}
