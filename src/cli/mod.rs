//! cli: argument parsing and exit codes; one thin file per command.
//!
//! Exit codes: 0 ok; 1 build or check errors (the last good build stays as it was);
//! 2 usage or config errors.

mod build;
mod deploy;
mod eval;
pub(crate) mod export;
mod init;
mod inspect;
mod normalize;
mod query;
mod rules;
pub(crate) mod show;
mod verify;
mod worker;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::config::Config;
use crate::diag::Problems;

pub(crate) const EXIT_OK: i32 = 0;
pub(crate) const EXIT_ERRORS: i32 = 1;
pub(crate) const EXIT_USAGE: i32 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "askzico",
    version,
    about = "Compile curated Arabic site content into citation-ready RAG artifacts for Cloudflare"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Where a command finds its build: the config, the output directory and the environment.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct BuildLocation {
    /// The corpus config.
    #[arg(long, default_value = "corpus.toml")]
    pub config: PathBuf,
    /// Instead of a config: a directory of sources, built as one library named after it (its
    /// Markdown, MDX and HTML files, format by extension; frontmatter `title`, `url` and `domains`
    /// honoured; default settings; output into `./out` unless `--out` says otherwise). JSON
    /// records need a `corpus.toml` with a `[library.records]` mapping.
    #[arg(long, conflicts_with = "config", value_name = "DIR")]
    pub sources: Option<PathBuf>,
    /// The output directory (default: the config's `[corpus] out`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A named environment (`[env.NAME]`): only its libraries, into `manifest.NAME.json`.
    #[arg(long, value_parser = crate::paths::name_arg)]
    pub env: Option<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compile the corpus into content-addressed artifacts and a manifest.
    Build(build::BuildArgs),
    /// Remove the artifact files no kept manifest names (every current manifest and the N newest
    /// versions are kept; caches are not touched).
    Gc(verify::GcArgs),
    /// Re-hash every artifact of a build and check its invariants.
    Verify(verify::VerifyArgs),
    /// Write the exact upload files of the current build.
    Export(export::ExportArgs),
    /// Deploy the current build to a `[deploy.NAME]` target: vectors into the inactive Vectorize
    /// index, KV records under the new version, then the pointer, last.
    Deploy(deploy::DeployArgs),
    /// Ask a question of the current build: BM25 + vectors, fused, date-aware, hydrated evidence.
    Query(query::QueryArgs),
    /// Run fixture sets: hit@1, hit@5, MRR@10 per set and library; gate on a baseline.
    Eval(eval::EvalArgs),
    /// Print the search form of a text (line 1), then variants, aliases and explanations.
    Normalize(normalize::NormalizeArgs),
    /// Normalization rules and aliases: focused cases and collisions.
    Rules(rules::RulesArgs),
    /// Print a document's or chunk's records as built (text, boundaries, metadata) for review.
    Show(show::ShowArgs),
    /// Inspect the current build: automatic quality checks, a determinism rebuild, a stratified
    /// sample for review, the diff against another version and an HTML report; exit 1 when a
    /// check exceeds its `[inspect]` threshold.
    Inspect(inspect::InspectArgs),
    /// Write a commented corpus.toml: in a folder that holds a site, reading that site; in a new
    /// or empty folder, with one sample source.
    Init(init::InitArgs),
    /// The Worker that answers a site's visitors: `worker init --target NAME` writes it and its
    /// wrangler.jsonc for a deploy target.
    Worker(worker::WorkerArgs),
}

/// How a command that did not succeed ends: its exit code, and the problems left to render.
#[derive(Debug)]
pub(crate) struct Failure {
    code: i32,
    problems: Problems,
    json: bool,
}

impl Failure {
    /// A usage or config error (exit 2): these problems.
    pub(crate) fn usage(problems: impl Into<Problems>, json: bool) -> Self {
        Failure {
            code: EXIT_USAGE,
            problems: problems.into(),
            json,
        }
    }

    /// An error of the build, a check or a remote operation (exit 1): these problems.
    pub(crate) fn errors(problems: impl Into<Problems>, json: bool) -> Self {
        Failure {
            code: EXIT_ERRORS,
            problems: problems.into(),
            json,
        }
    }

    /// Exit `code` with nothing more to render: the command has already said what went wrong.
    pub(crate) fn said(code: i32) -> Self {
        Failure {
            code,
            problems: Problems(Vec::new()),
            json: false,
        }
    }
}

/// What every command returns.
pub(crate) type Outcome = Result<(), Failure>;

impl From<crate::diag::Problem> for Problems {
    fn from(p: crate::diag::Problem) -> Problems {
        Problems(vec![p])
    }
}

impl From<Vec<crate::diag::Problem>> for Problems {
    fn from(ps: Vec<crate::diag::Problem>) -> Problems {
        Problems(ps)
    }
}

