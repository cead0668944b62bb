//! Sites as their generators publish them, in zero config: the content root each generator
//! reads, and the syntax of its Markdown dialect read as the published page shows it (never
//! evidence), with `inspect`'s `generator-syntax` check at zero.

mod common;

use std::path::{Path, PathBuf};

use common::*;

const PROSE: &str = "الصوم في الكنيسة القبطية فترة طويلة من الصلاة والتأمل، يتدرب فيها المؤمن على ضبط النفس ومحبة القريب.";

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Builds `dir` with `--sources`; what it printed (stderr, then stdout), and the chunk records
/// by chunk ID.
fn build(dir: &Path) -> (String, PathBuf, Vec<serde_json::Value>) {
    let out = dir.parent().unwrap().join("out");
    let o = run(bin()
        .current_dir(dir.parent().unwrap())
        .arg("build")
        .arg("--sources")
        .arg(dir)
        .arg("--out")
        .arg(&out));
    assert!(o.status.success(), "{}", stderr(&o));
    let mut records = chunk_records(&out, "manifest.json");
    records.sort_by(|a, b| a["chunk_id"].as_str().cmp(&b["chunk_id"].as_str()));
    (stderr(&o) + &stdout(&o), out, records)
}

/// The count of `inspect`'s `generator-syntax` check over the build of `dir` in `out`, and of
/// the hits the sources show as written (counted apart).
fn generator_syntax(dir: &Path, out: &Path) -> (u64, u64) {
    let o = run(bin()
        .current_dir(dir.parent().unwrap())
        .args(["inspect", "--json", "--no-rebuild", "--sources"])
        .arg(dir)
        .arg("--out")
        .arg(out));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("inspect JSON");
    let check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "generator-syntax")
        .expect("the check runs")
        .clone();
    (
        check["count"].as_u64().unwrap(),
        check["upstream"].as_u64().unwrap(),
    )
}

fn text_of<'a>(records: &'a [serde_json::Value], source: &str) -> String {
    records
        .iter()
        .filter(|r| r["source"].as_str().unwrap().ends_with(source))
        .map(|r| r["text"].as_str().unwrap())
        .collect::<Vec<&'a str>>()
        .join("\n")
}

fn sources(records: &[serde_json::Value]) -> Vec<String> {
    let mut s: Vec<String> = records
        .iter()
        .map(|r| r["source"].as_str().unwrap().to_string())
        .collect();
    s.dedup();
    s
}

