//! The self-contained HTML report: inline CSS, no scripts, no network fetches, right-to-left
//! Arabic. Everything that comes from the corpus goes through `escape`.

use std::fmt::Write;

use super::{Diff, Report};

/// HTML-escapes text for element content and quoted attribute values.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    askzico_core::search::excerpt::escape_into(s, &mut out);
    out
}

const CSS: &str = r#"
*{box-sizing:border-box}
body{margin:0;background:#fafaf7;color:#1d1d1b;font-family:"Noto Naskh Arabic","Noto Sans Arabic","Amiri","Segoe UI",Tahoma,sans-serif;line-height:1.7;overflow-wrap:anywhere}
main{max-width:1180px;margin:0 auto;padding:24px}
h1,h2,h3{line-height:1.3}
table{border-collapse:collapse;width:100%;table-layout:fixed;margin:12px 0}
th,td{border:1px solid #d8d6cc;padding:6px 8px;text-align:start;vertical-align:top;overflow-wrap:anywhere}
th{background:#efede4}
tr.fail td{background:#fde8e6}
tr.ok td.count{color:#2d6a2d}
.ltr{direction:ltr;unicode-bidi:isolate;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}
ul.ex{margin:0;padding-inline-start:18px}
.chunk{border:1px solid #d8d6cc;background:#fff;margin:16px 0;padding:12px;border-radius:6px}
.meta{color:#555;font-size:.92em}
.pair{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:12px}
.ev{white-space:pre-wrap;overflow-wrap:anywhere;border-inline-start:4px solid #b5651d;border-top:2px dashed #b5651d;border-bottom:2px dashed #b5651d;padding:8px;margin:0;background:#fffdf6;font:inherit}
.st{white-space:pre-wrap;overflow-wrap:anywhere;border-inline-start:4px solid #5b7db1;padding:8px;margin:0;background:#f5f8fd;font:inherit;color:#333}
.badge{display:inline-block;padding:0 8px;border-radius:10px;font-size:.85em}
.good{background:#dff0d8}.bad{background:#f8d7da}
"#;

fn ltr(s: &str) -> String {
    format!("<span class=\"ltr\" dir=\"ltr\">{}</span>", escape(s))
}

/// The line every report has in its head, by which `paths::guard_output` recognizes a report.
pub(crate) const GENERATOR: &str = "<meta name=\"generator\" content=\"askzico inspect\">";

/// The whole report as one HTML document.
pub(crate) fn render(r: &Report) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"ar\" dir=\"rtl\">\n<head>\n<meta charset=\"utf-8\">\n{}\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>فحص المدونة — {}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n",
        GENERATOR,
        escape(&r.corpus)
    );
    let _ = write!(
        h,
        "<h1>فحص المدونة {}</h1>\n<p class=\"meta\">الإصدار {} · البيئة {} · {} مقطعًا · <span class=\"badge {}\">{}</span></p>\n",
        escape(&r.corpus),
        ltr(&r.corpus_version),
        escape(&r.environment),
        r.chunks,
        if r.ok { "good" } else { "bad" },
        if r.ok { "ناجح" } else { "فاشل" }
    );
    render_checks(&mut h, r);
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

/// Each check with its description, count, maximum and examples.
fn render_checks(h: &mut String, r: &Report) {
    h.push_str("<h2>الفحوص</h2>\n<table>\n<colgroup><col style=\"width:16%\"><col style=\"width:28%\"><col style=\"width:7%\"><col style=\"width:7%\"><col></colgroup>\n<tr><th>الفحص</th><th>الوصف</th><th>العدد</th><th>الحد</th><th>أمثلة</th></tr>\n");
    for c in &r.checks {
        let _ = write!(
            h,
            "<tr class=\"{}\"><td>{}</td><td>{}</td><td class=\"count\">{}</td><td>{}</td><td>",
            if c.ok { "ok" } else { "fail" },
            ltr(&c.name),
            escape(&c.description),
            c.count,
            c.max_shown()
        );
        if !c.examples.is_empty() {
            h.push_str("<ul class=\"ex\">");
            for e in &c.examples {
                let _ = write!(h, "<li>{} {}</li>", ltr(&e.chunk_id), escape(&e.excerpt));
            }
            h.push_str("</ul>");
        }
        h.push_str("</td></tr>\n");
    }
    h.push_str("</table>\n");
}

/// Whether a rebuild gave the same corpus version.
fn render_determinism(h: &mut String, d: &crate::inspect::Determinism) {
    let _ = write!(
        h,
        "<h2>الحتمية</h2>\n<p><span class=\"badge {}\">{}</span> المبني {} · المعاد بناؤه {}</p>\n<p class=\"meta\">{}</p>\n",
        if d.equal { "good" } else { "bad" },
        if d.equal {
            "متطابق"
        } else {
            "مختلف"
        },
        ltr(&d.built),
        ltr(&d.rebuilt),
        escape(&d.note)
    );
}

/// The rebuild's warnings by code.
fn render_warnings(h: &mut String, groups: &[crate::inspect::WarningGroup]) {
    let n: usize = groups.iter().map(|g| g.count).sum();
    let _ = writeln!(h, "<h2>تحذيرات البناء ({n})</h2>");
    for g in groups {
        let _ = write!(
            h,
            "<h3>{} ({})</h3>\n<ul class=\"ex\">",
            ltr(&g.code),
            g.count
        );
        for w in &g.instances {
            let place = match (w["file"].as_str(), w["line"].as_u64()) {
                (Some(f), Some(l)) => format!("{f}:{l}"),
                (Some(f), None) => f.to_string(),
                _ => String::new(),
            };
            let message = w["message"].as_str().unwrap_or_default();
            let _ = write!(h, "<li>{} {}</li>", ltr(&place), escape(message));
        }
        h.push_str("</ul>\n");
    }
}

/// The sampled chunks, their text beside their search text.
fn render_sample(h: &mut String, r: &Report) {
    let _ = writeln!(h, "<h2>عينة للمراجعة ({} مقطعًا)</h2>", r.sample.len());
    for s in &r.sample {
        let span = s.span.map(|(a, b)| format!("{a}–{b}")).unwrap_or_default();
        let _ = write!(
            h,
            "<section class=\"chunk\">\n<h3>{}</h3>\n<p class=\"meta\">{} · {} · {}<br>الحدود (بايت) {} · {} حرفًا · المسار: {}</p>\n<div class=\"pair\"><div><strong>text</strong><pre class=\"ev\">{}</pre></div><div><strong>search_text</strong><pre class=\"st\">{}</pre></div></div>\n</section>\n",
            escape(&s.title),
            ltr(&s.library),
            ltr(&s.chunk_id),
            ltr(&s.url),
            ltr(&span),
            s.chars,
            escape(&s.heading_path.join(" › ")),
            escape(&s.text),
            escape(&s.search_text)
        );
    }
}

fn list(h: &mut String, label: &str, ids: &[String]) {
    if ids.is_empty() {
        return;
    }
    let _ = write!(
        h,
        "<tr><td>{}</td><td>{}</td><td>",
        escape(label),
        ids.len()
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
        let _ = write!(
            h,
            "<h3>{}</h3>\n<table>\n<colgroup><col style=\"width:18%\"><col style=\"width:8%\"><col></colgroup>\n",
            ltr(lib)
        );
        list(h, "docs added", &l.docs_added);
        list(h, "docs removed", &l.docs_removed);
        list(h, "docs changed", &l.docs_changed);
        list(h, "chunks added", &l.chunks_added);
        list(h, "chunks removed", &l.chunks_removed);
        list(h, "chunks changed", &l.chunks_changed);
        let shifted: Vec<String> = l
            .shifted
            .iter()
            .map(|(a, b)| format!("{a} → {b}"))
            .collect();
        list(h, "shifted", &shifted);
        h.push_str("</table>\n");
    }
}
