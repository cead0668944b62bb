//! The second stage over the best lexical candidates, read from their evidence (which the runtime
//! hydrates anyway): bag-of-words BM25 cannot see that question words stand together in a chunk,
//! nor that a page's URL names what the question asks about.
//!
//! - **Proximity**: each pair of neighbouring topic words of the question (اول بابا، السيد المسيح،
//!   export default) found close together in the chunk's title and text adds the rarer word's idf
//!   divided by their distance (1 for adjacent words, none past the window; the closest occurrence
//!   counts) — a simplified Rasolofo–Savoy term-proximity score.
//! - **URL words**: a topic word of the question that is a word of the chunk's URL path
//!   (`…/warnings/invalid-hook-call-warning`, `…/essentials/computed`) adds its idf: documentation
//!   sites name a page after what it explains, in English even when the page is Arabic, so a
//!   question's loanword (الداتابيز) meets the path's English word (`database`) by its key.
//!
//! A chunk token matches a question word when it equals one of the word's surface terms (search
//! token, variants, aliases, article stem) or has one of its stem keys.

use rustc_hash::FxHashMap;

use super::QueryWord;
use crate::normalize::latin::latin_stem;
use crate::normalize::loanword::latin_key;
use crate::normalize::stem::stem;

/// The stem keys of the tokens a question's candidates have, each computed once per question.
pub type Stems = FxHashMap<String, Option<String>>;

/// Positions in `tokens` of each question word (in the order of `words`); `stems` remembers
/// the stem key of every token seen.
pub fn positions(tokens: &[&str], words: &[&QueryWord], stems: &mut Stems) -> Vec<Vec<usize>> {
    // Which words each surface term and each stem key belongs to: one lookup a token.
    let mut surface: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    let mut by_stem: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for (i, w) in words.iter().enumerate() {
        for t in w.terms.iter().filter(|t| t.weight > 0.0) {
            let of = if t.is_stem {
                &mut by_stem
            } else {
                &mut surface
            };
            let list = of.entry(t.term.as_str()).or_default();
            if list.last() != Some(&i) {
                list.push(i);
            }
        }
    }
    let mut out = vec![Vec::new(); words.len()];
    let mut hit = vec![false; words.len()];
    for (p, tok) in tokens.iter().enumerate() {
        if !stems.contains_key(*tok) {
            stems.insert(tok.to_string(), stem(tok));
        }
        let key = stems.get(*tok).and_then(Option::as_deref);
        let found = surface
            .get(tok)
            .into_iter()
            .chain(key.and_then(|k| by_stem.get(k)))
            .flatten();
        let mut any = false;
        for &i in found {
            hit[i] = true;
            any = true;
        }
        if any {
            for (i, h) in hit.iter_mut().enumerate() {
                if *h {
                    out[i].push(p);
                    *h = false;
                }
            }
        }
    }
    out
}

/// The closeness of two words' occurrences: 1 / the smallest distance between them, 0 when it is
/// over `window` or either word is absent.
pub fn closeness(a: &[usize], b: &[usize], window: usize) -> f64 {
    let mut best = usize::MAX;
    let (mut i, mut j) = (0, 0);
    // Both lists are ascending: walk them together.
    while i < a.len() && j < b.len() {
        let d = a[i].abs_diff(b[j]);
        if d > 0 {
            best = best.min(d);
        }
        if a[i] < b[j] { i += 1 } else { j += 1 }
    }
    if best <= window {
        1.0 / best as f64
    } else {
        0.0
    }
}

/// A URL path's words with what a question word may meet them by, each computed once per URL
/// rather than once per question word.
pub struct UrlWords {
    words: Vec<UrlWord>,
}

struct UrlWord {
    word: String,
    /// Its English stem (`latin::latin_stem`).
    stem: Option<String>,
    /// Its loanword key (`loanword::latin_key`).
    key: Option<String>,
}

impl UrlWords {
    /// The [`url_words`] of `url`.
    pub fn of(url: &str) -> UrlWords {
        let words = url_words(url)
            .into_iter()
            .map(|word| UrlWord {
                stem: latin_stem(&word),
                key: latin_key(&word),
                word,
            })
            .collect();
        UrlWords { words }
    }
}

