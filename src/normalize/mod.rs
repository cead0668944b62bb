//! Arabic `search_text`: a separate normalized form of the evidence, used only for lexical
//! matching and as embedding input. (Interim conservative core; the full rule set replaces it.)

mod rules;

pub use rules::{Rules, RULES_VERSION, normalize, normalize_into};

use crate::text::{SearchText, Text};

/// The search form of one evidence text. Reads the `Text` alone.
pub fn search_text(text: &Text, rules: &Rules) -> SearchText {
    SearchText::from_normalized(normalize(text.as_str(), rules))
}

/// Normalizes a query the same way as the corpus.
pub fn query_text(q: &str, rules: &Rules) -> SearchText {
    SearchText::from_normalized(normalize(q, rules))
}
