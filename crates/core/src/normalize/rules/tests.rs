//! Unit, acceptance and property tests for the normalizer.

use proptest::prelude::*;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::canonical_combining_class;

use super::pass::{NoObs, Pass};
use super::unicode::*;
use super::*;

fn n(s: &str) -> String {
    normalize(s, &Rules::default())
}

fn nc(s: &str) -> String {
    normalize(s, &Rules::conservative())
}

/// Code points that must never appear in a normalized form.
fn forbidden(c: char) -> bool {
    matches!(c as u32,
        0x064B..=0x065F | 0x0670 | 0x06D6..=0x06ED | 0x0671 | 0x0640)
}

fn assert_clean(out: &str, input: &str) {
    if let Some(c) = out.chars().find(|&c| forbidden(c)) {
        panic!("U+{:04X} left in {out:?} (input {input:?})", c as u32);
    }
}

// ------------------------------------------------------------------ acceptance cases

#[test]
fn acceptance_sentence() {
    assert_eq!(
        n("وُلِدَ السيد المسيح في بيت لحم."),
        "ولد السيد المسيح في بيت لحم"
    );
}

#[test]
fn acceptance_presentation_forms() {
    assert_eq!(n("\u{FEE3}\u{FEAE}\u{FEA3}\u{FE92}\u{FE8E}"), "مرحبا");
    assert_eq!(n("ﻣﺮﺣﺒﺎ"), n("مرحبا"));
}

#[test]
fn acceptance_controls_inside_word() {
    for ctl in [
        '\u{200F}', '\u{200C}', '\u{200D}', '\u{200E}', '\u{061C}', '\u{2067}', '\u{202B}',
    ] {
        let s = format!("سلا{ctl}م عل{ctl}يكم");
        assert_eq!(n(&s), "سلام عليكم", "control U+{:04X}", ctl as u32);
    }
}

#[test]
fn acceptance_tatweel() {
    assert_eq!(n("كـــتاب"), "كتاب");
}

#[test]
fn acceptance_digits() {
    assert_eq!(n("١٦٠٠"), "1600");
    assert_eq!(n("٣٫٥"), "3.5");
}

#[test]
fn acceptance_salla_ligature() {
    assert_eq!(nc("\u{FDFA}"), "صلى الله عليه وسلم");
    assert_eq!(n("\u{FDFA}"), "صلي الله عليه وسلم");
    assert_eq!(n("\u{FDFA}"), n("صلى الله عليه وسلم"));
    // set off by spaces from a glued word
    assert_eq!(nc("محمد\u{FDFA}قال"), "محمد صلى الله عليه وسلم قال");
}

#[test]
fn acceptance_dagger_alef() {
    let r = Rules::default();
    assert_eq!(n("تَبَٰرَكَ"), "تبرك");
    assert_eq!(variants("تَبَٰرَكَ", &r), vec!["تبارك".to_string()]);
    assert_eq!(n("ٱلرَّحۡمَٰنِ"), "الرحمن");
    assert_eq!(n("ٱلرَّحۡمَٰنِ"), n("الرحمن"));
    assert_eq!(variants("تَبَٰرَكَ", &r)[0], n("تبارك"));
}

// ------------------------------------------------------------------ rule: nfc

#[test]
fn nfc_composes_hamza_before_deletion() {
    // ا + U+0654 composes to أ, which survives the conservative stage
    assert_eq!(
        nc("\u{0627}\u{0654}\u{0645}\u{0644}"),
        "\u{0623}\u{0645}\u{0644}"
    );
    assert_eq!(nc("\u{0627}\u{0655}"), "\u{0625}");
    assert_eq!(nc("\u{0627}\u{0653}"), "\u{0622}");
    assert_eq!(nc("\u{0648}\u{0654}"), "\u{0624}");
    assert_eq!(nc("\u{064A}\u{0654}"), "\u{0626}");
    // ە + hamza → ۀ → ه (persian_letters)
    assert_eq!(nc("\u{06D5}\u{0654}"), "\u{0647}");
    // not composed by NFC: ه + hamza, ى + hamza → the hamza is deleted
    assert_eq!(nc("\u{0647}\u{0654}"), "\u{0647}");
    assert_eq!(nc("\u{0649}\u{0654}"), "\u{0649}");
    // shadda before fatha (not canonical order) is handled
    assert_eq!(
        nc("\u{0628}\u{0651}\u{064E}\u{0627}\u{0654}"),
        "\u{0628}\u{0623}"
    );
    // Latin
    assert_eq!(nc("e\u{0301}cole"), "\u{00E9}cole");
    assert_eq!(nc("\u{00C9}cole"), "\u{00E9}cole");
}

