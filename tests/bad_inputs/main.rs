//! The bad-input catalogue: every case builds a good corpus first, then adds one bad
//! input (generated here, in a temp dir: binary, huge and deep inputs are never committed) and
//! runs the binary the way a user does. Each case asserts the exit code (0 with a warning for
//! nothing to index, 1 for source errors, 2 for config and usage errors), the diagnostic (level,
//! file relative to the config's directory, line, message), that stderr never holds `panicked
//! at`, and — for errors — that `out/` (the previous manifest and every file it names) is
//! byte-for-byte untouched. Each module below is one table; each case is a few lines.

#[path = "../common/mod.rs"]
mod common;

mod claims;
mod config;
mod embed;
mod encoding;
mod exit_codes;
mod fixtures;
mod frontmatter;
mod fs;
mod glossary;
mod html;
mod jekyll;
mod json;
mod manifest;
mod paths;
mod reads;
mod semantics;
mod structure;

use std::path::Path;

use common::*;
use serde_json::Value;

/// The project every case starts from: one Markdown library `docs` rooted at `src`.
pub const CONFIG: &str = "[corpus]\nname = \"bad\"\n\n[[library]]\nid = \"docs\"\nroot = \"src\"\n";
pub const GOOD: &str =
    "---\ntitle: صفحة سليمة\n---\n\n# صفحة سليمة\n\nهذا نص عربي سليم يبنى قبل كل حالة.\n";

/// Enough Arabic prose for the HTML extractor to see an article (it wants 200 characters).
pub const PROSE: &str = "هذه فقرة عربية طويلة كتبت لاختبار المستخرج، وهي تتحدث عن تاريخ المدينة القديمة وأسواقها وحرفها ومساجدها وكنائسها، وعن الناس الذين عاشوا فيها قرونا طويلة، وعن النهر الذي يمر بها ويسقي حقولها وبساتينها في كل موسم من مواسم السنة.";

/// A record library for JSON cases, appended to `CONFIG`.
pub const RECORDS: &str = "\n[[library]]\nid = \"recs\"\nroot = \"data\"\n\n[library.records]\nselect = \"*.*\"\nid = \"{slug}\"\ntitle = \"name\"\ntext = \"text\"\n";

/// What a case prepares after the good build: `Err(reason)` skips it with the reason printed.
pub type Setup = fn(&Path) -> Result<(), String>;
/// An extra check on the project after the bad build.
pub type Check = fn(&Path, &[Value]) -> Result<(), String>;

pub struct Case {
    pub name: &'static str,
    /// Extra config appended before the good build (e.g. a records library).
    pub base: &'static str,
    pub setup: Setup,
    /// The command after the good build (default `build`).
    pub cmd: &'static [&'static str],
    pub env: &'static [(&'static str, &'static str)],
    pub code: i32,
    /// The diagnostic that must be there: level, file (None = any), line (None = not checked),
    /// a part of the message. `None` for clean builds.
    pub diag: Option<Diag>,
    pub check: Option<Check>,
}

pub struct Diag {
    pub level: &'static str,
    pub file: Option<&'static str>,
    pub line: Option<u64>,
    pub message: &'static str,
}

pub const fn err(file: &'static str, line: Option<u64>, message: &'static str) -> Option<Diag> {
    Some(Diag {
        level: "error",
        file: Some(file),
        line,
        message,
    })
}
pub const fn warn(file: &'static str, line: Option<u64>, message: &'static str) -> Option<Diag> {
    Some(Diag {
        level: "warning",
        file: Some(file),
        line,
        message,
    })
}
/// A config diagnostic: the file is `corpus.toml`.
pub const fn cfg_err(line: u64, message: &'static str) -> Option<Diag> {
    Some(Diag {
        level: "error",
        file: Some("corpus.toml"),
        line: Some(line),
        message,
    })
}

impl Case {
    pub const fn new(name: &'static str, setup: Setup, code: i32, diag: Option<Diag>) -> Case {
        Case {
            name,
            base: "",
            setup,
            cmd: &["build"],
            env: &[],
            code,
            diag,
            check: None,
        }
    }
    pub const fn base(mut self, base: &'static str) -> Case {
        self.base = base;
        self
    }
    pub const fn cmd(mut self, cmd: &'static [&'static str]) -> Case {
        self.cmd = cmd;
        self
    }
    pub const fn env(mut self, env: &'static [(&'static str, &'static str)]) -> Case {
        self.env = env;
        self
    }
    pub const fn check(mut self, check: Check) -> Case {
        self.check = Some(check);
        self
    }
}

/// Writes `bytes` to `rel` under the project, creating directories.
pub fn put(root: &Path, rel: &str, bytes: impl AsRef<[u8]>) -> Result<(), String> {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).map_err(|e| e.to_string())?;
    std::fs::write(p, bytes).map_err(|e| e.to_string())
}

