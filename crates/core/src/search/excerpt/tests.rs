use proptest::prelude::*;

use super::*;
use crate::normalize::aliases::AliasTable;
use crate::search::QueryTerm;

/// A question word as the question analysis makes it from a plain token: the token and its stem key.
fn word(token: &str) -> QueryWord {
    let mut terms = vec![QueryTerm {
        term: token.to_string(),
        weight: 1.0,
        is_stem: false,
        keyed: false,
    }];
    if let Some(k) = crate::normalize::stem::stem(token) {
        terms.push(QueryTerm {
            term: k,
            weight: 1.0,
            is_stem: true,
            keyed: false,
        });
    }
    QueryWord {
        token: token.to_string(),
        terms,
    }
}

fn marked(excerpt: &str) -> Vec<String> {
    excerpt
        .split("<mark>")
        .skip(1)
        .map(|s| unmarked(s.split("</mark>").next().unwrap()))
        .collect()
}

fn run(text: &str, question: &[&str], size: usize) -> String {
    let rules = Rules::default();
    let aliases = AliasTable::default();
    let words: Vec<QueryWord> = question.iter().map(|t| word(t)).collect();
    let refs: Vec<&QueryWord> = words.iter().collect();
    let m = Marker::new(&refs, &rules, WordExtras::new(&aliases, true));
    excerpt(text, &m, size, &mut rustc_hash::FxHashMap::default()).html
}

#[test]
fn marks_the_word_as_written_with_its_diacritics_and_tatweel() {
    let text = "قال: «الصَّـلاةُ» عمادُ الدين، ثم مضى.";
    let e = run(text, &["الصلاه"], 30);
    assert_eq!(marked(&e), ["الصَّـلاةُ"]);
    assert_eq!(unmarked(&e), "قال: «الصَّـلاةُ» عمادُ الدين، ثم مضى");
}

#[test]
fn marks_latin_words_whatever_their_case_and_escapes_html() {
    let e = run(
        "Use <Suspense> & React.lazy for code",
        &["suspense", "react"],
        30,
    );
    assert_eq!(
        e,
        "Use &lt;<mark>Suspense</mark>&gt; &amp; <mark>React</mark>.lazy for code"
    );
}

#[test]
fn presentation_forms_and_stems_match() {
    // ﻻ (U+FEFB) is لا as a presentation form; كتب matches كاتبين by its stem key when the stem
    // key is the question's.
    let e = run("ﻻ شيء هنا", &["لا"], 30);
    assert_eq!(marked(&e), ["ﻻ"]);
}

#[test]
fn the_window_lands_on_the_densest_match() {
    let mut text: Vec<String> = (0..200).map(|i| format!("كلمة{i}")).collect();
    text[150] = "البابا".into();
    text[152] = "كيرلس".into();
    text[20] = "كيرلس".into();
    let text = text.join(" ");
    let e = run(&text, &["البابا", "كيرلس"], 10);
    assert_eq!(marked(&e), ["البابا", "كيرلس"]);
    assert!(text.contains(&unmarked(&e)));
    assert_eq!(unmarked(&e).split(' ').count(), 10);
}

#[test]
fn with_no_match_the_excerpt_is_the_beginning() {
    assert_eq!(run("أول ثاني ثالث رابع", &["خامس"], 2), "أول ثاني");
    assert_eq!(run("", &["خامس"], 2), "");
    assert_eq!(run("… — …", &["خامس"], 2), "");
}

/// Letters with what may decorate them in evidence: diacritics, tatweel, a joiner, Latin case.
fn decorated(word: &'static str) -> impl Strategy<Value = String> {
    let marks = prop::sample::select(vec![
        "",
        "\u{064E}",
        "\u{0651}\u{064F}",
        "\u{0640}",
        "\u{200D}",
        "\u{0652}",
    ]);
    prop::collection::vec(marks, word.chars().count()).prop_map(move |ms| {
        word.chars()
            .zip(ms)
            .map(|(c, m)| format!("{c}{m}"))
            .collect()
    })
}

