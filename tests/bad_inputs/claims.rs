//! Inputs that claim more than they hold: a title with control characters, two pages claiming
//! one URL, a `show` key naming two files, an environment the config lacks, a baseline that
//! cannot gate the run it is given, file names that are not UTF-8, an export of a build with
//! nothing in it, and a `--json` build refused before it starts.

use super::*;

/// A diagnostic without a file (a command's usage).
const fn any_err(message: &'static str) -> Option<Diag> {
    Some(Diag {
        level: "error",
        file: None,
        line: None,
        message,
    })
}

/// Runs `askzico build` in the project (a setup whose command reads a build).
fn build(p: &Path, args: &[&str]) -> Result<(), String> {
    let o = run(bin().current_dir(p).arg("build").args(args));
    if o.status.success() {
        Ok(())
    } else {
        Err(format!("the setup's build failed: {}", stderr(&o)))
    }
}

const FIXTURES: &str =
    "[[case]]\nid = \"good\"\nquestion = \"صفحة سليمة\"\nexpect = [\"docs:good\"]\n";

/// Fixtures with one case (set `regression`), and a baseline whose report is `report`.
fn baseline(p: &Path, report: serde_json::Value) -> Result<(), String> {
    put(p, "fixtures.toml", FIXTURES)?;
    put(p, "baseline.json", report.to_string())
}

fn report(mode: &str, hit5: f64, sets: &[&str]) -> serde_json::Value {
    let m = serde_json::json!({"cases": 1, "hit@1": 1.0, "hit@5": hit5, "mrr@10": 1.0});
    let sets: serde_json::Map<String, serde_json::Value> =
        sets.iter().map(|s| (s.to_string(), m.clone())).collect();
    serde_json::json!({
        "corpus_version": "x",
        "mode": mode,
        "overall": m,
        "sets": sets,
        "libraries": {},
        "cases": [],
    })
}

const EVAL: &[&str] = &[
    "eval",
    "--fixtures",
    "fixtures.toml",
    "--baseline",
    "baseline.json",
];

fn titles_are_clean(p: &Path, _: &[Value]) -> Result<(), String> {
    let recs = records(p);
    let t = recs
        .iter()
        .filter_map(|r| r["title"].as_str())
        .find(|t| t.contains("عنوان"))
        .ok_or("no record of the titled page")?;
    if t.chars().any(char::is_control) {
        return Err(format!("a control character in the title {t:?}"));
    }
    if t.split_whitespace().collect::<Vec<_>>().join(" ") != "عنوان [2J مخفي" {
        return Err(format!(
            "the title {t:?} lost more than its control characters"
        ));
    }
    Ok(())
}

#[cfg(unix)]
fn non_utf8_names(p: &Path) -> Result<(), String> {
    use std::os::unix::ffi::OsStrExt;
    for name in [&b"src/a\xff.md"[..], &b"src/a\xfe.md"[..]] {
        let path = p.join(std::ffi::OsStr::from_bytes(name));
        std::fs::write(&path, GOOD)
            .map_err(|e| format!("this file system refuses the name: {e}"))?;
    }
    Ok(())
}

fn distinct_escaped_ids(p: &Path, _: &[Value]) -> Result<(), String> {
    let recs = records(p);
    let sources: std::collections::BTreeSet<&str> =
        recs.iter().filter_map(|r| r["source"].as_str()).collect();
    for want in ["docs/a\\xFF.md", "docs/a\\xFE.md"] {
        if !sources.contains(want) {
            return Err(format!("no source {want:?} in {sources:?}"));
        }
    }
    let ids: std::collections::BTreeSet<&str> = recs
        .iter()
        .filter(|r| r["source"].as_str().is_some_and(|s| s.contains("\\x")))
        .filter_map(|r| r["doc_id"].as_str())
        .collect();
    if ids.len() != 2 {
        return Err(format!("the two names share an ID: {ids:?}"));
    }
    Ok(())
}

