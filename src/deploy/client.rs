//! The Cloudflare REST calls of a deploy (Vectorize v2 upsert / delete_by_ids / get_by_ids / query /
//! info / list, KV value get/put, bulk write and bulk delete) over [`crate::http::Api`]: retries with
//! backoff on 429, 408, 5xx, timeouts and network errors, honouring `Retry-After`. Every error is a
//! [`Redacted`], and every answer is scrubbed of the token before it is parsed, so nothing a
//! server echoes can carry a credential into a message or the journal.

use std::time::Duration;

use serde_json::Value;

use crate::http::{Api, BaseUrl, Redacted, Retry, Timeouts, backoff, cf_messages};
use crate::knobs;

#[derive(Debug)]
pub(crate) struct Client {
    api: Api,
    account: String,
    /// How to resume, appended to the error of a request that ran out of attempts (e.g. "run
    /// `askzico deploy --target prod` again").
    pub resume: Option<String>,
}

impl Client {
    /// `Ok(None)` when `CLOUDFLARE_API_TOKEN` is not set (plan offline). Timeouts: see
    /// [`crate::http`]; `ASKZICO_DEPLOY_MAX_ATTEMPTS` (6) and `ASKZICO_DEPLOY_RETRY_MS` (500, the
    /// first backoff) set the retries.
    pub(crate) fn from_env(account_id: Option<&str>) -> Result<Option<Client>, String> {
        let env = |n: &str| std::env::var(n).ok();
        let var = |n: &str| {
            env(n)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let Some(token) = var("CLOUDFLARE_API_TOKEN") else {
            return Ok(None);
        };
        if !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err("CLOUDFLARE_API_TOKEN contains spaces or non-ASCII characters".into());
        }
        let account = var("CLOUDFLARE_ACCOUNT_ID")
            .or_else(|| account_id.map(|a| a.trim().to_string()).filter(|a| !a.is_empty()))
            .ok_or("a deploy needs a Cloudflare account ID: set account_id in [deploy.NAME] or export CLOUDFLARE_ACCOUNT_ID")?;
        if !account
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(format!("invalid Cloudflare account ID {account:?}"));
        }
        let base = BaseUrl::parse(var(knobs::CF_API_BASE).as_deref())?;
        let num = |n: &'static str| knobs::number_or_default(&env, n).map_err(|e| e.to_string());
        let retry = Retry {
            max_attempts: num(knobs::DEPLOY_MAX_ATTEMPTS)? as u32,
            base: Duration::from_millis(num(knobs::DEPLOY_RETRY_MS)?),
            max_backoff: Duration::from_secs(60),
        };
        let timeouts = Timeouts::default().with_env(env)?;
        Ok(Some(Client {
            api: Api::new(base, token, timeouts, retry),
            account,
            resume: None,
        }))
    }

    /// An error for the user, through the redaction.
    fn fail(&self, message: &str) -> Redacted {
        self.api.redact(message)
    }

    fn account_url(&self, rest: &str) -> String {
        self.api
            .base()
            .join(&format!("accounts/{}/{rest}", self.account))
    }

    /// One call with retries. `Ok((status, body))` for 2xx and 404; an error otherwise.
    fn call(
        &self,
        method: &str,
        url: &str,
        content_type: Option<&str>,
        body: Option<&[u8]>,
        what: &str,
    ) -> Result<(u16, String), Redacted> {
        match self.api.send(method, url, content_type, body, what) {
            Ok((404, text)) if !is_api_miss(&text) => Err(self.fail(&format!(
                "{what}: {} answered HTTP 404{}, which is not an answer of the Cloudflare API; \
                 check ASKZICO_CF_API_BASE: it must be the API's root, e.g. {}",
                self.api.base(),
                cf_messages(&text),
                crate::http::DEFAULT_API_BASE
            ))),
            Ok((status @ (200..=299 | 404), text)) => Ok((status, text)),
            Ok((status, text)) => Err(self.fail(&format!(
                "{what} failed: HTTP {status}{}{}",
                cf_messages(&text),
                refused_token(status, url)
            ))),
            Err(gave_up) => Err(match &self.resume {
                Some(hint) => self.fail(&format!("{gave_up}. {hint}")),
                None => gave_up,
            }),
        }
    }

    /// The `result` of a v4 envelope.
    fn result(&self, status: u16, text: &str, what: &str) -> Result<Value, Redacted> {
        if status == 404 {
            return Err(self.fail(&format!("{what} failed: HTTP 404{}", cf_messages(text))));
        }
        let v: Value = serde_json::from_str(text).map_err(|e| {
            self.fail(&format!(
                "{what}: unexpected response ({e}){}",
                cf_messages(text)
            ))
        })?;
        if v.get("success") == Some(&Value::Bool(false)) {
            return Err(self.fail(&format!("{what} failed{}", cf_messages(text))));
        }
        Ok(v.get("result").cloned().unwrap_or(Value::Null))
    }

    fn kv_url(&self, ns: &str, rest: &str) -> String {
        self.account_url(&format!("storage/kv/namespaces/{ns}/{rest}"))
    }

    /// `GET …/values/{key}`: the raw value, `None` when absent.
    pub(crate) fn kv_get(&self, ns: &str, key: &str) -> Result<Option<String>, Redacted> {
        let (status, text) = self.call(
            "GET",
            &self.kv_url(ns, &format!("values/{}", encode(key))),
            None,
            None,
            &format!("reading KV key {key}"),
        )?;
        // Absent only when KV says so: a namespace that does not exist is an error.
        if status == 404
            && !envelope_errors(&text).is_some_and(|codes| codes.contains(&KV_KEY_NOT_FOUND))
        {
            return Err(self.fail(&format!(
                "reading KV key {key} failed: HTTP 404{}",
                cf_messages(&text)
            )));
        }
        Ok((status != 404).then_some(text))
    }

    /// `POST …/bulk/get` of at most 100 keys: each key's value, `None` when absent. An answer
    /// not of the documented shape (`{"values": {key: {"value": string} | null}}`) is an error
    /// naming it, never read as absent keys.
    pub(crate) fn kv_bulk_get(
        &self,
        ns: &str,
        keys: &[String],
    ) -> Result<Vec<(String, Option<String>)>, Redacted> {
        let what = format!("reading {} KV keys", keys.len());
        let body = serde_json::to_vec(&serde_json::json!({ "keys": keys })).expect("serializes");
        let (status, text) = self.call(
            "POST",
            &self.kv_url(ns, "bulk/get"),
            Some("application/json"),
            Some(&body),
            &what,
        )?;
        let result = self.result(status, &text, &what)?;
        let malformed = |detail: String| {
            self.fail(&format!(
                "{what}: malformed answer ({detail}): {}",
                crate::http::snippet(&result.to_string())
            ))
        };
        let Some(values) = result.get("values").and_then(Value::as_object) else {
            return Err(malformed("no `values` object".into()));
        };
        keys.iter()
            .map(|k| {
                let v = match values.get(k) {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(v) => match v.get("value") {
                        Some(Value::String(s)) => Some(s.clone()),
                        Some(Value::Null) => None,
                        _ => {
                            return Err(malformed(format!(
                                "the entry of key {k} has no string `value`"
                            )));
                        }
                    },
                };
                Ok((k.clone(), v))
            })
            .collect()
    }

    /// `PUT …/values/{key}` with a raw body.
    pub(crate) fn kv_put(&self, ns: &str, key: &str, value: &str) -> Result<(), Redacted> {
        let what = format!("writing KV key {key}");
        let (status, text) = self.call(
            "PUT",
            &self.kv_url(ns, &format!("values/{}", encode(key))),
            Some("text/plain"),
            Some(value.as_bytes()),
            &what,
        )?;
        self.result(status, &text, &what).map(|_| ())
    }

    /// `PUT …/bulk` of `pairs` pairs: the keys KV reports unsuccessful. An answer whose
    /// `successful_key_count` and `unsuccessful_keys` do not add up to the pairs sent is an error:
    /// a success that does not account for every pair confirms nothing.
    pub(crate) fn kv_bulk(
        &self,
        ns: &str,
        body: &[u8],
        pairs: usize,
        what: &str,
    ) -> Result<Vec<String>, Redacted> {
        let (status, text) = self.call(
            "PUT",
            &self.kv_url(ns, "bulk"),
            Some("application/json"),
            Some(body),
            what,
        )?;
        let result = self.result(status, &text, what)?;
        let failed = unsuccessful_keys(&result);
        match result.get("successful_key_count").and_then(Value::as_u64) {
            Some(n) if n as usize + failed.len() == pairs => Ok(failed),
            got => Err(self.fail(&format!(
                "{what}: KV answered success for {} of {pairs} pairs ({} unsuccessful); nothing of the batch is taken as stored",
                got.map_or("an unstated number".to_string(), |n| n.to_string()),
                failed.len()
            ))),
        }
    }

    /// `POST …/bulk/delete` with a JSON array of keys: the keys KV reports unsuccessful.
    pub(crate) fn kv_bulk_delete(
        &self,
        ns: &str,
        keys: &[String],
        what: &str,
    ) -> Result<Vec<String>, Redacted> {
        let body = serde_json::to_vec(keys).expect("serializes");
        let (status, text) = self.call(
            "POST",
            &self.kv_url(ns, "bulk/delete"),
            Some("application/json"),
            Some(&body),
            what,
        )?;
        Ok(unsuccessful_keys(&self.result(status, &text, what)?))
    }

    /// Sends `items`, then resends the ones the response names unsuccessful (KV bulk writes and
    /// deletes report `unsuccessful_keys`), with backoff, up to `max_attempts` rounds.
    pub(crate) fn until_all_succeed<T>(
        &self,
        items: &[T],
        key: impl Fn(&T) -> &str,
        what: &str,
        mut send: impl FnMut(&[&T]) -> Result<Vec<String>, Redacted>,
    ) -> Result<(), Redacted> {
        let mut todo: Vec<&T> = items.iter().collect();
        let retry = self.api.retry;
        for round in 1..=retry.max_attempts {
            let failed: std::collections::BTreeSet<String> = send(&todo)?.into_iter().collect();
            todo.retain(|it| failed.contains(key(it)));
            if todo.is_empty() {
                return Ok(());
            }
            eprintln!("  {what}: {} keys unsuccessful, retrying them", todo.len());
            if round < retry.max_attempts {
                std::thread::sleep(backoff(round, retry.base, retry.max_backoff));
            }
        }
        Err(self.fail(&format!(
            "{what}: {} keys stayed unsuccessful (e.g. {}); rerun the deploy to retry",
            todo.len(),
            key(todo[0])
        )))
    }

    fn index_url(&self, index: &str, op: &str) -> String {
        self.account_url(&format!("vectorize/v2/indexes/{index}/{op}"))
    }

    fn mutation(&self, status: u16, text: &str, what: &str) -> Result<String, Redacted> {
        let r = self.result(status, text, what)?;
        r.get("mutationId")
            .and_then(Value::as_str)
            .map(String::from)
            .ok_or_else(|| self.fail(&format!("{what}: no mutationId in the response")))
    }

    /// `POST …/upsert`: a multipart part `vectors` holding the NDJSON, like wrangler.
    pub(crate) fn upsert(&self, index: &str, ndjson: &str, what: &str) -> Result<String, Redacted> {
        let boundary = format!(
            "askzico-{}",
            &blake3::hash(ndjson.as_bytes()).to_hex()[..24]
        );
        let mut body = Vec::with_capacity(ndjson.len() + 256);
        body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"vectors\"; filename=\"vectors.ndjson\"\r\nContent-Type: application/x-ndjson\r\n\r\n").as_bytes());
        body.extend_from_slice(ndjson.as_bytes());
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        let ct = format!("multipart/form-data; boundary={boundary}");
        let (status, text) = self.call(
            "POST",
            &format!(
                "{}?unparsable-behavior=error",
                self.index_url(index, "upsert")
            ),
            Some(&ct),
            Some(&body),
            what,
        )?;
        self.mutation(status, &text, what)
    }

    /// `POST …/delete_by_ids` `{"ids": [...]}`.
    pub(crate) fn delete_ids(
        &self,
        index: &str,
        ids: &[String],
        what: &str,
    ) -> Result<String, Redacted> {
        let body = serde_json::to_vec(&serde_json::json!({ "ids": ids })).expect("serializes");
        let (status, text) = self.call(
            "POST",
            &self.index_url(index, "delete_by_ids"),
            Some("application/json"),
            Some(&body),
            what,
        )?;
        self.mutation(status, &text, what)
    }

    /// `POST …/get_by_ids` `{"ids": [...]}`: the vectors the index returns (`id`, `values`, `metadata`).
    pub(crate) fn get_by_ids(&self, index: &str, ids: &[String]) -> Result<Vec<Value>, Redacted> {
        let what = format!(
            "reading {} back from Vectorize index {index}",
            crate::term::count(ids.len(), "vector", "vectors")
        );
        let body = serde_json::to_vec(&serde_json::json!({ "ids": ids })).expect("serializes");
        let (status, text) = self.call(
            "POST",
            &self.index_url(index, "get_by_ids"),
            Some("application/json"),
            Some(&body),
            &what,
        )?;
        match self.result(status, &text, &what)? {
            Value::Array(a) => Ok(a),
            Value::Null => Ok(Vec::new()),
            other => Err(self.fail(&format!(
                "{what}: expected an array of vectors, got {}",
                crate::http::snippet(&other.to_string())
            ))),
        }
    }

    /// `POST …/query` `{"vector", "topK", "returnValues": false, "returnMetadata": "none"}`: the
    /// IDs and scores of the `top_k` nearest vectors, as the index orders them.
    pub(crate) fn query(
        &self,
        index: &str,
        vector: &[f32],
        top_k: usize,
    ) -> Result<Vec<(String, f64)>, Redacted> {
        let what = format!("querying Vectorize index {index}");
        let body = serde_json::to_vec(&serde_json::json!({
            "vector": vector,
            "topK": top_k,
            "returnValues": false,
            "returnMetadata": "none",
        }))
        .expect("serializes");
        let (status, text) = self.call(
            "POST",
            &self.index_url(index, "query"),
            Some("application/json"),
            Some(&body),
            &what,
        )?;
        let r = self.result(status, &text, &what)?;
        let matches = r
            .get("matches")
            .and_then(Value::as_array)
            .ok_or_else(|| self.fail(&format!("{what}: no `matches` in the response")))?;
        matches
            .iter()
            .map(|m| {
                match (
                    m.get("id").and_then(Value::as_str),
                    m.get("score").and_then(Value::as_f64),
                ) {
                    (Some(id), Some(score)) => Ok((id.to_string(), score)),
                    _ => Err(self.fail(&format!(
                        "{what}: a match without an `id` and a `score`: {}",
                        crate::http::snippet(&m.to_string())
                    ))),
                }
            })
            .collect()
    }

    /// `GET …/list?count=1000&cursor=…`: every vector ID the index holds (paged).
    pub(crate) fn list_ids(&self, index: &str) -> Result<Vec<String>, Redacted> {
        let what = format!("listing the vector IDs of Vectorize index {index}");
        let mut ids = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let previous = cursor.clone();
            let mut url = format!("{}?count=1000", self.index_url(index, "list"));
            if let Some(c) = &cursor {
                url.push_str(&format!("&cursor={}", encode(c)));
            }
            let (status, text) = self.call("GET", &url, None, None, &what)?;
            let r = self.result(status, &text, &what)?;
            let page = r
                .get("vectors")
                .and_then(Value::as_array)
                .ok_or_else(|| self.fail(&format!("{what}: no `vectors` in the response")))?;
            ids.extend(
                page.iter()
                    .filter_map(|v| v.get("id").and_then(Value::as_str).map(String::from)),
            );
            match (
                r.get("isTruncated").and_then(Value::as_bool),
                r.get("nextCursor").and_then(Value::as_str),
            ) {
                (Some(true), Some(c)) if previous.as_deref() == Some(c) => {
                    return Err(
                        self.fail(&format!("{what}: the index returned the cursor {c} twice"))
                    );
                }
                (Some(true), Some(c)) if !page.is_empty() => cursor = Some(c.to_string()),
                _ => return Ok(ids),
            }
        }
    }

    /// `GET …/info`.
    pub(crate) fn info(&self, index: &str) -> Result<Value, Redacted> {
        let what = format!("reading Vectorize index {index} info");
        let (status, text) = self.call("GET", &self.index_url(index, "info"), None, None, &what)?;
        self.result(status, &text, &what)
    }
}

