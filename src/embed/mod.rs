//! embed: vectors for `search_text`, behind one trait. Three providers: `hash` (offline, pure,
//! deterministic feature hashing), `workers-ai` (Cloudflare REST) and `command` (an external
//! process speaking JSON lines). [`CachedEmbedder`] keeps vectors on disk by blake3 of
//! (provider settings, text), so a rebuild embeds only changed chunks. The cache never changes
//! output: deleting it only costs time.

mod cache;
mod command;
pub(crate) mod workers_ai;

use std::fmt;

pub use askzico_core::embed::HashEmbedder;
pub(crate) use cache::CachedEmbedder;
pub(crate) use command::CommandEmbedder;
pub(crate) use workers_ai::{WorkersAi, WorkersAiConfig};

/// Errors carry a message fit for a user-facing diagnostic (what failed, what to do).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EmbedError {
    /// What failed, naming the provider, the file or the request.
    pub message: String,
    /// What the user can do about it.
    pub help: String,
}

impl EmbedError {
    pub(crate) fn new(message: impl Into<String>, help: impl Into<String>) -> Self {
        EmbedError {
            message: message.into(),
            help: help.into(),
        }
    }
}

impl fmt::Display for EmbedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EmbedError {}

/// A provider of vectors for search texts.
pub(crate) trait Embedder: Send + Sync {
    fn dims(&self) -> usize;
    /// Provider, model, dims and input policy: goes into the build's settings fingerprint and the cache key.
    fn describe(&self) -> serde_json::Value;
    /// Embeds texts (already-normalized search texts), one vector per text, in order.
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
    /// How many texts a caller should hand to one `embed_batch` call (the cache writes its
    /// records to disk after each such call, so a killed build keeps its progress).
    fn batch_hint(&self) -> usize {
        1024
    }
}

/// References and smart pointers to an embedder are embedders.
macro_rules! forward_embedder {
    ($($ptr:ty),*) => {$(
        impl<E: Embedder + ?Sized> Embedder for $ptr {
            fn dims(&self) -> usize {
                (**self).dims()
            }
            fn describe(&self) -> serde_json::Value {
                (**self).describe()
            }
            fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
                (**self).embed_batch(texts)
            }
            fn batch_hint(&self) -> usize {
                (**self).batch_hint()
            }
        }
    )*};
}

forward_embedder!(&E, Box<E>, std::sync::Arc<E>);

/// The core's offline `hash` embedder as a provider.
impl Embedder for HashEmbedder {
    fn dims(&self) -> usize {
        HashEmbedder::dims(self)
    }

    fn describe(&self) -> serde_json::Value {
        HashEmbedder::describe(self)
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| self.embed(t)).collect())
    }

    fn batch_hint(&self) -> usize {
        4096
    }
}

/// Canonical JSON: object keys sorted (by UTF-8 bytes) at every level, no whitespace. The same
/// value gives the same bytes whatever the key order it was built with (serde_json's
/// `preserve_order` keeps insertion order), so it is safe to hash.
pub(crate) fn canonical_json(value: &serde_json::Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// Checks a provider's answer: one vector per text, each of `dims` finite values.
pub(crate) fn check_vectors(
    provider: &str,
    vectors: &[Vec<f32>],
    expected_len: usize,
    dims: usize,
) -> Result<(), EmbedError> {
    if vectors.len() != expected_len {
        return Err(EmbedError::new(
            format!(
                "{provider} returned {} vectors for {expected_len} texts",
                vectors.len()
            ),
            "the provider must return exactly one vector per input text, in order",
        ));
    }
    for (i, v) in vectors.iter().enumerate() {
        if v.len() != dims {
            return Err(EmbedError::new(
                format!(
                    "{provider} returned a vector of {} dimensions for text {i}; expected {dims}",
                    v.len()
                ),
                format!(
                    "set the embedding dims to the model's output size, or use a model that outputs {dims} dimensions"
                ),
            ));
        }
        if let Some(j) = v.iter().position(|x| !x.is_finite()) {
            return Err(EmbedError::new(
                format!(
                    "{provider} returned a non-finite value (at index {j}) in the vector for text {i}"
                ),
                "the model produced NaN or infinity; check the model and its input",
            ));
        }
    }
    Ok(())
}

/// `[embedding]`: which provider makes the vectors, and its model and size.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EmbedSettings {
    pub provider: String,
    pub dims: usize,
    pub model: Option<String>,
    pub account_id: Option<String>,
    pub max_chars: Option<usize>,
    pub command: Vec<String>,
}

