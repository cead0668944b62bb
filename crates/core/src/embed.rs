//! The offline `hash` provider: deterministic feature hashing of whole words and character
//! 3- and 4-grams (with a space marking each word's edges). A lexical signal, not a language
//! model. Pure; its vectors are part of published builds, so the algorithm must never change
//! (the tests pin it against a plain reference implementation and against vectors of the
//! previous implementation).
//!
//! Speed: one pass over the bytes hashes every window as it goes (no per-word or per-n-gram
//! buffers), and texts up to 4 MiB sum their features in integers, which equals the published
//! f32 sums bit for bit (see `sum_exact`).

use crate::fnv;

pub struct HashEmbedder {
    dims: usize,
}

impl HashEmbedder {
    /// `dims` must be at least 1; with 0 every vector is empty.
    pub fn new(dims: usize) -> Self {
        HashEmbedder { dims }
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    /// What a build's manifest records of this embedder.
    pub fn describe(&self) -> serde_json::Value {
        serde_json::json!({"provider": "hash", "model": "fnv1a-char-3-4-grams+words", "dims": self.dims})
    }

    /// One text's vector: L2-normalized (or all zeros for a text without words).
    pub fn embed(&self, text: &str) -> Vec<f32> {
        self.embed_with(text, EXACT_MAX_BYTES)
    }

    /// `embed`, summing in integers when the text has at most `exact_max_bytes` bytes (the
    /// tests lower it to check the ordered path).
    fn embed_with(&self, text: &str, exact_max_bytes: usize) -> Vec<f32> {
        if self.dims == 0 {
            return Vec::new();
        }
        let mut v = if text.len() <= exact_max_bytes {
            self.sum_exact(text)
        } else {
            self.sum_ordered(text)
        };
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            for x in &mut v {
                *x /= norm;
            }
        }
        v
    }

    /// The feature sums counted in half units (word 2, n-gram 1), in any order. Every feature
    /// adds ±1 or ±0.5 to an f32, so while no sum leaves ±2^23 each f32 addition of the
    /// published order is exact and its result is this integer sum / 2, bit for bit (zeros
    /// included: `x + -x` is +0.0). A text of `n` bytes has at most `3n` half units (a word of
    /// `c` chars: 2 + `c` 3-grams + `c - 1` 4-grams), within 2^24 up to `EXACT_MAX_BYTES`.
    fn sum_exact(&self, text: &str) -> Vec<f32> {
        let mut halves = vec![0i32; self.dims];
        // The slot function chosen once, not per feature.
        match Slot::new(self.dims) {
            Slot::Mask(m) => sum_halves(text, &mut halves, |h| (h & m) as usize),
            Slot::Modulo(d) => sum_halves(text, &mut halves, |h| (h % d) as usize),
        }
        halves.iter().map(|&n| n as f32 * 0.5).collect()
    }

    /// The feature sums in f32, added in the published order (`ordered_features`).
    fn sum_ordered(&self, text: &str) -> Vec<f32> {
        let slot = Slot::new(self.dims);
        let mut v = vec![0f32; self.dims];
        ordered_features(text, |h, w| {
            let sign = if (h >> 63) == 1 { -1.0 } else { 1.0 };
            v[slot.index(h)] += sign * w;
        });
        v
    }
}

/// Adds every feature of `text` to `halves` (see `sum_exact`), at `index(hash)`.
#[inline(always)]
fn sum_halves(text: &str, halves: &mut [i32], index: impl Fn(u64) -> usize) {
    each_word(text, |h, feature| {
        let weight = if feature == Feature::Word { 2 } else { 1 };
        // The sign is the hash's top bit: ±weight without a branch.
        let sign = (h >> 63) as i32;
        halves[index(h)] += (weight ^ -sign) + sign;
    });
}

/// Every feature hash with its weight in the published order: per word, the word (1.0), its
/// 3-grams, then its 4-grams (0.5), each in text order.
fn ordered_features(text: &str, mut add: impl FnMut(u64, f32)) {
    let (mut grams3, mut grams4) = (Vec::new(), Vec::new());
    // `word_features` emits a word's hash after its n-grams: hold them until then.
    each_word(text, |h, feature| match feature {
        Feature::Word => {
            add(h, 1.0);
            for &g in grams3.iter().chain(&grams4) {
                add(g, 0.5);
            }
            grams3.clear();
            grams4.clear();
        }
        Feature::Gram3 => grams3.push(h),
        Feature::Gram4 => grams4.push(h),
    });
}

