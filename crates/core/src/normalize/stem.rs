//! The stem key of a search token, for the lexical artifact's separate `stem_terms` field: a
//! light stemmer in the spirit of Light10 (Larkey et al.; arabic.md §2.2, §7) plus a few
//! derivational patterns that bring verbs and their verbal nouns together
//! (ولد، اتولد، ميلاد، الميلاد، بميلاد، مولد، المولود، يولد → ولد).
//!
//! It runs on search forms (ة already ه, ى already ي, hamza on alef folded) and is applied the
//! same way to every chunk token at build time and to every question token at query time. Stems
//! merge words (arabic.md §3 rows 32–33), so the key is never written into `search_text`: it lives
//! in its own field with its own, lower weight (`[retrieval] stem_weight`).
//!
//! Patterns, each checked on the word left after the article and suffixes are gone:
//! - `مي_ا_` (مِفعال of a root whose first letter is و, which turns into ي): ميلاد → ولد,
//!   ميعاد → وعد, ميراث → ورث.
//! - `مو__` and `مو_و_` (مَفعِل / مَفعول of such a root): مولد → ولد, مولود → ولد, موعد → وعد.
//! - `يو__` / `تو__` (its imperfect, the last letter not a long vowel): يولد → ولد.
//! - A past verb's ت (ولدت) is left on: reducing it to ولد was measured to pull the questions
//!   about a birth towards every "she bore" text (the nativity case fell out of the top 10).
//! - Egyptian mediopassive `ات___` (optionally + ت or وا), the middle letter not ا, which keeps
//!   the MSA اِفتِعال nouns (اتحاد، اتصال، اتجاه) whole: اتولد → ولد, اتقتلت → قتل. arabic.md §5.2
//!   warns against stripping ات from every word; this pattern only takes five- and six-letter
//!   verb shapes.
//!
//! - Form X `است___` with its verbal noun `است__ا_` and its imperfect and participle
//!   (`يست___`، `تست___`، `مست___`), all keyed `است___`: استخدم، استخدام، يستخدم، مستخدم → استخدم.
//!
//! - Form IV of a hollow root with ي: the imperfect `ي_ي_`، `ت_ي_`، `ن_ي_`، `ا_ي_` keyed as the past
//!   `ا_ا_` (which its verbal noun إضافة → اضاف reaches by light stemming): يضيف، تضيف، أضيف،
//!   أضاف، إضافة → اضاف; يريد، تريد، أريد، إرادة → اراد.
//!
//! A single-letter proclitic (و، ف، ب، ل، ك) comes off only when at least four letters remain
//! (و) or when what remains matches one of the patterns above (ب، ل، ك، ف): بميلاد → ولد but
//! بيت, بابا and بطرس stay whole.

use super::aliases::{is_arabic_letters, light_article, strip_light_suffixes, strip_prefix};

/// Arabic letters only (search forms carry no marks).
fn is_arabic_word(token: &str) -> bool {
    !token.is_empty() && is_arabic_letters(token)
}

/// Letters of a slice of a checked token (`is_arabic_word`: every letter is two UTF-8 bytes).
fn len(s: &str) -> usize {
    s.len() / 2
}

// The article with its clitics, Light10's list بال كال فال لل ال: `aliases::light_article`.

/// The stem key of a token, borrowed: a slice of the token, or a root a pattern built from its
/// letters (at most six letters, kept inline). No allocation; [`StemKey::as_str`] reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StemKey<'a>(Repr<'a>);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Repr<'a> {
    Slice(&'a str),
    /// UTF-8 bytes and their length.
    Root([u8; ROOT_BYTES], u8),
}

/// The longest pattern key: six two-byte letters.
const ROOT_BYTES: usize = 12;

impl<'a> StemKey<'a> {
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Slice(s) => s,
            // Whole letters encoded by `root`: always valid UTF-8.
            Repr::Root(buf, n) => std::str::from_utf8(&buf[..*n as usize]).unwrap_or_default(),
        }
    }
}

impl std::ops::Deref for StemKey<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

