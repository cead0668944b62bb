//! The `workers-ai` provider: Cloudflare Workers AI over REST
//! (`POST {base}/accounts/{account}/ai/run/{model}`, body `{"text": [..], "truncate_inputs": ..}`).
//! Edges only: network I/O through [`crate::http::Api`] (timeouts, retries, redaction),
//! environment variables at construction. The API token is never formatted; every error is built
//! through the redaction.

use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use serde::Deserialize;

use crate::knobs;

use crate::embed::{EmbedError, Embedder, check_vectors};
use crate::http::{Api, BaseUrl, Redacted, Retry, Timeouts, cf_messages, snippet};

// Limits, with their sources (Cloudflare changes them; update here).
/// Texts per request: `text` maxItems in docs `src/content/workers-ai-models/bge-m3.json`
/// (also bge-base/large/small-en-v1.5).
pub(crate) const WORKERS_AI_MAX_BATCH: usize = 100;
/// bge-m3 takes at most 512 input tokens (docs `ai-search/configuration/models/supported-models.mdx`;
/// the model page says 60,000). 2,000 chars of Arabic is about 400-600 tokens, so the default also
/// asks Cloudflare to truncate what is still too long (`truncate_inputs`).
const DEFAULT_MAX_CHARS: usize = 2000;

/// Settings of the `workers-ai` provider. `WorkersAiConfig { model, dims, ..Default::default() }`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WorkersAiConfig {
    /// e.g. `@cf/baai/bge-m3`.
    pub model: String,
    /// Output dimensions of the model (1024 for bge-m3); every answer is checked against it.
    pub dims: usize,
    /// From the config file; `CLOUDFLARE_ACCOUNT_ID` wins when set.
    pub account_id: Option<String>,
    /// Input policy: a longer text is cut to this many chars (Unicode scalar values) at the last
    /// word boundary (a space) before the limit; a single longer word is cut at the limit.
    pub max_chars: usize,
    /// Texts per request, 1..=100.
    pub batch: usize,
    /// Sent as `truncate_inputs`: Cloudflare truncates an input still over the model's token
    /// limit instead of failing the request.
    pub truncate_inputs: bool,
    /// Requests in flight at once (Cloudflare allows 3,000 requests a minute for embeddings).
    pub concurrency: usize,
    /// Attempts per request (the first try included), on 429, 408, 5xx, timeouts and network
    /// errors.
    pub max_attempts: u32,
    /// Connect and idle timeouts (`crate::http`); `ASKZICO_HTTP_CONNECT_TIMEOUT_MS` and
    /// `ASKZICO_HTTP_IDLE_TIMEOUT_MS` override them.
    pub timeouts: Timeouts,
    /// First backoff; it doubles per attempt, with jitter, up to `max_backoff`.
    pub retry_base: Duration,
    /// Cap on one wait, also on a server's `Retry-After`.
    pub max_backoff: Duration,
}

impl Default for WorkersAiConfig {
    fn default() -> Self {
        WorkersAiConfig {
            model: "@cf/baai/bge-m3".into(),
            dims: 1024,
            account_id: None,
            max_chars: DEFAULT_MAX_CHARS,
            batch: WORKERS_AI_MAX_BATCH,
            truncate_inputs: true,
            concurrency: 4,
            max_attempts: 6,
            timeouts: Timeouts::default(),
            retry_base: Duration::from_millis(500),
            max_backoff: Duration::from_secs(60),
        }
    }
}

pub(crate) struct WorkersAi {
    config: WorkersAiConfig,
    account: String,
    url: String,
    api: Api,
}

impl fmt::Debug for WorkersAi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WorkersAi")
            .field("config", &self.config)
            .field("api", &self.api)
            .finish_non_exhaustive()
    }
}

/// An error of this provider: message and help, both through the redaction (the only error
/// the request path can return).
struct Failure {
    message: Redacted,
    help: Redacted,
}

