//! The loanword keys of a build's words that spell other words: what `rules check` reports and
//! `inspect` lists. A question word's loanword keys (and the glossary terms found through them)
//! bridge it to an English word the site writes in Latin letters; a native Arabic word whose
//! consonants happen to spell one must not be bridged. The core drops the keys of an everyday
//! word (`normalize::native_words`) and of a word the site uses at least as often as what its
//! keys reach (`search::Ranker::rank`); this module applies the same two rules to the whole
//! vocabulary of a build, so the words whose keys are dropped, and the bridges kept, can be read.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::normalize::glossary::Glossary;
use crate::normalize::{Rules, loanword, native_words, normalize};

/// A word of the site whose loanword keys spell other words.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct KeyMatch {
    /// Its search form.
    pub word: String,
    /// How many chunks hold it.
    pub chunks: usize,
    /// What its keys reach: the site's Latin words (with their chunk counts) and the glossary
    /// terms (with the chunk count of their most frequent Arabic form).
    pub reaches: Vec<(String, usize)>,
    /// Why its keys are dropped (`everyday word`, `the site's own word`), `None` when kept.
    pub dropped: Option<&'static str>,
}

/// Every word of the site whose keys reach something, and the everyday words a question may
/// hold whose keys spell a Latin word of the site (those the list keeps from being bridged).
#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct KeyCollisions {
    pub words: Vec<KeyMatch>,
    /// Everyday words (not in the site) whose keys spell one of the site's Latin words.
    pub everyday_elsewhere: usize,
    /// A few of them, with the Latin words they spell.
    pub everyday_examples: Vec<(String, Vec<String>)>,
}

impl KeyCollisions {
    /// The words whose keys are dropped.
    pub(crate) fn dropped(&self) -> impl Iterator<Item = &KeyMatch> {
        self.words.iter().filter(|w| w.dropped.is_some())
    }
}

/// The key collisions of the texts of a build's chunks under `rules` and `glossary`.
pub(crate) fn key_collisions<'a>(
    texts: impl Iterator<Item = &'a str>,
    rules: &Rules,
    glossary: &Glossary,
    examples: usize,
) -> KeyCollisions {
    // Chunk counts of each search word.
    let mut chunks: BTreeMap<String, usize> = BTreeMap::new();
    for t in texts {
        let form = normalize(t, rules);
        let words: BTreeSet<&str> = form.split(' ').filter(|w| !w.is_empty()).collect();
        for w in words {
            *chunks.entry(w.to_string()).or_insert(0) += 1;
        }
    }
    // What each key reaches: the site's Latin words and the glossary terms.
    let mut reach: BTreeMap<String, Vec<(String, usize)>> = BTreeMap::new();
    for (w, n) in &chunks {
        if let Some(k) = loanword::latin_key(w) {
            reach.entry(k).or_default().push((w.clone(), *n));
        }
    }
    for term in glossary.terms() {
        let forms: Vec<String> = term.ar.iter().map(|a| normalize(a, rules)).collect();
        let n = forms
            .iter()
            .map(|f| chunks.get(f).copied().unwrap_or(0))
            .max()
            .unwrap_or(0);
        for en in &term.en {
            if let Some(k) = loanword::latin_key(&normalize(en, rules)) {
                let name = format!("{} ({})", en, term.ar.first().map_or("", String::as_str));
                let entry = reach.entry(k).or_default();
                if !entry.iter().any(|(e, _)| *e == name) {
                    entry.push((name, n));
                }
            }
        }
    }
    let mut out = KeyCollisions::default();
    for (w, n) in &chunks {
        let mut reaches: Vec<(String, usize)> = loanword::arabic_keys(w)
            .iter()
            .filter_map(|k| reach.get(k))
            .flatten()
            .cloned()
            .collect();
        if reaches.is_empty() {
            continue;
        }
        reaches.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        reaches.dedup();
        let most = reaches.first().map_or(0, |r| r.1);
        let dropped = if native_words::could_be_native(w) {
            Some("everyday word")
        } else if *n >= most {
            Some("the site's own word")
        } else {
            None
        };
        out.words.push(KeyMatch {
            word: w.clone(),
            chunks: *n,
            reaches,
            dropped,
        });
    }
    // Everyday words a question may hold that the site does not: the list keeps their keys
    // from the site's Latin words.
    for w in native_words::words() {
        if chunks.contains_key(*w) {
            continue;
        }
        let latin: Vec<String> = loanword::arabic_keys(w)
            .iter()
            .filter_map(|k| reach.get(k))
            .flatten()
            .filter(|(l, _)| l.is_ascii())
            .map(|(l, _)| l.clone())
            .collect();
        if !latin.is_empty() {
            out.everyday_elsewhere += 1;
            if out.everyday_examples.len() < examples {
                out.everyday_examples.push((w.to_string(), latin));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(texts: &[&str]) -> KeyCollisions {
        let rules = Rules::default();
        key_collisions(
            texts.iter().copied(),
            &rules,
            &Glossary::new(Vec::new(), &rules),
            50,
        )
    }

    #[test]
    fn an_everyday_word_and_a_frequent_site_word_lose_their_keys_and_a_loanword_keeps_them() {
        let c = run(&[
            "نفسه invoice",
            "نفسه",
            "السيرفر server",
            "server",
            "server",
            "ثمار timer",
            "ثمار",
        ]);
        let find = |w: &str| c.words.iter().find(|m| m.word == w).cloned();
        assert_eq!(find("نفسه").unwrap().dropped, Some("everyday word"));
        assert_eq!(find("ثمار").unwrap().dropped, Some("the site's own word"));
        let server = find("السيرفر").unwrap();
        assert_eq!(server.dropped, None);
        assert_eq!(server.reaches, vec![("server".to_string(), 3)]);
        assert_eq!(c.dropped().count(), 2);
    }

    #[test]
    fn everyday_words_the_site_lacks_are_counted_against_its_latin_words() {
        let c = run(&["invoice account"]);
        assert!(c.everyday_elsewhere >= 2, "{c:?}");
        assert!(
            c.everyday_examples
                .iter()
                .any(|(w, l)| w == "نفسه" && l.contains(&"invoice".to_string())),
            "{c:?}"
        );
    }
}