/// Texts up to this size are summed in integers (see `sum_exact`): 3 × 2^22 < 2^24.
const EXACT_MAX_BYTES: usize = 1 << 22;

/// Maps a hash to a dimension: `h % dims`, a mask when `dims` is a power of two.
#[derive(Clone, Copy)]
enum Slot {
    Mask(u64),
    Modulo(u64),
}

impl Slot {
    fn new(dims: usize) -> Self {
        if dims.is_power_of_two() {
            Slot::Mask(dims as u64 - 1)
        } else {
            Slot::Modulo(dims as u64)
        }
    }

    #[inline]
    fn index(self, h: u64) -> usize {
        match self {
            Slot::Mask(m) => (h & m) as usize,
            Slot::Modulo(d) => (h % d) as usize,
        }
    }
}

/// What a feature hash stands for: weight 1 for a word, 0.5 for an n-gram.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Feature {
    Word,
    Gram3,
    Gram4,
}

/// Every feature of every word, hashed: words are the non-empty runs between single spaces
/// (`split(' ')`), found in the same pass that hashes them.
#[inline]
fn each_word(text: &str, mut emit: impl FnMut(u64, Feature)) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b' ' {
            i += 1;
        } else {
            i = word_features(bytes, i, &mut emit);
        }
    }
}

/// Length of the UTF-8 sequence a lead byte starts (the input is a `str`, so it is valid).
#[inline]
fn utf8_len(lead: u8) -> usize {
    1 + (lead >= 0xC0) as usize + (lead >= 0xE0) as usize + (lead >= 0xF0) as usize
}

