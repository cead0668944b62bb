//! Bad input gets a clear diagnostic naming the file, the line and the fix — every problem in
//! one run — and a failed build leaves the previous one as it was.

mod common;

use common::*;

fn project(config: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("corpus.toml"), config).unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

const ONE_LIB: &str = "[corpus]\nname = \"t\"\n\n[[library]]\nid = \"docs\"\nroot = \"src\"\n";

#[test]
fn config_errors_are_all_reported_with_lines_and_exit_2() {
    let cfg = "[corpus]\nname = \"t\"\ncolour = 1\n\n[[library]]\nid = \"عربي\"\nroot = \"missing\"\ninclude = [\"[\"]\n\n[[library]]\nid = \"a\"\nroot = \"src\"\nformat = \"pdf\"\n\n[[library]]\nid = \"b\"\nroot = \"src\"\n\n[[library]]\nid = \"b\"\nroot = \"src\"\n\n[env.x]\nlibraries = [\"zzz\"]\n";
    let p = project(cfg, &[("src/a.md", "# a\n\ntext")]);
    let o = run(bin().current_dir(p.path()).args(["build", "--json"]));
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    let lines: Vec<serde_json::Value> = err
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let has = |needle: &str, line: usize| {
        lines
            .iter()
            .any(|d| d["message"].as_str().unwrap().contains(needle) && d["line"] == line)
    };
    assert!(has("colour", 3), "{err}");
    assert!(has("must be ASCII", 6), "{err}");
    assert!(has("is not a directory", 7), "{err}");
    assert!(has("bad glob", 8), "{err}");
    assert!(has("pdf", 13), "{err}");
    assert!(has("two libraries have the id `b`", 20), "{err}");
    assert!(has("unknown library `zzz`", 24), "{err}");
    for d in &lines {
        assert_eq!(d["file"], "corpus.toml");
        assert!(
            d["help"].is_string(),
            "every diagnostic says what to do: {d}"
        );
    }
}

#[test]
fn toml_syntax_error_points_at_the_line() {
    let p = project("[corpus\nname = 1\n", &[]);
    let o = run(bin().current_dir(p.path()).arg("build"));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("corpus.toml:1"), "{}", stderr(&o));
}

#[test]
fn every_bad_source_is_reported_in_one_run_and_nothing_is_written() {
    let p = project(
        ONE_LIB,
        &[
            ("src/good.md", "# عنوان\n\nنص سليم."),
            ("src/bad-yaml.md", "---\ntitle: [x\n---\n\nنص"),
            ("src/open.md", "---\ntitle: x\n\nنص بلا نهاية للرأس"),
            ("src/latin1.md", "caf\u{e9}"),
            ("src/empty.md", "   \n"),
            ("src/عربي.md", "# عنوان\n\nنص"),
        ],
    );
    // latin1.md: write real Latin-1 bytes, not UTF-8.
    std::fs::write(p.path().join("src/latin1.md"), b"# caf\xe9\n").unwrap();
    let o = run(bin().current_dir(p.path()).args(["build", "--json"]));
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let diags = v["diagnostics"].as_array().unwrap();
    let find = |file: &str| {
        diags
            .iter()
            .find(|d| d["file"].as_str().is_some_and(|f| f.ends_with(file)))
            .unwrap_or_else(|| panic!("no diagnostic for {file}: {diags:?}"))
    };
    assert_eq!(find("bad-yaml.md")["level"], "error");
    assert_eq!(find("bad-yaml.md")["line"], 2);
    assert!(
        find("open.md")["message"]
            .as_str()
            .unwrap()
            .contains("unterminated frontmatter")
    );
    assert!(
        find("latin1.md")["message"]
            .as_str()
            .unwrap()
            .contains("invalid UTF-8 at byte offset 5")
    );
    assert_eq!(find("empty.md")["level"], "warning");
    // A non-ASCII file name is no problem: its ID is mapped (escaped), never refused.
    assert!(
        diags
            .iter()
            .all(|d| !d["file"].as_str().unwrap_or("").ends_with("عربي.md")),
        "{diags:?}"
    );
    assert!(!p.path().join("out/manifest.json").exists());
}

