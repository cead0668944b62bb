//! http: what every HTTP client of askzico shares (the deploy's Cloudflare client, the
//! `workers-ai` embedder): the API base URL (shown with its userinfo masked), timeouts that fit an
//! API, one request loop with retries and backoff, and one redaction ([`redact`]) that every
//! message built from an exchange goes through before anything can print or store it.
//!
//! Timeouts: connecting (name lookup, TCP, TLS) gives up after `connect` (15 s); an exchange gives
//! up when no byte was sent or received for `idle` (60 s): each socket read and write restarts
//! it; and one request, from connecting to the last byte of its answer, gives up after
//! `deadline` (5 min), so a server that trickles a byte now and then cannot hold a command
//! forever. A request still running after a while is said on stderr (what it awaits, for how
//! long, and when it gives up). `ASKZICO_HTTP_CONNECT_TIMEOUT_MS`, `ASKZICO_HTTP_IDLE_TIMEOUT_MS`
//! and `ASKZICO_HTTP_DEADLINE_MS` override them (a slow proxy; tests set them low; read by
//! `Timeouts::with_env` in the `knobs` module).

pub(crate) mod redact;

use std::borrow::Cow;
use std::fmt;
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

pub(crate) use redact::{Redacted, Redactor};

/// Default API base; `ASKZICO_CF_API_BASE` overrides it (tests, proxies).
pub(crate) const DEFAULT_API_BASE: &str = "https://api.cloudflare.com/client/v4";

/// Cap on a response body (a Workers AI answer of 100 × 1024 floats is about 2 MB of JSON).
const MAX_RESPONSE_BYTES: u64 = 64 * 1024 * 1024;

/// A string that never shows up in `Debug`.
pub(crate) struct Secret(String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// The API base URL: an http(s) URL without a trailing `/`. `Display` and `Debug` mask its
/// userinfo; only [`BaseUrl::join`] gives the URL a request is sent to.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct BaseUrl(String);

impl BaseUrl {
    /// `ASKZICO_CF_API_BASE` as given (trimmed), or the default. The error names the variable and
    /// shows the value masked.
    pub(crate) fn parse(value: Option<&str>) -> Result<BaseUrl, String> {
        let raw = value
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .unwrap_or(DEFAULT_API_BASE)
            .trim_end_matches('/');
        let lower = raw.to_ascii_lowercase();
        if !(lower.starts_with("https://") || lower.starts_with("http://")) {
            return Err(format!(
                "ASKZICO_CF_API_BASE {:?} is not an http(s) URL",
                redact::shown_base(raw)
            ));
        }
        // Every request's path is appended to the base: after a query string or a fragment it
        // would be a parameter, and every request would reach the same page.
        if raw.contains(['?', '#']) {
            return Err(format!(
                "ASKZICO_CF_API_BASE {:?} has a query string or a fragment; the base is the API's root, \
                 e.g. {DEFAULT_API_BASE}",
                redact::shown_base(raw)
            ));
        }
        Ok(BaseUrl(raw.to_string()))
    }

    /// The URL of `path` under the base (`path` starts without a `/`).
    pub(crate) fn join(&self, path: &str) -> String {
        format!("{}/{path}", self.0)
    }

    fn is_loopback(&self) -> bool {
        is_loopback(&self.0)
    }
}

impl fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&redact::shown_url(&self.0))
    }
}

impl fmt::Debug for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BaseUrl({self})")
    }
}

/// How long to wait for a connection, for the next byte of an exchange, and for a whole request
/// (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Timeouts {
    pub connect: Duration,
    pub idle: Duration,
    pub deadline: Duration,
}

impl Default for Timeouts {
    /// 15 s, 60 s and 5 min: the defaults of the knobs that override them (the `knobs` module).
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(15),
            idle: Duration::from_secs(60),
            deadline: Duration::from_secs(300),
        }
    }
}

impl Timeouts {
    /// How often a request still running is said: four times over its deadline, at most every
    /// 15 s.
    fn progress_every(&self) -> Duration {
        (self.deadline / 4).clamp(Duration::from_millis(1), Duration::from_secs(15))
    }
}

/// Attempts per request and the backoff between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Retry {
    /// Attempts per request, the first included (at least 1).
    pub max_attempts: u32,
    /// First backoff; it doubles per attempt, with jitter, up to `max_backoff`.
    pub base: Duration,
    /// Cap on one wait, also on a server's `Retry-After`.
    pub max_backoff: Duration,
}

/// One client's connection to the API: the base URL, the token, the agent, the redactor.
pub(crate) struct Api {
    base: BaseUrl,
    token: Secret,
    agent: ureq::Agent,
    redactor: Redactor,
    timeouts: Timeouts,
    pub retry: Retry,
}

