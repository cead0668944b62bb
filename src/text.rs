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
        self.0.split(' ').filter(|t| !t.is_empty())
    }
}

impl Serialize for SearchText {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}