#[test]
fn duplicate_ids_name_every_source_and_overlong_ones_are_refused_under_strict_ids() {
    let long = "a".repeat(70);
    let strict = ONE_LIB.replacen("[corpus]\n", "[corpus]\nstrict_ids = true\n", 1);
    assert_ne!(strict, ONE_LIB);
    let p = project(
        &strict,
        &[
            ("src/one.md", "---\nid: same\n---\n# x\n\nنص"),
            ("src/two.md", "---\nid: same\n---\n# y\n\nنص"),
            (&format!("src/{long}.md"), "# z\n\nنص"),
        ],
    );
    let o = run(bin().current_dir(p.path()).arg("build"));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("doc_id `docs:same` is produced by 2 sources: src/one.md, src/two.md"),
        "{err}"
    );
    assert!(err.contains("over the 64-byte Vectorize limit"), "{err}");
}

#[test]
fn json_records_errors_name_the_record() {
    let cfg = "[corpus]\nname = \"t\"\n\n[[library]]\nid = \"s\"\nroot = \"src\"\n\n[library.records]\nselect = \"*.*\"\nid = \"{slug}\"\ntitle = \"name\"\ntext = \"text\"\ndate = \"$key\"\n";
    let p = project(
        cfg,
        &[(
            "src/a.json",
            r#"{"15 Hator": [{"slug": "ok", "name": "x", "text": "نص"}], "40 Nowhere": [{"slug": "bad-date", "name": "y", "text": "نص"}], "1 Tout": [{"name": "z", "text": "نص"}]}"#,
        )],
    );
    let o = run(bin().current_dir(p.path()).arg("build"));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("`40 Nowhere` (from `$key`) is not a Coptic date"),
        "{err}"
    );
    assert!(err.contains("id template `{slug}` needs `slug`"), "{err}");
    let p = project(cfg, &[("src/a.json", "{\"x\": [1,}")]);
    let o = run(bin().current_dir(p.path()).arg("build"));
    assert!(
        stderr(&o).contains("invalid JSON at line 1"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(run(bin().arg("bogus")).status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let o = run(bin().current_dir(dir.path()).arg("build"));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("askzico init"), "{}", stderr(&o));
}

/// Builds a one-library project with the given files and returns (exit code, stdout, stderr).
fn build_files(
    files: &[(&str, Vec<u8>)],
    extra_cfg: &str,
) -> (tempfile::TempDir, Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("corpus.toml"),
        format!("{ONE_LIB}{extra_cfg}"),
    )
    .unwrap();
    for (path, bytes) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    let o = run(bin()
        .current_dir(dir.path())
        .timeout(std::time::Duration::from_secs(60))
        .args(["build", "--json"]));
    let (code, out, err) = (o.status.code(), stdout(&o), stderr(&o));
    (dir, code, out, err)
}

