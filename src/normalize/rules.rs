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

use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};
use unicode_normalization::char::{canonical_combining_class, is_combining_mark};
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

#[cfg(test)]
mod tests;

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
    let mut eng = Engine::new(rules, out, false, NoObs);
    eng.run(text);
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
        let mut eng = Engine::new(rules, &mut var, true, NoObs);
        eng.run(text);
        (eng.variant_hit, eng.exotic, std::mem::take(&mut eng.edits))
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

/// The primary form from the variant form and the variant pass's edits.
fn undo_variants(var: &str, edits: &[VariantEdit]) -> String {
    let mut out = String::with_capacity(var.len());
    let mut from = 0;
    for e in edits {
        out.push_str(&var[from..e.at]);
        if e.was_waw {
            out.push('\u{0648}');
        }
        from = e.at + 2; // ا and ي are two bytes
    }
    out.push_str(&var[from..]);
    out
}

/// [`variant_words`] from the edits: the words of the variant form that hold an edit are the
/// ones that differ from the primary form, so only they (and, when there are any, a scan of
/// the primary words for membership) are looked at, not every word of both forms.
fn edited_words(primary: &str, var: &str, edits: &[VariantEdit]) -> Vec<String> {
    let vb = var.as_bytes();
    // Distinct edited words, in text order.
    let mut cands: Vec<&str> = Vec::new();
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    let mut word_end = 0; // the end of the last edited word
    for e in edits {
        if e.at < word_end {
            continue; // another edit of the same word
        }
        let start = vb[..e.at]
            .iter()
            .rposition(|&b| b == b' ')
            .map_or(0, |p| p + 1);
        word_end = vb[e.at..]
            .iter()
            .position(|&b| b == b' ')
            .map_or(vb.len(), |p| e.at + p);
        let w = &var[start..word_end];
        if seen.insert(w) {
            cands.push(w);
        }
    }
    // Drop the candidates that are also a word of the primary form. A primary word is looked
    // up only when its bit in a filter of the candidates' hashes is set.
    let mut filter = [0u64; 64];
    for w in &cands {
        let h = (word_hash(w) >> 52) as usize;
        filter[h >> 6] |= 1 << (h & 63);
    }
    let mut in_primary: FxHashSet<&str> = FxHashSet::default();
    for w in tokens(primary) {
        let h = (word_hash(w) >> 52) as usize;
        if filter[h >> 6] & (1 << (h & 63)) != 0 && seen.contains(w) {
            in_primary.insert(w);
        }
    }
    cands
        .into_iter()
        .filter(|w| !in_primary.contains(w))
        .map(str::to_string)
        .collect()
}

