//! The fast path against markdown-rs: accepted and declined constructs, generated documents and
//! the shared corpora extract the same on both paths.

use super::*;
use crate::extract::{frontmatter, markdown as md, mdx};

/// The body both paths give, with the fast path's acceptance.
fn both(text: &str) -> (Option<crate::extract::Body>, Option<crate::extract::Body>) {
    (mdx::fast_body(text), mdx::markdown_rs_body(text))
}

#[test]
fn components_expressions_and_esm_take_the_fast_path() {
    let doc = "import Note from './Note';\nexport const a = 1;\n\n# عنوان {/*top*/}\n\n<Note type=\"tip\">\n\nفقرة أولى\nتكملة السطر.\n\n- أ\n- ب\n\n```js{1}\nconst x = {a: 1};\n```\n\n</Note>\n\n{/* تعليق */}\n\nفقرة <Kbd>Ctrl</Kbd> أخيرة.\n";
    let (fast, slow) = both(doc);
    let fast = fast.expect("the fast path accepts this document");
    assert_eq!(Some(&fast), slow.as_ref());
    assert!(
        fast.text.contains("فقرة أولى\nتكملة السطر."),
        "soft breaks stay line breaks: {:?}",
        fast.text
    );
}

#[test]
fn constructs_it_cannot_reproduce_are_declined() {
    for doc in [
        "text\n\n    indented code\n",
        "<script>\nlet a = 1;\n</script>\n",
        "<Note>\n\nunclosed\n",
        "a <b>open\nb</b>\n",
        "Title\n=====\n",
        "a {b\nc}\n",
        "~~struck~~\n",
        "- a\n\n  <Note>\n\n  x\n\n  </Note>\n",
        "a\n<A/>\n2. x\n",
        "[a]: /x\n",
        "```\nunclosed\n",
        // A label the walker renders as text, which the fast path would drop with the tag.
        "<TabItem value=\"a\" label=\"أ\">\n\nx\n\n</TabItem>\n",
        "<Card icon='x' title='أ'>\n\nx\n\n</Card>\n",
    ] {
        assert!(to_mdast(doc).is_none(), "should be declined: {doc:?}");
    }
}

/// Deterministic random documents mixing Markdown, MDX and tricky edges (no corpus text).
fn generated(n: usize) -> Vec<String> {
    const WORDS: &[&str] = &["نص", "عربي", "كلمة", "word", "a", "b1", "في", "2024", "x"];
    const INLINE: &[&str] = &[
        "<Kbd>Ctrl</Kbd>",
        "<b/>",
        "<br />",
        "{x}",
        "{/* c */}",
        "{{a: 1}}",
        "*em*",
        "**strong**",
        "_u_",
        "`code`",
        "``a`b``",
        "[link](http://x)",
        "[ref]",
        "![img](i.png)",
        "&amp;",
        "&lt;",
        "&#1575;",
        "\\*",
        "\\{",
        "\\<",
        "  ",
        "\\",
        "<A b={1}>z</A>",
        "*",
        "_",
        "[",
        "]",
        "(",
        ")",
        "#",
        "!",
        "|",
        "~",
        "}",
        "<",
        "{",
        "a<b",
        ".",
        "،",
        "\"q\"",
        "<i>",
        "</i>",
        "***",
        "&nbsp;",
    ];
    const LINES: &[&str] = &[
        "",
        "",
        "",
        "# عنوان",
        "## h {/*anchor*/}",
        "### h <Badge/>",
        "#{x} a",
        "- item",
        "* item",
        "+ item",
        "1. one",
        "2) two",
        "  - nested",
        "    - deeper",
        "   1. three",
        "> quote",
        "> > deep",
        ">",
        "---",
        "***",
        "===",
        "| a | b |",
        "|---|---|",
        "a | b",
        "--- | ---",
        "```js",
        "```",
        "~~~",
        "    ```",
        "   ```",
        "```js{1,2}",
        "    code",
        "\tcode",
        "import X from 'y'",
        "export const a = 1",
        "<Note type=\"tip\">",
        "</Note>",
        "<Note>",
        "<Note/>",
        "{/* comment */}",
        "{x} {y}",
        "<A>{b}</A>",
        "  <Note>",
        "[r]: http://x",
        "- [ ] task",
        "- [x] done",
        "-",
        "1.",
        "    text",
        "<Kbd>a</Kbd> b",
        "{a} b",
        "b {a}",
        "text  ",
        "text\\",
        "Title",
        "- <X/> y",
        "exported text",
        "important",
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut below = |n: usize| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64) as usize
    };
    (0..n)
        .map(|_| {
            let mut s = String::new();
            for _ in 0..1 + below(14) {
                let base = LINES[below(LINES.len())];
                s.push_str(base);
                if below(2) == 0 && !base.starts_with("```") {
                    for _ in 0..1 + below(5) {
                        s.push_str(if below(3) == 0 {
                            INLINE[below(INLINE.len())]
                        } else {
                            WORDS[below(WORDS.len())]
                        });
                        if below(2) == 0 {
                            s.push(' ');
                        }
                    }
                }
                s.push('\n');
            }
            s
        })
        .collect()
}

