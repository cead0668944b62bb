//! `askzico eval`: fixture sets against the current build, a baseline gate and checkpoints.

use std::path::{Path, PathBuf};

use super::{BuildLocation, EXIT_ERRORS, EXIT_USAGE, Failure, Outcome};
use crate::artifacts::store::write_atomic;
use crate::diag::Problem;
use crate::eval::{
    Report, checkpoint, load_fixtures, read_checkpoint_text, read_checkpoints, regressions,
    run as run_eval,
};
use crate::retrieve::{Mode, Searcher};
use crate::term;

#[derive(clap::Args, Debug)]
pub(super) struct EvalArgs {
    #[command(flatten)]
    pub at: BuildLocation,
    /// Fixture files: `[[case]]` tables of questions with the documents that answer them.
    #[arg(long, num_args = 1..)]
    pub fixtures: Vec<PathBuf>,
    /// Depth of the ranking each case is scored on (hit@5 and MRR@10 read its top 5 and 10).
    #[arg(long, default_value_t = 10)]
    pub k: usize,
    /// Exit 1 when any set's hit@5 or MRR@10 falls below this stored report.
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// Store this run's report as a baseline.
    #[arg(long)]
    pub write_baseline: Option<PathBuf>,
    /// Append a checkpoint row to checkpoints.jsonl beside the config.
    #[arg(long)]
    pub record: Option<String>,
    /// Print the recorded checkpoints.
    #[arg(long)]
    pub history: bool,
    /// Also report lexical-only and vector-only rankings.
    #[arg(long)]
    pub compare: bool,
    /// Which rankings to use: both fused, or one of them alone.
    #[arg(long, value_enum, default_value = "fused")]
    pub mode: crate::retrieve::ModeArg,
    /// Print the report as one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

fn checkpoints_path(config: &Path) -> PathBuf {
    config
        .parent()
        .unwrap_or(Path::new("."))
        .join("checkpoints.jsonl")
}

fn fail(p: Problem, json: bool) -> Failure {
    Failure::errors(p, json)
}

pub(super) fn run(a: EvalArgs) -> Outcome {
    let at = &a.at;
    if a.history {
        return print_history(&at.config, a.json);
    }
    let cfg = at.load(a.json)?;
    // An environment the config does not name is a usage error, with the ones it does.
    cfg.libraries_for(at.env.as_deref())
        .map_err(|p| Failure::usage(p, a.json))?;
    // The baseline's path is checked before anything runs (never a source, the config or one
    // of askzico's files).
    if let Some(path) = &a.write_baseline
        && let Err(p) = crate::paths::guard_output(
            path,
            crate::paths::Output::Baseline,
            Some(&cfg),
            Some(&cfg.out_dir_or(at.out.as_deref())),
        )
    {
        return Err(Failure::usage(p, a.json));
    }
    if a.fixtures.is_empty() {
        eprintln!("eval needs --fixtures FILE");
        return Err(Failure::said(EXIT_USAGE));
    }
    let cases = load_fixtures(&a.fixtures).map_err(|ps| Failure::usage(ps, a.json))?;
    let out = cfg.out_dir_or(at.out.as_deref());
    let searcher = at
        .read_manifest(&out)
        .and_then(|m| Searcher::open(cfg.search_settings(), &out, m))
        .map_err(|p| fail(p, a.json))?;
    let unmatched = crate::eval::unmatched_expectations(&searcher, &cases);
    if !unmatched.is_empty() {
        return Err(Failure::usage(unmatched, a.json));
    }
    let now = measure(&cfg, &out, &searcher, &cases, &a).map_err(|p| fail(p, a.json))?;
    if a.json {
        println!("{}", serde_json::to_string(&now).expect("serializes"));
    } else {
        print_report(&now, &searcher.manifest.embedder());
    }
    if let Some(path) = &a.write_baseline
        && let Err(p) = write_baseline(path, &now)
    {
        return Err(fail(p, a.json));
    }
    if let Some(label) = &a.record {
        let libraries = searcher
            .manifest
            .libraries
            .iter()
            .map(|l| l.id.clone())
            .collect();
        if let Err(p) = record_checkpoint(&checkpoints_path(&at.config), label, &now, libraries) {
            return Err(fail(p, a.json));
        }
    }
    if let Some(path) = &a.baseline {
        return gate(path, &now).map_err(|p| fail(p, a.json))?;
    }
    Ok(())
}

/// The cases run in the chosen mode, with the stock of what the corpus holds for them; with
/// `--compare`, a summary line per mode too.
fn measure(
    cfg: &crate::config::Config,
    out: &Path,
    searcher: &Searcher,
    cases: &[crate::eval::Case],
    a: &EvalArgs,
) -> Result<Report, Problem> {
    let report_of = |mode| run_eval(searcher, cases, a.k, mode);
    let mut now = report_of(a.mode.into())?;
    let records = crate::inspect::load_records(out, &searcher.manifest);
    now.stock = Some(crate::eval::stock_report(
        &now,
        cases,
        &records,
        &cfg.normalize,
    ));
    if a.compare {
        for mode in [Mode::Lexical, Mode::Vector, Mode::Fused] {
            print_summary(&format!("{mode:?}").to_lowercase(), &report_of(mode)?);
        }
    }
    Ok(now)
}

/// `--history`: the recorded checkpoints, one row each.
fn print_history(config: &Path, json: bool) -> Outcome {
    let rows = read_checkpoints(&checkpoints_path(config)).map_err(|p| fail(p, json))?;
    println!(
        "{:<24} {:<34} {:>6}  hit@5 per set / per library",
        "label", "corpus_version", "cases"
    );
    for r in rows {
        let sets: Vec<String> = r
            .sets
            .iter()
            .map(|(k, (n, h))| format!("{k} {h:.3} ({n})"))
            .collect();
        let libs: Vec<String> = r
            .per_library
            .iter()
            .map(|(k, (n, h))| format!("{k} {h:.3} ({n})"))
            .collect();
        println!(
            "{:<24} {:<34} {:>6}  {}\n{:66}  {}",
            term::line(&r.label),
            term::line(&r.corpus_version),
            r.cases,
            sets.join(", "),
            "",
            libs.join(", ")
        );
    }
    Ok(())
}

/// `--write-baseline`: the report, for a later `--baseline`.
fn write_baseline(path: &Path, now: &Report) -> Result<(), Problem> {
    let mut bytes = serde_json::to_vec_pretty(now).expect("serializes");
    bytes.push(b'\n');
    write_atomic(path, &bytes).map_err(|e| {
        Problem::error(
            "write",
            format!("cannot write baseline {}: {e}", path.display()),
        )
    })?;
    eprintln!("baseline written to {}", path.display());
    Ok(())
}

/// `--record LABEL`: the report's checkpoint appended to the checkpoints file at `path`.
fn record_checkpoint(
    path: &Path,
    label: &str,
    now: &Report,
    libraries: Vec<String>,
) -> Result<(), Problem> {
    let row = checkpoint(label, now, libraries);
    let shown = path.display().to_string();
    let refuse = |why: String| {
        Problem::error("output-path", format!("{shown} {why}: --record leaves it as it is"))
            .in_file(shown.clone())
            .help("--record appends to the checkpoints.jsonl beside the config that earlier --record runs wrote: move this file away (or rename it) and record again")
    };
    // A link is never written through (the write would replace it); a pipe or a device is
    // refused by the capped read below, naming what it is.
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(refuse("is a symbolic link".into()));
    }
    let mut text = read_checkpoint_text(path)?;
    // Every line a checkpoint: the file is one --record wrote, never someone else's to append to.
    if let Some((n, _)) = text
        .lines()
        .enumerate()
        .find(|(_, l)| serde_json::from_str::<crate::eval::Checkpoint>(l).is_err())
    {
        return Err(refuse(format!(
            "was not written by `askzico eval --record` (line {} is not a checkpoint)",
            n + 1
        ))
        .at_line(n + 1));
    }
    text.push_str(&serde_json::to_string(&row).expect("serializes"));
    text.push('\n');
    write_atomic(path, text.as_bytes())
        .map_err(|e| Problem::error("write", format!("cannot write {}: {e}", path.display())))?;
    eprintln!(
        "checkpoint `{}` appended to {}",
        term::line(label),
        path.display()
    );
    Ok(())
}

