//! Size and shape: empty and near-empty files (a warning, exit 0), a 200 MB file against the
//! size limit, the per-document chunk limit, deep nesting, a huge single line.

use std::io::Write;

use super::*;

/// A sparse file of `len` bytes: no disk space, no memory, and the build must not read it.
fn sparse(root: &Path, rel: &str, len: u64) -> Result<(), String> {
    let p = root.join(rel);
    let f = std::fs::File::create(&p).map_err(|e| e.to_string())?;
    f.set_len(len).map_err(|e| e.to_string())
}

/// A file streamed to disk in pieces (never whole in memory here).
fn streamed(
    root: &Path,
    rel: &str,
    head: &str,
    piece: &str,
    times: usize,
    tail: &str,
) -> Result<(), String> {
    let mut f =
        std::io::BufWriter::new(std::fs::File::create(root.join(rel)).map_err(|e| e.to_string())?);
    f.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
    for _ in 0..times {
        f.write_all(piece.as_bytes()).map_err(|e| e.to_string())?;
    }
    f.write_all(tail.as_bytes()).map_err(|e| e.to_string())
}

fn chunks_bounded(root: &Path, _: &[Value]) -> Result<(), String> {
    let recs = records(root);
    let longest = recs
        .iter()
        .map(|r| r["text"].as_str().unwrap().chars().count())
        .max()
        .unwrap_or(0);
    if recs.len() < 3 || longest > 7000 {
        Err(format!("{} chunks, longest {longest} chars", recs.len()))
    } else {
        Ok(())
    }
}

fn has(root: &Path, needle: &str) -> Result<(), String> {
    if evidence(root).contains(needle) {
        Ok(())
    } else {
        Err(format!("evidence lacks {needle:?}"))
    }
}

pub const CASES: &[Case] = &[
    Case::new("an empty Markdown file", |p| put(p, "src/empty.md", ""), 0, warn("src/empty.md", None, "nothing to index")),
    Case::new("a whitespace-only file", |p| put(p, "src/blank.md", " \n\t\n  \r\n"), 0, warn("src/blank.md", None, "nothing to index")),
    Case::new("a frontmatter-only file", |p| put(p, "src/fm.md", "---\ntitle: عنوان فقط\n---\n"), 0, warn("src/fm.md", None, "nothing to index")),
    Case::new("an empty MDX file", |p| put(p, "src/empty.mdx", ""), 0, warn("src/empty.mdx", None, "nothing to index")),
    Case::new("an MDX file of imports and exports only", |p| put(p, "src/esm.mdx", "import A from './a'\nexport const x = 1\n"), 0, warn("src/esm.mdx", None, "nothing to index")),
    Case::new("an empty HTML file", |p| put(p, "src/empty.html", ""), 0, Some(Diag { level: "warning", file: Some("src/empty.html"), line: None, message: "nothing to index" })),
    Case::new("a 200 MB sparse file is refused by the size limit without being read", |p| sparse(p, "src/huge.md", 200 * 1024 * 1024), 1, err("src/huge.md", None, "209715200 bytes is over the 64 MiB limit")),
    Case::new("a configured max_file_mb bounds a streamed 2 MB file", |p| {
        streamed(p, "src/big.md", "# كبير\n\n", "كلمة عربية في سطر طويل. ", 100_000, "\n")?;
        set_config(p, &CONFIG.replace("name = \"bad\"", "name = \"bad\"\nmax_file_mb = 1"))
    }, 1, err("src/big.md", None, "over the 1 MiB limit")),
    Case::new("a 3 MB single line is cut into bounded chunks", |p| streamed(p, "src/line.md", "# سطر\n\n", "كلمة عربية طويلة بلا نهاية ", 110_000, "\n"), 0, None).check(chunks_bounded),
    Case::new("one document over max_chunks", |p| {
        streamed(p, "src/many.md", "# كثير\n\n", "## قسم\n\nفقرة عربية طويلة بما يكفي لتكون قطعة مستقلة في هذا الاختبار الطويل نسبيا.\n\n", 50, "")?;
        set_config(p, &format!("{CONFIG}\n[chunking]\nmax_chars = 500\nmin_chars = 10\nmax_chunks = 3\n"))
    }, 1, err("src/many.md", None, "over the limit of 3 per document")),
    Case::new("100,000-deep nested HTML", |p| streamed(p, "src/deep.html", &format!("<!doctype html><title>عميق</title><body><main><article><h1>عميق</h1><p>نص عربي قبل التعشيش العميق جدا في هذه الصفحة.</p><p>{PROSE}</p>"), "<div>", 100_000, "نص في العمق</article></main>"), 0, None)
        .check(|p, _| has(p, "نص عربي قبل التعشيش")),
    Case::new("100,000-deep nested Markdown quotes", |p| streamed(p, "src/deep.md", "# عميق\n\n", "> ", 100_000, "نص\n"), 0, None),
    Case::new("100,000-deep nested JSX in MDX", |p| streamed(p, "src/deep.mdx", "# عميق\n\nنص أول.\n\n", "<Note>", 100_000, "نص\n"), 0, warn("src/deep.mdx", None, "read as plain Markdown")),
    Case::new("an HTML entity flood stays bounded", |p| streamed(p, "src/ents.html", &format!("<!doctype html><!DOCTYPE x [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;\">]><title>كيانات</title><main><article><h1>كيانات</h1><p>{PROSE}</p><p>نص عربي &b;"), "&amp;&#1575;&b;", 50_000, "</p></article></main>"), 0, None)
        .check(|p, _| {
            let e = evidence(p);
            if e.contains("aaaaaaaaaa") { Err("a DTD entity was expanded".into()) } else if !e.contains("تاريخ المدينة") { Err("the article is lost".into()) } else { Ok(()) }
        }),
    Case::new("a YAML alias bomb in frontmatter is refused or bounded", |p| {
        let mut y = String::from("---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for (i, n) in ["b", "c", "d", "e", "f", "g", "h", "i"].iter().enumerate() {
            let prev = if i == 0 { "a".to_string() } else { ["b", "c", "d", "e", "f", "g", "h"][i - 1].to_string() };
            y.push_str(&format!("{n}: &{n} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
        }
        y.push_str("---\n\n# قنبلة\n\nنص.\n");
        put(p, "src/bomb.md", y)
    }, 1, err("src/bomb.md", Some(2), "the YAML frontmatter uses too many aliases or anchors")),
];

pub(crate) fn sizes_and_shapes() {
    run_table(CASES);
}
