//! Loanword keys: a coarse consonant skeleton shared by an English word and the way a visitor
//! writes it in Arabic letters (ريكوست ↔ request, الهاندلرز ↔ handlers, ميدلوير ↔ middleware,
//! الداتابيز ↔ database). Technical pages keep such terms in Latin letters (`c.Request`,
//! `middleware`), while questions are typed in Egyptian or Gulf colloquial, which writes them in
//! Arabic letters: without a bridge neither form finds the other.
//!
//! The index adds the key of every Latin search word to its chunk's alias field (additive, like
//! every alias: `text` and `search_text` never change); a question adds the keys of its Arabic
//! words as expansions weighted `[retrieval] loanword_weight`. Keys start with `~`, which no
//! search token holds, so a key never meets a word.
//!
//! The skeleton keeps consonants only, in classes both scripts can express: p/b, v/f, g/j and
//! k/q/c each merge, s/z/sh/ch merge (Egyptian writes "session" سيشن), vowels and the letters
//! that spell them (ا و ي ى ة ء ع, and h inside a word) drop out, and a doubled class counts once.
//! A key needs three consonant classes: shorter skeletons (لوج ↔ log) match too many words.

/// The prefix of every key: never part of a search token.
const MARK: char = '~';

/// Fewer consonant classes than this make no key.
const MIN_CLASSES: usize = 3;

/// Shortest Arabic word considered (after the article).
const MIN_ARABIC_LETTERS: usize = 4;

/// The key of a Latin search word (lowercase ASCII letters, at least four), or `None`.
pub fn latin_key(word: &str) -> Option<String> {
    let b = word.as_bytes();
    if b.len() < 4 || !b.iter().all(u8::is_ascii_lowercase) {
        return None;
    }
    let mut classes = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let next = b.get(i + 1).copied();
        let (class, step) = match (b[i], next) {
            (b'p', Some(b'h')) => (Some('F'), 2),
            (b's' | b'c', Some(b'h')) => (Some('S'), 2),
            (b't', Some(b'h')) => (Some('T'), 2),
            (b'c', Some(b'k')) => (Some('K'), 2),
            (b'q', Some(b'u')) => (Some('K'), 2),
            (b'c', Some(b'e' | b'i' | b'y')) => (Some('S'), 1),
            (b'x', _) => {
                classes.push('K');
                (Some('S'), 1)
            }
            (b'h', _) if i == 0 => (Some('H'), 1),
            (c, _) => (latin_class(c), 1),
        };
        if let Some(c) = class {
            classes.push(c);
        }
        i += step;
    }
    key_of(classes)
}

fn latin_class(c: u8) -> Option<char> {
    Some(match c {
        b'b' | b'p' => 'B',
        b'c' | b'k' | b'q' => 'K',
        b'd' => 'D',
        b'f' | b'v' => 'F',
        b'g' | b'j' => 'J',
        b'l' => 'L',
        b'm' => 'M',
        b'n' => 'N',
        b'r' => 'R',
        b's' | b'z' => 'S',
        b't' => 'T',
        _ => return None,
    })
}

/// The keys of an Arabic search word: of the word without its article or a single proclitic,
/// and of that without an Arabic plural or dual ending (ريكوستات، بورتين). Empty for a word that
/// is not Arabic letters or is too short.
pub fn arabic_keys(word: &str) -> Vec<String> {
    if !word.chars().all(|c| ('\u{0621}'..='\u{064A}').contains(&c)) {
        return Vec::new();
    }
    let mut w = word;
    for article in ["وال", "بال", "فال", "كال", "ال", "لل"] {
        if let Some(rest) = w.strip_prefix(article)
            && rest.chars().count() >= MIN_ARABIC_LETTERS
        {
            w = rest;
            break;
        }
    }
    if w.chars().count() < MIN_ARABIC_LETTERS {
        return Vec::new();
    }
    let mut keys = Vec::new();
    let mut push = |k: Option<String>| {
        if let Some(k) = k
            && !keys.contains(&k)
        {
            keys.push(k);
        }
    };
    push(arabic_key(w));
    for ending in ["ات", "ين", "ون"] {
        if let Some(stem) = w.strip_suffix(ending)
            && stem.chars().count() >= 3
        {
            push(arabic_key(stem));
        }
    }
    // English -tion sounds as "shun", which Arabic letters spell شن (فانكشن for function,
    // أوبشن for option, أبليكيشن for application): the same word with ت keys like the English
    // letters. Also before a plural ending (الفانكشنز، أكشنات).
    for (shun, tion) in [("شن", "تن"), ("شنز", "تنز"), ("شنات", "تنات")] {
        if let Some(stem) = w.strip_suffix(shun) {
            push(arabic_key(&format!("{stem}{tion}")));
        }
    }
    keys
}

