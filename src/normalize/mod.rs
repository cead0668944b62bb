//! normalize: Arabic `search_text`, a separate normalized form of the evidence used only for
//! lexical matching and as embedding input. `rules` is the ordered, named rule pipeline (pure,
//! no I/O); `aliases` the isolated, additive recall aliases. Evidence `Text` is never changed.

pub mod aliases;
pub mod latin;
pub mod query_words;
mod rules;
pub mod stem;

pub use rules::{
    ALL_RULE_NAMES, Change, LOSSY_RULE_NAMES, NORMALIZATION_UNICODE_VERSION, RULES_VERSION, Rules, explain, normalize, normalize_into, normalize_with_variants, tokens, variants,
};

use crate::text::{SearchText, Text};

/// The search form of one evidence text. Reads the `Text` alone.
pub fn search_text(text: &Text, rules: &Rules) -> SearchText {
    SearchText::from_normalized(normalize(text.as_str(), rules))
}

/// The search form and its additive variants (e.g. Uthmani dagger alef read as ا).
pub fn search_text_with_variants(text: &Text, rules: &Rules) -> (SearchText, Vec<String>) {
    let (primary, vars) = normalize_with_variants(text.as_str(), rules);
    (SearchText::from_normalized(primary), vars)
}

/// Normalizes a question the same way as the corpus.
pub fn query_text(q: &str, rules: &Rules) -> SearchText {
    SearchText::from_normalized(normalize(q, rules))
}
