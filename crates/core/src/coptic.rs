//! Coptic calendar dates (`"15 Hator"`, `"١٥ هاتور"`) as structured metadata
//! `{"calendar":"coptic","month":3,"day":15}` that a runtime can compare.
//! A leaf: `extract` reads dates in records with it, `retrieve::dates` reads them in questions.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CopticDate {
    pub calendar: &'static str,
    pub month: u8,
    pub day: u8,
}

/// Month spellings, Latin and Arabic, by month number (1 = Tout … 13 = Nasie).
const MONTHS: [(u8, &[&str]); 13] = [
    (1, &["tout", "thout", "thoout", "thoth", "توت"]),
    (
        2,
        &["baba", "babah", "paopi", "paope", "phaophi", "بابه", "بابة"],
    ),
    (
        3,
        &[
            "hator",
            "hatour",
            "hathor",
            "athor",
            "hatur",
            "هاتور",
            "هتور",
        ],
    ),
    (
        4,
        &[
            "kiahk", "kiahak", "kiak", "koiak", "khoiak", "choiak", "كيهك", "كياك",
        ],
    ),
    (
        5,
        &["toba", "tobah", "tobi", "tubah", "tybi", "طوبه", "طوبة"],
    ),
    (
        6,
        &["amshir", "meshir", "mechir", "emshir", "أمشير", "امشير"],
    ),
    (
        7,
        &["baramhat", "paremhat", "phamenoth", "barmahat", "برمهات"],
    ),
    (
        8,
        &[
            "baramouda",
            "baramoudah",
            "parmouti",
            "pharmuthi",
            "barmouda",
            "برموده",
            "برمودة",
        ],
    ),
    (9, &["bashans", "pashons", "pachons", "bashons", "بشنس"]),
    (
        10,
        &[
            "paona",
            "baouna",
            "paoni",
            "payni",
            "bauna",
            "baona",
            "بؤونه",
            "بؤونة",
            "بئونه",
            "بئونة",
            "بونه",
            "بونة",
        ],
    ),
    (
        11,
        &["epep", "epip", "abib", "epeep", "ebib", "أبيب", "ابيب"],
    ),
    (12, &["mesra", "misra", "mesori", "mesore", "مسرى", "مسري"]),
    (
        13,
        &[
            "nasie",
            "nasi",
            "nasee",
            "el-nasi",
            "pi kogi enavot",
            "النسيء",
            "نسيء",
            "النسي",
            "نسي",
        ],
    ),
];

/// The month number of a spelling (case-insensitive for Latin).
pub fn month_number(name: &str) -> Option<u8> {
    let lower = name.trim().to_lowercase();
    MONTHS
        .iter()
        .find(|(_, names)| names.iter().any(|n| *n == lower))
        .map(|(m, _)| *m)
}

/// Every known month spelling, for query-side date detection.
pub fn month_spellings() -> impl Iterator<Item = (u8, &'static str)> {
    MONTHS
        .iter()
        .flat_map(|(m, names)| names.iter().map(move |n| (*m, *n)))
}

fn parse_day(s: &str) -> Option<u8> {
    let digits: String = s
        .chars()
        .map(|c| match c {
            '\u{0660}'..='\u{0669}' => char::from(b'0' + (c as u32 - 0x0660) as u8),
            '\u{06F0}'..='\u{06F9}' => char::from(b'0' + (c as u32 - 0x06F0) as u8),
            c => c,
        })
        .collect();
    digits.parse().ok()
}

/// Parses `"<day> <month>"` (or `"<month> <day>"`). Days are 1–30, 1–6 in Nasie.
pub fn parse(s: &str) -> Option<CopticDate> {
    let s = s.trim();
    let (a, b) = s.split_once(char::is_whitespace)?;
    let (day, month) = match (parse_day(a), parse_day(b.trim())) {
        (Some(d), None) => (d, month_number(b)?),
        (None, Some(d)) => (d, month_number(a)?),
        _ => return None,
    };
    let max = if month == 13 { 6 } else { 30 };
    (1..=max).contains(&day).then_some(CopticDate {
        calendar: "coptic",
        month,
        day,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_synaxarium_month_spelling() {
        let names = [
            "Tout",
            "Baba",
            "Hator",
            "Kiahk",
            "Toba",
            "Amshir",
            "Baramhat",
            "Baramouda",
            "Bashans",
            "Paona",
            "Epep",
            "Mesra",
            "Nasie",
        ];
        for (i, n) in names.iter().enumerate() {
            let d = parse(&format!("15 {n}"))
                .or_else(|| parse(&format!("5 {n}")))
                .unwrap();
            assert_eq!(d.month as usize, i + 1, "{n}");
        }
        assert_eq!(
            parse("15 Hator"),
            Some(CopticDate {
                calendar: "coptic",
                month: 3,
                day: 15
            })
        );
        assert_eq!(
            parse("١٥ هاتور"),
            Some(CopticDate {
                calendar: "coptic",
                month: 3,
                day: 15
            })
        );
        assert_eq!(parse("31 Tout"), None);
        assert_eq!(parse("7 Nasie").map(|d| d.day), None);
        assert_eq!(parse("Hator"), None);
    }
}