#[test]
fn hamza_marks_on_non_composing_letters() {
    // fast path: no composition possible, marks just deleted
    assert_eq!(nc("\u{0640}\u{0670}\u{0653}\u{0626}"), "\u{0626}");
    assert_eq!(nc("\u{0628}\u{0654}"), "\u{0628}");
    // composition still happens after harmless marks with a lower class
    assert_eq!(nc("\u{0627}\u{064E}\u{0654}"), "\u{0623}");
    assert_eq!(nc("\u{0627}\u{0651}\u{0653}"), "\u{0622}");
    // blocked by a class-230 Quranic mark: not composed
    assert_eq!(nc("\u{0627}\u{06EC}\u{0653}"), "\u{0627}");
}

#[test]
fn nfc_after_deleting_a_blocker() {
    // ZWJ blocks composition in the input; once deleted, the output is recomposed.
    assert_eq!(nc("e\u{200D}\u{0301}"), "\u{00E9}");
    assert_eq!(nc("e\u{0640}\u{0301}"), "\u{00E9}");
    // Full-width letter + accent
    assert_eq!(nc("\u{FF25}\u{0301}"), "\u{00E9}");
}

// ------------------------------------------------------------------ rule: invisible

#[test]
fn invisible_deleted_not_spaced() {
    let list: Vec<u32> = (0x200B..=0x200F)
        .chain(0x202A..=0x202E)
        .chain(0x2060..=0x2069)
        .chain([
            0xFEFF, 0x061C, 0x00AD, 0x0600, 0x0605, 0x180E, 0xFE0F, 0xE0001,
        ])
        .collect();
    for u in list {
        let c = char::from_u32(u).unwrap();
        assert_eq!(nc(&format!("كت{c}اب")), "كتاب", "U+{u:04X}");
        assert_eq!(nc(&format!("{c}abc{c}")), "abc", "U+{u:04X}");
    }
}

// ------------------------------------------------------------------ rule: presentation_forms

#[test]
fn presentation_harakat_deleted_before_nfkc() {
    for u in 0xFE70..=0xFE7F {
        let c = char::from_u32(u).unwrap();
        assert_eq!(nc(&format!("ب{c}ت")), "بت", "U+{u:04X}");
    }
    for u in 0xFC5E..=0xFC63 {
        let c = char::from_u32(u).unwrap();
        assert_eq!(nc(&format!("ب{c}ت")), "بت", "U+{u:04X}");
    }
}

#[test]
fn presentation_ligatures() {
    assert_eq!(nc("\u{FEFB}"), "لا");
    assert_eq!(nc("\u{FEF7}"), "لأ");
    assert_eq!(n("\u{FEF7}"), "لا");
    assert_eq!(nc("\u{FDF2}"), "الله");
    assert_eq!(nc("ب\u{FDF2}"), "بالله");
    assert_eq!(nc("\u{FDFB}"), "جل جلاله");
    assert_eq!(nc("\u{FDFD}"), "بسم الله الرحمن الرحيم");
    assert_eq!(nc("\u{FDFC}"), "ريال"); // NFKC gives U+06CC, folded
    assert_eq!(nc("\u{FDF0}"), "صلي"); // NFKC gives U+06D2, folded
    assert_eq!(nc("\u{FE87}"), "\u{0625}");
    assert_eq!(n("\u{FE87}"), "\u{0627}");
    assert_eq!(nc("\u{FB8E}"), "ك"); // keheh isolated → U+06A9 → ك
    assert_eq!(nc("\u{FBFC}"), "ي"); // farsi yeh isolated → U+06CC → ي
    assert_eq!(nc("\u{FC5B}"), "ذ"); // thal + superscript alef
}

#[test]
fn full_width_forms() {
    assert_eq!(n("ＡＢＣ１２３"), "abc123");
    assert_eq!(n("３．５"), "3.5");
    assert_eq!(n("a！b"), "a b");
}

#[test]
fn nfkc_not_applied_outside_presentation_blocks() {
    assert_eq!(n("x²"), "x²");
    assert_eq!(n("①"), "①");
}

// ------------------------------------------------------------------ rule: persian_letters