impl From<Failure> for EmbedError {
    fn from(f: Failure) -> EmbedError {
        EmbedError::new(f.message, f.help)
    }
}

/// A settings problem of the workers-ai provider.
fn invalid(what: String, help: &str) -> EmbedError {
    EmbedError::new(format!("embedding provider workers-ai: {what}"), help)
}

/// The model name and the sizes and counts of the settings are in range.
fn check_settings(config: &WorkersAiConfig) -> Result<(), EmbedError> {
    if config.model.is_empty()
        || !config
            .model
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "@/._-".contains(c))
    {
        return Err(invalid(
            format!("invalid model name {:?}", config.model),
            "use a Workers AI model name such as \"@cf/baai/bge-m3\"",
        ));
    }
    if config.dims == 0 {
        return Err(invalid(
            "dims must be at least 1".into(),
            "set the embedding dims to the model's output size (1024 for @cf/baai/bge-m3)",
        ));
    }
    if config.batch == 0 || config.batch > WORKERS_AI_MAX_BATCH {
        return Err(invalid(
            format!("batch {} is out of range", config.batch),
            "Workers AI takes 1 to 100 texts per request; set batch between 1 and 100",
        ));
    }
    if config.max_chars == 0 {
        return Err(invalid(
            "max_chars must be at least 1".into(),
            "set max_chars to the longest input to send, e.g. 2000",
        ));
    }
    if config.concurrency == 0 || config.max_attempts == 0 {
        return Err(invalid(
            "concurrency and max_attempts must be at least 1".into(),
            "use the defaults (4 and 6)",
        ));
    }
    Ok(())
}

/// The API token (from the environment only) and the account ID (the environment's, else the
/// settings').
struct Credentials {
    token: String,
    account: String,
}

fn credentials(
    config: &WorkersAiConfig,
    var: &impl Fn(&str) -> Option<String>,
) -> Result<Credentials, EmbedError> {
    let token = var("CLOUDFLARE_API_TOKEN").ok_or_else(|| {
        EmbedError::new(
            "embedding provider workers-ai needs an API token, and CLOUDFLARE_API_TOKEN is not set",
            "create a Cloudflare API token with the Workers AI permission and export it as CLOUDFLARE_API_TOKEN, \
             or use the offline provider \"hash\"",
        )
    })?;
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(invalid(
            "CLOUDFLARE_API_TOKEN contains spaces or non-ASCII characters".into(),
            "copy the token again, exactly as Cloudflare shows it",
        ));
    }
    let account = var("CLOUDFLARE_ACCOUNT_ID")
        .or_else(|| {
            config
                .account_id
                .clone()
                .map(|a| a.trim().to_string())
                .filter(|a| !a.is_empty())
        })
        .ok_or_else(|| {
            EmbedError::new(
                "embedding provider workers-ai needs a Cloudflare account ID",
                "export CLOUDFLARE_ACCOUNT_ID, or set account_id in the embedding settings of corpus.toml",
            )
        })?;
    if !account
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(invalid(
            format!("invalid Cloudflare account ID {account:?}"),
            "the account ID is the 32-character hex string in the Cloudflare dashboard URL",
        ));
    }
    Ok(Credentials { token, account })
}

impl WorkersAi {
    /// Reads `CLOUDFLARE_API_TOKEN`, `CLOUDFLARE_ACCOUNT_ID` and `ASKZICO_CF_API_BASE` now.
    pub(crate) fn new(config: WorkersAiConfig) -> Result<Self, EmbedError> {
        Self::new_with_env(config, |name| std::env::var(name).ok())
    }