/// A pattern key from its letters (Arabic letters, at most six).
fn root(letters: &[char]) -> StemKey<'static> {
    let mut buf = [0u8; ROOT_BYTES];
    let mut n = 0;
    for c in letters {
        n += c.encode_utf8(&mut buf[n..]).len();
    }
    StemKey(Repr::Root(buf, n as u8))
}

/// The triliteral a derivational pattern reduces `w` to, if `w` has one of the shapes in the
/// module doc.
fn pattern_root(w: &str) -> Option<StemKey<'static>> {
    // Every pattern has four to seven letters and starts with ا ت م ن ي (UTF-8 D8 A7, D8 AA,
    // D9 85, D9 86, D9 8A): most words are decided here.
    if !(4..=7).contains(&len(w))
        || !matches!(
            w.as_bytes(),
            [0xD8, 0xA7 | 0xAA, ..] | [0xD9, 0x85 | 0x86 | 0x8A, ..]
        )
    {
        return None;
    }
    let mut buf = ['\0'; 7];
    let mut n = 0;
    for (slot, ch) in buf.iter_mut().zip(w.chars()) {
        *slot = ch;
        n += 1;
    }
    let c = &buf[..n];
    let long_vowel = |x: char| matches!(x, 'ا' | 'و' | 'ي');
    match c {
        // مي_ا_ : ميلاد → ولد
        ['م', 'ي', a, 'ا', b] if !long_vowel(*a) && !long_vowel(*b) => {
            Some(root(&['و', *a, *b]))
        }
        // مو_و_ : مولود → ولد
        ['م', 'و', a, 'و', b] if !long_vowel(*a) && !long_vowel(*b) => {
            Some(root(&['و', *a, *b]))
        }
        // مو__ : مولد → ولد ; يو__ / تو__ : يولد → ولد
        ['م' | 'ي' | 'ت', 'و', a, b] if !long_vowel(*a) && !long_vowel(*b) => {
            Some(root(&['و', *a, *b]))
        }
        // Form X: استفعل / استفعال / يستفعل / تستفعل / مستفعل → استفعل (استخدام، يستخدم → استخدم;
        // the key keeps است so it never meets the bare root: خدمه stays apart).
        ['ا', 'س', 'ت', a, b, 'ا', d] if !long_vowel(*a) && !long_vowel(*b) && !long_vowel(*d) => {
            Some(root(&['ا', 'س', 'ت', *a, *b, *d]))
        }
        ['ي' | 'ت' | 'م', 'س', 'ت', a, b, d]
            if !long_vowel(*a) && !long_vowel(*b) && !long_vowel(*d) =>
        {
            Some(root(&['ا', 'س', 'ت', *a, *b, *d]))
        }
        // Form IV of a hollow root with ي: its imperfect (يضيف، تضيف، نضيف، أضيف) onto its past and
        // verbal noun (أضاف، إضافة → اضاف): the key is the past tense, which is also a pattern
        // (so that a proclitic before it comes off: بإضافة → اضاف).
        ['ا' | 'ي' | 'ت' | 'ن', a, 'ي' | 'ا', b] if !long_vowel(*a) && !long_vowel(*b) => {
            Some(root(&['ا', *a, 'ا', *b]))
        }
        // ات___ (+ ت / وا): اتولد → ولد, اتولدت → ولد
        ['ا', 'ت', a, b, d, rest @ ..]
            if *b != 'ا' && !long_vowel(*d) && matches!(rest, [] | ['ت'] | ['و', 'ا']) =>
        {
            Some(root(&[*a, *b, *d]))
        }
        _ => None,
    }
}

/// Article and suffixes off (each only when three letters remain).
fn light(mut s: &str) -> &str {
    // The first of `ARTICLES` that fits (only one can: each starts with another letter).
    if let Some(rest) = light_article(s).and_then(|p| strip_prefix(s, p))
        && len(rest) >= 3
    {
        s = rest;
    }
    // The plural -وات after a final alef (باباوات → بابا, سماوات → سما).
    if let Some(rest) = s.strip_suffix("وات")
        && rest.ends_with('ا')
        && len(rest) >= 3
    {
        return rest;
    }
    strip_light_suffixes(s)
}

