//! `askzico deploy --target NAME [--env ENV] [--dry-run] [--json]`: verify, read the pointer (or
//! the local journal without credentials), plan against what the inactive index holds, upsert and
//! delete vectors there, wait for Vectorize to apply them, write the version's KV records, and flip
//! the pointer last. A journal makes a killed deploy resumable without re-sending confirmed batches.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::client::Client;
use super::journal::{self, IndexRecord, Pending, Pointer};
use super::{Limits, Plan, Records, VectorItem, plan, state_after};
use crate::artifacts::manifest::Manifest;
use crate::config::DeployTarget;

pub struct Args<'a> {
    pub target: &'a str,
    pub dry_run: bool,
    pub json: bool,
}

/// Loads the upload records of a verified build.
pub fn records(out: &Path, m: &Manifest, prefix: &str) -> Result<Records, String> {
    let files = crate::cli::export::vector_lines(out, m).map_err(|p| p.to_string())?;
    let vectors = files.iter().flat_map(|(_, lines)| lines.iter()).map(VectorItem::from_record).collect();
    let kv = crate::cli::export::kv_pairs(out, m, prefix).map_err(|p| p.to_string())?;
    Ok(Records { version: m.corpus_version.clone(), vectors, kv })
}

/// The limits, with test hooks that can only lower them.
pub fn limits() -> Limits {
    let mut l = Limits::default();
    let var = |n: &str| std::env::var(n).ok().and_then(|v| v.parse::<usize>().ok()).filter(|n| *n > 0);
    if let Some(n) = var("ASKZICO_DEPLOY_MAX_METADATA_BYTES") {
        l.max_metadata_bytes = l.max_metadata_bytes.min(n);
    }
    if let Some(n) = var("ASKZICO_DEPLOY_MAX_UPSERT_VECTORS") {
        l.upsert_max_vectors = l.upsert_max_vectors.min(n);
    }
    l
}

fn other<'a>(t: &'a DeployTarget, live: &str) -> &'a str {
    if t.indexes[0] == live { &t.indexes[1] } else { &t.indexes[0] }
}

fn plan_json(p: &Plan, target: &str, from: Option<&Pointer>, index: &str, source: &str, dry_run: bool) -> Value {
    json!({
        "target": target,
        "dry_run": dry_run,
        "pointer_source": source,
        "from": from.map(|p| json!({"version": p.version, "index": p.index})),
        "to": {"version": p.version, "index": index},
        "vectors": {"upsert": p.upsert_count(), "new": p.vectors_new, "changed": p.vectors_changed, "unchanged": p.unchanged,
                    "delete": p.delete_count(), "upsert_bytes": p.upsert_bytes(),
                    "upsert_batches": p.upserts.iter().map(|b| json!({"vectors": b.items.len(), "bytes": b.bytes})).collect::<Vec<_>>(),
                    "delete_batches": p.deletes.iter().map(|b| b.items.len()).collect::<Vec<_>>()},
        "kv": {"write": p.kv_count(), "bytes": p.kv_bytes(),
               "batches": p.kv.iter().map(|b| json!({"pairs": b.items.len(), "bytes": b.bytes})).collect::<Vec<_>>()},
    })
}

fn print_plan(v: &Value) {
    let from = match &v["from"] {
        Value::Null => "nothing deployed".to_string(),
        f => format!("{} on {}", f["version"].as_str().unwrap_or(""), f["index"].as_str().unwrap_or("")),
    };
    println!("deploy plan for target {} (pointer from {}):", v["target"].as_str().unwrap_or(""), v["pointer_source"].as_str().unwrap_or(""));
    println!("  switch: {from} -> {} on {}", v["to"]["version"].as_str().unwrap_or(""), v["to"]["index"].as_str().unwrap_or(""));
    let vec = &v["vectors"];
    println!(
        "  vectors: {} to upsert ({} new, {} changed; {} unchanged), {} bytes in {} batches; {} to delete in {} batches",
        vec["upsert"], vec["new"], vec["changed"], vec["unchanged"], vec["upsert_bytes"], vec["upsert_batches"].as_array().map_or(0, Vec::len), vec["delete"],
        vec["delete_batches"].as_array().map_or(0, Vec::len)
    );
    for (i, b) in vec["upsert_batches"].as_array().into_iter().flatten().enumerate() {
        println!("    upsert batch {}: {} vectors, {} bytes", i + 1, b["vectors"], b["bytes"]);
    }
    println!("  kv: {} pairs, {} bytes in {} batches", v["kv"]["write"], v["kv"]["bytes"], v["kv"]["batches"].as_array().map_or(0, Vec::len));
    for (i, b) in v["kv"]["batches"].as_array().into_iter().flatten().enumerate() {
        println!("    kv batch {}: {} pairs, {} bytes", i + 1, b["pairs"], b["bytes"]);
    }
}

