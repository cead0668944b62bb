//! The harness of the test binaries whose tests need what a clone may lack (the corpora in
//! `../shared/corpora`, Node and Chromium, wrangler, a user whom permission bits bind): each
//! test names what it needs; one that cannot run here is reported `ignored` in the test
//! summary, and the binary ends with one line per reason naming the tests it skipped. Under
//! `CI=true`, where `.ci/run` installs everything, such a test fails instead.
//!
//! A binary using it sets `harness = false` and lists its tests in `main`; `#[test]` attributes
//! there would compile to nothing, so `tests/architecture.rs` refuses them in such a binary.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

/// Why a test cannot run here, or `None` when it can.
pub type Need = fn() -> Option<String>;

pub struct Test {
    name: String,
    run: fn(),
    /// What `.ci/run` installs: missing under `CI=true`, a failure.
    needs: Vec<Need>,
    /// What no install gives (a user whom permission bits bind): missing, a skip everywhere.
    only_where: Vec<Need>,
}

/// The test `name` (its function's path in the binary), running `run`.
pub fn test(name: &str, run: fn()) -> Test {
    Test {
        name: name.replace(' ', ""),
        run,
        needs: Vec::new(),
        only_where: Vec::new(),
    }
}

impl Test {
    /// The test runs only where `need` finds what it needs.
    pub fn needs(mut self, need: Need) -> Test {
        self.needs.push(need);
        self
    }

    /// The test can run only where `need` holds, which no install changes (it is skipped, with
    /// the reason, in CI too).
    pub fn only_where(mut self, need: Need) -> Test {
        self.only_where.push(need);
        self
    }
}

/// Whether this run is CI's (`CI=true`), where a test that cannot run is a failure.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// `../shared/corpora`: the Arabic corpora the shared-corpora checks read (CI has them).
pub fn shared_corpora_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .expect("the workspace root")
        .join("../shared/corpora")
}

/// A need: the shared corpora.
pub fn shared_corpora() -> Option<String> {
    (!shared_corpora_dir().join("SOURCES.md").is_file())
        .then(|| "../shared/corpora is absent (a clone has none; CI has it)".to_string())
}

/// A need: `python3` on the PATH (the test's embedding command is a Python script).
pub fn python3() -> Option<String> {
    std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
        .then(|| "python3 is not installed".to_string())
}

/// A need: a user whom permission bits bind (root reads a mode-000 file anyway).
pub fn bound_by_permissions() -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("askzico-perm-probe-{}", std::process::id()));
    std::fs::write(&dir, b"probe").ok()?;
    let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o000));
    let readable = std::fs::read(&dir).is_ok();
    let _ = std::fs::remove_file(&dir);
    readable.then(|| {
        "permission bits do not bind this user (root): a mode-000 file reads, so there is nothing to check"
            .to_string()
    })
}

/// Runs the tests as libtest would (same flags and output), then names each reason a test
/// was skipped for, with the tests.
pub fn run(tests: Vec<Test>) -> ExitCode {
    let args = libtest_mimic::Arguments::from_args();
    let ci = in_ci();
    let mut skipped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let trials = tests
        .into_iter()
        .map(|t| {
            let missing: Vec<String> = t.needs.iter().filter_map(|n| n()).collect();
            let impossible: Vec<String> = t.only_where.iter().filter_map(|n| n()).collect();
            let run = t.run;
            if !impossible.is_empty() {
                for why in impossible {
                    skipped.entry(why).or_default().push(t.name.clone());
                }
                libtest_mimic::Trial::test(t.name, || Ok(())).with_ignored_flag(true)
            } else if missing.is_empty() {
                libtest_mimic::Trial::test(t.name, move || {
                    run();
                    Ok(())
                })
            } else if ci {
                let why = missing.join("; ");
                libtest_mimic::Trial::test(t.name, move || {
                    Err(format!("cannot run under CI=true: {why}").into())
                })
            } else {
                for why in missing {
                    skipped.entry(why).or_default().push(t.name.clone());
                }
                libtest_mimic::Trial::test(t.name, || Ok(())).with_ignored_flag(true)
            }
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    for (why, names) in &skipped {
        println!(
            "skipped {} test{} (reported ignored): {why}: {}",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            names.join(", ")
        );
    }
    if !skipped.is_empty() {
        println!();
    }
    conclusion.exit_code()
}
