//! Readable IDs for file names that are not IDs as they are (`[[library]] slugs =
//! "transliterate"`): each character spelled in ASCII, a hash of the whole name always added, so
//! the ID stays a pure function of the source's identity and two names never share one.

use unicode_normalization::UnicodeNormalization;

/// What a transliterated slug ends with: the marker and 8 hex digits of the NFC slug's blake3.
/// `t` is not a hex digit, so it never reads as a byte escape (`~XX`) or a shortened slug's
/// `~h`.
pub(crate) const TRANSLIT_MARK: &str = "~t";
const TRANSLIT_HEX: usize = 8;

/// A character's ASCII spelling: an ASCII character itself, an Arabic-script one as
/// [`arabic_spelling`] gives it, any other letter as `deunicode` spells it (`é` → `e`, `Ж` →
/// `Zh`, `北` → `Bei `), a space for the rest.
fn ascii_spelling(c: char) -> String {
    if c.is_ascii() {
        return c.to_string();
    }
    if let Some(s) = arabic_spelling(c) {
        return s.to_string();
    }
    match deunicode::deunicode_char(c) {
        Some(s) if s.bytes().any(|b| b.is_ascii_alphanumeric()) => s.to_string(),
        _ => " ".to_string(),
    }
}

/// An Arabic-script character's ASCII spelling: an Arabic letter (and the Persian and Urdu ones)
/// by a common Latin transliteration without vowels, an Arabic-Indic digit as its digit, nothing
/// for harakat and tatweel (so a word is not split), a space for the script's other characters;
/// `None` outside the script.
pub(crate) fn arabic_spelling(c: char) -> Option<&'static str> {
    const DIGITS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
    Some(match c {
        'ا' | 'أ' | 'إ' | 'آ' | 'ٱ' | 'ى' | 'ع' => "a",
        'ب' => "b",
        'پ' => "p",
        'ت' | 'ط' => "t",
        'ث' => "th",
        'ج' => "j",
        'چ' => "ch",
        'ح' | 'ه' | 'ة' | 'ۀ' | 'ھ' => "h",
        'خ' => "kh",
        'د' | 'ض' => "d",
        'ذ' => "dh",
        'ر' => "r",
        'ز' | 'ظ' => "z",
        'ژ' => "zh",
        'س' | 'ص' => "s",
        'ش' => "sh",
        'غ' => "gh",
        'ف' => "f",
        'ق' => "q",
        'ك' | 'ک' => "k",
        'گ' => "g",
        'ل' => "l",
        'م' => "m",
        'ن' => "n",
        'و' | 'ؤ' => "w",
        'ي' | 'ئ' | 'ی' | 'ې' => "y",
        'ء' => "",
        '\u{0660}'..='\u{0669}' => DIGITS[(c as u32 - 0x0660) as usize],
        '\u{06F0}'..='\u{06F9}' => DIGITS[(c as u32 - 0x06F0) as usize],
        // Harakat, Quranic marks, superscript alef, tatweel: part of the word, not a letter.
        '\u{064B}'..='\u{065F}' | '\u{0670}' | '\u{0640}' | '\u{06D6}'..='\u{06ED}' => "",
        '\u{0600}'..='\u{06FF}' | '\u{0750}'..='\u{077F}' | '\u{08A0}'..='\u{08FF}' => " ",
        _ => return None,
    })
}

/// One path segment spelled in ASCII: ASCII letters, digits, `-`, `_` and `.` kept (case too);
/// every other run one `-`; no `-` at either end; `_` when nothing is left or the segment would
/// read as `.` or `..`.
fn segment(seg: &str) -> String {
    let mut out = String::with_capacity(seg.len());
    for c in seg.chars() {
        let spelled = ascii_spelling(c);
        if spelled.is_empty() {
            continue;
        }
        // A spelling may end in a space (`北` → `Bei `): words of other scripts stay apart.
        for b in spelled.chars() {
            if b.is_ascii_alphanumeric() || matches!(b, '-' | '_' | '.') {
                out.push(b);
            } else if !out.is_empty() && !out.ends_with('-') {
                out.push('-');
            }
        }
    }
    let out = out.trim_matches('-');
    if out.is_empty() || out.chars().all(|c| c == '.') {
        "_".to_string()
    } else {
        out.to_string()
    }
}

