//! `askzico deploy` against a local stand-in for the Cloudflare REST API (tiny_http on
//! 127.0.0.1, random port) implementing the documented request and response shapes: Vectorize v2
//! upsert (multipart part `vectors`, NDJSON) / delete_by_ids / query / info, KV values and bulk
//! writes and reads.

mod common;
#[path = "deploy/query_target.rs"]
mod query_target;
#[path = "deploy/verify.rs"]
mod verify;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};

use common::*;
use serde_json::{Value, json};

const TOKEN: &str = "tok-Sup3rSecret-DoNotLeak-42";
const ACCOUNT: &str = "acc123";
const NS: &str = "ns1";
const POINTER: &str = "zico/current";
const TARGET: &str = "\n[deploy.prod]\naccount_id = \"acc123\"\nindexes = [\"corpus-blue\", \"corpus-green\"]\nkv_namespace_id = \"ns1\"\nprefix = \"zico/\"\n";

/// What a complete version is: its vectors (ID → the uploaded record) and KV pairs.
#[derive(Clone, Default)]
struct Expected {
    vectors: BTreeMap<String, Value>,
    kv: BTreeMap<String, String>,
}

/// The stand-in's storage: what Cloudflare would hold.
#[derive(Clone, Default)]
struct Store {
    kv: BTreeMap<String, String>,
    indexes: BTreeMap<String, BTreeMap<String, Value>>,
    last_mutation: BTreeMap<String, String>,
    mutations: usize,
}