#[test]
fn persian_letters() {
    for u in [0x06CC, 0x06D0, 0x06D1, 0x06D2] {
        assert_eq!(nc(&char::from_u32(u).unwrap().to_string()), "\u{064A}");
    }
    assert_eq!(nc("\u{06A9}"), "\u{0643}");
    for u in 0x06C0..=0x06C2 {
        assert_eq!(nc(&char::from_u32(u).unwrap().to_string()), "\u{0647}");
    }
    assert_eq!(nc("\u{06C3}"), "\u{0629}");
    assert_eq!(n("\u{06C3}"), "\u{0647}");
    assert_eq!(nc("\u{06D3}"), "\u{0626}");
}

// ------------------------------------------------------------------ rule: quranic_symbols

#[test]
fn quranic_symbols_become_space() {
    assert_eq!(n("الرحيم\u{06DD}١"), "الرحيم 1");
    assert_eq!(n("\u{06DE} ذلك"), "ذلك");
    assert_eq!(n("يسجدون\u{06E9}ثم"), "يسجدون ثم");
}

// ------------------------------------------------------------------ rule: harakat

#[test]
fn harakat_deleted() {
    for u in 0x064B..=0x065F {
        let c = char::from_u32(u).unwrap();
        // after ب (no composition possible)
        assert_eq!(nc(&format!("ب{c}ت")), "بت", "U+{u:04X}");
    }
}

// ------------------------------------------------------------------ rule: quranic_marks

#[test]
fn quranic_marks_deleted() {
    let list: Vec<u32> = (0x0610..=0x061A)
        .chain(0x06D6..=0x06DC)
        .chain(0x06DF..=0x06E8)
        .chain(0x06EA..=0x06ED)
        .chain(0x08D3..=0x08E1)
        .chain(0x08F0..=0x08FF)
        .collect();
    for u in list {
        let c = char::from_u32(u).unwrap();
        assert_eq!(nc(&format!("ب{c}ت")), "بت", "U+{u:04X}");
    }
}

// ------------------------------------------------------------------ rule: dagger_alef

#[test]
fn dagger_alef_deleted_in_primary() {
    assert_eq!(n("ه\u{0670}ذا"), "هذا");
    assert_eq!(n("ذ\u{0670}لك"), "ذلك");
}

// ------------------------------------------------------------------ rule: tatweel

#[test]
fn tatweel_deleted() {
    assert_eq!(n("\u{0640}"), "");
    assert_eq!(n("ب\u{0640}\u{0640}ت"), "بت");
}

// ------------------------------------------------------------------ rule: alef_wasla

#[test]
fn alef_wasla() {
    for u in [0x0671, 0x0672, 0x0673, 0x0675] {
        let c = char::from_u32(u).unwrap();
        assert_eq!(nc(&format!("{c}لله")), "الله", "U+{u:04X}");
    }
    assert_eq!(
        n("\u{0671}\u{0644}\u{0644}\u{0651}\u{064E}\u{0647}\u{0650}"),
        "الله"
    );
}

// ------------------------------------------------------------------ rule: digits

#[test]
fn digits() {
    assert_eq!(
        n("\u{0660}\u{0661}\u{0662}\u{0663}\u{0664}\u{0665}\u{0666}\u{0667}\u{0668}\u{0669}"),
        "0123456789"
    );
    assert_eq!(
        n("\u{06F0}\u{06F1}\u{06F2}\u{06F3}\u{06F4}\u{06F5}\u{06F6}\u{06F7}\u{06F8}\u{06F9}"),
        "0123456789"
    );
    assert_eq!(n("١٬٠٠٠"), "1000");
    assert_eq!(n("١٬٠٠٠٫٥"), "1000.5");
    assert_eq!(n("٣٫"), "3");
    assert_eq!(n("٫٥"), "5");
    assert_eq!(n("٣٫ ٥"), "3 5");
    assert_eq!(n("عام ١٩٥٢م"), "عام 1952م");
    let off = Rules {
        digits: false,
        ..Rules::default()
    };
    assert_eq!(normalize("١٦٠٠", &off), "١٦٠٠");
    assert_eq!(normalize("٣٫٥", &off), "٣ ٥");
}

#[test]
fn ascii_decimal_point_kept_between_digits() {
    assert_eq!(n("3.5"), "3.5");
    assert_eq!(n("3.5.7"), "3.5.7");
    assert_eq!(n("v3.x"), "v3 x");
    assert_eq!(n("end 3."), "end 3");
    assert_eq!(n("3..5"), "3 5");
    assert_eq!(n("3.\u{200B}5"), "3.5");
}

