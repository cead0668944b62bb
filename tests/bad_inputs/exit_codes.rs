//! Usage and config errors of the commands that write outside a build (`init`, `deploy`,
//! `export`) exit 2, as the README's table says; a failure of the work itself exits 1. Each case
//! runs after a good build, without Cloudflare credentials unless it sets them, and asserts the
//! exit code, the message and that the project (sources, config, `out/`) did not change.

use super::*;

/// A deploy target that needs no network to be named (ids only, as the config holds them).
const TARGET: &str = "\n[deploy.prod]\naccount_id = \"0123456789abcdef0123456789abcdef\"\nindexes = [\"corpus-blue\", \"corpus-green\"]\nkv_namespace_id = \"0123456789abcdef0123456789abcdef\"\n";

struct ExitCase {
    name: &'static str,
    setup: Setup,
    args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
    code: i32,
    /// A part of stderr.
    message: &'static str,
}

fn none(_: &Path) -> Result<(), String> {
    Ok(())
}

const CASES: &[ExitCase] = &[
    ExitCase {
        name: "init in a directory that has a corpus.toml",
        setup: none,
        args: &["init", "."],
        env: &[],
        code: 2,
        message: "corpus.toml already exists: not overwritten",
    },
    ExitCase {
        name: "init on a file",
        setup: none,
        args: &["init", "src/good.md"],
        env: &[],
        code: 2,
        message: "src/good.md is a file, not a directory",
    },
    ExitCase {
        name: "deploy without a token",
        setup: none,
        args: &["deploy", "--target", "prod"],
        env: &[],
        code: 2,
        message: "a deploy needs CLOUDFLARE_API_TOKEN in the environment",
    },
    ExitCase {
        name: "deploy --json without a token",
        setup: none,
        args: &["deploy", "--target", "prod", "--json"],
        env: &[],
        code: 2,
        message: "a deploy needs CLOUDFLARE_API_TOKEN in the environment",
    },
    ExitCase {
        name: "deploy --rollback without a token",
        setup: none,
        args: &["deploy", "--target", "prod", "--rollback"],
        env: &[],
        code: 2,
        message: "a rollback needs CLOUDFLARE_API_TOKEN in the environment",
    },
    ExitCase {
        name: "deploy --check without a token",
        setup: none,
        args: &["deploy", "--target", "prod", "--check"],
        env: &[],
        code: 2,
        message: "a check needs CLOUDFLARE_API_TOKEN in the environment",
    },
    ExitCase {
        name: "query --target without a token",
        setup: none,
        args: &["query", "--target", "prod", "سؤال"],
        env: &[],
        code: 2,
        message: "a query of the deployed version needs CLOUDFLARE_API_TOKEN",
    },
    ExitCase {
        name: "deploy with a token that is not one",
        setup: none,
        args: &["deploy", "--target", "prod", "--dry-run"],
        env: &[("CLOUDFLARE_API_TOKEN", "two words")],
        code: 2,
        message: "CLOUDFLARE_API_TOKEN contains spaces",
    },
    ExitCase {
        name: "export --since a missing file",
        setup: none,
        args: &[
            "export", "--format", "kv", "--dest", "exp", "--since", "old.json",
        ],
        env: &[],
        code: 2,
        message: "cannot read --since old.json",
    },
    ExitCase {
        name: "export --since a directory",
        setup: |p| std::fs::create_dir_all(p.join("old")).map_err(|e| e.to_string()),
        args: &[
            "export", "--format", "kv", "--dest", "exp", "--since", "old",
        ],
        env: &[],
        code: 2,
        message: "cannot read --since old",
    },
    ExitCase {
        name: "export --since a file that is not a manifest",
        setup: |p| put(p, "old.json", "{\"not\": \"a manifest\"}"),
        args: &[
            "export", "--format", "kv", "--dest", "exp", "--since", "old.json",
        ],
        env: &[],
        code: 2,
        message: "--since old.json is not an askzico manifest",
    },
];

/// Every file of the project (sources, config, `out/`) with its bytes.
fn project_files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(root).unwrap().display().to_string();
            (rel, std::fs::read(e.path()).unwrap_or_default())
        })
        .collect();
    files.sort();
    files
}

fn run_exit_case(c: &ExitCase) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    put(root, "corpus.toml", format!("{CONFIG}{TARGET}"))?;
    put(root, "src/good.md", GOOD)?;
    let good = run(bin().current_dir(root).arg("build"));
    if good.status.code() != Some(0) {
        return Err(format!("the good build failed:\n{}", stderr(&good)));
    }
    (c.setup)(root)?;
    let before = project_files(root);
    let mut cmd = bin();
    cmd.current_dir(root)
        .args(c.args)
        .env_remove("CLOUDFLARE_API_TOKEN")
        .env_remove("CLOUDFLARE_ACCOUNT_ID")
        .envs(c.env.iter().copied());
    let o = run(&mut cmd);
    let err = stderr(&o);
    let mut fails = Vec::new();
    if o.status.code() != Some(c.code) {
        fails.push(format!("exit {:?}, expected {}", o.status.code(), c.code));
    }
    if !err.contains(c.message) {
        fails.push(format!("stderr lacks {:?}", c.message));
    }
    if err.contains("panicked at") {
        fails.push("a panic".into());
    }
    if project_files(root) != before {
        fails.push("the project changed although the command was refused".into());
    }
    if fails.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}\n--- stdout\n{}\n--- stderr\n{err}",
            fails.join("\n"),
            stdout(&o)
        ))
    }
}

pub(crate) fn exit_codes_table() {
    run_each(CASES, |c| c.name, run_exit_case);
}

/// The counterpart: a dry run needs no token, and plans against the local journal.
pub(crate) fn a_dry_run_without_a_token_is_not_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    put(root, "corpus.toml", format!("{CONFIG}{TARGET}")).unwrap();
    put(root, "src/good.md", GOOD).unwrap();
    assert_eq!(
        run(bin().current_dir(root).arg("build")).status.code(),
        Some(0)
    );
    let o = run(bin()
        .current_dir(root)
        .args(["deploy", "--target", "prod", "--dry-run"])
        .env_remove("CLOUDFLARE_API_TOKEN")
        .env_remove("CLOUDFLARE_ACCOUNT_ID"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no CLOUDFLARE_API_TOKEN: planning against the local deploy journal")
    );
}