fn evidence(dir: &std::path::Path) -> String {
    chunk_records(&dir.join("out"), "manifest.json")
        .iter()
        .map(|r| r["text"].as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn pathological_nesting_neither_crashes_nor_hangs() {
    let deep_quote = format!("# t\n\n{}نص\n", "> ".repeat(40_000));
    let deep_jsx = format!(
        "# t\n\n{}نص{}\n",
        "<Note>".repeat(20_000),
        "</Note>".repeat(20_000)
    );
    let deep_list = format!("# t\n\n{}x\n", "- ".repeat(20_000));
    for (name, text) in [
        ("a.mdx", &deep_quote),
        ("b.mdx", &deep_jsx),
        ("c.md", &deep_list),
        ("d.mdx", &deep_list),
    ] {
        let (dir, code, _, err) =
            build_files(&[(&format!("src/{name}"), text.clone().into_bytes())], "");
        assert!(
            code == Some(0) || code == Some(1),
            "{name}: exit {code:?}\n{err}"
        );
        if code == Some(0) {
            let recs = chunk_records(&dir.path().join("out"), "manifest.json");
            assert!(
                recs.len() < 50,
                "{name}: {} chunks from a tiny file",
                recs.len()
            );
        }
    }
}

#[test]
fn scripts_styles_and_script_urls_never_reach_evidence() {
    let md = "# t\n\nنص <script>alert(\"x\")</script> و <style>body{color:red}</style> تمام.\n\n<javascript:alert(2)>\n\n[اضغط](javascript:steal())\n\n<div onclick=\"if(a>b){steal()}\">كلمة</div>\n";
    let mdx = "# t\n\nنص عربي سليم.\n\n<script>\n  gtag(\"config\", \"G-X\");\n</script>\n\n<style>\n  .box p {color: red}\n</style>\n";
    let fallback = "---\ntitle: t\n---\nimport N from \"./N\";\nexport const meta = { secret: \"internal\" };\n\n# t\n\nسطر<br>\nسطر {props.x} أخير\n";
    let (dir, code, _, err) = build_files(
        &[
            ("src/x.md", md.into()),
            ("src/s.mdx", mdx.into()),
            ("src/f.mdx", fallback.into()),
        ],
        "",
    );
    assert_eq!(code, Some(0), "{err}");
    let text = evidence(dir.path());
    for bad in [
        "alert",
        "color:red",
        "color: red",
        "gtag",
        "javascript",
        "steal",
        "secret",
        "import",
        "props.x",
        "اضغط",
    ] {
        assert!(!text.contains(bad), "`{bad}` reached evidence:\n{text}");
    }
    assert!(
        text.contains("كلمة") && text.contains("تمام") && text.contains("أخير"),
        "{text}"
    );
}

#[test]
fn control_characters_are_not_evidence() {
    let (dir, code, _, _) = build_files(
        &[(
            "src/c.md",
            "# t\n\nنص \u{1b}]0;pwned\u{07}\u{1b}[2J عربي\n".into(),
        )],
        "",
    );
    assert_eq!(code, Some(0));
    assert!(
        !evidence(dir.path())
            .chars()
            .any(|c| c.is_control() && c != '\n')
    );
}

#[test]
fn wrong_frontmatter_types_are_errors() {
    for (fm, key) in [
        ("domains: []", "domains"),
        ("domains: [1, 2]", "domains"),
        ("domains: culture", "domains"),
        ("id: [a, b]", "id"),
        ("id: \"\"", "id"),
        ("title: [a, b]", "title"),
    ] {
        let (_, code, out, _) = build_files(
            &[(
                "src/a.md",
                format!("---\n{fm}\n---\n\n# t\n\nنص\n").into_bytes(),
            )],
            "",
        );
        assert_eq!(code, Some(1), "{fm}");
        assert!(
            out.contains(&format!("frontmatter `{key}` must be")),
            "{fm}: {out}"
        );
    }
}

#[test]
fn json_edge_cases() {
    let rec = "\n[library.records]\nselect = \"*.*\"\ntext = \"text\"\n";
    // Beside a document: a build of nothing to index at all is an error of its own.
    let (_, code, out, _) = build_files(
        &[
            ("src/e.json", Vec::new()),
            ("src/ok.md", "# t\n\nنص\n".as_bytes().to_vec()),
        ],
        rec,
    );
    assert_eq!(code, Some(0), "an empty JSON file is a warning: {out}");
    assert!(out.contains("nothing to index"));
    // A JSON library without a records mapping is a config error.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("corpus.toml"),
        "[corpus]\nname = \"t\"\n\n[[library]]\nid = \"j\"\nroot = \"src\"\nformat = \"json\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    let o = run(bin().current_dir(dir.path()).arg("build"));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no [library.records] mapping"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn output_directory_may_not_contain_the_sources() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("corpus.toml"),
        "[corpus]\nname = \"t\"\nout = \".\"\n\n[[library]]\nid = \"docs\"\nroot = \"src\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/a.md"), "# a\n\nنص").unwrap();
    let o = run(bin().current_dir(dir.path()).arg("build"));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("contains the root of library `docs`"),
        "{}",
        stderr(&o)
    );
}

