//! `askzico inspect`: the quality gate over the current build — automatic checks with examples,
//! a determinism rebuild, a stratified sample for a human, the diff against another version and
//! an HTML report. Exit 1 when a check exceeds its threshold or the rebuild differs.

use std::path::PathBuf;

use super::{BuildLocation, EXIT_ERRORS, Failure, Outcome};
use crate::artifacts::verify::verify;
use crate::config::Config;
use crate::diag::{Problem, Problems};
use crate::engine::{BuildRequest, run as build};
use crate::inspect::{self, Determinism, Report};
use crate::term;

#[derive(clap::Args, Debug)]
pub(super) struct InspectArgs {
    #[command(flatten)]
    pub at: BuildLocation,
    /// Chunks per library in the sample.
    #[arg(long, default_value_t = 5)]
    pub sample: usize,
    /// Seed of the sample.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Another build's manifest (e.g. out/versions/<v>.json): report what changed since.
    #[arg(long)]
    pub against: Option<PathBuf>,
    /// Write a self-contained HTML report here.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Print one JSON object (checks, sample, diff, determinism) on stdout.
    #[arg(long)]
    pub json: bool,
    /// Skip the determinism rebuild.
    #[arg(long)]
    pub no_rebuild: bool,
}

/// Builds the same inputs into a temp directory and compares corpus versions; also returns the
/// first rebuild's warnings (the build's, when its inputs have not changed since).
fn determinism(cfg: &Config, env: Option<&str>, built: &str) -> (Determinism, Problems) {
    let mut warnings = Problems::default();
    let mut rebuild = |tag: &str| -> Result<String, String> {
        let dir =
            std::env::temp_dir().join(format!("askzico-inspect-{}-{tag}", std::process::id()));
        let rep = build(
            cfg,
            &BuildRequest {
                out: dir.clone(),
                env: env.map(str::to_string),
                progress: false,
                // A comparison build into a temporary directory publishes nothing.
                allow_empty: true,
            },
        );
        let _ = std::fs::remove_dir_all(&dir);
        if tag == "a" {
            warnings.extend(rep.problems.0.iter().filter(|p| !p.is_error()).cloned());
        }
        match rep.manifest {
            Some(m) => Ok(m.corpus_version),
            None => Err(rep
                .problems
                .0
                .iter()
                .find(|p| p.is_error())
                .map(|p| p.headline())
                .unwrap_or_else(|| "the rebuild failed".into())),
        }
    };
    let determinism = match rebuild("a") {
        Err(e) => Determinism {
            equal: false,
            built: built.into(),
            rebuilt: String::new(),
            note: format!("the rebuild failed: {e}"),
        },
        Ok(v) if v == built => Determinism {
            equal: true,
            built: built.into(),
            rebuilt: v,
            note: "rebuilding the same inputs gives the same corpus version".into(),
        },
        Ok(v) => {
            // Tell a stale build (inputs changed since) from a non-deterministic compiler.
            let note = match rebuild("b") {
                Ok(w) if w == v => "two fresh rebuilds agree with each other but not with the build: the inputs or settings changed since it was built — run `askzico build`".to_string(),
                Ok(w) => format!("two fresh rebuilds differ ({v} vs {w}): the compiler is not deterministic"),
                Err(e) => format!("the second rebuild failed: {e}"),
            };
            Determinism {
                equal: false,
                built: built.into(),
                rebuilt: v,
                note,
            }
        }
    };
    (determinism, warnings)
}