/// A cheap hash of a word for filters and direct-mapped caches (use the high bits): a
/// multiplicative hash of its length and its first and last four bytes.
#[inline]
pub(crate) fn word_hash(w: &str) -> u64 {
    let b = w.as_bytes();
    // The first and last four bytes (overlapping in a short word), or the bytes of a shorter one.
    let key = match (b.first_chunk::<4>(), b.last_chunk::<4>()) {
        (Some(head), Some(tail)) => {
            ((u32::from_le_bytes(*head) as u64) << 32) | u32::from_le_bytes(*tail) as u64
        }
        _ => b.iter().fold(0u64, |k, &x| (k << 8) | x as u64),
    };
    (key ^ b.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

fn variant_words(primary: &str, var: String) -> Vec<String> {
    let p: Vec<&str> = tokens(primary).collect();
    let v: Vec<&str> = tokens(&var).collect();
    let mut res: Vec<String> = Vec::new();
    if p.len() == v.len() {
        let primary_words: FxHashSet<&str> = p.iter().copied().collect();
        let mut seen: FxHashSet<&str> = FxHashSet::default();
        for (a, b) in p.iter().zip(v.iter()) {
            if a != b && !primary_words.contains(b) && seen.insert(b) {
                res.push((*b).to_string());
            }
        }
    } else if var != primary {
        // Not expected (variant rules never add or remove spaces); keep the whole form.
        res.push(var);
    }
    res
}

/// Per-rule explanation: one [`Change`] for each rule that changed or dropped an input
/// character, sorted by input byte offset (pipeline order within one character).
pub fn explain(text: &str, rules: &Rules) -> Vec<Change> {
    let mut scratch = String::with_capacity(text.len());
    let mut eng = Engine::new(rules, &mut scratch, false, Recorder(Vec::new()));
    eng.run(text);
    let mut changes = std::mem::take(&mut eng.obs.0);
    changes.sort_by_key(|c| c.offset); // stable: keeps pipeline order per character
    changes
}

/// Reference for tests: the same pipeline with every character fed one by one (no runs) and
/// every block that may need NFC segmented whole.
#[cfg(test)]
fn normalize_per_char(text: &str, rules: &Rules) -> String {
    let mut out = String::new();
    let mut eng = Engine::new(rules, &mut out, false, NoObs);
    eng.per_char = true;
    eng.run(text);
    out
}

/// The words of a search text (split on ASCII space; empty pieces skipped).
pub fn tokens(search_text: &str) -> impl Iterator<Item = &str> {
    // Words are short, and where one ends is hard to predict: the spaces of 64 bytes at a time
    // are found as the bits of a mask, and a word is the bytes between two of them, so that a
    // branch is mispredicted once a block rather than once a word.
    let b = search_text.as_bytes();
    let mut block = 0; // the first byte of the block `mask` is of
    let mut mask = space_mask(b, 0);
    let mut start = 0; // where the next word starts
    std::iter::from_fn(move || {
        loop {
            if mask == 0 {
                block += 64;
                // A text of a whole number of blocks: its end, as a space.
                mask = match block.cmp(&b.len()) {
                    std::cmp::Ordering::Less => space_mask(b, block),
                    std::cmp::Ordering::Equal => 1,
                    std::cmp::Ordering::Greater => return None,
                };
                continue;
            }
            let end = (block + mask.trailing_zeros() as usize).min(b.len());
            mask &= mask - 1;
            let from = std::mem::replace(&mut start, end + 1);
            if from >= b.len() {
                return None;
            }
            if end > from {
                // Both ends are at a space or the end of the text: character boundaries.
                return search_text.get(from..end);
            }
        }
    })
}

/// Bit `j` set when byte `at + j` of `b` is a space or past its end.
#[inline]
fn space_mask(b: &[u8], at: usize) -> u64 {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let mut bytes = [b' '; 64];
    let have = b.len().saturating_sub(at).min(64);
    bytes[..have].copy_from_slice(&b[at..at + have]);
    let mut mask = 0;
    for (k, c) in bytes.chunks_exact(8).enumerate() {
        let x = u64::from_le_bytes(c.try_into().unwrap_or_default())
            ^ (0x0101_0101_0101_0101 * b' ' as u64);
        // 0x80 in exactly the zero bytes of `x` (the spaces), then those eight bits gathered
        // into one byte, in order.
        let zero = !(((x & LOW7) + LOW7) | x | LOW7);
        mask |= ((zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
    }
    mask
}

// ---------------------------------------------------------------------------------------------
// Internals
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    Nfc,
    Invisible,
    PresentationForms,
    PersianLetters,
    Harakat,
    QuranicMarks,
    QuranicSymbols,
    DaggerAlef,
    Tatweel,
    AlefWasla,
    Digits,
    Punctuation,
    LowercaseLatin,
    Whitespace,
    FoldAlefHamza,
    FoldAlefMaksura,
    FoldTehMarbuta,
    FoldHamzaCarriers,
}

impl Rule {
    fn name(self) -> &'static str {
        ALL_RULE_NAMES[self as usize]
    }
}

/// What the letter before a dagger alef was (for `variants`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Base {
    /// Start of a word, or not an Arabic letter.
    None,
    Consonant,
    /// ا أ إ آ ٱ ى: a following dagger alef is just deleted.
    Alef,
    /// و: a following dagger alef replaces it by ا.
    Waw,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fold {
    AlefHamza,
    AlefMaksura,
    TehMarbuta,
    HamzaCarrier,
}

/// Action for a character of the Arabic block U+0600–U+06FF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Act {
    Keep(Base),
    Lossy(Fold, Base),
    Delete(Rule),
    Space(Rule),
    /// Conservative one-to-one replacement (alef wasla, Persian letters).
    Map(char, Rule, Base),
    Digit(u8),
    DecimalSep,
    ThousandsSep,
    Punct,
    Dagger,
    SmallHighYeh,
}

const fn arabic_act(u: u32) -> Act {
    match u {
        0x0600..=0x0605 => Act::Delete(Rule::Invisible),
        0x0606..=0x060F => Act::Punct,
        0x0610..=0x061A => Act::Delete(Rule::QuranicMarks),
        0x061B => Act::Punct,
        0x061C => Act::Delete(Rule::Invisible),
        0x061D..=0x061F => Act::Punct,
        0x0622 | 0x0623 | 0x0625 => Act::Lossy(Fold::AlefHamza, Base::Alef),
        0x0624 => Act::Lossy(Fold::HamzaCarrier, Base::Consonant),
        0x0626 => Act::Lossy(Fold::HamzaCarrier, Base::Consonant),
        0x0627 => Act::Keep(Base::Alef),
        0x0629 => Act::Lossy(Fold::TehMarbuta, Base::Consonant),
        0x0640 => Act::Delete(Rule::Tatweel),
        0x0648 => Act::Keep(Base::Waw),
        0x0649 => Act::Lossy(Fold::AlefMaksura, Base::Alef),
        0x064B..=0x065F => Act::Delete(Rule::Harakat),
        0x0660..=0x0669 => Act::Digit((u - 0x0660) as u8),
        0x066A => Act::Punct,
        0x066B => Act::DecimalSep,
        0x066C => Act::ThousandsSep,
        0x066D => Act::Punct,
        0x0670 => Act::Dagger,
        0x0671..=0x0673 | 0x0675 => Act::Map('\u{0627}', Rule::AlefWasla, Base::Alef),
        0x06A9 => Act::Map('\u{0643}', Rule::PersianLetters, Base::Consonant),
        0x06C0..=0x06C2 => Act::Map('\u{0647}', Rule::PersianLetters, Base::Consonant),
        0x06C3 => Act::Map('\u{0629}', Rule::PersianLetters, Base::Consonant),
        0x06CC | 0x06D0..=0x06D2 => Act::Map('\u{064A}', Rule::PersianLetters, Base::Consonant),
        0x06D3 => Act::Map('\u{0626}', Rule::PersianLetters, Base::Consonant),
        0x06D4 => Act::Punct,
        0x06D6..=0x06DC => Act::Delete(Rule::QuranicMarks),
        0x06DD | 0x06DE | 0x06E9 => Act::Space(Rule::QuranicSymbols),
        0x06E7 => Act::SmallHighYeh,
        0x06DF..=0x06E8 => Act::Delete(Rule::QuranicMarks),
        0x06EA..=0x06ED => Act::Delete(Rule::QuranicMarks),
        0x06F0..=0x06F9 => Act::Digit((u - 0x06F0) as u8),
        0x06FD | 0x06FE => Act::Punct,
        // Every other code point of the block is a letter (U+0620–U+064A, U+066E–U+06D5,
        // U+06EE–U+06EF, U+06FA–U+06FC, U+06FF).
        _ => Act::Keep(Base::Consonant),
    }
}

static ARABIC: [Act; 256] = {
    let mut t = [Act::Punct; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = arabic_act(0x0600 + i as u32);
        i += 1;
    }
    t
};

/// ASCII classes.
const A_LOWER: u8 = 0; // a-z (kept)
const A_DIGIT: u8 = 1;
const A_UPPER: u8 = 2;
const A_SPACE: u8 = 3; // whitespace and other control characters
const A_DOT: u8 = 4;
const A_PUNCT: u8 = 5;

static ASCII: [u8; 128] = {
    let mut t = [A_PUNCT; 128];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        t[i] = if b.is_ascii_lowercase() {
            A_LOWER
        } else if b.is_ascii_digit() {
            A_DIGIT
        } else if b.is_ascii_uppercase() {
            A_UPPER
        } else if b < 0x20 || b == 0x7F || b == b' ' {
            A_SPACE
        } else if b == b'.' {
            A_DOT
        } else {
            A_PUNCT
        };
        i += 1;
    }
    t
};

/// The class of a character for `Engine::feed_plain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fast {
    /// Emitted as it is: (base, is a digit).
    Keep(Base, bool),
    /// Replaced by one other Arabic letter (a lossy fold that is on, alef wasla, a Persian
    /// letter), with the base it leaves; only recorded, so only when no observer records.
    Fold(char, Base),
    /// Deleted, changing no state (only recorded).
    Drop,
    /// ASCII space.
    Space,
    /// Anything else: through `feed`.
    Slow,
}