// ------------------------------------------------------------------ rule: punctuation

#[test]
fn punctuation() {
    assert_eq!(n("أ،ب؛ت؟ث٪ج٭ح؍خ۔د"), "ا ب ت ث ج ح خ د");
    assert_eq!(n("a,b;c!d(e)f\"g'h-i_j"), "a b c d e f g h i j");
    assert_eq!(n("a€b😀c→d«e»f"), "a b c d e f");
    assert_eq!(n("«مرحبا»"), "مرحبا");
    let off = Rules {
        punctuation: false,
        ..Rules::default()
    };
    assert_eq!(normalize("a,b. ؟", &off), "a,b. ؟");
    assert_eq!(normalize("٣٫٥", &off), "3.5");
    assert_eq!(normalize("٣٫x", &off), "3٫x");
}

// ------------------------------------------------------------------ rule: lowercase_latin

#[test]
fn lowercase() {
    assert_eq!(n("Hello WORLD"), "hello world");
    assert_eq!(n("ÉCOLE"), "école");
    assert_eq!(n("ΑΒΓ"), "αβγ");
    let off = Rules {
        lowercase_latin: false,
        ..Rules::default()
    };
    assert_eq!(normalize("Hello", &off), "Hello");
}

// ------------------------------------------------------------------ rule: whitespace

#[test]
fn whitespace() {
    assert_eq!(n("  a\u{00A0}\u{2003}b\n\tc \u{3000} "), "a b c");
    assert_eq!(n("a\u{0001}b"), "a b");
    assert_eq!(n("a\u{202F}b\u{2009}c\u{205F}d"), "a b c d");
    assert_eq!(n(""), "");
    assert_eq!(n("   "), "");
    assert_eq!(n(" . , "), "");
}

// ------------------------------------------------------------------ lossy folds

#[test]
fn lossy_folds() {
    assert_eq!(n("أإآ"), "ااا");
    assert_eq!(nc("أإآ"), "أإآ");
    assert_eq!(n("على"), "علي");
    assert_eq!(nc("على"), "على");
    assert_eq!(n("مدرسة"), "مدرسه");
    assert_eq!(nc("مدرسة"), "مدرسة");
    // hamza carriers: default off
    assert_eq!(n("مسؤول مسئول"), "مسؤول مسئول");
    let on = Rules {
        fold_hamza_carriers: true,
        ..Rules::default()
    };
    assert_eq!(normalize("مسؤول مسئول", &on), "مسوول مسيول");
    assert_eq!(normalize("\u{06D3}", &on), "ي");
}

// ------------------------------------------------------------------ variants

#[test]
fn variants_dagger() {
    let r = Rules::default();
    assert!(variants("هذا كتاب", &r).is_empty());
    assert!(variants("ٱلرَّحۡمَٰنِ", &r).len() <= 1);
    assert_eq!(variants("ٱلصَّلَوٰةَ", &r), vec!["الصلاه".to_string()]);
    assert_eq!(
        variants("ٱلصَّلَوٰةَ", &Rules::conservative()),
        vec!["الصلاة".to_string()]
    );
    assert!(variants("عَلَىٰ", &r).is_empty());
    assert!(variants("مُوسَىٰ", &r).is_empty());
    assert_eq!(variants("إِبۡرَٰهِـۧمَ", &r), vec!["ابراهيم".to_string()]);
    assert_eq!(variants("ٱلنَّبِيِّـۧنَ", &r), vec!["النبيين".to_string()]);
    assert_eq!(variants("ٱلۡمَلَـٰٓئِكَةُ", &r), vec!["الملائكه".to_string()]);
    // one per changed word, deduplicated, in order; unchanged words left out
    assert_eq!(
        variants("تَبَٰرَكَ ٱلَّذِى تَبَٰرَكَ ٱلصَّلَوٰةَ", &r),
        vec!["تبارك".to_string(), "الصلاه".to_string()]
    );
    // a variant equal to a primary word is not repeated
    assert!(variants("هَٰذَا هاذا", &r).is_empty());
}

// ------------------------------------------------------------------ explain

