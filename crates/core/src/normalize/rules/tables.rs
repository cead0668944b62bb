//! The rules and their lookup tables: what each Arabic-block and ASCII character does, built at
//! compile time for every combination of the lossy folds, and the byte-level scans over them.

use super::{ALL_RULE_NAMES, Rules};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rule {
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
    pub(super) fn name(self) -> &'static str {
        ALL_RULE_NAMES[self as usize]
    }
}

/// What the letter before a dagger alef was (for `variants`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Base {
    /// Start of a word, or not an Arabic letter.
    None,
    Consonant,
    /// ا أ إ آ ٱ ى: a following dagger alef is just deleted.
    Alef,
    /// و: a following dagger alef replaces it by ا.
    Waw,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fold {
    AlefHamza,
    AlefMaksura,
    TehMarbuta,
    HamzaCarrier,
}

/// Action for a character of the Arabic block U+0600–U+06FF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Act {
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

pub(super) static ARABIC: [Act; 256] = {
    let mut t = [Act::Punct; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = arabic_act(0x0600 + i as u32);
        i += 1;
    }
    t
};

/// ASCII classes.
pub(super) const A_LOWER: u8 = 0; // a-z (kept)
pub(super) const A_DIGIT: u8 = 1;
pub(super) const A_UPPER: u8 = 2;
pub(super) const A_SPACE: u8 = 3; // whitespace and other control characters
pub(super) const A_DOT: u8 = 4;
const A_PUNCT: u8 = 5;

pub(super) static ASCII: [u8; 128] = {
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

/// The class of a character for `Pass::feed_plain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fast {
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

pub(super) fn fold_bits(r: &Rules) -> usize {
    let bit = |on: bool, bit: usize| if on { bit } else { 0 };
    bit(r.fold_alef_hamza, FOLD_ALEF_HAMZA)
        | bit(r.fold_alef_maksura, FOLD_ALEF_MAKSURA)
        | bit(r.fold_teh_marbuta, FOLD_TEH_MARBUTA)
        | bit(r.fold_hamza_carriers, FOLD_HAMZA_CARRIERS)
}

/// `Pass::fold` at compile time: what `c` becomes under the folds `bits`.
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

/// The fast class of U+0600 + `i` under the folds `bits` (what `Pass::arabic` does with it,
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
pub(super) static ARABIC_FAST: [[Fast; 256]; 16] = {
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

/// The Arabic-block fast classes of one pass's rules.
pub(super) type ArabicFast = [Fast; 256];

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
pub(super) fn fast_class(t: &ArabicFast, b: &[u8], i: usize) -> (Fast, usize) {
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
pub(super) fn keep_run_end(t: &ArabicFast, b: &[u8], mut i: usize) -> usize {
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
pub(super) fn two_byte_char(x: u8, y: u8) -> char {
    char::from_u32((((x & 0x1F) as u32) << 6) | (y & 0x3F) as u32)
        .unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// (base, is a digit) of the kept character that ends at byte `end` (a run is never empty and
/// never ends with a space).
#[inline(always)]
pub(super) fn last_kept(t: &ArabicFast, b: &[u8], end: usize) -> (Base, bool) {
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
