//! `askzico build --sources DIR`: a directory built as it is, without a `corpus.toml` (one
//! library named after the directory, formats by extension, frontmatter honoured).

mod common;

use std::path::Path;

use common::*;

const PROSE: &str = "الصوم في الكنيسة القبطية فترة طويلة من الصلاة والتأمل، يتدرب فيها المؤمن على ضبط النفس ومحبة القريب، ويقرأ فيها المزامير والأناجيل كل يوم قبل أن يتناول طعامه في المساء.";

/// A site directory named `My Site` (a name that is not a valid library id as it stands) with
/// one file of every source format the option reads, and files it must leave alone.
fn site(root: &Path) -> std::path::PathBuf {
    let dir = root.join("My Site");
    std::fs::create_dir_all(dir.join("guides")).unwrap();
    let w = |rel: &str, text: String| std::fs::write(dir.join(rel), text).unwrap();
    w(
        "fasting.md",
        format!(
            "---\ntitle: الصوم الكبير\nurl: https://example.org/fasting\ndomains: [faq, fasting]\n---\n\n# متى يبدأ الصوم؟\n\n{PROSE}\n"
        ),
    );
    w(
        "guides/prayer.mdx",
        format!("import X from './x'\n\n# الصلاة\n\n{PROSE}\n\n<X />\n"),
    );
    w(
        "page.html",
        format!(
            "<html><head><title>صفحة الأعياد</title></head><body><nav>الرئيسية | اتصل بنا</nav><main><h1>الأعياد</h1><p>{PROSE}</p><p>{PROSE}</p></main></body></html>"
        ),
    );
    w("notes.txt", "ملاحظات داخلية لا تُنشر".into());
    w("data.json", "[{\"title\": \"x\"}]".into());
    dir
}

fn version(out: &Path) -> String {
    manifest(out)["corpus_version"]
        .as_str()
        .unwrap()
        .to_string()
}

/// `askzico CMD --sources DIR --out OUT`, run from `cwd`.
fn with_sources(
    cwd: &std::path::Path,
    cmd: &str,
    dir: &std::path::Path,
    out: &std::path::Path,
) -> std::process::Output {
    run(bin()
        .current_dir(cwd)
        .arg(cmd)
        .arg("--sources")
        .arg(dir)
        .arg("--out")
        .arg(out))
}

