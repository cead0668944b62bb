//! The report's Arabic: each check's name and description, and counts whose noun takes the
//! form its number asks for (`count_phrase`).

use super::rich::{Ticks, english, rich_with};
use super::{CheckResult, escape};

/// The four forms an Arabic noun takes after a number.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Noun {
    /// Singular genitive: 1, 100, 101, 102, 1000 (مقطع).
    pub one: &'static str,
    /// Dual: 2 (مقطعان).
    pub two: &'static str,
    /// Plural: 0, 3–10, and 103–110 (مقاطع).
    pub few: &'static str,
    /// Singular accusative: 11–99, and 111–199 (مقطعًا).
    pub many: &'static str,
}

pub(super) const CHUNK: Noun = Noun {
    one: "مقطع",
    two: "مقطعان",
    few: "مقاطع",
    many: "مقطعًا",
};
pub(super) const CHECK: Noun = Noun {
    one: "فحص",
    two: "فحصان",
    few: "فحوص",
    many: "فحصًا",
};
pub(super) const LIBRARY: Noun = Noun {
    one: "مكتبة",
    two: "مكتبتان",
    few: "مكتبات",
    many: "مكتبةً",
};
pub(super) const WARNING: Noun = Noun {
    one: "تحذير",
    two: "تحذيران",
    few: "تحذيرات",
    many: "تحذيرًا",
};
pub(super) const CHAR: Noun = Noun {
    one: "حرف",
    two: "حرفان",
    few: "أحرف",
    many: "حرفًا",
};
pub(super) const FINDING: Noun = Noun {
    one: "نتيجة",
    two: "نتيجتان",
    few: "نتائج",
    many: "نتيجةً",
};
pub(super) const DOCUMENT: Noun = Noun {
    one: "مستند",
    two: "مستندان",
    few: "مستندات",
    many: "مستندًا",
};

/// `n` and the form of `noun` Arabic grammar puts after it, read on the last two digits: 1
/// takes the singular genitive (as 100 and 1000 do, and 101, 102 after a hundred), 2 the dual,
/// 3–10 the plural, 11–99 the singular accusative; none (0) the plural, as in «0 نتائج».
pub(crate) fn count_phrase(n: usize, noun: &Noun) -> String {
    let form = match (n, n % 100) {
        (0, _) => noun.few,
        (2, _) => noun.two,
        (_, 3..=10) => noun.few,
        (_, 11..=99) => noun.many,
        _ => noun.one,
    };
    format!("{n} {form}")
}

/// Each check's Arabic name and one-line description (code between backticks), by key.
pub(super) const LABELS: &[(&str, &str, &str)] = &[
    (
        "mojibake",
        "ترميز مشوَّه",
        "نص UTF-8 قُرئ بترميز Latin-1 أو CP1252 أو CP1256 (`Ø§Ù„` و`Ã©` و`ط§ظ„`)",
    ),
    (
        "escaped-prose",
        "رموز مهرَّبة في النص",
        "تهريبات في النثر خارج الشيفرة: `\\u0627` و`&#1575;` و`&quot;` وغيرها من الكيانات",
    ),
    (
        "replacement-char",
        "محرف الاستبدال",
        "محارف الاستبدال `U+FFFD` في النص",
    ),
    ("no-letters", "مقاطع بلا حروف", "مقاطع ليس فيها حرف واحد"),
    (
        "boilerplate",
        "نص متكرر من هيكل الموقع",
        "السطر نفسه (20 حرفًا فأكثر) في أكثر من `boilerplate_percent` من مقاطع مكتبة: بقايا من هيكل الصفحة",
    ),
    (
        "generator-syntax",
        "صيغة مولّد الموقع",
        "صيغة مولّد موقع لا تظهر في الصفحة المنشورة، خارج الشيفرة: `{{#` و`[[` و`![[` وأسطر `key::` و`:::` وأسطر `!!!` و`> [!` و`{%` (و`{{#include` في أي موضع من مكتبة mdBook)",
    ),
    (
        "markup",
        "بقايا الترميز",
        "بقايا ترميز خارج الشيفرة: `:::` و`{#` و`{/*` و`{{<` ووسوم Liquid `{% … %}` و`{{ site.… }}` و`{{ … | filter }}` ووسوم HTML/JSX وأسطر `import`/`export`",
    ),
    (
        "too-short",
        "مقاطع قصيرة جدًا",
        "مقاطع دون `chunking.min_chars` وليست مستندها كله",
    ),
    (
        "too-long",
        "مقاطع طويلة جدًا",
        "مقاطع فوق `chunking.max_chars`",
    ),
    (
        "cut-heading",
        "عنوان مفصول عن محتواه",
        "مقاطع آخر سطر فيها عنوان من مسار عناوينها، فانفصل العنوان عن محتواه",
    ),
    ("empty-title", "مستندات بلا عنوان", "مستندات ليس لها عنوان"),
    (
        "duplicate-title",
        "عناوين مكررة",
        "العنوان نفسه على مستندات مختلفة من مكتبة واحدة",
    ),
    (
        "bad-url",
        "روابط غير صالحة",
        "روابط ليست مطلقة (`http`/`https`) ولا نسبية إلى الموقع (`/…`)",
    ),
    (
        "repeated-url",
        "روابط مكررة",
        "الرابط نفسه على مستندات مختلفة",
    ),
    (
        "unknown-library",
        "مكتبات غير معرَّفة",
        "مكتبات لا يعرِّفها ملف الإعداد",
    ),
    (
        "unknown-domain",
        "مجالات غير معرَّفة",
        "مجالات لا تعرِّفها أي مكتبة في ملف الإعداد",
    ),
    (
        "long-id",
        "معرِّفات طويلة",
        "معرِّفات مستندات أو مقاطع تزيد على 64 بايتًا",
    ),
    (
        "mapped-id",
        "معرِّفات محوَّلة",
        "مستندات لم يصلح اسمها معرِّفًا كما هو فهُرِّب أو اختُصر (تُسرد كلها، وهي للعلم ما لم يضع `[inspect] max` لها حدًّا)",
    ),
    (
        "coverage",
        "التغطية والسلامة",
        "تغطية جداول البحث والفهرس النصي والمتجهات وسلامتها (`askzico verify`)",
    ),
];

/// A check's Arabic name and description; a key without one shows its English description.
pub(super) fn label(c: &CheckResult) -> (String, String) {
    match LABELS.iter().find(|(k, _, _)| *k == c.name) {
        Some((_, name, description)) => (escape(name), rich_with(description, Ticks::Hidden)),
        None => (english(&c.name), english(&c.description)),
    }
}