pub(super) fn run(args: InspectArgs) -> Outcome {
    let json = args.json;
    let at = &args.at;
    let cfg = at.load(json)?;
    let env = at.env.as_deref();
    cfg.libraries_for(env)
        .map_err(|p| Failure::usage(p, json))?;
    let out = cfg.out_dir_or(at.out.as_deref());
    // The report's path is checked before anything runs (never a source, the config or one of
    // askzico's files).
    if let Some(path) = &args.html
        && let Err(p) = crate::paths::guard_output(
            path,
            crate::paths::Output::HtmlReport,
            Some(&cfg),
            Some(&out),
        )
    {
        return Err(Failure::usage(p, json));
    }
    let manifest = at
        .read_manifest(&out)
        .map_err(|p| Failure::errors(p, json))?;
    let records = inspect::load_records(&out, &manifest);
    let verify_problems = verify(&out, &manifest);
    let sources = SourceTexts::new(&cfg);
    let checks = inspect::check_sources(
        &records,
        &verify_problems,
        &cfg.inspect_context(),
        &|r, token| sources.shows(r, token),
    );
    let diff = args
        .against
        .as_deref()
        .map(|path| diff_against(path, &records, &manifest.corpus_version))
        .transpose()
        .map_err(|p| Failure::usage(p, json))?;
    let (determinism, warnings) = if args.no_rebuild {
        (None, None)
    } else {
        let (d, w) = determinism(&cfg, env, &manifest.corpus_version);
        (Some(d), Some(inspect::warning_groups(&w)))
    };
    let ok = checks.iter().all(|c| c.ok) && determinism.as_ref().is_none_or(|d| d.equal);
    let rep = Report {
        corpus: manifest.corpus.clone(),
        corpus_version: manifest.corpus_version.clone(),
        environment: manifest.environment.clone(),
        chunks: records.len(),
        libraries: manifest.libraries.len(),
        ok,
        checks,
        determinism,
        warnings,
        sample: inspect::sample(&records, args.sample, args.seed),
        diff,
        loanword_keys: crate::inspect::key_collisions::key_collisions(
            records.iter().map(|r| r.text.as_str()),
            &cfg.normalize,
            &cfg.glossary,
            LOANWORD_EXAMPLES,
        ),
    };
    if let Some(path) = &args.html
        && let Err(p) = write_html(path, &rep)
    {
        return Err(Failure::errors(p, json));
    }
    if json {
        println!(
            "{}",
            serde_json::to_string(&rep).expect("report serializes")
        );
    } else {
        print_text(&rep, &args);
    }
    if ok {
        Ok(())
    } else {
        Err(Failure::said(EXIT_ERRORS))
    }
}

/// The sources of a build's chunks, read once each on first use, to ask `shown_as_written`.
struct SourceTexts<'a> {
    cfg: &'a crate::config::Config,
    read: std::cell::RefCell<std::collections::HashMap<String, Option<std::rc::Rc<str>>>>,
}

impl<'a> SourceTexts<'a> {
    fn new(cfg: &'a crate::config::Config) -> Self {
        SourceTexts {
            cfg,
            read: Default::default(),
        }
    }

    /// Whether the source of `r` shows `token` as written. A source that cannot be read, is not
    /// UTF-8, or is not the one the chunk names any more, shows nothing.
    fn shows(&self, r: &crate::artifacts::ChunkRecord, token: &str) -> bool {
        let Some(lib) = self.cfg.libraries.iter().find(|l| l.id == r.library) else {
            return false;
        };
        // A record's source is its library's ID and its path in the library's root.
        let Some(rel) = r
            .source
            .strip_prefix(lib.id.as_str())
            .and_then(|s| s.strip_prefix('/'))
        else {
            return false;
        };
        let text = self
            .read
            .borrow_mut()
            .entry(r.source.clone())
            .or_insert_with(|| {
                let path = lib.root.join(rel);
                let meta = std::fs::metadata(&path).ok()?;
                if meta.len() > self.cfg.max_file_bytes {
                    return None;
                }
                let bytes = std::fs::read(&path).ok()?;
                String::from_utf8(bytes).ok().map(Into::into)
            })
            .clone();
        let json = rel.ends_with(".json") || rel.ends_with(".jsonl");
        text.is_some_and(|t| inspect::upstream::shown_as_written(&t, token, json))
    }
}

