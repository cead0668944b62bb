//! Helpers for driving the binary the way a user does.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

pub mod harness;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn bin() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("askzico").expect("binary builds")
}

/// `../shared/corpora`, or `None` with the reason printed (a user's clone has none); under
/// `CI=true` its absence fails the test.
pub fn shared_corpora(test: &str) -> Option<PathBuf> {
    let p = repo().join("../shared/corpora");
    if p.join("SOURCES.md").is_file() {
        Some(p)
    } else if harness::in_ci() {
        panic!("{test}: ../shared/corpora is absent, and CI must have it");
    } else {
        println!("SKIP {test}: ../shared/corpora is absent (it exists in CI); nothing checked");
        None
    }
}

pub fn run(cmd: &mut assert_cmd::Command) -> Output {
    let out = cmd.output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked at"),
        "the binary panicked:\n{stderr}"
    );
    out
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Copies a directory tree (files only).
pub fn copy_tree(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// A copy of the repo's sample project (corpus.toml + sources/) in a fresh temp dir.
pub fn sample_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(repo().join("corpus.toml"), dir.path().join("corpus.toml")).unwrap();
    copy_tree(&repo().join("sources"), &dir.path().join("sources"));
    dir
}

/// Every file under `out/` except caches, as (relative path, bytes), sorted.
pub fn out_files(out: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(out)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path()
                    .strip_prefix(out)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .filter(|(p, _)| !p.starts_with("cache"))
        .collect();
    v.sort();
    v
}

pub fn manifest(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap()
}

/// Every chunk record of a build, read through its manifest.
pub fn chunk_records(out: &Path, manifest_name: &str) -> Vec<serde_json::Value> {
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join(manifest_name)).unwrap()).unwrap();
    let mut recs = Vec::new();
    for a in m["artifacts"].as_array().unwrap() {
        if a["kind"] == "chunks" {
            let text = std::fs::read_to_string(out.join(a["path"].as_str().unwrap())).unwrap();
            for line in text.lines() {
                recs.push(serde_json::from_str(line).unwrap());
            }
        }
    }
    recs
}

/// Called by a test that sets one of askzico's test hooks (`ASKZICO_FAIL_AFTER_WRITES`, …): the
/// binary reads them only when built with the `test-hooks` feature, which the README's test
/// command turns on. Without it the test fails here, naming the command, instead of testing a
/// binary that ignores the hook.
pub fn test_hooks() {
    if !cfg!(feature = "test-hooks") {
        panic!(
            "this test sets a test hook: run it with `cargo test --release --locked --workspace --features test-hooks`"
        );
    }
}

/// `build --watch --stats-json [extra]` started in `root`, and its stats lines as they come.
pub fn spawn_watch(
    root: &Path,
    extra: &[&str],
) -> (std::process::Child, std::sync::mpsc::Receiver<String>) {
    let args: Vec<&str> = std::iter::once("--stats-json")
        .chain(extra.iter().copied())
        .collect();
    spawn_watch_with(root, &args)
}

/// `build --watch [args]` started in `root`, and its stdout lines as they come.
pub fn spawn_watch_with(
    root: &Path,
    args: &[&str],
) -> (std::process::Child, std::sync::mpsc::Receiver<String>) {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("askzico"))
        .current_dir(root)
        .args(["build", "--watch"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)).map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    (child, rx)
}