    /// As [`WorkersAi::new`], with the environment given as a lookup (for tests and embedding
    /// in a process whose environment is not the user's).
    pub(crate) fn new_with_env(
        config: WorkersAiConfig,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, EmbedError> {
        let var = |name: &str| {
            env(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        check_settings(&config)?;
        let Credentials { token, account } = credentials(&config, &var)?;
        let base = BaseUrl::parse(var(knobs::CF_API_BASE).as_deref()).map_err(|e| {
            invalid(
                e,
                "unset ASKZICO_CF_API_BASE, or set it to e.g. https://api.cloudflare.com/client/v4",
            )
        })?;
        let url = base.join(&format!("accounts/{account}/ai/run/{}", config.model));
        // Timeouts and retries as configured, unless the environment says otherwise
        // (`crate::http`; `ASKZICO_WORKERS_AI_MAX_ATTEMPTS`, `ASKZICO_WORKERS_AI_RETRY_MS`).
        let bad_knob = |e: String| invalid(e, "unset it for the default, or set an accepted value");
        let timeouts = config.timeouts.with_env(&env).map_err(bad_knob)?;
        let num =
            |name: &'static str| knobs::number_in(&env, name).map_err(|e| bad_knob(e.to_string()));
        let retry = Retry {
            max_attempts: num(knobs::WORKERS_AI_MAX_ATTEMPTS)?
                .map_or(config.max_attempts, |n| n as u32),
            base: num(knobs::WORKERS_AI_RETRY_MS)?.map_or(config.retry_base, Duration::from_millis),
            max_backoff: config.max_backoff,
        };
        Ok(WorkersAi {
            api: Api::new(base, token, timeouts, retry),
            config,
            account,
            url,
        })
    }

    /// Applies the input policy (see [`WorkersAiConfig::max_chars`]).
    pub(crate) fn prepare<'a>(&self, text: &'a str) -> &'a str {
        truncate_at_word(text, self.config.max_chars)
    }

    /// An error for the user, through the redaction.
    fn fail(&self, message: &str, help: &str) -> Failure {
        Failure {
            message: self.api.redact(message),
            help: self.api.redact(help),
        }
    }

    /// One request with retries: the texts are already prepared and at most `batch` long.
    fn request(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, Failure> {
        #[derive(serde::Serialize)]
        struct Body<'a> {
            text: &'a [&'a str],
            truncate_inputs: bool,
        }
        let body = serde_json::to_vec(&Body {
            text: texts,
            truncate_inputs: self.config.truncate_inputs,
        })
        .map_err(|e| self.fail(&format!("could not encode a Workers AI request: {e}"), ""))?;
        let what = format!(
            "Workers AI request ({} texts, model {})",
            texts.len(),
            self.config.model
        );
        let sent = self.api.send(
            "POST",
            &self.url,
            Some("application/json"),
            Some(&body),
            &what,
        );
        let (status, text) = sent.map_err(|gave_up| Failure {
            message: gave_up,
            help: self.api.redact(
                "Cloudflare is rate limiting, unavailable, unreachable or not answering; retry later, lower the \
                 embedding concurrency, or build offline with provider \"hash\"",
            ),
        })?;
        match status {
            200..=299 => self.parse_success(&text, texts.len(), &what),
            401 | 403 => Err(self.fail(
                &format!("{what} was refused: HTTP {status}{}", cf_messages(&text)),
                &format!(
                    "check that CLOUDFLARE_API_TOKEN is valid and has the permission Account › Workers AI › Read \
                     for account {}, and that the account ID is right",
                    self.account
                ),
            )),
            _ => {
                let help = match status {
                    404 => "check the model name (e.g. @cf/baai/bge-m3) and the Cloudflare account ID".to_string(),
                    400 | 413 => format!(
                        "an input may be too long for the model: lower max_chars (now {}) or set truncate_inputs = true",
                        self.config.max_chars
                    ),
                    _ => "check the embedding settings; the error above comes from Cloudflare".to_string(),
                };
                Err(self.fail(
                    &format!("{what} failed: HTTP {status}{}", cf_messages(&text)),
                    &help,
                ))
            }
        }
    }