/// `--html`: the report as one HTML file, and its path on stderr (stdout stays the report's
/// text or its JSON).
fn write_html(path: &std::path::Path, rep: &Report) -> Result<(), Problem> {
    crate::artifacts::store::write_atomic(path, inspect::html::render(rep).as_bytes()).map_err(
        |e| {
            Problem::error("write", format!("cannot write the HTML report: {e}"))
                .in_file(path.display().to_string())
                .help("pass a writable path to --html")
        },
    )?;
    eprintln!(
        "wrote the report to {}",
        term::line(&path.display().to_string())
    );
    Ok(())
}

/// `--against`: the chunks of the build whose manifest is at `path`, compared with `records`.
fn diff_against(
    path: &std::path::Path,
    records: &[crate::artifacts::ChunkRecord],
    version: &str,
) -> Result<inspect::Diff, Problem> {
    let (other, other_out) = inspect::load_other(path)?;
    let old = inspect::load_records(&other_out, &other);
    Ok(inspect::diff(&old, records, &other.corpus_version, version))
}

fn print_text(r: &Report, args: &InspectArgs) {
    let libraries = match r.libraries {
        1 => "1 library".to_string(),
        n => format!("{n} libraries"),
    };
    println!(
        "inspect {} {} (environment {}): {} chunks, {libraries}\n",
        r.corpus, r.corpus_version, r.environment, r.chunks,
    );
    if !r.sample.is_empty() {
        println!("sample: {} per library, seed {}\n", args.sample, args.seed);
    }
    print_sample(r);
    if let Some(d) = &r.diff {
        print_diff(d);
    }
    print_checks(r);
    print_loanword_keys(r);
    print_warnings_and_determinism(r);
    let failed: Vec<&str> = r
        .checks
        .iter()
        .filter(|c| !c.ok)
        .map(|c| c.name.as_str())
        .chain(
            r.determinism
                .iter()
                .filter(|d| !d.equal)
                .map(|_| "determinism"),
        )
        .collect();
    if failed.is_empty() {
        println!("inspect: ok");
    } else {
        println!("inspect: FAILED: {}", failed.join(", "));
    }
}

/// Each sampled chunk: where it is, its text and its search text.
fn print_sample(r: &Report) {
    for s in &r.sample {
        println!("━━ {}", term::line(&s.title));
        println!("   {} · {}", term::line(&s.chunk_id), term::line(&s.url));
        let span = s
            .span
            .map(|(a, b)| format!("bytes {a}–{b}"))
            .unwrap_or_else(|| "bytes ?".into());
        println!(
            "   {span} · {} chars · [{}]",
            s.chars,
            term::line(&s.heading_path.join(" › "))
        );
        println!("── text");
        println!("{}", term::text(&s.text));
        println!("── search_text");
        println!("{}", term::text(&s.search_text));
        println!("── end {}\n", term::line(&s.chunk_id));
    }
}

/// `--against`: per library, the documents and chunks added, removed, changed and shifted.
fn print_diff(d: &inspect::Diff) {
    println!("diff {} → {}", d.from, d.to);
    if d.libraries.is_empty() {
        println!("  no chunk changed");
    }
    for (lib, l) in &d.libraries {
        println!(
            "  {lib}: docs +{} -{} ~{}; chunks +{} -{} ~{}; shifted {}",
            l.docs_added.len(),
            l.docs_removed.len(),
            l.docs_changed.len(),
            l.chunks_added.len(),
            l.chunks_removed.len(),
            l.chunks_changed.len(),
            l.shifted.len()
        );
        for (label, ids) in [
            ("docs added", &l.docs_added),
            ("docs removed", &l.docs_removed),
            ("docs changed", &l.docs_changed),
            ("chunks changed", &l.chunks_changed),
        ] {
            if !ids.is_empty() {
                let more = if ids.len() > 10 {
                    format!(" … (+{})", ids.len() - 10)
                } else {
                    String::new()
                };
                println!(
                    "    {label}: {}{more}",
                    ids.iter().take(10).cloned().collect::<Vec<_>>().join(" ")
                );
            }
        }
        for (a, b) in l.shifted.iter().take(10) {
            println!("    shifted: {a} → {b}");
        }
    }
    println!();
}

