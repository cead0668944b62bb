//! Frontmatter, MDX syntax and identity: unterminated and invalid blocks, JSX and expressions the
//! MDX parser rejects (read as Markdown with a warning), invalid, path-like, duplicate and
//! over-long IDs.

use super::*;

pub const CASES: &[Case] = &[
    Case::new(
        "unterminated YAML frontmatter",
        |p| put(p, "src/open.md", "---\ntitle: x\n\nنص بلا نهاية للرأس\n"),
        1,
        err(
            "src/open.md",
            Some(1),
            "unterminated frontmatter: no closing `---`",
        ),
    ),
    Case::new(
        "unterminated TOML frontmatter",
        |p| put(p, "src/open.md", "+++\ntitle = \"x\"\n\nنص\n"),
        1,
        err("src/open.md", Some(1), "no closing `+++`"),
    ),
    Case::new(
        "invalid YAML frontmatter names its line",
        |p| put(p, "src/bad.md", "---\ntitle: ok\ntags: [x\n---\n\nنص\n"),
        1,
        err("src/bad.md", None, "invalid YAML frontmatter"),
    ),
    Case::new(
        "invalid TOML frontmatter names its line",
        |p| {
            put(
                p,
                "src/bad.md",
                "+++\ntitle = \"ok\"\nweight = = 3\n+++\n\nنص\n",
            )
        },
        1,
        err("src/bad.md", Some(3), "invalid TOML frontmatter"),
    ),
    Case::new(
        "frontmatter that is a list, not a mapping",
        |p| put(p, "src/list.md", "---\n- a\n- b\n---\n\nنص\n"),
        1,
        err("src/list.md", Some(2), "frontmatter must be a mapping"),
    ),
    Case::new(
        "a frontmatter title of the wrong type",
        |p| put(p, "src/t.md", "---\ntitle: [a, b]\n---\n\nنص\n"),
        1,
        err("src/t.md", None, "frontmatter `title` must be text"),
    ),
    Case::new(
        "an unterminated JSX tag falls back to Markdown with a warning",
        |p| {
            put(
                p,
                "src/jsx.mdx",
                "# عنوان\n\nنص أول.\n\n<Note>\n\nنص داخل وسم لا يغلق.\n",
            )
        },
        0,
        warn("src/jsx.mdx", None, "read as plain Markdown"),
    )
    .check(|p, _| {
        if evidence(p).contains("نص داخل وسم لا يغلق") {
            Ok(())
        } else {
            Err("the text after the tag is lost".into())
        }
    }),
    Case::new(
        "an unterminated MDX expression falls back with its line",
        |p| {
            put(
                p,
                "src/expr.mdx",
                "---\ntitle: t\n---\n\n# عنوان\n\nنص {props.x\n\nنص أخير.\n",
            )
        },
        0,
        warn("src/expr.mdx", None, "not valid MDX"),
    ),
    Case::new(
        "frontmatter id `..` asks for an id",
        |p| put(p, "src/dots.md", "---\nid: \"..\"\n---\n\n# t\n\nنص\n"),
        1,
        err("src/dots.md", None, "`..` path segment"),
    ),
    Case::new(
        "frontmatter id `a/../b` is refused",
        |p| put(p, "src/dots.md", "---\nid: a/../b\n---\n\n# t\n\nنص\n"),
        1,
        err("src/dots.md", None, "`..` path segment"),
    ),
    Case::new(
        "frontmatter id `./x` is refused",
        |p| put(p, "src/dots.md", "---\nid: ./x\n---\n\n# t\n\nنص\n"),
        1,
        err("src/dots.md", None, "`.` path segment"),
    ),
    Case::new(
        "frontmatter id `/abs` is refused",
        |p| put(p, "src/dots.md", "---\nid: /abs\n---\n\n# t\n\nنص\n"),
        1,
        err("src/dots.md", None, "cannot make a doc_id from slug `/abs`"),
    ),
    Case::new(
        "a file named `..md` makes a `.` slug",
        |p| put(p, "src/..md", "# t\n\nنص\n"),
        1,
        err("src/..md", None, "`.` path segment"),
    ),
    Case::new(
        "a non-ASCII file name needs an id",
        |p| put(p, "src/عربي.md", "# t\n\nنص\n"),
        1,
        err("src/عربي.md", None, "cannot make a doc_id"),
    ),
    Case::new(
        "duplicate frontmatter ids name both files",
        |p| {
            put(p, "src/one.md", "---\nid: same\n---\n# x\n\nنص\n")?;
            put(p, "src/two.md", "---\nid: same\n---\n# y\n\nنص\n")
        },
        1,
        err(
            "src/one.md",
            None,
            "doc_id `docs:same` is produced by 2 sources: src/one.md, src/two.md",
        ),
    ),
    Case::new(
        "a frontmatter id duplicating another file's slug",
        |p| put(p, "src/other.md", "---\nid: good\n---\n# x\n\nنص\n"),
        1,
        err(
            "src/good.md",
            None,
            "doc_id `docs:good` is produced by 2 sources",
        ),
    ),
    Case::new(
        "an over-long file name",
        |p| put(p, &format!("src/{}.md", "a".repeat(70)), "# t\n\nنص\n"),
        1,
        Some(Diag {
            level: "error",
            file: None,
            line: None,
            message: "over the 64-byte Vectorize limit",
        }),
    ),
    Case::new(
        "an over-long frontmatter id",
        |p| {
            put(
                p,
                "src/long.md",
                format!("---\nid: {}\n---\n# t\n\nنص\n", "x".repeat(60)),
            )
        },
        1,
        err("src/long.md", None, "over the 64-byte Vectorize limit"),
    ),
];

#[test]
fn frontmatter_mdx_and_ids() {
    run_table(CASES);
}