/// Bits of the lossy folds that are on, indexing [`ARABIC_FAST`].
const FOLD_ALEF_HAMZA: usize = 1;
const FOLD_ALEF_MAKSURA: usize = 2;
const FOLD_TEH_MARBUTA: usize = 4;
const FOLD_HAMZA_CARRIERS: usize = 8;

fn fold_bits(r: &Rules) -> usize {
    let bit = |on: bool, bit: usize| if on { bit } else { 0 };
    bit(r.fold_alef_hamza, FOLD_ALEF_HAMZA)
        | bit(r.fold_alef_maksura, FOLD_ALEF_MAKSURA)
        | bit(r.fold_teh_marbuta, FOLD_TEH_MARBUTA)
        | bit(r.fold_hamza_carriers, FOLD_HAMZA_CARRIERS)
}

/// `Engine::fold` at compile time: what `c` becomes under the folds `bits`.
const fn fold_const(fold: Fold, c: char, bits: usize) -> char {
    match fold {
        Fold::AlefHamza if bits & FOLD_ALEF_HAMZA != 0 => '\u{0627}',
        Fold::AlefMaksura if bits & FOLD_ALEF_MAKSURA != 0 => '\u{064A}',
        Fold::TehMarbuta if bits & FOLD_TEH_MARBUTA != 0 => '\u{0647}',
        Fold::HamzaCarrier if bits & FOLD_HAMZA_CARRIERS != 0 => {
            if c == '\u{0624}' {
                '\u{0648}'
            } else {
                '\u{064A}'
            }
        }
        _ => c,
    }
}

/// The fast class of U+0600 + `i` under the folds `bits` (what `Engine::arabic` does with it,
/// when that is to emit one letter or nothing).
const fn arabic_fast(i: usize, bits: usize) -> Fast {
    let u = 0x0600 + i as u32;
    match arabic_act(u) {
        Act::Keep(base) => Fast::Keep(base, false),
        Act::Delete(_) => Fast::Drop,
        Act::Lossy(fold, base) => {
            let c = match char::from_u32(u) {
                Some(c) => c,
                None => return Fast::Slow,
            };
            let t = fold_const(fold, c, bits);
            if t == c {
                Fast::Keep(base, false)
            } else {
                Fast::Fold(t, base)
            }
        }
        Act::Map(t, _, base) => match t {
            '\u{0629}' => Fast::Fold(fold_const(Fold::TehMarbuta, t, bits), base),
            '\u{0626}' => Fast::Fold(fold_const(Fold::HamzaCarrier, t, bits), base),
            _ => Fast::Fold(t, base),
        },
        _ => Fast::Slow,
    }
}

/// The fast classes of the Arabic block, one table per combination of lossy folds.
static ARABIC_FAST: [[Fast; 256]; 16] = {
    let mut t = [[Fast::Slow; 256]; 16];
    let mut bits = 0;
    while bits < 16 {
        let mut i = 0;
        while i < 256 {
            t[bits][i] = arabic_fast(i, bits);
            i += 1;
        }
        bits += 1;
    }
    t
};

/// The Arabic-block fast classes of one engine's rules.
type ArabicFast = [Fast; 256];

static ASCII_FAST: [Fast; 128] = {
    let mut t = [Fast::Slow; 128];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        t[i] = if b.is_ascii_lowercase() {
            Fast::Keep(Base::None, false)
        } else if b.is_ascii_digit() {
            Fast::Keep(Base::None, true)
        } else if b == b' ' {
            Fast::Space
        } else {
            Fast::Slow
        };
        i += 1;
    }
    t
};

/// The class and UTF-8 length of the character at byte `i` of `b` (a char boundary), or
/// `Slow` (length unused) for characters outside ASCII and the Arabic block and past the end.
#[inline(always)]
fn fast_class(t: &ArabicFast, b: &[u8], i: usize) -> (Fast, usize) {
    match b.get(i) {
        Some(&x) if x < 0x80 => (ASCII_FAST[x as usize], 1),
        Some(&x @ 0xD8..=0xDB) => match b.get(i + 1) {
            // U+0600–U+06FF: lead byte 0xD8–0xDB, then 0x80–0xBF.
            Some(&y) => (t[(((x & 3) as usize) << 6) | (y & 0x3F) as usize], 2),
            None => (Fast::Slow, 0),
        },
        _ => (Fast::Slow, 0),
    }
}

/// Whether the character at byte `i` is kept as it is.
#[inline(always)]
fn kept_at(t: &ArabicFast, b: &[u8], i: usize) -> bool {
    matches!(fast_class(t, b, i).0, Fast::Keep(..))
}

/// The end of the run of kept characters (and single spaces between two of them) from `i`.
#[inline(always)]
fn keep_run_end(t: &ArabicFast, b: &[u8], mut i: usize) -> usize {
    loop {
        // Arabic letters, the common case, in a loop of their own: leaving it at the end of a
        // word is the only hard-to-predict branch a word costs.
        while let Some(&[x, y]) = b.get(i..i + 2).and_then(|p| p.first_chunk::<2>())
            && (0xD8..=0xDB).contains(&x)
            && matches!(
                t[(((x & 3) as usize) << 6) | (y & 0x3F) as usize],
                Fast::Keep(..)
            )
        {
            i += 2;
        }
        match b.get(i) {
            Some(&x)
                if x < 0x80
                    && (matches!(ASCII_FAST[x as usize], Fast::Keep(..))
                        || (x == b' ' && kept_at(t, b, i + 1))) =>
            {
                i += 1
            }
            _ => return i,
        }
    }
}