#[derive(Default)]
struct State {
    store: Store,
    /// One entry per request: "upsert blue 12", "delete green 3", "info blue", "kv-bulk 40",
    /// "kv-delete 5", "kv-put zico/current", "kv-get zico/current", "get-by-ids green 4".
    log: Vec<String>,
    /// Per write request (upsert, delete, KV bulk write/delete): its request number and content.
    writes: Vec<(usize, String)>,
    problems: Vec<String>,
    /// Requests seen (every kind), numbering them from 1.
    requests: usize,
    /// `info` reports the previous mutation this many more times (Vectorize applies writes later).
    info_lag: usize,
    /// The next upserts answer 429 with this `Retry-After`.
    throttle_upserts: usize,
    retry_after: &'static str,
    /// Upserts answer 500 once this many have succeeded (a deploy dying mid-way).
    fail_upserts_after: Option<usize>,
    /// Bulk writes answer 500.
    fail_kv: bool,
    /// The next bulk write of more than two pairs reports its first two keys in
    /// `unsuccessful_keys` (and drops them).
    drop_bulk_keys: bool,
    /// The next request of a kind ("upsert", "kv-bulk", "get-by-ids") meets this fault.
    faults: Vec<(&'static str, Fault)>,
    /// `get_by_ids` answers with no vectors this many more times (an index that does not answer).
    blind_reads: usize,
    /// Every request of this kind (`echo_kind`) is answered with this status and body shape
    /// (`echo_body`), echoing the request's URL and headers (the Authorization included).
    echo: Option<(&'static str, u16, usize)>,
    /// Requests answered with an echo.
    echoed: usize,
    /// Every request of this kind is held, never answered (a server that accepts and hangs).
    hang: Option<&'static str>,
    /// Requests held unanswered.
    hung: usize,
    /// Request number at which the test kills the client (SIGKILL) while the request is in
    /// flight; `kill_applies`: the server applies it first.
    kill_at: Option<usize>,
    kill_applies: bool,
    /// Versions the pointer may name only when complete; checked when the pointer is written.
    expect: BTreeMap<String, Expected>,
    /// Every KV key read, once per read (a value get or a key of a bulk get).
    reads: Vec<String>,
    /// The next this many pairs of bulk writes are answered as stored and dropped (a store
    /// that loses values).
    lose_kv: usize,
    /// The next bulk write is answered `success` with `successful_key_count: 0` and nothing
    /// stored.
    short_count: bool,
    /// The next this many vector mutations are answered with a mutationId and never applied nor
    /// reported processed.
    lose_mutations: usize,
    /// The next this many upserted vectors are dropped, their mutation reported processed.
    drop_vectors: usize,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Fault {
    /// The connection is cut after the server applied the request (the client cannot know).
    CutApplied,
    /// The connection is cut before the server applied it.
    CutUnapplied,
    /// 502 Bad Gateway, nothing applied.
    BadGateway,
}

struct Reply {
    status: u16,
    body: String,
    headers: Vec<(&'static str, String)>,
}

fn reply(status: u16, body: String) -> Reply {
    Reply {
        status,
        body,
        headers: vec![],
    }
}

struct Mock {
    base: String,
    state: Arc<Mutex<State>>,
    /// The server sends the number of the request it holds for a kill; the test answers when the
    /// client is dead.
    reached: Mutex<mpsc::Receiver<usize>>,
    resume: mpsc::Sender<()>,
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

fn cf_error(code: u32, message: &str) -> String {
    json!({"success": false, "errors": [{"code": code, "message": message}], "messages": [], "result": null}).to_string()
}

/// The vector without `corpus_version`: an unchanged vector keeps the version that uploaded it.
fn content(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(m) = v.get_mut("metadata").and_then(Value::as_object_mut) {
        m.remove("corpus_version");
    }
    v
}

impl State {
    fn pointer(&self) -> Option<Value> {
        self.store
            .kv
            .get(POINTER)
            .map(|p| serde_json::from_str(p).unwrap())
    }

    fn write(&mut self, what: String) {
        let n = self.requests;
        self.writes.push((n, what));
    }

    /// A write into an index the pointer names is the one thing a deploy must never do.
    fn guard_live(&mut self, index: &str) {
        if self.pointer().is_some_and(|p| p["index"] == index) {
            self.problems.push(format!(
                "request {} wrote the live index {index}",
                self.requests
            ));
        }
    }

    /// When the pointer is written: the version it names must be complete in the index it names.
    fn check_flip(&mut self, body: &str) {
        let p: Value = serde_json::from_str(body).unwrap();
        let (v, index) = (
            p["version"].as_str().unwrap().to_string(),
            p["index"].as_str().unwrap().to_string(),
        );
        let held = self.store.indexes.get(&index).cloned().unwrap_or_default();
        for (id, rec) in &held {
            if !hydrates(&self.store.kv, &p, id, rec) {
                self.problems.push(format!(
                    "pointer flipped to {v} while vector {id} has no lookup key"
                ));
            }
        }
        if let Some(e) = self.expect.get(&v) {
            let same = held.len() == e.vectors.len()
                && e.vectors
                    .iter()
                    .all(|(id, rec)| held.get(id).is_some_and(|h| content(h) == content(rec)));
            if !same {
                self.problems.push(format!(
                    "pointer flipped to {v} on {index}, which does not hold exactly its vectors"
                ));
            }
            if let Some((k, _)) =
                e.kv.iter()
                    .find(|(k, val)| self.store.kv.get(*k) != Some(*val))
            {
                self.problems.push(format!(
                    "pointer flipped to {v} while {k} is missing or different"
                ));
            }
        }
    }

    fn fault(&mut self, kind: &str) -> Option<Fault> {
        let i = self.faults.iter().position(|(k, _)| *k == kind)?;
        Some(self.faults.remove(i).1)
    }

    fn kv(&mut self, method: &str, rest: &str, ctype: &str, body: &str) -> Reply {
        if let Some(key) = rest.strip_prefix("values/") {
            let key = decode(key);
            if method == "GET" {
                self.log.push(format!("kv-get {key}"));
                self.reads.push(key.clone());
                return match self.store.kv.get(&key) {
                    Some(v) => reply(200, v.clone()),
                    None => reply(404, cf_error(10009, "get: 'key not found'")),
                };
            }
            self.log.push(format!("kv-put {key}"));
            if key == POINTER {
                self.check_flip(body);
            }
            self.store.kv.insert(key, body.to_string());
            return reply(200, ok(Value::Null));
        }
        if !ctype.starts_with("application/json") {
            self.problems.push(format!("{rest}: content type {ctype}"));
        }
        match (method, rest) {
            ("PUT", "bulk") => {
                let pairs: Vec<Value> = serde_json::from_str(body).unwrap();
                if pairs.len() > 10_000 || body.len() > 100_000_000 {
                    self.problems.push("bulk over limits".into());
                }
                if self.fail_kv {
                    self.log.push("kv-bulk-500".into());
                    return reply(500, cf_error(10001, "internal"));
                }
                self.log.push(format!("kv-bulk {}", pairs.len()));
                let keys: Vec<&str> = pairs.iter().map(|p| p["key"].as_str().unwrap()).collect();
                self.write(format!("kv-bulk {keys:?}"));
                if std::mem::take(&mut self.short_count) {
                    self.log.push("kv-bulk-short".into());
                    return reply(
                        200,
                        ok(json!({"successful_key_count": 0, "unsuccessful_keys": []})),
                    );
                }
                let lost = self.lose_kv.min(pairs.len());
                self.lose_kv -= lost;
                if lost > 0 {
                    self.log.push(format!("kv-bulk-lost {lost}"));
                }
                let dropped: Vec<String> =
                    if pairs.len() > 2 && std::mem::take(&mut self.drop_bulk_keys) {
                        keys.iter().take(2).map(|k| k.to_string()).collect()
                    } else {
                        vec![]
                    };
                for p in &pairs[lost..] {
                    let k = p["key"].as_str().unwrap();
                    if !dropped.iter().any(|d| d == k) {
                        self.store
                            .kv
                            .insert(k.into(), p["value"].as_str().unwrap().into());
                    }
                }
                reply(
                    200,
                    ok(
                        json!({"successful_key_count": pairs.len() - dropped.len(), "unsuccessful_keys": dropped}),
                    ),
                )
            }
            ("POST", "bulk/get") => {
                let body: Value = serde_json::from_str(body).unwrap();
                let keys = body["keys"].as_array().unwrap();
                if keys.len() > 100 {
                    self.problems.push("bulk get over 100 keys".into());
                }
                self.log.push(format!("kv-bulk-get {}", keys.len()));
                self.reads
                    .extend(keys.iter().map(|k| k.as_str().unwrap().to_string()));
                let values: serde_json::Map<String, Value> = keys
                    .iter()
                    .map(|k| {
                        let k = k.as_str().unwrap();
                        let v = self
                            .store
                            .kv
                            .get(k)
                            .map_or(Value::Null, |v| json!({"value": v}));
                        (k.to_string(), v)
                    })
                    .collect();
                reply(200, ok(json!({"values": values})))
            }
            ("POST", "bulk/delete") => {
                let keys: Vec<String> = serde_json::from_str(body).unwrap();
                if keys.len() > 10_000 {
                    self.problems.push("bulk delete over 10,000 keys".into());
                }
                self.log.push(format!("kv-delete {}", keys.len()));
                self.write(format!("kv-delete {keys:?}"));
                for k in &keys {
                    if k == POINTER {
                        self.problems.push("GC deleted the pointer".into());
                    }
                    self.store.kv.remove(k);
                }
                reply(
                    200,
                    ok(json!({"successful_key_count": keys.len(), "unsuccessful_keys": []})),
                )
            }
            _ => {
                self.log.push(format!("kv-unknown {method} {rest}"));
                reply(404, cf_error(10000, "no such route"))
            }
        }
    }

    fn vectorize(&mut self, method: &str, rest: &str, url: &str, ctype: &str, body: &str) -> Reply {
        let (index, op) = rest.split_once('/').unwrap();
        let index = index.to_string();
        let op = op.split('?').next().unwrap();
        let mutation = |s: &mut State, index: String| {
            s.store.mutations += 1;
            let m = format!("mut-{:04}", s.store.mutations);
            s.store.last_mutation.insert(index, m.clone());
            reply(200, ok(json!({"mutationId": m})))
        };
        if matches!((method, op), ("POST", "upsert" | "delete_by_ids")) && self.lose_mutations > 0 {
            self.lose_mutations -= 1;
            self.store.mutations += 1;
            let m = format!("mut-{:04}", self.store.mutations);
            self.log.push(format!("{op}-lost {index}"));
            return reply(200, ok(json!({"mutationId": m})));
        }
        match (method, op) {
            ("POST", "upsert") if self.throttle_upserts > 0 => {
                self.throttle_upserts -= 1;
                self.log.push("upsert-429".into());
                let mut r = reply(429, cf_error(971, "rate limited"));
                r.headers
                    .push(("Retry-After", self.retry_after.to_string()));
                r
            }
            ("POST", "upsert")
                if self.fail_upserts_after.is_some_and(|n| {
                    self.log.iter().filter(|l| l.starts_with("upsert ")).count() >= n
                }) =>
            {
                self.log.push("upsert-500".into());
                reply(500, cf_error(10001, "internal"))
            }
            ("POST", "upsert") => {
                if !ctype.starts_with("multipart/form-data; boundary=")
                    || !url.contains("unparsable-behavior=error")
                {
                    self.problems.push(format!("upsert content type {ctype}"));
                }
                if !body.contains("name=\"vectors\"")
                    || !body.contains("Content-Type: application/x-ndjson")
                {
                    self.problems.push("no vectors part".into());
                }
                let start = body.find("\r\n\r\n").unwrap() + 4;
                let end = body.rfind("\r\n--").unwrap();
                let lines: Vec<Value> = body[start..end]
                    .lines()
                    .map(|l| serde_json::from_str(l).unwrap())
                    .collect();
                if lines.len() > 1000 {
                    self.problems.push("upsert over 1000".into());
                }
                self.log.push(format!("upsert {index} {}", lines.len()));
                self.guard_live(&index);
                self.write(format!(
                    "upsert {index} {:?}",
                    lines
                        .iter()
                        .map(|l| l["id"].as_str().unwrap())
                        .collect::<Vec<_>>()
                ));
                let dropped = self.drop_vectors.min(lines.len());
                self.drop_vectors -= dropped;
                for l in lines.into_iter().skip(dropped) {
                    if l["metadata"]["corpus_version"].as_str().is_none() {
                        self.problems.push("no corpus_version".into());
                    }
                    self.store
                        .indexes
                        .entry(index.clone())
                        .or_default()
                        .insert(l["id"].as_str().unwrap().into(), l);
                }
                mutation(self, index)
            }
            ("POST", "delete_by_ids") => {
                let ids: Value = serde_json::from_str(body).unwrap();
                let ids = ids["ids"].as_array().unwrap();
                self.log.push(format!("delete {index} {}", ids.len()));
                self.guard_live(&index);
                self.write(format!("delete {index} {ids:?}"));
                for id in ids {
                    self.store
                        .indexes
                        .entry(index.clone())
                        .or_default()
                        .remove(id.as_str().unwrap());
                }
                mutation(self, index)
            }
            ("POST", "get_by_ids") => {
                let ids: Value = serde_json::from_str(body).unwrap();
                let ids = ids["ids"].as_array().unwrap();
                self.log.push(format!("get-by-ids {index} {}", ids.len()));
                if self.blind_reads > 0 {
                    self.blind_reads -= 1;
                    return reply(200, ok(json!([])));
                }
                let held = self.store.indexes.get(&index);
                let found: Vec<Value> = ids
                    .iter()
                    .filter_map(|id| held.and_then(|h| h.get(id.as_str().unwrap())).cloned())
                    .collect();
                reply(200, ok(json!(found)))
            }
            ("GET", "list") => {
                // Pages of at most 7 IDs, to exercise the cursor.
                let q = rest.split_once('?').map_or("", |(_, q)| q);
                let cursor = q
                    .split('&')
                    .find_map(|kv| kv.strip_prefix("cursor="))
                    .map(decode)
                    .unwrap_or_default();
                let all = self.store.indexes.get(&index).cloned().unwrap_or_default();
                let ids: Vec<String> = all
                    .keys()
                    .filter(|k| **k > cursor)
                    .take(7)
                    .cloned()
                    .collect();
                let more = ids.len() == 7 && all.keys().any(|k| k > ids.last().unwrap());
                self.log.push(format!("list {index}"));
                reply(
                    200,
                    ok(
                        json!({"count": ids.len(), "totalCount": all.len(), "isTruncated": more, "nextCursor": if more { json!(ids.last().unwrap()) } else { Value::Null },
                                     "vectors": ids.iter().map(|i| json!({"id": i})).collect::<Vec<_>>()}),
                    ),
                )
            }
            ("POST", "query") => {
                // Cosine over the index's vectors, best first (score, then ID), `topK` of them.
                let q: Value = serde_json::from_str(body).unwrap();
                let top_k = q["topK"].as_u64().unwrap() as usize;
                let with_metadata = q["returnMetadata"] == "all";
                if top_k > if with_metadata { 50 } else { 100 } || q["returnValues"] == true {
                    self.problems
                        .push(format!("query topK {top_k} over the limit"));
                }
                let qv: Vec<f64> = q["vector"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect();
                let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
                self.log.push(format!("query {index} {top_k}"));
                let none = Default::default();
                let held = self.store.indexes.get(&index).unwrap_or(&none);
                let mut matches: Vec<(f64, String, Value)> = held
                    .iter()
                    .map(|(id, v)| {
                        let vals: Vec<f64> = v["values"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|x| x.as_f64().unwrap())
                            .collect();
                        let dot: f64 = vals.iter().zip(&qv).map(|(a, b)| a * b).sum();
                        let n = norm(&vals) * norm(&qv);
                        (
                            if n > 0.0 { dot / n } else { 0.0 },
                            id.clone(),
                            v["metadata"].clone(),
                        )
                    })
                    .collect();
                matches.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
                matches.truncate(top_k);
                let matches: Vec<Value> = matches
                    .into_iter()
                    .map(|(score, id, metadata)| {
                        if with_metadata {
                            json!({"id": id, "score": score, "metadata": metadata})
                        } else {
                            json!({"id": id, "score": score})
                        }
                    })
                    .collect();
                reply(200, ok(json!({"count": matches.len(), "matches": matches})))
            }
            ("GET", "info") => {
                self.log.push(format!("info {index}"));
                let n = self.store.indexes.get(&index).map_or(0, |i| i.len());
                let processed = if self.info_lag > 0 {
                    self.info_lag -= 1;
                    self.log.push("info-lagging".into());
                    json!("mut-older")
                } else {
                    json!(self.store.last_mutation.get(&index))
                };
                reply(
                    200,
                    ok(
                        json!({"dimensions": 256, "vectorCount": n, "processedUpToMutation": processed, "processedUpToDatetime": "2026-11-29T00:00:00Z"}),
                    ),
                )
            }
            _ => reply(404, cf_error(10000, "no such route")),
        }
    }

    fn handle(&mut self, method: &str, url: &str, auth: &str, ctype: &str, body: &str) -> Reply {
        if auth != format!("Bearer {TOKEN}") {
            self.problems.push(format!("bad auth on {url}"));
        }
        let kv_prefix = format!("/client/v4/accounts/{ACCOUNT}/storage/kv/namespaces/{NS}/");
        let vz_prefix = format!("/client/v4/accounts/{ACCOUNT}/vectorize/v2/indexes/");
        let r = if let Some(rest) = url.strip_prefix(&kv_prefix) {
            self.kv(method, rest, ctype, body)
        } else if let Some(rest) = url.strip_prefix(&vz_prefix) {
            self.vectorize(method, rest, url, ctype, body)
        } else {
            reply(404, cf_error(10000, "no such route"))
        };
        self.check_live();
        r
    }

    /// After every request: the version the pointer names stays fully hydratable (every vector
    /// of its index, and for layout 2 every key its key table names).
    fn check_live(&mut self) {
        let Some(p) = self.pointer() else { return };
        let index = p["index"].as_str().unwrap_or("").to_string();
        let kv = &self.store.kv;
        let mut bad: Vec<String> = self
            .store
            .indexes
            .get(&index)
            .into_iter()
            .flatten()
            .filter(|(id, rec)| !hydrates(kv, &p, id, rec))
            .map(|(id, _)| format!("vector {id}"))
            .take(1)
            .collect();
        if p.get("layout")
            .and_then(Value::as_u64)
            .is_some_and(|l| l >= 2)
        {
            let v = p["version"].as_str().unwrap();
            bad.extend(missing_named(kv, v).into_iter().take(1));
        }
        if let Some(b) = bad.first() {
            let n = self.requests;
            self.problems
                .push(format!("after request {n}: the live version lacks {b}"));
        }
    }
}

/// Keys a layout-2 version's key table names (directly or through its record tables) that KV
/// lacks.
/// Removes the first KV key under `prefix` from the test server's store, and returns it.
fn remove_first_kv(m: &Mock, prefix: &str) -> String {
    let mut s = m.state.lock().unwrap();
    let k = s
        .store
        .kv
        .keys()
        .find(|k| k.starts_with(prefix))
        .unwrap()
        .clone();
    s.store.kv.remove(&k);
    k
}

fn missing_named(kv: &BTreeMap<String, String>, v: &str) -> Vec<String> {
    let Some(t) = kv.get(&format!("zico/{v}/tables")) else {
        return vec![format!("zico/{v}/tables")];
    };
    let t: Value = serde_json::from_str(t).unwrap();
    let mut want = Vec::new();
    for h in t["records"].as_object().unwrap().values() {
        let key = format!("zico/t/{}", h.as_str().unwrap());
        if let Some(table) = kv.get(&key) {
            let table: BTreeMap<String, String> = serde_json::from_str(table).unwrap();
            want.extend(table.values().map(|r| format!("zico/r/{r}")));
        }
        want.push(key);
    }
    for h in t["docs"].as_object().into_iter().flat_map(|d| d.values()) {
        want.push(format!("zico/d/{}", h.as_str().unwrap()));
    }
    for l in t["lexical"].as_object().unwrap().values() {
        want.push(format!("zico/l/{}", l["meta"].as_str().unwrap()));
        for h in l["shards"].as_array().unwrap() {
            want.push(format!("zico/l/{}", h.as_str().unwrap()));
        }
    }
    want.extend(keys_of_settings(&t));
    want.into_iter().filter(|k| !kv.contains_key(k)).collect()
}

/// Which `cut` kind a request is.
fn kind_of(method: &str, url: &str) -> &'static str {
    if url.contains("/upsert") {
        "upsert"
    } else if url.ends_with("/bulk") && method == "PUT" {
        "kv-bulk"
    } else if url.contains("/get_by_ids") {
        "get-by-ids"
    } else {
        "other"
    }
}

/// The request kinds the echo and hang settings name.
fn echo_kind(method: &str, url: &str) -> &'static str {
    let path = url.split('?').next().unwrap_or(url);
    match (method, path.rsplit('/').next().unwrap_or("")) {
        _ if path.contains("/values/") => {
            if method == "GET" {
                "kv-get"
            } else {
                "kv-put"
            }
        }
        ("PUT", "bulk") => "kv-bulk",
        ("POST", "delete") => "kv-delete",
        (_, "upsert") => "upsert",
        (_, "delete_by_ids") => "delete",
        (_, "get_by_ids") => "get-by-ids",
        (_, "list") => "list",
        (_, "info") => "info",
        _ => "other",
    }
}

/// The body shapes a client meets, `shape` of them, each carrying `echo`: a v4 error envelope,
/// success envelopes whose `result` has the wrong shape, `success` missing, plain text, HTML,
/// an empty body.
const ECHO_SHAPES: usize = 7;
fn echo_body(shape: usize, echo: &str) -> String {
    let e = json!(echo);
    match shape {
        0 => json!({"success": false, "errors": [{"code": 10000, "message": e}], "messages": [], "result": null}).to_string(),
        1 => json!({"success": true, "errors": [], "result": e}).to_string(),
        2 => json!({"success": true, "errors": [], "result": {"mutationId": e, "processedUpToMutation": e, "unsuccessful_keys": [e], "vectors": [{"id": e}], "echo": e}}).to_string(),
        3 => json!({"result": [{"id": e, "metadata": {"corpus_version": e}}], "echo": e}).to_string(),
        4 => echo.to_string(),
        5 => format!("<html><body><h1>Bad Gateway</h1><pre>{echo}</pre></body></html>"),
        _ => String::new(),
    }
}

/// Marks a response the proxy must not deliver: it closes the client's connection instead.
const CUT: &str = "X-Mock-Cut-Connection";

/// A TCP relay in front of tiny_http (which always answers): it cuts a connection where the
/// server marked the response, so the client sees the connection drop mid-request.
fn relay(backend: std::net::SocketAddr) -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { continue };
            let Ok(server) = std::net::TcpStream::connect(backend) else {
                continue;
            };
            let (mut from_client, mut to_server) =
                (client.try_clone().unwrap(), server.try_clone().unwrap());
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut from_client, &mut to_server);
                let _ = to_server.shutdown(std::net::Shutdown::Write);
            });
            let (mut from_server, mut to_client) = (server, client);
            std::thread::spawn(move || {
                let mut buf = vec![0u8; 1 << 16];
                loop {
                    let n = match from_server.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    if buf[..n]
                        .windows(CUT.len())
                        .any(|w| w.eq_ignore_ascii_case(CUT.as_bytes()))
                    {
                        break;
                    }
                    if to_client.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
                let _ = to_client.shutdown(std::net::Shutdown::Both);
                let _ = from_server.shutdown(std::net::Shutdown::Both);
            });
        }
    });
    port
}