/// The one place an outcome becomes an exit code, its problems rendered.
fn exit_code(outcome: Outcome) -> i32 {
    match outcome {
        Ok(()) => EXIT_OK,
        Err(f) => {
            if !f.problems.0.is_empty() {
                report(&f.problems, f.json);
            }
            f.code
        }
    }
}

static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// When the process started: the first build's `ms` counts from here.
pub(crate) fn process_start() -> std::time::Instant {
    *START.get_or_init(std::time::Instant::now)
}

/// The whole program: parses the command line, runs the command and returns the process's exit
/// code once every file queued for the writer threads (caches saved after a failed build) has
/// reached the disk.
pub fn run() -> i32 {
    let code = run_command();
    crate::artifacts::writer::all_written();
    code
}

fn run_command() -> i32 {
    process_start();
    // Logs and CI read diagnostics as whole lines: wrap only on a terminal.
    let width = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        100
    } else {
        1000
    };
    let _ = miette::set_hook(Box::new(move |_| {
        Box::new(miette::MietteHandlerOpts::new().width(width).build())
    }));
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
            let _ = e.print();
            return code;
        }
    };
    // A knob set to a value it does not accept is refused before any command runs.
    if let Err(problems) = crate::knobs::check_env() {
        crate::diag::Problems(problems).report();
        return EXIT_USAGE;
    }
    exit_code(match cli.command {
        Command::Build(a) => build::run(a),
        Command::Verify(a) => verify::run(a),
        Command::Gc(a) => verify::gc(a),
        Command::Export(a) => export::run(a),
        Command::Deploy(a) => deploy::run(a),
        Command::Query(a) => query::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Normalize(a) => normalize::run(a),
        Command::Rules(a) => rules::run(a),
        Command::Show(a) => show::run(a),
        Command::Init(a) => init::run(a),
        Command::Worker(a) => worker::run(a),
        Command::Inspect(a) => inspect::run(a),
    })
}

impl BuildLocation {
    /// The config: `--sources DIR`'s, or the `--config` file's.
    pub(crate) fn config(&self) -> Result<Config, Problems> {
        if self.sources.is_none()
            && self.config == std::path::Path::new("corpus.toml")
            && std::fs::symlink_metadata(&self.config).is_err()
        {
            return Err(Problems(vec![no_config_here()]));
        }
        Config::load_or_sources(&self.config, self.sources.as_deref(), self.out.as_deref())
    }

    /// The `askzico build` that makes the build a reading command with these flags answers
    /// from: the same `--config` (when not the default), `--sources`, `--out` and `--env`.
    pub(crate) fn build_command(&self) -> String {
        let mut cmd = String::from("askzico build");
        let mut flag = |name: &str, value: &std::path::Path| {
            let v = value.display().to_string();
            let v = if v.contains(char::is_whitespace) {
                format!("'{v}'")
            } else {
                v
            };
            cmd.push_str(&format!(" --{name} {}", crate::term::line(&v)));
        };
        match &self.sources {
            Some(dir) => flag("sources", dir),
            None if self.config != std::path::Path::new("corpus.toml") => {
                flag("config", &self.config)
            }
            None => {}
        }
        if let Some(out) = &self.out {
            flag("out", out);
        }
        if let Some(env) = &self.env {
            flag("env", std::path::Path::new(env));
        }
        cmd
    }

    /// Loads the config; its problems are a usage error.
    pub(crate) fn load(&self, json: bool) -> Result<Config, Failure> {
        self.config().map_err(|p| Failure::usage(p, json))
    }

    /// The manifest of the build in `out` a reading command answers from. With `--sources`,
    /// it must be that directory's build: two sites built with `--sources` share the default
    /// `./out`, and answering one site's question from the other's build is refused.
    pub(crate) fn read_manifest(
        &self,
        out: &std::path::Path,
    ) -> Result<crate::artifacts::manifest::Manifest, crate::diag::Problem> {
        let m = crate::artifacts::store::read_manifest(out, self.env.as_deref()).map_err(|p| {
            // No build yet: the command that makes the one this command would read.
            if p.code == "no-manifest"
                && !out
                    .join(crate::artifacts::manifest::manifest_file_name(
                        self.env.as_deref(),
                    ))
                    .exists()
            {
                p.help(format!(
                    "nothing is built in {} yet: run `{}` first",
                    out.display(),
                    self.build_command()
                ))
            } else {
                p
            }
        })?;
        // Without a config that loads, there is nothing to hold the build against.
        let Ok(cfg) = self.config() else {
            return Ok(m);
        };
        if let Some(dir) = &self.sources {
            let want: Vec<&str> = cfg.libraries.iter().map(|l| l.id.as_str()).collect();
            let have: Vec<&str> = m.libraries.iter().map(|l| l.id.as_str()).collect();
            if want != have {
                return Err(crate::diag::Problem::error(
                    "other-build",
                    format!(
                        "{} holds the build of `{}`, not of --sources {} (`{}`)",
                        out.display(),
                        have.join("`, `"),
                        dir.display(),
                        want.join("`, `")
                    ),
                )
                .in_file(out.join("manifest.json").display().to_string())
                .help(format!(
                    "build it first: `askzico build --sources {}` (each site needs its own --out to keep both builds)",
                    dir.display()
                )));
            }
        }
        if m.corpus != cfg.name {
            return Err(other_corpus(out, &m, &cfg, self.shown()));
        }
        Ok(m)
    }