/// Runs a deploy; `Err` is a message for the user (exit 1).
pub fn deploy(out: &Path, m: &Manifest, t: &DeployTarget, args: &Args) -> Result<(), String> {
    let jpath = journal::path(out, args.target);
    let mut j = journal::load(&jpath)?;
    let client = Client::from_env(t.account_id.as_deref())?;
    let pointer_key = format!("{}current", t.prefix);
    let (pointer, source) = match &client {
        Some(c) => {
            let raw = c.kv_get(&t.kv_namespace_id, &pointer_key)?;
            let p = match raw {
                None => None,
                Some(s) => Some(serde_json::from_str::<Pointer>(&s).map_err(|e| format!("the pointer {pointer_key} is not {{\"version\",\"index\"}}: {e}"))?),
            };
            (p, "Cloudflare KV")
        }
        None => {
            let note = if j.pointer.is_some() { "the local deploy journal" } else { "the local deploy journal (empty target)" };
            eprintln!("no CLOUDFLARE_API_TOKEN: planning against {note}, {}", jpath.display());
            (j.pointer.clone(), "local journal (no credentials)")
        }
    };
    if let Some(p) = &pointer {
        if !t.indexes.contains(&p.index) {
            return Err(format!("the pointer names index {}, which is not one of this target's indexes {:?}", p.index, t.indexes));
        }
    }
    let index = match &pointer {
        Some(p) => other(t, &p.index).to_string(),
        None => t.indexes[0].clone(),
    };
    if pointer.as_ref().is_some_and(|p| p.version == m.corpus_version) {
        let msg = format!("target {} already serves {} (index {}); nothing to do", args.target, m.corpus_version, pointer.as_ref().unwrap().index);
        if args.json {
            println!("{}", json!({"target": args.target, "up_to_date": true, "version": m.corpus_version}));
        } else {
            println!("{msg}");
        }
        return Ok(());
    }
    let recs = records(out, m, &t.prefix)?;
    // What the inactive index holds. An unfinished deploy of another version into it left it in an
    // unknown state: upsert everything then.
    let resuming = j.pending.as_ref().is_some_and(|p| p.version == m.corpus_version && p.index == index);
    let stale_pending = j.pending.as_ref().is_some_and(|p| p.index == index && !resuming);
    let mut previous = if stale_pending { None } else { j.indexes.get(&index).map(|r| r.vectors.clone()) };
    if let (None, Some(c)) = (&previous, &client) {
        // The journal does not know what the inactive index holds (first deploy from this machine,
        // or an unfinished deploy of another version): list its IDs, upsert everything and delete
        // the IDs the new build does not have.
        let ids = c.list_ids(&index)?;
        if !ids.is_empty() {
            eprintln!("the journal does not know index {index}: it holds {} vectors (listed); all vectors are upserted", ids.len());
        }
        previous = Some(ids.into_iter().map(|id| (id, String::new())).collect());
    }
    let p = plan(&recs, previous.as_ref(), &limits()).map_err(|errs| {
        let mut s = format!("deploy refused: the plan breaks {} Cloudflare limit(s); nothing was sent:", errs.len());
        for e in errs {
            s.push_str("\n  ");
            s.push_str(&e);
        }
        s
    })?;
    let summary = plan_json(&p, args.target, pointer.as_ref(), &index, source, args.dry_run);
    if args.dry_run {
        if args.json {
            println!("{summary}");
        } else {
            print_plan(&summary);
        }
        return Ok(());
    }
    let Some(c) = client else {
        return Err("a deploy needs CLOUDFLARE_API_TOKEN in the environment (use --dry-run to see the plan without it)".into());
    };
    if !args.json {
        print_plan(&summary);
    }
    if !resuming {
        j.pending = Some(Pending { version: m.corpus_version.clone(), index: index.clone(), ..Pending::default() });
        if stale_pending {
            j.indexes.remove(&index);
        }
        journal::save(&jpath, &j)?;
    } else {
        let done = j.pending.as_ref().map_or(0, |p| p.done.len());
        eprintln!("resuming the unfinished deploy of {} into {index}: {done} batches already confirmed", m.corpus_version);
    }
    let mut sent = 0usize;
    // 1. Vectors into the inactive index.
    let n = p.upserts.len();
    for (i, b) in p.upserts.iter().enumerate() {
        if j.pending.as_ref().unwrap().done.contains(&b.id) {
            continue;
        }
        let body = b.items.join("\n");
        let mutation = c.upsert(&index, &body, &format!("upsert batch {}/{n} ({} vectors) into {index}", i + 1, b.items.len()))?;
        confirm_mutation(&mut j, &jpath, &b.id, mutation)?;
        sent += 1;
    }
    let n = p.deletes.len();
    for (i, b) in p.deletes.iter().enumerate() {
        if j.pending.as_ref().unwrap().done.contains(&b.id) {
            continue;
        }
        let mutation = c.delete_ids(&index, &b.items, &format!("delete batch {}/{n} ({} ids) from {index}", i + 1, b.items.len()))?;
        confirm_mutation(&mut j, &jpath, &b.id, mutation)?;
        sent += 1;
    }
    // 2. Wait until Vectorize has applied the last mutation.
    let pd = j.pending.as_ref().unwrap();
    if let (Some(last), false) = (pd.last_mutation.clone(), pd.vectors_applied) {
        wait_applied(&c, &index, &last)?;
        j.pending.as_mut().unwrap().vectors_applied = true;
        journal::save(&jpath, &j)?;
    }
    // 3. KV records of the new version (never the keys the live version reads).
    let n = p.kv.len();
    for (i, b) in p.kv.iter().enumerate() {
        if j.pending.as_ref().unwrap().done.contains(&b.id) {
            continue;
        }
        let what = format!("KV bulk batch {}/{n} ({} pairs)", i + 1, b.items.len());
        let mut todo: Vec<&(String, String)> = b.items.iter().collect();
        for round in 1..=c.max_attempts {
            let body = serde_json::to_vec(&todo.iter().map(|(k, v)| json!({"key": k, "value": v})).collect::<Vec<_>>()).expect("serializes");
            let failed = c.kv_bulk(&t.kv_namespace_id, &body, &what)?;
            if failed.is_empty() {
                todo.clear();
                break;
            }
            todo.retain(|(k, _)| failed.contains(k));
            eprintln!("  {what}: {} keys unsuccessful, retrying them", todo.len());
            if round < c.max_attempts {
                std::thread::sleep(crate::embed::workers_ai::backoff(round, c.retry_base, c.max_backoff));
            }
        }
        if !todo.is_empty() {
            return Err(format!("{what}: {} keys stayed unsuccessful (e.g. {}); rerun the deploy to retry", todo.len(), todo[0].0));
        }
        j.pending.as_mut().unwrap().done.insert(b.id.clone());
        journal::save(&jpath, &j)?;
        sent += 1;
    }
    // 4. The pointer, last.
    let new_pointer = Pointer { version: m.corpus_version.clone(), index: index.clone() };
    c.kv_put(&t.kv_namespace_id, &pointer_key, &serde_json::to_string(&new_pointer).expect("serializes"))?;
    j.indexes.insert(index.clone(), IndexRecord { version: m.corpus_version.clone(), vectors: state_after(&recs) });
    j.pointer = Some(new_pointer);
    j.pending = None;
    journal::save(&jpath, &j)?;
    if args.json {
        println!("{}", json!({"target": args.target, "deployed": m.corpus_version, "index": index, "requests": sent + 1, "plan": summary}));
    } else {
        println!("deployed {} to {} (index {index}); pointer {pointer_key} written last", m.corpus_version, args.target);
    }
    Ok(())
}

