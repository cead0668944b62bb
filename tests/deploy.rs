//! `askzico deploy` against a local stand-in for the Cloudflare REST API (tiny_http on
//! 127.0.0.1, random port) implementing the documented request and response shapes: Vectorize v2
//! upsert (multipart part `vectors`, NDJSON) / delete_by_ids / info, KV values and bulk writes.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use common::*;
use serde_json::{Value, json};

const TOKEN: &str = "tok-Sup3rSecret-DoNotLeak-42";
const ACCOUNT: &str = "acc123";
const NS: &str = "ns1";
const TARGET: &str = "\n[deploy.prod]\naccount_id = \"acc123\"\nindexes = [\"corpus-blue\", \"corpus-green\"]\nkv_namespace_id = \"ns1\"\nprefix = \"zico/\"\n";

#[derive(Default)]
struct State {
    kv: BTreeMap<String, String>,
    indexes: BTreeMap<String, BTreeMap<String, Value>>,
    last_mutation: BTreeMap<String, String>,
    mutations: usize,
    /// One entry per request: "upsert blue 12", "delete green 3", "info blue", "kv-bulk 40", "kv-put zico/current", "kv-get zico/current".
    log: Vec<String>,
    problems: Vec<String>,
    /// `info` reports the previous mutation this many more times (Vectorize applies writes later).
    info_lag: usize,
    /// The next upserts answer 429 with `Retry-After: 0`.
    throttle_upserts: usize,
    /// Upserts answer 500 once this many have succeeded (a deploy dying mid-way).
    fail_upserts_after: Option<usize>,
    /// The next bulk write reports its first two keys in `unsuccessful_keys` (and drops them).
    drop_bulk_keys: bool,
}