/// Whether a question word is a word of the URL: its search token or one of its full-weight
/// surface terms, (a Latin word) the same English stem (`export` in `…-exporting-…`), or (an
/// Arabic word) the loanword key of the URL word (الداتابيز in `…/server-config/database`).
pub fn in_url(word: &QueryWord, url: &UrlWords) -> bool {
    let latin = latin_stem(&word.token);
    url.words.iter().any(|u| {
        word.terms
            .iter()
            .any(|t| !t.is_stem && t.weight >= 1.0 && t.term == u.word)
            || (latin.is_some() && u.stem == latin)
            || u.key.as_ref().is_some_and(|k| {
                word.terms
                    .iter()
                    .any(|t| !t.is_stem && t.weight > 0.0 && t.term == *k)
            })
    })
}

/// The words of a URL's path, lowercased: host, query, fragment and file extension left out,
/// only alphabetic words of three letters or more (no `ar`, no day numbers).
pub fn url_words(url: &str) -> Vec<String> {
    let no_scheme = url
        .split_once("://")
        .map(|(_, r)| r.split_once('/').map(|(_, p)| p).unwrap_or(""))
        .unwrap_or(url);
    let path = no_scheme.split(['?', '#']).next().unwrap_or("");
    let path = match path.rsplit_once('.') {
        Some((stem, ext)) if !ext.contains('/') && ext.len() <= 5 => stem,
        _ => path,
    };
    path.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3 && w.chars().all(char::is_alphabetic))
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::QueryTerm;

    fn word(token: &str, stem_key: Option<&str>) -> QueryWord {
        let mut terms = vec![QueryTerm {
            term: token.into(),
            weight: 1.0,
            is_stem: false,
        }];
        if let Some(k) = stem_key {
            terms.push(QueryTerm {
                term: k.into(),
                weight: 1.0,
                is_stem: true,
            });
        }
        QueryWord {
            token: token.into(),
            terms,
        }
    }

    #[test]
    fn words_are_found_by_surface_term_or_stem_key() {
        let (a, b) = (word("اول", None), word("بابا", Some("بابا")));
        let toks = ["استشهاد", "مرقس", "اول", "باباوات", "الاسكندريه", "بابا"];
        let p = positions(&toks, &[&a, &b], &mut Stems::default());
        assert_eq!(p, vec![vec![2], vec![3, 5]]);
    }

    #[test]
    fn adjacent_words_score_one_and_far_ones_nothing() {
        assert_eq!(closeness(&[2], &[3, 40], 4), 1.0);
        assert_eq!(closeness(&[10], &[7], 4), 1.0 / 3.0);
        assert_eq!(closeness(&[1], &[30], 4), 0.0);
        assert_eq!(closeness(&[], &[3], 4), 0.0);
        // The same position (one token matching both words) is not a pair.
        assert_eq!(closeness(&[5], &[5], 4), 0.0);
    }

    #[test]
    fn a_loanword_meets_the_english_word_of_the_url_by_its_key() {
        let mut w = word("الداتابيز", None);
        for key in crate::normalize::loanword::arabic_keys("الداتابيز") {
            w.terms.push(QueryTerm {
                term: key,
                weight: 2.0,
                is_stem: false,
            });
        }
        let url = UrlWords::of("https://gin-gonic.com/ar/docs/server-config/database/");
        assert!(in_url(&w, &url));
        assert!(!in_url(
            &w,
            &UrlWords::of("/docs/server-config/health-check")
        ));
        // Without its keys the Arabic spelling is no word of the path.
        assert!(!in_url(&word("الداتابيز", None), &url));
    }

    #[test]
    fn url_words_are_the_alphabetic_path_words() {
        assert_eq!(
            url_words("https://ar.react.dev/warnings/invalid-hook-call-warning"),
            ["warnings", "invalid", "hook", "call", "warning"]
        );
        assert_eq!(
            url_words("https://www.copticchurch.net/synaxarium/4_29.html?lang=ar#1"),
            ["synaxarium"]
        );
        assert_eq!(url_words("/agpeya/common"), ["agpeya", "common"]);
        assert_eq!(
            url_words("https://ar.vuejs.org/guide/essentials/computed"),
            ["guide", "essentials", "computed"]
        );
    }
}