const VOCABULARY: [&str; 10] = [
    "الكنيسة",
    "مصر",
    "البابا",
    "صلاة",
    "Hook",
    "state",
    "ﻻ",
    "٣",
    "كتب",
    "ميلاد",
];

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(VOCABULARY.to_vec()).prop_flat_map(decorated),
        prop::sample::select(vec![
            " ", "، ", ". ", "\n", " & ", " <b> ", "«", "»", "\"", "'", " - "
        ])
        .prop_map(str::to_string),
        "[a-zA-Zء-ي]{1,6}",
    ]
}

proptest! {
    /// Whatever the diacritics, tatweel, joiners, presentation forms, case and HTML around the
    /// words: the excerpt without its marks is a substring of `text`, every marked word's search
    /// form matches a question word, no mark or excerpt boundary splits a grapheme (a combining
    /// mark or joiner is never the first character after one), and a question word present in
    /// the text is always marked (the window holds the most distinct matched words).
    #[test]
    fn an_excerpt_is_evidence_with_exact_marks(
        pieces in prop::collection::vec(piece(), 0..60),
        asked in prop::sample::select(VOCABULARY.to_vec()),
        size in 1usize..40,
    ) {
        let text: String = pieces.concat();
        let rules = Rules::default();
        let aliases = AliasTable::default();
        let token = crate::normalize::normalize(asked, &rules);
        let asked_words = [word(&token)];
        let refs: Vec<&QueryWord> = asked_words.iter().collect();
        let m = Marker::new(&refs, &rules, WordExtras::new(&aliases, true));
        let Excerpt { html: e, at } = excerpt(&text, &m, size, &mut rustc_hash::FxHashMap::default());
        let plain = unmarked(&e);
        // `at` is where the first marked word (else the excerpt) begins in `text`.
        let first = marked(&e).into_iter().next().unwrap_or_else(|| plain.clone());
        prop_assert!(text[at..].starts_with(&first), "{at} is not where {first:?} is in {text:?}");
        prop_assert!(text.contains(&plain), "{plain:?} not in {text:?}");
        for w in marked(&e) {
            prop_assert!(m.words_of(&w) != 0, "{w:?} marked but does not match {token:?}");
        }
        // Every boundary the excerpt draws in `text` lies between words: it is found at a word
        // start, and its marks and end fall where words end or start.
        let spans = words(&text);
        let boundary = |at: usize| {
            let before = text[..at].chars().next_back().is_some_and(in_word);
            let after = text[at..].chars().next().is_some_and(in_word);
            !(before && after)
        };
        if !plain.is_empty() {
            let found = spans.iter().map(|w| w.0).find(|&s| {
                text[s..].starts_with(&plain) && boundary(s + plain.len())
            });
            prop_assert!(found.is_some(), "{plain:?} is found at no word boundary of {text:?}");
            let mut at = found.unwrap_or(0);
            for part in e.split("<mark>").flat_map(|p| p.split("</mark>")) {
                at += unmarked(part).len();
                prop_assert!(boundary(at), "a mark at {at} splits a word of {text:?}");
            }
        }
        let present = spans.iter().any(|&(s, e)| m.words_of(&text[s..e]) != 0);
        if present {
            prop_assert!(e.contains("<mark>"), "{token:?} is in {text:?} but unmarked: {e:?}");
        }
    }
}

#[test]
fn the_link_goes_to_the_words_matched_together_not_a_stray_first_match() {
    // Word 2 matches question word A alone; words 30 and 32 match A and B together.
    let mut masks = vec![0u64; 40];
    masks[2] = 0b01;
    masks[30] = 0b10;
    masks[32] = 0b01;
    assert_eq!(densest(&masks, &[2, 30, 32]), Some(30));
    // Equally dense: the first.
    masks[3] = 0b10;
    assert_eq!(densest(&masks, &[2, 3, 30, 32]), Some(2));
    assert_eq!(densest(&masks, &[]), None);
}