/// `slug` spelled in ASCII segment by segment, cut to leave room for the mark, plus the mark and
/// the hash of its NFC form, in at most `room` bytes; `None` when not even the mark fits.
pub(crate) fn transliterate(slug: &str, room: usize) -> Option<String> {
    let nfc: String = slug.nfc().collect();
    let keep = room.checked_sub(TRANSLIT_MARK.len() + TRANSLIT_HEX)?;
    let spelled: Vec<String> = nfc.split('/').map(segment).collect();
    let mut body = spelled.join("/");
    if body.len() > keep {
        // Cut at a segment boundary when that keeps at least half the room, else inside the
        // last segment (ASCII, so any byte offset is a char boundary).
        let window = &body[..keep];
        let cut = match window.rfind('/') {
            Some(p) if p > 0 && 2 * p >= keep => p,
            _ => keep,
        };
        body.truncate(cut);
        while body.ends_with(['-', '/', '.']) {
            body.pop();
        }
    }
    let hash = blake3::hash(nfc.as_bytes()).to_hex();
    Some(format!("{body}{TRANSLIT_MARK}{}", &hash[..TRANSLIT_HEX]))
}

/// Whether an ID's slug was transliterated (rather than taken as it is, escaped or shortened).
pub(crate) fn is_transliterated(id: &str) -> bool {
    id.contains(TRANSLIT_MARK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arabic_names_read_in_ascii_with_a_hash_of_the_name() {
        let id = transliterate("ملاحظات/مسألة الوقت", 60).unwrap();
        let (body, hex) = id.split_once(TRANSLIT_MARK).unwrap();
        assert_eq!(body, "mlahzat/msalh-alwqt");
        assert_eq!(hex.len(), TRANSLIT_HEX);
        assert!(
            hex.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        // Deterministic, and one name in NFD (as macOS may give it) and NFC.
        let nfd: String = "ملاحظات/مسألة الوقت".nfd().collect();
        assert_eq!(transliterate(&nfd, 60).unwrap(), id);
        // Harakat do not split a word.
        assert!(transliterate("مُسْأَلَة", 60).unwrap().starts_with("msalh~t"));
    }

    #[test]
    fn other_scripts_and_spaces() {
        let body = |s: &str| {
            transliterate(s, 60)
                .unwrap()
                .split_once(TRANSLIT_MARK)
                .unwrap()
                .0
                .to_string()
        };
        assert_eq!(body("My Note"), "My-Note");
        assert_eq!(body("Éléonore's page"), "Eleonore-s-page");
        assert_eq!(body("Привет мир"), "Privet-mir");
        assert_eq!(body("北京"), "Bei-Jing");
        assert_eq!(body("a//b"), "a/_/b");
        assert_eq!(body("./.."), "_/_");
        assert_eq!(body("؟؟"), "_");
        assert_eq!(body("2024/٢٠٢٤ خطة"), "2024/2024-khth");
    }

    #[test]
    fn names_that_spell_alike_differ_and_long_ones_are_cut() {
        let a = transliterate("صور", 60).unwrap();
        let b = transliterate("سور", 60).unwrap();
        assert_eq!(a.split_once(TRANSLIT_MARK).unwrap().0, "swr");
        assert_ne!(a, b);
        let long = "مجلد طويل جدا/".repeat(8) + "ملاحظة";
        for room in [20, 30, 45] {
            let id = transliterate(&long, room).unwrap();
            assert!(id.len() <= room, "{id} over {room}");
            let full = transliterate(&long, 60).unwrap();
            assert_eq!(id[id.len() - 10..], full[full.len() - 10..]);
            assert!(!id.contains("/~t") && !id.contains("-~t"), "{id}");
        }
        assert_eq!(transliterate("x", 9), None);
    }
}
