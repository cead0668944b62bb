//! `askzico build --sources DIR` takes what a site generator would publish: ignore files,
//! hidden folders and `node_modules` left out the same way on every machine, the content
//! folder of a known site layout as the root, and a directory of JSON refused with the mapping
//! to write.

mod common;

use std::path::{Path, PathBuf};

use common::*;

const PROSE: &str = "الصوم في الكنيسة القبطية فترة طويلة من الصلاة والتأمل، يتدرب فيها المؤمن على ضبط النفس ومحبة القريب، ويقرأ فيها المزامير والأناجيل كل يوم قبل أن يتناول طعامه في المساء.";

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn page(title: &str) -> String {
    format!("# {title}\n\n{PROSE}\n")
}

/// Builds `dir` with `--sources` (HOME and XDG_CONFIG_HOME pointed at `home`, so a global git
/// excludes file there would apply if it were read); the output and the sources built, sorted.
fn build_sources(cwd: &Path, dir: &Path, home: &Path) -> (std::process::Output, Vec<String>) {
    let out = cwd.join(format!("out-{}", dir.parent().unwrap().display()).replace('/', "_"));
    let o = run(bin()
        .current_dir(cwd)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env_remove("GIT_DIR")
        .arg("build")
        .arg("--sources")
        .arg(dir)
        .arg("--out")
        .arg(&out));
    if !o.status.success() {
        return (o, Vec::new());
    }
    let mut sources: Vec<String> = chunk_records(&out, "manifest.json")
        .iter()
        .map(|r| r["source"].as_str().unwrap().to_string())
        .collect();
    sources.sort();
    sources.dedup();
    (o, sources)
}

/// A site folder named `site` under `parent` with files a generator would not publish.
fn site_with_ignored_files(parent: &Path) -> PathBuf {
    let dir = parent.join("site");
    write(&dir, "keep.md", &page("يبقى"));
    write(&dir, "guide/keep2.md", &page("دليل"));
    write(&dir, "sub/kept.md", &page("فرعي"));
    // .gitignore: a folder and a pattern; .ignore: one file; a nested .gitignore.
    write(&dir, ".gitignore", "drafts/\n*.draft.md\n");
    write(&dir, "drafts/d.md", &page("مسودة"));
    write(&dir, "x.draft.md", &page("مسودة"));
    write(&dir, ".ignore", "private.md\n");
    write(&dir, "private.md", &page("خاص"));
    write(&dir, "sub/.gitignore", "local.md\n");
    write(&dir, "sub/local.md", &page("محلي"));
    // Hidden folders and node_modules (at any depth).
    write(&dir, ".hidden/h.md", &page("مخفي"));
    write(&dir, "node_modules/pkg/readme.md", &page("حزمة"));
    write(&dir, "guide/node_modules/x.md", &page("حزمة"));
    // An ignore file above the directory does not apply.
    write(parent, ".gitignore", "keep.md\n");
    write(parent, ".ignore", "guide/\n");
    dir
}

fn ignore_files_hidden_folders_and_node_modules_are_left_out_with_or_without_git() {
    let t = tempfile::tempdir().unwrap();
    // A global git excludes file that would drop `sub/`, were it read.
    let home = t.path().join("home");
    write(&home, ".config/git/ignore", "sub/\n");
    write(
        &home,
        ".gitconfig",
        &format!(
            "[core]\n\texcludesFile = {}\n",
            home.join(".config/git/ignore").display()
        ),
    );
    let plain = site_with_ignored_files(&t.path().join("plain"));
    let checkout = site_with_ignored_files(&t.path().join("checkout"));
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&checkout)
        .env("HOME", &home)
        .status()
        .expect("git runs");
    assert!(git.success());
    // The checkout's own exclude file is not part of the site either.
    write(&checkout, ".git/info/exclude", "guide/\n");

    let expected = ["site/guide/keep2.md", "site/keep.md", "site/sub/kept.md"];
    for dir in [&plain, &checkout] {
        let (o, sources) = build_sources(t.path(), dir, &home);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(sources, expected, "{}", dir.display());
    }

    // A written corpus.toml still reads every file its globs select.
    write(
        &plain,
        "corpus.toml",
        "[corpus]\nname = \"t\"\n\n[[library]]\nid = \"site\"\nroot = \".\"\ninclude = [\"**/*.md\"]\n",
    );
    let out = t.path().join("written");
    let o = run(bin()
        .current_dir(&plain)
        .args(["build", "--config", "corpus.toml", "--out"])
        .arg(&out));
    assert!(o.status.success(), "{}", stderr(&o));
    let mut sources: Vec<String> = chunk_records(&out, "manifest.json")
        .iter()
        .map(|r| r["source"].as_str().unwrap().to_string())
        .collect();
    sources.dedup();
    for s in [
        "site/drafts/d.md",
        "site/private.md",
        "site/.hidden/h.md",
        "site/node_modules/pkg/readme.md",
    ] {
        assert!(sources.iter().any(|x| x == s), "{s} in {sources:?}");
    }
}