/// The least consonant classes of a compound's key ([`compound_keys`]): two words make a longer
/// skeleton than one, and a short one would meet too many words.
const MIN_COMPOUND_CLASSES: usize = 4;

/// The keys of two Arabic search words written as one: a name that Arabic letters spell in two
/// words and Latin ones in one (فيس بوك ↔ facebook, تيك توك ↔ tiktok, جافا سكريبت ↔ javascript,
/// انستا جرام ↔ instagram). Only the keys that neither word has alone, of at least
/// [`MIN_COMPOUND_CLASSES`] consonant classes; empty when either is not Arabic letters.
pub fn compound_keys(first: &str, second: &str) -> Vec<String> {
    let arabic =
        |w: &str| !w.is_empty() && w.chars().all(|c| ('\u{0621}'..='\u{064A}').contains(&c));
    if !arabic(first) || !arabic(second) {
        return Vec::new();
    }
    let alone: Vec<String> = arabic_keys(first)
        .into_iter()
        .chain(arabic_keys(second))
        .collect();
    arabic_keys(&format!("{first}{second}"))
        .into_iter()
        .filter(|k| classes_of(k) >= MIN_COMPOUND_CLASSES && !alone.contains(k))
        .collect()
}

/// The most letters of a word read as one syllable of a name (سكريبت، مايكرو، ستيشن).
const MAX_COMPOUND_PART_LETTERS: usize = 6;

/// The compound keys of a question's search tokens, each with the index of the first of the two
/// words, which carries it: [`compound_keys`] of each two in a row that could both be syllables
/// of a name, no longer than [`MAX_COMPOUND_PART_LETTERS`], neither an interrogative, a filler
/// or a function word (`classes`) nor an everyday word (`native_words`).
pub fn question_compounds(
    tokens: &[&str],
    classes: &super::query_words::WordClasses,
) -> Vec<(usize, String)> {
    let open = |t: &str| {
        t.chars().count() <= MAX_COMPOUND_PART_LETTERS
            && classes.class(t) == super::query_words::WordClass::Content
            && !classes.is_function_word(t)
            && !super::native_words::could_be_native(t)
    };
    let mut out = Vec::new();
    for (i, pair) in tokens.windows(2).enumerate() {
        if open(pair[0]) && open(pair[1]) {
            out.extend(compound_keys(pair[0], pair[1]).into_iter().map(|k| (i, k)));
        }
    }
    out
}

/// How many consonant classes a key holds (its letters after the mark).
fn classes_of(key: &str) -> usize {
    key.chars().filter(|&c| c != MARK).count()
}

fn arabic_key(w: &str) -> Option<String> {
    let classes = w.chars().enumerate().filter_map(|(i, c)| {
        Some(match c {
            'ب' => 'B',
            'ت' | 'ط' | 'ث' => 'T',
            'ج' | 'غ' => 'J',
            'ح' | 'خ' => 'H',
            'ه' if i == 0 => 'H',
            'د' | 'ض' | 'ذ' => 'D',
            'ر' => 'R',
            'ز' | 'س' | 'ص' | 'ش' => 'S',
            'ف' => 'F',
            'ق' | 'ك' => 'K',
            'ل' => 'L',
            'م' => 'M',
            'ن' => 'N',
            _ => return None,
        })
    });
    key_of(classes.collect())
}