    /// The `[deploy.NAME]` target of `cfg`; when there is none, says so with the known ones
    /// (a usage error).
    pub(crate) fn deploy_target<'c>(
        &self,
        cfg: &'c Config,
        name: &str,
    ) -> Result<&'c crate::config::DeployTarget, Failure> {
        let target = cfg.deploy.get(name);
        if target.is_none() {
            let known: Vec<&str> = cfg.deploy.keys().map(String::as_str).collect();
            eprintln!(
                "no deploy target `{name}` in {} (known: {})",
                self.shown(),
                if known.is_empty() {
                    "none; add a [deploy.NAME] table".to_string()
                } else {
                    known.join(", ")
                }
            );
        }
        target.ok_or(Failure::said(EXIT_USAGE))
    }

    /// The config as messages name it.
    pub(crate) fn shown(&self) -> String {
        match &self.sources {
            Some(dir) => format!("--sources {}", dir.display()),
            None => self.config.display().to_string(),
        }
    }
}

/// Renders problems: miette to stderr, or JSON lines on stderr under `--json`.
pub fn report(problems: &Problems, json: bool) {
    if json {
        for p in &problems.0 {
            eprintln!("{}", p.to_json());
        }
    } else {
        problems.report();
    }
}

/// The refusal of a build in `out` that another config made (its manifest names another
/// corpus): a reading command would answer from it, and a deploy upload it, under this
/// config's name.
fn other_corpus(
    out: &std::path::Path,
    m: &crate::artifacts::manifest::Manifest,
    cfg: &Config,
    shown: impl std::fmt::Display,
) -> crate::diag::Problem {
    crate::diag::Problem::error(
        "other-build",
        format!(
            "{} holds the build of corpus `{}`, not of `{}` ({shown})",
            out.display(),
            crate::term::line(&m.corpus),
            crate::term::line(&cfg.name),
        ),
    )
    .in_file(out.join("manifest.json").display().to_string())
    .help(format!(
        "build this config first: `askzico build` (each config needs its own `out_dir` to keep both builds; this one writes {})",
        cfg.out_dir.display()
    ))
}

/// A deploy uploads the build of the config it runs with, as that config now stands: a build
/// of another corpus, or of other settings (the config changed since), is refused.
pub(crate) fn build_of_config(
    out: &std::path::Path,
    m: &crate::artifacts::manifest::Manifest,
    cfg: &Config,
    env: Option<&str>,
    shown: impl std::fmt::Display,
) -> Result<(), crate::diag::Problem> {
    if m.corpus != cfg.name {
        return Err(other_corpus(out, m, cfg, shown));
    }
    let libs = cfg.libraries_for(env)?;
    let values =
        crate::compile::settings_values(&cfg.compile_settings(), libs.iter().map(|l| l.shape()));
    let now = values
        .get("fingerprint")
        .and_then(|v| v.as_str())
        .unwrap_or_default();
    if now != m.fingerprint() {
        return Err(crate::diag::Problem::error(
            "stale-build",
            format!(
                "{} holds a build of `{}` made with other settings than {shown} now holds (fingerprint {} of the build, {now} of the config)",
                out.display(),
                crate::term::line(&cfg.name),
                crate::term::line(m.fingerprint()),
            ),
        )
        .in_file(out.join("manifest.json").display().to_string())
        .help("run `askzico build`, then deploy: a deploy uploads the build of the config as it stands"));
    }
    Ok(())
}

/// No `--config`, no `--sources`, and no `corpus.toml` in the working directory: the ways to
/// start, the most likely first (a folder of pages built as it is).
fn no_config_here() -> crate::diag::Problem {
    let here = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| ".".into());
    let pages = walkdir::WalkDir::new(".")
        .max_depth(3)
        .into_iter()
        .filter_map(Result::ok)
        .any(|e| {
            e.file_type().is_file()
                && e.path()
                    .extension()
                    .and_then(|x| x.to_str())
                    .is_some_and(|x| matches!(x, "md" | "mdx" | "html" | "htm"))
        });
    let first = if pages {
        "this folder holds pages: build them as they are with `askzico build --sources .`"
    } else {
        "build a folder of Markdown, MDX or HTML as it is with `askzico build --sources DIR`"
    };
    crate::diag::Problem::error(
        "config-read",
        format!("no corpus.toml in {}", crate::term::line(&here)),
    )
    .in_file("corpus.toml")
    .help(format!(
        "{first}; or write a corpus.toml here with `askzico init`; or pass one with --config PATH"
    ))
}
