//! Warnings that scale: on the terminal, `build` (and `build --watch`) prints one line per kind
//! of warning with its count and at most three example files, and errors in full; `--verbose`
//! prints every warning in full; `--json` and `inspect` list every instance.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use common::*;
use serde_json::Value;

const CONFIG: &str = "[corpus]\nname = \"w\"\n\n[[library]]\nid = \"docs\"\nroot = \"src\"\n\n\
    [[library]]\nid = \"recs\"\nroot = \"data\"\n\n[library.records]\ntitle = \"name\"\ntext = \"text\"\n";

/// The empty Markdown files (one `empty` warning each).
fn empties() -> Vec<String> {
    (1..=10).map(|i| format!("empty-{i:02}.md")).collect()
}

/// The record files whose record has no title (one `no-title` warning each).
fn untitled() -> Vec<String> {
    (1..=3).map(|i| format!("untitled-{i}.json")).collect()
}

/// A project with one good document, 10 warnings of one kind and 3 of another.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("corpus.toml"), CONFIG).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("data")).unwrap();
    std::fs::write(
        root.join("src/good.md"),
        "---\ntitle: صفحة سليمة\n---\n\n# صفحة سليمة\n\nنص عربي سليم.\n",
    )
    .unwrap();
    for name in empties() {
        std::fs::write(root.join("src").join(name), "").unwrap();
    }
    for name in untitled() {
        std::fs::write(
            root.join("data").join(name),
            r#"{"text": "نص سجل بلا عنوان"}"#,
        )
        .unwrap();
    }
    dir
}

fn build(root: &Path, extra: &[&str]) -> std::process::Output {
    run(bin()
        .current_dir(root)
        .timeout(Duration::from_secs(120))
        .arg("build")
        .args(extra))
}

/// `build --json`'s diagnostics, by code.
fn json_diagnostics(root: &Path) -> BTreeMap<String, Vec<Value>> {
    let o = build(root, &["--json"]);
    let v: Value = serde_json::from_str(stdout(&o).trim()).expect("one JSON summary");
    let mut by_code: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for d in v["diagnostics"].as_array().unwrap() {
        by_code
            .entry(d["code"].as_str().unwrap().to_string())
            .or_default()
            .push(d.clone());
    }
    by_code
}

/// The terminal's warnings: one line for `empty` with 10, one for `no-title` with 3, each
/// naming at most three files, and one line saying where the rest is.
fn assert_grouped(err: &str) {
    for (code, files, count) in [("empty", empties(), 10), ("no-title", untitled(), 3)] {
        let lines: Vec<&str> = err
            .lines()
            .filter(|l| l.contains(&format!("askzico::{code}")))
            .collect();
        assert_eq!(lines.len(), 1, "one line for {code}:\n{err}");
        let line = lines[0];
        assert!(
            line.contains(&format!("{count} warnings")),
            "{code}: {line}"
        );
        let named = files.iter().filter(|f| line.contains(f.as_str())).count();
        assert!(
            (1..=3).contains(&named),
            "{code} names {named} files: {line}"
        );
    }
    assert!(
        err.lines()
            .any(|l| l.contains("--verbose") && l.contains("--json") && l.contains("inspect")),
        "no line saying where the rest is:\n{err}"
    );
    // No warning is rendered in full (miette's help lines).
    assert!(!err.contains("help:"), "{err}");
}

