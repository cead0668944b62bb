use serde_json::json;

use super::*;

fn vec_item(id: &str, x: f32, version: &str) -> VectorItem {
    VectorItem::from_record(&json!({"id": id, "values": [x, 0.5], "metadata": {"doc_id": id, "corpus_version": version}}))
}

fn records(version: &str, ids: &[(&str, f32)], kv: usize) -> Records {
    Records {
        version: version.into(),
        vectors: ids.iter().map(|(id, x)| vec_item(id, *x, version)).collect(),
        kv: (0..kv).map(|i| (format!("{version}/chunk/{i}"), format!("value {i}"))).collect(),
    }
}

#[test]
fn first_deploy_upserts_everything_and_deletes_nothing() {
    let r = records("v1", &[("a", 1.0), ("b", 2.0)], 3);
    let p = plan(&r, None, &Limits::default()).unwrap();
    assert_eq!((p.upsert_count(), p.delete_count(), p.kv_count()), (2, 0, 3));
    assert_eq!((p.vectors_new, p.vectors_changed, p.unchanged), (2, 0, 0));
    assert_eq!(p.upserts.len(), 1);
    assert_eq!(p.upserts[0].bytes, r.vectors.iter().map(|v| v.line.len() + 1).sum::<usize>());
}

#[test]
fn diff_upserts_new_and_changed_and_deletes_removed() {
    let old = records("v1", &[("a", 1.0), ("b", 2.0), ("gone", 3.0)], 0);
    let prev = state_after(&old);
    // corpus_version alone does not make a vector changed.
    let new = records("v2", &[("a", 1.0), ("b", 9.0), ("c", 4.0)], 1);
    let p = plan(&new, Some(&prev), &Limits::default()).unwrap();
    assert_eq!((p.vectors_new, p.vectors_changed, p.unchanged), (1, 1, 1));
    let ids: Vec<String> = p.upserts.iter().flat_map(|b| b.items.iter()).map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids, ["b", "c"]);
    assert_eq!(p.deletes[0].items, ["gone"]);
    // Every uploaded line carries the new version.
    assert!(p.upserts[0].items.iter().all(|l| l.contains("\"corpus_version\":\"v2\"")));
}

#[test]
fn batches_respect_counts_and_bytes() {
    let ids: Vec<(String, f32)> = (0..25).map(|i| (format!("id{i:02}"), i as f32)).collect();
    let refs: Vec<(&str, f32)> = ids.iter().map(|(s, x)| (s.as_str(), *x)).collect();
    let r = records("v1", &refs, 23);
    let line = r.vectors[0].line.len() + 1;
    let limits = Limits { upsert_max_vectors: 4, upsert_max_bytes: MULTIPART_OVERHEAD + 3 * line + 2, delete_max_ids: 2, kv_max_pairs: 5, kv_max_bytes: 200, ..Limits::default() };
    let p = plan(&r, None, &limits).unwrap();
    assert_eq!(p.upsert_count(), 25);
    for b in &p.upserts {
        assert!(b.items.len() <= 4 && b.bytes + MULTIPART_OVERHEAD <= limits.upsert_max_bytes, "{b:?}");
    }
    assert!(p.upserts.len() >= 9);
    for b in &p.kv {
        assert!(b.items.len() <= 5 && b.bytes <= 200);
        assert_eq!(b.bytes, serde_json::to_vec(&b.items.iter().map(|(k, v)| json!({"key": k, "value": v})).collect::<Vec<_>>()).unwrap().len());
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
    r.vectors.push(VectorItem::from_record(&json!({"id": "x".repeat(65), "values": [1.0], "metadata": {}})));
    r.vectors.push(VectorItem::from_record(&json!({"id": "big", "values": [1.0], "metadata": {"doc_id": "y".repeat(11 * 1024)}})));
    r.kv.push(("k".repeat(513), "v".into()));
    let e = plan(&r, None, &Limits::default()).unwrap_err();
    assert_eq!(e.len(), 3, "{e:?}");
    assert!(e[0].contains("65 bytes") && e[1].contains("metadata of vector big") && e[2].contains("513 bytes"), "{e:?}");
    // A tiny injected value limit.
    let r = records("v1", &[("a", 1.0)], 2);
    let e = plan(&r, None, &Limits { max_value_bytes: 3, ..Limits::default() }).unwrap_err();
    assert_eq!(e.len(), 2);
}

#[test]
fn duplicate_ids_and_keys_are_refused() {
    let mut r = records("v1", &[("a", 1.0), ("a", 2.0)], 1);
    r.kv.push(r.kv[0].clone());
    let e = plan(&r, None, &Limits::default()).unwrap_err();
    assert!(e.iter().any(|m| m.contains("duplicate vector ID a")) && e.iter().any(|m| m.contains("written twice")), "{e:?}");
}
