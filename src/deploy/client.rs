//! The Cloudflare REST calls of a deploy (Vectorize v2 upsert / delete_by_ids / get_by_ids / info /
//! list, KV value get/put, bulk write and bulk delete), with retries and exponential backoff plus jitter on 429, 408, 5xx and
//! network errors, honouring `Retry-After`. The token is never formatted; errors are scrubbed.

use std::time::Duration;

use serde_json::Value;

use crate::embed::workers_ai::{
    DEFAULT_API_BASE, Secret, backoff, cf_messages, is_loopback, parse_retry_after,
};

#[derive(Debug)]
pub struct Client {
    base: String,
    account: String,
    token: Secret,
    agent: ureq::Agent,
    pub max_attempts: u32,
    pub retry_base: Duration,
    pub max_backoff: Duration,
}

const MAX_RESPONSE_BYTES: u64 = 64 * 1024 * 1024;

impl Client {
    /// `Ok(None)` when `CLOUDFLARE_API_TOKEN` is not set (plan offline).
    pub fn from_env(account_id: Option<&str>) -> Result<Option<Client>, String> {
        let var = |n: &str| {
            std::env::var(n)
                .ok()
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
        let base = var("ASKZICO_CF_API_BASE")
            .unwrap_or_else(|| DEFAULT_API_BASE.to_string())
            .trim_end_matches('/')
            .to_string();
        if !(base.starts_with("https://") || base.starts_with("http://")) {
            return Err(format!(
                "ASKZICO_CF_API_BASE {base:?} is not an http(s) URL"
            ));
        }
        let proxy = if is_loopback(&base) {
            None
        } else {
            ureq::Proxy::try_from_env()
        };
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(300)))
            .timeout_connect(Some(Duration::from_secs(15)))
            .proxy(proxy)
            .max_redirects(0)
            .user_agent(concat!("askzico/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        let num = |n: &str, d: u64| var(n).and_then(|v| v.parse::<u64>().ok()).unwrap_or(d);
        Ok(Some(Client {
            base,
            account,
            token: Secret(token),
            agent,
            max_attempts: num("ASKZICO_DEPLOY_MAX_ATTEMPTS", 6).max(1) as u32,
            retry_base: Duration::from_millis(num("ASKZICO_DEPLOY_RETRY_MS", 500)),
            max_backoff: Duration::from_secs(60),
        }))
    }

    fn scrub(&self, s: String) -> String {
        if self.token.0.is_empty() || !s.contains(&self.token.0) {
            s
        } else {
            s.replace(&self.token.0, "[redacted]")
        }
    }

    fn account_url(&self, rest: &str) -> String {
        format!("{}/accounts/{}/{rest}", self.base, self.account)
    }

    /// One call with retries. `Ok((status, body))` for 2xx and 404; an error otherwise.
    fn call(
        &self,
        method: &str,
        url: &str,
        content_type: Option<&str>,
        body: Option<&[u8]>,
        what: &str,
    ) -> Result<(u16, String), String> {
        let bearer = format!("Bearer {}", self.token.0);
        let mut last = String::new();
        for attempt in 1..=self.max_attempts {
            let sent = match (method, body) {
                ("GET", _) => self.agent.get(url).header("Authorization", &bearer).call(),
                ("PUT", Some(b)) => self
                    .agent
                    .put(url)
                    .header("Authorization", &bearer)
                    .header("Content-Type", content_type.unwrap_or("application/json"))
                    .send(b),
                (_, b) => self
                    .agent
                    .post(url)
                    .header("Authorization", &bearer)
                    .header("Content-Type", content_type.unwrap_or("application/json"))
                    .send(b.unwrap_or(&[])),
            };
            let mut retry_after = None;
            match sent {
                Err(e) => last = format!("could not reach {}: {e}", self.base),
                Ok(mut resp) => {
                    let status = resp.status().as_u16();
                    retry_after = resp
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .and_then(parse_retry_after);
                    match (
                        status,
                        resp.body_mut()
                            .with_config()
                            .limit(MAX_RESPONSE_BYTES)
                            .read_to_string(),
                    ) {
                        (200..=299 | 404, Ok(text)) => return Ok((status, text)),
                        (_, Err(e)) => {
                            last = format!("HTTP {status}, and reading the response failed: {e}")
                        }
                        (429 | 408 | 500..=599, Ok(text)) => {
                            last = format!("HTTP {status}{}", cf_messages(&text))
                        }
                        (_, Ok(text)) => {
                            return Err(self.scrub(format!(
                                "{what} failed: HTTP {status}{}",
                                cf_messages(&text)
                            )));
                        }
                    }
                }
            }
            if attempt < self.max_attempts {
                let wait = match retry_after {
                    Some(d) => d.min(self.max_backoff),
                    None => backoff(attempt, self.retry_base, self.max_backoff),
                };
                eprintln!(
                    "  {what}: {}; retrying in {:.1}s",
                    self.scrub(last.clone()),
                    wait.as_secs_f64()
                );
                std::thread::sleep(wait);
            }
        }
        Err(self.scrub(format!(
            "{what} failed after {} attempts: {last}",
            self.max_attempts
        )))
    }

    /// The `result` of a v4 envelope.
    fn result(&self, status: u16, text: &str, what: &str) -> Result<Value, String> {
        if status == 404 {
            return Err(format!("{what} failed: HTTP 404{}", cf_messages(text)));
        }
        let v: Value =
            serde_json::from_str(text).map_err(|e| format!("{what}: unexpected response ({e})"))?;
        if v.get("success") == Some(&Value::Bool(false)) {
            return Err(self.scrub(format!("{what} failed{}", cf_messages(text))));
        }
        Ok(v.get("result").cloned().unwrap_or(Value::Null))
    }

    fn kv_url(&self, ns: &str, rest: &str) -> String {
        self.account_url(&format!("storage/kv/namespaces/{ns}/{rest}"))
    }

    /// `GET …/values/{key}`: the raw value, `None` when absent.
    pub fn kv_get(&self, ns: &str, key: &str) -> Result<Option<String>, String> {
        let (status, text) = self.call(
            "GET",
            &self.kv_url(ns, &format!("values/{}", encode(key))),
            None,
            None,
            &format!("reading KV key {key}"),
        )?;
        Ok((status != 404).then_some(text))
    }

    /// `PUT …/values/{key}` with a raw body.
    pub fn kv_put(&self, ns: &str, key: &str, value: &str) -> Result<(), String> {
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

    /// `PUT …/bulk`: the keys KV reports unsuccessful.
    pub fn kv_bulk(&self, ns: &str, body: &[u8], what: &str) -> Result<Vec<String>, String> {
        let (status, text) = self.call(
            "PUT",
            &self.kv_url(ns, "bulk"),
            Some("application/json"),
            Some(body),
            what,
        )?;
        let r = self.result(status, &text, what)?;
        Ok(r.get("unsuccessful_keys")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|k| k.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// `POST …/bulk/delete` with a JSON array of keys: the keys KV reports unsuccessful.
    pub fn kv_bulk_delete(
        &self,
        ns: &str,
        keys: &[String],
        what: &str,
    ) -> Result<Vec<String>, String> {
        let body = serde_json::to_vec(keys).expect("serializes");
        let (status, text) = self.call(
            "POST",
            &self.kv_url(ns, "bulk/delete"),
            Some("application/json"),
            Some(&body),
            what,
        )?;
        let r = self.result(status, &text, what)?;
        Ok(r.get("unsuccessful_keys")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|k| k.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Sends `items`, then resends the ones the response names unsuccessful (KV bulk writes and
    /// deletes report `unsuccessful_keys`), with backoff, up to `max_attempts` rounds.
    pub fn until_all_succeed<T>(
        &self,
        items: &[T],
        key: impl Fn(&T) -> &str,
        what: &str,
        mut send: impl FnMut(&[&T]) -> Result<Vec<String>, String>,
    ) -> Result<(), String> {
        let mut todo: Vec<&T> = items.iter().collect();
        for round in 1..=self.max_attempts {
            let failed: std::collections::BTreeSet<String> = send(&todo)?.into_iter().collect();
            todo.retain(|it| failed.contains(key(it)));
            if todo.is_empty() {
                return Ok(());
            }
            eprintln!("  {what}: {} keys unsuccessful, retrying them", todo.len());
            if round < self.max_attempts {
                std::thread::sleep(backoff(round, self.retry_base, self.max_backoff));
            }
        }
        Err(format!(
            "{what}: {} keys stayed unsuccessful (e.g. {}); rerun the deploy to retry",
            todo.len(),
            key(todo[0])
        ))
    }

    fn index_url(&self, index: &str, op: &str) -> String {
        self.account_url(&format!("vectorize/v2/indexes/{index}/{op}"))
    }

    fn mutation(&self, status: u16, text: &str, what: &str) -> Result<String, String> {
        let r = self.result(status, text, what)?;
        r.get("mutationId")
            .and_then(Value::as_str)
            .map(String::from)
            .ok_or_else(|| format!("{what}: no mutationId in the response"))
    }

    /// `POST …/upsert`: a multipart part `vectors` holding the NDJSON, like wrangler.
    pub fn upsert(&self, index: &str, ndjson: &str, what: &str) -> Result<String, String> {
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
    pub fn delete_ids(&self, index: &str, ids: &[String], what: &str) -> Result<String, String> {
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
    pub fn get_by_ids(&self, index: &str, ids: &[String]) -> Result<Vec<Value>, String> {
        let what = format!(
            "reading {} vectors back from Vectorize index {index}",
            ids.len()
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
            other => Err(format!(
                "{what}: expected an array of vectors, got {}",
                other.to_string().chars().take(80).collect::<String>()
            )),
        }
    }

    /// `GET …/list?count=1000&cursor=…`: every vector ID the index holds (paged).
    pub fn list_ids(&self, index: &str) -> Result<Vec<String>, String> {
        let what = format!("listing the vector IDs of Vectorize index {index}");
        let mut ids = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut url = format!("{}?count=1000", self.index_url(index, "list"));
            if let Some(c) = &cursor {
                url.push_str(&format!("&cursor={}", encode(c)));
            }
            let (status, text) = self.call("GET", &url, None, None, &what)?;
            let r = self.result(status, &text, &what)?;
            let page = r
                .get("vectors")
                .and_then(Value::as_array)
                .ok_or_else(|| format!("{what}: no `vectors` in the response"))?;
            ids.extend(
                page.iter()
                    .filter_map(|v| v.get("id").and_then(Value::as_str).map(String::from)),
            );
            match (
                r.get("isTruncated").and_then(Value::as_bool),
                r.get("nextCursor").and_then(Value::as_str),
            ) {
                (Some(true), Some(c)) if !page.is_empty() => cursor = Some(c.to_string()),
                _ => return Ok(ids),
            }
        }
    }

    /// `GET …/info`.
    pub fn info(&self, index: &str) -> Result<Value, String> {
        let what = format!("reading Vectorize index {index} info");
        let (status, text) = self.call("GET", &self.index_url(index, "info"), None, None, &what)?;
        self.result(status, &text, &what)
    }
}

/// Percent-encodes a KV key for a URL path segment.
pub fn encode(key: &str) -> String {
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