#[test]
fn the_terminal_gets_one_line_per_kind_of_warning() {
    let p = project();
    let o = build(p.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert_grouped(&err);
    assert!(err.lines().count() <= 3, "{err}");
}

#[test]
fn verbose_prints_every_warning_in_full() {
    let p = project();
    let o = build(p.path(), &["--verbose"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    for f in empties().iter().chain(&untitled()) {
        assert!(err.contains(f.as_str()), "{f} missing:\n{err}");
    }
    assert_eq!(err.matches("askzico::empty").count(), 10, "{err}");
    assert_eq!(err.matches("askzico::no-title").count(), 3, "{err}");
    assert_eq!(err.matches("help:").count(), 13, "{err}");
}

#[test]
fn json_lists_every_warning() {
    let p = project();
    let by_code = json_diagnostics(p.path());
    let files = |code: &str| -> Vec<String> {
        let mut f: Vec<String> = by_code[code]
            .iter()
            .map(|d| {
                assert_eq!(d["level"], "warning", "{d}");
                d["file"].as_str().unwrap().to_string()
            })
            .collect();
        f.sort();
        f
    };
    let want = |dir: &str, names: Vec<String>| -> Vec<String> {
        names.iter().map(|n| format!("{dir}/{n}")).collect()
    };
    assert_eq!(files("empty"), want("src", empties()));
    assert_eq!(files("no-title"), want("data", untitled()));
    assert_eq!(by_code.len(), 2, "{by_code:?}");
}

#[test]
fn errors_are_printed_in_full_beside_grouped_warnings() {
    let p = project();
    for name in ["bad-a.md", "bad-b.md"] {
        std::fs::write(
            p.path().join("src").join(name),
            "---\ntitle: [1, 2]\n---\n\n# عنوان\n\nنص.\n",
        )
        .unwrap();
    }
    let o = build(p.path(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert_grouped_with_errors(&err);
    // Every error in full: its code, its file and line, its message and its help.
    for name in ["bad-a.md", "bad-b.md"] {
        assert!(
            err.contains(&format!("× src/{name}:1: frontmatter `title` must be")),
            "{name}:\n{err}"
        );
    }
    assert_eq!(err.matches("askzico::frontmatter").count(), 2, "{err}");
    assert_eq!(err.matches("help: fix `title:`").count(), 2, "{err}");
    // The errors come last, beside the failure line, not above the warnings.
    let last_warning = err.find("askzico::no-title").unwrap();
    assert!(
        err.find("askzico::frontmatter").unwrap() > last_warning,
        "{err}"
    );
}

/// `assert_grouped`, with errors (and their help lines) beside the warnings.
fn assert_grouped_with_errors(err: &str) {
    for (code, count) in [("empty", 10), ("no-title", 3)] {
        let lines: Vec<&str> = err
            .lines()
            .filter(|l| l.contains(&format!("askzico::{code}")))
            .collect();
        assert_eq!(lines.len(), 1, "one line for {code}:\n{err}");
        assert!(lines[0].contains(&format!("{count} warnings")), "{err}");
    }
}

#[test]
fn inspect_lists_every_build_warning_by_kind() {
    let p = project();
    assert_eq!(build(p.path(), &[]).status.code(), Some(0));
    let o = run(bin()
        .current_dir(p.path())
        .args(["inspect", "--json", "--sample", "0"]));
    let v: Value = serde_json::from_str(stdout(&o).trim()).expect("inspect JSON");
    let groups = v["warnings"].as_array().expect("a warnings section");
    let counts: Vec<(&str, u64, usize)> = groups
        .iter()
        .map(|g| {
            (
                g["code"].as_str().unwrap(),
                g["count"].as_u64().unwrap(),
                g["instances"].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(
        counts,
        [("askzico::empty", 10, 10), ("askzico::no-title", 3, 3)]
    );
    // The text form names every instance.
    let o = run(bin()
        .current_dir(p.path())
        .args(["inspect", "--sample", "0"]));
    let text = stdout(&o);
    assert!(text.contains("build warnings: 13"), "{text}");
    for f in empties().iter().chain(&untitled()) {
        assert!(text.contains(f.as_str()), "{f} missing:\n{text}");
    }
    // Without the rebuild there is no build report to take them from; inspect says so.
    let o = run(bin().current_dir(p.path()).args([
        "inspect",
        "--json",
        "--no-rebuild",
        "--sample",
        "0",
    ]));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert!(v["warnings"].is_null(), "{}", v["warnings"]);
}

/// The first build of `build --watch [extra]`: its stderr, once its stats line is out.
fn watch_first_build(root: &Path, extra: &[&str]) -> String {
    let (mut child, rx) = spawn_watch(root, extra);
    let first = rx.recv_timeout(Duration::from_secs(60));
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    first.expect("a stats line for the first build");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn watch_groups_warnings_unless_verbose() {
    let p = project();
    let err = watch_first_build(p.path(), &[]);
    assert_grouped(&err);
    let err = watch_first_build(p.path(), &["--verbose"]);
    assert_eq!(err.matches("askzico::empty").count(), 10, "{err}");
    assert_eq!(err.matches("askzico::no-title").count(), 3, "{err}");
}

/// A watch says first what it watches and how to stop; each save gets one status line naming
/// the file that changed; warnings are printed again only when they change (a save that
/// leaves them as they were says so in its status line).
#[test]
fn watch_names_each_save_and_repeats_warnings_only_when_they_change() {
    let p = project();
    let (mut child, rx) = spawn_watch(p.path(), &[]);
    let next = |what: &str| {
        rx.recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("no stats line after {what}: {e}"));
    };
    next("the first build");
    // The same warnings after an edit of the good page.
    std::fs::write(
        p.path().join("src/good.md"),
        "---\ntitle: صفحة سليمة\n---\n\n# صفحة سليمة\n\nنص عربي سليم بعد التعديل.\n",
    )
    .unwrap();
    next("an edit");
    // One more empty file: the warnings changed.
    std::fs::write(p.path().join("src/empty-11.md"), "").unwrap();
    next("a new empty file");
    let _ = child.kill();
    let err = String::from_utf8_lossy(&child.wait_with_output().unwrap().stderr).into_owned();
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].starts_with("[watch] watching src, data and corpus.toml")
            || lines[0].starts_with("[watch] watching data, src and corpus.toml"),
        "{err}"
    );
    assert!(lines[0].contains("Ctrl-C"), "{err}");
    let status: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("[watch] ") && l.contains(" built "))
        .collect();
    assert_eq!(status.len(), 3, "{err}");
    assert!(status[1].contains("src/good.md changed: built"), "{err}");
    assert!(status[1].contains("13 warnings as before"), "{err}");
    assert!(
        status[2].contains("src/empty-11.md changed: built"),
        "{err}"
    );
    assert!(status[1].contains("(1 file read, 1 doc extracted"), "{err}");
    // The grouped warnings: after the first build and after the change, not after the edit.
    assert_eq!(
        err.matches("askzico::empty: 10 warnings").count(),
        1,
        "{err}"
    );
    assert_eq!(
        err.matches("askzico::empty: 11 warnings").count(),
        1,
        "{err}"
    );
    assert_eq!(err.matches("askzico::no-title").count(), 2, "{err}");
}
