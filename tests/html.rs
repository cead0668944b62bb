//! HTML main-content extraction on the real EIS1600 pages (Hugo "Stack" theme) and on the
//! repo's own chrome-wrapped sample pages. The EIS pages carry no license: they are read at test
//! time and the assertions are structural (block kinds, absent chrome strings, skip reasons);
//! expected article text is computed from the file itself at run time.

use std::path::{Path, PathBuf};

use askzico::{BlockKind, HtmlOutcome, arabic_script_majority, doc_text, extract_html};

mod common;

fn corpus_dir() -> Option<PathBuf> {
    common::shared_corpora("eis1600 html").map(|c| c.join("eis1600-html-ar/docs/ar"))
}

fn html_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|e| e == "html") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Crude tag stripping + whitespace collapsing, good enough for the plain
/// `<p>` of the article (no entities in it).
fn plain(fragment: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in fragment.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn between<'a>(s: &'a str, start: &str, end: &str) -> &'a str {
    let i = s.find(start).expect("start marker") + start.len();
    let j = s[i..].find(end).expect("end marker") + i;
    &s[i..j]
}

fn article_page_yields_only_the_article() {
    let Some(dir) = corpus_dir() else { return };
    let src = std::fs::read_to_string(dir.join("p/description-of-the-project/index.html")).unwrap();
    let HtmlOutcome::Doc(doc) = extract_html(&src) else {
        panic!("article page was skipped")
    };

    // expected pieces, computed from the file itself
    let title = plain(between(&src, "<title>", "</title>"));
    let content = between(&src, "<section class=\"article-content\">", "</section>");
    let body: Vec<String> = content
        .split("<p>")
        .skip(1)
        .map(|p| plain(p.split("</p>").next().unwrap_or("")))
        .filter(|p| !p.is_empty())
        .collect();
    assert!(!body.is_empty());

    // exactly: the article title heading, then the body paragraph(s); nothing else
    let mut expected = vec![(BlockKind::Heading(2), title.clone())];
    expected.extend(body.iter().map(|p| (BlockKind::Paragraph, p.clone())));
    assert_eq!(doc.blocks, expected);
    assert!(
        doc.blocks
            .iter()
            .any(|(k, t)| *k == BlockKind::Paragraph && t.chars().count() > 1000)
    );
    assert_eq!(doc.title.as_deref(), Some(title.as_str()));
    assert_eq!(
        doc.lang.as_deref(),
        Some("en-us"),
        "the page declares en-us"
    );
    assert_eq!(arabic_script_majority(&doc), Some("ar"));

    // chrome strings that never occur in the article body must be absent
    let text = doc_text(&doc);
    for chrome in [
        "المحتويات",
        "المختبر",
        "English",
        "Deutsch",
        "Русский",
        "فارسى",
        "الوضع الداكن",
        "تُقرأ خلال",
        "دقائق",
        "Nov 21",
        "Hugo",
        "Jimmy",
        "©",
        "مبني بستخدام",
        "Facebook",
        "Avatar",
        "Featured image",
    ] {
        assert!(!text.contains(chrome), "chrome {chrome:?} leaked");
    }
    // menu items / chips that also occur inside the body text: never a block or line of their own
    for chrome in [
        "الرئيسية",
        "المحتويات",
        "المختبر",
        "بحث",
        "عام",
        "وصف",
        "عربي",
    ] {
        for (_, t) in &doc.blocks {
            assert!(
                t.lines().all(|l| l.trim() != chrome),
                "chrome {chrome:?} as its own line"
            );
        }
    }
    // no markdown / markup leftovers
    for md in ["**", "](", "![", "<", ">", "&quot;", "&nbsp;"] {
        assert!(!text.contains(md), "{md:?} in output");
    }
}

fn every_other_page_is_skipped_with_a_reason() {
    let Some(dir) = corpus_dir() else { return };
    let files = html_files(&dir);
    assert_eq!(files.len(), 18, "expected the 18 EIS1600 Arabic pages");
    for path in files {
        let rel = path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let src = std::fs::read_to_string(&path).unwrap();
        let out = extract_html(&src);
        eprintln!(
            "{rel} -> {}",
            match &out {
                HtmlOutcome::Doc(d) => format!("Doc with {} blocks", d.blocks.len()),
                HtmlOutcome::Skip(r) => format!("Skip({r})"),
            }
        );
        if rel == "p/description-of-the-project/index.html" {
            assert!(matches!(out, HtmlOutcome::Doc(_)));
            continue;
        }
        let HtmlOutcome::Skip(reason) = out else {
            panic!("{rel}: expected Skip, got {out:?}")
        };
        if rel.ends_with("page/1/index.html") {
            assert!(
                reason.starts_with("redirect stub to https://eis1600.github.io/ar/"),
                "{rel}: {reason}"
            );
        } else if rel == "404.html" {
            assert!(reason.contains("404"), "{rel}: {reason}");
        } else if rel == "search/index.html" {
            assert!(reason.starts_with("search page"), "{rel}: {reason}");
        } else {
            assert!(reason.starts_with("listing page"), "{rel}: {reason}");
        }
        // determinism
        assert_eq!(extract_html(&src), HtmlOutcome::Skip(reason));
    }
}

fn sample_pages_keep_the_article_and_drop_the_chrome() {
    let dir = common::repo().join("sources/site");
    let mut pages = 0;
    for e in walkdir::WalkDir::new(&dir)
        .into_iter()
        .filter_map(Result::ok)
    {
        if e.path().extension().is_none_or(|x| x != "html") {
            continue;
        }
        pages += 1;
        let src = std::fs::read_to_string(e.path()).unwrap();
        let HtmlOutcome::Doc(doc) = extract_html(&src) else {
            panic!("{}: skipped", e.path().display())
        };
        let text = doc_text(&doc);
        assert!(
            text.chars().count() > 1500,
            "{}: article too short",
            e.path().display()
        );
        for chrome in [
            "الوضع الداكن",
            "تُقرأ خلال",
            "© ٢٠٢٦",
            "مقالات ذات صلة",
            "&quot;",
            "&amp;",
            "&nbsp;",
            "<",
            "function(",
        ] {
            assert!(
                !text.contains(chrome),
                "{}: chrome or markup {chrome:?} leaked",
                e.path().display()
            );
        }
        for item in ["الرئيسية", "المقالات", "من نحن", "اتصل بنا"] {
            assert!(
                doc.blocks
                    .iter()
                    .all(|(_, t)| t.lines().all(|l| l.trim() != item)),
                "{}: menu item {item}",
                e.path().display()
            );
        }
        assert!(doc.title.is_some());
    }
    assert!(pages >= 3);
}

fn main() -> std::process::ExitCode {
    use common::harness::test;
    common::harness::run(vec![
        test(
            "article_page_yields_only_the_article",
            article_page_yields_only_the_article,
        )
        .needs(common::harness::shared_corpora),
        test(
            "every_other_page_is_skipped_with_a_reason",
            every_other_page_is_skipped_with_a_reason,
        )
        .needs(common::harness::shared_corpora),
        test(
            "sample_pages_keep_the_article_and_drop_the_chrome",
            sample_pages_keep_the_article_and_drop_the_chrome,
        ),
    ])
}