/// The features of the word starting at `bytes[start]` (it runs to the next space or the
/// end); returns where it ends. Over `' ' ++ word ++ ' '`: every window of 3 chars and of 4
/// chars (each hashed as its chars' UTF-8 bytes then `N as u8`), each emitted when its last
/// char is read, then the whole word (its UTF-8 bytes then 0xFF).
///
/// One pass over the bytes: FNV-1a is sequential, so each window keeps its own running hash.
/// While char `k` is read, four windows are open, started at chars `k-3` (`a`, in its 4th
/// char: a 4-gram only), `k-2`, `k-1` and `k` (`b`, `c`, `d`: a 3-gram and the 4-gram it
/// begins share their first three chars). After char `k`, `a` is a complete 4-gram and `b` a
/// complete 3-gram, then every window moves one place down. The lanes are independent, so
/// the CPU runs their multiplies side by side.
#[inline]
fn word_features(bytes: &[u8], start: usize, emit: &mut impl FnMut(u64, Feature)) -> usize {
    // After char 0 (the leading space): only the window started there is open.
    let (mut a, mut b, mut c, mut d) = (
        fnv::OFFSET,
        fnv::OFFSET,
        fnv::step(fnv::OFFSET, b' '),
        fnv::OFFSET,
    );
    let mut whole = fnv::OFFSET;
    let mut k = 1usize;
    let mut close_char = |k: usize, a: &mut u64, b: &mut u64, c: &mut u64, d: &mut u64| {
        if k >= 3 {
            emit(fnv::step(*a, 4), Feature::Gram4);
        }
        if k >= 2 {
            emit(fnv::step(*b, 3), Feature::Gram3);
        }
        (*a, *b, *c, *d) = (*b, *c, *d, fnv::OFFSET);
    };
    // One byte into the word's hash and each open window's.
    macro_rules! feed {
        ($x:expr) => {{
            let x = $x;
            whole = fnv::step(whole, x);
            a = fnv::step(a, x);
            b = fnv::step(b, x);
            c = fnv::step(c, x);
            d = fnv::step(d, x);
        }};
    }
    let mut i = start;
    while let Some(&lead) = bytes.get(i) {
        if lead == b' ' {
            break;
        }
        // Two-byte chars (Arabic letters) without a loop over their bytes.
        if let (0xC0..0xE0, Some(&y)) = (lead, bytes.get(i + 1)) {
            feed!(lead);
            feed!(y);
            i += 2;
        } else {
            let n = utf8_len(lead);
            for &x in &bytes[i..i + n] {
                feed!(x);
            }
            i += n;
        }
        close_char(k, &mut a, &mut b, &mut c, &mut d);
        k += 1;
    }
    // The trailing space ends the last 3-gram and 4-gram.
    (a, b) = (fnv::step(a, b' '), fnv::step(b, b' '));
    close_char(k, &mut a, &mut b, &mut c, &mut d);
    emit(fnv::step(whole, 0xFF), Feature::Word);
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The production algorithm's features, written plainly (allocating), as the oracle: per
    /// word, the word, its 3-grams, then its 4-grams, as (hash, weight).
    fn reference_features(text: &str) -> Vec<(u64, f32)> {
        fn fnv1a(bytes: impl Iterator<Item = u8>) -> u64 {
            let mut h: u64 = 0xcbf29ce484222325;
            for b in bytes {
                h ^= b as u64;
                h = h.wrapping_mul(0x100000001b3);
            }
            h
        }
        let mut out = Vec::new();
        for word in text.split(' ').filter(|t| !t.is_empty()) {
            out.push((fnv1a(word.bytes().chain([0xFF])), 1.0));
            let mut buf: Vec<char> = vec![' '];
            buf.extend(word.chars());
            buf.push(' ');
            for n in [3usize, 4] {
                if buf.len() < n {
                    continue;
                }
                for win in buf.windows(n) {
                    let bytes: Vec<u8> = win
                        .iter()
                        .flat_map(|c| c.to_string().into_bytes())
                        .chain([n as u8])
                        .collect();
                    out.push((fnv1a(bytes.into_iter()), 0.5));
                }
            }
        }
        out
    }

    /// The production algorithm, written plainly: the features added in order, normalized.
    fn reference(dims: usize, text: &str) -> Vec<f32> {
        let mut v = vec![0f32; dims];
        for (h, w) in reference_features(text) {
            let idx = (h % dims as u64) as usize;
            let sign = if (h >> 63) == 1 { -1.0 } else { 1.0 };
            v[idx] += sign * w;
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
        let alphabet: Vec<char> = "ابتثجحخدذرزسشصضطظعغفقكلمنهوي ءآأؤإئةى abc 🙂é"
            .chars()
            .collect();
        let mut x: u64 = 42;
        for len in [5usize, 17, 64, 300] {
            for _ in 0..10 {
                let t: String = (0..len)
                    .map(|_| {
                        x = x
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
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
                let want = bits(&reference(dims, &t));
                assert_eq!(bits(&e.embed(&t)), want, "dims {dims}, text {t:?}");
                // The f32 path in the published order, which texts over 4 MiB take.
                assert_eq!(
                    bits(&e.embed_with(&t, 0)),
                    want,
                    "ordered path, dims {dims}, text {t:?}"
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_matches_reference(t in "[ a\n\t\u{627}-\u{64a}\u{1F642}\u{301}]{0,60}", u in proptest::prelude::any::<String>(), dims in 1usize..300) {
            let e = HashEmbedder::new(dims);
            for t in [&t, &u] {
                proptest::prop_assert_eq!(bits(&e.embed(t)), bits(&reference(dims, t)));
            }
        }
    }

    /// Sums this small are exact in any order, so the ordered path's order is checked on its
    /// own: feature for feature, weight for weight, as the reference adds them.
    #[test]
    fn ordered_features_match_reference_order() {
        for t in samples() {
            let mut got = Vec::new();
            ordered_features(&t, |h, w| got.push((h, w)));
            assert_eq!(got, reference_features(&t), "text {t:?}");
        }
    }

    /// Vectors computed by the implementation this crate shipped before the rewrite (its
    /// per-window re-encoding, not this file's code): blake3 of the little-endian f32 bits,
    /// plus the full vectors of two short texts. A change to hashing, windows, order of
    /// accumulation or normalization fails here even if `reference` drifted with it.
    #[test]
    fn pinned_to_published_vectors() {
        let digest = |dims: usize, t: &str| {
            let le: Vec<u8> = HashEmbedder::new(dims)
                .embed(t)
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect();
            blake3::hash(&le).to_hex().to_string()
        };
        let long = "بيت لحم  قواعد ".repeat(300);
        let cases: [(usize, &str, &str); 16] = [
            (
                256,
                "ولد السيد المسيح في بيت لحم",
                "32e53c4ec7f8e2772d3e1acbdebf371768f4a3d33facd26fff727e85bc6aed2e",
            ),
            (
                256,
                "mixed عربي and English 123 🙂 e\u{301}",
                "8f29e108fca7fc58030c00482336317fab5592d26260f27f2ef8d530aa8f4ef9",
            ),
            (
                256,
                "a",
                "9b2ecee6305e3202286d46327541a8af72201a882215b5ad0ac6a205431e0c98",
            ),
            (
                256,
                &long,
                "4ff28eba3558fff448cb540549b80860403df852146f79a4d1e03e35a4fa0245",
            ),
            (
                7,
                "ولد السيد المسيح في بيت لحم",
                "68412e87baab695c51e1e2a6bc03bc903ab26ca4381a578fcfdfd9ab3f3a034c",
            ),
            (
                7,
                "mixed عربي and English 123 🙂 e\u{301}",
                "a40fd34c6e18a112e06bac25699b82cd7a37532f0b7a0a04fab5819da1071194",
            ),
            (
                7,
                "a",
                "3eb0f7f21470fccae60d831df8abb4603d519429557cf2f0205c4fbc3c852be4",
            ),
            (
                7,
                &long,
                "baa94e6f795a3e2ad8f5d807520acbfe082096f5f8f1a53b0671c4d1c7b990b8",
            ),
            (
                384,
                "ولد السيد المسيح في بيت لحم",
                "c01bc05a90c4387339c71be3352f14250f748aa1d2784e607de39d54070332db",
            ),
            (
                384,
                "mixed عربي and English 123 🙂 e\u{301}",
                "ed34264b0de398a80b1fe201396869638466e80ce97532bb905a337ed9d5ca76",
            ),
            (
                384,
                "a",
                "3bbcafcd03eeff45ac82bb5907eae54aaf9767592b7aa658f6dd454e6887ad91",
            ),
            (
                384,
                &long,
                "3ef7eaadcbdfb66a6055808098fcde94b67f2cada449446195b07d6c3e352ec9",
            ),
            (
                1024,
                "ولد السيد المسيح في بيت لحم",
                "c7d81118f33e15e89851053df73ddd9718d8496ae3d508db92295b7bd3b19995",
            ),
            (
                1024,
                "mixed عربي and English 123 🙂 e\u{301}",
                "2e6f564fef19060597e4b3a7788893a79a0801692ae4366e58deb1711f5c41af",
            ),
            (
                1024,
                "a",
                "5ef3e74af63f1e619e235e1332ecba2ee85acc1529151f6930012ed04ddbb840",
            ),
            (
                1024,
                &long,
                "d3284c85a63cd71ba698e8a43a8a1c5755550a5073c7994c04837adfa5fd1a85",
            ),
        ];
        for (dims, t, want) in cases {
            assert_eq!(
                digest(dims, t),
                want,
                "dims {dims}, text {:?}",
                &t[..t.len().min(40)]
            );
        }
        let nonzero = |dims: usize, t: &str| -> Vec<(usize, u32)> {
            HashEmbedder::new(dims)
                .embed(t)
                .iter()
                .enumerate()
                .filter(|(_, x)| **x != 0.0)
                .map(|(i, x)| (i, x.to_bits()))
                .collect()
        };
        assert_eq!(nonzero(256, "a"), [(55, 1055193390), (105, 1063581998)]);
        assert_eq!(
            nonzero(7, "ولد السيد المسيح في بيت لحم"),
            [
                (0, 1052050676),
                (1, 3195100144),
                (2, 1047616496),
                (3, 1039227888),
                (4, 1058462070),
                (5, 3205945718),
                (6, 1047616496)
            ]
        );
    }

    #[test]
    fn deterministic_and_unit_norm() {
        let e = HashEmbedder::new(64);
        let a = e.embed("ولد السيد المسيح في بيت لحم");
        assert_eq!(
            bits(&a),
            bits(&HashEmbedder::new(64).embed("ولد السيد المسيح في بيت لحم"))
        );
        let norm: f32 = a.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-5, "norm² = {norm}");
        // No words: the zero vector, not NaN.
        assert!(e.embed("   ").iter().all(|&x| x == 0.0));
        // Shared words score higher than unrelated ones.
        let dot = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(a, b)| a * b).sum::<f32>();
        assert!(dot(&a, &e.embed("بيت لحم")) > dot(&a, &e.embed("قواعد البيانات")));
    }

    #[test]
    fn describe_is_pinned() {
        assert_eq!(
            HashEmbedder::new(16).describe(),
            serde_json::json!({"dims": 16, "model": "fnv1a-char-3-4-grams+words", "provider": "hash"})
        );
        assert_eq!(HashEmbedder::new(0).embed("abc"), Vec::<f32>::new());
    }
}
