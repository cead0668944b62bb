//! Where askzico writes: names that would leave the output directory, output directories that
//! are (or hold) sources, `gc` on directories askzico did not build, output flags pointed at
//! sources, the config or askzico's own files, and `init`'s messages. Each case runs after a good
//! build, asserts the exit code and the message, and — for refusals — that nothing in the project
//! changed (sources, config, `out/`) and nothing appeared beside it.

use std::collections::BTreeMap;
use std::path::Path;

use super::*;

/// A check of a successful case: the project and the command's output.
type OutputCheck = fn(&Path, &str) -> Result<(), String>;

struct PathCase {
    name: &'static str,
    setup: Setup,
    args: &'static [&'static str],
    code: i32,
    /// A part of stderr or stdout.
    message: &'static str,
    /// What may change: `Nothing` (a refusal), `Out` (a failed build may add unnamed files
    /// under `out/`, never change its manifest), or `Anything` (a success, checked by `check`).
    changes: Changes,
    check: Option<OutputCheck>,
}

#[derive(Clone, Copy, PartialEq)]
enum Changes {
    Nothing,
    Out,
    Anything,
}

const fn refused(
    name: &'static str,
    setup: Setup,
    args: &'static [&'static str],
    code: i32,
    message: &'static str,
) -> PathCase {
    PathCase {
        name,
        setup,
        args,
        code,
        message,
        changes: Changes::Nothing,
        check: None,
    }
}

fn none(_: &Path) -> Result<(), String> {
    Ok(())
}

/// Every entry under `dir` (links not followed): its path, and its bytes, `dir` or link target.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .min_depth(1)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let what = if e.path_is_symlink() {
                format!("link {}", std::fs::read_link(e.path()).unwrap().display()).into_bytes()
            } else if e.file_type().is_dir() {
                b"dir".to_vec()
            } else {
                std::fs::read(e.path()).unwrap_or_default()
            };
            (rel, what)
        })
        .collect()
}

