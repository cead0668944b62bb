//! Question-side word classes from `query_words.toml`: interrogatives (فين، امتى، ازاي …, the kind
//! of answer wanted) and colloquial fillers (عايز، بيطلعلي، هي …, no topic). Retrieval scores them
//! below content words and leaves them out of coordination (`[retrieval] question_word_weight`,
//! `filler_weight`). Query side only: the lists never change `text`, `search_text` or artifacts.

use std::collections::BTreeSet;

use serde::Deserialize;

use super::{Rules, normalize};

/// What a question word does in the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordClass {
    /// A topic word: scored in full and counted in coordination.
    Content,
    /// Asks for a kind of answer (a place, a time, a reason).
    Interrogative,
    /// Colloquial padding with no topic.
    Filler,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClassFile {
    interrogatives: Vec<String>,
    fillers: Vec<String>,
}

/// The shipped lists, in search form under `rules`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WordClasses {
    interrogatives: BTreeSet<String>,
    fillers: BTreeSet<String>,
    /// `function_words.txt`: prepositions, pronouns, particles (scored as content words; what
    /// never spells a syllable of a name, `loanword::question_compounds`).
    function_words: BTreeSet<String>,
}

/// Proclitics a question word may carry (وامتى، فليه).
const PROCLITICS: [char; 2] = ['و', 'ف'];

impl WordClasses {
    /// The shipped lists normalized with the corpus rules.
    pub fn shipped(rules: &Rules) -> Self {
        let file: ClassFile = toml::from_str(include_str!("query_words.toml"))
            .expect("shipped query word classes parse");
        let norm = |ws: Vec<String>| {
            ws.iter()
                .map(|w| normalize(w, rules))
                .filter(|w| !w.is_empty())
                .collect()
        };
        let function_words = include_str!("function_words.txt")
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect();
        WordClasses {
            interrogatives: norm(file.interrogatives),
            fillers: norm(file.fillers),
            function_words: norm(function_words),
        }
    }

    /// Whether a search token is a function word of `function_words.txt` (Savoy's Arabic
    /// stopword list, BSD): من، على، هذا، كان …
    pub fn is_function_word(&self, token: &str) -> bool {
        self.function_words.contains(token)
    }

    /// The class of a search token (a question word in search form).
    pub fn class(&self, token: &str) -> WordClass {
        let bare = token
            .strip_prefix(PROCLITICS)
            .filter(|rest| rest.chars().count() >= 2);
        let is_in =
            |set: &BTreeSet<String>| set.contains(token) || bare.is_some_and(|b| set.contains(b));
        if is_in(&self.interrogatives) {
            WordClass::Interrogative
        } else if is_in(&self.fillers) {
            WordClass::Filler
        } else {
            WordClass::Content
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interrogatives_fillers_and_content_words_in_any_spelling() {
        let c = WordClasses::shipped(&Rules::default());
        for w in [
            "فين",
            "اين",
            "امتي",
            "وامتي",
            "ازاي",
            "ليه",
            "كيف",
            "وين",
            "شلون",
        ] {
            assert_eq!(
                c.class(&normalize(w, &Rules::default())),
                WordClass::Interrogative,
                "{w}"
            );
        }
        for w in [
            "عايز",
            "بيطلعلي",
            "هي",
            "عايزه",
            "مش",
            "علشان",
            "بتاعة",
            "الـ",
            "بدي",
            "ابي",
            "اخلي",
            "اسوي",
            "هيك",
            "لسه",
            "محدش",
            "أريد",
        ] {
            assert_eq!(
                c.class(&normalize(w, &Rules::default())),
                WordClass::Filler,
                "{w}"
            );
        }
        for w in [
            "المسيح",
            "من",
            "ما",
            "react",
            "اتولد",
            "فيلكس",
            "الباب",
            "حد",
            "طب",
        ] {
            assert_eq!(
                c.class(&normalize(w, &Rules::default())),
                WordClass::Content,
                "{w}"
            );
        }
    }
}
