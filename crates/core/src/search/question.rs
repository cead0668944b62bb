//! The question's words: each search token of the question and the weighted terms it expands
//! to (spelling variants, aliases, stems, loanword and glossary keys, siblings), what the
//! lexical ranking scores.

use super::Ranker;
use crate::normalize::query_words::WordClass;

impl Ranker<'_> {
    /// The question's words, each with what it expands to: its search token (weight 1), its
    /// spelling variants (1), what query-side aliases add (`alias_weight`), article and light
    /// stems (`article_stem_weight`, `stem_weight` times the term's weight), the stem keys of
    /// the token and its aliases (`normalize::stem`, matched in `stem_terms`), loanword keys and
    /// English inflections, the glossary's terms in the other language (`glossary_weight`) and
    /// a topic word's siblings: its broken plurals (`broken_plural_weight`), its derivational
    /// family (`derivation_weight`), its MSA spellings of ث and ذ (`interdental_weight`) and,
    /// for a colloquial verb, the written form without its affixes (`dialect_verb_weight`). A
    /// word repeated in the question counts once.
    pub fn query_words(&self, question: &str) -> Vec<QueryWord> {
        let s = &self.cfg.retrieval;
        let primary = crate::normalize::normalize(question, self.cfg.normalize);
        let stems = s.stem_field_weight > 0.0;
        let mut words: Vec<QueryWord> = Vec::new();
        for t in primary.split(' ').filter(|t| !t.is_empty()) {
            if !words.iter().any(|w| w.token == t) {
                let mut w = QueryWord {
                    token: t.to_string(),
                    terms: Vec::new(),
                };
                w.add(t, 1.0, false);
                w.add_stem_key(t, 1.0, stems);
                words.push(w);
            }
        }
        // Variants, per raw word, go to the word whose search token that raw word makes.
        for raw in question.split_whitespace() {
            let (p, vars) = crate::normalize::normalize_with_variants(raw, self.cfg.normalize);
            for v in vars {
                word_for(&mut words, p.split(' ').next().unwrap_or("")).add(&v, 1.0, false);
            }
        }
        for (to, from, _) in self.cfg.aliases.expand_query(primary.split(' ')) {
            let w = word_for(&mut words, &from);
            w.add(&to, s.alias_weight, false);
            w.add_stem_key(&to, s.alias_weight, stems);
        }
        if s.latin_inflection_weight > 0.0 {
            for w in &mut words {
                for form in crate::normalize::latin::inflections(&w.token.clone()) {
                    w.add(&form, s.latin_inflection_weight, false);
                }
            }
        }
        // Loanword keys, and the glossary terms found through them, only for a word that
        // cannot be an everyday Arabic word (`native_words`; `rank` also drops them for a word
        // the site itself uses).
        for w in &mut words {
            let keyed = !crate::normalize::native_words::could_be_native(&w.token);
            if keyed && s.loanword_weight > 0.0 {
                for key in crate::normalize::loanword::arabic_keys(&w.token.clone()) {
                    w.add_keyed(&key, s.loanword_weight);
                }
            }
            if s.glossary_weight > 0.0 {
                for t in self.cfg.glossary.expand(&w.token) {
                    w.add(&t, s.glossary_weight, false);
                }
                if keyed {
                    for t in self.cfg.glossary.expand_by_key(&w.token) {
                        w.add_keyed(&t, s.glossary_weight);
                    }
                }
            }
        }
        // A name written as two words in Arabic letters and as one in Latin ones (فيس بوك ↔
        // facebook, تيك توك ↔ tiktok): the key of the two written together, on the first, when
        // neither can be an everyday word.
        if s.loanword_weight > 0.0 {
            let tokens: Vec<&str> = primary.split(' ').filter(|t| !t.is_empty()).collect();
            for (i, key) in crate::normalize::loanword::question_compounds(&tokens, &self.classes) {
                word_for(&mut words, tokens[i]).add_keyed(&key, s.loanword_weight);
            }
        }
        // Siblings of a topic word: its broken plurals, its derivational family, its MSA
        // spellings of a dialect's stops and its written form as a colloquial verb, each at its
        // own weight.
        let siblings: [(f64, Siblings); 4] = [
            (
                s.broken_plural_weight,
                crate::normalize::stem::broken_plural_siblings,
            ),
            (
                s.derivation_weight,
                crate::normalize::stem::derivation_siblings,
            ),
            (
                s.interdental_weight,
                crate::normalize::stem::interdental_spellings,
            ),
            (s.dialect_verb_weight, crate::normalize::dialect::verb_bases),
        ];
        for (weight, expand) in siblings {
            if weight <= 0.0 {
                continue;
            }
            for w in &mut words {
                if self.classes.class(&w.token) != WordClass::Content {
                    continue;
                }
                for f in expand(&w.token) {
                    w.add(&f, weight, false);
                }
            }
        }
        if self.cfg.article_stems {
            for w in &mut words {
                let surface: Vec<(String, f64)> = w
                    .terms
                    .iter()
                    .filter(|t| !t.is_stem && !t.keyed)
                    .map(|t| (t.term.clone(), t.weight))
                    .collect();
                for (t, weight) in surface {
                    if let Some(stem) = crate::normalize::aliases::article_stem(&t) {
                        w.add(stem, weight * s.article_stem_weight, false);
                    }
                    if let Some(stem) = crate::normalize::aliases::light_stem(&t) {
                        w.add(&stem, weight * s.stem_weight, false);
                    }
                }
            }
        }
        words
    }
}

