//! Throughput of `normalize_into` on ~50 MB of Arabic text (release build):
//!
//!     cargo run --release --example normalize_throughput [MB]
//!
//! The text repeats a mix of paragraphs written for this benchmark: plain MSA, fully
//! vocalized MSA, Uthmani-style spelling (dagger alef, small marks, alef wasla), text mixed with
//! Latin words and digits, and legacy text with tatweel and presentation forms.

use askzico::normalize::{Rules, normalize_into};
use std::hint::black_box;
use std::time::Instant;

const PLAIN: &str = "تعد القاهرة من أكبر المدن العربية وتضم العديد من المتاحف والمكتبات العامة التي يزورها الطلاب والباحثون كل عام. وقد شهدت المدينة خلال القرن الماضي توسعا كبيرا في الأحياء السكنية والطرق والجسور، مما غير شكلها وطبيعة الحياة فيها إلى حد بعيد. ";
const VOCALIZED: &str = "إِنَّ العِلْمَ نُورٌ يَهْدِي صَاحِبَهُ إِلَى الطَّرِيقِ المُسْتَقِيمِ، وَالجَهْلُ ظُلْمَةٌ يَتِيهُ فِيهَا المَرْءُ. قَرَأَ الطَّالِبُ الكِتَابَ كُلَّهُ فِي لَيْلَةٍ وَاحِدَةٍ ثُمَّ كَتَبَ عَنْهُ مَقَالَةً قَصِيرَةً. ";
const UTHMANI: &str =
    "هَٰذَا كِتَٰبٌ جَمِيلٌ ذَٰلِكَ ٱلۡيَوۡمَ ٱلۡأَوَّلَ ٱلصَّلَوٰةَ فِي ٱلۡمَسۡجِدِ وَٱلزَّكَوٰةَ لِلۡفُقَرَآءِ وَٱلۡمَلَـٰٓئِكَةُ تَنۡزِلُ ۝٣ ";
const MIXED: &str = "صدر الإصدار 2.4 من برنامج Rust في عام ٢٠٢٤، ويمكن تنزيله من الموقع الرسمي https://example.org/download بحجم ١٢٫٥ ميغابايت. The API (version 3) supports UTF-8 input ‏and‏ bidi marks. ";
const LEGACY: &str = "كـــتاب الـتـاريـخ ﻣﺮﺣﺒﺎ ﺑﻜﻢ ﻓﻲ ﺍﻟﻤﻮﻗﻊ ﷺ ١٬٠٠٠ نسخة؛ هل تريد المزيد؟ ";

fn build(parts: &[(&str, usize)], mb: usize) -> String {
    let mut unit = String::new();
    for (p, k) in parts {
        for _ in 0..*k {
            unit.push_str(p);
        }
        unit.push('\n');
    }
    let target = mb * 1_000_000;
    let mut s = String::with_capacity(target + unit.len());
    while s.len() < target {
        s.push_str(&unit);
    }
    s
}

fn measure(name: &str, text: &str, rules: &Rules) -> f64 {
    let mut out = String::new();
    normalize_into(text, rules, &mut out); // warm up, size the buffer
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        normalize_into(black_box(text), rules, &mut out);
        black_box(&out);
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mbs = text.len() as f64 / 1e6 / best;
    println!(
        "{name:<28} {:>6.1} MB in {:>7.1} ms  -> {:>7.1} MB/s  (output {:.1} MB)",
        text.len() as f64 / 1e6,
        best * 1e3,
        mbs,
        out.len() as f64 / 1e6
    );
    mbs
}

fn main() {
    let mb: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50);
    let rules = Rules::default();
    let mix = build(
        &[
            (PLAIN, 4),
            (VOCALIZED, 2),
            (UTHMANI, 1),
            (MIXED, 2),
            (LEGACY, 1),
        ],
        mb,
    );
    println!("normalize_into, default rules, best of 5 runs, one thread");
    let m = measure("mix (all kinds)", &mix, &rules);
    let small = (mb / 5).max(1);
    measure("plain MSA", &build(&[(PLAIN, 1)], small), &rules);
    measure("vocalized MSA", &build(&[(VOCALIZED, 1)], small), &rules);
    measure("Uthmani-style", &build(&[(UTHMANI, 1)], small), &rules);
    measure(
        "Arabic + Latin + digits",
        &build(&[(MIXED, 1)], small),
        &rules,
    );
    measure(
        "tatweel + presentation",
        &build(&[(LEGACY, 1)], small),
        &rules,
    );
    measure("mix, conservative rules", &mix, &Rules::conservative());
    // Real Uthmani text, if the corpus is on this machine (read at run time only).
    if let Ok(raw) = std::fs::read_to_string("/work/shared/corpora/quran-json/dist/quran.json") {
        let verses: Vec<&str> = raw
            .split("\"text\":\"")
            .skip(1)
            .filter_map(|p| p.split('"').next())
            .collect();
        if raw.contains("\\u") {
            println!("(quran.json uses \\u escapes; skipped)");
        } else if !verses.is_empty() {
            let one: String = verses.join("\n");
            let mut q = String::new();
            while q.len() < small * 1_000_000 {
                q.push_str(&one);
                q.push('\n');
            }
            measure("Quran (Tanzil Uthmani)", &q, &rules);
        }
    }
    let t = Instant::now();
    let (p, v) = askzico::normalize::normalize_with_variants(black_box(&mix), &rules);
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{:<28} {:>6.1} MB in {:>7.1} ms  -> {:>7.1} MB/s  ({} variant words, 1 run)",
        "normalize_with_variants mix",
        mix.len() as f64 / 1e6,
        secs * 1e3,
        mix.len() as f64 / 1e6 / secs,
        v.len()
    );
    black_box(p);
    println!("MIX THROUGHPUT: {m:.1} MB/s");
}