/// Each quality check: its count against its maximum, and examples of what it found.
fn print_checks(r: &Report) {
    println!("checks (count / max)");
    for c in &r.checks {
        println!(
            "  {:<18} {:>6} / {:<6} {}",
            c.name,
            c.count,
            c.max_shown(),
            if c.ok { "ok" } else { "FAIL" }
        );
        if c.upstream > 0 {
            let (n, one) = (c.upstream, c.upstream == 1);
            println!(
                "      ⚠ {n} more as {} (escaped for display, or a record's own text): the published page shows {} too, so {} not counted",
                if one {
                    "its source writes it"
                } else {
                    "their sources write them"
                },
                if one { "it" } else { "them" },
                if one { "it is" } else { "they are" },
            );
        }
        if c.count > 0 || c.upstream > 0 {
            for e in &c.examples {
                let mark = if e.upstream { "⚠ " } else { "" };
                if e.chunk_id.is_empty() {
                    println!("      {mark}{}", term::line(&e.excerpt));
                } else {
                    println!(
                        "      {mark}{}  {}",
                        term::line(&e.chunk_id),
                        term::line(&e.excerpt)
                    );
                }
            }
        }
    }
}

/// Loanword key matches listed in the text report (the JSON report lists every one).
const LOANWORD_EXAMPLES: usize = 10;

/// The site's words whose loanword keys a question drops, the most frequent first.
fn print_loanword_keys(r: &Report) {
    let mut dropped: Vec<_> = r.loanword_keys.dropped().collect();
    dropped.sort_by(|a, b| b.chunks.cmp(&a.chunks).then(a.word.cmp(&b.word)));
    println!(
        "\nloanword keys dropped: {} whose consonants spell other words are matched only as themselves",
        term::count(dropped.len(), "word", "words")
    );
    for m in dropped.iter().take(LOANWORD_EXAMPLES) {
        let reach: Vec<&str> = m.reaches.iter().take(3).map(|(w, _)| w.as_str()).collect();
        println!(
            "  {} ({}): not {}",
            term::line(&m.word),
            m.dropped.unwrap_or_default(),
            term::line(&reach.join(", "))
        );
    }
    if dropped.len() > LOANWORD_EXAMPLES {
        println!("  … `--json` lists all of them; `askzico rules check` with the bridges kept");
    }
}

/// The rebuild's warnings by code, and whether it gave the same corpus version.
fn print_warnings_and_determinism(r: &Report) {
    match &r.warnings {
        Some(groups) => {
            let n: usize = groups.iter().map(|g| g.count).sum();
            println!("\nbuild warnings: {n}");
            for g in groups {
                println!("  {} ({})", g.code, g.count);
                for w in &g.instances {
                    println!("      {}", term::line(&warning_line(w)));
                }
            }
        }
        None => println!("\nbuild warnings: not collected (--no-rebuild)"),
    }
    match &r.determinism {
        Some(d) => println!(
            "\ndeterminism: {} ({} vs {}) — {}",
            if d.equal { "equal" } else { "DIFFERENT" },
            d.built,
            d.rebuilt,
            d.note
        ),
        None => println!("\ndeterminism: skipped (--no-rebuild)"),
    }
}

/// A warning as `build --json` lists it, on one line: `file:line: message`.
fn warning_line(w: &serde_json::Value) -> String {
    let message = w["message"].as_str().unwrap_or_default();
    let message = message.lines().next().unwrap_or_default();
    match (w["file"].as_str(), w["line"].as_u64()) {
        (Some(f), Some(l)) => format!("{f}:{l}: {message}"),
        (Some(f), None) => format!("{f}: {message}"),
        _ => message.to_string(),
    }
}
