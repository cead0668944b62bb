//! Compatibility with the real tool: the KV file of `askzico export --format kv` goes through
//! `wrangler kv bulk put --local` (fully offline: Miniflare's local KV) and records read back with
//! `wrangler kv key get --local` are byte for byte the exported values. Runs when wrangler 4.x is
//! found (`ASKZICO_WRANGLER`, then the directory `.ci/run` installs it into, then `wrangler` on
//! PATH); otherwise it skips and prints why.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde_json::Value;

/// The namespace ID local mode files the records under (no config file is needed with it).
const NAMESPACE: &str = "askzico-compat";

fn wrangler_cmd(exe: &Path) -> Command {
    let mut c = Command::new(exe);
    c.env("WRANGLER_SEND_METRICS", "false")
        .env("CI", "true")
        .env_remove("CLOUDFLARE_API_TOKEN");
    c
}

/// A wrangler 4.x that runs here, or why there is none.
fn find_wrangler() -> Result<PathBuf, String> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("ASKZICO_WRANGLER") {
        candidates.push(p.into());
    }
    if let Some(home) = std::env::var_os("HOME") {
        candidates
            .push(Path::new(&home).join(".cache/askzico-wrangler/node_modules/.bin/wrangler"));
    }
    candidates.push("wrangler".into());
    let mut tried = Vec::new();
    for exe in candidates {
        match wrangler_cmd(&exe).arg("--version").output() {
            Ok(o) if o.status.success() => {
                let v = String::from_utf8_lossy(&o.stdout).trim().to_string();
                if v.split('.').next().is_some_and(|major| {
                    major.trim_start_matches(|c: char| !c.is_ascii_digit()) == "4"
                }) {
                    return Ok(exe);
                }
                tried.push(format!("{} is version {v:?}, not 4.x", exe.display()));
            }
            Ok(o) => tried.push(format!(
                "{} --version failed: {}",
                exe.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            )),
            Err(e) => tried.push(format!("{}: {e}", exe.display())),
        }
    }
    Err(tried.join("; "))
}

fn wrangler_ok(exe: &Path, dir: &Path, args: &[&str]) -> String {
    let o = wrangler_cmd(exe)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(
        o.status.success(),
        "wrangler {args:?} failed:\n{out}\n{err}"
    );
    out
}

/// A need: wrangler 4.x.
fn wrangler() -> Option<String> {
    find_wrangler()
        .err()
        .map(|why| format!("no wrangler 4.x ({why}); .ci/run installs one"))
}

fn wrangler_local_kv_takes_the_exported_bulk_file_and_returns_the_records() {
    let exe = find_wrangler().expect("the harness runs this test only with wrangler");
    let p = sample_project();
    let o = run(bin().current_dir(p.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let dest = p.path().join("upload");
    let o = run(bin()
        .current_dir(p.path())
        .args(["export", "--format", "kv", "--prefix", "zico/", "--dest"])
        .arg(&dest));
    assert!(o.status.success(), "{}", stderr(&o));
    let files: Vec<String> = stdout(&o).lines().map(String::from).collect();
    assert_eq!(
        files.len(),
        1,
        "the sample build fits one bulk file: {files:?}"
    );

    let state = p.path().join("wrangler-state");
    let state_arg = state.to_str().unwrap();
    let out = wrangler_ok(
        &exe,
        p.path(),
        &[
            "kv",
            "bulk",
            "put",
            &files[0],
            "--namespace-id",
            NAMESPACE,
            "--local",
            "--persist-to",
            state_arg,
        ],
    );
    assert!(out.contains("Success"), "{out}");

    let pairs: Vec<Value> = serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    let version = manifest(&p.path().join("out"))["corpus_version"]
        .as_str()
        .unwrap()
        .to_string();
    let pick = |prefix: String| {
        pairs
            .iter()
            .find(|pair| pair["key"].as_str().unwrap().starts_with(&prefix))
            .unwrap_or_else(|| panic!("no key {prefix}*"))
    };
    // A lookup record with Arabic evidence, a lexical file, a record table, a document table,
    // the version's key table and its manifest.
    for pair in [
        pick("zico/r/".into()),
        pick("zico/l/".into()),
        pick("zico/t/".into()),
        pick("zico/d/".into()),
        pick(format!("zico/{version}/tables")),
        pick(format!("zico/{version}/manifest")),
    ] {
        let key = pair["key"].as_str().unwrap();
        let got = wrangler_ok(
            &exe,
            p.path(),
            &[
                "kv",
                "key",
                "get",
                key,
                "--namespace-id",
                NAMESPACE,
                "--local",
                "--persist-to",
                state_arg,
            ],
        );
        assert_eq!(
            got,
            pair["value"].as_str().unwrap(),
            "wrangler returned another value for {key}"
        );
    }
    let chunk = pick("zico/r/".into());
    let record: Value = serde_json::from_str(chunk["value"].as_str().unwrap()).unwrap();
    assert!(
        record["text"]
            .as_str()
            .unwrap()
            .chars()
            .any(|c| ('\u{0600}'..='\u{06FF}').contains(&c)),
        "an Arabic record: {record}"
    );
}

fn main() -> std::process::ExitCode {
    use common::harness::test;
    common::harness::run(vec![
        test(
            "wrangler_local_kv_takes_the_exported_bulk_file_and_returns_the_records",
            wrangler_local_kv_takes_the_exported_bulk_file_and_returns_the_records,
        )
        .needs(wrangler),
    ])
}
