//! What `askzico deploy` prints: the plan (as JSON for `--json`, or as lines), the same figures
//! the deploy then sends.

use serde_json::{Value, json};

use super::Plan;
use super::journal::Pointer;
use super::keys;

pub(super) fn plan_json(
    p: &Plan,
    target: &str,
    from: Option<&Pointer>,
    index: &str,
    source: &str,
    dry_run: bool,
) -> Value {
    json!({
        "target": target,
        "dry_run": dry_run,
        "pointer_source": source,
        "from": from.map(|p| json!({"version": p.version, "index": p.index, "layout": p.layout.unwrap_or(1)})),
        "to": {"version": p.version, "index": index, "layout": keys::LAYOUT},
        "vectors": {"upsert": p.upsert_count(), "new": p.vectors_new, "changed": p.vectors_changed, "unchanged": p.unchanged,
                    "delete": p.delete_count(), "upsert_bytes": p.upsert_bytes(),
                    "upsert_batches": p.upserts.iter().map(|b| json!({"vectors": b.items.len(), "bytes": b.bytes})).collect::<Vec<_>>(),
                    "delete_batches": p.deletes.iter().map(|b| b.items.len()).collect::<Vec<_>>()},
        "kv": {"writes": p.kv_count(), "bulk_pairs": p.kv_count(), "single_puts": 0,
               "present": 0, "delete": 0, "bytes": p.kv_bytes(),
               "batches": p.kv.iter().map(|b| json!({"pairs": b.items.len(), "bytes": b.bytes})).collect::<Vec<_>>()},
    })
}

pub(super) fn print_plan(v: &Value) {
    let from = match &v["from"] {
        Value::Null => "nothing deployed".to_string(),
        f => format!(
            "{} on {}",
            f["version"].as_str().unwrap_or(""),
            f["index"].as_str().unwrap_or("")
        ),
    };
    println!(
        "deploy plan for target {} (pointer from {}):",
        v["target"].as_str().unwrap_or(""),
        v["pointer_source"].as_str().unwrap_or("")
    );
    println!(
        "  switch: {from} -> {} on {}",
        v["to"]["version"].as_str().unwrap_or(""),
        v["to"]["index"].as_str().unwrap_or("")
    );
    // A version of an older content-addressed layout: every record is written once more.
    if let (Some(from), Some(to)) = (v["from"]["layout"].as_u64(), v["to"]["layout"].as_u64())
        && from >= 2
        && from < to
    {
        let what = match from {
            2 => {
                "every lookup record (records carry their section anchors and where their words stand) and every lexical shard (the line format a question reads only its own terms of) is written once more, and every vector upserted once (its metadata names its record's hash)"
            }
            3 => {
                "every lookup record (records carry where their words stand) and every lexical shard (the line format a question reads only its own terms of) is written once more, and every vector upserted once (its metadata names its record's hash)"
            }
            _ => {
                "every lookup record is written once more, carrying where its words stand (the second stage reads them instead of normalizing the text), and every vector upserted once (its metadata names its record's hash)"
            }
        };
        println!(
            "  upgrade: layout {from} -> {to}: {what}; a runtime written for layout {from} must be updated before this deploy (`askzico worker init`, then `npx wrangler deploy`; docs/deploy.md#layouts)"
        );
    }
    let vec = &v["vectors"];
    println!(
        "  vectors: {} to upsert ({} new, {} changed; {} unchanged), {} bytes in {}; {} to delete in {}",
        vec["upsert"],
        vec["new"],
        vec["changed"],
        vec["unchanged"],
        vec["upsert_bytes"],
        crate::term::count(
            vec["upsert_batches"].as_array().map_or(0, Vec::len),
            "batch",
            "batches"
        ),
        vec["delete"],
        crate::term::count(
            vec["delete_batches"].as_array().map_or(0, Vec::len),
            "batch",
            "batches"
        )
    );
    for (i, b) in vec["upsert_batches"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        println!(
            "    upsert batch {}: {}, {} bytes",
            i + 1,
            n(&b["vectors"], "vector", "vectors"),
            b["bytes"]
        );
    }
    println!(
        "  kv: {} ({}, {} bytes in {}; {}: the registry and the pointer); {} already in KV",
        n(&v["kv"]["writes"], "write", "writes"),
        n(&v["kv"]["bulk_pairs"], "pair", "pairs"),
        v["kv"]["bytes"],
        crate::term::count(
            v["kv"]["batches"].as_array().map_or(0, Vec::len),
            "bulk batch",
            "bulk batches"
        ),
        n(&v["kv"]["single_puts"], "single put", "single puts"),
        n(&v["kv"]["present"], "value", "values")
    );
    for (i, b) in v["kv"]["batches"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        println!(
            "    kv batch {}: {}, {} bytes",
            i + 1,
            n(&b["pairs"], "pair", "pairs"),
            b["bytes"]
        );
    }
}

/// A count from the plan's JSON with its noun ([`crate::term::count`]).
fn n(v: &serde_json::Value, one: &str, many: &str) -> String {
    let count = v
        .as_u64()
        .and_then(|c| usize::try_from(c).ok())
        .unwrap_or(0);
    crate::term::count(count, one, many)
}
