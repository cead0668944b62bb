//! Everyday Arabic words, whose loanword keys are never expanded (`native_words.txt`).
//!
//! A loanword key bridges a question word written in Arabic letters to the English word a page
//! writes in Latin ones (سيرفر → server). The keys are coarse consonant skeletons, so ordinary
//! Arabic words have keys too, and some equal an English word's: نفسه and "invoice", كانت and
//! "account", التكوين and "token". A question word gets its loanword keys (and the glossary terms
//! found through them) only when it cannot be a native word: when it is not in this list of
//! everyday words (nor one with an attached pronoun: `could_be_native`), and the site does not
//! use it (`search::Ranker::rank` checks the version's own vocabulary).
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

/// The pronouns a word can carry at its end (its object or owner: اثبتها، استخدمهم، بياناتي), in
/// search form, longest first. Not ه: search forms write ة as ه, so ليسته (a list) would read
/// as ليست with a pronoun.
const ATTACHED_PRONOUNS: [&str; 11] = [
    "هما", "كما", "ها", "هم", "هن", "كم", "كن", "نا", "ني", "ك", "ي",
];

/// Whether `word` (a search form) can be an everyday Arabic word: `is_native` itself, or once
/// an attached pronoun comes off with at least three letters left (اثبتها "I install it" is
/// أثبت with its object, not a skeleton of "output"). A word with a pronoun is as native as the
/// word without it, so a question word gets its loanword keys only when this is false.
pub fn could_be_native(word: &str) -> bool {
    is_native(word)
        || ATTACHED_PRONOUNS.iter().any(|p| {
            word.strip_suffix(p)
                .is_some_and(|rest| rest.chars().count() >= 3 && is_native(rest))
        })
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

    #[test]
    fn a_word_with_an_attached_pronoun_is_as_native_as_the_word() {
        // Not listed with their pronouns, listed without them.
        for w in ["اثبتها", "استخدمهم", "بياناتي", "استخدمهما"] {
            assert!(!is_native(w) && could_be_native(w), "{w}");
        }
        // A loanword with a pronoun stays a loanword; a pronoun never leaves under 3 letters.
        for w in ["سيرفرها", "كومبايلري", "ريكوستك", "ليسته"] {
            assert!(!could_be_native(w), "{w}");
        }
        assert!(!could_be_native("اثه"));
    }
}
