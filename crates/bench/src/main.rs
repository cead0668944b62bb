//! askzico-bench: askzico's benchmarks, kept out of the product binary.
//!
//! - `askzico-bench builds [--docs 1000,10000] [--runs 3] [--dir DIR] [--askzico PATH] [--json]`:
//!   builds of generated corpora, each in a fresh `askzico` process (`harness`).
//! - `askzico-bench micro [--config examples/shared-corpora/corpus.toml] [--runs 7] [--json]`:
//!   single-thread throughput of the chunker, the normalizer and the stemmer (`micro`).
//! - `askzico-bench corpus --docs N --dest DIR`: the synthetic corpus alone (`corpus`).
//!
//! The corpus is made from `../shared/corpora`, read at run time; nothing generated is
//! committed.

#![warn(unreachable_pub)]

mod corpus;
mod harness;
mod micro;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use corpus::BenchError;
use harness::BenchOptions;
use micro::MicroOptions;

const EXIT_OK: u8 = 0;
const EXIT_ERRORS: u8 = 1;
const EXIT_USAGE: u8 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "askzico-bench",
    version,
    about = "askzico's build and component benchmarks"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Benchmark builds of generated corpora: cold builds, a no-op rebuild and one-file edits,
    /// each in a fresh process; wall time, peak RSS, CPU, source MB/s and time per stage.
    Builds(BuildsArgs),
    /// Single-thread MB/s of the chunker, the normalizer and the stemmer on the extracted
    /// documents of `--config`.
    Micro(MicroArgs),
    /// Generate a deterministic synthetic corpus (from the shared corpora).
    Corpus(CorpusArgs),
}

#[derive(clap::Args, Debug)]
struct BuildsArgs {
    /// Corpus sizes in documents, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000")]
    docs: Vec<usize>,
    /// Runs of each kind per size (medians, min and max are reported).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where the shared corpora are.
    #[arg(long, default_value = "../shared/corpora")]
    corpora: PathBuf,
    /// Working directory: generated corpora (kept, by size and seed) and build outputs.
    #[arg(long, default_value = "target/askzico-bench")]
    dir: PathBuf,
    /// The `askzico` binary to measure (default: the one beside this program).
    #[arg(long)]
    askzico: Option<PathBuf>,
    /// Print one JSON object on stdout (the tables go to stderr).
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
struct MicroArgs {
    /// The corpus measured (its sources are extracted once, untimed).
    #[arg(long, default_value = "examples/shared-corpora/corpus.toml")]
    config: PathBuf,
    /// Runs of each component (medians, min and max are reported).
    #[arg(long, default_value_t = 7)]
    runs: usize,
    /// Only these components (comma-separated names as in the table, e.g. `normalize (build)`),
    /// e.g. to profile one of them.
    #[arg(long, value_delimiter = ',')]
    component: Vec<String>,
    /// Print one JSON object on stdout (the table goes to stderr).
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
struct CorpusArgs {
    #[arg(long, default_value_t = 1000)]
    docs: usize,
    /// Instead of documents, this many small JSON records (a title and a sentence each), in
    /// files of 10,000: the shape of a dataset rather than a site.
    #[arg(long, conflicts_with = "docs")]
    records: Option<usize>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where the shared corpora are.
    #[arg(long, default_value = "../shared/corpora")]
    corpora: PathBuf,
    /// A new or empty folder, or one this command made.
    #[arg(long)]
    dest: PathBuf,
}

fn main() -> ExitCode {
    let code = match Cli::parse().command {
        Command::Builds(a) => builds(a),
        Command::Micro(a) => micro(a),
        Command::Corpus(a) => corpus(&a.corpora, &a.dest, a.records.ok_or(a.docs), a.seed),
    };
    ExitCode::from(code)
}

/// Where the `askzico` binary is: `--askzico`, or beside this program.
fn askzico_binary(given: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(p) = given {
        return Ok(p);
    }
    let me = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let beside = me.with_file_name(format!("askzico{}", std::env::consts::EXE_SUFFIX));
    if beside.is_file() {
        Ok(beside)
    } else {
        Err(format!(
            "no askzico binary beside {}: build it (`cargo build --release`) or pass --askzico PATH",
            me.display()
        ))
    }
}

fn builds(a: BuildsArgs) -> u8 {
    if a.runs == 0 || a.docs.is_empty() || a.docs.contains(&0) {
        eprintln!("bench: --runs and every --docs size must be at least 1");
        return EXIT_USAGE;
    }
    let askzico = match askzico_binary(a.askzico) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("bench: {e}");
            return EXIT_USAGE;
        }
    };
    let opts = BenchOptions {
        sizes: a.docs,
        runs: a.runs,
        seed: a.seed,
        corpora: a.corpora,
        dir: a.dir,
        askzico,
    };
    match harness::run(&opts, &mut |line| eprintln!("[bench] {line}")) {
        Ok(report) => {
            if a.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report).expect("report serializes")
                );
                eprintln!("{}", harness::render_table(&report));
            } else {
                println!("{}", harness::render_table(&report));
                println!("({})", harness::NOTE);
            }
            EXIT_OK
        }
        Err(e) => {
            eprintln!("bench: {e}");
            EXIT_ERRORS
        }
    }
}

fn micro(a: MicroArgs) -> u8 {
    if a.runs == 0 {
        eprintln!("bench: --runs must be at least 1");
        return EXIT_USAGE;
    }
    let cfg = match askzico::Config::load(&a.config) {
        Ok(c) => c,
        Err(problems) => {
            askzico::report(&problems, false);
            return EXIT_USAGE;
        }
    };
    let opts = MicroOptions {
        config: a.config,
        runs: a.runs,
        components: a.component,
    };
    match micro::run(&opts, &cfg, &mut |line| eprintln!("[bench] {line}")) {
        Ok(report) => {
            if a.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report).expect("report serializes")
                );
                eprintln!("{}", micro::render_table(&report));
            } else {
                println!("{}", micro::render_table(&report));
                println!("({})", micro::NOTE);
            }
            EXIT_OK
        }
        Err(e) => {
            eprintln!("bench: {e}");
            EXIT_ERRORS
        }
    }
}

/// A generated corpus written into `dest`, a new or empty folder or one an earlier `corpus`
/// made; any other is refused (exit 2) and left as it is.
fn corpus(corpora: &Path, dest: &Path, size: Result<usize, usize>, seed: u64) -> u8 {
    let made = match size {
        Ok(records) => corpus::generate_records(corpora, dest, records, seed),
        Err(docs) => corpus::generate(corpora, dest, docs, seed),
    };
    match made {
        Ok(bytes) => {
            let (n, what) = match size {
                Ok(n) => (n, "records"),
                Err(n) => (n, "documents"),
            };
            println!(
                "{n} {what}, {:.1} MB, in {}",
                bytes as f64 / 1e6,
                dest.display()
            );
            EXIT_OK
        }
        Err(BenchError::NotOurs { path, why }) => {
            let p = askzico::Problem::error(
                "output-path",
                format!("--dest {}: {} {why}", dest.display(), path.display()),
            )
            .in_file(path.display().to_string())
            .help("pass --dest a new or empty folder, or one `askzico-bench corpus` made");
            askzico::report(&askzico::Problems(vec![p]), false);
            EXIT_USAGE
        }
        Err(e) => {
            eprintln!("bench corpus: {e}");
            EXIT_ERRORS
        }
    }
}