#[test]
fn an_mdbook_reads_its_src_without_summary_directives_or_hidden_lines() {
    let t = tempfile::tempdir().unwrap();
    let book = t.path().join("book");
    write(
        &book,
        "book.toml",
        "[book]\ntitle = \"كتاب\"\nsrc = \"src\"\n",
    );
    write(&book, "README.md", "# عن المستودع\n\nكيف تبني الكتاب.\n");
    // A prefix chapter outside the list: still the book's navigation.
    write(
        &book,
        "src/SUMMARY.md",
        "# الفهرس\n\n[مقدمة](intro.md)\n\n- [الفصل الأول](ch01.md)\n",
    );
    write(&book, "src/intro.md", &format!("# مقدمة\n\n{PROSE}\n"));
    write(
        &book,
        "src/ch01.md",
        &format!(
            "{{{{#title الفصل الأول}}}}\n# الفصل الأول\n\n{PROSE}\n\n```rust\n{{{{#rustdoc_include ../listings/ch01/main.rs:here}}}}\n```\n\n```rust,editable\n# use std::io;\nfn main() {{\n    println!(\"hi\");\n}}\n```\n\nانظر {{{{#include ../listings/note.md}}}} هنا.\n\n```rust\n{{{{#include ../listings/gone.rs}}}}\n```\n\nاكتب \\{{{{#include file.rs}}}} لتضمين ملف.\n"
        ),
    );
    let listing = |says: &str| {
        format!(
            "use std::cmp::Ordering;\n// ANCHOR: here\nfn main() {{\n    println!(\"{says}\");\n}}\n// ANCHOR_END: here\n"
        )
    };
    write(&book, "listings/ch01/main.rs", &listing("guess"));
    write(
        &book,
        "listings/note.md",
        "ملاحظة {{#include ch01/part.md}}\n",
    );
    write(&book, "listings/ch01/part.md", "مضمنة");
    let (err, out, records) = build(&book);
    assert!(err.contains("content root: src (mdBook layout)"), "{err}");
    assert!(err.contains("table of contents (src/SUMMARY.md)"), "{err}");
    assert_eq!(sources(&records), ["book/ch01.md", "book/intro.md"]);
    let ch = text_of(&records, "ch01.md");
    // Includes read as mdBook shows them: the anchor's lines, the rest of the listing hidden,
    // included Markdown (itself including) in the prose; a missing file's include left out.
    assert!(
        ch.contains("```rust\nfn main() {\n    println!(\"guess\");\n}\n```"),
        "{ch}"
    );
    assert!(!ch.contains("Ordering") && !ch.contains("ANCHOR"), "{ch}");
    assert!(ch.contains("انظر ملاحظة مضمنة هنا."), "{ch}");
    assert!(!ch.contains("{{#include ../"), "{ch}");
    assert!(
        err.contains("`../listings/gone.rs` is not in the book"),
        "{err}"
    );
    assert!(!ch.contains("use std::io"), "{ch}");
    assert!(ch.contains("```rust,editable\nfn main() {"), "{ch}");
    assert_eq!(records[0]["chunk_id"].as_str().unwrap(), "book:ch01:000");
    // An escaped directive is what the page shows: the check counts it apart, as the source's.
    assert!(ch.contains("اكتب {{#include file.rs}} لتضمين ملف."), "{ch}");
    assert_eq!(generator_syntax(&book, &out), (0, 1));

    // An included file is an input of the page that includes it: an edit to it alone builds
    // the page again, and the build equals a clean one.
    write(&book, "listings/ch01/main.rs", &listing("edited"));
    let (_, _, records) = build(&book);
    let ch = text_of(&records, "ch01.md");
    assert!(ch.contains("println!(\"edited\")"), "{ch}");
    let manifest = |out: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap()
    };
    let clean = t.path().join("clean");
    let o = run(bin()
        .current_dir(t.path())
        .args(["build", "--sources"])
        .arg(&book)
        .arg("--out")
        .arg(&clean));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        manifest(&out)["corpus_version"],
        manifest(&clean)["corpus_version"]
    );
}

