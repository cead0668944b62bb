//! Distinct types for the two text fields of a chunk, so one can never be passed for the other.
//!
//! `Text` is the extractor-emitted evidence: stored and shown unchanged. `SearchText` is the
//! normalized form used only for lexical matching and as embedding input. The only way to get a
//! `SearchText` is `normalize::search_text`, which reads a `Text`.

use serde::{Serialize, Serializer};

/// Readable evidence text as the extractor emitted it. Never normalized.
// Deserialize exists only for the compile cache, which holds what the extractor emitted.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Deserialize)]
#[serde(transparent)]
pub struct Text(String);

impl Text {
    pub fn new(s: impl Into<String>) -> Self {
        Text(s.into())
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
    /// Length in Unicode scalar values, the unit of every size limit.
    pub fn char_len(&self) -> usize {
        self.0.chars().count()
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

/// Normalized search form of a `Text`. Only built by the normalizer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, serde::Deserialize)]
#[serde(transparent)]
pub struct SearchText(String);

impl SearchText {
    pub(crate) fn from_normalized(s: String) -> Self {
        SearchText(s)
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
    pub fn tokens(&self) -> impl Iterator<Item = &str> {
        tokens(&self.0)
    }
}

impl Serialize for SearchText {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

/// A set of additive index tokens (variants, stems, title words): sorted, deduplicated, kept as
/// one newline-separated string (a chunk has hundreds of them; one allocation instead of one
/// per token). Never evidence, never part of `search_text`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Tokens(String);

impl Tokens {
    pub fn new(mut tokens: Vec<String>) -> Self {
        tokens.retain(|t| !t.is_empty() && !t.contains('\n'));
        tokens.sort_unstable();
        tokens.dedup();
        Tokens(tokens.join("\n"))
    }

    /// The same set from borrowed tokens (one allocation: the joined string).
    pub fn from_strs(mut tokens: Vec<&str>) -> Self {
        tokens.retain(|t| !t.is_empty() && !has_newline(t.as_bytes()));
        Self::from_set(tokens)
    }

    /// [`Tokens::from_strs`] for tokens known to hold no newline (the words of a normalized
    /// text that has none, and slices of them): not looked at byte by byte again.
    pub(crate) fn from_words(mut tokens: Vec<&str>) -> Self {
        debug_assert!(tokens.iter().all(|t| !t.contains('\n')));
        tokens.retain(|t| !t.is_empty());
        Self::from_set(tokens)
    }

    /// The set of `tokens` (none empty, none with a newline), sorted and deduplicated: in
    /// [`sorted_order`], equal tokens are next to each other.
    fn from_set(tokens: Vec<&str>) -> Self {
        let mut set: Vec<&str> = sorted_order(&tokens)
            .into_iter()
            .map(|i| tokens[i as usize])
            .collect();
        set.dedup();
        // Sized by the set, not by the tokens given (with their repeats): sets are kept.
        let mut out = String::with_capacity(set.iter().map(|t| t.len() + 1).sum());
        for (i, t) in set.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(t);
        }
        Tokens(out)
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.split('\n').filter(|t| !t.is_empty())
    }
}

/// Whether `b` holds a newline (branch-free over a short token).
#[inline]
fn has_newline(b: &[u8]) -> bool {
    b.iter().fold(false, |nl, &x| nl | (x == b'\n'))
}

/// The first eight bytes of `t` as a big-endian number (zero-padded), read as overlapping
/// fixed-size pieces rather than copied byte by byte: ordering by it, then by the whole string,
/// is ordering by string (token sets here, lexical terms in `artifacts::lexical`).
#[inline]
pub fn prefix_key(t: &str) -> u64 {
    let b = t.as_bytes();
    let be4 = |c: &[u8; 4]| u32::from_be_bytes(*c) as u64;
    match (
        b.first_chunk::<8>(),
        b.first_chunk::<4>(),
        b.last_chunk::<4>(),
    ) {
        (Some(k), ..) => u64::from_be_bytes(*k),
        // 4–7 bytes: the last four moved into place over the first four (the bytes they share
        // are the same).
        (None, Some(head), Some(tail)) => {
            (be4(head) << 32) | (be4(tail) << (8 * (8 - b.len() as u32)))
        }
        _ => b
            .iter()
            .enumerate()
            .fold(0u64, |k, (i, &x)| k | ((x as u64) << (56 - 8 * i))),
    }
}

/// The indexes of `strs` in the order of their strings (equal strings in any order).
///
/// Sorted as numbers: each string's [`prefix_key`] above its index (an integer comparison,
/// without a branch or a call, and 16-byte elements to move); only the strings sharing their
/// first eight bytes are then sorted by their bytes.
pub fn sorted_order(strs: &[&str]) -> Vec<u32> {
    let mut keys: Vec<u128> = strs
        .iter()
        .enumerate()
        .map(|(i, t)| (u128::from(prefix_key(t)) << 64) | i as u128)
        .collect();
    keys.sort_unstable();
    let mut order: Vec<u32> = keys.iter().map(|&k| k as u64 as u32).collect();
    let mut i = 0;
    while i < keys.len() {
        let prefix = keys[i] >> 64;
        let end = keys[i + 1..]
            .iter()
            .position(|k| k >> 64 != prefix)
            .map_or(keys.len(), |n| i + 1 + n);
        if end - i > 1 {
            order[i..end].sort_unstable_by(|&a, &b| strs[a as usize].cmp(strs[b as usize]));
        }
        i = end;
    }
    order
}

/// The words of a search text (split on ASCII space; empty pieces skipped).
pub fn tokens(search_text: &str) -> impl Iterator<Item = &str> {
    // Words are short, and where one ends is hard to predict: the spaces of 64 bytes at a time
    // are found as the bits of a mask, and a word is the bytes between two of them, so that a
    // branch is mispredicted once a block rather than once a word.
    let b = search_text.as_bytes();
    let mut block = 0; // the first byte of the block `mask` is of
    let mut mask = space_mask(b, 0);
    let mut start = 0; // where the next word starts
    std::iter::from_fn(move || {
        loop {
            if mask == 0 {
                block += 64;
                // A text of a whole number of blocks: its end, as a space.
                mask = match block.cmp(&b.len()) {
                    std::cmp::Ordering::Less => space_mask(b, block),
                    std::cmp::Ordering::Equal => 1,
                    std::cmp::Ordering::Greater => return None,
                };
                continue;
            }
            let end = (block + mask.trailing_zeros() as usize).min(b.len());
            mask &= mask - 1;
            let from = std::mem::replace(&mut start, end + 1);
            if from >= b.len() {
                return None;
            }
            if end > from {
                // Both ends are at a space or the end of the text: character boundaries.
                return search_text.get(from..end);
            }
        }
    })
}

/// Bit `j` set when byte `at + j` of `b` is a space or past its end.
#[inline]
fn space_mask(b: &[u8], at: usize) -> u64 {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let mut bytes = [b' '; 64];
    let have = b.len().saturating_sub(at).min(64);
    bytes[..have].copy_from_slice(&b[at..at + have]);
    let mut mask = 0;
    for (k, c) in bytes.chunks_exact(8).enumerate() {
        let x = u64::from_le_bytes(c.try_into().unwrap_or_default())
            ^ (0x0101_0101_0101_0101 * b' ' as u64);
        // 0x80 in exactly the zero bytes of `x` (the spaces), then those eight bits gathered
        // into one byte, in order.
        let zero = !(((x & LOW7) + LOW7) | x | LOW7);
        mask |= ((zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
    }
    mask
}

#[cfg(test)]
mod tokens_tests {
    use super::Tokens;

    #[test]
    fn tokens_are_a_sorted_set_and_keep_inner_spaces() {
        let t = Tokens::new(vec![
            "ب".into(),
            "ا".into(),
            "ب".into(),
            "".into(),
            "في اين".into(),
        ]);
        assert_eq!(t.iter().collect::<Vec<_>>(), vec!["ا", "ب", "في اين"]);
        assert_eq!(Tokens::new(Vec::new()).iter().count(), 0);
        let owned = vec![
            "ب".to_string(),
            "ا".into(),
            "ب".into(),
            "".into(),
            "في اين".into(),
            "x\ny".into(),
        ];
        let borrowed: Vec<&str> = owned.iter().map(String::as_str).collect();
        assert_eq!(Tokens::from_strs(borrowed), Tokens::new(owned));
        // Prefix keys never reorder: shared 8-byte prefixes, prefixes of each other, NULs.
        let words = [
            "abcdefghz",
            "abcdefgha",
            "abcdefgh",
            "abc",
            "abc\0",
            "ab\0\0\0\0\0\0\0x",
            "ab",
            "الكنيسة",
            "الكنيسه",
            "الكن",
            "b",
        ];
        let mut sorted: Vec<&str> = words.to_vec();
        sorted.sort_unstable();
        assert_eq!(
            Tokens::from_strs(words.to_vec()).iter().collect::<Vec<_>>(),
            sorted
        );
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1000)
        ))]

        /// The prefix-keyed sort of borrowed tokens is the plain sort of owned ones, for tokens of
        /// every length around the 4- and 8-byte pieces, with shared prefixes, NULs and newlines
        /// (left out by `from_strs`; `from_words` is given the tokens without them).
        #[test]
        fn from_strs_as_new(v in prop::collection::vec("[ab\\x00\n اب]{0,12}", 0..40)) {
            let owned: Vec<String> = v;
            let borrowed: Vec<&str> = owned.iter().map(String::as_str).collect();
            prop_assert_eq!(Tokens::from_strs(borrowed.clone()), Tokens::new(owned.clone()));
            let words: Vec<&str> = borrowed.into_iter().filter(|t| !t.contains('\n')).collect();
            prop_assert_eq!(Tokens::from_words(words), Tokens::new(owned.clone()));
        }

        /// The prefix key is the first eight bytes, zero-padded, and orders as the bytes do
        /// (ties only for tokens sharing eight bytes or differing by trailing NULs).
        #[test]
        fn prefix_key_orders_as_bytes(a in "[ab\\x00ا]{0,12}", b in "[ab\\x00ا]{0,12}") {
            let (ka, kb) = (super::prefix_key(&a), super::prefix_key(&b));
            if ka != kb {
                prop_assert_eq!(ka < kb, a < b);
            }
            let mut pa = a.as_bytes().to_vec();
            pa.resize(8.max(pa.len()), 0);
            prop_assert_eq!(ka, u64::from_be_bytes(pa[..8].try_into().unwrap()));
        }

        /// `sorted_order` sorts as the strings do, with shared prefixes, NULs and repeats.
        #[test]
        fn sorted_order_sorts_as_strings(v in prop::collection::vec("[ab\\x00ا]{0,12}", 0..60)) {
            let strs: Vec<&str> = v.iter().map(String::as_str).collect();
            let order = super::sorted_order(&strs);
            let mut seen = order.clone();
            seen.sort_unstable();
            prop_assert_eq!(seen, (0..strs.len() as u32).collect::<Vec<_>>());
            let got: Vec<&str> = order.iter().map(|&i| strs[i as usize]).collect();
            let mut want = strs.clone();
            want.sort_unstable();
            prop_assert_eq!(got, want);
        }
    }
}
