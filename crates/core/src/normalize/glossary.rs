//! The shipped bilingual glossary (`glossary.toml`): common technical and business terms in
//! English and their Modern Standard Arabic equivalents. Arabic documentation writes `function`
//! as دالة and `server` as خادم, while visitors type the English word, or the English word in
//! Arabic letters (فانكشن، السيرفر); pages written the other way round (English terms in an
//! Arabic text) meet questions in MSA. Without a bridge neither finds the other.
//!
//! Query side only and additive, like every recall expansion: a question word that names a
//! glossary term (in English, as an Arabic loanword whose [`loanword`] key is the English word's,
//! or as one of its Arabic forms, with or without the article) also looks for the term's forms in
//! the other language, weighted `[retrieval] glossary_weight`. Chunks and artifacts never change.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{Rules, latin, loanword, normalize};

/// One term: its English words and its Arabic forms (each one word), as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Term {
    pub en: Vec<String>,
    pub ar: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GlossaryFile {
    term: Vec<Term>,
}

/// The shipped terms, as written in `glossary.toml`.
pub fn shipped() -> Vec<Term> {
    toml::from_str::<GlossaryFile>(include_str!("glossary.toml"))
        .expect("shipped glossary parses")
        .term
}

/// The glossary in search form under one set of rules, indexed for question words.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Glossary {
    /// Per term: its English words and its Arabic forms, in search form.
    terms: Vec<(Vec<String>, Vec<String>)>,
    /// The base ([`latin::latin_stem`]) of each English word → its terms.
    by_english: HashMap<String, Vec<usize>>,
    /// The [`loanword::latin_key`] of each English word → its terms.
    by_key: HashMap<String, Vec<usize>>,
    /// Each Arabic form without its article → its terms.
    by_arabic: HashMap<String, Vec<usize>>,
    /// The terms as written, in order (what a deployed version's query settings carry).
    written: Vec<Term>,
}

impl Glossary {
    /// The shipped glossary normalized with the corpus rules.
    pub fn shipped(rules: &Rules) -> Self {
        Glossary::new(shipped(), rules)
    }

    /// A glossary of `terms` in search form under `rules`.
    pub fn new(terms: Vec<Term>, rules: &Rules) -> Self {
        let mut g = Glossary::default();
        for term in &terms {
            let i = g.terms.len();
            let en: Vec<String> = term.en.iter().map(|w| normalize(w, rules)).collect();
            let ar: Vec<String> = term
                .ar
                .iter()
                .map(|w| normalize(w, rules))
                .filter(|w| !w.is_empty() && !w.contains(' '))
                .collect();
            for w in &en {
                if let Some(base) = latin::latin_stem(w) {
                    g.by_english.entry(base).or_default().push(i);
                }
                if let Some(key) = loanword::latin_key(w) {
                    g.by_key.entry(key).or_default().push(i);
                }
            }
            for w in &ar {
                g.by_arabic.entry(bare(w).to_string()).or_default().push(i);
            }
            g.terms.push((en, ar));
        }
        g.written = terms;
        g
    }

    /// The terms as written, in order.
    pub fn terms(&self) -> &[Term] {
        &self.written
    }

    /// What a question's search token adds in the other language: the Arabic forms of an
    /// English term (each also with the article), or the English words of an Arabic one. Empty
    /// for most tokens, and for a loanword in Arabic letters ([`Glossary::expand_by_key`]).
    pub fn expand(&self, token: &str) -> Vec<String> {
        self.expansions(token, false)
    }

    /// The Arabic forms of the terms whose English word has one of the loanword keys of
    /// `token` (السيرفر → خادم), when `token` names no term otherwise: what a question word
    /// that cannot be a native word adds ([`super::native_words`]).
    pub fn expand_by_key(&self, token: &str) -> Vec<String> {
        self.expansions(token, true)
    }

    fn expansions(&self, token: &str, by_key: bool) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut push = |w: String| {
            if w != token && !out.contains(&w) {
                out.push(w);
            }
        };
        let arabic_forms = |i: usize, push: &mut dyn FnMut(String)| {
            for a in &self.terms[i].1 {
                push(a.clone());
                if !a.starts_with("ال") {
                    push(format!("ال{a}"));
                }
            }
        };
        if let Some(base) = latin::latin_stem(token) {
            if !by_key {
                for &i in self.by_english.get(&base).into_iter().flatten() {
                    arabic_forms(i, &mut push);
                }
            }
            return out;
        }
        if let Some(terms) = self.by_arabic.get(bare(token)) {
            if !by_key {
                for &i in terms {
                    for e in &self.terms[i].0 {
                        push(e.clone());
                    }
                }
            }
            return out;
        }
        if !by_key {
            return out;
        }
        for key in loanword::arabic_keys(token) {
            for &i in self.by_key.get(&key).into_iter().flatten() {
                arabic_forms(i, &mut push);
            }
        }
        out
    }
}

/// A search word without its article (and a clitic before it): `aliases::article_stem`.
fn bare(word: &str) -> &str {
    super::aliases::article_stem(word).unwrap_or(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g() -> Glossary {
        Glossary::shipped(&Rules::default())
    }

    #[test]
    fn an_english_word_and_its_inflections_find_the_arabic_forms() {
        let g = g();
        for w in ["function", "functions"] {
            let e = g.expand(w);
            assert!(e.contains(&"داله".to_string()), "{w}: {e:?}");
            assert!(e.contains(&"الداله".to_string()), "{w}: {e:?}");
        }
    }

    #[test]
    fn an_arabic_form_with_or_without_the_article_finds_the_english_word() {
        let g = g();
        for w in ["خادم", "الخادم", "بالخادم", "خوادم"] {
            assert_eq!(g.expand(w), vec!["server".to_string()], "{w}");
        }
    }

    #[test]
    fn a_loanword_in_arabic_letters_finds_the_arabic_term() {
        assert!(g().expand("السيرفر").is_empty());
        let e = g().expand_by_key("السيرفر");
        assert!(e.contains(&"خادم".to_string()), "{e:?}");
    }

    #[test]
    fn other_words_expand_to_nothing() {
        let g = g();
        for w in ["كتاب", "hello", "في", "2024"] {
            assert!(g.expand(w).is_empty(), "{w}: {:?}", g.expand(w));
        }
    }

    #[test]
    fn every_shipped_arabic_form_is_one_search_word() {
        let rules = Rules::default();
        for t in &shipped() {
            assert!(!t.en.is_empty() && !t.ar.is_empty());
            for a in &t.ar {
                let n = normalize(a, &rules);
                assert!(!n.is_empty() && !n.contains(' '), "{a}");
            }
        }
    }
}