/// Appends to `corpus.toml`.
pub fn append_config(root: &Path, extra: &str) -> Result<(), String> {
    let p = root.join("corpus.toml");
    let text = std::fs::read_to_string(&p).unwrap() + extra;
    std::fs::write(p, text).map_err(|e| e.to_string())
}

/// Replaces `corpus.toml` (`CONFIG` plus `extra`) .
/// Every `(line, part of the message)` of `wanted` has a diagnostic in `file`.
pub fn diags_at(d: &[Value], file: &str, wanted: &[(u64, &str)]) -> Result<(), String> {
    for (line, needle) in wanted {
        if !d.iter().any(|x| {
            x["line"] == *line
                && x["message"].as_str().is_some_and(|m| m.contains(needle))
                && x["file"] == file
        }) {
            return Err(format!(
                "missing the diagnostic at line {line} containing {needle:?}"
            ));
        }
    }
    Ok(())
}

pub fn set_config(root: &Path, text: &str) -> Result<(), String> {
    std::fs::write(root.join("corpus.toml"), text).map_err(|e| e.to_string())
}

/// A directory beside the project (outside the corpus root), removed after the case.
pub fn outside(root: &Path) -> std::path::PathBuf {
    std::path::PathBuf::from(format!("{}-outside", root.display()))
}

/// Every chunk text of the current build.
pub fn evidence(root: &Path) -> String {
    chunk_records(&root.join("out"), "manifest.json")
        .iter()
        .map(|r| r["text"].as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn records(root: &Path) -> Vec<Value> {
    chunk_records(&root.join("out"), "manifest.json")
}

/// Diagnostics of a `--json` run: the summary's on stdout, JSON lines on stderr (config errors).
fn diagnostics(stdout: &str, stderr: &str) -> Vec<Value> {
    let mut out = Vec::new();
    if let Ok(v) = serde_json::from_str::<Value>(stdout.trim())
        && let Some(ds) = v["diagnostics"].as_array()
    {
        out.extend(ds.iter().cloned());
    }
    out.extend(
        stderr
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v.get("level").is_some()),
    );
    out
}

fn matches(d: &Value, want: &Diag) -> bool {
    d["level"] == want.level
        && want.file.is_none_or(|f| d["file"] == f)
        && want.line.is_none_or(|l| d["line"] == l)
        && d["message"]
            .as_str()
            .is_some_and(|m| m.contains(want.message))
}

fn command(root: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = bin();
    c.current_dir(root)
        .timeout(std::time::Duration::from_secs(300))
        .args(args);
    for (k, v) in env {
        // Every variable a case sets is a test hook.
        test_hooks();
        c.env(k, v);
    }
    run(&mut c)
}

/// Runs one case; `Err` says what went wrong.
fn run_case(case: &Case) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    put(root, "corpus.toml", format!("{CONFIG}{}", case.base))?;
    put(root, "src/good.md", GOOD)?;
    if case.base.contains("root = \"data\"") {
        put(
            root,
            "data/good.json",
            r#"{"1 Tout": [{"slug": "good", "name": "سجل", "text": "نص سجل سليم"}]}"#,
        )?;
    }
    let good = command(root, &["build"], &[]);
    if good.status.code() != Some(0) {
        return Err(format!("the good build failed:\n{}", stderr(&good)));
    }
    // A setup that fails checks nothing: that is a failure of the case, never a skip.
    (case.setup)(root).map_err(|reason| format!("its setup failed: {reason}"))?;
    // After the setup: only the manifest cases touch out/, on purpose.
    let before = out_files(&root.join("out"));
    // Machine-readable first, then the human rendering (miette must not panic either).
    let mut args: Vec<&str> = case.cmd.to_vec();
    args.push("--json");
    let o = command(root, &args, case.env);
    let (out, err) = (stdout(&o), stderr(&o));
    let diags = diagnostics(&out, &err);
    let mut fails = Vec::new();
    if o.status.code() != Some(case.code) {
        fails.push(format!(
            "exit {:?}, expected {}",
            o.status.code(),
            case.code
        ));
    }
    if let Some(want) = &case.diag {
        if !diags.iter().any(|d| matches(d, want)) {
            fails.push(format!(
                "no {} diagnostic in {:?} at line {:?} containing {:?}",
                want.level, want.file, want.line, want.message
            ));
        }
        if !diags.iter().all(|d| d["help"].is_string()) {
            fails.push("a diagnostic without help".into());
        }
    }
    if case.code != 0 && out_files(&root.join("out")) != before {
        fails.push("out/ changed although the run failed".into());
    }
    if case.code == 0 && case.cmd == ["build"] && !diags.iter().all(|d| d["level"] == "warning") {
        fails.push("an exit-0 build reported an error".into());
    }
    // The human run: the same input again (setups are idempotent; a hook may have consumed it).
    if (case.setup)(root).is_ok() {
        let human = command(root, case.cmd, case.env);
        if human.status.code() != Some(case.code) {
            fails.push(format!("the human run exits {:?}", human.status.code()));
        }
        if let Some(want) = &case.diag
            && !stderr(&human).contains(want.message)
        {
            fails.push(format!(
                "the human rendering lacks {:?}:\n{}",
                want.message,
                stderr(&human)
            ));
        }
    }
    if let Some(check) = case.check
        && let Err(e) = check(root, &diags)
    {
        fails.push(e);
    }
    let _ = std::fs::remove_dir_all(outside(root));
    if fails.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}\n--- stdout\n{out}\n--- stderr\n{err}",
            fails.join("\n")
        ))
    }
}

