//! Everyday Arabic words, whose loanword keys are never expanded (`native_words.txt`).
//!
//! A loanword key bridges a question word written in Arabic letters to the English word a page
//! writes in Latin ones (سيرفر → server). The keys are coarse consonant skeletons, so ordinary
//! Arabic words have keys too, and some equal an English word's: نفسه and "invoice", كانت and
//! "account", التكوين and "token". A question word gets its loanword keys (and the glossary terms
//! found through them) only when it cannot be a native word: when it is not in this list of
//! everyday words, and the site does not use it (`search::Ranker::rank` checks the version's own
//! vocabulary).
//!
//! The list: the words of wordfreq 3.1.1's Arabic list with a Zipf frequency of at least 4 (one
//! in 100,000 words: the everyday vocabulary) that have a loanword key, in search form under
//! the default rules (a corpus whose rules differ checks its own search forms against it, and
//! a word the rules spell differently is not found). wordfreq's data is CC BY-SA 4.0, and so
//! is this list derived from it; `native_words.py` writes it. Loanwords that are common on the
//! web (سيرفر, فايل, كلاس) fall below the line and keep their keys; the few that pass it
//! (كمبيوتر, ويندوز) are found through the words a site writes around them instead.

use std::sync::OnceLock;

/// The list's source, version and license, as a version's query settings record it.
pub const SOURCE: &str = "wordfreq 3.1.1 ar, Zipf >= 4 (CC BY-SA 4.0)";

const LIST: &str = include_str!("native_words.txt");

/// The listed words, sorted.
pub fn words() -> &'static [&'static str] {
    static WORDS: OnceLock<Vec<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        LIST.lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    })
}

/// Whether `word` (a search form) is an everyday Arabic word: listed itself, or without its
/// article or a proclitic and article (`aliases::article_stem`).
pub fn is_native(word: &str) -> bool {
    let listed = |w: &str| words().binary_search(&w).is_ok();
    listed(word) || super::aliases::article_stem(word).is_some_and(listed)
}

/// How many words the list holds.
pub fn len() -> usize {
    words().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_unique_search_forms_with_a_loanword_key() {
        let w = words();
        assert!(w.len() > 5000, "{}", w.len());
        assert!(w.windows(2).all(|p| p[0] < p[1]), "sorted and unique");
        let rules = super::super::Rules::default();
        for word in w {
            assert_eq!(super::super::normalize(word, &rules), *word);
            assert!(
                !super::super::loanword::arabic_keys(word).is_empty(),
                "{word} has no loanword key"
            );
        }
    }

    #[test]
    fn everyday_words_are_native_and_loanwords_are_not() {
        for w in ["نفسه", "كانت", "التكوين", "بالتكوين", "تكوين"] {
            assert!(is_native(w), "{w}");
        }
        for w in ["سيرفر", "السيرفر", "ريكوست", "فانكشن", "ديبلوي", "كومبايلر"]
        {
            assert!(!is_native(w), "{w}");
        }
    }
}
