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
//! token, variants, aliases, article stem) or has one of its stem keys. Where the tokens of a
//! candidate stand is read from its [`WordIndex`].

use super::QueryWord;
use crate::normalize::Rules;
use crate::normalize::latin::latin_stem;
use crate::normalize::loanword::latin_key;
use crate::tables::{LookupRecord, WordIndex};

/// A [`WordIndex`] read: its pairs, found by binary search.
pub struct Words<'a> {
    tokens: Vec<(&'a str, &'a str)>,
    stems: Vec<(&'a str, &'a str)>,
}

impl<'a> Words<'a> {
    /// `None` when either string is not pairs. (Their order is the writer's: a record is read
    /// only after its bytes were found to hash to its key.)
    pub fn read(index: &'a WordIndex) -> Option<Words<'a>> {
        fn pairs(s: &str) -> Option<Vec<(&str, &str)>> {
            let mut out: Vec<(&str, &str)> = Vec::new();
            if s.is_empty() {
                return Some(out);
            }
            let mut at = 0;
            let mut key = None;
            for end in memchr::memchr_iter(b' ', s.as_bytes()).chain([s.len()]) {
                let field = &s[at..end];
                if field.is_empty() {
                    return None;
                }
                match key.take() {
                    None => key = Some(field),
                    Some(k) => out.push((k, field)),
                }
                at = end + 1;
            }
            key.is_none().then_some(out)
        }
        Some(Words {
            tokens: pairs(&index.tokens)?,
            stems: pairs(&index.stems)?,
        })
    }

    /// The positions, ascending, of the tokens that match `word`: that are one of its surface
    /// terms or have one of its stem keys (terms of positive weight). `None` when a position
    /// list is not numbers.
    pub fn positions(&self, word: &QueryWord) -> Option<Vec<usize>> {
        let mut out = Vec::new();
        for t in word.terms.iter().filter(|t| t.weight > 0.0) {
            let of = if t.is_stem { &self.stems } else { &self.tokens };
            if let Ok(i) = of.binary_search_by(|(k, _)| (*k).cmp(t.term.as_str())) {
                for n in of[i].1.split(',') {
                    out.push(n.parse().ok()?);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        Some(out)
    }
}

/// The positions of each of `words` in a candidate: from the index its record carries, or made
/// from the record when it carries none (or one that does not read).
pub fn positions(rec: &LookupRecord, words: &[&QueryWord], rules: &Rules) -> Vec<Vec<usize>> {
    let carried = rec.words.as_ref().and_then(|ix| {
        let w = Words::read(ix)?;
        words
            .iter()
            .map(|q| w.positions(q))
            .collect::<Option<Vec<_>>>()
    });
    carried.unwrap_or_else(|| {
        let ix = WordIndex::of(&rec.title, &rec.text, rules);
        let w = Words::read(&ix).expect("an index as made reads");
        words
            .iter()
            .map(|q| w.positions(q).expect("an index as made reads"))
            .collect()
    })
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
    use crate::normalize::stem::stem;
    use crate::normalize::{normalize, tokens};
    use crate::search::QueryTerm;

    fn word(token: &str, stem_key: Option<&str>) -> QueryWord {
        let mut terms = vec![QueryTerm {
            term: token.into(),
            weight: 1.0,
            is_stem: false,
            keyed: false,
        }];
        if let Some(k) = stem_key {
            terms.push(QueryTerm {
                term: k.into(),
                weight: 1.0,
                is_stem: true,
                keyed: false,
            });
        }
        QueryWord {
            token: token.into(),
            terms,
        }
    }

    fn record(title: &str, text: &str, words: Option<WordIndex>) -> LookupRecord {
        LookupRecord {
            chunk_id: "d:x:000".into(),
            title: title.into(),
            url: "/x".into(),
            text: text.into(),
            anchors: Vec::new(),
            words,
            domains: Vec::new(),
            library: "d".into(),
            metadata: Default::default(),
        }
    }

    #[test]
    fn words_are_found_by_surface_term_or_stem_key() {
        let (a, b) = (word("اول", None), word("بابا", Some("بابا")));
        let rules = Rules::default();
        let rec = record("استشهاد", "مرقس اول باباوات الاسكندريه بابا", None);
        assert_eq!(
            stem("باباوات").as_deref(),
            Some("بابا"),
            "the test's premise: باباوات has the stem key بابا"
        );
        let p = positions(&rec, &[&a, &b], &rules);
        assert_eq!(p, vec![vec![2], vec![3, 5]]);
        // The same from the index a deployed record carries.
        let ix = WordIndex::of(&rec.title, &rec.text, &rules);
        let carried = record("", "", Some(ix));
        assert_eq!(positions(&carried, &[&a, &b], &rules), p);
    }

    #[test]
    fn an_index_that_does_not_read_is_made_again_from_the_record() {
        let w = word("مرقس", None);
        let rules = Rules::default();
        for bad in ["مرقس", "مرقس x", "مرقس  1", "مرقس 1,,2"] {
            let rec = record(
                "",
                "اول مرقس",
                Some(WordIndex {
                    tokens: bad.into(),
                    stems: String::new(),
                }),
            );
            assert_eq!(positions(&rec, &[&w], &rules), vec![vec![1]], "{bad}");
        }
    }

    proptest::proptest! {
        /// The positions read from an index are those of every token of the normalized title
        /// and text that is a surface term of the word or has one of its stem keys.
        #[test]
        fn the_index_finds_every_token_a_word_matches(
            text in "[ابتمرسكلنهوي ٠-٩a-c.،]{0,80}",
            terms in proptest::collection::vec(("[ابتمرسكلنهوي]{1,4}", proptest::bool::ANY), 1..6),
        ) {
            let rules = Rules::default();
            let w = QueryWord {
                token: terms[0].0.clone(),
                terms: terms
                    .iter()
                    .map(|(t, is_stem)| QueryTerm { term: t.clone(), weight: 1.0, is_stem: *is_stem, keyed: false })
                    .collect(),
            };
            let search = normalize(&format!("t\n{text}"), &rules);
            let want: Vec<usize> = tokens(&search)
                .enumerate()
                .filter(|(_, tok)| {
                    w.terms.iter().any(|t| {
                        if t.is_stem { stem(tok).as_deref() == Some(t.term.as_str()) } else { t.term == *tok }
                    })
                })
                .map(|(p, _)| p)
                .collect();
            let ix = WordIndex::of("t", &text, &rules);
            proptest::prop_assert_eq!(positions(&record("", "", Some(ix)), &[&w], &rules), vec![want.clone()]);
            proptest::prop_assert_eq!(positions(&record("t", &text, None), &[&w], &rules), vec![want]);
        }
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
                keyed: false,
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