/// The character of a two-byte UTF-8 sequence `x y` (a lead byte 0xC2–0xDF, then a
/// continuation byte).
#[inline(always)]
fn two_byte_char(x: u8, y: u8) -> char {
    char::from_u32((((x & 0x1F) as u32) << 6) | (y & 0x3F) as u32)
        .unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// (base, is a digit) of the kept character that ends at byte `end` (a run is never empty and
/// never ends with a space).
#[inline(always)]
fn last_kept(t: &ArabicFast, b: &[u8], end: usize) -> (Base, bool) {
    let x = b[end - 1];
    let class = if x < 0x80 {
        ASCII_FAST[x as usize]
    } else {
        fast_class(t, b, end - 2).0
    };
    match class {
        Fast::Keep(base, digit) => (base, digit),
        _ => (Base::None, false),
    }
}

/// A cheap, vectorizable test that `nfc_irrelevant` would pass: false when every byte is
/// ASCII, an Arabic-block lead byte (0xD8–0xDB) or a continuation byte other than 0x93–0x95
/// (U+0653–U+0655 are D9 93–95; every other character outside ASCII and the Arabic block
/// has another lead byte). True means "look closer".
fn may_need_nfc(b: &[u8]) -> bool {
    let mut chunks = b.chunks_exact(32);
    for c in &mut chunks {
        if c.iter().fold(false, |a, &x| a | suspect(x)) {
            return true;
        }
    }
    chunks.remainder().iter().any(|&x| suspect(x))
}

/// A byte `may_need_nfc` looks closer at.
#[inline(always)]
fn suspect(x: u8) -> bool {
    (x.wrapping_sub(0x93) < 3) | (x >= 0xDC) | (x.wrapping_sub(0xC0) < 0x18)
}

/// The first byte at or after `from` that `may_need_nfc` would look closer at, found 32 bytes
/// at a time.
fn next_suspect(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while let Some(c) = b.get(i..i + 32) {
        if c.iter().fold(false, |a, &x| a | suspect(x)) {
            break;
        }
        i += 32;
    }
    b.get(i..)?.iter().position(|&x| suspect(x)).map(|p| i + p)
}

/// The composition of a segment of two Arabic-block characters, a starter and a hamza or
/// madda mark above or below (U+0653–U+0655), when NFC makes one character of them: آ أ إ ؤ ئ
/// ۀ ۂ ۓ (checked against `unicode_normalization` by a unit test).
#[inline]
fn composed_pair(seg: &str) -> Option<char> {
    let &[s0 @ 0xD8..=0xDB, s1, 0xD9, m @ 0x93..=0x95] = seg.as_bytes() else {
        return None;
    };
    let starter = (((s0 & 0x1F) as u32) << 6) | (s1 & 0x3F) as u32;
    Some(match (starter, m) {
        (0x0627, 0x93) => '\u{0622}',
        (0x0627, 0x94) => '\u{0623}',
        (0x0627, 0x95) => '\u{0625}',
        (0x0648, 0x94) => '\u{0624}',
        (0x064A, 0x94) => '\u{0626}',
        (0x06C1, 0x94) => '\u{06C2}',
        (0x06D2, 0x94) => '\u{06D3}',
        (0x06D5, 0x94) => '\u{06C0}',
        _ => return None,
    })
}

/// Whether NFC changes a segment (that may need it).
fn needs_nfc(seg: &str) -> bool {
    is_nfc_quick(seg.chars()) != IsNormalized::Yes && !seg.chars().nfc().eq(seg.chars())
}

/// Deleted invisible / format characters outside the Arabic block.
#[inline]
fn is_invisible(u: u32) -> bool {
    matches!(u,
        0x00AD | 0x034F | 0x070F | 0x0890 | 0x0891 | 0x180E
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F
        | 0xFE00..=0xFE0F | 0xFEFF | 0xFFF9..=0xFFFB
        | 0xE0000..=0xE007F | 0xE0100..=0xE01EF)
}

/// Characters that go through NFKC (presentation forms and half/full-width forms).
#[inline]
fn is_compat_block(u: u32) -> bool {
    matches!(u, 0xFB00..=0xFDFF | 0xFE10..=0xFE1F | 0xFE30..=0xFEFE | 0xFF00..=0xFFEF | 0x1EE00..=0x1EEFF)
}

/// Longest NFKC expansion of one character in the compatibility blocks (U+FDFA: 18).
const NFKC_MAX: usize = 24;

/// NFKC of a single character into `buf` (no allocation): compatibility decomposition, then
/// canonical composition (UAX #15). Returns the length. Equal to `once(c).nfkc()` for the
/// characters it is used on (checked by a unit test over all of them).
fn nfkc_char(c: char, buf: &mut [char; NFKC_MAX]) -> usize {
    let mut n = 0;
    unicode_normalization::char::decompose_compatible(c, |d| {
        if n < NFKC_MAX {
            buf[n] = d;
            n += 1;
        }
    });
    // Canonical ordering (stable insertion sort of each run of non-starters).
    for i in 1..n {
        let cc = canonical_combining_class(buf[i]);
        if cc == 0 {
            continue;
        }
        let mut j = i;
        while j > 0 {
            let pc = canonical_combining_class(buf[j - 1]);
            if pc > cc {
                buf.swap(j - 1, j);
                j -= 1;
            } else {
                break;
            }
        }
    }
    // Canonical composition.
    let mut w = 0; // write index
    let mut starter: Option<usize> = None;
    let mut last_cc: Option<u8> = None; // ccc of the last char written after the starter
    for r in 0..n {
        let d = buf[r];
        let cc = canonical_combining_class(d);
        if let Some(sp) = starter {
            let unblocked = match last_cc {
                None => true,
                Some(l) => l != 0 && l < cc,
            };
            if unblocked && let Some(x) = unicode_normalization::char::compose(buf[sp], d) {
                buf[sp] = x;
                continue;
            }
        }
        buf[w] = d;
        if cc == 0 {
            starter = Some(w);
            last_cc = None;
        } else {
            last_cc = Some(cc);
        }
        w += 1;
    }
    w
}

/// Phrase ligatures: expanded and set off by spaces.
fn phrase_ligature(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{FDFA}' => "صلى الله عليه وسلم",
        '\u{FDFB}' => "جل جلاله",
        '\u{FDFD}' => "بسم الله الرحمن الرحيم",
        '\u{FDFE}' => "سبحانه وتعالى",
        '\u{FDFF}' => "عز وجل",
        _ => return None,
    })
}

/// Arabic-block marks that never take part in a canonical composition and are always
/// deleted: NFC can only reorder them, which cannot change the output.
#[inline]
fn is_harmless_arabic_mark(u: u32) -> bool {
    (0x0600..0x0700).contains(&u)
        && !(0x0653..=0x0655).contains(&u)
        && canonical_class_arabic(u) != 0
}

/// Canonical combining class != 0 within the Arabic block (hard-coded from UCD; checked
/// against `unicode_normalization` by a unit test).
#[inline]
fn canonical_class_arabic(u: u32) -> u8 {
    match u {
        0x0610..=0x061A
        | 0x064B..=0x065F
        | 0x0670
        | 0x06D6..=0x06DC
        | 0x06DF..=0x06E4
        | 0x06E7
        | 0x06E8
        | 0x06EA..=0x06ED => 1,
        _ => 0,
    }
}