fn without_out(t: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, Vec<u8>> {
    t.iter()
        .filter(|(p, _)| p.as_str() != "project/out" && !p.starts_with("project/out/"))
        .map(|(p, b)| (p.clone(), b.clone()))
        .collect()
}

/// What differs between two trees, for the failure message.
fn differences(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let mut d: Vec<String> = Vec::new();
    for (p, x) in a {
        match b.get(p) {
            None => d.push(format!("removed {p}")),
            Some(y) if x != y => d.push(format!("changed {p}")),
            _ => {}
        }
    }
    d.extend(
        b.keys()
            .filter(|p| !a.contains_key(*p))
            .map(|p| format!("added {p}")),
    );
    d
}

fn run_path_case(c: &PathCase) -> Result<(), String> {
    // The project in a folder of its own: a write beside it (`--out ..`) is seen too.
    let dir = tempfile::tempdir().unwrap();
    let root = &dir.path().join("project");
    put(root, "corpus.toml", CONFIG)?;
    put(root, "src/good.md", GOOD)?;
    let good = run(bin().current_dir(root).arg("build"));
    if good.status.code() != Some(0) {
        return Err(format!("the good build failed:\n{}", stderr(&good)));
    }
    (c.setup)(root)?;
    let before = tree(dir.path());
    let o = run(bin()
        .current_dir(root)
        .timeout(std::time::Duration::from_secs(300))
        .args(c.args));
    let text = format!("{}{}", stderr(&o), stdout(&o));
    let mut fails = Vec::new();
    if o.status.code() != Some(c.code) {
        fails.push(format!("exit {:?}, expected {}", o.status.code(), c.code));
    }
    if !text.contains(c.message) {
        fails.push(format!("the output lacks {:?}", c.message));
    }
    let after = tree(dir.path());
    match c.changes {
        Changes::Nothing if after != before => fails.push(format!(
            "something changed: {:?}",
            differences(&before, &after)
        )),
        Changes::Out => {
            if without_out(&after) != without_out(&before) {
                fails.push(format!(
                    "something outside out/ changed: {:?}",
                    differences(&without_out(&before), &without_out(&after))
                ));
            }
            let manifest = "project/out/manifest.json";
            if after.get(manifest) != before.get(manifest) {
                fails.push("the manifest changed".into());
            }
        }
        _ => {}
    }
    if let Some(check) = c.check
        && let Err(e) = check(root, &text)
    {
        fails.push(e);
    }
    if fails.is_empty() {
        Ok(())
    } else {
        Err(format!("{}\n--- output\n{text}", fails.join("\n")))
    }
}

/// The config with the library's `id = "docs"` line replaced.
fn library(root: &Path, line: &str) -> Result<(), String> {
    set_config(root, &CONFIG.replace("id = \"docs\"", line))
}

/// An askzico-looking tree that askzico did not build (no marker): gc must not touch it.
fn lookalike(root: &Path, dir: &str) -> Result<(), String> {
    put(
        root,
        &format!("{dir}/chunks/docs/000.0123456789abcdef.jsonl"),
        "{}\n",
    )?;
    put(root, &format!("{dir}/versions/0123.json"), "{}\n")?;
    put(root, &format!("{dir}/notes.md"), GOOD)
}

const FIXTURES: &str =
    "[[case]]\nid = \"one\"\nquestion = \"صفحة سليمة\"\nexpect = [\"docs:good\"]\n";

const CASES: &[PathCase] = &[
    refused(
        "an environment name with ../ in corpus.toml",
        |p| append_config(p, "\n[env.\"../../x\"]\nlibraries = [\"docs\"]\n"),
        &["build", "--env", "prod"],
        2,
        "corpus.toml:8: environment name \"../../x\" holds `/`, a path separator",
    ),
    refused(
        "an environment name that is a hidden file",
        |p| append_config(p, "\n[env.\".x\"]\nlibraries = [\"docs\"]\n"),
        &["build"],
        2,
        "environment name \".x\" starts with `.`",
    ),
    refused(
        "--env ../x",
        none,
        &["build", "--env", "../x"],
        2,
        "invalid value '../x' for '--env <ENV>': \"../x\" holds `/`",
    ),
    refused(
        "--env ..",
        none,
        &["verify", "--env", ".."],
        2,
        "\"..\" names a directory, not a file",
    ),
    refused(
        "a deploy target name with / in corpus.toml",
        |p| {
            append_config(
                p,
                "\n[deploy.\"a/../../b\"]\nindexes = [\"x-blue\", \"x-green\"]\nkv_namespace_id = \"abc\"\n",
            )
        },
        &["build"],
        2,
        "corpus.toml:8: deploy target name \"a/../../b\" holds `/`",
    ),
    refused(
        "deploy --target ../x",
        none,
        &["deploy", "--target", "../x", "--dry-run"],
        2,
        "invalid value '../x' for '--target <TARGET>'",
    ),
    refused(
        "a library id with /",
        |p| library(p, "id = \"../docs\""),
        &["build"],
        2,
        "library id `../docs` must be ASCII letters, digits, `-` or `_`",
    ),
    refused(
        "a library id that reads as an option",
        |p| library(p, "id = \"-docs\""),
        &["build"],
        2,
        "library id \"-docs\" starts with `-`",
    ),
    refused(
        "a domain with /",
        |p| library(p, "id = \"docs\"\ndomains = [\"../x\"]"),
        &["build"],
        2,
        "domain `../x` must be ASCII letters, digits, `-` or `_`",
    ),
    refused(
        "--out is the library root",
        none,
        &["build", "--out", "src"],
        2,
        "--out src: the output directory `src` is the root of library `docs`",
    ),
    refused(
        "--out .",
        none,
        &["build", "--out", "."],
        2,
        "the output directory `.` contains the root of library `docs`",
    ),
    refused(
        "--out above the project",
        none,
        &["build", "--out", ".."],
        2,
        "the output directory `..` contains the root of library `docs`",
    ),
    refused(
        "--sources src --out src",
        none,
        &["build", "--sources", "src", "--out", "src"],
        2,
        "the output directory `src` is the root of library `src`",
    ),
    refused(
        "--out a folder of sources inside the root",
        |p| put(p, "src/guides/more.md", GOOD),
        &["build", "--out", "src/guides"],
        2,
        "`src/guides` holds files askzico did not write",
    ),
    refused(
        "--out the config file",
        none,
        &["build", "--out", "corpus.toml"],
        2,
        "the output directory `corpus.toml` is a file, not a directory",
    ),
    refused(
        "[corpus] out names an existing file",
        |p| {
            put(p, "notes.txt", "mine")?;
            set_config(
                p,
                &CONFIG.replace("name = \"bad\"", "name = \"bad\"\nout = \"notes.txt\""),
            )
        },
        &["build"],
        2,
        "corpus.toml:3: the output directory `notes.txt` is a file, not a directory",
    ),
    refused(
        "an artifact folder of out/ linked into the sources",
        |p| {
            std::fs::remove_dir_all(p.join("out/lexical")).unwrap();
            std::os::unix::fs::symlink("../src", p.join("out/lexical")).unwrap();
            put(p, "src/good.md", format!("{GOOD}\nفقرة جديدة.\n"))
        },
        &["build"],
        2,
        "out/lexical is not a directory (a symbolic link or a file)",
    ),
    PathCase {
        changes: Changes::Out,
        ..refused(
            "a folder deep in out/ linked into the sources",
            |p| {
                std::fs::remove_dir_all(p.join("out/lexical/docs")).unwrap();
                std::os::unix::fs::symlink("../../src", p.join("out/lexical/docs")).unwrap();
                put(p, "src/good.md", format!("{GOOD}\nفقرة جديدة.\n"))
            },
            &["build"],
            1,
            "lexical/docs is a symbolic link (askzico writes only into real directories there)",
        )
    },
    refused(
        "gc on a directory without the marker",
        |p| lookalike(p, "other"),
        &["gc", "--out", "other", "--keep", "0"],
        1,
        "other is not an askzico output directory (it holds no `.askzico` marker)",
    ),
    refused(
        "gc on a library root",
        |p| lookalike(p, "src"),
        &["gc", "--out", "src", "--keep", "0"],
        1,
        "src is not an askzico output directory",
    ),
    refused(
        "inspect --html over the manifest",
        none,
        &["inspect", "--no-rebuild", "--html", "out/manifest.json"],
        2,
        "--html out/manifest.json is one of askzico's own files or folders in the output directory",
    ),
    refused(
        "inspect --html over a source file",
        none,
        &["inspect", "--no-rebuild", "--html", "src/good.md"],
        2,
        "--html src/good.md is inside the sources (the root `src` of library `docs`)",
    ),
    refused(
        "inspect --html as a new file in a source root",
        none,
        &["inspect", "--no-rebuild", "--html", "src/report.html"],
        2,
        "--html src/report.html is inside the sources",
    ),
    refused(
        "inspect --html over a file askzico did not write",
        |p| put(p, "notes.html", "<p>mine</p>"),
        &["inspect", "--no-rebuild", "--html", "notes.html"],
        2,
        "--html notes.html already exists and is not an HTML report of `askzico inspect`",
    ),
    refused(
        "export --dest into a source root",
        none,
        &["export", "--format", "kv", "--dest", "src"],
        2,
        "the export file src/kv.json is inside the sources (the root `src` of library `docs`)",
    ),
    refused(
        "export --dest into askzico's own folder",
        none,
        &["export", "--format", "vectorize", "--dest", "out/versions"],
        2,
        "the export file out/versions/vectors.docs.ndjson is one of askzico's own files",
    ),
    refused(
        "export --dest over a file askzico did not write",
        |p| put(p, "exports/kv.json", "{\"mine\": true}"),
        &["export", "--format", "kv", "--dest", "exports"],
        2,
        "the export file exports/kv.json already exists and is not a KV file of `askzico export`",
    ),
    refused(
        "export --dest into a folder holding a file no export wrote",
        |p| put(p, "exports/notes.txt", "mine"),
        &["export", "--format", "kv", "--dest", "exports"],
        2,
        "--dest exports holds exports/notes.txt, which no askzico export wrote",
    ),
    PathCase {
        name: "init in a folder holding a link writes only its config",
        setup: |p| {
            std::fs::create_dir_all(p.join("elsewhere")).map_err(|e| e.to_string())?;
            std::fs::create_dir_all(p.join("fresh/sources")).map_err(|e| e.to_string())?;
            std::os::unix::fs::symlink("../../elsewhere", p.join("fresh/sources/articles"))
                .map_err(|e| e.to_string())
        },
        args: &["init", "fresh"],
        code: 0,
        message: "created fresh/corpus.toml for the site already there",
        changes: Changes::Anything,
        check: Some(|p, _| {
            let there: Vec<_> = std::fs::read_dir(p.join("elsewhere"))
                .map_err(|e| e.to_string())?
                .collect();
            if !there.is_empty() {
                return Err(format!("init wrote through the link: {there:?}"));
            }
            Ok(())
        }),
    },
    refused(
        "eval --record onto a file it did not write",
        |p| {
            put(p, "fixtures.toml", FIXTURES)?;
            put(p, "checkpoints.jsonl", "my own notes\n")
        },
        &["eval", "--fixtures", "fixtures.toml", "--record", "x"],
        1,
        "checkpoints.jsonl was not written by `askzico eval --record` (line 1 is not a checkpoint)",
    ),
    refused(
        "eval --record onto a link",
        |p| {
            put(p, "fixtures.toml", FIXTURES)?;
            put(p, "notes.jsonl", "")?;
            std::os::unix::fs::symlink("notes.jsonl", p.join("checkpoints.jsonl"))
                .map_err(|e| e.to_string())
        },
        &["eval", "--fixtures", "fixtures.toml", "--record", "x"],
        1,
        "checkpoints.jsonl is a symbolic link: --record leaves it as it is",
    ),
    refused(
        "eval --write-baseline over the config",
        |p| put(p, "fixtures.toml", FIXTURES),
        &[
            "eval",
            "--fixtures",
            "fixtures.toml",
            "--write-baseline",
            "corpus.toml",
        ],
        2,
        "--write-baseline corpus.toml is the config file",
    ),
    refused(
        "eval --write-baseline over a chunk file",
        |p| put(p, "fixtures.toml", FIXTURES),
        &[
            "eval",
            "--fixtures",
            "fixtures.toml",
            "--write-baseline",
            "out/chunks/base.json",
        ],
        2,
        "--write-baseline out/chunks/base.json is one of askzico's own files",
    ),
    refused(
        "init on an existing file",
        none,
        &["init", "src/good.md"],
        2,
        "src/good.md is a file, not a directory",
    ),
    refused(
        "init in a directory with a config",
        none,
        &["init", "."],
        2,
        "./corpus.toml already exists: not overwritten",
    ),
    refused(
        "init inside a library root",
        none,
        &["init", "src/new"],
        2,
        "src/new/corpus.toml is inside the sources (the root `src` of library `docs`)",
    ),
    refused(
        "init inside the output directory",
        none,
        &["init", "out/cache/new"],
        2,
        "one of askzico's own files or folders in the output directory",
    ),
    PathCase {
        name: "init in a folder that holds a site writes only the config, reading the site",
        setup: |p| put(p, "fresh/sources/articles/welcome.md", "mine"),
        args: &["init", "fresh"],
        code: 0,
        message: "created fresh/corpus.toml for the site already there: library `fresh` reads the Markdown, MDX and HTML under fresh",
        changes: Changes::Anything,
        check: Some(|p, text| {
            if text.contains("welcome.md") {
                return Err("init speaks of a sample in a folder that has content".into());
            }
            let config =
                std::fs::read_to_string(p.join("fresh/corpus.toml")).map_err(|e| e.to_string())?;
            if !config.contains("root = \".\"") || !config.contains("# [deploy.prod]") {
                return Err(format!("the config does not read the folder:\n{config}"));
            }
            match std::fs::read_to_string(p.join("fresh/sources/articles/welcome.md")) {
                Ok(t) if t == "mine" => Ok(()),
                other => Err(format!("the page changed: {other:?}")),
            }
        }),
    },
];

pub(crate) fn paths_table() {
    run_each(CASES, |c| c.name, run_path_case);
}

/// An `out/` built before the marker existed (simulated by deleting it): gc refuses it, the next
/// build marks it without any step from the user, and gc then works — removing only files a
/// manifest of the directory names or named, never a file askzico cannot prove it wrote.
pub(crate) fn an_output_directory_without_the_marker_gets_it_on_the_next_build() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    put(root, "corpus.toml", CONFIG).unwrap();
    put(root, "src/good.md", GOOD).unwrap();
    let build = || run(bin().current_dir(root).arg("build"));
    assert_eq!(build().status.code(), Some(0));
    let marker = root.join("out/.askzico");
    assert!(marker.is_file(), "a build marks its output directory");
    std::fs::remove_file(&marker).unwrap();
    let before = tree(root);
    let o = run(bin().current_dir(root).args(["gc", "--keep", "0"]));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("holds no `.askzico` marker"),
        "{}",
        stderr(&o)
    );
    assert_eq!(tree(root), before, "a refused gc changes nothing");

    // A second version, so gc has something to remove; the build marks the directory.
    put(
        root,
        "src/good.md",
        format!("{GOOD}\nفقرة جديدة عن السوق.\n"),
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(build().status.code(), Some(0));
    assert!(marker.is_file(), "the build marked the directory again");
    // A file in askzico's place that no manifest names and whose bytes do not hash to its
    // name, and a file outside askzico's layout: both stay.
    put(root, "out/chunks/docs/999.0123456789abcdef.jsonl", "{}\n").unwrap();
    put(root, "out/chunks/docs/notes.md", GOOD).unwrap();
    // What a killed build leaves: named by no manifest, but its bytes hash to its name.
    let orphan = "{\"orphan\": true}\n";
    let hash = blake3::hash(orphan.as_bytes()).to_hex()[..16].to_string();
    let orphan_path = root.join(format!("out/chunks/docs/555.{hash}.jsonl"));
    std::fs::write(&orphan_path, orphan).unwrap();
    let o = run(bin()
        .current_dir(root)
        .args(["gc", "--keep", "0", "--json"]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(r["versions_removed"], 1, "{r}");
    assert!(r["files_removed"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(
        r["left_in_place"],
        serde_json::json!([
            "chunks/docs/999.0123456789abcdef.jsonl",
            "chunks/docs/notes.md"
        ]),
        "{r}"
    );
    assert!(!orphan_path.exists(), "a killed build's file is removed");
    assert!(root.join("out/chunks/docs/notes.md").is_file());
    assert!(
        root.join("out/chunks/docs/999.0123456789abcdef.jsonl")
            .is_file()
    );
    let o = run(bin().current_dir(root).arg("verify"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(root.join("src/good.md")).unwrap(),
        format!("{GOOD}\nفقرة جديدة عن السوق.\n")
    );
}