pub const CASES: &[Case] = &[
    Case::new(
        "a title's YAML-escaped control characters are removed, as the body's are",
        |p| {
            put(
                p,
                "src/titled.md",
                "---\ntitle: \"عنوان\\0\\x01 \\e[2J \\a مخفي\"\n---\n\nنص الصفحة ذات العنوان.\n",
            )
        },
        0,
        None,
    )
    .check(titles_are_clean),
    Case::new(
        "two pages of one folder claiming one URL are an error naming both",
        |p| {
            set_config(p, &format!("{CONFIG}url = \"/{{slug}}/\"\n"))?;
            put(p, "src/dup/index.md", GOOD)?;
            put(p, "src/dup/README.md", GOOD)
        },
        1,
        err(
            "src/dup/README.md",
            None,
            "2 pages claim the URL `/dup/`: src/dup/README.md, src/dup/index.md",
        ),
    ),
    Case::new(
        "a show key naming two files lists both",
        |p| {
            put(p, "src/a/faq.md", GOOD)?;
            put(p, "src/b/faq.md", GOOD)?;
            build(p, &[])
        },
        2,
        any_err("`faq.md` names 2 sources: docs/a/faq.md, docs/b/faq.md"),
    )
    .cmd(&["show", "faq.md"]),
    Case::new(
        "a query in an environment the config lacks says so",
        |_| Ok(()),
        2,
        any_err("no environment `nosuch`"),
    )
    .cmd(&["query", "--env", "nosuch", "صفحة"]),
    Case::new(
        "a baseline of another mode cannot gate the run",
        |p| baseline(p, report("lexical", 1.0, &["regression"])),
        1,
        err(
            "baseline.json",
            None,
            "the baseline was measured in mode `lexical`, this run in mode `fused`",
        ),
    )
    .cmd(EVAL),
    Case::new(
        "a baseline with a figure outside 0–1 cannot gate the run",
        |p| baseline(p, report("fused", 7.5, &["regression"])),
        1,
        err("baseline.json", None, "is 7.5, outside 0–1"),
    )
    .cmd(EVAL),
    Case::new(
        "a baseline without a set cannot gate the run",
        |p| baseline(p, report("fused", 1.0, &[])),
        1,
        err("baseline.json", None, "the baseline has no fixture set"),
    )
    .cmd(EVAL),
    Case::new(
        "a baseline without the run's set cannot gate it",
        |p| baseline(p, report("fused", 1.0, &["other"])),
        1,
        err(
            "baseline.json",
            None,
            "the baseline has no figures for set `regression` of this run",
        ),
    )
    .cmd(EVAL),
    #[cfg(unix)]
    Case::new(
        "two file names differing only in a non-UTF-8 byte stay two sources and two IDs",
        non_utf8_names,
        0,
        None,
    )
    .check(distinct_escaped_ids),
];

pub(crate) fn inputs_that_claim_more_than_they_hold() {
    run_table(CASES);
}

/// `build --json` refused by its config prints the summary object on stdout, with the problem.
pub(crate) fn a_json_build_refused_by_its_config_says_why_on_stdout() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "corpus.toml", format!("{CONFIG}colour = 1\n")).unwrap();
    put(dir.path(), "src/good.md", GOOD).unwrap();
    let o = run(bin().current_dir(dir.path()).args(["build", "--json"]));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim())
        .unwrap_or_else(|e| panic!("stdout is not one JSON object ({e}): {:?}", stdout(&o)));
    assert_eq!(v["ok"], false, "{v}");
    assert!(
        v["diagnostics"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("colour")),
        "{v}"
    );
}

/// A vector export of a build that has no chunk says the build is empty, not that it cannot
/// list its destination; nothing is written.
pub(crate) fn a_vector_export_of_an_empty_build_says_the_build_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    put(root, "corpus.toml", CONFIG).unwrap();
    put(root, "src/empty.md", "").unwrap();
    build(root, &["--allow-empty"]).unwrap();
    let o = run(bin().current_dir(root).args([
        "export",
        "--format",
        "vectorize",
        "--dest",
        "exported",
    ]));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("has no chunks: there are no vectors to export"),
        "{}",
        stderr(&o)
    );
    assert!(!root.join("exported").exists());
}