fn mock_from(store: Store) -> Mock {
    let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
    let backend = server.server_addr().to_ip().unwrap();
    let state = Arc::new(Mutex::new(State {
        store,
        retry_after: "0",
        ..State::default()
    }));
    let (reached_tx, reached) = mpsc::channel();
    let (resume, resume_rx) = mpsc::channel::<()>();
    let st = state.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for mut rq in server.incoming_requests() {
            let url = rq.url().to_string();
            let method = rq.method().to_string();
            let kind = echo_kind(&method, &url);
            {
                let mut s = st.lock().unwrap();
                if s.hang == Some(kind) {
                    s.hung += 1;
                    held.push(rq);
                    continue;
                }
                if let Some((_, status, shape)) = s.echo.filter(|(k, _, _)| *k == kind) {
                    s.echoed += 1;
                    drop(s);
                    let mut echo = format!("{method} {url}");
                    for h in rq.headers() {
                        echo.push_str(&format!("\n{}: {}", h.field, h.value));
                    }
                    let mut resp = tiny_http::Response::from_string(echo_body(shape, &echo))
                        .with_status_code(status);
                    resp.add_header(tiny_http::Header::from_bytes("Retry-After", "0").unwrap());
                    let _ = rq.respond(resp);
                    continue;
                }
            }
            let header = |n: &'static str| {
                rq.headers()
                    .iter()
                    .find(|h| h.field.equiv(n))
                    .map(|h| h.value.as_str().to_string())
                    .unwrap_or_default()
            };
            let (auth, ctype) = (header("Authorization"), header("Content-Type"));
            let mut body = String::new();
            let _ = std::io::Read::read_to_string(rq.as_reader(), &mut body);
            let mut s = st.lock().unwrap();
            s.requests += 1;
            let n = s.requests;
            let kill = s.kill_at == Some(n);
            let fault = s.fault(kind_of(&method, &url));
            let r = match fault {
                _ if kill && !s.kill_applies => None,
                Some(Fault::CutUnapplied) => None,
                Some(Fault::BadGateway) => {
                    s.log.push(format!("502 {}", kind_of(&method, &url)));
                    Some(reply(502, cf_error(10002, "bad gateway")))
                }
                _ => Some(s.handle(&method, &url, &auth, &ctype, &body)),
            };
            let cut = matches!(fault, Some(Fault::CutApplied | Fault::CutUnapplied));
            drop(s);
            if kill {
                // Hold the request until the test has killed the client.
                reached_tx.send(n).unwrap();
                let _ = resume_rx.recv();
            }
            let mut resp = match r {
                Some(r) => {
                    let mut resp =
                        tiny_http::Response::from_string(r.body).with_status_code(r.status);
                    for (k, v) in r.headers {
                        resp.add_header(tiny_http::Header::from_bytes(k, v).unwrap());
                    }
                    resp
                }
                None => tiny_http::Response::from_string(String::new()).with_status_code(500),
            };
            if cut {
                resp.add_header(tiny_http::Header::from_bytes(CUT, "1").unwrap());
            }
            let _ = rq.respond(resp);
        }
    });
    let port = relay(backend);
    Mock {
        base: format!("http://127.0.0.1:{port}/client/v4"),
        state,
        reached: Mutex::new(reached),
        resume,
    }
}

fn mock() -> Mock {
    mock_from(Store::default())
}

/// After any successful deploy: every vector ID of the active version has its lookup key, and the
/// server saw nothing wrong.
fn assert_consistent(m: &Mock) {
    let s = m.state.lock().unwrap();
    assert!(s.problems.is_empty(), "{:?}", s.problems);
    let p = s.pointer().expect("a pointer");
    let (v, index) = (p["version"].as_str().unwrap(), p["index"].as_str().unwrap());
    let held = &s.store.indexes[index];
    assert!(!held.is_empty());
    for (id, rec) in held {
        assert!(
            hydrates(&s.store.kv, &p, id, rec),
            "active vector {id} of {v} has no lookup record"
        );
    }
    assert!(s.store.kv.contains_key(&format!("zico/{v}/manifest")));
}

/// Whether a runtime reading `pointer` hydrates vector `id` (as the index holds it) in one KV
/// read: layouts 2 to 5 from the record hash in its metadata, layout 1 from its version's
/// chunk key.
fn hydrates(kv: &BTreeMap<String, String>, pointer: &Value, id: &str, rec: &Value) -> bool {
    let v = pointer["version"].as_str().unwrap();
    match pointer.get("layout") {
        Some(l) if l.as_u64().is_some_and(|l| (2..=5).contains(&l)) => {
            kv.contains_key(&format!("zico/{v}/tables"))
                && rec["metadata"]["record"]
                    .as_str()
                    .is_some_and(|h| kv.contains_key(&format!("zico/r/{h}")))
        }
        _ => kv.contains_key(&format!("zico/{v}/chunk/{id}")),
    }
}

/// The KV keys of layout 5 a version's key table names (its record tables read from `kv`).
fn named_keys(kv: &BTreeMap<String, String>, v: &str) -> BTreeSet<String> {
    let t: Value = serde_json::from_str(&kv[&format!("zico/{v}/tables")]).unwrap();
    assert_eq!(t["layout"], 5);
    keys_of_settings(&t).for_each(|k| {
        assert!(kv.contains_key(&k), "{k}");
    });
    let mut keys = BTreeSet::new();
    for h in t["records"].as_object().unwrap().values() {
        let key = format!("zico/t/{}", h.as_str().unwrap());
        let table: BTreeMap<String, String> = serde_json::from_str(&kv[&key]).unwrap();
        keys.extend(table.values().map(|r| format!("zico/r/{r}")));
        keys.insert(key);
    }
    for h in t["docs"].as_object().into_iter().flat_map(|d| d.values()) {
        keys.insert(format!("zico/d/{}", h.as_str().unwrap()));
    }
    for l in t["lexical"].as_object().unwrap().values() {
        keys.insert(format!("zico/l/{}", l["meta"].as_str().unwrap()));
        for h in l["shards"].as_array().unwrap() {
            keys.insert(format!("zico/l/{}", h.as_str().unwrap()));
        }
    }
    keys.extend(keys_of_settings(&t));
    keys
}

/// The query settings key a key table names.
fn keys_of_settings(t: &Value) -> impl Iterator<Item = String> {
    t["settings"]
        .as_str()
        .map(|h| format!("zico/s/{h}"))
        .into_iter()
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
    deploy_with(dir, mock, extra, &[])
}

fn deploy_with(
    dir: &Path,
    mock: Option<&Mock>,
    extra: &[&str],
    env: &[(&str, &str)],
) -> std::process::Output {
    let mut cmd = bin();
    cmd.current_dir(dir)
        .args(["deploy", "--target", "prod"])
        .args(extra);
    cmd.env_remove("CLOUDFLARE_API_TOKEN")
        .env_remove("CLOUDFLARE_ACCOUNT_ID");
    if let Some(m) = mock {
        cmd.env("CLOUDFLARE_API_TOKEN", TOKEN)
            .env("ASKZICO_CF_API_BASE", &m.base)
            .env("ASKZICO_DEPLOY_MAX_ATTEMPTS", "2")
            .env("ASKZICO_DEPLOY_RETRY_MS", "1");
    }
    cmd.envs(env.iter().copied());
    let o = run(&mut cmd);
    assert!(
        !stdout(&o).contains(TOKEN) && !stderr(&o).contains(TOKEN),
        "the token leaked"
    );
    o
}

/// The `kv: N writes` count of a printed plan.
fn report_count(out: &str) -> usize {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("kv: "))
        .expect("a plan line `kv: N writes`");
    line.trim_start()[4..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

fn journal(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("out/cache/deploy/prod.json")).unwrap_or_default()
}

fn version(dir: &Path) -> String {
    manifest(&dir.join("out"))["corpus_version"]
        .as_str()
        .unwrap()
        .to_string()
}