/// An output directory inside a library's root is not read as sources, reached directly or
/// through a symlink: the second build sees the one document the first did.
#[test]
fn an_output_directory_inside_a_library_root_is_not_listed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("corpus.toml"), "[corpus]\nname = \"t\"\nout = \"out\"\n\n[[library]]\nid = \"docs\"\nroot = \".\"\ninclude = [\"**/*.md\", \"**/*.json\"]\n").unwrap();
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("docs/a.md"), "# عنوان\n\nنص قصير.\n").unwrap();
    let first = run(bin().current_dir(dir.path()).arg("build"));
    assert!(first.status.success(), "{}", stderr(&first));
    std::os::unix::fs::symlink("../out", dir.path().join("docs/linked-out")).unwrap();
    let again = run(bin().current_dir(dir.path()).arg("build"));
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stdout(&first).contains("1 doc,") && stdout(&again).contains("1 doc,"),
        "{}\n{}",
        stdout(&first),
        stdout(&again)
    );
    let version =
        |o: &std::process::Output| stdout(o).split_whitespace().nth(1).map(str::to_string);
    assert_eq!(version(&first), version(&again));
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let p = sample_project();
    let script = format!(
        "cd '{}' && '{}' build | true; echo done",
        p.path().display(),
        assert_cmd::cargo::cargo_bin("askzico").display()
    );
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("panicked"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn dangling_symlinks_json_shape_and_bad_urls_are_errors() {
    // A dangling symlink may hide a source: an error, not a silent skip.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("corpus.toml"), ONE_LIB).unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/a.md"), "# a\n\nنص").unwrap();
    std::os::unix::fs::symlink("/nonexistent/x.md", dir.path().join("src/dangle.md")).unwrap();
    let o = run(bin().current_dir(dir.path()).arg("build"));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("dangle.md"), "{}", stderr(&o));

    // JSON that does not match the record mapping names the place.
    let rec = "\n[library.records]\nselect = \"*.*\"\ntitle = \"name\"\ntext = \"text\"\n";
    let (_, code, out, _) = build_files(
        &[(
            "src/m.json",
            r#"{"1 Toba": [{"name": "t", "text": "نص"}], "2 Toba": "oops"}"#.into(),
        )],
        rec,
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("`$.2 Toba` is a string"), "{out}");
    let (_, code, out, _) = build_files(
        &[(
            "src/b.json",
            r#"{"1 Toba": [{"name": "t", "text": true}]}"#.into(),
        )],
        rec,
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("is a boolean"), "{out}");

    // URLs must be absolute or site-relative.
    for url in ["javascript:alert(1)", "page.html", "//evil.example/x"] {
        let (_, code, out, _) = build_files(
            &[(
                "src/u.md",
                format!("---\ntitle: t\nurl: \"{url}\"\n---\n\nنص\n").into_bytes(),
            )],
            "",
        );
        assert_eq!(code, Some(1), "{url}: {out}");
        assert!(out.contains("must be absolute"), "{url}: {out}");
    }
}

/// `show` with a key that names nothing shows each kind of key as this build spells it, so a
/// user who typed the path on disk sees the form the build uses.
#[test]
fn show_of_an_unknown_key_gives_examples_from_the_build() {
    let p = project(
        ONE_LIB,
        &[("src/guides/install.md", "# التثبيت\n\nنص عن التثبيت.\n")],
    );
    let o = run(bin().current_dir(p.path()).args(["build"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(bin()
        .current_dir(p.path())
        .args(["show", "src/guides/nope.md"]));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    for example in [
        "`docs:guides/install:000`",
        "`docs:guides/install`",
        "`docs/guides/install.md`",
        "`guides/install.md`",
    ] {
        assert!(err.contains(example), "{example} in {err}");
    }
    let o = run(bin()
        .current_dir(p.path())
        .args(["show", "guides/install.md"]));
    assert!(o.status.success(), "{}", stderr(&o));
}
