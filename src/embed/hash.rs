//! The offline `hash` provider: deterministic feature hashing of whole words and character
//! 3- and 4-grams (with a space marking each word's edges). A lexical signal, not a language
//! model. Pure; its vectors are part of published builds, so the algorithm must never change
//! (the tests pin it against a plain reference implementation).

use crate::embed::{EmbedError, Embedder};

pub struct HashEmbedder {
    dims: usize,
}

impl HashEmbedder {
    /// `dims` must be at least 1; with 0 every vector is empty.
    pub fn new(dims: usize) -> Self {
        HashEmbedder { dims }
    }

    /// One text's vector: L2-normalized (or all zeros for a text without words).
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0f32; self.dims];
        if self.dims == 0 {
            return v;
        }
        let dims = self.dims as u64;
        let mut add = |h: u64, w: f32| {
            let idx = (h % dims) as usize;
            let sign = if (h >> 63) == 1 { -1.0 } else { 1.0 };
            v[idx] += sign * w;
        };
        for word in text.split(' ').filter(|t| !t.is_empty()) {
            let mut h = FNV_OFFSET;
            for &b in word.as_bytes() {
                h = fnv_step(h, b);
            }
            add(fnv_step(h, 0xFF), 1.0);
            // Same order as the production version: all 3-grams, then all 4-grams, each in
            // text order (f32 sums are order-sensitive in general, so keep it).
            add_ngrams::<3>(word, &mut add);
            add_ngrams::<4>(word, &mut add);
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

const FNV_OFFSET: u64 = 0xcbf29ce484222325;
const FNV_PRIME: u64 = 0x100000001b3;

#[inline]
fn fnv_step(h: u64, b: u8) -> u64 {
    (h ^ b as u64).wrapping_mul(FNV_PRIME)
}

/// Every window of `N` chars over `' ' ++ word ++ ' '`, hashed as the concatenated UTF-8 bytes
/// of its chars followed by `N as u8`. A ring of the last `N` chars replaces the window buffer.
#[inline]
fn add_ngrams<const N: usize>(word: &str, add: &mut impl FnMut(u64, f32)) {
    let mut ring = [' '; N];
    let mut seen = 0usize;
    let chars = std::iter::once(' ').chain(word.chars()).chain(std::iter::once(' '));
    for c in chars {
        ring[seen % N] = c;
        seen += 1;
        if seen >= N {
            let mut h = FNV_OFFSET;
            let mut utf8 = [0u8; 4];
            for k in 0..N {
                let ch = ring[(seen + k) % N]; // oldest first
                for &b in ch.encode_utf8(&mut utf8).as_bytes() {
                    h = fnv_step(h, b);
                }
            }
            add(fnv_step(h, N as u8), 0.5);
        }
    }
}

impl Embedder for HashEmbedder {
    fn dims(&self) -> usize {
        self.dims
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({"provider": "hash", "model": "fnv1a-char-3-4-grams+words", "dims": self.dims})
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| self.embed(t)).collect())
    }

    fn batch_hint(&self) -> usize {
        4096
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The production algorithm, written plainly (allocating), as the oracle.
    fn reference(dims: usize, text: &str) -> Vec<f32> {
        fn fnv1a(bytes: impl Iterator<Item = u8>) -> u64 {
            let mut h: u64 = 0xcbf29ce484222325;
            for b in bytes {
                h ^= b as u64;
                h = h.wrapping_mul(0x100000001b3);
            }
            h
        }
        let mut v = vec![0f32; dims];
        let mut add = |h: u64, w: f32| {
            let idx = (h % dims as u64) as usize;
            let sign = if (h >> 63) == 1 { -1.0 } else { 1.0 };
            v[idx] += sign * w;
        };
        for word in text.split(' ').filter(|t| !t.is_empty()) {
            add(fnv1a(word.bytes().chain([0xFF])), 1.0);
            let mut buf: Vec<char> = vec![' '];
            buf.extend(word.chars());
            buf.push(' ');
            for n in [3usize, 4] {
                if buf.len() < n {
                    continue;
                }
                for win in buf.windows(n) {
                    let bytes: Vec<u8> =
                        win.iter().flat_map(|c| c.to_string().into_bytes()).chain([n as u8]).collect();
                    add(fnv1a(bytes.into_iter()), 0.5);
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

    fn samples() -> Vec<String> {
        let mut s: Vec<String> = [
            "",
            " ",
            "a",
            "ab",
            "abc",
            "ولد السيد المسيح في بيت لحم",
            "قواعد البيانات  مع   مسافات متعددة ",
            "mixed عربي and English 123",
            "emoji 🙂 and combining e\u{301} and ZWJ 👩\u{200d}💻",
            "في",
            "و",
            "\u{0627}\u{0644}\u{0644}\u{0647}",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // A long text with many repeated words, so some dimensions accumulate large sums.
        s.push("بيت لحم ".repeat(500));
        // Pseudo-random texts over a mixed alphabet.
        let alphabet: Vec<char> = "ابتثجحخدذرزسشصضطظعغفقكلمنهوي ءآأؤإئةى abc 🙂é".chars().collect();
        let mut x: u64 = 42;
        for len in [5usize, 17, 64, 300] {
            for _ in 0..10 {
                let t: String = (0..len)
                    .map(|_| {
                        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        alphabet[(x >> 33) as usize % alphabet.len()]
                    })
                    .collect();
                s.push(t);
            }
        }
        s
    }

    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn bit_identical_to_reference() {
        for dims in [1usize, 2, 7, 64, 256, 1024] {
            let e = HashEmbedder::new(dims);
            for t in samples() {
                assert_eq!(bits(&e.embed(&t)), bits(&reference(dims, &t)), "dims {dims}, text {t:?}");
            }
        }
    }

    #[test]
    fn deterministic_and_unit_norm() {
        let e = HashEmbedder::new(64);
        let a = e.embed("ولد السيد المسيح في بيت لحم");
        assert_eq!(bits(&a), bits(&HashEmbedder::new(64).embed("ولد السيد المسيح في بيت لحم")));
        let norm: f32 = a.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-5, "norm² = {norm}");
        // No words: the zero vector, not NaN.
        assert!(e.embed("   ").iter().all(|&x| x == 0.0));
        // Shared words score higher than unrelated ones.
        let dot = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(a, b)| a * b).sum::<f32>();
        assert!(dot(&a, &e.embed("بيت لحم")) > dot(&a, &e.embed("قواعد البيانات")));
    }

    #[test]
    fn batch_matches_single_and_describe_is_pinned() {
        let e = HashEmbedder::new(16);
        let out = e.embed_batch(&["a b", "ج د"]).unwrap();
        assert_eq!(out, vec![e.embed("a b"), e.embed("ج د")]);
        assert_eq!(
            crate::embed::canonical_json(&e.describe()),
            r#"{"dims":16,"model":"fnv1a-char-3-4-grams+words","provider":"hash"}"#
        );
        assert_eq!(HashEmbedder::new(0).embed("abc"), Vec::<f32>::new());
    }
}
