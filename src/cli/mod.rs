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
pub mod show;
mod verify;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::config::Config;
use crate::diag::Problems;

pub const EXIT_OK: i32 = 0;
pub const EXIT_ERRORS: i32 = 1;
pub const EXIT_USAGE: i32 = 2;

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
pub struct BuildLocation {
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
    Build {
        #[command(flatten)]
        at: BuildLocation,
        /// Print a machine-readable summary (corpus version, counts, diagnostics) on stdout.
        #[arg(long)]
        json: bool,
        /// Keep running and rebuild on every change of the sources or the config.
        #[arg(long)]
        watch: bool,
        /// After every build, print one JSON line of the work done on stdout (the only stdout
        /// output in watch mode).
        #[arg(long)]
        stats_json: bool,
        /// Publish the build even when it has no document (otherwise that is an error and the
        /// previous build stays in place).
        #[arg(long)]
        allow_empty: bool,
        /// Print every warning in full (by default the terminal gets one line per kind of
        /// warning, with its count and a few examples).
        #[arg(long)]
        verbose: bool,
    },
    /// Remove the artifact files no kept manifest names (every current manifest and the N newest
    /// versions are kept; caches are not touched).
    Gc {
        #[command(flatten)]
        at: BuildLocation,
        /// How many of the newest version manifests under `out/versions/` to keep, besides the current ones.
        #[arg(long, default_value_t = 3)]
        keep: usize,
        /// Say what would be removed, remove nothing.
        #[arg(long)]
        dry_run: bool,
        #[arg(long)]
        json: bool,
    },
    /// Re-hash every artifact of a build and check its invariants.
    Verify {
        #[command(flatten)]
        at: BuildLocation,
        #[arg(long)]
        json: bool,
    },
    /// Write the exact upload files of the current build.
    Export {
        #[command(flatten)]
        at: BuildLocation,
        /// `vectorize` (NDJSON for `wrangler vectorize upsert`) or `kv` (JSON for `wrangler kv bulk put`).
        #[arg(long, value_enum)]
        format: export::ExportFormat,
        /// Directory to write into.
        #[arg(long)]
        dest: PathBuf,
        /// KV key prefix (the deploy target's; empty by default).
        #[arg(long, default_value = "")]
        prefix: String,
        /// With `--format kv`: write only the pairs the version of this older manifest lacks
        /// (its artifacts must still be in the output directory).
        #[arg(long)]
        since: Option<PathBuf>,
    },
    /// Deploy the current build to a `[deploy.NAME]` target: vectors into the inactive Vectorize
    /// index, KV records under the new version, then the pointer, last.
    Deploy {
        #[command(flatten)]
        at: BuildLocation,
        /// The `[deploy.NAME]` table of the config.
        #[arg(long, value_parser = crate::paths::name_arg)]
        target: String,
        /// Print the plan (counts, bytes, batches, the version switch) and send nothing.
        #[arg(long)]
        dry_run: bool,
        /// Then delete the KV keys of versions neither index holds any more (by the exact keys
        /// their stored manifests name; never the live version's). With --dry-run, only list them.
        #[arg(long)]
        gc: bool,
        #[arg(long)]
        json: bool,
        /// Send a plan that makes more KV writes than the target's `max_kv_writes`.
        #[arg(long)]
        confirm_writes: bool,
        /// Point the target back at the version its inactive index still holds (writes the
        /// pointer only; refused once that version was overwritten or collected).
        #[arg(long, conflicts_with_all = ["dry_run", "gc", "confirm_writes"])]
        rollback: bool,
        /// Read the live version back through the API as a runtime reads it and confirm that
        /// every chunk ID of it resolves (reads only).
        #[arg(long, conflicts_with_all = ["dry_run", "gc", "confirm_writes", "rollback"])]
        check: bool,
    },
    /// Ask a question of the current build: BM25 + vectors, fused, date-aware, hydrated evidence.
    Query {
        #[command(flatten)]
        at: BuildLocation,
        /// Results to show (at least 1).
        #[arg(long, default_value_t = 5, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
        k: usize,
        /// Only these domains (repeatable).
        #[arg(long = "domain")]
        domains: Vec<String>,
        #[arg(long, value_enum, default_value = "fused")]
        mode: crate::retrieve::ModeArg,
        #[arg(long)]
        json: bool,
        /// Ask the version live on this `[deploy.NAME]` target (KV and Vectorize, read through
        /// the API) instead of the local build.
        #[arg(long, value_parser = crate::paths::name_arg, conflicts_with_all = ["out", "env"])]
        target: Option<String>,
        /// Instead of one question, every question of these fixture files (as `eval` reads
        /// them), each with its case's domains; with `--json`, one answer a line.
        #[arg(long, num_args = 1.., conflicts_with_all = ["question", "domains"])]
        fixtures: Vec<PathBuf>,
        #[arg(required_unless_present = "fixtures")]
        question: Option<String>,
    },
    /// Run fixture sets: hit@1, hit@5, MRR@10 per set and library; gate on a baseline.
    Eval {
        #[command(flatten)]
        at: BuildLocation,
        #[arg(long, num_args = 1..)]
        fixtures: Vec<PathBuf>,
        #[arg(long, default_value_t = 10)]
        k: usize,
        /// Exit 1 when any set's hit@5 or MRR@10 falls below this stored report.
        #[arg(long)]
        baseline: Option<PathBuf>,
        /// Store this run's report as a baseline.
        #[arg(long)]
        write_baseline: Option<PathBuf>,
        /// Append a checkpoint row to checkpoints.jsonl beside the config.
        #[arg(long)]
        record: Option<String>,
        /// Print the recorded checkpoints.
        #[arg(long)]
        history: bool,
        /// Also report lexical-only and vector-only rankings.
        #[arg(long)]
        compare: bool,
        #[arg(long, value_enum, default_value = "fused")]
        mode: crate::retrieve::ModeArg,
        #[arg(long)]
        json: bool,
    },
    /// Print the search form of a text (line 1), then variants, aliases and explanations.
    Normalize {
        /// The corpus config whose rules and aliases apply (defaults when absent).
        #[arg(long, default_value = "corpus.toml")]
        config: PathBuf,
        /// Show alias expansions, glossary terms and article stems.
        #[arg(long)]
        aliases: bool,
        /// Name the rule that changed each character.
        #[arg(long)]
        explain: bool,
        text: String,
    },
    /// Normalization rules and aliases: focused cases and collisions.
    Rules {
        #[command(subcommand)]
        command: RulesCommand,
    },
    /// Print a document's or chunk's records as built (text, boundaries, metadata) for review.
    Show {
        #[command(flatten)]
        at: BuildLocation,
        /// A chunk_id, doc_id, url, or source path (suffix at a `/` or `#` boundary).
        key: String,
        #[arg(long)]
        json: bool,
    },
    /// Inspect the current build: automatic quality checks, a determinism rebuild, a stratified
    /// sample for review, the diff against another version and an HTML report; exit 1 when a
    /// check exceeds its `[inspect]` threshold.
    Inspect {
        #[command(flatten)]
        at: BuildLocation,
        /// Chunks per library in the sample.
        #[arg(long, default_value_t = 5)]
        sample: usize,
        /// Seed of the sample.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Another build's manifest (e.g. out/versions/<v>.json): report what changed since.
        #[arg(long)]
        against: Option<PathBuf>,
        /// Write a self-contained HTML report here.
        #[arg(long)]
        html: Option<PathBuf>,
        /// Print one JSON object (checks, sample, diff, determinism) on stdout.
        #[arg(long)]
        json: bool,
        /// Skip the determinism rebuild.
        #[arg(long)]
        no_rebuild: bool,
    },
    /// Scaffold a commented corpus.toml and one sample source.
    Init {
        /// Directory to create the project in.
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
}

#[derive(Subcommand, Debug)]
enum RulesCommand {
    /// For every rule and alias: its focused cases (rank with and without it) and the distinct
    /// corpus words it merges; exit 1 when a rule merges a pair `[[collision]]` does not accept.
    Check {
        #[command(flatten)]
        at: BuildLocation,
        /// Fixture files holding the focused cases (default: fixtures.toml beside the config).
        #[arg(long, num_args = 1..)]
        fixtures: Vec<PathBuf>,
        /// Skip the with/without rebuilds (collisions only).
        #[arg(long)]
        no_rebuild: bool,
        /// Examples per rule.
        #[arg(long, default_value_t = 5)]
        examples: usize,
    },
}

static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// When the process started: the first build's `ms` counts from here.
pub fn process_start() -> std::time::Instant {
    *START.get_or_init(std::time::Instant::now)
}

pub fn main() -> i32 {
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
    match cli.command {
        Command::Build {
            at,
            json,
            watch,
            stats_json,
            allow_empty,
            verbose,
        } => build::run(
            &at,
            build::BuildArgs {
                json,
                watch,
                stats_json,
                allow_empty,
                verbose,
            },
        ),
        Command::Verify { at, json } => verify::run(&at, json),
        Command::Gc {
            at,
            keep,
            dry_run,
            json,
        } => verify::gc(
            &at,
            verify::GcArgs {
                keep,
                dry_run,
                json,
            },
        ),
        Command::Export {
            at,
            format,
            dest,
            prefix,
            since,
        } => export::run(&at, format, &dest, &prefix, since.as_deref()),
        Command::Deploy {
            at,
            target,
            dry_run,
            gc,
            json,
            confirm_writes,
            rollback,
            check,
        } => deploy::run(
            &at,
            &target,
            deploy::Mode {
                dry_run,
                gc,
                json,
                confirm_writes,
                rollback,
                check,
            },
        ),
        Command::Query {
            at,
            k,
            domains,
            mode,
            json,
            target,
            fixtures,
            question,
        } => query::run(
            &at,
            query::QueryArgs {
                question: question.as_deref(),
                fixtures: &fixtures,
                k,
                domains: &domains,
                mode: mode.into(),
                json,
                target: target.as_deref(),
            },
        ),
        Command::Eval {
            at,
            fixtures,
            k,
            baseline,
            write_baseline,
            record,
            history,
            compare,
            mode,
            json,
        } => eval::run(
            &at,
            eval::EvalArgs {
                fixtures,
                k,
                baseline,
                write_baseline,
                record,
                history,
                compare,
                mode: mode.into(),
                json,
            },
        ),
        Command::Normalize {
            config,
            aliases,
            explain,
            text,
        } => normalize::run(&config, &text, normalize::Show { aliases, explain }),
        Command::Rules {
            command:
                RulesCommand::Check {
                    at,
                    fixtures,
                    no_rebuild,
                    examples,
                },
        } => rules::check(&at, fixtures, no_rebuild, examples),
        Command::Show { at, key, json } => show::run(&at, &key, json),
        Command::Init { dir } => init::run(&dir),
        Command::Inspect {
            at,
            sample,
            seed,
            against,
            html,
            json,
            no_rebuild,
        } => inspect::run(
            &at,
            inspect::InspectArgs {
                sample,
                seed,
                against,
                html,
                json,
                no_rebuild,
            },
        ),
    }
}

impl BuildLocation {
    /// The config: `--sources DIR`'s, or the `--config` file's.
    pub fn config(&self) -> Result<Config, Problems> {
        Config::load_or_sources(&self.config, self.sources.as_deref(), self.out.as_deref())
    }