#[test]
fn a_directory_builds_as_one_library_named_after_it() {
    let t = tempfile::tempdir().unwrap();
    let dir = site(t.path());
    let out = t.path().join("build");
    let o = with_sources(t.path(), "build", &dir, &out);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !stderr(&o).contains("notes.txt") && !stderr(&o).contains("data.json"),
        "only Markdown, MDX and HTML are read: {}",
        stderr(&o)
    );

    let m = manifest(&out);
    let libs: Vec<&str> = m["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert_eq!(libs, ["my-site"]);
    let recs = chunk_records(&out, "manifest.json");
    let mut sources: Vec<&str> = recs.iter().map(|r| r["source"].as_str().unwrap()).collect();
    sources.dedup();
    assert_eq!(
        sources,
        [
            "my-site/fasting.md",
            "my-site/guides/prayer.mdx",
            "my-site/page.html"
        ],
        "every format by its extension"
    );
    let fasting = recs
        .iter()
        .find(|r| r["source"] == "my-site/fasting.md")
        .unwrap();
    assert_eq!(fasting["doc_id"], "my-site:fasting");
    assert_eq!(fasting["title"], "الصوم الكبير", "frontmatter title");
    assert_eq!(
        fasting["url"], "https://example.org/fasting",
        "frontmatter url"
    );
    assert_eq!(
        fasting["domains"],
        serde_json::json!(["faq", "fasting"]),
        "frontmatter domains"
    );
    let prayer = recs
        .iter()
        .find(|r| r["source"] == "my-site/guides/prayer.mdx")
        .unwrap();
    assert_eq!(
        prayer["domains"],
        serde_json::json!(["my-site"]),
        "the default domain is the library id"
    );
    assert!(
        !prayer["text"].as_str().unwrap().contains("import"),
        "MDX is parsed as MDX: {}",
        prayer["text"]
    );
    let page = recs
        .iter()
        .find(|r| r["source"] == "my-site/page.html")
        .unwrap();
    assert!(
        !page["text"].as_str().unwrap().contains("اتصل بنا"),
        "HTML chrome stays out: {}",
        page["text"]
    );

    // The other commands read the same build through the same option.
    let o = with_sources(t.path(), "verify", &dir, &out);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(bin()
        .current_dir(t.path())
        .args(["query", "--json", "--sources"])
        .arg(&dir)
        .arg("--out")
        .arg(&out)
        .arg("متى يبدأ الصوم"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("my-site:fasting:000"), "{}", stdout(&o));

    // The same directory, reached by a relative path from elsewhere, gives the same build.
    let again = t.path().join("again");
    let o = run(bin()
        .current_dir(dir.join("guides"))
        .args(["build", "--sources", ".."])
        .arg("--out")
        .arg(&again));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(version(&again), version(&out));
}

#[test]
fn output_defaults_to_out_in_the_current_directory() {
    let t = tempfile::tempdir().unwrap();
    let dir = site(t.path());
    let cwd = t.path().join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    let o = run(bin()
        .current_dir(&cwd)
        .arg("build")
        .arg("--sources")
        .arg(&dir));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(cwd.join("out/manifest.json").is_file());
    assert!(
        !dir.join("out").exists(),
        "nothing is written into the sources"
    );
    // Rebuilding the unchanged directory writes nothing new.
    let o = run(bin()
        .current_dir(&cwd)
        .args(["build", "--json", "--sources"])
        .arg(&dir));
    assert!(o.status.success(), "{}", stderr(&o));
    let s: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(s["files_written"], 0, "{s}");
}

#[test]
fn a_missing_directory_or_a_config_beside_it_is_a_usage_error() {
    let t = tempfile::tempdir().unwrap();
    let o = run(bin()
        .current_dir(t.path())
        .args(["build", "--sources", "no-such-dir"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no-such-dir does not exist"),
        "{}",
        stderr(&o)
    );
    std::fs::write(t.path().join("a-file"), "# t\n").unwrap();
    let o = run(bin()
        .current_dir(t.path())
        .args(["build", "--sources", "a-file"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("a-file is not a directory"),
        "{}",
        stderr(&o)
    );
    let dir = site(t.path());
    let o = run(bin()
        .current_dir(t.path())
        .args(["build", "--config", "corpus.toml", "--sources"])
        .arg(&dir));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
}

/// The first build of `build --watch --stats-json [args]` in `cwd`: stdout and stderr, read once
/// the stats line (written after the status line) is out, so nothing here waits on a clock.
fn watch_first_build(cwd: &Path, args: &[&str]) -> (String, String) {
    watch_first_line(cwd, "--stats-json", args)
}

/// The first stdout line of `build --watch FLAG [args]` in `cwd`, and stderr once it is out.
fn watch_first_line(cwd: &Path, flag: &str, args: &[&str]) -> (String, String) {
    let args: Vec<&str> = std::iter::once(flag).chain(args.iter().copied()).collect();
    let (mut child, rx) = spawn_watch_with(cwd, &args);
    let first = rx.recv_timeout(std::time::Duration::from_secs(60));
    let _ = child.kill();
    let o = child.wait_with_output().unwrap();
    (
        first.expect("a stats line for the first build"),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `build --watch` writes its status lines where the diagnostics go, on stderr, with a config
/// and with `--sources` alike; stdout holds only the machine-readable stats lines.
#[test]
fn watch_status_lines_go_to_stderr_in_both_modes() {
    let t = tempfile::tempdir().unwrap();
    let dir = site(t.path());
    std::fs::write(
        t.path().join("corpus.toml"),
        "[corpus]\nname = \"c\"\nout = \"out-config\"\n\n[[library]]\nid = \"site\"\nroot = \"My Site\"\ninclude = [\"**/*.md\"]\n",
    )
    .unwrap();
    let sources = dir.to_string_lossy().into_owned();
    for args in [
        &[][..],
        &["--sources", sources.as_str(), "--out", "out-sources"][..],
    ] {
        let (stdout, stderr) = watch_first_build(t.path(), args);
        let stats: serde_json::Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("{args:?}: stdout is not a stats line ({e}): {stdout}"));
        assert!(stats.is_object(), "{args:?}: {stdout}");
        assert!(
            stderr.contains(" built ") && stderr.contains("[watch] "),
            "{args:?}: {stderr}"
        );
    }
}

/// `build --watch --json` prints each build's JSON summary, as `build --json` does, one line per
/// build, and no human status line.
#[test]
fn watch_json_prints_a_summary_line_per_build() {
    let t = tempfile::tempdir().unwrap();
    let dir = site(t.path());
    let sources = dir.to_string_lossy().into_owned();
    let (stdout, stderr) = watch_first_line(
        t.path(),
        "--json",
        &["--sources", sources.as_str(), "--out", "out-json"],
    );
    let v: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout is not a JSON summary ({e}): {stdout}"));
    assert_eq!(v["ok"], true, "{v}");
    assert!(
        v["corpus_version"].is_string() && v["docs"].as_u64() > Some(0),
        "{v}"
    );
    assert!(!stderr.contains("[watch] "), "{stderr}");
}

/// A folder named in Arabic letters only gets a library id of its own: transliterated, with a
/// hash of the name, so two such sites never share one; the same name always gives the same
/// id; and the build says which id it chose.
#[test]
fn an_arabic_folder_name_gives_a_readable_id_of_its_own() {
    let t = tempfile::tempdir().unwrap();
    let build = |name: &str| {
        let dir = t.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("page.md"), format!("# صفحة\n\n{PROSE}\n")).unwrap();
        let out = t.path().join(format!("out-{}", name.len()));
        let o = with_sources(t.path(), "build", &dir, &out);
        assert!(o.status.success(), "{}", stderr(&o));
        let id = manifest(&out)["libraries"][0]["id"]
            .as_str()
            .unwrap()
            .to_string();
        (id, stderr(&o))
    };
    let (mine, said) = build("مدونتي");
    assert!(mine.starts_with("mdwnty-") && mine != "sources", "{mine}");
    assert!(
        said.contains(&format!(
            "library id: {mine} (the folder name `مدونتي` has no ASCII letters or digits"
        )),
        "{said}"
    );
    let (again, _) = build("مدونتي");
    assert_eq!(again, mine, "the same name, the same id");
    let (other, _) = build("دليل");
    assert!(other.starts_with("dlyl-"), "{other}");
    assert_ne!(other, mine);
}
