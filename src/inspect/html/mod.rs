//! The self-contained HTML report: inline CSS, no scripts, no network fetches, right-to-left
//! Arabic. It opens with a summary (each check failed, warned or passed, the failing ones first
//! with their first examples); code, IDs, paths and URLs sit in left-to-right elements so their
//! characters keep their order; every count agrees with its number (`count_phrase`).
//! Everything that comes from the corpus goes through `escape`.

use std::fmt::Write;

mod rich;
mod words;

use super::{CheckResult, Determinism, Diff, Report};
use rich::*;
use words::*;

/// HTML-escapes text for element content and quoted attribute values.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    askzico_core::search::excerpt::escape_into(s, &mut out);
    out
}

const CSS: &str = r#"
*{box-sizing:border-box}
body{margin:0;background:#fafaf7;color:#1d1d1b;font-family:"Noto Naskh Arabic","Noto Sans Arabic","Amiri","Segoe UI",Tahoma,sans-serif;line-height:1.7;word-break:normal;overflow-wrap:break-word}
main{max-width:1180px;margin:0 auto;padding:24px 16px}
h1,h2,h3{line-height:1.35;margin:1em 0 .4em}
h1{font-size:1.7em;margin-top:0}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;margin:8px 0}
th,td{border:1px solid #d8d6cc;padding:6px 8px;text-align:start;vertical-align:top}
th{background:#efede4}
tr.fail td{background:#fde8e6}
tr.warn td{background:#fff6dc}
td.num{white-space:nowrap}
.id,.ltr{direction:ltr;unicode-bidi:isolate;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.88em;overflow-wrap:anywhere}
code{direction:ltr;unicode-bidi:isolate;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.88em;background:#f0eee6;border-radius:3px;padding:0 3px;overflow-wrap:anywhere}
code.block{display:block;text-align:left;white-space:pre-wrap;padding:6px 8px;margin:4px 0}
.key{font-size:.78em;color:#5a5a55;background:none;padding:0;white-space:nowrap}
.en{direction:ltr;unicode-bidi:isolate}
bdi{overflow-wrap:anywhere}
ul.ex{margin:4px 0;padding-inline-start:18px}
ul.ex li{margin:2px 0}
ul.tally{list-style:none;margin:8px 0;padding:0;display:flex;flex-wrap:wrap;gap:6px 18px}
.summary{border:2px solid #d8d6cc;background:#fff;border-radius:8px;padding:4px 14px 10px;margin:12px 0 20px}
.summary.failed{border-color:#c9302c;border-width:3px}
.check,.chunk{border:1px solid #d8d6cc;background:#fff;margin:14px 0;padding:10px 12px;border-radius:6px}
.check.fail{border-color:#c9302c;border-inline-start-width:6px}
.check.warn{border-color:#d9a300;border-inline-start-width:6px}
.check h3{margin:0 0 4px}
.meta{color:#555;font-size:.92em}
.pair{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:12px}
.ev{white-space:pre-wrap;border-inline-start:4px solid #b5651d;border-top:2px dashed #b5651d;border-bottom:2px dashed #b5651d;padding:8px;margin:0;background:#fffdf6;font:inherit}
.st{white-space:pre-wrap;border-inline-start:4px solid #5b7db1;padding:8px;margin:0;background:#f5f8fd;font:inherit;color:#333}
.badge{display:inline-block;padding:0 8px;border-radius:10px;font-size:.85em;white-space:nowrap}
.good{background:#dff0d8}.bad{background:#f8d7da}.warn{background:#fcefc7}
@media (max-width:700px){main{padding:12px 10px}h1{font-size:1.4em}.pair{grid-template-columns:minmax(0,1fr)}th,td{padding:4px 5px}}
"#;

/// The line every report has in its head, by which `paths::guard_output` recognizes a report.
pub(crate) const GENERATOR: &str = "<meta name=\"generator\" content=\"askzico inspect\">";

/// A check's verdict in the report: over its limit, within it with findings, or clean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Status {
    Fail,
    Warn,
    Pass,
}

impl Status {
    fn of(c: &CheckResult) -> Status {
        if !c.ok {
            Status::Fail
        } else if c.count > 0 || c.upstream > 0 {
            Status::Warn
        } else {
            Status::Pass
        }
    }
    fn class(self) -> &'static str {
        match self {
            Status::Fail => "fail",
            Status::Warn => "warn",
            Status::Pass => "ok",
        }
    }
    fn badge(self) -> &'static str {
        match self {
            Status::Fail => "<span class=\"badge bad\">فاشل</span>",
            Status::Warn => "<span class=\"badge warn\">تنبيه</span>",
            Status::Pass => "<span class=\"badge good\">ناجح</span>",
        }
    }
}

/// The checks in the order a reader needs them: failing ones (most findings first), then
/// those with findings within their limit, then the clean ones, each group in report order.
fn worst_first(checks: &[CheckResult]) -> Vec<&CheckResult> {
    let mut v: Vec<&CheckResult> = checks.iter().collect();
    v.sort_by_key(|c| {
        let s = Status::of(c);
        (
            s,
            if s == Status::Pass {
                0
            } else {
                usize::MAX - c.count
            },
        )
    });
    v
}

/// The whole report as one HTML document.
pub(crate) fn render(r: &Report) -> String {
    let mut h = String::new();
    // The page title holds no markup: the corpus name is isolated by FSI … PDI.
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"ar\" dir=\"rtl\">\n<head>\n<meta charset=\"utf-8\">\n{}\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>تقرير فحص \u{2068}{}\u{2069}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n",
        GENERATOR,
        escape(&r.corpus)
    );
    let _ = write!(
        h,
        "<h1>تقرير فحص <bdi>{}</bdi></h1>\n<p class=\"meta\">الإصدار {} · البيئة <bdi>{}</bdi> · {} · {}</p>\n",
        escape(&r.corpus),
        ltr(&r.corpus_version),
        escape(&r.environment),
        count_phrase(r.chunks, &CHUNK),
        count_phrase(r.libraries, &LIBRARY),
    );
    let order = worst_first(&r.checks);
    render_summary(&mut h, r, &order);
    render_checks(&mut h, &order);
    if let Some(d) = &r.determinism {
        render_determinism(&mut h, d);
    }
    if let Some(groups) = &r.warnings {
        render_warnings(&mut h, groups);
    }
    render_sample(&mut h, r);
    if let Some(d) = &r.diff {
        render_diff(&mut h, d);
    }
    h.push_str("</main>\n</body>\n</html>\n");
    h
}

/// A check's count against its limit, in words.
fn count_and_max(c: &CheckResult) -> String {
    let limit = if c.max == usize::MAX {
        "بلا حد".to_string()
    } else {
        format!("الحد {}", c.max)
    };
    let upstream = match c.upstream {
        0 => String::new(),
        n => format!("، و{n} كما يعرضها المصدر نفسه"),
    };
    format!("{} ({limit}){upstream}", count_phrase(c.count, &FINDING))
}

/// The verdict, how many checks failed, warned and passed, each check in one row (failing
/// first) and the first examples of what failed.
fn render_summary(h: &mut String, r: &Report, order: &[&CheckResult]) {
    let tally = |s: Status| order.iter().filter(|c| Status::of(c) == s).count();
    let _ = write!(
        h,
        "<section id=\"summary\" class=\"summary{}\">\n<h2>الخلاصة: {}</h2>\n<p>{} على {}.</p>\n<ul class=\"tally\"><li>{} {}</li><li>{} {}</li><li>{} {}</li>",
        if r.ok { "" } else { " failed" },
        if r.ok {
            "<span class=\"badge good\">ناجح</span>"
        } else {
            "<span class=\"badge bad\">فاشل</span>"
        },
        count_phrase(order.len(), &CHECK),
        count_phrase(r.chunks, &CHUNK),
        Status::Fail.badge(),
        count_phrase(tally(Status::Fail), &CHECK),
        Status::Warn.badge(),
        count_phrase(tally(Status::Warn), &CHECK),
        Status::Pass.badge(),
        count_phrase(tally(Status::Pass), &CHECK),
    );
    if let Some(d) = &r.determinism {
        let _ = write!(
            h,
            "<li>{} الحتمية</li>",
            if d.equal {
                Status::Pass.badge()
            } else {
                Status::Fail.badge()
            }
        );
    }
    h.push_str("</ul>\n<div class=\"scroll\"><table class=\"sum\">\n<tr><th>الحالة</th><th>الفحص</th><th>العدد</th></tr>\n");
    if let Some(d) = r.determinism.as_ref().filter(|d| !d.equal) {
        let _ = writeln!(
            h,
            "<tr class=\"fail\"><td>{}</td><td><a href=\"#determinism\">الحتمية</a> {}</td><td>{}</td></tr>",
            Status::Fail.badge(),
            key("determinism"),
            if d.rebuilt.is_empty() {
                "فشلت إعادة البناء"
            } else {
                "إصدار مختلف"
            }
        );
    }
    for c in order {
        let s = Status::of(c);
        let _ = writeln!(
            h,
            "<tr class=\"{}\"><td>{}</td><td><a href=\"#check-{}\">{}</a> {}</td><td class=\"num\">{}</td></tr>",
            s.class(),
            s.badge(),
            escape(&c.name),
            label(c).0,
            key(&c.name),
            count_and_max(c)
        );
    }
    h.push_str("</table></div>\n");
    let flagged: Vec<&&CheckResult> = order
        .iter()
        .filter(|c| Status::of(c) != Status::Pass && !c.examples.is_empty())
        .collect();
    if !flagged.is_empty() {
        h.push_str("<h3>أول الأمثلة</h3>\n");
        for c in flagged {
            let _ = writeln!(
                h,
                "<p>{} <strong>{}</strong> {}</p>",
                Status::of(c).badge(),
                label(c).0,
                key(&c.name)
            );
            examples(h, &c.examples[..c.examples.len().min(3)]);
        }
    }
    h.push_str("</section>\n");
}

fn examples(h: &mut String, examples: &[super::Example]) {
    h.push_str("<ul class=\"ex\">");
    for e in examples {
        h.push_str("<li>");
        if !e.chunk_id.is_empty() {
            h.push_str(&ltr(&e.chunk_id));
            h.push(' ');
        }
        h.push_str(&rich(&e.excerpt));
        h.push_str("</li>");
    }
    h.push_str("</ul>\n");
}

/// Each check with its description, count, limit and examples, in the summary's order.
fn render_checks(h: &mut String, order: &[&CheckResult]) {
    h.push_str("<h2>الفحوص بالتفصيل</h2>\n");
    for c in order {
        let s = Status::of(c);
        let (name, description) = label(c);
        let _ = write!(
            h,
            "<section class=\"check {}\" id=\"check-{}\">\n<h3>{} {} {}</h3>\n<p>{}</p>\n<p class=\"meta\">{}</p>\n",
            s.class(),
            escape(&c.name),
            s.badge(),
            name,
            key(&c.name),
            description,
            count_and_max(c)
        );
        if !c.examples.is_empty() {
            examples(h, &c.examples);
        }
        h.push_str("</section>\n");
    }
}

/// Whether a rebuild gave the same corpus version.
fn render_determinism(h: &mut String, d: &Determinism) {
    let verdict = match (d.equal, d.rebuilt.is_empty()) {
        (true, _) => "أعطت إعادة بناء المدخلات نفسها إصدار المدونة نفسه",
        (false, true) => "فشلت إعادة البناء",
        (false, false) => "أعطت إعادة البناء إصدارًا مختلفًا",
    };
    let _ = write!(
        h,
        "<h2 id=\"determinism\">الحتمية {}</h2>\n<p><span class=\"badge {}\">{}</span> {verdict}: المبني {} · المعاد بناؤه {}</p>\n<p class=\"meta\">{}</p>\n",
        key("determinism"),
        if d.equal { "good" } else { "bad" },
        if d.equal {
            "متطابق"
        } else {
            "مختلف"
        },
        ltr(&d.built),
        ltr(&d.rebuilt),
        english(&d.note)
    );
}

/// The rebuild's warnings by code.
fn render_warnings(h: &mut String, groups: &[crate::inspect::WarningGroup]) {
    let n: usize = groups.iter().map(|g| g.count).sum();
    let _ = writeln!(h, "<h2>تحذيرات البناء ({})</h2>", count_phrase(n, &WARNING));
    for g in groups {
        let _ = write!(
            h,
            "<h3>{} ({})</h3>\n<ul class=\"ex\">",
            ltr(&g.code),
            count_phrase(g.count, &WARNING)
        );
        for w in &g.instances {
            let place = match (w["file"].as_str(), w["line"].as_u64()) {
                (Some(f), Some(l)) => format!("{f}:{l}"),
                (Some(f), None) => f.to_string(),
                _ => String::new(),
            };
            let message = w["message"].as_str().unwrap_or_default();
            let _ = write!(h, "<li>{} {}</li>", ltr(&place), english(message));
        }
        h.push_str("</ul>\n");
    }
}

/// The sampled chunks, their text beside their search text.
fn render_sample(h: &mut String, r: &Report) {
    let _ = writeln!(
        h,
        "<h2>عينة للمراجعة ({})</h2>",
        count_phrase(r.sample.len(), &CHUNK)
    );
    for s in &r.sample {
        let span = s.span.map(|(a, b)| format!("{a}–{b}")).unwrap_or_default();
        let _ = write!(
            h,
            "<section class=\"chunk\">\n<h3>{}</h3>\n<p class=\"meta\">{} · {} · {}<br>الحدود (بايت) {} · {} · المسار: {}</p>\n<div class=\"pair\"><div><strong>النص</strong> {}<pre class=\"ev\">{}</pre></div><div><strong>نص البحث</strong> {}<pre class=\"st\">{}</pre></div></div>\n</section>\n",
            rich(&s.title),
            ltr(&s.library),
            ltr(&s.chunk_id),
            ltr(&s.url),
            ltr(&span),
            count_phrase(s.chars, &CHAR),
            rich(&s.heading_path.join(" › ")),
            key("text"),
            rich(&s.text),
            key("search_text"),
            rich(&s.search_text)
        );
    }
}

fn list(h: &mut String, label: &str, noun: &Noun, ids: &[String]) {
    if ids.is_empty() {
        return;
    }
    let _ = write!(
        h,
        "<tr><td>{label}</td><td class=\"num\">{}</td><td>",
        count_phrase(ids.len(), noun)
    );
    let shown: Vec<String> = ids.iter().take(50).map(|i| ltr(i)).collect();
    h.push_str(&shown.join(" "));
    if ids.len() > 50 {
        let _ = write!(h, " … (+{})", ids.len() - 50);
    }
    h.push_str("</td></tr>\n");
}

fn render_diff(h: &mut String, d: &Diff) {
    let _ = write!(
        h,
        "<h2>الفرق بين الإصدارين</h2>\n<p class=\"meta\">من {} إلى {}</p>\n",
        ltr(&d.from),
        ltr(&d.to)
    );
    if d.libraries.is_empty() {
        h.push_str("<p>لا فرق في المقاطع.</p>\n");
    }
    for (lib, l) in &d.libraries {
        let _ = write!(h, "<h3>{}</h3>\n<div class=\"scroll\"><table>\n", ltr(lib));
        list(h, "مستندات مضافة", &DOCUMENT, &l.docs_added);
        list(h, "مستندات محذوفة", &DOCUMENT, &l.docs_removed);
        list(h, "مستندات معدَّلة", &DOCUMENT, &l.docs_changed);
        list(h, "مقاطع مضافة", &CHUNK, &l.chunks_added);
        list(h, "مقاطع محذوفة", &CHUNK, &l.chunks_removed);
        list(h, "مقاطع معدَّلة", &CHUNK, &l.chunks_changed);
        let shifted: Vec<String> = l
            .shifted
            .iter()
            .map(|(a, b)| format!("{a} → {b}"))
            .collect();
        list(h, "مقاطع تغيَّر ترتيبها", &CHUNK, &shifted);
        h.push_str("</table></div>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_agree_with_their_number() {
        let cases = [
            (0, "0 مقاطع"),
            (1, "1 مقطع"),
            (2, "2 مقطعان"),
            (3, "3 مقاطع"),
            (10, "10 مقاطع"),
            (11, "11 مقطعًا"),
            (99, "99 مقطعًا"),
            (100, "100 مقطع"),
            (101, "101 مقطع"),
            (102, "102 مقطع"),
            (103, "103 مقاطع"),
            (110, "110 مقاطع"),
            (111, "111 مقطعًا"),
            (200, "200 مقطع"),
            (1000, "1000 مقطع"),
            (1005, "1005 مقاطع"),
            (1099, "1099 مقطعًا"),
        ];
        for (n, want) in cases {
            assert_eq!(count_phrase(n, &CHUNK), want, "{n}");
        }
    }

    #[test]
    fn every_check_has_an_arabic_label() {
        for (k, _) in super::super::CHECKS {
            let (_, name, description) = LABELS
                .iter()
                .find(|(l, _, _)| l == k)
                .unwrap_or_else(|| panic!("no Arabic label for {k}"));
            assert!(name.chars().any(is_arabic) && description.chars().any(is_arabic));
        }
        assert_eq!(LABELS.len(), super::super::CHECKS.len());
    }

    #[test]
    fn code_and_latin_runs_stay_left_to_right() {
        let text = "مقدمة\n```vue\nconst app = createApp({})\n```\nثم `app.mount('#x')` في النص";
        assert_eq!(
            rich(text),
            "مقدمة<code class=\"block\" dir=\"ltr\">```vue\nconst app = createApp({})\n```</code>ثم <code dir=\"ltr\">`app.mount(&#39;#x&#39;)`</code> في النص"
        );
        // An excerpt on one line, cut inside its block.
        assert_eq!(
            rich("…نص ```vue <div>({const app = createApp…"),
            "…نص <code dir=\"ltr\">```vue &lt;div&gt;({const app = createApp…</code>"
        );
        // An excerpt that begins inside its block: the fence closes it when Arabic follows.
        assert_eq!(
            rich("…createApp({}) ``` ثم نستدعي"),
            "<code dir=\"ltr\">…createApp({}) ```</code> ثم نستدعي"
        );
        assert_eq!(
            rich("…by/itself' } }) ``` Ø§Ù„ÙƒØªØ§Ø¨…"),
            "<code dir=\"ltr\">…by/itself&#39; } }) ``` Ø§Ù„ÙƒØªØ§Ø¨…</code>"
        );
        // A bracket that opens an Arabic aside stays in the Arabic text.
        assert_eq!(
            rich("أو CP1256 (`ط§ظ„`)"),
            "أو <bdi dir=\"ltr\">CP1256</bdi> (<code dir=\"ltr\">`ط§ظ„`</code>)"
        );
        // The report's own descriptions hide the backticks that mark their code.
        assert_eq!(
            rich_with("فوق `chunking.max_chars`", Ticks::Hidden),
            "فوق <code dir=\"ltr\">chunking.max_chars</code>"
        );
        // Code without backticks, and a Latin word closing an Arabic sentence.
        assert_eq!(
            rich("قبل ({const app = createApp بعد الدالة foo."),
            "قبل <bdi dir=\"ltr\">({const app = createApp</bdi> بعد الدالة <bdi dir=\"ltr\">foo</bdi>."
        );
        assert_eq!(
            rich("(انظر foo) و «bar»"),
            "(انظر <bdi dir=\"ltr\">foo</bdi>) و «<bdi dir=\"ltr\">bar</bdi>»"
        );
        // A lone backtick is text; everything stays escaped.
        assert_eq!(rich("a ` <b>"), "<bdi dir=\"ltr\">a ` &lt;b&gt;</bdi>");
    }
}