fn dry_run_without_credentials_plans_against_the_journal_within_limits() {
    let p = project();
    let o = deploy(p.path(), None, &["--dry-run", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no CLOUDFLARE_API_TOKEN: planning against the local deploy journal"),
        "{}",
        stderr(&o)
    );
    let plan: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(plan["to"]["index"], "corpus-blue");
    assert_eq!(plan["to"]["version"], version(p.path()).as_str());
    assert_eq!(plan["from"], Value::Null);
    let vectors = plan["vectors"]["upsert"].as_u64().unwrap();
    assert!(vectors >= 12);
    for b in plan["vectors"]["upsert_batches"].as_array().unwrap() {
        assert!(
            b["vectors"].as_u64().unwrap() <= 1000 && b["bytes"].as_u64().unwrap() < 100_000_000
        );
    }
    for b in plan["kv"]["batches"].as_array().unwrap() {
        assert!(
            b["pairs"].as_u64().unwrap() <= 10_000 && b["bytes"].as_u64().unwrap() <= 100_000_000
        );
    }
    assert!(
        plan["kv"]["writes"].as_u64().unwrap() > vectors,
        "lookup records, lexical shards and the manifest"
    );
    // Human form; nothing written without credentials.
    let o = deploy(p.path(), None, &["--dry-run"]);
    assert!(
        stdout(&o).contains("switch: nothing deployed -> "),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("upsert batch 1: "));
    let o = deploy(p.path(), None, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("needs CLOUDFLARE_API_TOKEN"));
    assert!(journal(p.path()).is_empty());
}

fn full_deploy_writes_vectors_then_kv_then_the_pointer_last_and_flips_blue_green() {
    let p = project();
    let m = mock();
    {
        let mut s = m.state.lock().unwrap();
        s.info_lag = 2;
        s.throttle_upserts = 1;
        s.retry_after = "1";
        s.drop_bulk_keys = true;
    }
    let o = deploy(p.path(), Some(&m), &[]);
    assert!(o.status.success(), "{}\n{}", stdout(&o), stderr(&o));
    // Retry-After: 1 is honoured (the configured backoff is 1 ms).
    assert!(
        stderr(&o).contains("HTTP 429: rate limited (code 971); retrying in 1.0s"),
        "{}",
        stderr(&o)
    );
    assert_consistent(&m);
    let v1 = version(p.path());
    let log = { m.state.lock().unwrap().log.clone() };
    let s = m.state.lock().unwrap();
    assert_eq!(
        log.iter().filter(|l| *l == "info-lagging").count(),
        2,
        "the deploy waits for the last mutation: {log:?}"
    );
    assert_eq!(
        &log[..4],
        [
            "kv-get zico/current",
            "kv-get zico/versions",
            "list corpus-blue",
            "kv-put zico/versions"
        ],
        "the registry claims the index first: {log:?}"
    );
    assert!(
        log.contains(&"kv-bulk 2".to_string()),
        "unsuccessful_keys are retried: {log:?}"
    );
    assert_eq!(log.last().unwrap(), "kv-put zico/current");
    let last_vec = log
        .iter()
        .rposition(|l| l.starts_with("upsert") || l.starts_with("delete") || l.starts_with("info"))
        .unwrap();
    let first_kv = log.iter().position(|l| l.starts_with("kv-bulk")).unwrap();
    assert!(last_vec < first_kv, "{log:?}");
    // The manifest and key table are stored first, then the record tables, then the records
    // and shards they name.
    assert_eq!(log[first_kv], "kv-bulk 2", "{log:?}");
    let check = log
        .iter()
        .rposition(|l| l.starts_with("get-by-ids corpus-blue "))
        .expect("a check query before the flip");
    assert!(
        check > log.iter().rposition(|l| l.starts_with("kv-bulk")).unwrap()
            && check < log.len() - 1,
        "{log:?}"
    );
    let registry: Value = serde_json::from_str(&s.store.kv["zico/versions"]).unwrap();
    assert_eq!(
        registry,
        json!({"versions": [v1], "indexes": {"corpus-blue": v1}, "complete": [v1]})
    );
    let named = named_keys(&s.store.kv, &v1);
    assert!(named.iter().all(|k| s.store.kv.contains_key(k)));
    assert!(
        log.iter()
            .filter(|l| l.starts_with("upsert "))
            .all(|l| l.starts_with("upsert corpus-blue ")),
        "{log:?}"
    );
    assert_eq!(
        log.iter().filter(|l| *l == "kv-put zico/current").count(),
        1
    );
    let pointer: Value = serde_json::from_str(&s.store.kv["zico/current"]).unwrap();
    assert_eq!(
        pointer,
        json!({"version": v1, "index": "corpus-blue", "layout": 5})
    );
    assert!(s.store.kv.contains_key(&format!("zico/{v1}/manifest")));
    assert!(named.iter().any(|k| k.starts_with("zico/r/")));
    assert!(named.iter().any(|k| k.starts_with("zico/l/")));
    let kv_written = report_count(&stdout(&o));
    assert_eq!(
        named.len() + 2 + 3,
        kv_written,
        "every planned pair is stored: the values, the manifest and key table, the registry twice and the pointer"
    );
    assert_eq!(s.store.kv.len(), named.len() + 2 + 2);
    let blue = s.store.indexes["corpus-blue"].len();
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
        let green = s.store.indexes.entry("corpus-green".into()).or_default();
        for i in 0..9 {
            green.insert(format!("stray:{i}"), json!({}));
        }
    }
    let o = deploy(p.path(), Some(&m), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = m.state.lock().unwrap();
    assert!(
        s.log
            .iter()
            .filter(|l| l.starts_with("upsert ") || l.starts_with("delete "))
            .all(|l| l.contains("corpus-green")),
        "{:?}",
        s.log
    );
    assert!(
        s.log
            .iter()
            .filter(|l| l.starts_with("list corpus-green"))
            .count()
            >= 2,
        "{:?}",
        s.log
    );
    drop(s);
    assert_consistent(&m);
    let s = m.state.lock().unwrap();
    assert!(
        s.log.contains(&"delete corpus-green 9".to_string()),
        "{:?}",
        s.log
    );
    assert!(
        !s.store.indexes["corpus-green"]
            .keys()
            .any(|k| k.starts_with("stray:"))
    );
    assert_eq!(s.store.indexes["corpus-blue"].len(), blue);
    assert_eq!(s.log.last().unwrap(), "kv-put zico/current");
    let pointer: Value = serde_json::from_str(&s.store.kv["zico/current"]).unwrap();
    assert_eq!(
        pointer,
        json!({"version": v2, "index": "corpus-green", "layout": 5})
    );
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
    assert_consistent(&m);
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(report["checked_ids"].as_u64().unwrap() >= 2, "{report}");
    assert!(
        report["plan"]["vectors"]["delete"].as_u64().unwrap() >= 1,
        "{report}"
    );
    assert!(
        report["plan"]["vectors"]["unchanged"].as_u64().unwrap() >= 1,
        "{report}"
    );
    let s = m.state.lock().unwrap();
    assert!(
        s.log.iter().any(|l| l.starts_with("delete corpus-blue ")),
        "{:?}",
        s.log
    );
    assert!(
        s.log
            .iter()
            .filter(|l| l.starts_with("upsert ") || l.starts_with("delete "))
            .all(|l| l.contains("corpus-blue")),
        "{:?}",
        s.log
    );
    assert!(
        !s.store.indexes["corpus-blue"]
            .keys()
            .any(|k| k.starts_with("articles:nile")),
        "{:?}",
        s.store.indexes["corpus-blue"].keys()
    );
    let pointer: Value = serde_json::from_str(&s.store.kv["zico/current"]).unwrap();
    assert_eq!(
        pointer,
        json!({"version": v3, "index": "corpus-blue", "layout": 5})
    );
}

fn an_interrupted_deploy_resumes_without_resending_and_flips_the_pointer_once() {
    let p = project();
    let m = mock();
    m.state.lock().unwrap().fail_kv = true;
    let o = deploy(p.path(), Some(&m), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stderr(&o).contains("KV bulk batch 1/"), "{}", stderr(&o));
    let upserts_before = {
        let s = m.state.lock().unwrap();
        assert!(
            !s.store.kv.contains_key("zico/current"),
            "the pointer must not be written before everything else"
        );
        assert!(!s.log.iter().any(|l| l == "kv-put zico/current"));
        s.log.iter().filter(|l| l.starts_with("upsert")).count()
    };
    assert!(upserts_before >= 1);
    let j = journal(p.path());
    assert!(j.contains("\"pending\"") && !j.contains(TOKEN), "{j}");

    m.state.lock().unwrap().fail_kv = false;
    let o = deploy(p.path(), Some(&m), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("resuming the unfinished deploy"),
        "{}",
        stderr(&o)
    );
    assert_consistent(&m);
    let s = m.state.lock().unwrap();
    assert_eq!(
        s.log.iter().filter(|l| l.starts_with("upsert")).count(),
        upserts_before,
        "confirmed upserts were re-sent: {:?}",
        s.log
    );
    assert_eq!(
        s.log.iter().filter(|l| *l == "kv-put zico/current").count(),
        1
    );
    assert_eq!(s.log.last().unwrap(), "kv-put zico/current");
    let pointer: Value = serde_json::from_str(&s.store.kv["zico/current"]).unwrap();
    assert_eq!(pointer["index"], "corpus-blue");
    assert!(!journal(p.path()).contains("\"pending\": {"));
}

fn an_over_limit_plan_is_refused_before_anything_is_sent() {
    common::test_hooks();
    let p = project();
    let m = mock();
    let mut cmd = bin();
    cmd.current_dir(p.path())
        .args(["deploy", "--target", "prod"])
        .env("CLOUDFLARE_API_TOKEN", TOKEN)
        .env("ASKZICO_CF_API_BASE", &m.base)
        .env("ASKZICO_DEPLOY_MAX_METADATA_BYTES", "40");
    let o = run(&mut cmd);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("deploy refused") && stderr(&o).contains("metadata of vector"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains(TOKEN));
    let s = m.state.lock().unwrap();
    assert!(
        s.log
            .iter()
            .all(|l| l.starts_with("kv-get") || l.starts_with("list ")),
        "only reads: {:?}",
        s.log
    );
}

fn a_deploy_dying_mid_upsert_resumes_from_the_next_batch() {
    common::test_hooks();
    let p = project();
    let m = mock();
    m.state.lock().unwrap().fail_upserts_after = Some(2);
    let small = |o: &mut assert_cmd::Command| {
        o.env("ASKZICO_DEPLOY_MAX_UPSERT_VECTORS", "4");
    };
    let mut cmd = bin();
    cmd.current_dir(p.path())
        .args(["deploy", "--target", "prod"])
        .env("CLOUDFLARE_API_TOKEN", TOKEN)
        .env("ASKZICO_CF_API_BASE", &m.base)
        .env("ASKZICO_DEPLOY_MAX_ATTEMPTS", "2")
        .env("ASKZICO_DEPLOY_RETRY_MS", "1");
    small(&mut cmd);
    let o = run(&mut cmd);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("upsert batch 3/"), "{}", stderr(&o));
    assert!(!stderr(&o).contains(TOKEN) && !journal(p.path()).contains(TOKEN));
    {
        let mut s = m.state.lock().unwrap();
        assert!(
            !s.log
                .iter()
                .any(|l| l.starts_with("kv-bulk") || l == "kv-put zico/current"),
            "{:?}",
            s.log
        );
        s.fail_upserts_after = None;
    }
    let mut cmd = bin();
    cmd.current_dir(p.path())
        .args(["deploy", "--target", "prod"])
        .env("CLOUDFLARE_API_TOKEN", TOKEN)
        .env("ASKZICO_CF_API_BASE", &m.base);
    small(&mut cmd);
    let o = run(&mut cmd);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_consistent(&m);
    let s = m.state.lock().unwrap();
    let sizes: Vec<&String> = s.log.iter().filter(|l| l.starts_with("upsert ")).collect();
    let total: usize = sizes
        .iter()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<usize>().unwrap())
        .sum();
    let vectors = s.store.indexes["corpus-blue"].len();
    assert_eq!(
        total, vectors,
        "each vector sent exactly once across both runs: {:?}",
        s.log
    );
    assert!(sizes.len() >= 4);
    assert_eq!(
        s.log.iter().filter(|l| *l == "kv-put zico/current").count(),
        1
    );
    assert_eq!(s.log.last().unwrap(), "kv-put zico/current");
}