/// The Workers AI model of `provider = "workers-ai"` without a `model`.
pub(crate) const WORKERS_AI_MODEL: &str = "@cf/baai/bge-m3";

/// The provider a config names. Network and process providers read their secrets (the API token)
/// from the environment here, never from the config.
pub(crate) fn provider(s: &EmbedSettings) -> Result<Box<dyn Embedder>, EmbedError> {
    match s.provider.as_str() {
        "workers-ai" => {
            let mut c = WorkersAiConfig {
                model: s.model.clone().unwrap_or_else(|| WORKERS_AI_MODEL.into()),
                dims: s.dims,
                account_id: s.account_id.clone(),
                ..Default::default()
            };
            if let Some(m) = s.max_chars {
                c.max_chars = m;
            }
            Ok(Box::new(WorkersAi::new(c)?))
        }
        "command" => Ok(Box::new(CommandEmbedder::new(
            s.command.clone(),
            s.dims,
            s.model.clone().unwrap_or_else(|| "command".into()),
        )?)),
        _ => Ok(Box::new(HashEmbedder::new(s.dims))),
    }
}

/// The offline `hash` provider, when it is the one configured (its vectors are computed inline
/// with each chunk; the others go through the on-disk cache in batches).
pub(crate) fn inline_hash(s: &EmbedSettings) -> Option<HashEmbedder> {
    (s.provider == "hash").then(|| HashEmbedder::new(s.dims))
}

/// What shapes the vectors, for the settings fingerprint, without contacting any provider.
pub(crate) fn describe(s: &EmbedSettings) -> serde_json::Value {
    match s.provider.as_str() {
        "hash" => HashEmbedder::new(s.dims).describe(),
        "workers-ai" => serde_json::json!({
            "provider": "workers-ai",
            "model": s.model.clone().unwrap_or_else(|| "@cf/baai/bge-m3".into()),
            "dims": s.dims,
            "input": {"max_chars": s.max_chars.unwrap_or(WorkersAiConfig::default().max_chars), "truncate": "word-boundary", "truncate_inputs": WorkersAiConfig::default().truncate_inputs},
        }),
        _ => serde_json::json!({"provider": s.provider, "model": s.model, "dims": s.dims}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_keys_at_every_level() {
        let a = serde_json::json!({"provider": "hash", "model": "m", "dims": 8, "input": {"z": 1, "a": "x\"y"}});
        let b = serde_json::json!({"input": {"a": "x\"y", "z": 1}, "dims": 8, "model": "m", "provider": "hash"});
        assert_eq!(canonical_json(&a), canonical_json(&b));
        assert_eq!(
            canonical_json(&a),
            r#"{"dims":8,"input":{"a":"x\"y","z":1},"model":"m","provider":"hash"}"#
        );
    }

    #[test]
    fn the_hash_provider_batches_as_it_embeds_one_and_describes_itself_pinned() {
        let e = HashEmbedder::new(16);
        let out = e.embed_batch(&["a b", "ج د"]).unwrap();
        assert_eq!(out, vec![e.embed("a b"), e.embed("ج د")]);
        assert_eq!(
            canonical_json(&Embedder::describe(&e)),
            r#"{"dims":16,"model":"fnv1a-char-3-4-grams+words","provider":"hash"}"#
        );
    }
}