fn a_site_layout_roots_the_library_in_its_content_folder() {
    // (files, the root chosen or None, the sources built)
    let cases: [(&[&str], Option<&str>, &[&str]); 11] = [
        (
            &[
                "README.md",
                "src/content/docs/ar/index.mdx",
                "src/content/docs/ar/guide/start.md",
            ],
            Some("content root: src/content/docs/ar (Starlight layout)"),
            &["site/guide/start.md", "site/index.mdx"],
        ),
        (
            &[
                "src/content/docs/ar/index.md",
                "src/content/docs/pt-BR/index.md",
            ],
            Some("content root: src/content/docs (Starlight layout)"),
            &["site/ar/index.md", "site/pt-BR/index.md"],
        ),
        (
            &[
                "README.md",
                "content/post/first/index.md",
                "content/about.md",
                "layouts/single.html",
                "layouts/list.html",
                "layouts/partials/head.html",
            ],
            Some("content root: content (Hugo layout)"),
            &["site/about.md", "site/post/first/index.md"],
        ),
        (
            &["README.md", "docs/intro.md", "docs/guide/setup.md"],
            Some("content root: docs (Docusaurus, VitePress or GitHub Pages layout)"),
            &["site/guide/setup.md", "site/intro.md"],
        ),
        // `docs` without most of the sources is not the content folder.
        (
            &["docs/one.md", "blog/a.md", "blog/b.md"],
            None,
            &["site/blog/a.md", "site/blog/b.md", "site/docs/one.md"],
        ),
        // Most of the Markdown in `docs` roots a site whose HTML beside it is fewer pages…
        (
            &[
                "static/embed.html",
                "docs/one.md",
                "docs/two.md",
                "blog/a.md",
            ],
            Some("content root: docs (Docusaurus, VitePress or GitHub Pages layout)"),
            &["site/one.md", "site/two.md"],
        ),
        // …but not a plain HTML site whose `docs` holds the project's notes.
        (
            &[
                "index.html",
                "about.html",
                "posts/a.html",
                "posts/b.html",
                "docs/plan.md",
                "docs/audit.md",
            ],
            None,
            &[
                "site/about.html",
                "site/docs/audit.md",
                "site/docs/plan.md",
                "site/index.html",
                "site/posts/a.html",
                "site/posts/b.html",
            ],
        ),
        // A folder merely named `content`, with no Hugo config or layout, is not Hugo's.
        (
            &["content/a.md", "content/b.md", "notes.md"],
            None,
            &["site/content/a.md", "site/content/b.md", "site/notes.md"],
        ),
        // A Hugo config is evidence enough, by its name or by a key only Hugo reads.
        (
            &[
                "hugo.toml=title = 'x'",
                "content/a.md",
                "content/b.md",
                "notes.md",
            ],
            Some("content root: content (Hugo layout)"),
            &["site/a.md", "site/b.md"],
        ),
        (
            &[
                "config.toml=baseURL = 'https://example.org/'",
                "content/a.md",
                "content/b.md",
                "notes.md",
            ],
            Some("content root: content (Hugo layout)"),
            &["site/a.md", "site/b.md"],
        ),
        // Hugo's `content` hidden by the ignore files is not counted.
        (
            &[".gitignore=content/", "content/a.md", "notes.md"],
            None,
            &["site/notes.md"],
        ),
    ];
    for (files, root, expected) in cases {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("site");
        for f in files {
            match f.split_once('=') {
                Some((rel, text)) => write(&dir, rel, &format!("{text}\n")),
                None if f.ends_with(".html") => write(
                    &dir,
                    f,
                    &format!("<html><body><main><h1>قالب</h1><p>{PROSE}</p></main></body></html>"),
                ),
                None => write(&dir, f, &page("صفحة")),
            }
        }
        let (o, sources) = build_sources(t.path(), &dir, t.path());
        assert!(o.status.success(), "{files:?}: {}", stderr(&o));
        assert_eq!(sources, expected, "{files:?}");
        let line = stderr(&o)
            .lines()
            .find(|l| l.starts_with("content root:"))
            .map(str::to_string);
        assert_eq!(line.as_deref(), root, "{files:?}");
        if root.is_none() {
            assert!(
                !stderr(&o).contains("outside the content root"),
                "{}",
                stderr(&o)
            );
        }
    }
}