fn a_target_needs_two_distinct_indexes() {
    let p = sample_project();
    let cfg = p.path().join("corpus.toml");
    let s = std::fs::read_to_string(&cfg).unwrap()
        + "\n[deploy.prod]\nindexes = [\"only\"]\nkv_namespace_id = \"ns1\"\n";
    std::fs::write(&cfg, s).unwrap();
    let o = run(bin()
        .current_dir(p.path())
        .args(["deploy", "--target", "prod", "--dry-run"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("indexes must name two distinct Vectorize indexes"),
        "{}",
        stderr(&o)
    );
}

fn unknown_target_is_a_usage_error() {
    let p = project();
    let o = run(bin()
        .current_dir(p.path())
        .args(["deploy", "--target", "nope", "--dry-run"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("known: prod"), "{}", stderr(&o));
}

fn cut_connections_and_5xx_mid_request_are_retried_to_a_complete_version() {
    let p = project();
    let m = mock();
    m.state.lock().unwrap().faults = vec![
        ("upsert", Fault::CutApplied),
        ("upsert", Fault::BadGateway),
        ("kv-bulk", Fault::CutUnapplied),
        ("kv-bulk", Fault::CutApplied),
        ("kv-bulk", Fault::BadGateway),
        ("get-by-ids", Fault::CutUnapplied),
    ];
    let o = deploy_with(
        p.path(),
        Some(&m),
        &[],
        &[("ASKZICO_DEPLOY_MAX_ATTEMPTS", "4")],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.matches("could not reach").count(), 4, "{err}");
    assert_eq!(
        err.matches("HTTP 502: bad gateway (code 10002); retrying")
            .count(),
        2,
        "{err}"
    );
    assert_consistent(&m);
    let exp = expected(p.path(), None);
    let s = m.state.lock().unwrap();
    assert!(s.faults.is_empty());
    assert_complete(&s, &version(p.path()), "corpus-blue", &exp);
}

fn the_check_query_refuses_the_flip_when_the_index_does_not_answer() {
    let p = project();
    let m = mock();
    m.state.lock().unwrap().blind_reads = 2;
    let o = deploy(p.path(), Some(&m), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    // Read back, found lacking, upserted again, read back again: still lacking.
    assert!(
        stderr(&o).contains("  Vectorize index corpus-blue does not hold ")
            && stderr(&o).contains("as this deploy wrote them: upserting them again"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains(
            "check query refused the pointer flip: Vectorize index corpus-blue does not hold "
        ),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("the pointer still names nothing"),
        "{}",
        stderr(&o)
    );
    let writes = {
        let s = m.state.lock().unwrap();
        assert!(!s.store.kv.contains_key(POINTER));
        s.writes.len()
    };
    let o = deploy(p.path(), Some(&m), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("resuming the unfinished deploy"),
        "{}",
        stderr(&o)
    );
    assert_consistent(&m);
    let s = m.state.lock().unwrap();
    // Nothing confirmed is re-sent: the writes of both runs are those of one deploy (the
    // registry calls the version complete in the rerun, once the index has been read back).
    assert_eq!(
        s.writes.len(),
        writes,
        "nothing confirmed is re-sent: {:?}",
        s.log
    );
    let vectors = s.store.indexes["corpus-blue"].len();
    assert_eq!(
        s.log.iter().rev().take(4).cloned().collect::<Vec<_>>(),
        [
            "kv-put zico/current".to_string(),
            "kv-put zico/versions".to_string(),
            "kv-get zico/versions".to_string(),
            format!("get-by-ids corpus-blue {vectors}")
        ],
        "every vector is read back before the registry and the pointer name the version"
    );
}

/// Every KV pair and vector a build uploads, from `askzico export` (the same key scheme).
fn expected(dir: &Path, env: Option<&str>) -> Expected {
    let dest = tempfile::tempdir().unwrap();
    let envs: Vec<&str> = env.map(|e| vec!["--env", e]).unwrap_or_default();
    for format in ["vectorize", "kv"] {
        let o = run(bin()
            .current_dir(dir)
            .args(["export", "--format", format, "--prefix", "zico/", "--dest"])
            .arg(dest.path())
            .args(&envs));
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let mut e = Expected::default();
    for f in std::fs::read_dir(dest.path()).unwrap() {
        let f = f.unwrap().path();
        // The export's listing of its files.
        if f.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        if f.extension().is_some_and(|x| x == "ndjson") {
            for line in text.lines() {
                let v: Value = serde_json::from_str(line).unwrap();
                e.vectors.insert(v["id"].as_str().unwrap().to_string(), v);
            }
        } else {
            for pair in serde_json::from_str::<Vec<Value>>(&text).unwrap() {
                e.kv.insert(
                    pair["key"].as_str().unwrap().to_string(),
                    pair["value"].as_str().unwrap().to_string(),
                );
            }
        }
    }
    assert!(!e.vectors.is_empty() && e.kv.len() > e.vectors.len());
    e
}

/// `index` holds exactly the version's vectors and KV every pair of it.
fn assert_complete(s: &State, v: &str, index: &str, e: &Expected) {
    let held = &s.store.indexes[index];
    assert_eq!(
        held.keys().collect::<Vec<_>>(),
        e.vectors.keys().collect::<Vec<_>>(),
        "index {index} does not hold exactly the vectors of {v}"
    );
    for (id, rec) in &e.vectors {
        assert_eq!(content(&held[id]), content(rec), "vector {id}");
    }
    for (k, val) in &e.kv {
        assert_eq!(s.store.kv.get(k), Some(val), "KV {k} of {v}");
    }
}

fn keys_of<'a>(s: &'a State, v: &str) -> Vec<&'a String> {
    s.store
        .kv
        .keys()
        .filter(|k| k.starts_with(&format!("zico/{v}/")))
        .collect()
}

/// Appends a paragraph to a source and rebuilds: a new version.
fn rebuild_changed(dir: &Path, file: &str, text: &str) -> String {
    let f = dir.join(file);
    let mut body = std::fs::read_to_string(&f).unwrap();
    body.push_str(&format!("\n\n{text}\n"));
    std::fs::write(&f, body).unwrap();
    let o = run(bin().current_dir(dir).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    version(dir)
}

fn gc_deletes_exactly_the_keys_of_versions_no_index_holds() {
    common::test_hooks();
    let p = project();
    let m = mock();
    let small = [("ASKZICO_DEPLOY_MAX_KV_PAIRS", "5")];
    let v1 = version(p.path());
    let e1 = expected(p.path(), None);
    assert!(
        deploy_with(p.path(), Some(&m), &[], &small)
            .status
            .success()
    );
    let v2 = rebuild_changed(
        p.path(),
        "sources/articles/faq.md",
        "فقرة ثانية عن جمع المخلفات.",
    );
    let e2 = expected(p.path(), None);
    assert!(
        deploy_with(p.path(), Some(&m), &["--gc"], &small)
            .status
            .success()
    );
    // Blue still holds v1: nothing to collect.
    {
        let s = m.state.lock().unwrap();
        assert!(
            !s.log.iter().any(|l| l.starts_with("kv-delete")),
            "{:?}",
            s.log
        );
        assert_eq!(keys_of(&s, &v1).len(), 2, "manifest and key table");
        assert!(
            named_keys(&s.store.kv, &v1)
                .iter()
                .all(|k| s.store.kv.contains_key(k))
        );
    }
    m.state
        .lock()
        .unwrap()
        .store
        .kv
        .insert("zico/unrelated".into(), "kept".into());
    let v3 = rebuild_changed(
        p.path(),
        "sources/articles/faq.md",
        "فقرة ثالثة عن جمع المخلفات.",
    );
    let e3 = expected(p.path(), None);
    // What GC of v1 deletes: the values only v1 names, its key table and its manifest.
    let only_v1: BTreeSet<String> = {
        let s = m.state.lock().unwrap();
        let (n1, n2) = (named_keys(&s.store.kv, &v1), named_keys(&s.store.kv, &v2));
        let n3: BTreeSet<String> = e3.kv.keys().cloned().collect();
        n1.into_iter()
            .filter(|k| !n2.contains(k) && !n3.contains(k))
            .collect()
    };
    let gc_keys = only_v1.len() + 2;
    assert!(
        !only_v1.is_empty() && gc_keys < e1.kv.len() / 2,
        "{gc_keys}"
    );

    // The plan of a GC reads only: it names v1, whose index now holds v3.
    let o = deploy_with(p.path(), Some(&m), &["--dry-run", "--gc"], &small);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(&format!("gc: would delete {gc_keys} keys of version {v1}")),
        "{}",
        stdout(&o)
    );
    assert!(
        m.state
            .lock()
            .unwrap()
            .writes
            .iter()
            .all(|(_, w)| !w.starts_with("kv-delete"))
    );

    m.state.lock().unwrap().log.clear();
    let o = deploy_with(p.path(), Some(&m), &["--gc", "--json"], &small);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_consistent(&m);
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        report["gc"]["deleted"],
        json!([{"version": v1, "keys": gc_keys}]),
        "{report}"
    );
    let s = m.state.lock().unwrap();
    assert!(keys_of(&s, &v1).is_empty(), "{:?}", keys_of(&s, &v1));
    assert!(only_v1.iter().all(|k| !s.store.kv.contains_key(k)));
    assert_complete(&s, &v3, "corpus-blue", &e3);
    assert_complete(&s, &v2, "corpus-green", &e2);
    assert_eq!(s.store.kv["zico/unrelated"], "kept");
    // Exact keys in bulk deletes within the (lowered) limit, after the pointer, the manifest last;
    // no key listing.
    let deletes: Vec<usize> = s
        .log
        .iter()
        .filter_map(|l| l.strip_prefix("kv-delete "))
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!(deletes.iter().sum::<usize>(), gc_keys);
    assert!(
        deletes.len() >= 3 && deletes.iter().all(|n| *n <= 5),
        "{deletes:?}"
    );
    let pointer_at = s
        .log
        .iter()
        .position(|l| l == "kv-put zico/current")
        .unwrap();
    assert!(
        s.log
            .iter()
            .position(|l| l.starts_with("kv-delete"))
            .unwrap()
            > pointer_at
    );
    assert!(
        !s.log.iter().any(|l| l.starts_with("kv-unknown")),
        "{:?}",
        s.log
    );
    let last_delete = s
        .writes
        .iter()
        .rev()
        .find(|(_, w)| w.starts_with("kv-delete"))
        .unwrap();
    assert_eq!(last_delete.1, format!("kv-delete [\"zico/{v1}/manifest\"]"));
    assert_eq!(s.log.last().unwrap(), "kv-put zico/versions");
    let registry: Value = serde_json::from_str(&s.store.kv["zico/versions"]).unwrap();
    assert_eq!(
        registry,
        json!({"versions": [v2, v3], "indexes": {"corpus-blue": v3, "corpus-green": v2}, "complete": [v2, v3]})
    );
    drop(s);

    // Again: nothing left to collect.
    let o = deploy_with(p.path(), Some(&m), &["--gc"], &small);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("already serves") && stdout(&o).contains("gc: nothing to collect"),
        "{}",
        stdout(&o)
    );
}

/// A deploy run as a child process, killed (SIGKILL) while request `kill_at` is in flight;
/// `false` when it finished before reaching it.
fn run_killed(
    dir: &Path,
    m: &Mock,
    env: &[(&str, &str)],
    args: &[&str],
    kill_at: usize,
    applies: bool,
) -> bool {
    {
        let mut s = m.state.lock().unwrap();
        s.requests = 0;
        s.kill_at = Some(kill_at);
        s.kill_applies = applies;
    }
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("askzico"))
        .current_dir(dir)
        .args(["deploy", "--target", "prod"])
        .args(args)
        .env("CLOUDFLARE_API_TOKEN", TOKEN)
        .env("ASKZICO_CF_API_BASE", &m.base)
        .env("ASKZICO_DEPLOY_RETRY_MS", "1")
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let reached = m.reached.lock().unwrap();
    let killed = loop {
        match reached.recv_timeout(std::time::Duration::from_millis(20)) {
            Ok(n) => {
                assert_eq!(n, kill_at);
                child.kill().unwrap();
                child.wait().unwrap();
                m.resume.send(()).unwrap();
                break true;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if child.try_wait().unwrap().is_some() {
                    break false;
                }
            }
            Err(e) => panic!("{e}"),
        }
    };
    m.state.lock().unwrap().kill_at = None;
    killed
}

/// Batches the journal of an unfinished deploy lists as confirmed.
fn confirmed(dir: &Path) -> usize {
    let j: Value = serde_json::from_str(&journal(dir)).unwrap_or(Value::Null);
    j["pending"]["done"].as_array().map_or(0, Vec::len)
}

/// A tiny seeded generator (xorshift), so a failing kill sequence can be replayed.
fn rng(seed: &mut u64, below: usize) -> usize {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    (*seed % below as u64) as usize
}

/// The two builds of the kill tests: `v1` live on blue in `base`, and a project whose default
/// build (`v2`) and `public` build (`v3`) are deployed over it.
struct KillSetup {
    base: Store,
    v1: String,
    e1: Expected,
    p: tempfile::TempDir,
    v2: String,
    e2: Expected,
    v3: String,
    e3: Expected,
}

fn kill_setup(env: &[(&str, &str)]) -> KillSetup {
    let p1 = project();
    let m = mock();
    assert!(deploy_with(p1.path(), Some(&m), &[], env).status.success());
    let base = m.state.lock().unwrap().store.clone();
    let (v1, e1) = (version(p1.path()), expected(p1.path(), None));
    let p = project();
    std::fs::remove_file(p.path().join("sources/articles/nile-flood.md")).unwrap();
    let v2 = rebuild_changed(
        p.path(),
        "sources/articles/faq.md",
        "فقرة جديدة للتجربة عن النشر والقتل والاستئناف.",
    );
    let e2 = expected(p.path(), None);
    let o = run(bin()
        .current_dir(p.path())
        .args(["build", "--env", "public"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let e3 = expected(p.path(), Some("public"));
    let m3: Value =
        serde_json::from_slice(&std::fs::read(p.path().join("out/manifest.public.json")).unwrap())
            .unwrap();
    let v3 = m3["corpus_version"].as_str().unwrap().to_string();
    assert!(v1 != v2 && v2 != v3 && v1 != v3);
    KillSetup {
        base,
        v1,
        e1,
        p,
        v2,
        e2,
        v3,
        e3,
    }
}

/// A fresh stand-in holding `v1` live on blue, expecting completeness at every flip.
fn kill_mock(k: &KillSetup) -> Mock {
    let m = mock_from(k.base.clone());
    let mut s = m.state.lock().unwrap();
    for (v, e) in [(&k.v1, &k.e1), (&k.v2, &k.e2), (&k.v3, &k.e3)] {
        s.expect.insert(v.clone(), e.clone());
    }
    drop(s);
    let _ = std::fs::remove_dir_all(k.p.path().join("out/cache/deploy"));
    m
}

/// After the final run: the pointer names `v` on `index`, complete; the live index at the start
/// (blue, holding v1) was never written; no pending deploy is left.
fn assert_final(k: &KillSetup, m: &Mock, v: &str, e: &Expected, what: &str) {
    assert_consistent(m);
    let s = m.state.lock().unwrap();
    let p = s.pointer().unwrap();
    assert_eq!(p["version"], v, "{what}");
    let index = p["index"].as_str().unwrap();
    assert_complete(&s, v, index, e);
    if index == "corpus-green" {
        assert_eq!(
            s.store.indexes["corpus-blue"], k.base.indexes["corpus-blue"],
            "{what}: the live index was written"
        );
        assert!(!s.log.iter().any(|l| l.starts_with("upsert corpus-blue") || l.starts_with("delete corpus-blue")), "{what}");
    }
    assert!(!journal(k.p.path()).contains("\"pending\": {"), "{what}");
    assert!(!journal(k.p.path()).contains(TOKEN));
}

fn killed_at_any_request_and_rerun_the_deploy_ends_on_a_complete_version() {
    common::test_hooks();
    // Small batches, so the deploy is many requests: every one is a kill point.
    let env = [
        ("ASKZICO_DEPLOY_MAX_UPSERT_VECTORS", "3"),
        ("ASKZICO_DEPLOY_MAX_KV_PAIRS", "4"),
        ("ASKZICO_DEPLOY_MAX_ATTEMPTS", "1"),
    ];
    let k = kill_setup(&env);
    let m = kill_mock(&k);
    let o = deploy_with(k.p.path(), Some(&m), &[], &env);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_final(&k, &m, &k.v2, &k.e2, "clean run");
    let total = m.state.lock().unwrap().requests;
    assert!(total >= 15, "{total} requests");

    // Every request is a kill point, with the request applied or not before the kill.
    for n in 1..=total {
        for applies in [false, true] {
            let what = format!("killed at request {n}/{total} (applied: {applies})");
            let m = kill_mock(&k);
            assert!(run_killed(k.p.path(), &m, &env, &[], n, applies), "{what}");
            let before: Vec<(usize, String)> = m.state.lock().unwrap().writes.clone();
            // Every write answered before the kill is confirmed in the journal, and never re-sent.
            let answered: Vec<&String> = before
                .iter()
                .filter(|(i, _)| *i < n)
                .map(|(_, w)| w)
                .filter(|w| !w.starts_with("kv-delete"))
                .collect();
            let flipped = m.state.lock().unwrap().pointer().unwrap()["version"] == k.v2.as_str();
            if !flipped {
                assert_eq!(confirmed(k.p.path()), answered.len(), "{what}");
            }
            m.state.lock().unwrap().log.clear();
            let o = deploy_with(k.p.path(), Some(&m), &[], &env);
            assert!(o.status.success(), "{what}: {}", stderr(&o));
            let s = m.state.lock().unwrap();
            let resent: Vec<&String> = s
                .writes
                .iter()
                .skip(before.len())
                .map(|(_, w)| w)
                .filter(|w| answered.contains(w))
                .collect();
            assert!(
                resent.is_empty(),
                "{what}: confirmed batches re-sent: {resent:?}"
            );
            assert!(
                s.log.iter().filter(|l| *l == "kv-put zico/current").count() <= 1,
                "{what}"
            );
            drop(s);
            assert_final(&k, &m, &k.v2, &k.e2, &what);
        }
    }

    // Killed again while resuming, at random points (seeded), then run to the end.
    let mut seed = 0x5eed_0d10_u64;
    for round in 0..12 {
        let m = kill_mock(&k);
        let kills: Vec<usize> = (0..3).map(|_| 1 + rng(&mut seed, total)).collect();
        let what = format!("round {round}: kills at {kills:?}");
        for (i, n) in kills.iter().enumerate() {
            run_killed(k.p.path(), &m, &env, &[], *n, (i + round) % 2 == 0);
            assert!(m.state.lock().unwrap().problems.is_empty(), "{what}");
        }
        let o = deploy_with(k.p.path(), Some(&m), &[], &env);
        assert!(o.status.success(), "{what}: {}", stderr(&o));
        assert_final(&k, &m, &k.v2, &k.e2, &what);
    }
}

fn a_killed_deploy_superseded_by_another_version_ends_complete_and_gc_removes_its_keys() {
    common::test_hooks();
    let env = [
        ("ASKZICO_DEPLOY_MAX_UPSERT_VECTORS", "3"),
        ("ASKZICO_DEPLOY_MAX_KV_PAIRS", "4"),
        ("ASKZICO_DEPLOY_MAX_ATTEMPTS", "1"),
    ];
    let k = kill_setup(&env);
    let m = kill_mock(&k);
    assert!(
        deploy_with(k.p.path(), Some(&m), &[], &env)
            .status
            .success()
    );
    let total = m.state.lock().unwrap().requests;
    // Kill v2's deploy at spread points, then deploy v3 (the `public` build) from the same
    // journal, then collect.
    for n in (1..=total).step_by(3) {
        let what = format!("v2 killed at request {n}/{total}, then v3");
        let m = kill_mock(&k);
        assert!(
            run_killed(k.p.path(), &m, &env, &[], n, n % 2 == 0),
            "{what}"
        );
        let o = deploy_with(k.p.path(), Some(&m), &["--env", "public"], &env);
        assert!(o.status.success(), "{what}: {}", stderr(&o));
        assert_final(&k, &m, &k.v3, &k.e3, &what);
        let o = deploy_with(k.p.path(), Some(&m), &["--env", "public", "--gc"], &env);
        assert!(o.status.success(), "{what}: {}", stderr(&o));
        assert_consistent(&m);
        let s = m.state.lock().unwrap();
        let p = s.pointer().unwrap();
        let inactive = if p["index"] == "corpus-blue" {
            "corpus-green"
        } else {
            "corpus-blue"
        };
        let registry: Value = serde_json::from_str(&s.store.kv["zico/versions"]).unwrap();
        let held = registry["indexes"][inactive].as_str().unwrap_or("");
        // Content-addressed values left: exactly those a kept version names.
        let mut named: BTreeSet<&String> = k.e3.kv.keys().collect();
        for (v, e) in [(&k.v1, &k.e1), (&k.v2, &k.e2)] {
            if v == held {
                named.extend(e.kv.keys());
                assert!(
                    e.kv.keys().all(|key| s.store.kv.contains_key(key)),
                    "{what}: {v} is held by {inactive} and must be kept"
                );
            } else {
                assert!(
                    keys_of(&s, v).is_empty(),
                    "{what}: {v} is held by no index; left: {:?}",
                    keys_of(&s, v)
                );
            }
        }
        assert_complete(&s, &k.v3, p["index"].as_str().unwrap(), &k.e3);
        let orphans: Vec<&String> = s
            .store
            .kv
            .keys()
            .filter(|key| {
                ["zico/r/", "zico/l/", "zico/t/", "zico/d/", "zico/s/"]
                    .iter()
                    .any(|p| key.starts_with(p))
            })
            .filter(|key| !named.contains(key))
            .collect();
        assert!(
            orphans.is_empty(),
            "{what}: values no kept version names: {orphans:?}"
        );
    }
}

/// Planted in `ASKZICO_CF_API_BASE` as `http://askzico:PASSWORD@…`; must never be shown.
const PASSWORD: &str = "pw-Hunter2-NeverShown";

/// `m.base` with a user and password in it.
fn base_with_password(m: &Mock) -> String {
    m.base
        .replacen("http://", &format!("http://askzico:{PASSWORD}@"), 1)
}

/// A deploy with the token and `base`, fast retries and short timeouts.
fn deploy_at(dir: &Path, base: &str, extra: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = bin();
    cmd.current_dir(dir)
        .args(["deploy", "--target", "prod"])
        .args(extra)
        .env_remove("CLOUDFLARE_ACCOUNT_ID")
        .env("CLOUDFLARE_API_TOKEN", TOKEN)
        .env("ASKZICO_CF_API_BASE", base)
        .env("ASKZICO_DEPLOY_MAX_ATTEMPTS", "2")
        .env("ASKZICO_DEPLOY_RETRY_MS", "1")
        .env("ASKZICO_HTTP_IDLE_TIMEOUT_MS", "2000")
        .envs(env.iter().copied());
    run(&mut cmd)
}

/// Files under `dir` whose bytes hold the token or the password.
fn files_with_secrets(dir: &Path) -> Vec<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            let b = std::fs::read(e.path()).unwrap_or_default();
            [TOKEN, PASSWORD]
                .iter()
                .any(|s| b.windows(s.len()).any(|w| w == s.as_bytes()))
        })
        .map(|e| e.path().display().to_string())
        .collect()
}

fn assert_no_secret(o: &std::process::Output, dir: &Path, what: &str) {
    for (name, text) in [("stdout", stdout(o)), ("stderr", stderr(o))] {
        assert!(
            !text.contains(TOKEN) && !text.contains(PASSWORD) && !text.contains("Hunter2"),
            "{what}: the {name} shows a secret:\n{text}"
        );
    }
    let leaks = files_with_secrets(dir);
    assert!(leaks.is_empty(), "{what}: secrets in {leaks:?}");
}

fn no_output_holds_the_token_or_the_url_password_whatever_the_api_answers() {
    let p = project();
    // A vector the index holds and the build does not: the first deploy lists and deletes it,
    // so every request kind of a deploy is sent.
    let mut seeded = Store::default();
    seeded
        .indexes
        .entry("corpus-blue".into())
        .or_default()
        .insert(
            "stale-id".into(),
            json!({"id": "stale-id", "values": [0.0], "metadata": {}}),
        );
    let kinds = [
        "kv-get",
        "kv-put",
        "list",
        "upsert",
        "delete",
        "info",
        "kv-bulk",
        "get-by-ids",
    ];
    let mut runs = 0;
    for kind in kinds {
        for status in [200u16, 400, 403, 404, 429, 503] {
            // Every shape on success; the shapes an error page takes on the others.
            let shapes: Vec<usize> = if status == 200 {
                (0..ECHO_SHAPES).collect()
            } else {
                vec![0, 4, 5]
            };
            for shape in shapes {
                let _ = std::fs::remove_dir_all(p.path().join("out/cache/deploy"));
                let m = mock_from(seeded.clone());
                m.state.lock().unwrap().echo = Some((kind, status, shape));
                let json = runs % 2 == 1;
                let o = deploy_at(
                    p.path(),
                    &base_with_password(&m),
                    if json { &["--json"] } else { &[] },
                    &[("ASKZICO_DEPLOY_WAIT_SECS", "0")],
                );
                let what = format!("{kind} answered {status} with shape {shape}");
                assert!(
                    m.state.lock().unwrap().echoed > 0,
                    "{what}: never reached\n{}",
                    stderr(&o)
                );
                assert_no_secret(&o, p.path(), &what);
                runs += 1;
            }
        }
    }
    assert_eq!(runs, 8 * (7 + 5 * 3));
}

fn gc_shows_no_secret_whatever_the_bulk_delete_answers() {
    // v1 live, then v2 and v3 deployed over it: `--gc` deletes v1's keys.
    let k = kill_setup(&[]);
    let m = kill_mock(&k);
    for env in [None, Some("public")] {
        let mut args = vec![];
        if let Some(e) = env {
            args.extend(["--env", e]);
        }
        assert!(deploy(k.p.path(), Some(&m), &args).status.success());
    }
    let store = m.state.lock().unwrap().store.clone();
    for status in [200u16, 400, 404, 429, 503] {
        for shape in [0, 1, 2, 4, 5] {
            let m = mock_from(store.clone());
            m.state.lock().unwrap().echo = Some(("kv-delete", status, shape));
            let o = deploy_at(
                k.p.path(),
                &base_with_password(&m),
                &["--env", "public", "--gc"],
                &[],
            );
            let what = format!("kv-delete answered {status} with shape {shape}");
            assert!(m.state.lock().unwrap().echoed > 0, "{what}: {}", stderr(&o));
            assert_no_secret(&o, k.p.path(), &what);
        }
    }
}

fn the_url_password_is_never_shown_by_the_url_check_or_an_unreachable_api() {
    let p = project();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let o = deploy_at(
        p.path(),
        &format!("ftp://askzico:{PASSWORD}@127.0.0.1:{port}/client/v4"),
        &[],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!(
            "ASKZICO_CF_API_BASE \"ftp://***@127.0.0.1:{port}/client/v4\" is not an http(s) URL"
        )),
        "{}",
        stderr(&o)
    );
    assert_no_secret(&o, p.path(), "the URL check");
    let o = deploy_at(
        p.path(),
        &format!("http://askzico:{PASSWORD}@127.0.0.1:{port}/client/v4"),
        &["--dry-run"],
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!(
            "could not reach http://***@127.0.0.1:{port}/client/v4"
        )),
        "{}",
        stderr(&o)
    );
    assert_no_secret(&o, p.path(), "an unreachable API");
}