#[test]
fn explain_reports_offsets_and_rules() {
    let r = Rules::default();
    let ch = explain("كـتاب", &r);
    assert_eq!(
        ch,
        vec![Change {
            offset: 2,
            ch: '\u{0640}',
            rule: "tatweel",
            replacement: String::new()
        }]
    );
    let ch = explain("\u{FE87}", &r);
    assert_eq!(ch.len(), 2);
    assert_eq!(
        (ch[0].rule, ch[0].replacement.as_str()),
        ("presentation_forms", "\u{0625}")
    );
    assert_eq!(
        (ch[1].rule, ch[1].replacement.as_str()),
        ("fold_alef_hamza", "\u{0627}")
    );
    let ch = explain("A ٣٫٥!", &r);
    let rules: Vec<&str> = ch.iter().map(|c| c.rule).collect();
    assert_eq!(
        rules,
        [
            "lowercase_latin",
            "digits",
            "digits",
            "digits",
            "punctuation",
            "whitespace"
        ]
    );
    assert_eq!(ch[2].offset, 4);
    assert_eq!(ch[2].replacement, ".");
    assert!(explain("plain text", &r).is_empty());
    // every offset is a char boundary of the input
    let s = "ٱلرَّحۡمَٰنِ\u{200F} ﷺ Ａ";
    for c in explain(s, &r) {
        assert!(s.is_char_boundary(c.offset));
        assert_eq!(s[c.offset..].chars().next(), Some(c.ch));
        assert!(ALL_RULE_NAMES.contains(&c.rule));
    }
}

// ------------------------------------------------------------------ API bits