/// The sources a content root leaves out (a blog beside `docs`) are counted and named, not
/// dropped in silence.
fn the_sources_outside_the_content_root_are_named() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("site");
    for f in [
        "docs/a.md",
        "docs/b.md",
        "docs/c.md",
        "docs/d.md",
        "blog/p1.md",
        "blog/p2.md",
        "blog/p3.md",
    ] {
        write(&dir, f, &page("صفحة"));
    }
    let (o, sources) = build_sources(t.path(), &dir, t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(sources.len(), 4, "{sources:?}");
    assert!(
        stderr(&o).contains(
            "left out: 3 sources outside the content root (blog/p1.md, blog/p2.md, blog/p3.md)"
        ),
        "{}",
        stderr(&o)
    );
}

fn a_directory_of_json_only_is_refused_with_the_records_mapping_to_write() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    write(
        &dir,
        "records/items.json",
        &serde_json::json!([
            {"id": "fasting", "title": "الصوم", "text": PROSE},
            {"id": "prayer", "title": "الصلاة", "text": PROSE},
        ])
        .to_string(),
    );
    write(&dir, "records/more.json", "[]");
    let o = run(bin()
        .current_dir(t.path())
        .args(["build", "--json", "--sources"])
        .arg(&dir));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!t.path().join("out").exists(), "no empty build is written");
    let err: serde_json::Value = serde_json::from_str(stderr(&o).lines().next().unwrap()).unwrap();
    assert_eq!(err["code"], "sources-json", "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("2 JSON files (records/items.json, records/more.json)"),
        "{err}"
    );
    let help = err["help"].as_str().unwrap();
    for key in [
        "[[library]]",
        "root = \"records\"",
        "include = [\"**/*.json\"]",
        "[library.records]",
        "select = ",
        "id = ",
        "title = ",
        "text = ",
        "url = ",
    ] {
        assert!(help.contains(key), "{key} in {help}");
    }

    // The block shown is a corpus.toml that builds these records as they are.
    let toml = help
        .split_once("`:\n\n")
        .and_then(|(_, rest)| rest.split_once("\n\n("))
        .map(|(toml, _)| toml)
        .expect("the help holds a corpus.toml");
    std::fs::write(dir.join("corpus.toml"), toml).unwrap();
    let out = t.path().join("built");
    let o = run(bin()
        .current_dir(&dir)
        .args(["build", "--config", "corpus.toml", "--out"])
        .arg(&out));
    assert!(o.status.success(), "{toml}\n{}", stderr(&o));
    let recs = chunk_records(&out, "manifest.json");
    assert!(
        recs.iter()
            .any(|r| r["doc_id"] == "records:fasting" && r["title"] == "الصوم"),
        "{recs:?}"
    );
}

/// Every corpus folder of `../shared/corpora` built as it is, the way a site owner first tries
/// askzico: the seven folders of Markdown, MDX or HTML build with no error and at most one
/// terminal line per kind of warning; the two folders of JSON get the error that shows the
/// `[library.records]` block to write.
fn every_shared_corpus_folder_builds_with_zero_config() {
    let Some(corpora) = shared_corpora("every_shared_corpus_folder_builds_with_zero_config") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let sites = [
        "gin-docs-ar",
        "redis-from-scratch-ar",
        "fahdlabs-blog-ar",
        "vue-docs-ar",
        "react-dev-ar",
        "eis1600-html-ar",
        "tldr-pages-ar",
    ];
    for name in sites {
        let out = tmp.path().join(name);
        let o = run(bin()
            .args(["build", "--sources"])
            .arg(corpora.join(name))
            .arg("--out")
            .arg(&out));
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{name}:\n{err}");
        assert!(!err.contains('×'), "{name}: an error was printed\n{err}");
        let mut kinds = std::collections::BTreeMap::new();
        for line in err.lines().filter(|l| l.contains("askzico::")) {
            let kind = line
                .split("askzico::")
                .nth(1)
                .unwrap()
                .split(':')
                .next()
                .unwrap();
            *kinds.entry(kind.to_string()).or_insert(0) += 1;
        }
        assert!(kinds.values().all(|&n| n == 1), "{name}: {kinds:?}\n{err}");
        let m = manifest(&out);
        let docs: u64 = m["libraries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["docs"].as_u64().unwrap())
            .sum();
        assert!(docs > 0, "{name}");
    }
    for name in ["coptic-io-ar", "quran-json"] {
        let o = run(bin()
            .args(["build", "--sources"])
            .arg(corpora.join(name))
            .arg("--out")
            .arg(tmp.path().join(name)));
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}:\n{err}");
        assert!(err.contains("[library.records]"), "{name}:\n{err}");
        assert!(
            !tmp.path().join(name).join("manifest.json").exists(),
            "{name}"
        );
    }
}

