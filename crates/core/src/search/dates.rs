//! Coptic dates named in a question (`يوم 15 هاتور`, `١٥ هاتور`, `12 بابه`, `21 طوبة`,
//! `24 بؤونة`), so retrieval can prefer documents whose structured date matches.

use crate::coptic::{CopticDate, month_number};

/// Arabic-Indic and Extended Arabic-Indic digits as ASCII.
fn ascii_digits(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{0660}'..='\u{0669}' => char::from(b'0' + (c as u32 - 0x0660) as u8),
            '\u{06F0}'..='\u{06F9}' => char::from(b'0' + (c as u32 - 0x06F0) as u8),
            c => c,
        })
        .collect()
}

/// Folds spelling variants of month names: hamza carriers, teh marbuta, alef maksura, a leading
/// `ال` or `ب`/`ل`/`و` clitic, tashkeel and tatweel.
fn fold_month(word: &str) -> String {
    let mut w: String = word
        .chars()
        .filter(|c| !matches!(c, '\u{064B}'..='\u{065F}' | '\u{0670}' | '\u{0640}'))
        .map(|c| match c {
            'أ' | 'إ' | 'آ' | 'ٱ' => 'ا',
            'ة' => 'ه',
            'ى' => 'ي',
            'ؤ' | 'ئ' => 'و',
            c => c,
        })
        .collect();
    for prefix in ["ال", "لل", "بال", "وال"] {
        if let Some(rest) = w.strip_prefix(prefix)
            && rest.chars().count() >= 3
        {
            w = rest.to_string();
            break;
        }
    }
    w
}

/// Month number of an Arabic or Latin month word, tolerant of common spelling variants.
fn month_of(word: &str) -> Option<u8> {
    if let Some(m) = month_number(word) {
        return Some(m);
    }
    let folded = fold_month(word);
    const FOLDED: [(u8, &[&str]); 13] = [
        (1, &["توت"]),
        (2, &["بابه", "بابا"]),
        (3, &["هاتور", "هتور", "هاتوور"]),
        (4, &["كيهك", "كياك", "كيهاك"]),
        (5, &["طوبه", "طوبا"]),
        (6, &["امشير", "مشير"]),
        (7, &["برمهات", "برامهات"]),
        (8, &["برموده", "برمودا", "برموضه"]),
        (9, &["بشنس", "بشنص"]),
        (10, &["بوونه", "بونه", "باونه", "بوونا", "بونا"]),
        (11, &["ابيب"]),
        (12, &["مسري", "مسرا", "مصري"]),
        (
            13,
            &["نسي", "نسيء", "نسيئ", "نسيو", "النسي", "نسو", "نسء", "نسا"],
        ),
    ];
    FOLDED
        .iter()
        .find(|(_, names)| names.contains(&folded.as_str()))
        .map(|(m, _)| *m)
}

/// Every Coptic date a question names: a day (1–30) next to a month name, either order.
pub fn dates_in(question: &str) -> Vec<CopticDate> {
    let text = ascii_digits(question);
    let words: Vec<&str> = text
        .split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '،' | ',' | '؟' | '?' | '.' | '!' | '؛' | ':' | '(' | ')' | '-' | '/'
                )
        })
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let Ok(day) = w.parse::<u8>() else { continue };
        // `15 هاتور`, `15 من هاتور`, or `هاتور 15`.
        let after = match words.get(i + 1) {
            Some(&"من") | Some(&"شهر") => words.get(i + 2),
            other => other,
        };
        let month = after
            .and_then(|n| month_of(n))
            .or_else(|| i.checked_sub(1).and_then(|p| month_of(words[p])));
        if let Some(month) = month {
            let max = if month == 13 { 6 } else { 30 };
            if (1..=max).contains(&day) {
                let d = CopticDate {
                    calendar: "coptic",
                    month,
                    day,
                };
                if !out.contains(&d) {
                    out.push(d);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(q: &str) -> (u8, u8) {
        let d = dates_in(q);
        assert_eq!(d.len(), 1, "{q}: {d:?}");
        (d[0].month, d[0].day)
    }

    #[test]
    fn arabic_questions() {
        assert_eq!(one("مين القديس اللي بنعيد له يوم 15 هاتور؟"), (3, 15));
        assert_eq!(one("ماذا حدث في ١٥ هاتور"), (3, 15));
        assert_eq!(one("تذكار 12 بابه"), (2, 12));
        assert_eq!(one("21 طوبة"), (5, 21));
        assert_eq!(one("سنكسار 24 بؤونة"), (10, 24));
        assert_eq!(one("يوم ٢٩ كيهك"), (4, 29));
        assert_eq!(one("29 من كيهك"), (4, 29));
        assert_eq!(one("في الخامس عشر من هاتور يوم 15 هاتور"), (3, 15));
    }

    #[test]
    fn variants_and_order() {
        assert_eq!(one("أمشير 8"), (6, 8));
        assert_eq!(one("يوم 3 النسيء"), (13, 3));
        assert_eq!(one("30 مسرى"), (12, 30));
        assert_eq!(one("ايه تذكار يوم ٦ النسئ؟"), (13, 6));
        assert!(dates_in("ولد في 1600").is_empty());
        assert!(dates_in("يوم 31 توت").is_empty());
    }
}