impl fmt::Debug for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Api")
            .field("base", &self.base)
            .field("token", &self.token)
            .field("timeouts", &self.timeouts)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl Api {
    /// An agent that never follows a redirect (the token stays with the host it is meant for),
    /// uses the proxy of the environment except for a loopback base, and keeps to `timeouts`.
    pub(crate) fn new(base: BaseUrl, token: String, timeouts: Timeouts, retry: Retry) -> Api {
        let proxy = if base.is_loopback() {
            None
        } else {
            ureq::Proxy::try_from_env()
        };
        let mut redactor = Redactor::default().secret(&token).url(&base.0);
        if let Some(p) = &proxy {
            redactor = redactor.url(&p.uri().to_string());
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_resolve(Some(timeouts.connect))
            .timeout_connect(Some(timeouts.connect))
            .timeout_per_read(Some(timeouts.idle))
            .timeout_per_write(Some(timeouts.idle))
            .timeout_global(Some(timeouts.deadline))
            .proxy(proxy)
            .max_redirects(0)
            .user_agent(concat!("askzico/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Api {
            base,
            token: Secret(token),
            agent,
            redactor,
            timeouts,
            retry: Retry {
                max_attempts: retry.max_attempts.max(1),
                ..retry
            },
        }
    }

    pub(crate) fn base(&self) -> &BaseUrl {
        &self.base
    }

    /// The redaction of this client (its token and URL credentials, and every pattern).
    pub(crate) fn redact(&self, text: &str) -> Redacted {
        self.redactor.redact(text)
    }

    /// One request, retried with backoff (honouring `Retry-After`) on 429, 408, 5xx, a body that
    /// could not be read, and transport errors (timeouts included); each retry is printed to
    /// stderr, naming the request (`what`) and the problem. `Ok((status, body))` for any other
    /// status, the body scrubbed of this client's secrets; `Err` once the attempts run out.
    pub(crate) fn send(
        &self,
        method: &str,
        url: &str,
        content_type: Option<&str>,
        body: Option<&[u8]>,
        what: &str,
    ) -> Result<(u16, String), Redacted> {
        let bearer = format!("Bearer {}", self.token.0);
        let max = self.retry.max_attempts;
        let mut last = String::new();
        for attempt in 1..=max {
            let (done, finished) = mpsc::channel::<()>();
            let (result, retry_after) = std::thread::scope(|s| {
                s.spawn(move || self.say_progress(what, &finished));
                let r = self.attempt(method, url, content_type, body, &bearer);
                drop(done);
                r
            });
            match result {
                Ok(answer) => return Ok(answer),
                Err(problem) => last = problem,
            }
            if attempt < max {
                let wait = match retry_after {
                    Some(d) => d.min(self.retry.max_backoff),
                    None => backoff(attempt, self.retry.base, self.retry.max_backoff),
                };
                eprintln!(
                    "  {}",
                    self.redact(&format!(
                        "{what}: {last}; retrying in {:.1}s (attempt {} of {max})",
                        wait.as_secs_f64(),
                        attempt + 1
                    ))
                );
                std::thread::sleep(wait);
            }
        }
        let attempts = match max {
            1 => "1 attempt".to_string(),
            n => format!("{n} attempts"),
        };
        Err(self.redact(&format!("{what} failed after {attempts}: {last}")))
    }

    /// While one attempt runs (until `finished` is dropped), says on stderr every
    /// [`Timeouts::progress_every`] what it awaits and when it gives up.
    fn say_progress(&self, what: &str, finished: &mpsc::Receiver<()>) {
        let start = Instant::now();
        let every = self.timeouts.progress_every();
        while let Err(mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(every) {
            eprintln!(
                "  {}",
                self.redact(&format!(
                    "{what}: still waiting for {} after {} (gives up after {})",
                    self.base,
                    secs_elapsed(start.elapsed()),
                    secs(self.timeouts.deadline)
                ))
            );
        }
    }

    /// One attempt: `Ok` with the status and the scrubbed body of an answer not to retry; `Err`
    /// with the problem (not redacted yet) and the server's `Retry-After`.
    #[allow(clippy::type_complexity)]
    fn attempt(
        &self,
        method: &str,
        url: &str,
        content_type: Option<&str>,
        body: Option<&[u8]>,
        bearer: &str,
    ) -> (Result<(u16, String), String>, Option<Duration>) {
        {
            let sent = match method {
                "GET" => self.agent.get(url).header("Authorization", bearer).call(),
                "PUT" => self
                    .agent
                    .put(url)
                    .header("Authorization", bearer)
                    .header("Content-Type", content_type.unwrap_or("application/json"))
                    .send(body.unwrap_or_default()),
                _ => self
                    .agent
                    .post(url)
                    .header("Authorization", bearer)
                    .header("Content-Type", content_type.unwrap_or("application/json"))
                    .send(body.unwrap_or_default()),
            };
            let mut retry_after = None;
            let last = match sent {
                Err(e) => self.transport_problem(&e, false),
                Ok(mut resp) => {
                    let status = resp.status().as_u16();
                    retry_after = resp
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .and_then(parse_retry_after);
                    // Scrubbed first: nothing below may cut a secret in two.
                    let read = resp
                        .body_mut()
                        .with_config()
                        .limit(MAX_RESPONSE_BYTES)
                        .read_to_string()
                        .map(|text| self.redactor.scrub(text));
                    match (status, read) {
                        (_, Err(e)) => format!(
                            "HTTP {status}, and reading the response failed: {}",
                            self.transport_problem(&e, true)
                        ),
                        (429 | 408 | 500..=599, Ok(text)) => {
                            format!("HTTP {status}{}", cf_messages(&text))
                        }
                        (_, Ok(text)) => return (Ok((status, text)), None),
                    }
                }
            };
            (Err(last), retry_after)
        }
    }

    /// What went wrong on the way (not redacted yet), timeouts in words that say which wait ran out.
    fn transport_problem(&self, e: &ureq::Error, reading_body: bool) -> String {
        use ureq::Timeout as T;
        let (base, connect, idle) = (
            &self.base,
            secs(self.timeouts.connect),
            secs(self.timeouts.idle),
        );
        match e {
            ureq::Error::Timeout(T::Connect | T::Resolve) => {
                format!("timed out after {connect} connecting to {base}")
            }
            ureq::Error::Timeout(T::PerRead) if reading_body => {
                format!("timed out: the response from {base} stopped for {idle}")
            }
            ureq::Error::Timeout(T::PerRead) => {
                format!("timed out: no response from {base} for {idle}")
            }
            ureq::Error::Timeout(T::PerWrite) => {
                format!("timed out: {base} took no data for {idle} (the upload stalled)")
            }
            ureq::Error::Timeout(T::Global) => format!(
                "timed out: the answer from {base} took longer than {} in all \
                 (ASKZICO_HTTP_DEADLINE_MS sets the limit)",
                secs(self.timeouts.deadline)
            ),
            ureq::Error::Timeout(t) => format!("timed out ({t}) talking to {base}"),
            e => format!("could not reach {base}: {e}"),
        }
    }
}

/// `60 s`, `0.3 s`.
fn secs(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// `12 s`, or `0.3 s` under 10 s: a time that has passed.
fn secs_elapsed(d: Duration) -> String {
    if d < Duration::from_secs(10) {
        format!("{:.1} s", d.as_secs_f64())
    } else {
        format!("{} s", d.as_secs())
    }
}

/// Whether a URL's host is the loopback interface (its userinfo skipped).
pub(crate) fn is_loopback(base: &str) -> bool {
    let rest = base.split_once("://").map_or(base, |(_, r)| r);
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let rest = match rest[..authority_end].rfind('@') {
        Some(at) => &rest[at + 1..],
        None => rest,
    };
    ["127.0.0.1", "localhost", "[::1]"].iter().any(|h| {
        rest.strip_prefix(h)
            .is_some_and(|after| after.is_empty() || after.starts_with([':', '/']))
    })
}

/// `Retry-After`: delay-seconds or an HTTP date.
pub(crate) fn parse_retry_after(v: &str) -> Option<Duration> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = httpdate::parse_http_date(v).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// `base * 2^(attempt-1)`, capped, then jittered into [d/2, d].
pub(crate) fn backoff(attempt: u32, base: Duration, cap: Duration) -> Duration {
    let exp = base.saturating_mul(1u32 << (attempt - 1).min(20)).min(cap);
    exp.mul_f64(0.5 + 0.5 * jitter())
}

/// A number in [0, 1) that differs between calls and processes (no RNG crate needed).
fn jitter() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos(),
    );
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// `": message; message"` from a Cloudflare v4 error envelope, or a body snippet.
pub(crate) fn cf_messages(body: &str) -> String {
    let msgs: Vec<String> = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("errors").and_then(|e| e.as_array()).cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|e| {
            let m = e.get("message").and_then(|m| m.as_str())?;
            Some(match e.get("code").and_then(|c| c.as_i64()) {
                Some(c) => format!("{m} (code {c})"),
                None => m.to_string(),
            })
        })
        .collect();
    if !msgs.is_empty() {
        let joined = one_line(&msgs.join("; "));
        return format!(": {}", truncate_chars(&joined, 500));
    }
    let s = snippet(body);
    if s.is_empty() {
        String::new()
    } else {
        format!(": {s}")
    }
}

/// The start of a body, at most 200 chars, on one line.
pub(crate) fn snippet(body: &str) -> Cow<'_, str> {
    let t = body.trim();
    let t = if t.contains(char::is_control) {
        Cow::Owned(one_line(t))
    } else {
        Cow::Borrowed(t)
    };
    if t.chars().count() > 200 {
        Cow::Owned(format!("{}…", truncate_chars(&t, 200)))
    } else {
        t
    }
}

/// Server text made fit for a terminal line: control characters (newlines, escape sequences)
/// become spaces, and runs of spaces one.
fn one_line(s: &str) -> String {
    s.split(|c: char| c.is_control() || c == ' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn truncate_chars(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

#[cfg(test)]
mod tests;
