//! Helpers for driving `askzico-bench` the way a developer does.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Output;

#[path = "../../../../tests/common/harness.rs"]
pub mod harness;

/// The workspace root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn bin() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("askzico-bench").expect("binary builds");
    c.current_dir(repo());
    c
}

/// `../shared/corpora` beside the workspace, or `None` with the reason printed (a user's clone
/// has none); under `CI=true` its absence fails the test.
pub fn shared_corpora(test: &str) -> Option<PathBuf> {
    let p = repo().join("../shared/corpora");
    if p.join("SOURCES.md").is_file() {
        Some(p)
    } else if std::env::var("CI").is_ok_and(|v| v == "true") {
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