/// Runs a table; fails naming every failing case.
pub fn run_table(cases: &[Case]) {
    run_each(cases, |c| c.name, run_case);
}

/// Runs `run` on every case of a table (any case type); fails naming every failing case.
pub fn run_each<C>(cases: &[C], name: fn(&C) -> &str, run: fn(&C) -> Result<(), String>) {
    let failed: Vec<String> = cases
        .iter()
        .filter_map(|c| run(c).err().map(|e| format!("=== {}: {e}", name(c))))
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} cases failed:\n{}",
        failed.len(),
        cases.len(),
        failed.join("\n\n")
    );
}

fn the_catalogue_has_at_least_60_cases() {
    let n = config::CASES.len()
        + encoding::CASES.len()
        + frontmatter::CASES.len()
        + fs::CASES.len()
        + fs::PERMISSION_CASES.len()
        + glossary::CASES.len()
        + html::CASES.len()
        + json::CASES.len()
        + manifest::CASES.len()
        + reads::CASES.len()
        + structure::CASES.len();
    println!("{n} bad-input cases");
    assert!(n >= 60, "{n} cases");
}

fn main() -> std::process::ExitCode {
    use common::harness::test;
    common::harness::run(vec![
        test(
            "the_catalogue_has_at_least_60_cases",
            the_catalogue_has_at_least_60_cases,
        ),
        test(
            "claims::inputs_that_claim_more_than_they_hold",
            claims::inputs_that_claim_more_than_they_hold,
        ),
        test(
            "claims::a_json_build_refused_by_its_config_says_why_on_stdout",
            claims::a_json_build_refused_by_its_config_says_why_on_stdout,
        ),
        test(
            "claims::a_vector_export_of_an_empty_build_says_the_build_is_empty",
            claims::a_vector_export_of_an_empty_build_says_the_build_is_empty,
        ),
        test("config::config", config::config),
        test(
            "embed::a_failing_embedding_command",
            embed::a_failing_embedding_command,
        )
        .needs(common::harness::python3),
        test("encoding::encodings", encoding::encodings),
        test("exit_codes::exit_codes_table", exit_codes::exit_codes_table),
        test(
            "exit_codes::a_dry_run_without_a_token_is_not_a_usage_error",
            exit_codes::a_dry_run_without_a_token_is_not_a_usage_error,
        ),
        test(
            "fixtures::fixtures_that_measure_nothing",
            fixtures::fixtures_that_measure_nothing,
        ),
        test(
            "frontmatter::frontmatter_mdx_and_ids",
            frontmatter::frontmatter_mdx_and_ids,
        ),
        test("fs::file_system", fs::file_system),
        test("fs::unreadable_sources", fs::unreadable_sources)
            .only_where(common::harness::bound_by_permissions),
        test("glossary::glossary_terms", glossary::glossary_terms),
        test("html::hostile_html", html::hostile_html),
        test("jekyll::jekyll_configs", jekyll::jekyll_configs),
        test("json::json_records", json::json_records),
        test(
            "manifest::hand_edited_manifests",
            manifest::hand_edited_manifests,
        ),
        test("paths::paths_table", paths::paths_table),
        test(
            "paths::an_output_directory_without_the_marker_gets_it_on_the_next_build",
            paths::an_output_directory_without_the_marker_gets_it_on_the_next_build,
        ),
        test("reads::bounded_reads", reads::bounded_reads),
        test(
            "reads::a_fifo_config_never_hangs",
            reads::a_fifo_config_never_hangs,
        ),
        test(
            "reads::a_long_config_line_gives_a_short_diagnostic",
            reads::a_long_config_line_gives_a_short_diagnostic,
        ),
        test(
            "semantics::builds_that_would_lose_sources",
            semantics::builds_that_would_lose_sources,
        ),
        test("structure::sizes_and_shapes", structure::sizes_and_shapes),
    ])
}