/// NFC boundary: a character before which canonical composition never looks back.
#[inline]
fn is_nfc_boundary(c: char) -> bool {
    let u = c as u32;
    if u < 0x80 {
        return true;
    }
    if (0x0600..0x0700).contains(&u) {
        return canonical_class_arabic(u) == 0;
    }
    canonical_combining_class(c) == 0 && is_nfc_quick(std::iter::once(c)) == IsNormalized::Yes
}

/// True when NFC cannot change the output: every character is an NFC boundary or a harmless
/// Arabic mark, except U+0653–U+0655 after a starter they cannot compose with (NFC would
/// only reorder deleted marks there). Tests only: the exact check that `may_need_nfc` must
/// never contradict. (`run` used to try it on every block `may_need_nfc` flags; on
/// diacritized text it cost more than the word-by-word path it could save.)
#[cfg(test)]
fn nfc_irrelevant(text: &str) -> bool {
    // Fast byte loop: ASCII and the Arabic block (lead bytes 0xD8–0xDB, two bytes) are
    // checked without general decoding. U+0653–U+0655 are D9 93..D9 95.
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let x = b[i];
        if x < 0x80 {
            i += 1;
        } else if (0xD8..=0xDB).contains(&x) {
            if x == 0xD9 && matches!(b.get(i + 1), Some(0x93..=0x95)) {
                let m = 0x0640 | (b[i + 1] as u32 & 0x3F);
                if composes_with_hamza_mark(arabic_starter_before(b, i), m) {
                    return false;
                }
            }
            i += 2;
        } else {
            // Decode one char starting at i (i is a char boundary).
            let len = utf8_len(x);
            let c = match text.get(i..i + len).and_then(|s| s.chars().next()) {
                Some(c) => c,
                None => return false,
            };
            if !is_nfc_boundary(c) {
                return false;
            }
            i += len;
        }
    }
    true
}

/// The Arabic starter that the mark at byte `i` belongs to (skipping back over Arabic marks),
/// or 0 if the segment starts with something else. A lead byte 0xD8–0xDB is never a
/// continuation byte, so reading backwards two bytes at a time is unambiguous.
#[cfg(test)]
fn arabic_starter_before(b: &[u8], mut i: usize) -> u32 {
    while i >= 2 && (0xD8..=0xDB).contains(&b[i - 2]) {
        let u = ((b[i - 2] as u32 & 0x1F) << 6) | (b[i - 1] as u32 & 0x3F);
        if canonical_class_arabic(u) == 0 {
            return u;
        }
        i -= 2;
    }
    0
}

/// Whether Arabic starter `s` has a canonical composition with mark `m` (U+0653–U+0655):
/// آ أ إ ؤ ئ ۀ ۂ ۓ. (Checked against the UCD by a unit test.)
#[cfg(test)]
#[inline]
fn composes_with_hamza_mark(s: u32, m: u32) -> bool {
    match m {
        0x0653 | 0x0655 => s == 0x0627,
        _ => matches!(s, 0x0627 | 0x0648 | 0x064A | 0x06C1 | 0x06D2 | 0x06D5),
    }
}

#[cfg(test)]
#[inline]
fn utf8_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

trait Observer {
    const ACTIVE: bool;
    fn change(&mut self, offset: usize, ch: char, rule: Rule, replacement: &str);
}

struct NoObs;
impl Observer for NoObs {
    const ACTIVE: bool = false;
    #[inline(always)]
    fn change(&mut self, _: usize, _: char, _: Rule, _: &str) {}
}

struct Recorder(Vec<Change>);
impl Observer for Recorder {
    const ACTIVE: bool = true;
    fn change(&mut self, offset: usize, ch: char, rule: Rule, replacement: &str) {
        self.0.push(Change {
            offset,
            ch,
            rule: rule.name(),
            replacement: replacement.to_string(),
        });
    }
}

#[derive(Clone, Copy)]
struct Pending {
    off: usize,
    /// The input character.
    orig: char,
    /// For a separator: the separator character after NFKC (`.`, `٫`, `٬`).
    ch: char,
    /// For a space: produced by another rule (punctuation, …) rather than input whitespace.
    produced: bool,
}

/// A letter the variant pass wrote at byte `at` of its output (ا or ي, two bytes): inserted,
/// or (`was_waw`) in place of the و before it.
#[derive(Clone, Copy, Debug)]
struct VariantEdit {
    at: usize,
    was_waw: bool,
}

struct Engine<'a, O: Observer> {
    rules: &'a Rules,
    /// The Arabic-block fast classes under `rules`' folds.
    fast: &'static ArabicFast,
    out: &'a mut String,
    obs: O,
    /// A space is due before the next emitted character (collapses runs, trims the end).
    space: Option<Pending>,
    /// A decimal/thousands separator after a digit, waiting to see if a digit follows.
    sep: Option<Pending>,
    last_digit: bool,
    /// Variant mode (dagger alef → ا etc.).
    variant: bool,
    variant_hit: bool,
    /// Where the variant pass wrote a variant letter (variant mode only).
    edits: Vec<VariantEdit>,
    /// Tests: `feed_plain` feeds one character at a time and `run_words` segments the whole
    /// block (the reference for runs and words).
    #[cfg(test)]
    per_char: bool,
    base: Base,
    /// Something outside ASCII/Arabic was emitted: the output may need recomposition.
    exotic: bool,
}

impl<'a, O: Observer> Engine<'a, O> {
    fn new(rules: &'a Rules, out: &'a mut String, variant: bool, obs: O) -> Self {
        Engine {
            rules,
            fast: &ARABIC_FAST[fold_bits(rules)],
            out,
            obs,
            space: None,
            sep: None,
            last_digit: false,
            variant,
            variant_hit: false,
            edits: Vec::new(),
            #[cfg(test)]
            per_char: false,
            base: Base::None,
            exotic: false,
        }
    }

