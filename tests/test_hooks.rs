//! The binary the README's first command builds (`cargo run --release --locked -- build`: no
//! features) holds none of the test hooks: the names of their variables are nowhere in it. The
//! same names are in the binary the tests run (built with `--features test-hooks`), so the check
//! can fail.

mod common;

use std::path::Path;
use std::process::Command;

const HOOKS: [&str; 7] = [
    "ASKZICO_TEST_DELETE_BEFORE_READ",
    "ASKZICO_TEST_PAUSE_BEFORE_LOAD",
    "ASKZICO_FAIL_AFTER_WRITES",
    "ASKZICO_KILL_AFTER_WRITES",
    "ASKZICO_DEPLOY_MAX_KV_PAIRS",
    "ASKZICO_DEPLOY_MAX_METADATA_BYTES",
    "ASKZICO_DEPLOY_MAX_UPSERT_VECTORS",
];

fn names_in(bin: &Path) -> Vec<&'static str> {
    let bytes = std::fs::read(bin).unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
    HOOKS
        .into_iter()
        .filter(|h| bytes.windows(h.len()).any(|w| w == h.as_bytes()))
        .collect()
}

#[test]
fn the_release_binary_a_user_builds_names_no_test_hook() {
    common::test_hooks();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Its own target directory: the tests' binary must not be replaced under the other tests.
    let target = repo.join("target").join("without-test-hooks");
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "--locked", "--bin", "askzico"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(repo)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build --release failed");
    let user = target.join("release").join("askzico");
    assert_eq!(names_in(&user), Vec::<&str>::new(), "in {}", user.display());
    let tests = Path::new(env!("CARGO_BIN_EXE_askzico"));
    assert_eq!(names_in(tests), HOOKS.to_vec(), "in {}", tests.display());
}