/// The key of `w` with no proclitic removed: a pattern root of the word or of its light stem,
/// else the light stem.
fn key_of(w: &str) -> StemKey<'_> {
    if let Some(r) = pattern_root(w) {
        return r;
    }
    let l = light(w);
    pattern_root(l).unwrap_or(StemKey(Repr::Slice(l)))
}

/// The stem key of a search token, or `None` for a token that is not an Arabic word (Latin,
/// digits): those have no key and are not in the stem field.
pub fn stem(token: &str) -> Option<String> {
    stem_key(token).map(|k| k.as_str().to_string())
}

/// [`stem`] into `out` (cleared first; left empty without a key): whether there is a key.
pub fn stem_into(token: &str, out: &mut String) -> bool {
    out.clear();
    stem_key(token).map(|k| out.push_str(k.as_str())).is_some()
}

/// [`stem`] without an allocation (see [`StemKey`]).
pub fn stem_key(token: &str) -> Option<StemKey<'_>> {
    if !is_arabic_word(token) {
        return None;
    }
    let mut first = token.chars();
    let lead = first.next()?;
    let rest = first.as_str();
    if matches!(lead, 'و' | 'ف' | 'ب' | 'ل' | 'ك') && !token.starts_with("ال") {
        // A proclitic confirmed by a pattern in what follows it.
        let after = light(rest);
        if pattern_root(rest).is_some() || (len(after) >= 3 && pattern_root(after).is_some()) {
            return Some(key_of(rest));
        }
        // The conjunction و (and ف) before a word of four letters or more (Light10 needs three,
        // which breaks ولد, ولاده).
        if matches!(lead, 'و' | 'ف') && len(rest) >= 4 {
            return Some(key_of(rest));
        }
        // The prepositions ب، ل، ك before a word of four letters or more that does not start
        // with alef (بابا، باباوات، باسم stay whole): لكرسي → كرس.
        if matches!(lead, 'ب' | 'ل' | 'ك') && len(rest) >= 4 && !rest.starts_with('ا') {
            return Some(key_of(rest));
        }
    }
    Some(key_of(token))
}

/// The sibling forms of a question word in the commonest broken-plural patterns: its triliteral
/// (a three-letter word, or فعول، أفعال، أفعل with consonants in the root's places) as فعل، فعول،
/// أفعال and أفعل (سطور → سطر، اسطر، اسطار). Query side only: most forms are in no chunk and
/// match nothing.
pub fn broken_plural_siblings(token: &str) -> Vec<String> {
    family(token, &["فعل", "فعول", "افعال", "افعل"], false)
}

/// The other members of a question word's derivational family: its triliteral, read from the
/// word when it has one of the common noun and participle shapes (فعل، فاعل، مفعول، فعيل، فعال،
/// فعول، أفعال، أفعل، تفعيل، مفعل; a final ه of the feminine off first), written in each of the
/// others (مفصول → فصل، فاصل، فصيل …). Query side only.
pub fn derivation_siblings(token: &str) -> Vec<String> {
    let shapes = [
        "فعل",
        "فاعل",
        "مفعول",
        "فعيل",
        "فعال",
        "فعول",
        "افعال",
        "افعل",
        "تفعيل",
        "مفعل",
    ];
    family(token, &shapes, true)
}