    fn run(&mut self, text: &str) {
        // Blocks of about BLOCK bytes, each ending just before an ASCII byte (an ASCII character
        // is an NFC boundary, so NFC never looks across the cut). A block with no byte that may
        // take part in a composition takes the fast path whole.
        const BLOCK: usize = 8 * 1024;
        let bytes = text.as_bytes();
        let mut start = 0;
        while start < text.len() {
            let mut end = (start + BLOCK).min(text.len());
            while end < text.len() && bytes[end] >= 0x80 {
                end += 1;
            }
            let block = &text[start..end];
            // A block with a byte `may_need_nfc` looks closer at goes word by word: only the
            // words with such a byte are segmented.
            if !may_need_nfc(block.as_bytes()) {
                self.feed_plain(block, start);
            } else {
                self.run_words(block, start);
            }
            start = end;
        }
        self.finish();
    }

    /// A block that NFC may change, word by word: a word (a run of non-ASCII characters with
    /// the ASCII character before it, an NFC boundary on both sides) goes through
    /// `run_segmented` only if it has a character that can take part in a composition
    /// (`may_need_nfc`); the rest, whose segments `run_segmented` would feed as they are, is fed
    /// in one piece.
    fn run_words(&mut self, block: &str, base_off: usize) {
        #[cfg(test)]
        if self.per_char {
            return self.run_segmented(block, base_off);
        }
        let b = block.as_bytes();
        let mut plain = 0; // block[plain..] is not fed yet
        // Only the words with a byte `may_need_nfc` looks closer at: found by a block scan.
        while let Some(p) = next_suspect(b, plain) {
            let mut start = p;
            while start > 0 && b[start - 1] >= 0x80 {
                start -= 1;
            }
            let mut end = p;
            while end < b.len() && b[end] >= 0x80 {
                end += 1;
            }
            let word = start.saturating_sub(1).max(plain); // the ASCII character before, if any
            self.feed_plain(&block[plain..word], base_off + plain);
            self.run_segmented(&block[word..end], base_off + word);
            plain = end;
        }
        self.feed_plain(&block[plain..], base_off + plain);
    }

    /// NFC per segment (a segment starts at an NFC boundary). Consecutive segments that NFC
    /// leaves as they are go to `feed_plain` in one piece.
    fn run_segmented(&mut self, text: &str, base_off: usize) {
        let mut plain = 0; // text[plain..start] needs no NFC and is not fed yet
        let mut start = 0;
        let mut complex = false;
        for (i, c) in text.char_indices() {
            let boundary = is_nfc_boundary(c);
            if i > 0 && boundary {
                if complex
                    && (composed_pair(&text[start..i]).is_some() || needs_nfc(&text[start..i]))
                {
                    self.feed_plain(&text[plain..start], base_off + plain);
                    self.compose(&text[start..i], base_off + start);
                    plain = i;
                }
                start = i;
                complex = false;
            } else if !boundary && !is_harmless_arabic_mark(c as u32) {
                complex = true;
            }
        }
        if start < text.len()
            && complex
            && (composed_pair(&text[start..]).is_some() || needs_nfc(&text[start..]))
        {
            self.feed_plain(&text[plain..start], base_off + plain);
            self.compose(&text[start..], base_off + start);
            plain = text.len();
        }
        self.feed_plain(&text[plain..], base_off + plain);
    }

    /// A segment that NFC changes: its composed characters, reported at its first character.
    fn compose(&mut self, seg: &str, base_off: usize) {
        let first = seg.chars().next().unwrap_or(' ');
        if !O::ACTIVE
            && let Some(c) = composed_pair(seg)
        {
            return self.feed_as(c, base_off, first);
        }
        if O::ACTIVE {
            let composed: String = seg.chars().nfc().collect();
            self.obs.change(base_off, first, Rule::Nfc, &composed);
        }
        for c in seg.chars().nfc() {
            self.feed_as(c, base_off, first);
        }
    }

