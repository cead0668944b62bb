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
        crate::normalize::tokens(&self.0)
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
    pub fn from_strs(tokens: Vec<&str>) -> Self {
        // Sorted by (first eight bytes as a big-endian number, whole token): the same order as
        // by token (a smaller prefix number means a smaller token), with most comparisons
        // decided without a `memcmp` call.
        let mut keyed: Vec<(u64, &str)> = tokens.into_iter().filter(|t| !t.is_empty() && !t.bytes().fold(false, |nl, b| nl | (b == b'\n'))).map(|t| (prefix_key(t), t)).collect();
        keyed.sort_unstable();
        keyed.dedup_by(|a, b| a.1 == b.1);
        let mut out = String::with_capacity(keyed.iter().map(|(_, t)| t.len() + 1).sum());
        for (i, (_, t)) in keyed.iter().enumerate() {
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

/// The first eight bytes of `t` as a big-endian number (zero-padded).
#[inline]
fn prefix_key(t: &str) -> u64 {
    if let Some(k) = t.as_bytes().first_chunk::<8>() {
        return u64::from_be_bytes(*k);
    }
    let mut k = [0u8; 8];
    let n = t.len().min(8);
    k[..n].copy_from_slice(&t.as_bytes()[..n]);
    u64::from_be_bytes(k)
}

#[cfg(test)]
mod tokens_tests {
    use super::Tokens;

    #[test]
    fn tokens_are_a_sorted_set_and_keep_inner_spaces() {
        let t = Tokens::new(vec!["ب".into(), "ا".into(), "ب".into(), "".into(), "في اين".into()]);
        assert_eq!(t.iter().collect::<Vec<_>>(), vec!["ا", "ب", "في اين"]);
        assert_eq!(Tokens::new(Vec::new()).iter().count(), 0);
        let owned = vec!["ب".to_string(), "ا".into(), "ب".into(), "".into(), "في اين".into(), "x\ny".into()];
        let borrowed: Vec<&str> = owned.iter().map(String::as_str).collect();
        assert_eq!(Tokens::from_strs(borrowed), Tokens::new(owned));
        // Prefix keys never reorder: shared 8-byte prefixes, prefixes of each other, NULs.
        let words = ["abcdefghz", "abcdefgha", "abcdefgh", "abc", "abc\0", "ab\0\0\0\0\0\0\0x", "ab", "الكنيسة", "الكنيسه", "الكن", "b"];
        let mut sorted: Vec<&str> = words.to_vec();
        sorted.sort_unstable();
        assert_eq!(Tokens::from_strs(words.to_vec()).iter().collect::<Vec<_>>(), sorted);
    }
}
