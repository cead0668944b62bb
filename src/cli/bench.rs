//! `askzico bench [--docs 1000,10000] [--runs 3] [--dir DIR] [--json]` and
//! `askzico bench --micro [--config examples/shared-corpora/corpus.toml] [--runs 7] [--json]`

use std::path::Path;

use super::{EXIT_ERRORS, EXIT_OK, EXIT_USAGE, report};
use crate::bench::BenchError;
use crate::bench::harness::{self, BenchOptions};
use crate::bench::micro::{self as micro_bench, MicroOptions};

pub fn run(opts: BenchOptions, json: bool) -> i32 {
    if opts.runs == 0 || opts.sizes.is_empty() || opts.sizes.contains(&0) {
        eprintln!("bench: --runs and every --docs size must be at least 1");
        return EXIT_USAGE;
    }
    match harness::run(&opts, &mut |line| eprintln!("[bench] {line}")) {
        Ok(report) => {
            if json {
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

/// `bench --micro`: single-thread component throughput.
pub fn micro(opts: MicroOptions, json: bool) -> i32 {
    if opts.runs == 0 {
        eprintln!("bench: --runs must be at least 1");
        return EXIT_USAGE;
    }
    let Some(cfg) = super::load_config(&opts.config, false) else {
        return EXIT_USAGE;
    };
    match micro_bench::run(&opts, &cfg, &mut |line| eprintln!("[bench] {line}")) {
        Ok(report) => {
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report).expect("report serializes")
                );
                eprintln!("{}", micro_bench::render_table(&report));
            } else {
                println!("{}", micro_bench::render_table(&report));
                println!("({})", micro_bench::NOTE);
            }
            EXIT_OK
        }
        Err(e) => {
            eprintln!("bench: {e}");
            EXIT_ERRORS
        }
    }
}

/// `bench-corpus`: a generated corpus written into `dest`, a new or empty folder or one an
/// earlier `bench-corpus` made; any other is refused (exit 2) and left as it is.
pub fn corpus(corpora: &Path, dest: &Path, docs: usize, seed: u64) -> i32 {
    match crate::bench::generate(corpora, dest, docs, seed) {
        Ok(bytes) => {
            println!(
                "{docs} documents, {:.1} MB, in {}",
                bytes as f64 / 1e6,
                dest.display()
            );
            EXIT_OK
        }
        Err(BenchError::NotOurs { path, why }) => {
            let p = crate::diag::Problem::error(
                "output-path",
                format!("--dest {}: {} {why}", dest.display(), path.display()),
            )
            .in_file(path.display().to_string())
            .help("pass --dest a new or empty folder, or one `askzico bench-corpus` made");
            report(&crate::diag::Problems(vec![p]), false);
            EXIT_USAGE
        }
        Err(e) => {
            eprintln!("bench-corpus: {e}");
            EXIT_ERRORS
        }
    }
}