    /// The characters of text that needs no NFC; the same as `feed` on each of them, faster.
    /// Runs of characters kept as they are (ASCII lowercase letters and digits, kept Arabic
    /// letters, single spaces between them) are copied in one piece; characters deleted without
    /// a trace (harakat, Quranic marks, tatweel) are skipped and single-letter folds pushed
    /// (both only when no observer records changes), within runs by `copy_run`; every other
    /// character goes through `feed`.
    fn feed_plain(&mut self, text: &str, base_off: usize) {
        #[cfg(test)]
        if self.per_char {
            for (j, c) in text.char_indices() {
                self.feed(c, base_off + j);
            }
            return;
        }
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let (class, w) = fast_class(self.fast, b, i);
            match class {
                Fast::Keep(_, digit) => {
                    // What `emit` does before pushing the run's first character.
                    if self.sep.is_some() {
                        self.resolve_sep(digit);
                    }
                    if self.space.is_some() {
                        self.flush_space();
                    }
                    i = self.copy_run(text, i);
                }
                Fast::Fold(t, base) if !O::ACTIVE => {
                    self.emit(t, base, false);
                    i = self.copy_run(text, i + w);
                }
                Fast::Drop if !O::ACTIVE => i += w,
                _ => {
                    let Some(c) = text[i..].chars().next() else {
                        break;
                    };
                    self.feed(c, base_off + i);
                    i += c.len_utf8();
                }
            }
        }
    }

    /// From `i`, a kept character (the space and separator `emit` would settle before it are
    /// settled): runs of kept characters copied whole, and between them (when no observer
    /// records changes) characters deleted without a trace (harakat, Quranic marks, tatweel:
    /// skipped) and single-letter folds (pushed), as `feed` on each would do. Diacritized text,
    /// a letter between two marks, and prose, whose words begin with أ and end in ة, stay in
    /// this loop. Returns where the characters it takes end.
    #[inline(always)]
    fn copy_run(&mut self, text: &str, mut i: usize) -> usize {
        let b = text.as_bytes();
        let t = self.fast;
        loop {
            let from = i;
            i = keep_run_end(t, b, i);
            if let [x @ 0xC2..=0xDF, y] = b[from..i] {
                // One letter (diacritized text: a letter between two marks): pushed as a char,
                // not by a copy call for two bytes.
                self.out.push(two_byte_char(x, y));
                (self.base, self.last_digit) = last_kept(t, b, i);
            } else if i > from {
                self.out.push_str(&text[from..i]);
                // The state `emit` leaves after the run's last character.
                (self.base, self.last_digit) = last_kept(t, b, i);
            }
            if O::ACTIVE {
                return i;
            }
            match fast_class(t, b, i) {
                (Fast::Drop, w) => i += w,
                (Fast::Fold(c, base), w) => {
                    self.out.push(c);
                    (self.base, self.last_digit) = (base, false);
                    i += w;
                }
                _ => return i,
            }
        }
    }

    #[inline(always)]
    fn feed(&mut self, c: char, off: usize) {
        self.feed_as(c, off, c)
    }

    /// Process one NFC character; `orig` is the input character reported by `explain`.
    #[inline(always)]
    fn feed_as(&mut self, c: char, off: usize, orig: char) {
        let u = c as u32;
        if u < 0x80 {
            self.ascii(c, off, orig);
        } else if (0x0600..0x0700).contains(&u) {
            self.arabic(c, off, orig);
        } else {
            self.other(c, off, orig);
        }
    }

    /// After NFKC / ligature expansion: like `feed_as` but no presentation-form step.
    fn stage_b(&mut self, c: char, off: usize, orig: char) {
        let u = c as u32;
        if u < 0x80 {
            self.ascii(c, off, orig);
        } else if (0x0600..0x0700).contains(&u) {
            self.arabic(c, off, orig);
        } else {
            self.generic(c, off, orig);
        }
    }

    #[inline]
    fn record(&mut self, off: usize, orig: char, rule: Rule, repl: char) {
        if O::ACTIVE {
            let mut buf = [0u8; 4];
            self.obs.change(off, orig, rule, repl.encode_utf8(&mut buf));
        }
    }

    #[inline]
    fn record_str(&mut self, off: usize, orig: char, rule: Rule, repl: &str) {
        if O::ACTIVE {
            self.obs.change(off, orig, rule, repl);
        }
    }

    /// Emit a kept character.
    #[inline(always)]
    fn emit(&mut self, c: char, base: Base, digit: bool) {
        if self.sep.is_some() {
            self.resolve_sep(digit);
        }
        if self.space.is_some() {
            self.flush_space();
        }
        self.out.push(c);
        self.last_digit = digit;
        self.base = base;
    }

    #[inline]
    fn flush_space(&mut self) {
        if let Some(p) = self.space.take() {
            self.out.push(' ');
            if O::ACTIVE && !p.produced && p.orig != ' ' {
                self.record(p.off, p.orig, Rule::Whitespace, ' ');
            }
        }
    }

    /// A space-producing event: input whitespace (`produced` = false) or a space produced by
    /// another rule (which has recorded its own change).
    fn space_event(&mut self, off: usize, orig: char, produced: bool) {
        if self.sep.is_some() {
            self.resolve_sep(false);
        }
        self.last_digit = false;
        self.base = Base::None;
        if self.out.is_empty() || self.space.is_some() {
            // leading space, or a run of spaces: dropped
            if O::ACTIVE {
                self.record_str(off, orig, Rule::Whitespace, "");
            }
        } else {
            self.space = Some(Pending {
                off,
                orig,
                ch: ' ',
                produced,
            });
        }
    }

    /// `rule` turns the character into a space.
    fn rule_space(&mut self, off: usize, orig: char, rule: Rule) {
        self.record(off, orig, rule, ' ');
        self.space_event(off, orig, true);
    }

    /// A separator (`.`, ٫, ٬) directly after a digit: decide when the next character is known.
    #[cold]
    fn resolve_sep(&mut self, next_is_digit: bool) {
        let Some(p) = self.sep.take() else { return };
        if next_is_digit {
            match p.ch {
                '.' => {
                    self.out.push('.');
                }
                '\u{066B}' => {
                    self.out.push('.');
                    self.record(p.off, p.orig, Rule::Digits, '.');
                }
                _ => {
                    self.record_str(p.off, p.orig, Rule::Digits, "");
                }
            }
            // the digit that follows is emitted by the caller
        } else if self.rules.punctuation {
            self.rule_space(p.off, p.orig, Rule::Punctuation);
        } else {
            // punctuation kept: the separator stays as it is
            self.out.push(p.ch);
            self.last_digit = false;
            self.base = Base::None;
        }
    }

    fn punct(&mut self, c: char, off: usize, orig: char) {
        if self.rules.punctuation {
            self.rule_space(off, orig, Rule::Punctuation);
        } else {
            self.emit(c, Base::None, false);
            if !c.is_ascii() && !(0x0600..0x0700).contains(&(c as u32)) {
                self.exotic = true;
            }
        }
    }

    #[inline(always)]
    fn can_start_sep(&self) -> bool {
        self.last_digit && self.space.is_none() && self.sep.is_none()
    }

    #[inline(always)]
    fn ascii(&mut self, c: char, off: usize, orig: char) {
        match ASCII[c as usize] {
            A_LOWER => self.emit(c, Base::None, false),
            A_DIGIT => self.emit(c, Base::None, true),
            A_UPPER => {
                if self.rules.lowercase_latin {
                    let l = c.to_ascii_lowercase();
                    self.record(off, orig, Rule::LowercaseLatin, l);
                    self.emit(l, Base::None, false)
                } else {
                    self.emit(c, Base::None, false)
                }
            }
            A_SPACE => self.space_event(off, orig, false),
            A_DOT => {
                if self.rules.punctuation && self.can_start_sep() {
                    self.sep = Some(Pending {
                        off,
                        orig,
                        ch: '.',
                        produced: false,
                    });
                } else {
                    self.punct(c, off, orig)
                }
            }
            _ => self.punct(c, off, orig),
        }
    }

    #[inline(always)]
    fn arabic(&mut self, c: char, off: usize, orig: char) {
        match ARABIC[(c as u32 - 0x0600) as usize] {
            Act::Keep(base) => self.emit(c, base, false),
            Act::Lossy(fold, base) => {
                let (t, rule) = self.fold(fold, c);
                if t != c {
                    self.record(off, orig, rule, t);
                }
                self.emit(t, base, false)
            }
            Act::Delete(rule) => self.record_str(off, orig, rule, ""),
            Act::Space(rule) => self.rule_space(off, orig, rule),
            Act::Map(t, rule, base) => {
                self.record(off, orig, rule, t);
                let t2 = match t {
                    '\u{0629}' => self.fold(Fold::TehMarbuta, t),
                    '\u{0626}' => self.fold(Fold::HamzaCarrier, t),
                    _ => (t, rule),
                };
                if t2.0 != t {
                    self.record(off, orig, t2.1, t2.0);
                }
                self.emit(t2.0, base, false)
            }
            Act::Digit(d) => {
                if self.rules.digits {
                    let a = (b'0' + d) as char;
                    self.record(off, orig, Rule::Digits, a);
                    self.emit(a, Base::None, true)
                } else {
                    self.emit(c, Base::None, true)
                }
            }
            Act::DecimalSep | Act::ThousandsSep => {
                if self.rules.digits && self.can_start_sep() {
                    self.sep = Some(Pending {
                        off,
                        orig,
                        ch: c,
                        produced: false,
                    });
                } else {
                    self.punct(c, off, orig)
                }
            }
            Act::Punct => self.punct(c, off, orig),
            Act::Dagger => self.dagger(off, orig),
            Act::SmallHighYeh => {
                if self.variant && self.base != Base::None {
                    self.variant_hit = true;
                    self.emit('\u{064A}', Base::Consonant, false);
                    self.edits.push(VariantEdit {
                        at: self.out.len() - 2,
                        was_waw: false,
                    });
                } else {
                    self.record_str(off, orig, Rule::QuranicMarks, "")
                }
            }
        }
    }

    fn dagger(&mut self, off: usize, orig: char) {
        if self.variant {
            match self.base {
                Base::Consonant => {
                    self.variant_hit = true;
                    self.emit('\u{0627}', Base::Alef, false);
                    self.edits.push(VariantEdit {
                        at: self.out.len() - 2,
                        was_waw: false,
                    });
                    return;
                }
                // base == Waw means the last emitted character is this و
                Base::Waw if self.out.ends_with('\u{0648}') => {
                    self.out.pop();
                    self.out.push('\u{0627}');
                    self.edits.push(VariantEdit {
                        at: self.out.len() - 2,
                        was_waw: true,
                    });
                    self.base = Base::Alef;
                    self.variant_hit = true;
                    return;
                }
                _ => {}
            }
        }
        self.record_str(off, orig, Rule::DaggerAlef, "");
    }

    #[inline]
    fn fold(&self, fold: Fold, c: char) -> (char, Rule) {
        let r = self.rules;
        match fold {
            Fold::AlefHamza if r.fold_alef_hamza => ('\u{0627}', Rule::FoldAlefHamza),
            Fold::AlefMaksura if r.fold_alef_maksura => ('\u{064A}', Rule::FoldAlefMaksura),
            Fold::TehMarbuta if r.fold_teh_marbuta => ('\u{0647}', Rule::FoldTehMarbuta),
            Fold::HamzaCarrier if r.fold_hamza_carriers => (
                if c == '\u{0624}' {
                    '\u{0648}'
                } else {
                    '\u{064A}'
                },
                Rule::FoldHamzaCarriers,
            ),
            _ => (c, Rule::Nfc),
        }
    }

    /// Characters outside ASCII and the Arabic block, before NFKC.
    fn other(&mut self, c: char, off: usize, orig: char) {
        let u = c as u32;
        if (0xFE70..=0xFE7F).contains(&u) || (0xFC5E..=0xFC63).contains(&u) {
            self.record_str(off, orig, Rule::PresentationForms, "");
            return;
        }
        if u == 0xFEFF {
            self.record_str(off, orig, Rule::Invisible, "");
            return;
        }
        if let Some(phrase) = phrase_ligature(c) {
            self.record_str(off, orig, Rule::PresentationForms, phrase);
            self.space_event(off, orig, true);
            for d in phrase.chars() {
                self.stage_b(d, off, orig);
            }
            self.space_event(off, orig, true);
            return;
        }
        if is_compat_block(u) {
            let mut buf = ['\0'; NFKC_MAX];
            let n = nfkc_char(c, &mut buf);
            if !(n == 1 && buf[0] == c) {
                if O::ACTIVE {
                    let s: String = buf[..n].iter().collect();
                    self.obs.change(off, orig, Rule::PresentationForms, &s);
                }
                for &d in &buf[..n] {
                    self.stage_b(d, off, orig);
                }
                return;
            }
        }
        self.generic(c, off, orig)
    }

    /// Characters outside ASCII and the Arabic block, after NFKC.
    fn generic(&mut self, c: char, off: usize, orig: char) {
        let u = c as u32;
        if is_invisible(u) {
            self.record_str(off, orig, Rule::Invisible, "");
            return;
        }
        if (0x0870..=0x08FF).contains(&u) {
            if u == 0x08E2 {
                self.rule_space(off, orig, Rule::QuranicSymbols);
                return;
            }
            if (0x0897..=0x089F).contains(&u) || u >= 0x08CA {
                self.record_str(off, orig, Rule::QuranicMarks, "");
                return;
            }
        }
        if (0x10EFC..=0x10EFF).contains(&u) {
            self.record_str(off, orig, Rule::QuranicMarks, "");
            return;
        }
        if c.is_whitespace() || c.is_control() {
            self.space_event(off, orig, false);
            return;
        }
        if is_combining_mark(c) {
            // kept (Latin accents, Hebrew points, Indic vowel signs, …); transparent for `base`
            let base = self.base;
            self.emit(c, base, false);
            self.exotic = true;
            return;
        }
        if c.is_alphanumeric() {
            let base = if (0x0750..=0x077F).contains(&u) || (0x0870..=0x08C9).contains(&u) {
                Base::Consonant
            } else {
                Base::None
            };
            self.exotic = true;
            if self.rules.lowercase_latin && has_lowercase(c) {
                let lower = c.to_lowercase();
                if O::ACTIVE {
                    let s: String = c.to_lowercase().collect();
                    self.obs.change(off, orig, Rule::LowercaseLatin, &s);
                }
                for l in lower {
                    self.emit(l, base, false);
                }
            } else {
                self.emit(c, base, false);
            }
            return;
        }
        self.punct(c, off, orig)
    }

    fn finish(&mut self) {
        if self.sep.is_some() {
            self.resolve_sep(false);
        }
        if let Some(p) = self.space.take() {
            // trailing space: trimmed
            self.record_str(p.off, p.orig, Rule::Whitespace, "");
        }
        if self.exotic && is_nfc_quick(self.out.chars()) != IsNormalized::Yes {
            let composed: String = self.out.chars().nfc().collect();
            if composed != *self.out {
                self.out.clear();
                self.out.push_str(&composed);
            }
        }
    }
}

/// Titlecase letters (ǅ …) are not `is_uppercase` but still have a lowercase mapping.
#[inline]
fn has_lowercase(c: char) -> bool {
    let mut l = c.to_lowercase();
    !(l.len() == 1 && l.next() == Some(c))
}