/// `--baseline`: the outcome of the report measured against the baseline at `path` (errors
/// when any case regressed).
fn gate(path: &Path, now: &Report) -> Result<Outcome, Problem> {
    let base: Report = crate::fsio::read_capped(path, crate::fsio::cap::FIXTURES)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
        .map_err(|e| {
            Problem::error(
                "baseline",
                format!("cannot read baseline {}: {e}", path.display()),
            )
            .in_file(path.display().to_string())
            .help("pass a report written by --write-baseline (write one with it)")
        })?;
    if let Some((message, help)) = crate::eval::baseline_mismatch(&base, now) {
        return Err(Problem::error(
            "baseline",
            format!(
                "baseline {} cannot gate this run: {message}",
                path.display()
            ),
        )
        .in_file(path.display().to_string())
        .help(help));
    }
    let regs = regressions(now, &base);
    if !regs.is_empty() {
        eprintln!(
            "REGRESSION against {} ({}):",
            path.display(),
            term::line(&base.corpus_version)
        );
        for r in &regs {
            eprintln!("  - {}", term::line(&r.to_string()));
        }
        return Ok(Err(Failure::said(EXIT_ERRORS)));
    }
    eprintln!("no regression against {}", path.display());
    Ok(Ok(()))
}

fn print_summary(label: &str, r: &Report) {
    let o = &r.overall;
    println!(
        "{label:<8} cases {:>3}  hit@1 {:.3}  hit@5 {:.3}  MRR@10 {:.3}",
        o.cases, o.hit1, o.hit5, o.mrr10
    );
}