/// The key of a class sequence: doubled classes once, at least [`MIN_CLASSES`].
fn key_of(mut classes: Vec<char>) -> Option<String> {
    classes.dedup();
    (classes.len() >= MIN_CLASSES).then(|| std::iter::once(MARK).chain(classes).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meets(arabic: &str, latin: &str) -> bool {
        let l = latin_key(latin);
        l.is_some() && arabic_keys(arabic).iter().any(|k| Some(k) == l.as_ref())
    }

    #[test]
    fn colloquial_spellings_meet_their_english_words() {
        for (ar, en) in [
            ("ريكوست", "request"),
            ("الريكوستات", "request"),
            ("الهاندلرز", "handlers"),
            ("ميدلوير", "middleware"),
            ("الداتابيز", "database"),
            ("السيرفر", "server"),
            ("باسورد", "password"),
            ("الكونسول", "console"),
            ("باراميتر", "parameter"),
            ("تيرمنال", "terminal"),
            ("هيدر", "header"),
            ("كومبوننت", "component"),
        ] {
            assert!(
                meets(ar, en),
                "{ar} ↔ {en}: {:?} {:?}",
                arabic_keys(ar),
                latin_key(en)
            );
        }
    }

    #[test]
    fn names_written_in_two_words_meet_the_one_latin_word() {
        for (a, b, en) in [
            ("فيس", "بوك", "facebook"),
            ("الفيس", "بوك", "facebook"),
            ("تيك", "توك", "tiktok"),
            ("جافا", "سكريبت", "javascript"),
            ("انستا", "جرام", "instagram"),
            ("بلاي", "ستيشن", "playstation"),
        ] {
            let key = latin_key(en).unwrap();
            assert!(
                compound_keys(a, b).contains(&key),
                "{a} {b} {:?} vs {en} {key}",
                compound_keys(a, b)
            );
        }
        // Short skeletons make no compound key, nor do keys a word has alone, nor Latin words.
        assert!(compound_keys("واتس", "اب").is_empty());
        // (سيرفرات keys as itself and, without its plural ending, as سيرفر alone.)
        assert_eq!(compound_keys("سيرفر", "ات"), ["~SRFRT"]);
        assert!(compound_keys("face", "book").is_empty());
    }

    #[test]
    fn a_question_joins_only_two_words_that_could_be_syllables_of_a_name() {
        let rules = crate::normalize::Rules::default();
        let classes = crate::normalize::query_words::WordClasses::shipped(&rules);
        let q = crate::normalize::normalize(
            "كيف احذف حساب فيس بوك من تيك توك في جافا سكريبت بالمستعرضات",
            &rules,
        );
        let tokens: Vec<&str> = q.split(' ').collect();
        let joined: Vec<(&str, &str)> = question_compounds(&tokens, &classes)
            .iter()
            .map(|(i, _)| (tokens[*i], tokens[*i + 1]))
            .collect();
        // Not من or في (function words), not حساب (everyday), not بالمستعرضات (too long).
        assert_eq!(joined, [("فيس", "بوك"), ("تيك", "توك"), ("جافا", "سكريبت")]);
    }

    #[test]
    fn shun_spellings_of_tion_meet_their_english_words() {
        for (ar, en) in [
            ("الفانكشن", "function"),
            ("الفانكشنز", "functions"),
            ("اوبشن", "option"),
            ("ابليكيشن", "application"),
            ("اكشن", "action"),
        ] {
            let key = latin_key(en).unwrap();
            assert!(
                arabic_keys(ar).contains(&key),
                "{ar} {:?} vs {en} {key}",
                arabic_keys(ar)
            );
        }
    }

    #[test]
    fn short_skeletons_and_other_words_make_no_key_or_miss() {
        // Two consonant classes are too few to tell words apart.
        assert_eq!(latin_key("log"), None);
        assert_eq!(latin_key("query"), None);
        assert!(arabic_keys("لوج").is_empty());
        // Not letters of one script.
        assert_eq!(latin_key("c++"), None);
        assert_eq!(latin_key("Request"), None);
        assert!(arabic_keys("react").is_empty());
        // Different words keep different keys.
        assert!(!meets("السيرفر", "service"));
        assert!(!meets("كتاب", "table"));
    }

    #[test]
    fn keys_carry_a_mark_no_search_token_has() {
        let k = latin_key("request").unwrap();
        assert!(k.starts_with(MARK));
        assert_eq!(k, "~RKST");
    }
}
