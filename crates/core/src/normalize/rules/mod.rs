//! Arabic normalizer for `search_text` (lexical matching and embedding input).
//!
//! The evidence `text` of a chunk is never changed; this module only computes the separate
//! normalized search form. Everything here is pure: no I/O, no global state, no panics on any
//! input (every `&str` is accepted).
//!
//! # Pipeline
//!
//! One pass over the characters, in this rule order (see `arabic.md` §6). The names are the
//! ones returned by [`Rules::active_rule_names`] and used in [`Change::rule`]:
//!
//! 1. `nfc` — canonical composition, so that `ا`+U+0654 ≡ `أ` before combining hamza is deleted.
//!    `unicode_normalization::is_nfc_quick` is the model, but the common case is decided by a
//!    cheaper byte scan: text made only of ASCII and Arabic-block characters needs no NFC,
//!    because there NFC could only reorder harakat that are deleted anyway — unless U+0653–U+0655
//!    follow a letter they compose with (آ أ إ ؤ ئ ۀ ۂ ۓ). The text is scanned in blocks of about
//!    8 KiB; in a block with a byte that may take part in a composition, only the words with such
//!    a byte are split into normalization segments, and only segments that compose (a starter and
//!    one hamza/madda mark: from a table) or fail `is_nfc_quick` (and really change) are
//!    recomposed.
//! 2. `presentation_forms` — U+FE70–U+FE7F (isolated/medial harakat forms, tail fragment) and
//!    U+FC5E–U+FC63 (shadda ligatures) are deleted *before* NFKC (NFKC would leave
//!    SPACE + mark, splitting words). NFKC is applied character by character, only to the
//!    presentation-form blocks U+FB00–U+FDFF, U+FE10–U+FE1F, U+FE30–U+FEFE and the
//!    half/full-width block U+FF00–U+FFEF (plus the Arabic mathematical letters
//!    U+1EE00–U+1EEFF), never to the whole string. Phrase ligatures are
//!    expanded and set off by spaces: ﷺ → `صلى الله عليه وسلم`, ﷻ → `جل جلاله`,
//!    ﷽ → `بسم الله الرحمن الرحيم`, ﷾ → `سبحانه وتعالى`, ﷿ → `عز وجل`; ﷲ → `الله` (one word,
//!    no spaces, so `بﷲ` → `بالله`). Every character an expansion yields runs through the rest
//!    of the pipeline, so the output of a ligature is itself normalized (idempotence).
//! 3. `persian_letters` — the letters NFKC yields in Persian form: U+06CC, U+06D0–U+06D2 → ي;
//!    U+06A9 → ك; U+06C0–U+06C2 → ه; U+06C3 → ة (then `fold_teh_marbuta` if on). Also
//!    U+06D3 (yeh barree + hamza, the NFC composite of U+06D2 U+0654) → ئ, the analogue of the
//!    U+06D2 rule.
//! 4. `invisible` — **deleted, not spaced**, so a control inside a word does not split it:
//!    U+200B–U+200F, U+202A–U+202E, U+2060–U+2069, U+FEFF, U+061C, U+00AD, plus the other
//!    format characters (U+0600–U+0605, U+0890–U+0891, U+070F, U+180E, U+206A–U+206F,
//!    U+FFF9–U+FFFB, U+E0000–U+E007F tags), variation selectors (U+FE00–U+FE0F,
//!    U+E0100–U+E01EF) and U+034F CGJ.
//! 5. `quranic_symbols` — U+06DD END OF AYAH, U+06DE, U+06E9 and U+08E2 → space.
//! 6. `harakat` — U+064B–U+065F deleted (after NFC, see 1).
//! 7. `quranic_marks` — U+0610–U+061A, U+06D6–U+06DC, U+06DF–U+06E8 (small waw/yeh
//!    U+06E5/U+06E6 included), U+06EA–U+06ED deleted; also the Arabic Extended-A/B annotation
//!    marks U+0897–U+089F, U+08CA–U+08FF (except U+08E2, see 5) and U+10EFC–U+10EFF.
//! 8. `dagger_alef` — U+0670 deleted in the primary form (see *Dagger alef* below).
//! 9. `tatweel` — U+0640 deleted.
//! 10. `alef_wasla` — U+0671, U+0672, U+0673, U+0675 → ا.
//! 11. `digits` (toggle) — U+0660–U+0669 and U+06F0–U+06F9 → `0`–`9`; ٫ (U+066B) between two
//!     digits → `.`; ٬ (U+066C) between two digits → nothing (`١٬٠٠٠` → `1000`).
//! 12. `punctuation` (toggle) — every punctuation or symbol character (Arabic ، ؛ ؟ ٪ ٫ ٬ ۔ ٭ ؍,
//!     ASCII, all other Unicode P*/S*, private-use and unassigned code points) → space. An
//!     ASCII `.` between two digits is kept as a decimal point: that is what ٫ becomes, and a
//!     typed `3.5` must match `٣٫٥` (and `normalize` must be idempotent).
//! 13. `lowercase_latin` (toggle) — full Unicode lowercase mapping of every cased letter (Latin,
//!     and also Greek, Cyrillic, … — the name is kept for the rule metadata).
//! 14. `whitespace` — every Unicode whitespace character (NBSP, U+2000–U+200A, U+202F, U+3000,
//!     line breaks, …) and every other control character collapses to one ASCII space; the
//!     result is trimmed.
//! 15. Lossy folds (toggles; see `arabic.md` table rows 16–20): `fold_alef_hamza` أ إ آ → ا,
//!     `fold_alef_maksura` ى → ي, `fold_teh_marbuta` ة → ه, `fold_hamza_carriers` ؤ → و, ئ → ي.
//!
//! Letters and digits of every script are kept (digits of other scripts as they are); other
//! combining marks (Latin accents, Hebrew points, Indic vowel signs) are kept. If such a mark
//! can compose with a neighbour only once a deleted character between them has gone (e.g.
//! `e` ZWJ U+0301), the output is recomposed at the very end, so the result is always NFC.
//!
//! # Idempotence
//!
//! `normalize(normalize(x)) == normalize(x)` for every string: every replacement is a fixed
//! point of the pipeline (folds are chained inside the single pass, e.g. U+06C3 → ة → ه), the
//! context rules (decimal separators, whitespace) are stable on their own output, and the
//! output is NFC. This is checked by property tests on arbitrary Unicode and on Arabic-range
//! strings.
//!
//! # Dagger alef (U+0670) and `variants`
//!
//! The superscript alef is deleted in the primary form: `ٱلرَّحۡمَٰنِ` → `الرحمن` and
//! `هٰذا` → `هذا`, which are the modern spellings. For some words the modern spelling writes the
//! alef instead (`تَبَٰرَكَ` is typed `تبارك`), and deleting it gives `تبرك`. So [`variants`]
//! additionally emits, for every word where it makes a difference, the spelling in which
//!
//! * U+0670 after a consonant (harakat and tatweel in between are skipped) becomes ا:
//!   `تَبَٰرَكَ` → `تبارك`, `ٱلۡمَلَـٰٓئِكَةُ` → `الملائكه` (with the default folds);
//! * U+0670 after و replaces that و by ا (Uthmani `ٱلصَّلَوٰةَ`, `ٱلزَّكَوٰةَ`, `ٱلۡحَيَوٰةِ` →
//!   `الصلاه`, `الزكاه`, `الحياه`, the modern spellings with the default folds);
//! * U+0670 after an alef or alef maksura (`عَلَىٰ`, `مُوسَىٰ`) is simply deleted (no variant);
//! * U+06E7 (small high yeh) after a letter becomes ي (`إِبۡرَٰهِـۧمَ` → `ابراهيم`,
//!   `ٱلنَّبِيِّـۧنَ` → `النبيين`).
//!
//! Variants are additive (index them in an alias field next to the primary form, never
//! instead of it): they are normalized with the same [`Rules`], contain one entry per
//! changed word (the variant word alone), are distinct from every word of the primary form,
//! deduplicated, and in text order.
//!
//! # Offsets
//!
//! [`explain`] reports byte offsets into the *input* string. Characters produced by NFKC or a
//! ligature report the offset of the presentation-form character; characters of a segment
//! that NFC had to recompose report the offset of that segment's first character. The final
//! recomposition described above (rare: only after a deleted character unblocks a non-Arabic
//! combining mark) is not reported.
//!
//! # Unicode versions
//!
//! Letter/whitespace/case properties come from the Rust standard library (`char::UNICODE_VERSION`),
//! NFC/NFKC and combining classes from `unicode-normalization` ([`NORMALIZATION_UNICODE_VERSION`]).
//! Outputs for Arabic, Latin and everything assigned before both versions are fixed by
//! [`RULES_VERSION`]; characters newly assigned in a later Unicode version may be classified
//! differently after a toolchain or dependency upgrade.
#![forbid(unsafe_code)]

