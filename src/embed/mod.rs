//! embed: vectors for `search_text`. The offline `hash` provider is deterministic feature hashing
//! of character n-grams (3- to 4-grams inside word boundaries, plus whole words) — a lexical
//! signal, honest about not being a language model. Pure.

use crate::config::EmbedSettings;
use crate::text::SearchText;

/// A provider of vectors for search texts.
pub trait Embedder: Sync {
    fn dims(&self) -> usize;
    /// The settings that shape its output, for the settings fingerprint.
    fn describe(&self) -> serde_json::Value;
    fn embed(&self, text: &SearchText) -> Vec<f32>;
}

pub struct HashEmbedder {
    dims: usize,
}

impl HashEmbedder {
    pub fn new(dims: usize) -> Self {
        HashEmbedder { dims }
    }
}

pub fn from_settings(s: &EmbedSettings) -> Box<dyn Embedder> {
    // Config validation admits only `hash` in this version.
    Box::new(HashEmbedder::new(s.dims))
}

/// FNV-1a, 64-bit: stable across machines and releases (unlike `std`'s hasher).
fn fnv1a(bytes: impl Iterator<Item = u8>) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

impl Embedder for HashEmbedder {
    fn dims(&self) -> usize {
        self.dims
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({"provider": "hash", "model": "fnv1a-char-3-4-grams+words", "dims": self.dims})
    }

    fn embed(&self, text: &SearchText) -> Vec<f32> {
        let mut v = vec![0f32; self.dims];
        let mut add = |h: u64, w: f32| {
            let idx = (h % self.dims as u64) as usize;
            let sign = if (h >> 63) == 1 { -1.0 } else { 1.0 };
            v[idx] += sign * w;
        };
        let mut buf: Vec<char> = Vec::with_capacity(32);
        for word in text.tokens() {
            add(fnv1a(word.bytes().chain([0xFF])), 1.0);
            buf.clear();
            buf.push(' ');
            buf.extend(word.chars());
            buf.push(' ');
            for n in [3usize, 4] {
                if buf.len() < n {
                    continue;
                }
                for win in buf.windows(n) {
                    let mut tmp = [0u8; 16];
                    let h = fnv1a(win.iter().flat_map(|c| {
                        let s = c.encode_utf8(&mut tmp);
                        s.as_bytes().to_vec()
                    }).chain([n as u8]));
                    add(h, 0.5);
                }
            }
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            for x in &mut v {
                *x /= norm;
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::{Rules, query_text};

    #[test]
    fn deterministic_normalized_and_similar_for_shared_words() {
        let e = HashEmbedder::new(64);
        let a = e.embed(&query_text("ولد السيد المسيح في بيت لحم", &Rules::default()));
        let b = e.embed(&query_text("ولد السيد المسيح في بيت لحم", &Rules::default()));
        let c = e.embed(&query_text("بيت لحم", &Rules::default()));
        let d = e.embed(&query_text("قواعد البيانات", &Rules::default()));
        assert_eq!(a, b);
        let norm: f32 = a.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-4);
        let dot = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(a, b)| a * b).sum::<f32>();
        assert!(dot(&a, &c) > dot(&a, &d));
    }
}
