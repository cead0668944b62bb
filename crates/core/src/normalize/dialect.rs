//! Colloquial verb forms read back to the written language's verb, for a question only.
//!
//! Egyptian and Levantine speakers mark the present with a prefix بـ (بيشتغل "he works",
//! بتعرف، بنستخدم), the future with هـ or حـ (هيفتح "he will open"), negation with a
//! circumfix مـ…ـش (مبيشتغلش، ماعرفش), and the mediopassive past with اتـ (اتولد "was born");
//! Gulf speech uses the same بـ for the future. Sources: The Rough Guide Phrasebook: Egyptian
//! Arabic (Rough Guides, 2006), "Verbs", pp. 273–275 (the present and the future are the
//! imperfect with a prefix); Wikipedia, "Egyptian Arabic", Negation (the circumfix ma-…-š,
//! shared with southern Levantine). A page in the written language has the imperfect (يشتغل،
//! يفتح، أعرف) or the active past (ولد) instead, so a question word of one of these shapes also
//! looks for the form without the affix, weighted by
//! `dialect_verb_weight` (`search::Ranker::query_words`).
//!
//! The affixes are also the first letters of everyday words (بيت، بيان، اتفاق، اتحاد), so the
//! forms are only ever added, never substituted, and only for a word that cannot be one of
//! those:
//! - a word in the everyday-word list (`native_words`) gets none;
//! - بـ، هـ and حـ come off only before the imperfect's ي، ت، ن or ا with at least three
//!   letters after it (بيت، بيع، بيان، هيئه keep their shape);
//! - اتـ comes off only a five-letter word whose fourth letter is not ا: the shape of a past
//!   verb (اتولد، اتكتب), never of the written language's verbal nouns اتفاق، اتصال، اتجاه.
//!
//! A form that no page uses matches nothing; the ranking also drops a question word's loanword
//! keys when the site uses its form without the affix (`search::Ranker`).

use super::native_words;

/// The letters that begin an imperfect verb (he/she/we/I).
const IMPERFECT: [char; 4] = ['ي', 'ت', 'ن', 'ا'];

/// The written-language forms of a question word (a search form) read as a colloquial verb,
/// without its present, future or negation affixes or its mediopassive prefix; empty for a word
/// of no such shape and for an everyday word.
pub fn verb_bases(token: &str) -> Vec<String> {
    if native_words::is_native(token) {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    let mut push = |form: &str| {
        if form != token && !out.iter().any(|f| f == form) {
            out.push(form.to_string());
        }
    };
    let mut words = vec![token];
    for inner in negation_stripped(token) {
        push(inner);
        words.push(inner);
    }
    for word in words {
        if let Some(imperfect) = tense_stripped(word) {
            push(imperfect);
        }
        if let Some(past) = mediopassive_stripped(word) {
            push(past);
        }
    }
    out
}

/// `word` without the negation circumfix مـ…ـش (مبيشتغلش → بيشتغل), and without مـا…ـش as well
/// (ماعرفش: "I do not know" keeps the ا of أعرف, "he did not know" is عرف), each when at least
/// three letters remain.
fn negation_stripped(word: &str) -> Vec<&str> {
    let Some(inner) = word.strip_suffix('ش') else {
        return Vec::new();
    };
    [inner.strip_prefix('م'), inner.strip_prefix("ما")]
        .into_iter()
        .flatten()
        .filter(|r| letters(r) >= 3)
        .collect()
}

/// `word` without a present (بـ) or future (هـ، حـ) prefix before an imperfect of at least four
/// letters.
fn tense_stripped(word: &str) -> Option<&str> {
    let rest = word
        .strip_prefix('ب')
        .or_else(|| word.strip_prefix('ه'))
        .or_else(|| word.strip_prefix('ح'))?;
    let first = rest.chars().next()?;
    (IMPERFECT.contains(&first) && letters(rest) >= 4).then_some(rest)
}

/// A five-letter `word` without its mediopassive prefix اتـ, when its fourth letter is not ا.
fn mediopassive_stripped(word: &str) -> Option<&str> {
    let rest = word.strip_prefix("ات")?;
    (letters(rest) == 3 && rest.chars().nth(1) != Some('ا')).then_some(rest)
}

fn letters(s: &str) -> usize {
    s.chars().count()
}

#[cfg(test)]
mod tests {
    use super::verb_bases;

    #[test]
    fn colloquial_verbs_find_the_written_form() {
        let cases: [(&str, &[&str]); 10] = [
            ("بيشتغل", &["يشتغل"]),
            ("بتستخدم", &["تستخدم"]),
            ("بنعمل", &["نعمل"]),
            ("هيفتح", &["يفتح"]),
            ("حيصير", &["يصير"]),
            ("مبيشتغلش", &["بيشتغل", "يشتغل"]),
            ("ماعرفش", &["اعرف", "عرف"]),
            ("ميعرفش", &["يعرف"]),
            ("اتكتب", &["كتب"]),
            ("اتولد", &["ولد"]),
        ];
        for (word, bases) in cases {
            assert_eq!(verb_bases(word), bases.to_vec(), "{word}");
        }
    }

    #[test]
    fn everyday_words_that_share_the_first_letters_keep_their_shape() {
        for word in [
            "بيت",
            "بيع",
            "بيان",
            "بنات",
            "هيئه",
            "هنا",
            "حيث",
            "اتفاق",
            "اتصال",
            "اتحاد",
            "اتجاه",
            "اتهام",
            "اتباع",
            "بيروت",
            "بينما",
            "بتاريخ",
            "مشمش",
            "معاش",
            "يشتغل",
        ] {
            assert_eq!(verb_bases(word), Vec::<String>::new(), "{word}");
        }
    }
}