#[test]
fn generated_documents_extract_the_same_on_both_paths() {
    let docs = generated(20_000);
    let mut accepted = 0;
    for doc in &docs {
        let (fast, slow) = both(doc);
        if let Some(fast) = fast {
            accepted += 1;
            assert_eq!(Some(&fast), slow.as_ref(), "the paths differ on {doc:?}");
        }
    }
    println!(
        "generated documents: {accepted} of {} take the fast path",
        docs.len()
    );
    assert!(
        accepted > docs.len() / 20,
        "only {accepted} generated documents took the fast path"
    );
}

/// Every Markdown and MDX file of the shared corpora (read at test time, never copied), as
/// the MDX extractor sees it: both paths must agree wherever the fast path accepts a file.
#[test]
fn shared_corpora_extract_the_same_on_both_paths() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
    if !root.is_dir() {
        println!("skipped: {} is absent", root.display());
        return;
    }
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let (mut accepted, mut mdx_files, mut mdx_accepted) = (0, 0, 0);
    for path in &files {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let Ok(text) = crate::extract::decode(&bytes) else {
            continue;
        };
        let Ok(split) = frontmatter::split(&text) else {
            continue;
        };
        let pre = md::preprocess(split.body);
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        // The libraries that corpus.toml reads as MDX.
        let is_mdx = rel.starts_with("react-dev-ar/") || rel.ends_with(".mdx");
        mdx_files += usize::from(is_mdx);
        let (fast, slow) = both(&pre);
        if let Some(fast) = fast {
            accepted += 1;
            mdx_accepted += usize::from(is_mdx);
            assert_eq!(Some(&fast), slow.as_ref(), "the paths differ on {rel}");
        }
    }
    println!(
        "shared corpora: {accepted} of {} Markdown/MDX files take the fast path ({mdx_accepted} of the {mdx_files} read as MDX)",
        files.len()
    );
    assert!(
        files.is_empty() || accepted > 0,
        "no file of the shared corpora took the fast path"
    );
}

fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            collect(&path, out);
        } else if matches!(
            path.extension().and_then(|x| x.to_str()),
            Some("md" | "mdx")
        ) {
            out.push(path);
        }
    }
}

#[test]
fn a_heading_id_comment_is_the_headings_anchor_on_both_paths() {
    let doc = "# عنوان {/*top*/}\n\nفقرة.\n\n#### الخصائص والحالات {/*props-vs-state*/}\n\nنص.\n\n## بلا معرف\n\nنص.\n";
    let (fast, slow) = both(doc);
    let fast = fast.expect("the fast path accepts this document");
    assert_eq!(Some(&fast), slow.as_ref());
    let anchors: Vec<_> = fast.blocks.iter().map(|b| b.anchor.as_deref()).collect();
    assert_eq!(
        anchors,
        [Some("top"), None, Some("props-vs-state"), None, None, None]
    );
}