fn a_server_that_accepts_and_never_answers_fails_the_deploy_within_its_budget() {
    let p = project();
    // Accepts every connection and holds it: no byte is ever read or written.
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let held: Vec<_> = l.incoming().collect();
        drop(held);
    });
    let start = std::time::Instant::now();
    let o = deploy_at(
        p.path(),
        &format!("http://127.0.0.1:{port}/client/v4"),
        &[],
        &[
            ("ASKZICO_HTTP_IDLE_TIMEOUT_MS", "300"),
            ("ASKZICO_DEPLOY_MAX_ATTEMPTS", "3"),
        ],
    );
    let took = start.elapsed();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    // Each retry is printed, naming the request and the wait that ran out.
    let base = format!("http://127.0.0.1:{port}/client/v4");
    assert_eq!(
        err.matches(&format!(
            "  reading KV key zico/current: timed out: no response from {base} for 0.3 s; retrying in"
        ))
        .count(),
        2,
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "reading KV key zico/current failed after 3 attempts: timed out: no response from {base} for 0.3 s. The deploy can be resumed: run `askzico deploy --target prod` again"
        )),
        "{err}"
    );
    // Three attempts of 0.3 s and two short backoffs, not 300 s each.
    assert!(
        took < std::time::Duration::from_secs(20),
        "the deploy took {took:?}"
    );
}