/// One depth of askzico against the stock baseline, question by question.
fn versus_line(name: &str, p: &crate::eval::paired::Paired) -> String {
    let pv = if p.p < 0.001 {
        format!("{:.1e}", p.p)
    } else {
        format!("{:.3}", p.p)
    };
    format!(
        "{name} against stock: {} answered by askzico alone, {} by stock alone; gain {:+.3} \
         (95 % interval {:+.3} to {:+.3}), sign test p = {pv}",
        p.wins, p.losses, p.gain, p.low, p.high
    )
}

fn print_report(r: &Report, embedder: &str) {
    println!(
        "corpus_version {}  mode {}\nembedder {}\n",
        r.corpus_version,
        r.mode,
        crate::term::line(embedder)
    );
    let stock = r.stock.as_ref();
    let header = |first: &str| {
        print!(
            "{first:<16} {:>5} {:>7} {:>7} {:>7}",
            "cases", "hit@1", "hit@5", "MRR@10"
        );
        if stock.is_some() {
            print!("   stock: {:>6} {:>7} {:>7}", "hit@1", "hit@5", "MRR@10");
        }
        println!();
    };
    let row = |name: &str, m: &crate::eval::Metrics, s: Option<&crate::eval::Metrics>| {
        print!(
            "{:<16} {:>5} {:>7.3} {:>7.3} {:>7.3}",
            name, m.cases, m.hit1, m.hit5, m.mrr10
        );
        if let Some(s) = s {
            print!("          {:>6.3} {:>7.3} {:>7.3}", s.hit1, s.hit5, s.mrr10);
        }
        println!();
    };
    header("set");
    row("overall", &r.overall, stock.map(|s| &s.overall));
    for (k, m) in &r.sets {
        row(k, m, stock.and_then(|s| s.sets.get(k)));
    }
    println!();
    header("library");
    for (k, m) in &r.libraries {
        row(k, m, stock.and_then(|s| s.libraries.get(k)));
    }
    if let Some(s) = stock {
        println!(
            "\nstock: BM25 (k1 1.2, b 0.75) over title + search_text, Unicode words, lowercased, \
             Snowball Arabic stems; a document ranked by its best chunk"
        );
        if let Some(v) = &s.paired {
            for (name, p) in [("hit@1", &v.hit1), ("hit@5", &v.hit5)] {
                println!("{}", versus_line(name, p));
            }
        }
    }
    let missed: Vec<_> = r
        .cases
        .iter()
        .filter(|c| c.rank.is_none_or(|x| x > 5))
        .collect();
    if !missed.is_empty() {
        println!("\nnot in the top 5:");
        for c in missed {
            let rank = c.rank.map_or("below 10".to_string(), |r| r.to_string());
            println!(
                "  {} [{}] {} → rank {rank}",
                term::line(&c.id),
                term::line(&c.set),
                term::line(&c.question)
            );
            for t in c.top.iter().take(3) {
                println!(
                    "      got {}  ({})",
                    term::line(&t.doc_id),
                    term::line(&t.url)
                );
            }
        }
    }
}