mod pass;
mod tables;
#[cfg(test)]
mod tests;
mod unicode;
mod variants;

use serde::{Deserialize, Serialize};

use pass::{NoObs, Pass, Recorder};
use variants::{edited_words, undo_variants, variant_words};

/// Version of the rule set. Bump it whenever any output of [`normalize`] or [`variants`] can
/// change for the same input and [`Rules`], so stored `search_text` can be invalidated.
pub const RULES_VERSION: u32 = 1;

/// Unicode version of the NFC/NFKC tables in use.
pub const NORMALIZATION_UNICODE_VERSION: (u8, u8, u8) = unicode_normalization::UNICODE_VERSION;

/// Every rule name, in pipeline order (the conservative rules, then the toggles, then the
/// lossy folds).
pub const ALL_RULE_NAMES: &[&str] = &[
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
    "fold_teh_marbuta",
    "fold_hamza_carriers",
];

/// The rules that merge distinct words (record them as lossy in rule metadata).
pub const LOSSY_RULE_NAMES: &[&str] = &[
    "fold_alef_hamza",
    "fold_alef_maksura",
    "fold_teh_marbuta",
    "fold_hamza_carriers",
];

/// Which rules are on. Default = conservative rules all on + standard lossy folds on;
/// `fold_hamza_carriers` off. The conservative rules (NFC, invisible characters, presentation
/// forms, Persian letters, harakat, Quranic marks and symbols, dagger alef, tatweel, alef
/// wasla, whitespace) cannot be switched off.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Rules {
    /// أ إ آ → ا (lossy, default on)
    pub fold_alef_hamza: bool,
    /// ى → ي (lossy, default on)
    pub fold_alef_maksura: bool,
    /// ة → ه (lossy, default on)
    pub fold_teh_marbuta: bool,
    /// ؤ → و, ئ → ي (lossy, default off)
    pub fold_hamza_carriers: bool,
    /// Arabic-Indic + Extended Arabic-Indic digits → ASCII, ٫/٬ between digits (default on)
    pub digits: bool,
    /// punctuation and symbols (Arabic + ASCII + Unicode) → space (default on)
    pub punctuation: bool,
    /// lowercase (default on)
    pub lowercase_latin: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            fold_alef_hamza: true,
            fold_alef_maksura: true,
            fold_teh_marbuta: true,
            fold_hamza_carriers: false,
            digits: true,
            punctuation: true,
            lowercase_latin: true,
        }
    }
}