#[test]
fn rule_names_and_serde() {
    let d = Rules::default();
    assert_eq!(
        d.active_rule_names(),
        vec![
            "nfc",
            "invisible",
            "presentation_forms",
            "persian_letters",
            "harakat",
            "quranic_marks",
            "quranic_symbols",
            "dagger_alef",
            "tatweel",
            "alef_wasla",
            "digits",
            "punctuation",
            "lowercase_latin",
            "whitespace",
            "fold_alef_hamza",
            "fold_alef_maksura",
            "fold_teh_marbuta"
        ]
    );
    assert!(
        !Rules::conservative()
            .active_rule_names()
            .iter()
            .any(|n| n.starts_with("fold_"))
    );
    assert_eq!(
        d.active_lossy_rule_names(),
        ["fold_alef_hamza", "fold_alef_maksura", "fold_teh_marbuta"]
    );
    let r: Rules = serde_json::from_str("{}").unwrap();
    assert_eq!(r, d);
    let r: Rules = serde_json::from_str(r#"{"fold_hamza_carriers":true}"#).unwrap();
    assert!(r.fold_hamza_carriers && r.fold_alef_hamza);
    assert!(serde_json::from_str::<Rules>(r#"{"bogus":true}"#).is_err());
    let back: Rules = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
    assert_eq!(back, d);
}

#[test]
fn tokens_split_on_space() {
    assert_eq!(tokens("a b  c").collect::<Vec<_>>(), ["a", "b", "c"]);
    assert_eq!(tokens("").count(), 0);
}

#[test]
fn normalize_into_reuses_and_clears() {
    let mut buf = String::from("old");
    normalize_into("ﻣﺮﺣﺒﺎ", &Rules::default(), &mut buf);
    assert_eq!(buf, "مرحبا");
    normalize_into("b", &Rules::default(), &mut buf);
    assert_eq!(buf, "b");
}

// ------------------------------------------------------------------ table checks

#[test]
fn arabic_ccc_table_matches_ucd() {
    for u in 0x0600..0x0700u32 {
        let c = char::from_u32(u).unwrap();
        assert_eq!(
            canonical_class_arabic(u) != 0,
            canonical_combining_class(c) != 0,
            "U+{u:04X}"
        );
    }
}

#[test]
fn composed_pairs_are_nfc() {
    use unicode_normalization::UnicodeNormalization;
    for s in 0x0600u32..0x0700 {
        let Some(starter) = char::from_u32(s) else {
            continue;
        };
        for m in ['\u{0653}', '\u{0654}', '\u{0655}'] {
            let seg: String = [starter, m].into_iter().collect();
            let nfc: Vec<char> = seg.nfc().collect();
            let expected = (nfc.len() == 1).then(|| nfc[0]);
            assert_eq!(
                composed_pair(&seg),
                expected,
                "U+{s:04X} U+{:04X}",
                m as u32
            );
        }
    }
    assert_eq!(composed_pair("ا"), None);
    assert_eq!(composed_pair("اٰ"), None);
}

#[test]
fn harmless_arabic_marks_never_compose() {
    let marks: Vec<char> = (0x0600..0x0700u32)
        .filter(|&u| is_harmless_arabic_mark(u))
        .map(|u| char::from_u32(u).unwrap())
        .collect();
    for u in 0..0x11_0000u32 {
        let Some(a) = char::from_u32(u) else { continue };
        for &m in &marks {
            assert!(
                unicode_normalization::char::compose(a, m).is_none(),
                "U+{u:04X}+{m:?}"
            );
        }
        for m in 0x0653..=0x0655u32 {
            let composes = unicode_normalization::char::compose(a, char::from_u32(m).unwrap());
            // the fast path may only skip NFC where no composition exists
            let fast_says = (0x0600..0x0700).contains(&u) && composes_with_hamza_mark(u, m);
            assert_eq!(composes.is_some(), fast_says, "U+{u:04X}+U+{m:04X}");
        }
    }
}

#[test]
fn every_arabic_block_char_is_clean() {
    for u in 0x0600..0x0700u32 {
        let c = char::from_u32(u).unwrap();
        for s in [c.to_string(), format!("ب{c}"), format!("١{c}٢")] {
            let out = n(&s);
            assert_clean(&out, &s);
            assert_eq!(n(&out), out, "U+{u:04X}");
        }
    }
}

#[test]
fn nfkc_char_matches_unicode_normalization() {
    for u in 0..0x11_0000u32 {
        let Some(c) = char::from_u32(u) else { continue };
        if !is_compat_block(u) && u % 61 != 0 {
            continue; // all compat-block chars, and a sample of the rest
        }
        let mut buf = ['\0'; NFKC_MAX];
        let n = nfkc_char(c, &mut buf);
        let want: Vec<char> = std::iter::once(c).nfkc().collect();
        assert_eq!(&buf[..n], &want[..], "U+{u:04X}");
    }
}

#[test]
fn every_presentation_form_is_clean_and_stable() {
    for u in (0xFB00..=0xFDFFu32)
        .chain(0xFE10..=0xFEFF)
        .chain(0xFF00..=0xFFEF)
    {
        let Some(c) = char::from_u32(u) else { continue };
        for s in [c.to_string(), format!("ب{c}ت")] {
            for r in [Rules::default(), Rules::conservative()] {
                let out = normalize(&s, &r);
                assert_clean(&out, &s);
                assert_eq!(normalize(&out, &r), out, "U+{u:04X}");
                assert!(
                    !out.chars().any(|d| is_compat_block(d as u32) && d != c),
                    "U+{u:04X}"
                );
            }
        }
    }
}

// ------------------------------------------------------------------ Quran corpus

#[test]
fn quran_corpus_is_clean() {
    let path = "/work/shared/corpora/quran-json/dist/quran.json";
    let Ok(raw) = std::fs::read_to_string(path) else {
        println!("skipping quran_corpus_is_clean: {path} not found");
        return;
    };
    #[derive(serde::Deserialize)]
    struct Verse {
        text: String,
    }
    #[derive(serde::Deserialize)]
    struct Surah {
        verses: Vec<Verse>,
    }
    let surahs: Vec<Surah> = serde_json::from_str(&raw).expect("quran.json shape");
    let r = Rules::default();
    let mut count = 0;
    let mut buf = String::new();
    let mut with_variants = 0;
    for s in &surahs {
        for v in &s.verses {
            normalize_into(&v.text, &r, &mut buf);
            assert_clean(&buf, &v.text);
            assert_eq!(normalize(&buf, &r), buf);
            let vars = variants(&v.text, &r);
            for var in &vars {
                assert_clean(var, &v.text);
                assert_eq!(normalize(var, &r), *var);
                assert!(!var.contains(' '));
            }
            if !vars.is_empty() {
                with_variants += 1;
            }
            count += 1;
        }
    }
    assert_eq!(count, 6236);
    println!("quran: {count} verses clean, {with_variants} with variants");
}

// ------------------------------------------------------------------ properties

fn rules_strategy() -> impl Strategy<Value = Rules> {
    (any::<[bool; 7]>()).prop_map(|b| Rules {
        fold_alef_hamza: b[0],
        fold_alef_maksura: b[1],
        fold_teh_marbuta: b[2],
        fold_hamza_carriers: b[3],
        digits: b[4],
        punctuation: b[5],
        lowercase_latin: b[6],
    })
}

/// Characters from the Arabic-related ranges plus the things they mix with.
fn arabic_char() -> impl Strategy<Value = char> {
    prop_oneof![
        6 => 0x0600u32..0x0700,
        1 => 0x0750u32..0x0780,
        1 => 0x0870u32..0x0900,
        2 => 0xFB50u32..0xFE00,
        2 => 0xFE70u32..0xFF00,
        1 => 0xFF00u32..0xFFF0,
        1 => 0x2000u32..0x2070,
        2 => 0x20u32..0x7F,
        1 => 0x0300u32..0x0370,
        1 => Just(0x00A0u32),
    ]
    .prop_map(|u| char::from_u32(u).unwrap_or(' '))
}

/// Characters that stress NFC: combining marks of several scripts, blockers, jamo, …
fn mixed_char() -> impl Strategy<Value = char> {
    prop_oneof![
        3 => 0x41u32..0x7B,
        1 => 0xC0u32..0x100,
        3 => 0x0300u32..0x0370,
        1 => 0x0590u32..0x0600,
        3 => 0x0600u32..0x0700,
        1 => 0x0900u32..0x0980,
        1 => 0x1100u32..0x1200,
        1 => 0xAC00u32..0xAC40,
        1 => 0x1E00u32..0x1F00,
        1 => 0x1F00u32..0x2000,
        1 => 0x200Bu32..0x2010,
        1 => 0xFB00u32..0xFB50,
        1 => 0xFF21u32..0xFF5B,
        1 => Just(0x0130u32),
        1 => Just(0x2126u32),
        1 => Just(0x0640u32),
        1 => Just(0x034Fu32),
        1 => Just(0x20u32),
        1 => Just(0x2Eu32),
        1 => 0x30u32..0x3A,
    ]
    .prop_map(|u| char::from_u32(u).unwrap_or(' '))
}

fn mixed_string() -> impl Strategy<Value = String> {
    prop::collection::vec(mixed_char(), 0..30).prop_map(|v| v.into_iter().collect())
}

/// Diacritized Arabic words: letters (و, ى, ة, alef forms included), harakat, dagger alef,
/// small high yeh, tatweel, digits, single and double spaces; long runs of kept letters.
fn arabic_words() -> impl Strategy<Value = String> {
    let ch = prop_oneof![
        8 => 0x0621u32..0x064B,
        3 => 0x064Bu32..0x0656,
        2 => Just(0x0670u32),
        1 => Just(0x06E7u32),
        1 => Just(0x0640u32),
        1 => Just(0x0648u32),
        1 => 0x0660u32..0x066D,
        1 => 0x30u32..0x3A,
        1 => Just(0x2Eu32),
        3 => Just(0x20u32),
        1 => 0x61u32..0x7B,
    ]
    .prop_map(|u| char::from_u32(u).unwrap_or(' '));
    prop::collection::vec(ch, 0..80).prop_map(|v| v.into_iter().collect())
}

fn arabic_string() -> impl Strategy<Value = String> {
    prop::collection::vec(arabic_char(), 0..40).prop_map(|v| v.into_iter().collect())
}

proptest! {
    // PROPTEST_CASES=N overrides the default of 2000 cases per property.
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000)
    ))]

    #[test]
    fn idempotent_arbitrary(s in any::<String>(), r in rules_strategy()) {
        let once = normalize(&s, &r);
        prop_assert_eq!(normalize(&once, &r), once.clone());
    }

    #[test]
    fn idempotent_arabic(s in arabic_string(), r in rules_strategy()) {
        let once = normalize(&s, &r);
        prop_assert_eq!(normalize(&once, &r), once.clone());
    }

    #[test]
    fn idempotent_mixed_scripts(s in mixed_string(), r in rules_strategy()) {
        let once = normalize(&s, &r);
        prop_assert_eq!(normalize(&once, &r), once.clone());
        prop_assert!(unicode_normalization::is_nfc(&once));
    }

    /// The NFC shortcuts (fast path, harmless marks, per-segment quick check) must give the
    /// same result as composing the whole input first.
    #[test]
    fn nfc_shortcuts_equal_full_nfc(s in prop_oneof![arabic_string(), mixed_string()], r in rules_strategy()) {
        let full: String = s.nfc().collect();
        prop_assert_eq!(normalize(&s, &r), normalize(&full, &r));
    }

    /// The run-copying fast path gives what feeding every character one by one gives.
    #[test]
    fn fast_path_equals_per_char(s in prop_oneof![arabic_string(), mixed_string(), arabic_words(), any::<String>()], r in rules_strategy()) {
        prop_assert_eq!(normalize(&s, &r), normalize_per_char(&s, &r));
    }

    /// The variant pass (dagger alef and small high yeh after the letters that runs copy,
    /// marks skipped and folds pushed within runs) gives the same form, hit and edits as
    /// feeding every character one by one.
    #[test]
    fn variant_pass_fast_path_equals_per_char(s in prop_oneof![arabic_words(), arabic_string(), mixed_string()], r in rules_strategy()) {
        let pass = |per_char: bool| {
            let mut var = String::new();
            let mut pass = Pass::new(&r, &mut var, true, NoObs);
            pass.per_char = per_char;
            pass.run(&s);
            let edits: Vec<(usize, bool)> = pass.edits.iter().map(|e| (e.at, e.was_waw)).collect();
            let hit = pass.variant_hit;
            (var, hit, edits)
        };
        prop_assert_eq!(pass(false), pass(true));
    }

    /// The vectorized pre-check only ever skips blocks the exact check would pass.
    #[test]
    fn nfc_precheck_is_conservative(s in prop_oneof![arabic_string(), mixed_string(), arabic_words(), any::<String>()]) {
        if !may_need_nfc(s.as_bytes()) {
            prop_assert!(nfc_irrelevant(&s), "{:?}", s);
        }
    }

    /// The one-pass primary form (the variant pass with its edits undone) is the primary
    /// form, and the variants are those of a separate variant pass. (Not against the composed
    /// input: the variant pass, like the primary one, leaves the order of Arabic marks as
    /// written, and U+06E7 before U+0670 gives another variant than after it.)
    #[test]
    fn one_pass_variants_equal_two_passes(s in prop_oneof![arabic_string(), arabic_words(), mixed_string()], r in rules_strategy()) {
        let primary = normalize(&s, &r);
        let mut var = String::new();
        let hit = {
            let mut pass = Pass::new(&r, &mut var, true, NoObs);
            pass.run(&s);
            pass.variant_hit
        };
        let expected = if hit { variant_words(&primary, var) } else { Vec::new() };
        prop_assert_eq!(normalize_with_variants(&s, &r), (primary, expected));
    }

    #[test]
    fn output_clean_and_trimmed(s in arabic_string(), r in rules_strategy()) {
        let out = normalize(&s, &r);
        prop_assert!(!out.chars().any(forbidden), "{:?} -> {:?}", s, out);
        prop_assert!(!out.starts_with(' ') && !out.ends_with(' ') && !out.contains("  "));
        prop_assert!(!out.chars().any(|c| c.is_whitespace() && c != ' '));
        prop_assert!(unicode_normalization::is_nfc(&out));
    }

    #[test]
    fn output_clean_arbitrary(s in any::<String>()) {
        let out = n(&s);
        prop_assert!(!out.chars().any(forbidden));
        prop_assert!(unicode_normalization::is_nfc(&out));
    }

    #[test]
    fn ascii_words_unchanged_except_case(s in "[A-Za-z0-9]{1,12}( [A-Za-z0-9]{1,12}){0,6}") {
        prop_assert_eq!(n(&s), s.to_ascii_lowercase());
        let keep_case = Rules { lowercase_latin: false, ..Rules::default() };
        prop_assert_eq!(normalize(&s, &keep_case), s.clone());
    }

    #[test]
    fn other_entry_points_never_panic(s in arabic_string(), r in rules_strategy()) {
        let out = normalize(&s, &r);
        for v in variants(&s, &r) {
            prop_assert_eq!(normalize(&v, &r), v.clone());
            prop_assert!(!tokens(&out).any(|t| t == v));
        }
        for c in explain(&s, &r) {
            prop_assert!(s.is_char_boundary(c.offset));
            prop_assert_eq!(s[c.offset..].chars().next(), Some(c.ch));
        }
        let mut buf = String::from("junk");
        normalize_into(&s, &r, &mut buf);
        prop_assert_eq!(buf, out);
    }

    #[test]
    fn normalize_with_variants_agrees(s in arabic_string(), r in rules_strategy()) {
        let (p, v) = normalize_with_variants(&s, &r);
        prop_assert_eq!(p, normalize(&s, &r));
        prop_assert_eq!(v, variants(&s, &r));
    }

    #[test]
    fn never_panics_arbitrary(s in any::<String>(), r in rules_strategy()) {
        let _ = normalize(&s, &r);
        let _ = variants(&s, &r);
        let _ = explain(&s, &r);
    }
}