/// Two sites built with `--sources` into the default `./out`: the second build replaces the
/// first, and a question asked of the first site is refused with what to do, never answered
/// from the other site's build.
fn a_question_is_never_answered_from_another_sites_build() {
    let t = tempfile::tempdir().unwrap();
    write(&t.path().join("site-a"), "a.md", &page("الصلاة"));
    write(&t.path().join("site-b"), "b.md", &page("الزراعة"));
    let cmd = |args: &[&str]| run(bin().current_dir(t.path()).args(args));
    for site in ["site-a", "site-b"] {
        let o = cmd(&["build", "--sources", site]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    for args in [
        &["query", "--sources", "site-a", "الصلاة"][..],
        &["verify", "--sources", "site-a"][..],
        &["show", "--sources", "site-a", "a.md"][..],
    ] {
        let o = cmd(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stdout(&o));
        let err = stderr(&o);
        assert!(
            err.contains("holds the build of `site-b`, not of --sources site-a"),
            "{args:?}: {err}"
        );
        assert!(err.contains("askzico build --sources site-a"), "{err}");
    }
    let o = cmd(&["query", "--sources", "site-b", "الزراعة"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// `askzico build --sources .` run inside the site writes `./out` into the sources. The next
/// build never reads it: the same version and chunks, an entry askzico could not read there (a
/// dangling link) is not an error, and a folder whose pages are gone names only its own JSON.
fn the_output_directory_inside_the_sources_is_never_read() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    write(&site, "page.md", &page("صفحة"));
    write(&site, "data/records.json", "[{\"id\": 1}]");
    let build = |extra: &[&str]| {
        run(bin()
            .current_dir(&site)
            .args(["build", "--sources", ".", "--json"])
            .args(extra))
    };
    let summary = |o: &std::process::Output| -> serde_json::Value {
        assert!(o.status.success(), "{}", stderr(o));
        serde_json::from_str(&stdout(o)).unwrap()
    };
    for extra in [&[][..], &["--out", "public"][..]] {
        let out = site.join(extra.last().copied().unwrap_or("out"));
        let first = summary(&build(extra));
        assert!(out.join("manifest.json").is_file());
        #[cfg(unix)]
        std::os::unix::fs::symlink("/nonexistent", out.join("dangling")).unwrap();
        let second = summary(&build(extra));
        assert_eq!(
            second["corpus_version"], first["corpus_version"],
            "{extra:?}"
        );
        assert_eq!(second["chunks"], first["chunks"], "{extra:?}");
        assert_eq!(second["diagnostics"], serde_json::json!([]), "{extra:?}");
        // Another build's output is only this one's sources folder: not what is tested here.
        let _ = std::fs::remove_file(out.join("dangling"));
    }
    // Without pages: the JSON-only refusal names the site's JSON, not the builds' files.
    std::fs::remove_file(site.join("page.md")).unwrap();
    std::fs::remove_dir_all(site.join("public")).unwrap();
    let o = build(&[]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("holds 1 JSON file (data/records.json)"),
        "{err}"
    );
    assert!(err.contains("root = \\\"data\\\""), "{err}");
}

/// With a `corpus.toml`, an output directory inside a library root is not walked either.
fn an_output_directory_inside_a_library_root_is_not_walked() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(
        dir,
        "corpus.toml",
        "[corpus]\nname = \"c\"\nout = \"site/out\"\n\n[[library]]\nid = \"docs\"\nroot = \"site\"\n",
    );
    write(dir, "site/page.md", &page("صفحة"));
    let build = || run(bin().current_dir(dir).args(["build", "--json"]));
    let first = build();
    assert!(first.status.success(), "{}", stderr(&first));
    #[cfg(unix)]
    std::os::unix::fs::symlink("/nonexistent", dir.join("site/out/dangling")).unwrap();
    let second = build();
    assert!(second.status.success(), "{}", stderr(&second));
    let (a, b): (serde_json::Value, serde_json::Value) = (
        serde_json::from_str(&stdout(&first)).unwrap(),
        serde_json::from_str(&stdout(&second)).unwrap(),
    );
    assert_eq!(a["corpus_version"], b["corpus_version"]);
    assert_eq!(b["diagnostics"], serde_json::json!([]));
}

/// GitBook's `SUMMARY.md` (links only) is navigation: left out, and said so. A page that is
/// only named `SUMMARY.md` is built like any other.
fn a_gitbook_table_of_contents_is_left_out_and_an_ordinary_summary_page_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let toc = "# Summary\n\n* [مقدمة](README.md)\n* [الفصل الأول](chapter-1.md)\n  * [درس](chapter-1/lesson.md)\n\n## الجزء الثاني\n\n* [الفصل الثاني](chapter-2.md)\n";
    let cases = [
        // At the site's top, and at the content root of a Docusaurus-like layout.
        ("book", "SUMMARY.md", toc, false),
        ("docs-site", "docs/SUMMARY.md", toc, false),
        (
            "notes",
            "SUMMARY.md",
            &*format!("# ملخص الكتاب\n\n{PROSE}\n"),
            true,
        ),
    ];
    for (name, rel, text, kept) in cases {
        let dir = tmp.path().join(name);
        let folder = Path::new(rel).parent().unwrap();
        write(
            &dir,
            &folder.join("README.md").to_string_lossy(),
            &page("مقدمة"),
        );
        write(
            &dir,
            &folder.join("chapter-1.md").to_string_lossy(),
            &page("الفصل الأول"),
        );
        write(&dir, rel, text);
        let (o, sources) = build_sources(tmp.path(), &dir, tmp.path());
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let built = sources.iter().any(|s| s.ends_with("/SUMMARY.md"));
        assert_eq!(built, kept, "{name}: {sources:?}");
        let said = stderr(&o).contains(&format!(
            "left out: 1 table of contents ({rel}): links only"
        ));
        assert_eq!(said, !kept, "{name}: {}", stderr(&o));
        assert!(
            !stderr(&o).contains("outside the content root"),
            "{}",
            stderr(&o)
        );
    }
}

/// Zero config cannot know the site's URL scheme: the build says its URLs stand in for the
/// site's and how to set them; a config with a `url` template does not.
fn zero_config_says_its_urls_stand_in_for_the_sites() {
    let t = tempfile::tempdir().unwrap();
    write(&t.path().join("site"), "a.md", &page("الصوم"));
    let o = run(bin()
        .current_dir(t.path())
        .args(["build", "--sources", "site"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("urls: /site/<page path> stand in for the site's addresses")
            && err.contains("url = \"https://example.org/{page_dir}/{fm.slug|page_name}/\""),
        "{err}"
    );
    write(
        t.path(),
        "corpus.toml",
        "[corpus]\nname = \"s\"\n\n[[library]]\nid = \"site\"\nroot = \"site\"\nurl = \"https://example.org/{slug}/\"\n",
    );
    let o = run(bin().current_dir(t.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("urls:"), "{}", stderr(&o));
}

/// The output of an earlier build inside the sources, written with another `--out`, is never
/// read as sources either: a folder holding askzico's output marker is not walked, with or
/// without a config.
fn an_earlier_builds_output_elsewhere_in_the_sources_is_not_read() {
    let t = tempfile::tempdir().unwrap();
    write(&t.path().join("site"), "a.md", &page("الصوم"));
    write(
        t.path(),
        "corpus.toml",
        "[corpus]\nname = \"s\"\n\n[[library]]\nid = \"site\"\nroot = \"site\"\n",
    );
    let build = |args: &[&str]| {
        let o = run(bin().current_dir(t.path()).args(args).arg("--json"));
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        (
            v["docs"].clone(),
            v["warnings"].clone(),
            v["corpus_version"].clone(),
        )
    };
    let first = build(&["build", "--out", "site/old"]);
    assert_eq!(first.0, 1);
    assert_eq!(build(&["build", "--out", "out2"]), first);
    let sources = build(&["build", "--sources", "site", "--out", "site/old2"]);
    assert_eq!(sources.0, 1);
    assert_eq!(
        build(&["build", "--sources", "site", "--out", "out3"]),
        sources
    );
}

fn main() -> std::process::ExitCode {
    use common::harness::test;
    common::harness::run(vec![
        test(
            "ignore_files_hidden_folders_and_node_modules_are_left_out_with_or_without_git",
            ignore_files_hidden_folders_and_node_modules_are_left_out_with_or_without_git,
        ),
        test(
            "a_site_layout_roots_the_library_in_its_content_folder",
            a_site_layout_roots_the_library_in_its_content_folder,
        ),
        test(
            "the_sources_outside_the_content_root_are_named",
            the_sources_outside_the_content_root_are_named,
        ),
        test(
            "a_directory_of_json_only_is_refused_with_the_records_mapping_to_write",
            a_directory_of_json_only_is_refused_with_the_records_mapping_to_write,
        ),
        test(
            "every_shared_corpus_folder_builds_with_zero_config",
            every_shared_corpus_folder_builds_with_zero_config,
        )
        .needs(common::harness::shared_corpora),
        test(
            "a_question_is_never_answered_from_another_sites_build",
            a_question_is_never_answered_from_another_sites_build,
        ),
        test(
            "the_output_directory_inside_the_sources_is_never_read",
            the_output_directory_inside_the_sources_is_never_read,
        ),
        test(
            "an_output_directory_inside_a_library_root_is_not_walked",
            an_output_directory_inside_a_library_root_is_not_walked,
        ),
        test(
            "a_gitbook_table_of_contents_is_left_out_and_an_ordinary_summary_page_kept",
            a_gitbook_table_of_contents_is_left_out_and_an_ordinary_summary_page_kept,
        ),
        test(
            "zero_config_says_its_urls_stand_in_for_the_sites",
            zero_config_says_its_urls_stand_in_for_the_sites,
        ),
        test(
            "an_earlier_builds_output_elsewhere_in_the_sources_is_not_read",
            an_earlier_builds_output_elsewhere_in_the_sources_is_not_read,
        ),
        test(
            "a_hugo_sites_shown_frontmatter_text_is_evidence",
            a_hugo_sites_shown_frontmatter_text_is_evidence,
        ),
    ])
}

/// A Hugo site whose pages keep their text in frontmatter its layouts show: zero config reads
/// the keys the layouts name and the pages fill with prose as each page's text, says so, and
/// leaves a key no layout shows out of the evidence.
fn a_hugo_sites_shown_frontmatter_text_is_evidence() {
    let t = tempfile::tempdir().unwrap();
    let site = t.path().join("site");
    write(&site, "hugo.toml", "baseURL = \"https://example.org/\"\n");
    write(
        &site,
        "layouts/fatawa/single.html",
        "{{ with .Params.question }}<div class=\"q\">{{ . }}</div>{{ end }}\n{{ .Params.answer | safeHTML }}\n",
    );
    write(
        &site,
        "content/fatawa/travel.md",
        "---\ntitle: الفطر في السفر\nquestion: هل يجوز للمسافر أن يفطر في رمضان إذا كان سفره طويلا؟\nanswer: |\n  <p>يجوز له الفطر ويقضي ما أفطره من أيام بعد رمضان.</p>\nnotes: ملاحظة داخلية لا تعرضها الصفحة ولا يقرؤها الزوار أبدا هنا\n---\n",
    );
    write(&site, "content/about.md", &page("عن الموقع"));
    let o = run(bin()
        .current_dir(t.path())
        .args(["build", "--sources", "site", "--out", "out"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("page text: the site's layouts show the frontmatter's `question`, `answer`"),
        "{err}"
    );
    let chunks = chunk_records(&t.path().join("out"), "manifest.json");
    let fatwa = chunks
        .iter()
        .find(|c| c["source"].as_str().unwrap().ends_with("travel.md"))
        .expect("the page is a document");
    let text = fatwa["text"].as_str().unwrap();
    assert!(
        text.contains("هل يجوز للمسافر") && text.contains("ويقضي ما أفطره"),
        "{text}"
    );
    assert!(
        !text.contains("ملاحظة داخلية"),
        "no layout shows `notes`: {text}"
    );
}