impl Rules {
    /// Only the conservative rules plus digits/punctuation/lowercase; every lossy fold off.
    pub fn conservative() -> Self {
        Rules {
            fold_alef_hamza: false,
            fold_alef_maksura: false,
            fold_teh_marbuta: false,
            fold_hamza_carriers: false,
            ..Rules::default()
        }
    }

    /// Ordered names of every rule that is on, conservative ones included.
    pub fn active_rule_names(&self) -> Vec<&'static str> {
        ALL_RULE_NAMES
            .iter()
            .copied()
            .filter(|name| match *name {
                "digits" => self.digits,
                "punctuation" => self.punctuation,
                "lowercase_latin" => self.lowercase_latin,
                "fold_alef_hamza" => self.fold_alef_hamza,
                "fold_alef_maksura" => self.fold_alef_maksura,
                "fold_teh_marbuta" => self.fold_teh_marbuta,
                "fold_hamza_carriers" => self.fold_hamza_carriers,
                _ => true,
            })
            .collect()
    }

    /// Names of the lossy rules that are on.
    pub fn active_lossy_rule_names(&self) -> Vec<&'static str> {
        self.active_rule_names()
            .into_iter()
            .filter(|n| LOSSY_RULE_NAMES.contains(n))
            .collect()
    }
}