struct Mock {
    base: String,
    state: Arc<Mutex<State>>,
    fail_kv: Arc<AtomicBool>,
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

fn ok(result: Value) -> String {
    json!({"success": true, "errors": [], "messages": [], "result": result}).to_string()
}

fn mock() -> Mock {
    let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
    let port = server.server_addr().to_ip().unwrap().port();
    let state: Arc<Mutex<State>> = Arc::default();
    let fail_kv = Arc::new(AtomicBool::new(false));
    let (st, fail) = (state.clone(), fail_kv.clone());
    std::thread::spawn(move || {
        for mut rq in server.incoming_requests() {
            let url = rq.url().to_string();
            let method = rq.method().to_string();
            let header = |n: &'static str| rq.headers().iter().find(|h| h.field.equiv(n)).map(|h| h.value.as_str().to_string()).unwrap_or_default();
            let auth = header("Authorization");
            let ctype = header("Content-Type");
            let mut body = String::new();
            let _ = std::io::Read::read_to_string(rq.as_reader(), &mut body);
            let mut s = st.lock().unwrap();
            if auth != format!("Bearer {TOKEN}") {
                s.problems.push(format!("bad auth on {url}"));
            }
            let kv_prefix = format!("/client/v4/accounts/{ACCOUNT}/storage/kv/namespaces/{NS}/");
            let vz_prefix = format!("/client/v4/accounts/{ACCOUNT}/vectorize/v2/indexes/");
            let (status, reply) = if let Some(rest) = url.strip_prefix(&kv_prefix) {
                if let Some(key) = rest.strip_prefix("values/") {
                    let key = decode(key);
                    if method == "GET" {
                        s.log.push(format!("kv-get {key}"));
                        match s.kv.get(&key) {
                            Some(v) => (200, v.clone()),
                            None => (404, json!({"success": false, "errors": [{"code": 10009, "message": "get: 'key not found'"}]}).to_string()),
                        }
                    } else {
                        s.log.push(format!("kv-put {key}"));
                        s.kv.insert(key, body);
                        (200, ok(Value::Null))
                    }
                } else if rest == "bulk" && method == "PUT" {
                    if !ctype.starts_with("application/json") {
                        s.problems.push("bulk content type".into());
                    }
                    let pairs: Vec<Value> = serde_json::from_str(&body).unwrap();
                    if pairs.len() > 10_000 || body.len() > 100_000_000 {
                        s.problems.push("bulk over limits".into());
                    }
                    if fail.load(Ordering::SeqCst) {
                        s.log.push("kv-bulk-500".into());
                        (500, json!({"success": false, "errors": [{"code": 10001, "message": "internal"}]}).to_string())
                    } else {
                        s.log.push(format!("kv-bulk {}", pairs.len()));
                        let dropped: Vec<String> = if std::mem::take(&mut s.drop_bulk_keys) { pairs.iter().take(2).map(|p| p["key"].as_str().unwrap().to_string()).collect() } else { vec![] };
                        for p in &pairs {
                            if !dropped.iter().any(|d| d == p["key"].as_str().unwrap()) {
                                s.kv.insert(p["key"].as_str().unwrap().into(), p["value"].as_str().unwrap().into());
                            }
                        }
                        (200, ok(json!({"successful_key_count": pairs.len() - dropped.len(), "unsuccessful_keys": dropped})))
                    }
                } else {
                    (404, "{}".into())
                }
            } else if let Some(rest) = url.strip_prefix(&vz_prefix) {
                let (index, op) = rest.split_once('/').unwrap();
                let index = index.to_string();
                let op = op.split('?').next().unwrap().to_string();
                match (method.as_str(), op.as_str()) {
                    ("POST", "upsert") if s.throttle_upserts > 0 => {
                        s.throttle_upserts -= 1;
                        s.log.push("upsert-429".into());
                        drop(s);
                        let r = tiny_http::Response::from_string(json!({"success": false, "errors": [{"code": 971, "message": "rate limited"}]}).to_string())
                            .with_status_code(429)
                            .with_header(tiny_http::Header::from_bytes("Retry-After", "0").unwrap());
                        let _ = rq.respond(r);
                        continue;
                    }
                    ("POST", "upsert") if s.fail_upserts_after.is_some_and(|n| s.log.iter().filter(|l| l.starts_with("upsert ")).count() >= n) => {
                        s.log.push("upsert-500".into());
                        (500, json!({"success": false, "errors": [{"code": 10001, "message": "internal"}]}).to_string())
                    }
                    ("POST", "upsert") => {
                        if !ctype.starts_with("multipart/form-data; boundary=") || !url.contains("unparsable-behavior=error") {
                            s.problems.push(format!("upsert content type {ctype}"));
                        }
                        if !body.contains("name=\"vectors\"") || !body.contains("Content-Type: application/x-ndjson") {
                            s.problems.push("no vectors part".into());
                        }
                        let start = body.find("\r\n\r\n").unwrap() + 4;
                        let end = body.rfind("\r\n--").unwrap();
                        let lines: Vec<Value> = body[start..end].lines().map(|l| serde_json::from_str(l).unwrap()).collect();
                        if lines.len() > 1000 {
                            s.problems.push("upsert over 1000".into());
                        }
                        s.log.push(format!("upsert {index} {}", lines.len()));
                        for l in lines {
                            if l["metadata"]["corpus_version"].as_str().is_none() {
                                s.problems.push("no corpus_version".into());
                            }
                            s.indexes.entry(index.clone()).or_default().insert(l["id"].as_str().unwrap().into(), l);
                        }
                        s.mutations += 1;
                        let m = format!("mut-{:04}", s.mutations);
                        s.last_mutation.insert(index, m.clone());
                        (200, ok(json!({"mutationId": m})))
                    }
                    ("POST", "delete_by_ids") => {
                        let ids: Value = serde_json::from_str(&body).unwrap();
                        let ids = ids["ids"].as_array().unwrap();
                        s.log.push(format!("delete {index} {}", ids.len()));
                        for id in ids {
                            s.indexes.entry(index.clone()).or_default().remove(id.as_str().unwrap());
                        }
                        s.mutations += 1;
                        let m = format!("mut-{:04}", s.mutations);
                        s.last_mutation.insert(index, m.clone());
                        (200, ok(json!({"mutationId": m})))
                    }
                    ("GET", "list") => {
                        // Pages of at most 7 IDs, to exercise the cursor.
                        let q = rest.split_once('?').map_or("", |(_, q)| q);
                        let cursor = q.split('&').find_map(|kv| kv.strip_prefix("cursor=")).map(decode).unwrap_or_default();
                        let ids: Vec<String> = s.indexes.get(&index).map(|i| i.keys().filter(|k| **k > cursor).take(7).cloned().collect()).unwrap_or_default();
                        let total = s.indexes.get(&index).map_or(0, |i| i.len());
                        let more = ids.len() == 7 && s.indexes[&index].keys().any(|k| k > ids.last().unwrap());
                        s.log.push(format!("list {index}"));
                        (200, ok(json!({"count": ids.len(), "totalCount": total, "isTruncated": more, "nextCursor": if more { json!(ids.last().unwrap()) } else { Value::Null },
                                        "vectors": ids.iter().map(|i| json!({"id": i})).collect::<Vec<_>>()})))
                    }
                    ("GET", "info") => {
                        s.log.push(format!("info {index}"));
                        let n = s.indexes.get(&index).map_or(0, |i| i.len());
                        if s.info_lag > 0 {
                            s.info_lag -= 1;
                            s.log.push("info-lagging".into());
                            let r = ok(json!({"dimensions": 256, "vectorCount": n, "processedUpToMutation": "mut-older", "processedUpToDatetime": "2026-11-29T00:00:00Z"}));
                            drop(s);
                            let _ = rq.respond(tiny_http::Response::from_string(r));
                            continue;
                        }
                        (200, ok(json!({"dimensions": 256, "vectorCount": n, "processedUpToMutation": s.last_mutation.get(&index), "processedUpToDatetime": "2026-11-29T00:00:00Z"})))
                    }
                    _ => (404, "{}".into()),
                }
            } else {
                (404, "{}".into())
            };
            drop(s);
            let _ = rq.respond(tiny_http::Response::from_string(reply).with_status_code(status));
        }
    });
    Mock { base: format!("http://127.0.0.1:{port}/client/v4"), state, fail_kv }
}

fn project() -> tempfile::TempDir {
    let p = sample_project();
    let cfg = p.path().join("corpus.toml");
    let mut s = std::fs::read_to_string(&cfg).unwrap();
    s.push_str(TARGET);
    std::fs::write(&cfg, s).unwrap();
    let o = run(bin().current_dir(p.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    p
}

fn deploy(dir: &Path, mock: Option<&Mock>, extra: &[&str]) -> std::process::Output {
    let mut cmd = bin();
    cmd.current_dir(dir).args(["deploy", "--target", "prod"]).args(extra);
    cmd.env_remove("CLOUDFLARE_API_TOKEN").env_remove("CLOUDFLARE_ACCOUNT_ID");
    if let Some(m) = mock {
        cmd.env("CLOUDFLARE_API_TOKEN", TOKEN).env("ASKZICO_CF_API_BASE", &m.base).env("ASKZICO_DEPLOY_MAX_ATTEMPTS", "2").env("ASKZICO_DEPLOY_RETRY_MS", "1");
    }
    let o = run(&mut cmd);
    assert!(!stdout(&o).contains(TOKEN) && !stderr(&o).contains(TOKEN), "the token leaked");
    o
}

/// The `kv: N pairs` count of a printed plan.
fn report_count(out: &str) -> usize {
    let line = out.lines().find(|l| l.trim_start().starts_with("kv: ")).expect("a plan line `kv: N pairs`");
    line.trim_start()[4..].split(' ').next().unwrap().parse().unwrap()
}

fn journal(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("out/cache/deploy/prod.json")).unwrap_or_default()
}

fn version(dir: &Path) -> String {
    manifest(&dir.join("out"))["corpus_version"].as_str().unwrap().to_string()
}

#[test]
fn dry_run_without_credentials_plans_against_the_journal_within_limits() {
    let p = project();
    let o = deploy(p.path(), None, &["--dry-run", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("no CLOUDFLARE_API_TOKEN: planning against the local deploy journal"), "{}", stderr(&o));
    let plan: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(plan["to"]["index"], "corpus-blue");
    assert_eq!(plan["to"]["version"], version(p.path()).as_str());
    assert_eq!(plan["from"], Value::Null);
    let vectors = plan["vectors"]["upsert"].as_u64().unwrap();
    assert!(vectors >= 12);
    for b in plan["vectors"]["upsert_batches"].as_array().unwrap() {
        assert!(b["vectors"].as_u64().unwrap() <= 1000 && b["bytes"].as_u64().unwrap() < 100_000_000);
    }
    for b in plan["kv"]["batches"].as_array().unwrap() {
        assert!(b["pairs"].as_u64().unwrap() <= 10_000 && b["bytes"].as_u64().unwrap() <= 100_000_000);
    }
    assert!(plan["kv"]["write"].as_u64().unwrap() > vectors, "lookup records, lexical shards and the manifest");
    // Human form; nothing written without credentials.
    let o = deploy(p.path(), None, &["--dry-run"]);
    assert!(stdout(&o).contains("switch: nothing deployed -> "), "{}", stdout(&o));
    assert!(stdout(&o).contains("upsert batch 1: "));
    let o = deploy(p.path(), None, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("needs CLOUDFLARE_API_TOKEN"));
    assert!(journal(p.path()).is_empty());
}

#[test]
fn full_deploy_writes_vectors_then_kv_then_the_pointer_last_and_flips_blue_green() {
    let p = project();
    let m = mock();
    {
        let mut s = m.state.lock().unwrap();
        s.info_lag = 2;
        s.throttle_upserts = 1;
        s.drop_bulk_keys = true;
    }
    let o = deploy(p.path(), Some(&m), &[]);
    assert!(o.status.success(), "{}\n{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("HTTP 429: rate limited (code 971); retrying"), "{}", stderr(&o));
    let v1 = version(p.path());
    let log = { m.state.lock().unwrap().log.clone() };
    let s = m.state.lock().unwrap();
    assert!(s.problems.is_empty(), "{:?}", s.problems);
    assert_eq!(log.iter().filter(|l| *l == "info-lagging").count(), 2, "the deploy waits for the last mutation: {log:?}");
    assert_eq!(log.first().unwrap(), "kv-get zico/current");
    assert!(log.contains(&"kv-bulk 2".to_string()), "unsuccessful_keys are retried: {log:?}");
    assert_eq!(log.last().unwrap(), "kv-put zico/current");
    let last_vec = log.iter().rposition(|l| l.starts_with("upsert") || l.starts_with("delete") || l.starts_with("info")).unwrap();
    let first_kv = log.iter().position(|l| l.starts_with("kv-bulk")).unwrap();
    assert!(last_vec < first_kv, "{log:?}");
    assert!(log.iter().filter(|l| l.starts_with("upsert ")).all(|l| l.starts_with("upsert corpus-blue ")), "{log:?}");
    assert_eq!(log.iter().filter(|l| l.starts_with("kv-put")).count(), 1);
    let pointer: Value = serde_json::from_str(&s.kv["zico/current"]).unwrap();
    assert_eq!(pointer, json!({"version": v1, "index": "corpus-blue"}));
    assert!(s.kv.contains_key(&format!("zico/{v1}/manifest")));
    assert!(s.kv.keys().any(|k| k.starts_with(&format!("zico/{v1}/chunk/"))));
    assert!(s.kv.keys().any(|k| k.starts_with(&format!("zico/{v1}/lex/"))));
    let kv_written = report_count(&stdout(&o));
    assert_eq!(s.kv.keys().filter(|k| k.starts_with(&format!("zico/{v1}/"))).count(), kv_written, "every planned pair is stored");
    let blue = s.indexes["corpus-blue"].len();
    assert!(blue >= 12);
    drop(s);
    let j = journal(p.path());
    assert!(!j.contains(TOKEN) && j.contains("corpus-blue"));

    // Same version again: nothing to do.
    let o = deploy(p.path(), Some(&m), &[]);
    assert!(stdout(&o).contains("nothing to do"), "{}", stdout(&o));

    // A changed build goes into the other index; the live one is untouched.
    let f = p.path().join("sources/articles/faq.md");
    let mut text = std::fs::read_to_string(&f).unwrap();
    text.push_str("\n\nفقرة جديدة للتجربة عن النشر والتحديث.\n");
    std::fs::write(&f, text).unwrap();
    let o = run(bin().current_dir(p.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let v2 = version(p.path());
    assert_ne!(v1, v2);
    {
        // Green holds vectors this machine's journal does not know of (another machine's deploy):
        // they are listed (paged) and the ones the build lacks deleted.
        let mut s = m.state.lock().unwrap();
        s.log.clear();
        let green = s.indexes.entry("corpus-green".into()).or_default();
        for i in 0..9 {
            green.insert(format!("stray:{i}"), json!({}));
        }
    }
    let o = deploy(p.path(), Some(&m), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = m.state.lock().unwrap();
    assert!(s.log.iter().filter(|l| l.starts_with("upsert ") || l.starts_with("delete ")).all(|l| l.contains("corpus-green")), "{:?}", s.log);
    assert!(s.log.iter().filter(|l| l.starts_with("list corpus-green")).count() >= 2, "{:?}", s.log);
    assert!(s.log.contains(&"delete corpus-green 9".to_string()), "{:?}", s.log);
    assert!(!s.indexes["corpus-green"].keys().any(|k| k.starts_with("stray:")));
    assert_eq!(s.indexes["corpus-blue"].len(), blue);
    assert_eq!(s.log.last().unwrap(), "kv-put zico/current");
    let pointer: Value = serde_json::from_str(&s.kv["zico/current"]).unwrap();
    assert_eq!(pointer, json!({"version": v2, "index": "corpus-green"}));
    drop(s);

    // A third build without one article goes back into blue, diffed against what blue holds:
    // unchanged vectors are not re-sent, the removed article's vectors are deleted by ID.
    std::fs::remove_file(p.path().join("sources/articles/nile-flood.md")).unwrap();
    let o = run(bin().current_dir(p.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let v3 = version(p.path());
    m.state.lock().unwrap().log.clear();
    let o = deploy(p.path(), Some(&m), &["--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(report["plan"]["vectors"]["delete"].as_u64().unwrap() >= 1, "{report}");
    assert!(report["plan"]["vectors"]["unchanged"].as_u64().unwrap() >= 1, "{report}");
    let s = m.state.lock().unwrap();
    assert!(s.log.iter().any(|l| l.starts_with("delete corpus-blue ")), "{:?}", s.log);
    assert!(s.log.iter().filter(|l| l.starts_with("upsert ") || l.starts_with("delete ")).all(|l| l.contains("corpus-blue")), "{:?}", s.log);
    assert!(!s.indexes["corpus-blue"].keys().any(|k| k.starts_with("articles:nile")), "{:?}", s.indexes["corpus-blue"].keys());
    let pointer: Value = serde_json::from_str(&s.kv["zico/current"]).unwrap();
    assert_eq!(pointer, json!({"version": v3, "index": "corpus-blue"}));
}

#[test]
fn an_interrupted_deploy_resumes_without_resending_and_flips_the_pointer_once() {
    let p = project();
    let m = mock();
    m.fail_kv.store(true, Ordering::SeqCst);
    let o = deploy(p.path(), Some(&m), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stderr(&o).contains("KV bulk batch 1/"), "{}", stderr(&o));
    let upserts_before = {
        let s = m.state.lock().unwrap();
        assert!(!s.kv.contains_key("zico/current"), "the pointer must not be written before everything else");
        assert!(!s.log.iter().any(|l| l.starts_with("kv-put")));
        s.log.iter().filter(|l| l.starts_with("upsert")).count()
    };
    assert!(upserts_before >= 1);
    let j = journal(p.path());
    assert!(j.contains("\"pending\"") && !j.contains(TOKEN), "{j}");

    m.fail_kv.store(false, Ordering::SeqCst);
    let o = deploy(p.path(), Some(&m), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("resuming the unfinished deploy"), "{}", stderr(&o));
    let s = m.state.lock().unwrap();
    assert_eq!(s.log.iter().filter(|l| l.starts_with("upsert")).count(), upserts_before, "confirmed upserts were re-sent: {:?}", s.log);
    assert_eq!(s.log.iter().filter(|l| l.starts_with("kv-put")).count(), 1);
    assert_eq!(s.log.last().unwrap(), "kv-put zico/current");
    let pointer: Value = serde_json::from_str(&s.kv["zico/current"]).unwrap();
    assert_eq!(pointer["index"], "corpus-blue");
    assert!(!journal(p.path()).contains("\"pending\": {"));
}

#[test]
fn an_over_limit_plan_is_refused_before_anything_is_sent() {
    let p = project();
    let m = mock();
    let mut cmd = bin();
    cmd.current_dir(p.path()).args(["deploy", "--target", "prod"]).env("CLOUDFLARE_API_TOKEN", TOKEN).env("ASKZICO_CF_API_BASE", &m.base).env("ASKZICO_DEPLOY_MAX_METADATA_BYTES", "40");
    let o = run(&mut cmd);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("deploy refused") && stderr(&o).contains("metadata of vector"), "{}", stderr(&o));
    assert!(!stderr(&o).contains(TOKEN));
    let s = m.state.lock().unwrap();
    assert!(s.log.iter().all(|l| l.starts_with("kv-get") || l.starts_with("list ")), "only reads: {:?}", s.log);
}

#[test]
fn a_deploy_dying_mid_upsert_resumes_from_the_next_batch() {
    let p = project();
    let m = mock();
    m.state.lock().unwrap().fail_upserts_after = Some(2);
    let small = |o: &mut assert_cmd::Command| {
        o.env("ASKZICO_DEPLOY_MAX_UPSERT_VECTORS", "4");
    };
    let mut cmd = bin();
    cmd.current_dir(p.path()).args(["deploy", "--target", "prod"]).env("CLOUDFLARE_API_TOKEN", TOKEN).env("ASKZICO_CF_API_BASE", &m.base).env("ASKZICO_DEPLOY_MAX_ATTEMPTS", "2").env("ASKZICO_DEPLOY_RETRY_MS", "1");
    small(&mut cmd);
    let o = run(&mut cmd);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("upsert batch 3/"), "{}", stderr(&o));
    assert!(!stderr(&o).contains(TOKEN) && !journal(p.path()).contains(TOKEN));
    {
        let mut s = m.state.lock().unwrap();
        assert!(!s.log.iter().any(|l| l.starts_with("kv-")  && l != "kv-get zico/current"), "{:?}", s.log);
        s.fail_upserts_after = None;
    }
    let mut cmd = bin();
    cmd.current_dir(p.path()).args(["deploy", "--target", "prod"]).env("CLOUDFLARE_API_TOKEN", TOKEN).env("ASKZICO_CF_API_BASE", &m.base);
    small(&mut cmd);
    let o = run(&mut cmd);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = m.state.lock().unwrap();
    let sizes: Vec<&String> = s.log.iter().filter(|l| l.starts_with("upsert ")).collect();
    let total: usize = sizes.iter().map(|l| l.rsplit(' ').next().unwrap().parse::<usize>().unwrap()).sum();
    let vectors = s.indexes["corpus-blue"].len();
    assert_eq!(total, vectors, "each vector sent exactly once across both runs: {:?}", s.log);
    assert!(sizes.len() >= 4);
    assert_eq!(s.log.iter().filter(|l| l.starts_with("kv-put")).count(), 1);
    assert_eq!(s.log.last().unwrap(), "kv-put zico/current");
}

#[test]
fn a_target_needs_two_distinct_indexes() {
    let p = sample_project();
    let cfg = p.path().join("corpus.toml");
    let s = std::fs::read_to_string(&cfg).unwrap() + "\n[deploy.prod]\nindexes = [\"only\"]\nkv_namespace_id = \"ns1\"\n";
    std::fs::write(&cfg, s).unwrap();
    let o = run(bin().current_dir(p.path()).args(["deploy", "--target", "prod", "--dry-run"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("indexes must name two distinct Vectorize indexes"), "{}", stderr(&o));
}

#[test]
fn unknown_target_is_a_usage_error() {
    let p = project();
    let o = run(bin().current_dir(p.path()).args(["deploy", "--target", "nope", "--dry-run"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("known: prod"), "{}", stderr(&o));
}