    /// Loads the config, reporting its problems; `None` means exit with `EXIT_USAGE`.
    pub fn load(&self, json: bool) -> Option<Config> {
        self.config().map_err(|p| report(&p, json)).ok()
    }

    /// The manifest of the build in `out` a reading command answers from. With `--sources`,
    /// it must be that directory's build: two sites built with `--sources` share the default
    /// `./out`, and answering one site's question from the other's build is refused.
    pub fn read_manifest(
        &self,
        out: &std::path::Path,
    ) -> Result<crate::artifacts::manifest::Manifest, crate::diag::Problem> {
        let m = crate::artifacts::store::read_manifest(out, self.env.as_deref())?;
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
    /// (`None` means exit with `EXIT_USAGE`).
    pub fn deploy_target<'c>(
        &self,
        cfg: &'c Config,
        name: &str,
    ) -> Option<&'c crate::config::DeployTarget> {
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
        target
    }

    /// The config as messages name it.
    pub fn shown(&self) -> String {
        match &self.sources {
            Some(dir) => format!("--sources {}", dir.display()),
            None => self.config.display().to_string(),
        }
    }
}

/// Loads the config, reporting its problems; `None` means exit with `EXIT_USAGE`.
pub fn load_config(path: &std::path::Path, json: bool) -> Option<Config> {
    match Config::load(path) {
        Ok(c) => Some(c),
        Err(problems) => {
            report(&problems, json);
            None
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
pub fn build_of_config(
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