/// One change a rule made to one input character (see [`explain`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// Byte offset of the input character in the input string.
    pub offset: usize,
    /// The input character.
    pub ch: char,
    /// Rule name (one of [`ALL_RULE_NAMES`]).
    pub rule: &'static str,
    /// What this rule turned the character into (`""` = dropped). When several rules act on
    /// one input character (e.g. ﺇ → إ by `presentation_forms`, then → ا by `fold_alef_hamza`)
    /// there is one `Change` per rule, in pipeline order, each giving that step's result.
    pub replacement: String,
}

/// The primary search form of `text`.
pub fn normalize(text: &str, rules: &Rules) -> String {
    let mut out = String::with_capacity(text.len());
    normalize_into(text, rules, &mut out);
    out
}

/// Same as [`normalize`], writing into `out` (which is cleared first) to reuse its buffer.
pub fn normalize_into(text: &str, rules: &Rules, out: &mut String) {
    out.clear();
    out.reserve(text.len());
    let mut pass = Pass::new(rules, out, false, NoObs);
    pass.run(text);
}

/// Additive variants of `text` (see the module docs): one entry per word whose variant
/// spelling differs from its primary form, normalized with the same rules, deduplicated, in
/// text order, and distinct from every word of the primary form. Empty for most text.
pub fn variants(text: &str, rules: &Rules) -> Vec<String> {
    normalize_with_variants(text, rules).1
}

/// [`normalize`] and [`variants`] together, in one pass: the variant pass records where it
/// wrote a variant letter, and the primary form is the variant form with those undone (a
/// variant letter only ever follows an emitted letter, so nothing else differs). When the
/// output needed a final recomposition (rare, non-Arabic marks), the primary form is
/// normalized separately.
pub fn normalize_with_variants(text: &str, rules: &Rules) -> (String, Vec<String>) {
    let mut var = String::with_capacity(text.len());
    let (hit, exotic, edits) = {
        let mut pass = Pass::new(rules, &mut var, true, NoObs);
        pass.run(text);
        (
            pass.variant_hit,
            pass.exotic,
            std::mem::take(&mut pass.edits),
        )
    };
    if !hit {
        // Without a hit the variant pass made exactly the primary form.
        return (var, Vec::new());
    }
    if exotic {
        let primary = normalize(text, rules);
        let vars = variant_words(&primary, var);
        return (primary, vars);
    }
    let primary = undo_variants(&var, &edits);
    let vars = edited_words(&primary, &var, &edits);
    (primary, vars)
}

/// Per-rule explanation: one [`Change`] for each rule that changed or dropped an input
/// character, sorted by input byte offset (pipeline order within one character).
pub fn explain(text: &str, rules: &Rules) -> Vec<Change> {
    let mut scratch = String::with_capacity(text.len());
    let mut pass = Pass::new(rules, &mut scratch, false, Recorder(Vec::new()));
    pass.run(text);
    let mut changes = std::mem::take(&mut pass.obs.0);
    changes.sort_by_key(|c| c.offset); // stable: keeps pipeline order per character
    changes
}

/// Reference for tests: the same pipeline with every character fed one by one (no runs) and
/// every block that may need NFC segmented whole.
#[cfg(test)]
fn normalize_per_char(text: &str, rules: &Rules) -> String {
    let mut out = String::new();
    let mut pass = Pass::new(rules, &mut out, false, NoObs);
    pass.per_char = true;
    pass.run(text);
    out
}

/// The words of a search text: [`crate::text::tokens`], which `SearchText` uses too.
pub use crate::text::tokens;