/// A word's root read through the first of `shapes` (templates in which ف، ع، ل stand for the
/// root's letters) that its stem fits, written in every other shape. The stem is the word without
/// its article (and, when `feminine`, a final ه), at least three letters. The root's letters must
/// be consonants, so weak roots (قال، وعد) and long-vowel words have no siblings.
fn family(token: &str, shapes: &[&str], feminine: bool) -> Vec<String> {
    if !is_arabic_word(token) {
        return Vec::new();
    }
    let mut base = light_article(token)
        .and_then(|p| strip_prefix(token, p))
        .filter(|r| len(r) >= 3)
        .unwrap_or(token);
    if feminine
        && let Some(r) = base.strip_suffix('ه')
        && len(r) >= 4
    {
        base = r;
    }
    let consonant = |x: char| !matches!(x, 'ا' | 'و' | 'ي' | 'ه' | 'ء');
    let Some(root) = shapes
        .iter()
        .find_map(|shape| root_in(base, shape))
        .filter(|r| r.iter().all(|c| consonant(*c)))
    else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for shape in shapes {
        let f = write_root(shape, root);
        if f != base && f != token && !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// The root letters of `word` if it fits `shape` (ف، ع، ل the root's places, every other letter
/// itself).
fn root_in(word: &str, shape: &str) -> Option<[char; 3]> {
    if word.chars().count() != shape.chars().count() {
        return None;
    }
    let mut root = ['\0'; 3];
    for (w, s) in word.chars().zip(shape.chars()) {
        match s {
            'ف' => root[0] = w,
            'ع' => root[1] = w,
            'ل' => root[2] = w,
            _ if w != s => return None,
            _ => {}
        }
    }
    Some(root)
}

/// `shape` with the root's letters in the places of ف، ع، ل.
fn write_root(shape: &str, [a, b, d]: [char; 3]) -> String {
    shape
        .chars()
        .map(|s| match s {
            'ف' => a,
            'ع' => b,
            'ل' => d,
            _ => s,
        })
        .collect()
}

/// A question word as it is spelled in MSA when the visitor wrote a dialect's stop for an
/// interdental (Egyptian and Levantine say and often write ت for ث and د or ز for ذ: تلات →
/// ثلاث، كتير → كثير، ياخد → ياخذ): each spelling with one or two of those letters turned back.
/// Words of three letters or more; query side only, and most spellings are in no chunk.
pub fn interdental_spellings(token: &str) -> Vec<String> {
    if !is_arabic_word(token) || len(token) < 3 {
        return Vec::new();
    }
    let c: Vec<char> = token.chars().collect();
    let back = |x: char| match x {
        'ت' => Some('ث'),
        'د' | 'ز' => Some('ذ'),
        _ => None,
    };
    let at: Vec<usize> = (0..c.len()).filter(|&i| back(c[i]).is_some()).collect();
    let mut out = Vec::new();
    for (n, &i) in at.iter().enumerate() {
        for j in std::iter::once(None).chain(at[n + 1..].iter().copied().map(Some)) {
            let mut w = c.clone();
            w[i] = back(c[i]).unwrap_or(c[i]);
            if let Some(j) = j {
                w[j] = back(c[j]).unwrap_or(c[j]);
            }
            out.push(w.into_iter().collect());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::stem;

    fn k(s: &str) -> String {
        stem(s).unwrap()
    }

    #[test]
    fn birth_forms_share_one_key() {
        for w in [
            "ولد",
            "اتولد",
            "اتولدت",
            "ميلاد",
            "الميلاد",
            "بميلاد",
            "مولد",
            "المولود",
            "يولد",
            "ميلاده",
        ] {
            assert_eq!(k(w), "ولد", "{w}");
        }
    }

    #[test]
    fn form_x_verbs_and_their_verbal_nouns() {
        for w in [
            "استخدم",
            "استخدام",
            "يستخدم",
            "تستخدم",
            "مستخدم",
            "باستخدام",
            "الاستخدام",
            "استخدامها",
        ] {
            assert_eq!(k(w), "استخدم", "{w}");
        }
        assert_eq!(k("خدمه"), "خدم");
        assert_eq!(k("استقبال"), "استقبل");
    }

    #[test]
    fn form_iv_hollow_verbs_and_their_verbal_nouns() {
        for w in ["اضيف", "يضيف", "تضيف", "اضاف", "اضافه", "الاضافه", "باضافه"]
        {
            assert_eq!(k(w), "اضاف", "{w}");
        }
        for w in ["يريد", "تريد", "اريد", "اراده"] {
            assert_eq!(k(w), "اراد", "{w}");
        }
        // Not a hollow imperfect: the long vowel is not the third letter.
        assert_eq!(k("بيت"), "بيت");
        assert_eq!(k("الكنيسه"), "كنيس");
    }

    #[test]
    fn other_weak_initial_roots() {
        assert_eq!(k("ميعاد"), "وعد");
        assert_eq!(k("موعد"), "وعد");
        assert_eq!(k("الموجود"), "وجد");
    }

    #[test]
    fn egyptian_mediopassive_but_not_msa_iftial_nouns() {
        assert_eq!(k("اتقتل"), "قتل");
        assert_eq!(k("اتصلب"), "صلب");
        assert_eq!(k("اتحاد"), "اتحاد");
        assert_eq!(k("اتصال"), "اتصال");
        assert!(k("اتجاه").starts_with("ات"));
    }

    #[test]
    fn proclitics_need_room_or_a_pattern() {
        assert_eq!(k("بيت"), "بيت");
        assert_eq!(k("بابا"), "بابا");
        assert_eq!(k("بطرس"), "بطرس");
        assert_eq!(k("والمعلمين"), "معلم");
        assert_eq!(k("توما"), "توما");
        assert_eq!(k("باباوات"), "بابا");
        assert_eq!(k("كانت"), "كانت");
        assert_eq!(k("بيوت"), "بيوت");
        assert_eq!(k("لكرسي"), k("الكرسي"));
    }

    #[test]
    fn key_into_a_buffer_and_borrowed() {
        let mut buf = String::from("old");
        assert!(super::stem_into("الميلاد", &mut buf));
        assert_eq!(buf, "ولد");
        assert!(!super::stem_into("react", &mut buf));
        assert_eq!(buf, "");
        assert_eq!(super::stem_key("والمعلمين").as_deref(), Some("معلم"));
    }

    #[test]
    fn non_arabic_tokens_have_no_key() {
        assert_eq!(stem("react"), None);
        assert_eq!(stem("2024"), None);
        assert_eq!(stem(""), None);
    }

    #[test]
    fn derivation_siblings_share_the_root_of_a_noun_or_participle() {
        use super::derivation_siblings as sib;
        let f = sib("مفصول");
        for w in ["فصل", "فاصل", "فصيل", "تفصيل", "مفصل", "فصول"] {
            assert!(f.contains(&w.to_string()), "{w} in {f:?}");
        }
        assert!(!f.contains(&"مفصول".to_string()));
        // The article and the feminine ending come off first: الفاصلة → فصل، مفصول …
        assert!(sib("الفاصله").contains(&"مفصول".to_string()));
        assert!(sib("كاتب").contains(&"مكتوب".to_string()));
        // Weak roots, long-vowel words and other shapes have no family here.
        assert!(sib("قال").is_empty());
        assert!(sib("استخدام").is_empty());
        assert!(sib("react").is_empty());
    }

    #[test]
    fn interdental_spellings_turn_one_or_two_stops_back() {
        use super::interdental_spellings as sp;
        assert!(sp("تلات").contains(&"ثلاث".to_string()));
        assert!(sp("تلات").contains(&"ثلات".to_string()));
        assert!(sp("كتير").contains(&"كثير".to_string()));
        assert!(sp("ياخد").contains(&"ياخذ".to_string()));
        assert!(sp("التلاته").contains(&"الثلاثه".to_string()));
        // Nothing to turn back, too short, or not Arabic.
        assert!(sp("كلم").is_empty());
        assert!(sp("دي").is_empty());
        assert!(sp("data").is_empty());
    }

    #[test]
    fn broken_plural_siblings_of_a_singular_and_its_plurals() {
        use super::broken_plural_siblings as sib;
        // A singular, its فعول and أفعل plurals, with the article: each finds the others.
        assert_eq!(sib("سطر"), ["سطور", "اسطار", "اسطر"]);
        assert!(sib("السطور").contains(&"سطر".to_string()));
        assert!(sib("الاسطر").contains(&"سطور".to_string()));
        assert!(sib("اقلام").contains(&"قلم".to_string()));
        // A long vowel or ه in a root's place, and other shapes, give nothing.
        for w in ["قال", "كتاب", "مكتبة", "بيت", "وجه", "react"] {
            assert!(sib(w).is_empty(), "{w}: {:?}", sib(w));
        }
    }
}
