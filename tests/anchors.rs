//! Section links on small sites in each generator's heading-id convention: the ids a build
//! stores for a page's sections (`anchors` of its chunk records) are the ones the generator
//! gives those headings, written here by hand from each generator's rules, and a query's
//! `section_url` links the section its excerpt lies in.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::*;

/// A page whose sections are longer than a chunk's minimum, so each heading starts a section:
/// repeated headings, punctuation, an Arabic heading, a leading digit and an explicit id.
fn page() -> String {
    let body = |word: &str| {
        format!(
            "{}\n\n",
            format!("{word} نص يشرح هذا القسم بتفصيل. ").repeat(12)
        )
    };
    [
        "# دليل الإعداد\n\n".to_string(),
        body("مقدمة"),
        "## Getting Started\n\n".into(),
        body("بداية"),
        "## التثبيت والإعداد\n\n".into(),
        body("تثبيت"),
        "### Getting Started\n\n".into(),
        body("تكرار"),
        "## API: `useState()` & friends\n\n".into(),
        body("واجهة"),
        "## 2. الخطوة الثانية\n\n".into(),
        body("خطوة"),
        "## Custom {#my-id}\n\n".into(),
        body("مخصص"),
    ]
    .concat()
}

/// The section ids a build of `page()` stores, in a library with `anchors` set (or not).
fn stored_ids(dir: &Path, anchors: Option<&str>) -> BTreeSet<String> {
    let key = anchors.map_or(String::new(), |a| format!("anchors = \"{a}\"\n"));
    std::fs::write(
        dir.join("corpus.toml"),
        format!("[corpus]\nname = \"t\"\n\n[chunking]\nmax_chars = 500\n\n[[library]]\nid = \"docs\"\nroot = \"src\"\nurl = \"https://docs.test/{{slug}}\"\n{key}"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/guide.md"), page()).unwrap();
    let o = run(bin().current_dir(dir).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    ids_in(&dir.join("out"))
}

fn ids_in(out: &Path) -> BTreeSet<String> {
    chunk_records(out, "manifest.json")
        .iter()
        .flat_map(|r| r["anchors"].as_array().unwrap().clone())
        .map(|a| a[1].as_str().unwrap().to_string())
        .filter(|id| !id.is_empty())
        .collect()
}

fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

#[test]
fn each_convention_links_the_ids_its_generator_gives() {
    use unicode_normalization::UnicodeNormalization;
    let cases: [(Option<&str>, BTreeSet<String>); 5] = [
        (None, set(&["my-id"])),
        (
            Some("github"),
            set(&[
                "getting-started",
                "التثبيت-والإعداد",
                "getting-started-1",
                "api-usestate--friends",
                "2-الخطوة-الثانية",
                "my-id",
            ]),
        ),
        (
            Some("vitepress"),
            set(&[
                "getting-started",
                // VitePress slugs the NFKD form of a heading (إ as ا and a combining hamza).
                &"التثبيت-والإعداد".nfkd().collect::<String>(),
                "getting-started-1",
                "api-usestate-friends",
                "_2-الخطوة-الثانية",
                "my-id",
            ]),
        ),
        (
            Some("mkdocs"),
            set(&[
                "getting-started",
                // The Arabic title took `_1`: Python-Markdown numbers every empty id.
                "_2",
                "getting-started_1",
                "api-usestate-friends",
                "2",
                "my-id",
            ]),
        ),
        (
            Some("mdbook"),
            set(&[
                "getting-started",
                "التثبيت-والإعداد",
                "getting-started-1",
                "api-usestate--friends",
                "2-الخطوة-الثانية",
                "my-id",
            ]),
        ),
    ];
    for (rule, want) in cases {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(stored_ids(dir.path(), rule), want, "{rule:?}");
    }
}

/// A question about one section answers with a link to it: percent-encoded when the id is
/// Arabic, the page's own URL for the introduction under the page title.
#[test]
fn a_hit_links_the_section_its_excerpt_lies_in() {
    let dir = tempfile::tempdir().unwrap();
    stored_ids(dir.path(), Some("github"));
    let ask = |q: &str| {
        let o = run(bin()
            .current_dir(dir.path())
            .args(["query", "--json", "--mode", "lexical", "--k", "1", q]));
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        v["hits"][0]["section_url"].as_str().unwrap().to_string()
    };
    assert_eq!(
        ask("تثبيت"),
        "https://docs.test/guide#%D8%A7%D9%84%D8%AA%D8%AB%D8%A8%D9%8A%D8%AA-%D9%88%D8%A7%D9%84%D8%A5%D8%B9%D8%AF%D8%A7%D8%AF"
    );
    assert_eq!(ask("مخصص"), "https://docs.test/guide#my-id");
    assert_eq!(ask("مقدمة"), "https://docs.test/guide");
}

/// Zero config names the generator's ids when it recognises the site (VitePress by its
/// `.vitepress` folder) and says so; an unrecognised one links explicit ids only.
#[test]
fn zero_config_uses_the_recognised_generators_ids() {
    for (marker, want) in [
        (Some(".vitepress/config.js"), "api-usestate-friends"),
        (None, ""),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        std::fs::create_dir_all(site.join("docs/.vitepress")).unwrap();
        if let Some(m) = marker {
            std::fs::write(site.join("docs").join(m), "export default {}\n").unwrap();
        } else {
            std::fs::remove_dir(site.join("docs/.vitepress")).unwrap();
        }
        std::fs::write(site.join("docs/guide.md"), page()).unwrap();
        std::fs::write(site.join("docs/index.md"), "# البداية\n\nصفحة أولى.\n").unwrap();
        let out = dir.path().join("out");
        let o = run(bin()
            .current_dir(dir.path())
            .args(["build", "--sources"])
            .arg(&site)
            .arg("--out")
            .arg(&out));
        assert!(o.status.success(), "{}", stderr(&o));
        let ids = ids_in(&out);
        if want.is_empty() {
            assert!(!stderr(&o).contains("section links:"), "{}", stderr(&o));
            assert!(!ids.contains("api-usestate-friends"), "{ids:?}");
        } else {
            assert!(
                stderr(&o).contains("section links: heading ids as vitepress names them"),
                "{}",
                stderr(&o)
            );
            assert!(ids.contains(want), "{ids:?}");
        }
    }
}

/// An HTML page's heading `id` attributes link its sections, as an explicit id in Markdown does.
#[test]
fn an_html_heading_id_links_its_section() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("corpus.toml"),
        "[corpus]\nname = \"t\"\n\n[chunking]\nmax_chars = 500\n\n[[library]]\nid = \"site\"\nroot = \"src\"\nurl = \"https://site.test/{slug}\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    let para = |w: &str| {
        format!(
            "<p>{}</p>",
            format!("{w} نص يشرح هذا القسم بتفصيل. ").repeat(12)
        )
    };
    let html = format!(
        "<html><body><main><h1>الدليل</h1>{}<h2 id=\"install\">التثبيت</h2>{}<h2>بلا معرف</h2>{}</main></body></html>",
        para("مقدمة"),
        para("تثبيت"),
        para("خاتمة")
    );
    std::fs::write(dir.path().join("src/guide.html"), html).unwrap();
    let o = run(bin().current_dir(dir.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(ids_in(&dir.path().join("out")), set(&["install"]));
    let o = run(bin().current_dir(dir.path()).args([
        "query",
        "--json",
        "--mode",
        "lexical",
        "--k",
        "1",
        "تثبيت",
    ]));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        v["hits"][0]["section_url"],
        "https://site.test/guide#install"
    );
}