/// Percent-encodes a KV key for a URL path segment.
pub(crate) fn encode(key: &str) -> String {
    let mut s = String::with_capacity(key.len());
    for b in key.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// Cloudflare's error codes of a path the API has no route for: "No route for the URI" and its
/// kin (7000–7099), and KV's "endpoint does not exist" (10025).
fn is_route_error(code: u64) -> bool {
    (7000..7100).contains(&code) || code == 10025
}

/// KV's error code for a key that is not there.
const KV_KEY_NOT_FOUND: u64 = 10009;

/// The error codes of a v4 envelope (`success: false` and an `errors` array); `None` when the
/// body is not one.
fn envelope_errors(body: &str) -> Option<Vec<u64>> {
    let v = serde_json::from_str::<Value>(body).ok()?;
    let errors = v.get("errors")?.as_array()?;
    (v.get("success") == Some(&Value::Bool(false))).then(|| {
        errors
            .iter()
            .filter_map(|e| e.get("code").and_then(Value::as_u64))
            .collect()
    })
}

/// Whether a 404 answer is the Cloudflare API saying that something is absent: a v4 envelope
/// whose errors are not a route error. Anything else (a web server's page, a proxy's text, a
/// route error) means the base does not point at the API, and must never read as "nothing is
/// there".
fn is_api_miss(body: &str) -> bool {
    envelope_errors(body).is_some_and(|codes| !codes.into_iter().any(is_route_error))
}

/// The keys a KV bulk write or delete reports `unsuccessful_keys` (none when absent).
fn unsuccessful_keys(result: &Value) -> Vec<String> {
    result
        .get("unsuccessful_keys")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|k| k.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// What a 401 or 403 answer means for a deploy: the token lacks the permission the request
/// needs (named as the Cloudflare dashboard names it), or it is not valid for the account.
fn refused_token(status: u16, url: &str) -> String {
    if !matches!(status, 401 | 403) {
        return String::new();
    }
    let permission = if url.contains("/storage/kv/") {
        "Account › Workers KV Storage › Edit"
    } else if url.contains("/vectorize/") {
        "Account › Vectorize › Edit"
    } else if url.contains("/ai/") {
        "Account › Workers AI › Read"
    } else {
        "Account › Workers KV Storage › Edit and Account › Vectorize › Edit"
    };
    format!(
        ". The API token was refused: a deploy's token needs {permission} (all a deploy uses: \
         Workers KV Storage Edit and Vectorize Edit, plus Workers AI Read for a workers-ai \
         embedder) on this account; check CLOUDFLARE_API_TOKEN and the account ID"
    )
}