#[test]
fn an_obsidian_vault_reads_links_as_labels_and_fields_as_metadata() {
    let t = tempfile::tempdir().unwrap();
    let vault = t.path().join("vault");
    write(&vault, ".obsidian/app.json", "{}\n");
    write(
        &vault,
        "ملاحظات/الصوم.md",
        &format!(
            "status:: منشور\n\n{PROSE}\n\nانظر [[الأعياد|الأعياد الكبرى]] و[[الصلاة#السواعي]] ![[صورة.png]]\n\n> [!note] تنبيه\n> الصوم [مدة:: أربعون يوما] يسبق العيد.\n\n%% مسودة لم تنشر %%\n\n```dataview\nLIST FROM \"ملاحظات\"\n```\n"
        ),
    );
    write(
        &vault,
        "الأعياد.md",
        &format!("{PROSE}\n\nالنسبة $a\\,b \\times 2$ ثابتة.\n\n$$\n\\frac{{1}}{{2}}\\;x\n$$\n"),
    );
    write(&vault, "قسم عام/ملاحظة أولى.md", &format!("{PROSE}\n"));
    let (err, out, records) = build(&vault);
    assert!(err.contains("generator = \"obsidian\""), "{err}");
    // TeX is kept as written: its backslashes are not Markdown escapes.
    let feasts = text_of(&records, "vault/الأعياد.md");
    assert!(
        feasts.contains("النسبة a\\,b \\times 2 ثابتة.") && feasts.contains("\\frac{1}{2}\\;x"),
        "{feasts}"
    );
    let note = records
        .iter()
        .find(|r| r["source"].as_str().unwrap().ends_with("ملاحظات/الصوم.md"))
        .unwrap();
    let text = note["text"].as_str().unwrap();
    assert_eq!(
        text,
        format!(
            "الصوم\n\n{PROSE}\n\nانظر الأعياد الكبرى والصلاة > السواعي\n\nتنبيه الصوم يسبق العيد."
        )
    );
    // The note's title is its file name; its fields are metadata, not evidence.
    assert_eq!(note["title"], "الصوم");
    assert_eq!(note["metadata"]["status"], "منشور");
    assert_eq!(note["metadata"]["مدة"], "أربعون يوما");
    assert_eq!(generator_syntax(&vault, &out), (0, 0));
    // Arabic file names give readable ASCII IDs, with a hash of the name; the URL keeps the
    // path as it is, and the build says how many IDs the setting spelled.
    let id = note["chunk_id"].as_str().unwrap();
    let (doc, hash) = id.split_once(":mlahzat/alswm~t").expect(id);
    assert_eq!(doc, "vault");
    assert!(hash.starts_with(|c: char| c.is_ascii_hexdigit()), "{id}");
    assert!(
        note["url"].as_str().unwrap().ends_with("/ملاحظات/الصوم"),
        "{note}"
    );
    // Quartz publishes a path with spaces as a slug.
    assert!(
        records
            .iter()
            .any(|r| r["url"].as_str().unwrap().ends_with("/قسم-عام/ملاحظة-أولى")),
        "{records:?}"
    );
    assert!(
        err.contains("vault: 3 IDs spelled in ASCII by `slugs = \"transliterate\"`"),
        "{err}"
    );

    // A written config without the key reads the page as plain Markdown, and escapes names.
    write(
        t.path(),
        "corpus.toml",
        "[corpus]\nname = \"v\"\n\n[[library]]\nid = \"v\"\nroot = \"vault\"\ninclude = [\"**/*.md\"]\n",
    );
    let o = run(bin().current_dir(t.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let plain = chunk_records(&t.path().join("out"), "manifest.json");
    assert!(plain.iter().any(|r| {
        r["text"]
            .as_str()
            .unwrap()
            .contains("[[الأعياد|الأعياد الكبرى]]")
    }));
    assert!(
        plain
            .iter()
            .any(|r| r["chunk_id"].as_str().unwrap().starts_with("v:~D9~85"))
    );
    // `slugs` set with the generator's default: the same transliterated IDs.
    write(
        t.path(),
        "corpus.toml",
        "[corpus]\nname = \"v\"\n\n[[library]]\nid = \"v\"\nroot = \"vault\"\ninclude = [\"**/*.md\"]\nslugs = \"transliterate\"\n",
    );
    let o = run(bin().current_dir(t.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let spelled = chunk_records(&t.path().join("out"), "manifest.json");
    assert!(
        spelled
            .iter()
            .any(|r| r["chunk_id"].as_str().unwrap() == id.replacen("vault:", "v:", 1))
    );
}

#[test]
fn mkdocs_admonitions_and_tabs_read_as_their_content_under_docs_dir() {
    let t = tempfile::tempdir().unwrap();
    let site = t.path().join("site");
    write(
        &site,
        "mkdocs.yml",
        "site_name: دليل\ndocs_dir: pages\ntheme:\n  name: material\n",
    );
    write(&site, "README.md", "# المستودع\n");
    write(
        &site,
        "pages/index.md",
        &format!(
            "# دليل\n\n!!! warning \"تحذير\"\n    {PROSE}\n\n    ```sh\n    echo 1\n    ```\n\n=== \":material-apple: ماك\"\n\n    على ماك.\n\n??? tip\n    نصيحة مطوية.\n\nخاتمة.\n"
        ),
    );
    let (err, out, records) = build(&site);
    assert!(err.contains("content root: pages (MkDocs layout)"), "{err}");
    assert_eq!(
        text_of(&records, "index.md"),
        format!(
            "دليل\n\nتحذير\n\n{PROSE}\n\n```sh\necho 1\n```\n\nماك\n\nعلى ماك.\n\nنصيحة مطوية.\n\nخاتمة."
        )
    );
    assert_eq!(generator_syntax(&site, &out), (0, 0));
}

#[test]
fn vitepress_reads_its_src_dir_and_docusaurus_its_arabic_translation() {
    let t = tempfile::tempdir().unwrap();
    let site = t.path().join("site");
    write(
        &site,
        ".vitepress/config.ts",
        "export default defineConfig({\n  srcDir: 'src',\n  title: 'Docs',\n})\n",
    );
    write(&site, "README.md", "# repo\n");
    write(
        &site,
        "src/guide/start.md",
        &format!("# البداية\n\n[[toc]]\n\n::: tip نصيحة\n{PROSE}\n:::\n"),
    );
    let (err, out, records) = build(&site);
    assert!(
        err.contains("content root: src (VitePress layout)"),
        "{err}"
    );
    assert_eq!(records[0]["chunk_id"], "site:guide/start:000");
    assert_eq!(records[0]["url"], "/site/guide/start");
    assert_eq!(
        records[0]["text"].as_str().unwrap(),
        format!("البداية\n\nنصيحة\n\n{PROSE}")
    );
    assert_eq!(generator_syntax(&site, &out), (0, 0));

    let t = tempfile::tempdir().unwrap();
    let site = t.path().join("site");
    write(
        &site,
        "docusaurus.config.js",
        "module.exports = {\n  i18n: { defaultLocale: 'en', locales: ['en', 'ar'] },\n};\n",
    );
    write(&site, "docs/intro.md", "# Intro\n\nThe English page.\n");
    write(
        &site,
        "i18n/ar/docusaurus-plugin-content-docs/current/intro.md",
        &format!(
            "import Tabs from '@theme/Tabs';\nimport {{\n  Note,\n}} from './_note.mdx';\n\n# مقدمة\n\n:::note\n{PROSE}\n:::\n\n```js\nimport x from 'y';\n```\n"
        ),
    );
    // A partial: pages import it, Docusaurus never publishes it.
    write(
        &site,
        "i18n/ar/docusaurus-plugin-content-docs/current/_note.mdx",
        "ملاحظة مشتركة.\n",
    );
    let (err, _, records) = build(&site);
    assert!(
        err.contains(
            "content root: i18n/ar/docusaurus-plugin-content-docs/current (Docusaurus layout)"
        ),
        "{err}"
    );
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["chunk_id"], "site:intro:000");
    // `.md` pages are MDX to Docusaurus: their imports are code, never shown (but in a fence).
    let text = records[0]["text"].as_str().unwrap();
    assert!(
        !text.contains("@theme") && !text.contains("Note,"),
        "{text}"
    );
    assert!(text.contains("import x from 'y';"), "{text}");

    // Front matter as Docusaurus reads it: `id` names the page within its folder, so two
    // folders may both say `id: overview`; `slug` sets the URL, in the folder or from the root.
    let current = "i18n/ar/docusaurus-plugin-content-docs/current";
    for (dir, slug) in [
        ("01-guide", "start"),
        ("api", "/reference/"),
        ("02-home", "/"),
    ] {
        write(
            &site,
            &format!("{current}/{dir}/01-overview.md"),
            &format!(
                "---\nid: overview\nslug: {slug}\nsidebar_label: نظرة\n---\n# نظرة عامة\n\n{PROSE}\n"
            ),
        );
    }
    let (err, _, records) = build(&site);
    assert!(err.contains("generator = \"docusaurus\""), "{err}");
    let url = |id: &str| {
        records
            .iter()
            .find(|r| r["chunk_id"] == id)
            .map(|r| r["url"].as_str().unwrap().to_string())
    };
    // Ordering prefixes go from IDs and URLs, as Docusaurus drops them from its routes.
    assert_eq!(
        url("site:guide/overview:000").as_deref(),
        Some("/site/guide/start")
    );
    assert_eq!(
        url("site:api/overview:000").as_deref(),
        Some("/site/reference")
    );
    assert_eq!(url("site:home/overview:000").as_deref(), Some("/site/"));
    assert!(!err.contains("docusaurus-locale"), "{err}");

    // Without an Arabic translation, a site whose default locale is another language is read
    // from docs/, and the build says which language that is.
    std::fs::remove_dir_all(site.join("i18n")).unwrap();
    let (err, _, records) = build(&site);
    assert!(
        err.contains("content root: docs (Docusaurus layout)"),
        "{err}"
    );
    assert!(
        err.contains("docusaurus-locale: docusaurus.config.js: this site's default locale is `en`"),
        "{err}"
    );
    assert!(
        records
            .iter()
            .any(|r| r["text"].as_str().unwrap().contains("The English page"))
    );
}

/// A collection with one file per book, chapters of numbered items, the book named by the file
/// or by a field above the records.
fn write_books(dir: &Path) {
    let item = |n: u32, text: &str| format!("{{\"n\": {n}, \"text\": \"{text}\"}}");
    let chapter = |c: u32, items: &[String]| {
        format!("{{\"chapter\": {c}, \"items\": [{}]}}", items.join(", "))
    };
    let one = chapter(
        1,
        &[
            item(
                1,
                "في البدء كان الحديث عن السماء والنور والظلمة في أول الأيام.",
            ),
            item(2, "وكانت الأرض خالية وعلى وجه الماء ظلمة شديدة."),
            item(3, "وقيل ليكن نور فكان نور يملأ المكان كله."),
        ],
    );
    let two = chapter(
        1,
        &[item(1, "وهذه أسماء الذين جاءوا إلى المدينة مع أبيهم.")],
    );
    write(
        dir,
        "books/genesis.json",
        &format!("{{\"name\": \"التكوين\", \"chapters\": [{one}]}}"),
    );
    write(
        dir,
        "books/exodus.json",
        &format!("{{\"name\": \"الخروج\", \"chapters\": [{two}]}}"),
    );
}

#[test]
fn nested_json_records_read_their_file_and_ancestors_and_cite_their_items() {
    let t = tempfile::tempdir().unwrap();
    write_books(t.path());
    let config = r#"[corpus]
name = "scripture"

[[library]]
id = "bible"
root = "books"
include = ["*.json"]
format = "json"

[library.records]
select = "chapters.*"
id = "{$file}/{chapter}"
title = "{..name} {chapter}"
url = "https://example.org/{$file}/{chapter}"
text = "items"
item_label = "n"
item_anchor = "v{n}"
"#;
    write(t.path(), "corpus.toml", config);
    let o = run(bin().current_dir(t.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let records = chunk_records(&t.path().join("out"), "manifest.json");
    let genesis = records
        .iter()
        .find(|r| r["chunk_id"] == "bible:genesis/1:000")
        .expect("one ID per book and chapter");
    assert!(
        records
            .iter()
            .any(|r| r["chunk_id"] == "bible:exodus/1:000")
    );
    assert_eq!(genesis["title"], "التكوين 1");
    let text = genesis["text"].as_str().unwrap();
    assert!(
        text.contains("\n\n3: وقيل ليكن نور"),
        "item labels kept: {text}"
    );
    // The verse that answers is linked, not the page's top nor the first stray match.
    let o = run(bin()
        .current_dir(t.path())
        .args(["query", "ليكن نور", "--json"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let answer: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        answer["hits"][0]["section_url"],
        "https://example.org/genesis/1#v3"
    );

    // Without the file in the ID, two books' chapter 1 collide: the help says how to tell them
    // apart in a records mapping, not with a frontmatter `id`.
    write(
        t.path(),
        "corpus.toml",
        &config.replace("id = \"{$file}/{chapter}\"", "id = \"{chapter}\""),
    );
    let o = run(bin().current_dir(t.path()).arg("build"));
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("doc_id `bible:1` is produced by 2 sources"),
        "{err}"
    );
    assert!(
        err.contains("{$file}/{chapter}") && err.contains("{..name}"),
        "{err}"
    );
    assert!(!err.contains("frontmatter"), "{err}");
}
