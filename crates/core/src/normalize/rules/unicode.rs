//! Unicode helpers: when a text may need NFC, per-character NFKC of the presentation-form
//! blocks, phrase ligatures, invisible characters and canonical combining classes.

use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

/// A cheap, vectorizable test that `nfc_irrelevant` would pass: false when every byte is
/// ASCII, an Arabic-block lead byte (0xD8–0xDB) or a continuation byte other than 0x93–0x95
/// (U+0653–U+0655 are D9 93–95; every other character outside ASCII and the Arabic block
/// has another lead byte). True means "look closer".
pub(super) fn may_need_nfc(b: &[u8]) -> bool {
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
pub(super) fn next_suspect(b: &[u8], from: usize) -> Option<usize> {
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
pub(super) fn composed_pair(seg: &str) -> Option<char> {
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
pub(super) fn needs_nfc(seg: &str) -> bool {
    is_nfc_quick(seg.chars()) != IsNormalized::Yes && !seg.chars().nfc().eq(seg.chars())
}

/// Deleted invisible / format characters outside the Arabic block.
#[inline]
pub(super) fn is_invisible(u: u32) -> bool {
    matches!(u,
        0x00AD | 0x034F | 0x070F | 0x0890 | 0x0891 | 0x180E
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F
        | 0xFE00..=0xFE0F | 0xFEFF | 0xFFF9..=0xFFFB
        | 0xE0000..=0xE007F | 0xE0100..=0xE01EF)
}

/// Characters that go through NFKC (presentation forms and half/full-width forms).
#[inline]
pub(super) fn is_compat_block(u: u32) -> bool {
    matches!(u, 0xFB00..=0xFDFF | 0xFE10..=0xFE1F | 0xFE30..=0xFEFE | 0xFF00..=0xFFEF | 0x1EE00..=0x1EEFF)
}

/// Longest NFKC expansion of one character in the compatibility blocks (U+FDFA: 18).
pub(super) const NFKC_MAX: usize = 24;

/// NFKC of a single character into `buf` (no allocation): compatibility decomposition, then
/// canonical composition (UAX #15). Returns the length. Equal to `once(c).nfkc()` for the
/// characters it is used on (checked by a unit test over all of them).
pub(super) fn nfkc_char(c: char, buf: &mut [char; NFKC_MAX]) -> usize {
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
pub(super) fn phrase_ligature(c: char) -> Option<&'static str> {
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
pub(super) fn is_harmless_arabic_mark(u: u32) -> bool {
    (0x0600..0x0700).contains(&u)
        && !(0x0653..=0x0655).contains(&u)
        && canonical_class_arabic(u) != 0
}

/// Canonical combining class != 0 within the Arabic block (hard-coded from UCD; checked
/// against `unicode_normalization` by a unit test).
#[inline]
pub(super) fn canonical_class_arabic(u: u32) -> u8 {
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
pub(super) fn is_nfc_boundary(c: char) -> bool {
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
/// never contradict. Not used by `run`: on diacritized text, trying it on every block
/// `may_need_nfc` flags costs more than the word-by-word path it could save.
#[cfg(test)]
pub(super) fn nfc_irrelevant(text: &str) -> bool {
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
pub(super) fn composes_with_hamza_mark(s: u32, m: u32) -> bool {
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