fn a_request_that_hangs_mid_deploy_times_out_and_the_deploy_resumes() {
    common::test_hooks();
    let p = project();
    let m = mock();
    m.state.lock().unwrap().hang = Some("upsert");
    let env = [
        ("ASKZICO_HTTP_IDLE_TIMEOUT_MS", "300"),
        ("ASKZICO_DEPLOY_MAX_UPSERT_VECTORS", "5"),
    ];
    let o = deploy_at(p.path(), &m.base, &[], &env);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    // The request named (its batch number, then the plan's batch count), each retry printed.
    let retried = format!(
        " (5 vectors) into corpus-blue: timed out: no response from {} for 0.3 s; retrying in",
        m.base
    );
    assert!(
        err.lines()
            .any(|l| l.starts_with("  upsert batch 1/") && l.contains(&retried)),
        "{err}"
    );
    // The failure is the last problem reported.
    let failed = err
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .and_then(|l| l.trim_start().strip_prefix("× "))
        .filter(|l| l.starts_with("upsert batch 1/"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        failed.contains("(5 vectors) into corpus-blue failed after 2 attempts: timed out")
            && failed
                .contains("The deploy can be resumed: run `askzico deploy --target prod` again"),
        "{err}"
    );
    assert_eq!(m.state.lock().unwrap().hung, 2);
    // The server answers again: the same command finishes the deploy.
    m.state.lock().unwrap().hang = None;
    let o = deploy_at(p.path(), &m.base, &[], &env);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_consistent(&m);
}

fn waiting_for_vectorize_is_bounded_and_says_so() {
    let p = project();
    let m = mock();
    m.state.lock().unwrap().info_lag = usize::MAX;
    let start = std::time::Instant::now();
    let o = deploy_at(p.path(), &m.base, &[], &[("ASKZICO_DEPLOY_WAIT_SECS", "1")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "  waiting for Vectorize index corpus-blue to apply mutation mut-0001 (at most 1s)"
        ),
        "{err}"
    );
    assert!(
        err.contains("Vectorize index corpus-blue has not applied mutation mut-0001 after 1s (ASKZICO_DEPLOY_WAIT_SECS sets the wait); the pointer was not written. Run `askzico deploy --target prod` again: it asks the index once more"),
        "{err}"
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(15));
    // Vectorize catches up: the rerun waits no more and finishes.
    m.state.lock().unwrap().info_lag = 0;
    let o = deploy_at(p.path(), &m.base, &[], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_consistent(&m);
}

/// What a deploy sent, from the stand-in's log: (KV keys written, vectors upserted, vector IDs
/// deleted, KV keys deleted).
fn sent(log: &[String]) -> (u64, u64, u64, u64) {
    let n = |l: &str, p: &str| -> u64 {
        l.strip_prefix(p)
            .and_then(|r| r.rsplit(' ').next())
            .and_then(|x| x.parse().ok())
            .unwrap_or(0)
    };
    let mut out = (0, 0, 0, 0);
    for l in log {
        out.0 += n(l, "kv-bulk ") + l.starts_with("kv-put ") as u64;
        out.1 += n(l, "upsert ");
        out.2 += n(l, "delete ");
        out.3 += n(l, "kv-delete ");
    }
    out
}

/// `--dry-run --json` states the KV writes, vector upserts and deletes the deploy then makes,
/// request for request; a one-paragraph edit costs a few KV writes, not one per chunk.
fn a_dry_run_states_exactly_what_the_deploy_then_sends() {
    let p = project();
    let m = mock();
    for round in 0..3 {
        if round > 0 {
            rebuild_changed(
                p.path(),
                "sources/articles/faq.md",
                &format!("فقرة رقم {round} عن كلفة النشر."),
            );
        }
        let o = deploy(p.path(), Some(&m), &["--dry-run", "--json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let plan: Value = serde_json::from_str(&stdout(&o)).unwrap();
        m.state.lock().unwrap().log.clear();
        let o = deploy(p.path(), Some(&m), &["--json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_consistent(&m);
        let log = m.state.lock().unwrap().log.clone();
        let (kv, upserts, deletes, kv_deletes) = sent(&log);
        assert_eq!(
            kv,
            plan["kv"]["writes"].as_u64().unwrap(),
            "{plan}\n{log:?}"
        );
        assert_eq!(upserts, plan["vectors"]["upsert"].as_u64().unwrap());
        assert_eq!(deletes, plan["vectors"]["delete"].as_u64().unwrap());
        assert_eq!(kv_deletes, plan["kv"]["delete"].as_u64().unwrap());
        let bulk_bytes: u64 = plan["kv"]["batches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["bytes"].as_u64().unwrap())
            .sum();
        assert_eq!(bulk_bytes, plan["kv"]["bytes"].as_u64().unwrap());
        println!("round {round}: {kv} KV writes, {upserts} upserts, {deletes} deletes");
        if round > 0 {
            assert!(
                kv <= 20,
                "a one-paragraph edit made {kv} KV writes: {log:?}"
            );
        }
    }
}

/// A plan over the target's `max_kv_writes` is refused before anything is sent, unless
/// confirmed; the dry run says so.
fn a_plan_over_max_kv_writes_needs_confirming() {
    let p = project();
    let cfg = p.path().join("corpus.toml");
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(&cfg, format!("{text}max_kv_writes = 10\n")).unwrap();
    let m = mock();
    let o = deploy(p.path(), Some(&m), &["--dry-run"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("over max_kv_writes = 10"),
        "{}",
        stdout(&o)
    );
    let o = deploy(p.path(), Some(&m), &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("over max_kv_writes = 10") && stderr(&o).contains("--confirm-writes"),
        "{}",
        stderr(&o)
    );
    assert!(m.state.lock().unwrap().writes.is_empty(), "nothing is sent");
    let o = deploy(p.path(), Some(&m), &["--confirm-writes"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_consistent(&m);
}

/// A target deployed with the first layout (pointer without `layout`, `<version>/chunk/<id>`,
/// `<version>/lex/…`, key pages) upgrades in place on its next deploy, rolls back to the old
/// version while the other index holds it, and `--gc` collects the old layout's keys once no
/// index holds it.
fn an_old_layout_target_upgrades_rolls_back_and_is_collected() {
    let p = project();
    let v1 = version(p.path());
    let e = expected(p.path(), None);
    let old = "0ld0ld0ld0ld0ld0ld0ld0ld0ld0ld00";
    let m = mock();
    {
        // What a deploy of the first layout left: `old` live on blue.
        let mut s = m.state.lock().unwrap();
        let mut manifest = manifest(&p.path().join("out"));
        manifest["corpus_version"] = json!(old);
        let kv = &mut s.store.kv;
        kv.insert(format!("zico/{old}/manifest"), manifest.to_string());
        let ids: Vec<&String> = e.vectors.keys().collect();
        kv.insert(format!("zico/{old}/keys/0"), json!(ids).to_string());
        for id in &ids {
            kv.insert(format!("zico/{old}/chunk/{id}"), "{}".into());
        }
        for a in manifest["artifacts"].as_array().unwrap() {
            if a["kind"] == "lexical" {
                let path = a["path"].as_str().unwrap();
                let name = path.rsplit('/').next().unwrap().split('.').next().unwrap();
                let d = a["domain"].as_str().unwrap();
                kv.insert(format!("zico/{old}/lex/{d}/{name}"), "{}".into());
            }
        }
        kv.insert(
            POINTER.into(),
            json!({"version": old, "index": "corpus-blue"}).to_string(),
        );
        kv.insert(
            "zico/versions".into(),
            json!({"versions": [old], "indexes": {"corpus-blue": old}}).to_string(),
        );
        let blue: BTreeMap<String, Value> = e
            .vectors
            .iter()
            .map(|(id, v)| {
                let mut v = v.clone();
                v["metadata"].as_object_mut().unwrap().remove("record");
                v["metadata"]["corpus_version"] = json!(old);
                (id.clone(), v)
            })
            .collect();
        s.store.indexes.insert("corpus-blue".into(), blue);
    }
    let old_keys = |s: &State| keys_of(s, old).len();
    let before = old_keys(&m.state.lock().unwrap());

    // Upgrade: the new version in layout 2 on green; the old keys untouched.
    let o = deploy(p.path(), Some(&m), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_consistent(&m);
    {
        let s = m.state.lock().unwrap();
        assert_eq!(
            s.pointer().unwrap(),
            json!({"version": v1, "index": "corpus-green", "layout": 5})
        );
        assert_eq!(old_keys(&s), before);
    }

    // Rollback: the pointer names the old version again, without `layout`.
    let o = deploy(p.path(), Some(&m), &["--rollback"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_consistent(&m);
    assert_eq!(
        m.state.lock().unwrap().pointer().unwrap(),
        json!({"version": old, "index": "corpus-blue"})
    );
    let o = deploy(p.path(), Some(&m), &["--check"]);
    assert!(
        o.status.success() && stdout(&o).contains("(layout 1) resolves"),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );

    // Forward again: green still holds v1, so only its tables, the registry and the pointer.
    m.state.lock().unwrap().log.clear();
    let o = deploy(p.path(), Some(&m), &["--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_consistent(&m);
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(report["plan"]["vectors"]["upsert"], 0, "{report}");
    assert_eq!(report["plan"]["kv"]["writes"], 3, "{report}");

    // A new version overwrites blue: the old version is held by no index and is collected.
    let v2 = rebuild_changed(p.path(), "sources/articles/faq.md", "فقرة عن الترقية.");
    let o = deploy(p.path(), Some(&m), &["--gc"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_consistent(&m);
    let s = m.state.lock().unwrap();
    assert_eq!(
        s.pointer().unwrap(),
        json!({"version": v2, "index": "corpus-blue", "layout": 5})
    );
    assert_eq!(old_keys(&s), 0, "{:?}", keys_of(&s, old));
    assert!(
        named_keys(&s.store.kv, &v1)
            .iter()
            .all(|k| s.store.kv.contains_key(k))
    );
    drop(s);
    // A rollback now goes to v1, which green still holds.
    let o = deploy(p.path(), Some(&m), &["--rollback"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        m.state.lock().unwrap().pointer().unwrap(),
        json!({"version": v1, "index": "corpus-green", "layout": 5})
    );
}

/// The shared corpora (copied, so the shared tree is never written), deployed, then one
/// paragraph of one page edited and deployed again: at most 40 KV writes, and the dry run
/// stated them.
fn a_one_paragraph_edit_of_the_shared_corpora_costs_at_most_40_kv_writes() {
    let Some(corpora) =
        shared_corpora("a_one_paragraph_edit_of_the_shared_corpora_costs_at_most_40_kv_writes")
    else {
        return;
    };
    // The config reaches the corpora at `../../../shared/corpora`: the same shape in a temp dir.
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&corpora, &tmp.path().join("shared/corpora"));
    let dir = tmp.path().join("repo/examples/shared-corpora");
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = std::fs::read_to_string(repo().join("examples/shared-corpora/corpus.toml")).unwrap();
    std::fs::write(dir.join("corpus.toml"), format!("{cfg}{TARGET}")).unwrap();
    let o = run(bin().current_dir(&dir).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let m = mock();
    let o = deploy(&dir, Some(&m), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let first = sent(&m.state.lock().unwrap().log).0;

    // One paragraph of one page gets a sentence more: the page's last paragraph, whose chunk has
    // room for it. (An edit that pushes a paragraph into the next chunk moves that paragraph's
    // postings to another chunk and rewrites the shards of all its terms.)
    let page = tmp
        .path()
        .join("shared/corpora/vue-docs-ar/src/guide/introduction.md");
    let text = std::fs::read_to_string(&page).unwrap();
    let line = text
        .lines()
        .rev()
        .find(|l| l.chars().count() > 100 && !l.starts_with(['#', '<', '|', '`', '-', ':', '>']))
        .expect("a paragraph")
        .to_string();
    std::fs::write(
        &page,
        text.replacen(&line, &format!("{line} وهذه جملة جديدة للتجربة."), 1),
    )
    .unwrap();
    let o = run(bin().current_dir(&dir).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let o = deploy(&dir, Some(&m), &["--dry-run", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let plan: Value = serde_json::from_str(&stdout(&o)).unwrap();
    m.state.lock().unwrap().log.clear();
    let o = deploy(&dir, Some(&m), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_consistent(&m);
    let (kv, upserts, ..) = sent(&m.state.lock().unwrap().log);
    println!(
        "shared corpora: first deploy {first} KV writes; one-paragraph edit {kv} KV writes, {upserts} vector upserts"
    );
    assert_eq!(kv, plan["kv"]["writes"].as_u64().unwrap());
    assert!(kv <= 40, "{kv} KV writes: {plan}");
}

/// `deploy --check` reads the live version back as a runtime does and confirms every chunk ID
/// resolves; a record missing from KV is named and fails it (exit 1). It reads only.
fn a_check_reads_the_live_version_back_and_names_what_does_not_resolve() {
    let p = project();
    let m = mock();
    assert!(deploy(p.path(), Some(&m), &[]).status.success());
    let chunks = expected(p.path(), None).vectors.len();
    m.state.lock().unwrap().writes.clear();
    let o = deploy(p.path(), Some(&m), &["--check"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(&format!("every one of the {chunks} chunk IDs")),
        "{}",
        stdout(&o)
    );
    assert!(
        m.state.lock().unwrap().writes.is_empty(),
        "a check writes nothing"
    );
    let gone = remove_first_kv(&m, "zico/r/");
    let o = deploy(p.path(), Some(&m), &["--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!("record {gone} is missing")),
        "{}",
        stderr(&o)
    );
}

/// Content-addressed values left in KV are exactly those the registry's versions name.
fn assert_no_orphans(m: &Mock, what: &str) {
    let s = m.state.lock().unwrap();
    let reg: Value = serde_json::from_str(&s.store.kv["zico/versions"]).unwrap();
    let mut named = BTreeSet::new();
    for v in reg["versions"].as_array().unwrap() {
        let v = v.as_str().unwrap();
        if s.store.kv.contains_key(&format!("zico/{v}/tables")) {
            named.extend(named_keys(&s.store.kv, v));
        }
    }
    let orphans: Vec<&String> = s
        .store
        .kv
        .keys()
        .filter(|k| {
            ["zico/r/", "zico/l/", "zico/t/", "zico/d/", "zico/s/"]
                .iter()
                .any(|p| k.starts_with(p))
        })
        .filter(|k| !named.contains(*k))
        .collect();
    assert!(orphans.is_empty(), "{what}: {orphans:?}");
}

/// Versions that share most of their values deploy, roll back and are collected in turn: the
/// live version stays whole after every request (the stand-in checks), a rollback writes only
/// the pointer, GC keeps every value a held version names and leaves nothing no version names.
fn versions_sharing_values_deploy_roll_back_and_collect_in_turn() {
    let p = project();
    let m = mock();
    let ok = |o: std::process::Output| assert!(o.status.success(), "{}", stderr(&o));
    let v1 = version(p.path());
    ok(deploy(p.path(), Some(&m), &[]));
    let v2 = rebuild_changed(p.path(), "sources/articles/faq.md", "فقرة أولى مشتركة.");
    ok(deploy(p.path(), Some(&m), &["--gc"]));
    assert_consistent(&m);
    assert_no_orphans(&m, "v2 deployed");
    // Back to v1 (blue): only the pointer is written.
    m.state.lock().unwrap().writes.clear();
    m.state.lock().unwrap().log.clear();
    ok(deploy(p.path(), Some(&m), &["--rollback"]));
    assert_consistent(&m);
    assert_eq!(sent(&m.state.lock().unwrap().log).0, 1);
    {
        let s = m.state.lock().unwrap();
        assert!(
            missing_named(&s.store.kv, &v2).is_empty(),
            "v2 is held by green"
        );
    }
    // v3 overwrites green (v2): GC collects v2's own values, keeps v1's and v3's.
    let v3 = rebuild_changed(p.path(), "sources/articles/faq.md", "فقرة ثانية مشتركة.");
    ok(deploy(p.path(), Some(&m), &["--gc"]));
    assert_consistent(&m);
    assert_no_orphans(&m, "v3 deployed, v2 collected");
    {
        let s = m.state.lock().unwrap();
        assert!(keys_of(&s, &v2).is_empty());
        for v in [&v1, &v3] {
            assert!(missing_named(&s.store.kv, v).is_empty(), "{v}");
        }
        assert_eq!(s.pointer().unwrap()["version"], v3.as_str());
    }
    // And back to v1 once more, then forward to v3 with its values already in KV.
    ok(deploy(p.path(), Some(&m), &["--rollback"]));
    assert_consistent(&m);
    assert_eq!(
        m.state.lock().unwrap().pointer().unwrap()["version"],
        v1.as_str()
    );
    m.state.lock().unwrap().log.clear();
    let o = deploy(p.path(), Some(&m), &["--json"]);
    ok(o.clone());
    assert_consistent(&m);
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(report["plan"]["kv"]["writes"], 3, "{report}");
    assert_eq!(
        m.state.lock().unwrap().pointer().unwrap()["version"],
        v3.as_str()
    );
    assert_no_orphans(&m, "the end");
}

/// A token the API refuses (401 or 403) is named as such, with the permissions a deploy needs
/// as the Cloudflare dashboard names them.
fn a_refused_token_names_the_permissions_a_deploy_needs() {
    let p = project();
    let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
    let base = format!("http://{}/client/v4", server.server_addr().to_ip().unwrap());
    let s = server.clone();
    std::thread::spawn(move || {
        for rq in s.incoming_requests() {
            let body = cf_error(10000, "Authentication error");
            let _ = rq.respond(tiny_http::Response::from_string(body).with_status_code(403));
        }
    });
    let o = deploy_with(
        p.path(),
        None,
        &[],
        &[
            ("CLOUDFLARE_API_TOKEN", TOKEN),
            ("ASKZICO_CF_API_BASE", base.as_str()),
            ("ASKZICO_DEPLOY_MAX_ATTEMPTS", "1"),
        ],
    );
    let err = stderr(&o);
    assert_ne!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("HTTP 403"), "{err}");
    assert!(err.contains("The API token was refused"), "{err}");
    assert!(
        err.contains("Workers KV Storage › Edit") || err.contains("Vectorize › Edit"),
        "{err}"
    );
}

fn main() -> std::process::ExitCode {
    use common::harness::test;
    common::harness::run(vec![
        test("dry_run_without_credentials_plans_against_the_journal_within_limits", dry_run_without_credentials_plans_against_the_journal_within_limits),
        test("full_deploy_writes_vectors_then_kv_then_the_pointer_last_and_flips_blue_green", full_deploy_writes_vectors_then_kv_then_the_pointer_last_and_flips_blue_green),
        test("an_interrupted_deploy_resumes_without_resending_and_flips_the_pointer_once", an_interrupted_deploy_resumes_without_resending_and_flips_the_pointer_once),
        test("an_over_limit_plan_is_refused_before_anything_is_sent", an_over_limit_plan_is_refused_before_anything_is_sent),
        test("a_deploy_dying_mid_upsert_resumes_from_the_next_batch", a_deploy_dying_mid_upsert_resumes_from_the_next_batch),
        test("a_target_needs_two_distinct_indexes", a_target_needs_two_distinct_indexes),
        test("unknown_target_is_a_usage_error", unknown_target_is_a_usage_error),
        test("cut_connections_and_5xx_mid_request_are_retried_to_a_complete_version", cut_connections_and_5xx_mid_request_are_retried_to_a_complete_version),
        test("the_check_query_refuses_the_flip_when_the_index_does_not_answer", the_check_query_refuses_the_flip_when_the_index_does_not_answer),
        test("gc_deletes_exactly_the_keys_of_versions_no_index_holds", gc_deletes_exactly_the_keys_of_versions_no_index_holds),
        test("killed_at_any_request_and_rerun_the_deploy_ends_on_a_complete_version", killed_at_any_request_and_rerun_the_deploy_ends_on_a_complete_version),
        test("a_killed_deploy_superseded_by_another_version_ends_complete_and_gc_removes_its_keys", a_killed_deploy_superseded_by_another_version_ends_complete_and_gc_removes_its_keys),
        test("no_output_holds_the_token_or_the_url_password_whatever_the_api_answers", no_output_holds_the_token_or_the_url_password_whatever_the_api_answers),
        test("gc_shows_no_secret_whatever_the_bulk_delete_answers", gc_shows_no_secret_whatever_the_bulk_delete_answers),
        test("the_url_password_is_never_shown_by_the_url_check_or_an_unreachable_api", the_url_password_is_never_shown_by_the_url_check_or_an_unreachable_api),
        test("a_server_that_accepts_and_never_answers_fails_the_deploy_within_its_budget", a_server_that_accepts_and_never_answers_fails_the_deploy_within_its_budget),
        test("a_request_that_hangs_mid_deploy_times_out_and_the_deploy_resumes", a_request_that_hangs_mid_deploy_times_out_and_the_deploy_resumes),
        test("waiting_for_vectorize_is_bounded_and_says_so", waiting_for_vectorize_is_bounded_and_says_so),
        test("a_dry_run_states_exactly_what_the_deploy_then_sends", a_dry_run_states_exactly_what_the_deploy_then_sends),
        test("a_plan_over_max_kv_writes_needs_confirming", a_plan_over_max_kv_writes_needs_confirming),
        test("an_old_layout_target_upgrades_rolls_back_and_is_collected", an_old_layout_target_upgrades_rolls_back_and_is_collected),
        test("a_one_paragraph_edit_of_the_shared_corpora_costs_at_most_40_kv_writes", a_one_paragraph_edit_of_the_shared_corpora_costs_at_most_40_kv_writes),
        test("a_check_reads_the_live_version_back_and_names_what_does_not_resolve", a_check_reads_the_live_version_back_and_names_what_does_not_resolve),
        test("versions_sharing_values_deploy_roll_back_and_collect_in_turn", versions_sharing_values_deploy_roll_back_and_collect_in_turn),
        test("a_refused_token_names_the_permissions_a_deploy_needs", a_refused_token_names_the_permissions_a_deploy_needs),
        test("query_target::a_query_of_the_deployed_version_answers_as_the_local_build_does", query_target::a_query_of_the_deployed_version_answers_as_the_local_build_does),
        test("query_target::each_hit_is_hydrated_by_one_kv_read_of_its_record", query_target::each_hit_is_hydrated_by_one_kv_read_of_its_record),
        test("query_target::a_target_that_cannot_be_read_is_a_clear_diagnostic", query_target::a_target_that_cannot_be_read_is_a_clear_diagnostic),
        test("query_target::a_layout_1_target_is_refused_until_a_deploy_upgrades_it", query_target::a_layout_1_target_is_refused_until_a_deploy_upgrades_it),
        test("query_target::a_field_filter_answers_as_the_local_build_does", query_target::a_field_filter_answers_as_the_local_build_does),
        test("query_target::a_layout_2_version_is_read_and_the_next_deploy_upgrades_it", query_target::a_layout_2_version_is_read_and_the_next_deploy_upgrades_it),
        test("query_target::a_version_served_in_layout_3_is_upgraded_in_place", query_target::a_version_served_in_layout_3_is_upgraded_in_place),
        test("query_target::a_check_names_a_missing_document_table", query_target::a_check_names_a_missing_document_table),
        test("query_target::the_limits_of_a_vectorize_query_are_noted", query_target::the_limits_of_a_vectorize_query_are_noted),
        test("query_target::the_deployed_shared_corpora_answer_as_their_build", query_target::the_deployed_shared_corpora_answer_as_their_build).needs(common::harness::shared_corpora),
        test("query_target::a_stale_vector_in_the_live_index_is_named_and_left_out_not_fatal", query_target::a_stale_vector_in_the_live_index_is_named_and_left_out_not_fatal),
        test("verify::a_value_the_registry_names_but_kv_lacks_is_sent_again", verify::a_value_the_registry_names_but_kv_lacks_is_sent_again),
        test("verify::a_bulk_write_answered_with_a_short_count_confirms_nothing", verify::a_bulk_write_answered_with_a_short_count_confirms_nothing),
        test("verify::values_kv_drops_are_written_again_and_a_store_that_keeps_dropping_them_stops_the_flip", verify::values_kv_drops_are_written_again_and_a_store_that_keeps_dropping_them_stops_the_flip),
        test("verify::vectors_deleted_from_the_inactive_index_are_upserted_again", verify::vectors_deleted_from_the_inactive_index_are_upserted_again),
        test("verify::vectors_lost_during_a_deploy_are_upserted_again_before_the_flip", verify::vectors_lost_during_a_deploy_are_upserted_again_before_the_flip),
        test("verify::an_emptied_and_recreated_target_recovers_on_rerun", verify::an_emptied_and_recreated_target_recovers_on_rerun),
        test("verify::a_mutation_never_reported_processed_is_sent_again_by_the_rerun", verify::a_mutation_never_reported_processed_is_sent_again_by_the_rerun),
        test("verify::a_live_index_that_lost_vectors_gets_the_version_deployed_again_into_the_other", verify::a_live_index_that_lost_vectors_gets_the_version_deployed_again_into_the_other),
        test("verify::a_check_verifies_hashes_the_version_of_its_tables_and_the_pointer_layout", verify::a_check_verifies_hashes_the_version_of_its_tables_and_the_pointer_layout),
        test("verify::a_rollback_reads_back_the_index_it_moves_to", verify::a_rollback_reads_back_the_index_it_moves_to),
        test("verify::a_second_deploy_of_a_target_is_refused_while_the_first_runs", verify::a_second_deploy_of_a_target_is_refused_while_the_first_runs),
        test("verify::a_prefix_that_pushes_keys_past_kv_limit_is_named_not_the_chunking", verify::a_prefix_that_pushes_keys_past_kv_limit_is_named_not_the_chunking),
        test("verify::a_target_whose_indexes_were_renamed_says_how_to_move_to_the_new_ones", verify::a_target_whose_indexes_were_renamed_says_how_to_move_to_the_new_ones),
        test("verify::a_build_of_another_config_or_of_other_settings_is_not_deployed", verify::a_build_of_another_config_or_of_other_settings_is_not_deployed),
        test("verify::a_version_whose_vectors_cannot_be_read_back_is_never_registered_complete", verify::a_version_whose_vectors_cannot_be_read_back_is_never_registered_complete),
    ])
}
