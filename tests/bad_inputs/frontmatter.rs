//! Frontmatter, MDX syntax and identity: unterminated and invalid blocks, JSX and expressions the
//! MDX parser rejects (read as Markdown with a warning), invalid, path-like, duplicate and
//! over-long IDs.

use super::*;

pub const CASES: &[Case] = &[
    Case::new(
        "a key written twice in frontmatter is named, without the parser's advice to programmers",
        |p| {
            put(
                p,
                "src/twice.md",
                "---\ntitle: a\ntitle: b\n---\n\n# x\n\nنص عربي هنا.\n",
            )
        },
        1,
        err(
            "src/twice.md",
            Some(3),
            "invalid YAML frontmatter at line 3 column 1: duplicate mapping key: title",
        ),
    )
    .check(|_, diags| {
        match diags
            .iter()
            .find(|d| d.to_string().contains("DuplicateKeyPolicy"))
        {
            Some(d) => Err(format!("the parser's advice leaks: {d}")),
            None => Ok(()),
        }
    }),
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
        "frontmatter id `..` is escaped, never a path step",
        |p| put(p, "src/dots.md", "---\nid: \"..\"\n---\n\n# t\n\nنص\n"),
        0,
        None,
    )
    .check(|p, _| has_doc(p, "docs:~2E~2E")),
    Case::new(
        "frontmatter id `a/../b` is mapped: the `..` segment escaped",
        |p| put(p, "src/dots.md", "---\nid: a/../b\n---\n\n# t\n\nنص\n"),
        0,
        None,
    )
    .check(|p, _| has_doc(p, "docs:a/~2E~2E/b")),
    Case::new(
        "frontmatter id `./x` is mapped",
        |p| put(p, "src/dots.md", "---\nid: ./x\n---\n\n# t\n\nنص\n"),
        0,
        None,
    )
    .check(|p, _| has_doc(p, "docs:~2E/x")),
    Case::new(
        "frontmatter id `/abs` is mapped",
        |p| put(p, "src/dots.md", "---\nid: /abs\n---\n\n# t\n\nنص\n"),
        0,
        None,
    )
    .check(|p, _| has_doc(p, "docs:~2Fabs")),
    Case::new(
        "a file named `..md` makes a `.` slug, escaped",
        |p| put(p, "src/..md", "# t\n\nنص\n"),
        0,
        None,
    )
    .check(|p, _| has_doc(p, "docs:~2E")),
    Case::new(
        "a non-ASCII file name is escaped byte by byte",
        |p| put(p, "src/عربي.md", "# t\n\nنص\n"),
        0,
        None,
    )
    .check(|p, _| has_doc(p, "docs:~D8~B9~D8~B1~D8~A8~D9~8A")),
    Case::new(
        "strict_ids refuses a non-ASCII file name",
        |p| {
            strict(p)?;
            put(p, "src/عربي.md", "# t\n\nنص\n")
        },
        1,
        err("src/عربي.md", None, "strict_ids refuses"),
    ),
    Case::new(
        "strict_ids refuses frontmatter id `a/../b`",
        |p| {
            strict(p)?;
            put(p, "src/dots.md", "---\nid: a/../b\n---\n\n# t\n\nنص\n")
        },
        1,
        err("src/dots.md", None, "`..` path segment"),
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
        "an over-long file name is shortened: a prefix and a hash",
        |p| put(p, &format!("src/{}.md", "a".repeat(70)), "# t\n\nنص\n"),
        0,
        None,
    )
    .check(|p, _| {
        let ids: Vec<String> = records(p)
            .iter()
            .filter_map(|r| r["chunk_id"].as_str().map(str::to_string))
            .filter(|id| id.contains("~h"))
            .collect();
        match ids.as_slice() {
            [id] if id.len() <= 64 && id.starts_with("docs:aaaa") => Ok(()),
            other => Err(format!("expected one shortened chunk ID, got {other:?}")),
        }
    }),
    Case::new(
        "strict_ids refuses an over-long frontmatter id",
        |p| {
            strict(p)?;
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

pub(crate) fn frontmatter_mdx_and_ids() {
    run_table(CASES);
}

/// Whether the build holds a document with this ID.
fn has_doc(p: &Path, id: &str) -> Result<(), String> {
    let ids: Vec<String> = records(p)
        .iter()
        .filter_map(|r| r["doc_id"].as_str().map(str::to_string))
        .collect();
    if ids.iter().any(|d| d == id) {
        Ok(())
    } else {
        Err(format!("no document `{id}` in {ids:?}"))
    }
}

/// Turns on `[corpus] strict_ids` in the project's config.
fn strict(p: &Path) -> Result<(), String> {
    let cfg = p.join("corpus.toml");
    let text = std::fs::read_to_string(&cfg).map_err(|e| e.to_string())?;
    if text.contains("strict_ids") {
        return Ok(()); // a case's setup runs once per output mode
    }
    std::fs::write(
        &cfg,
        text.replacen("[corpus]\n", "[corpus]\nstrict_ids = true\n", 1),
    )
    .map_err(|e| e.to_string())
}