    fn parse_success(&self, text: &str, n: usize, what: &str) -> Result<Vec<Vec<f32>>, Failure> {
        #[derive(Deserialize)]
        struct Envelope {
            #[serde(default)]
            success: Option<bool>,
            result: Option<EmbeddingResult>,
        }
        #[derive(Deserialize)]
        struct EmbeddingResult {
            data: Vec<Vec<f32>>,
        }
        let malformed = |detail: String| {
            self.fail(
                &format!(
                    "{what} answered with an unexpected body ({detail}); it starts: {}",
                    snippet(text)
                ),
                "expected {\"result\": {\"data\": [[numbers]]}, \"success\": true}; check ASKZICO_CF_API_BASE \
                 and that the model is an embedding model",
            )
        };
        let env: Envelope = serde_json::from_str(text).map_err(|e| malformed(e.to_string()))?;
        if env.success == Some(false) {
            return Err(self.fail(
                &format!("{what} failed{}", cf_messages(text)),
                "check the embedding settings; the error above comes from Cloudflare",
            ));
        }
        let data = env
            .result
            .ok_or_else(|| malformed("no `result`".into()))?
            .data;
        check_vectors(
            &format!("Workers AI model {}", self.config.model),
            &data,
            n,
            self.config.dims,
        )
        .map_err(|e| self.fail(&e.message, &e.help))?;
        Ok(data)
    }
}

impl Embedder for WorkersAi {
    fn dims(&self) -> usize {
        self.config.dims
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({
            "provider": "workers-ai",
            "model": self.config.model,
            "dims": self.config.dims,
            "input": {
                "max_chars": self.config.max_chars,
                "truncate": "word-boundary",
                "truncate_inputs": self.config.truncate_inputs,
            },
        })
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let prepared: Vec<&str> = texts.iter().map(|t| self.prepare(t)).collect();
        let chunks: Vec<&[&str]> = prepared.chunks(self.config.batch).collect();
        let workers = self.config.concurrency.min(chunks.len());
        if workers <= 1 {
            let mut out = Vec::with_capacity(texts.len());
            for chunk in chunks {
                out.extend(self.request(chunk).map_err(EmbedError::from)?);
            }
            return Ok(out);
        }
        // Workers take the next chunk in order; the first failure stops new requests.
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        type Slot = Option<Result<Vec<Vec<f32>>, EmbedError>>;
        let results: Mutex<Vec<Slot>> = Mutex::new((0..chunks.len()).map(|_| None).collect());
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| {
                    loop {
                        if failed.load(Ordering::Relaxed) {
                            break;
                        }
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(chunk) = chunks.get(i) else { break };
                        let r = self.request(chunk).map_err(EmbedError::from);
                        if r.is_err() {
                            failed.store(true, Ordering::Relaxed);
                        }
                        results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(r);
                    }
                });
            }
        });
        let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
        let mut out = Vec::with_capacity(texts.len());
        let mut first_error = None;
        for r in results {
            match r {
                Some(Ok(v)) => out.extend(v),
                Some(Err(e)) => {
                    first_error.get_or_insert(e);
                }
                None => {}
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    fn batch_hint(&self) -> usize {
        self.config.batch * self.config.concurrency
    }
}

/// The longest prefix of at most `max_chars` chars that ends at a word boundary; a first word
/// longer than the limit is cut at the limit. Trailing spaces are dropped from a cut text.
pub(crate) fn truncate_at_word(text: &str, max_chars: usize) -> &str {
    let Some((cut, _)) = text.char_indices().nth(max_chars) else {
        return text; // at most max_chars chars
    };
    let head = &text[..cut];
    if text[cut..].starts_with(char::is_whitespace) {
        return head.trim_end();
    }
    match head.rfind(char::is_whitespace) {
        Some(i) if !head[..i].trim_end().is_empty() => head[..i].trim_end(),
        _ => head,
    }
}

#[cfg(test)]
mod tests;