/// Polls `info` until `processedUpToMutation` is the last mutationId (bounded).
/// Records a Vectorize batch the API confirmed, so a rerun never sends it again.
fn confirm_mutation(j: &mut journal::Journal, jpath: &Path, batch: &str, mutation: String) -> Result<(), String> {
    let pd = j.pending.as_mut().expect("a deploy in progress");
    pd.done.insert(batch.to_string());
    pd.last_mutation = Some(mutation);
    pd.vectors_applied = false;
    journal::save(jpath, j)
}

fn wait_applied(c: &Client, index: &str, last: &str) -> Result<(), String> {
    let limit = Duration::from_secs(std::env::var("ASKZICO_DEPLOY_WAIT_SECS").ok().and_then(|v| v.parse().ok()).unwrap_or(600));
    let start = Instant::now();
    let mut wait = Duration::from_millis(200);
    loop {
        let info = c.info(index)?;
        if info.get("processedUpToMutation").and_then(Value::as_str) == Some(last) {
            return Ok(());
        }
        if start.elapsed() >= limit {
            return Err(format!(
                "Vectorize index {index} has not applied mutation {last} after {}s; rerun the deploy to keep waiting (nothing is re-sent)",
                limit.as_secs()
            ));
        }
        std::thread::sleep(wait.min(limit.saturating_sub(start.elapsed())));
        wait = (wait * 2).min(Duration::from_secs(10));
    }
}