/// A question word's sibling forms of one kind (`normalize::stem`).
type Siblings = fn(&str) -> Vec<String>;

/// One question word and the weighted terms it expands to.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryWord {
    /// The search token the word normalizes to.
    pub token: String,
    pub terms: Vec<QueryTerm>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct QueryTerm {
    pub term: String,
    pub weight: f64,
    /// A stem key, matched in `stem_terms` (and titles), not in the other fields.
    pub is_stem: bool,
    /// Reached through a loanword key (the key itself, or a glossary term found by it): dropped
    /// when the question word turns out to be one the site uses (`Ranker::rank`).
    pub keyed: bool,
}

impl QueryWord {
    /// Adds a term, keeping the higher weight when it is already there.
    fn add(&mut self, term: &str, weight: f64, is_stem: bool) {
        self.push(term, weight, is_stem, false);
    }

    /// Adds a term reached through a loanword key ([`QueryTerm::keyed`]); a term the word also
    /// reaches otherwise stays unkeyed.
    fn add_keyed(&mut self, term: &str, weight: f64) {
        self.push(term, weight, false, true);
    }

    fn push(&mut self, term: &str, weight: f64, is_stem: bool, keyed: bool) {
        if term.is_empty() {
            return;
        }
        match self
            .terms
            .iter_mut()
            .find(|t| t.term == term && t.is_stem == is_stem)
        {
            Some(t) => {
                t.weight = t.weight.max(weight);
                t.keyed &= keyed;
            }
            None => self.terms.push(QueryTerm {
                term: term.to_string(),
                weight,
                is_stem,
                keyed,
            }),
        }
    }

    /// Adds the stem key of `token` (`normalize::stem`), when `enabled` and it has one.
    fn add_stem_key(&mut self, token: &str, weight: f64, enabled: bool) {
        if enabled && let Some(k) = crate::normalize::stem::stem(token) {
            self.add(&k, weight, true);
        }
    }
}

/// The word whose token is `token`, added when the question has none (a variant or alias of a
/// token normalization split differently).
fn word_for<'w>(words: &'w mut Vec<QueryWord>, token: &str) -> &'w mut QueryWord {
    match words.iter().position(|w| w.token == token) {
        Some(i) => &mut words[i],
        None => {
            words.push(QueryWord {
                token: token.to_string(),
                terms: Vec::new(),
            });
            words.last_mut().unwrap()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_terms_merge_by_term_and_kind_keeping_the_higher_weight() {
        let mut w = QueryWord {
            token: "ميلاد".into(),
            terms: Vec::new(),
        };
        w.add("ميلاد", 0.4, false);
        w.add("ميلاد", 1.0, false);
        w.add("ولد", 0.8, true);
        w.add("", 1.0, false);
        assert_eq!(w.terms.len(), 2);
        assert_eq!(w.terms[0].weight, 1.0);
        assert!(w.terms[1].is_stem);
    }
}
