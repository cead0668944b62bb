//! `askzico build [--watch] [--stats-json]`

use std::io::IsTerminal;

use super::{BuildLocation, EXIT_ERRORS, EXIT_USAGE, Failure, Outcome, report};
use crate::engine::Engine;
use crate::engine::{BuildReport, BuildRequest};

#[derive(clap::Args, Debug)]
pub(super) struct BuildArgs {
    #[command(flatten)]
    pub at: BuildLocation,
    /// Print a machine-readable summary (corpus version, counts, diagnostics) on stdout.
    #[arg(long)]
    pub json: bool,
    /// Keep running and rebuild on every change of the sources or the config.
    #[arg(long)]
    pub watch: bool,
    /// After every build, print one JSON line of the work done on stdout (the only stdout
    /// output in watch mode).
    #[arg(long)]
    pub stats_json: bool,
    /// Publish the build even when it has no document (otherwise that is an error and the
    /// previous build stays in place).
    #[arg(long)]
    pub allow_empty: bool,
    /// Print every warning in full (by default the terminal gets one line per kind of
    /// warning, with its count and a few examples).
    #[arg(long)]
    pub verbose: bool,
}

pub(super) fn run(args: BuildArgs) -> Outcome {
    if args.watch {
        return run_watch(&args);
    }
    let BuildArgs {
        ref at,
        json,
        stats_json,
        allow_empty,
        verbose,
        ..
    } = args;
    let cfg = match at.config() {
        Ok(cfg) => cfg,
        Err(ps) => return refused(at, &ps, json),
    };
    if !json {
        print_content_roots(&cfg);
    }
    if let Err(p) = cfg.libraries_for(at.env.as_deref()) {
        return refused(at, &crate::diag::Problems(vec![p]), json);
    }
    // `--out` checked as `[corpus] out` is, then made askzico's (marked) before any write.
    let out = match cfg
        .out_dir_for_writing(at.out.as_deref())
        .and_then(|o| crate::paths::claim(&o).map(|()| o))
    {
        Ok(o) => o,
        Err(p) => return refused(at, &crate::diag::Problems(vec![p]), json),
    };
    let req = BuildRequest {
        out,
        env: at.env.clone(),
        progress: want_progress(json || stats_json),
        allow_empty,
    };
    let mut engine = Engine::one_shot(cfg);
    let rep = engine.build_from(&req, super::process_start(), None);
    if !json {
        report_build(&rep.problems, verbose);
        print_drafts(engine.config(), &rep.problems);
    }
    // Everything is written (manifest last); tearing the database down would only free memory
    // the process is about to return (~60 ms of one core at 10k documents).
    std::mem::forget(engine);
    let ok = rep.manifest.is_some() && !rep.problems.has_errors();
    if crate::timings::enabled() {
        eprintln!("{}", crate::timings::json_line());
    }
    if stats_json {
        println!(
            "{}",
            serde_json::to_string(&rep.run).expect("stats serialize")
        );
    } else if json {
        println!("{}", summary(at, &rep, ok));
    } else {
        print_human(&rep, verbose);
    }
    if ok {
        Ok(())
    } else {
        Err(Failure::said(EXIT_ERRORS))
    }
}

/// `build --watch`: builds on every save until Ctrl-C; the outcome of how the watch ended.
fn run_watch(args: &BuildArgs) -> Outcome {
    let at = &args.at;
    let opts = crate::watch::WatchOptions {
        config: at.config.clone(),
        sources: at.sources.clone(),
        out: at.out.clone(),
        env: at.env.clone(),
        allow_empty: args.allow_empty,
        announce: !args.json,
        started: super::process_start(),
    };
    // The warnings last printed: a build whose warnings are the same says so in one line.
    let shown = std::cell::RefCell::new(Vec::new());
    let ended = crate::watch::run(&opts, |rep: &BuildReport, trigger| {
        print_watch(at, rep, args, trigger, &mut shown.borrow_mut())
    });
    match ended {
        Ok(()) => Ok(()),
        Err(crate::watch::WatchError::OutDir(p)) => Err(Failure::usage(p, false)),
        Err(e) => {
            eprintln!("{e}");
            Err(Failure::said(EXIT_ERRORS))
        }
    }
}

/// Zero config (`--sources`): the content folder of a recognised site layout it reads, since
/// the rest of the directory is left out, and the sources its ignore rules left out.
fn print_content_roots(cfg: &crate::config::Config) {
    for lib in &cfg.libraries {
        let Some(zc) = &lib.zero_config else {
            continue;
        };
        if zc.id_transliterated {
            eprintln!(
                "library id: {} (the folder name `{}` has no ASCII letters or digits: transliterated where it can be, with a hash of the name)",
                lib.id, cfg.name
            );
        }
        if let Some(layout) = zc.layout {
            eprintln!("content root: {} ({layout} layout)", lib.root_display);
        }
        if lib.generator != crate::extract::Generator::Plain {
            let key = serde_json::to_value(lib.generator).unwrap_or_default();
            eprintln!(
                "markdown: {} syntax read as the site shows it (`generator = \"{}\"` in a corpus.toml)",
                zc.generator.unwrap_or("site generator"),
                key.as_str().unwrap_or_default()
            );
        }
        if lib.anchors != crate::chunk::AnchorRule::Explicit {
            // Citations link sections by these ids: say which generator's they are.
            let rule = serde_json::to_value(lib.anchors).unwrap_or_default();
            eprintln!(
                "section links: heading ids as {} names them (`anchors` in a corpus.toml changes it)",
                rule.as_str().unwrap_or_default()
            );
        }
        if lib.url.is_none() {
            // Citations link to these: say that they are not the site's own addresses.
            eprintln!(
                "urls: /{}/<page path> stand in for the site's addresses (a page's frontmatter `url` or `permalink` wins); to cite pages where the site serves them, write a corpus.toml (`askzico init`) with the site's `url` template, e.g. url = \"https://example.org/{{page_dir}}/{{fm.slug|page_name}}/\"",
                lib.id
            );
        }
        if !lib.frontmatter_text.is_empty() {
            let keys: Vec<String> = lib
                .frontmatter_text
                .iter()
                .map(|k| format!("`{k}`"))
                .collect();
            eprintln!(
                "page text: the site's layouts show the frontmatter's {}, read as each page's first text (`frontmatter_text` in a corpus.toml changes it)",
                keys.join(", ")
            );
        }
        if !zc.outside_root.is_empty() {
            let (n, shown) = examples(&zc.outside_root);
            eprintln!(
                "left out: {n} {} outside the content root ({shown}); to build them too, write a corpus.toml with a library per folder (`askzico init` starts one)",
                if n == 1 { "source" } else { "sources" },
            );
        }
        if !zc.tables_of_contents.is_empty() {
            let (n, shown) = examples(&zc.tables_of_contents);
            eprintln!(
                "left out: {n} table{} of contents ({shown}): links only, navigation rather than content",
                if n == 1 { "" } else { "s" },
            );
        }
        if let Some(generator) = zc.generator
            && !zc.unpublished.is_empty()
        {
            let (n, shown) = examples(&zc.unpublished);
            eprintln!(
                "left out: {n} {} {generator} does not publish as pages: its layouts, includes and data (`_` folders) and its config's `exclude` ({shown})",
                if n == 1 { "source" } else { "sources" },
            );
        }
        if !zc.left_out.is_empty() {
            let (n, shown) = examples(&zc.left_out);
            eprintln!(
                "left out: {n} source {} ignored by .gitignore/.ignore, hidden, or in node_modules ({shown})",
                if n == 1 { "entry" } else { "entries" },
            );
        }
    }
}

/// The drafts the build left out: those of the site generator's drafts folder (zero config)
/// and those whose frontmatter marks them (`draft` notes), as one line.
fn print_drafts(cfg: &crate::config::Config, problems: &crate::diag::Problems) {
    let mut drafts: Vec<String> = cfg
        .libraries
        .iter()
        .filter_map(|l| l.zero_config.as_ref())
        .flat_map(|zc| zc.drafts.iter().cloned())
        .collect();
    drafts.extend(
        problems
            .notes("draft")
            .into_iter()
            .filter_map(|p| p.file.clone()),
    );
    if drafts.is_empty() {
        return;
    }
    let (n, shown) = examples(&drafts);
    eprintln!(
        "left out: {n} {} (e.g. {shown}): a site generator does not publish them (`draft: true`, `published: false`, a `_drafts` folder)",
        if n == 1 { "draft" } else { "drafts" },
    );
}

/// How many paths there are, and the first three of them (`a, b, c, …`).
fn examples(paths: &[String]) -> (usize, String) {
    let shown: Vec<&str> = paths.iter().take(3).map(String::as_str).collect();
    let more = if paths.len() > 3 { ", …" } else { "" };
    (paths.len(), format!("{}{more}", shown.join(", ")))
}

/// A build refused before it started (a config or usage error): the problems reported as
/// every refusal is, and with `--json` the summary object on stdout too, `ok: false` and the
/// problems as its diagnostics, so a script reading stdout sees why. Exit 2.
fn refused(at: &BuildLocation, problems: &crate::diag::Problems, json: bool) -> Outcome {
    report(problems, json);
    if json {
        let v = serde_json::json!({
            "ok": false,
            "corpus_version": null,
            "environment": at.env.clone().unwrap_or_else(|| "default".into()),
            "manifest": null,
            "errors": problems.errors(),
            "warnings": problems.warnings(),
            "diagnostics": problems.0.iter().map(|p| p.to_json()).collect::<Vec<_>>(),
        });
        println!("{v}");
    }
    Err(Failure::said(EXIT_USAGE))
}

fn summary(at: &BuildLocation, rep: &BuildReport, ok: bool) -> serde_json::Value {
    serde_json::json!({
        "ok": ok,
        "corpus_version": rep.manifest.as_ref().map(|m| m.corpus_version.clone()),
        "environment": at.env.clone().unwrap_or_else(|| "default".into()),
        "manifest": rep.manifest_path.as_ref().map(|p| p.display().to_string()),
        "files": rep.stats.files,
        "docs": rep.stats.docs,
        "chunks": rep.stats.chunks,
        "files_written": rep.stats.write.files_written,
        "files_reused": rep.stats.write.files_reused,
        "bytes_written": rep.stats.write.bytes_written,
        "ms": rep.stats.ms,
        "mapped_ids": rep.manifest.as_ref().map(|m| {
            m.libraries
                .iter()
                .filter(|l| l.mapped_ids > 0)
                .map(|l| (l.id.clone(), serde_json::Value::from(l.mapped_ids)))
                .collect::<serde_json::Map<_, _>>()
        }),
        "transliterated_ids": rep.manifest.as_ref().map(|m| {
            m.libraries
                .iter()
                .filter(|l| l.transliterated_ids > 0)
                .map(|l| (l.id.clone(), serde_json::Value::from(l.transliterated_ids)))
                .collect::<serde_json::Map<_, _>>()
        }),
        "errors": rep.problems.errors(),
        "warnings": rep.problems.warnings(),
        "diagnostics": rep.problems.0.iter().map(|p| p.to_json()).collect::<Vec<_>>(),
    })
}

fn print_human(rep: &BuildReport, verbose: bool) {
    use crate::term::count;
    if let (Some(m), Some(path)) = (&rep.manifest, &rep.manifest_path) {
        let chunks: usize = m.libraries.iter().map(|l| l.chunks).sum();
        let docs: usize = m.libraries.iter().map(|l| l.docs).sum();
        println!(
            "built {} ({}, {}, {}, {}; {} written, {} reused) in {} ms\n  -> {}",
            m.corpus_version,
            count(m.libraries.len(), "library", "libraries"),
            count(docs, "doc", "docs"),
            count(chunks, "chunk", "chunks"),
            count(m.artifacts.len(), "artifact", "artifacts"),
            rep.stats.write.files_written,
            rep.stats.write.files_reused,
            rep.stats.ms,
            path.display()
        );
        let mapped: usize = m.libraries.iter().map(|l| l.mapped_ids).sum();
        if mapped > 0 {
            println!(
                "  {} mapped from file names or slugs that are not IDs as they are \
                 (`askzico inspect` lists them; `strict_ids = true` under [corpus] refuses them)",
                count(mapped, "ID", "IDs")
            );
        }
        for l in m.libraries.iter().filter(|l| l.transliterated_ids > 0) {
            println!(
                "  {}: {} spelled in ASCII by `slugs = \"transliterate\"` (`\"escape\"` would give `~XX` escapes)",
                l.id,
                count(l.transliterated_ids, "ID", "IDs")
            );
        }
        // Without `--verbose` the warnings' lines above already count them by kind.
        if verbose && rep.problems.warnings() > 0 {
            println!(
                "  {}",
                count(rep.problems.warnings(), "warning", "warnings")
            );
        }
    } else {
        eprintln!(
            "build failed: {}; the previous build is untouched",
            count(rep.problems.errors(), "error", "errors")
        );
    }
}

/// A build's problems on the terminal: every one in full with `--verbose`; otherwise warnings
/// one line per kind and errors in full.
fn report_build(problems: &crate::diag::Problems, verbose: bool) {
    if verbose {
        problems.report();
    } else {
        problems.report_grouped();
    }
}

/// One build of a watch, as `build` prints one: on stderr (not with `--json`) the warnings
/// when they differ from the last build's, the errors, and one status line naming the time,
/// what changed and the result; on stdout the stats line (`--stats-json`) or else the JSON
/// summary (`--json`), one line per build. `shown` holds the warnings last printed.
fn print_watch(
    at: &BuildLocation,
    rep: &BuildReport,
    args: &BuildArgs,
    trigger: &crate::watch::Trigger,
    shown: &mut Vec<String>,
) {
    if args.json && !args.stats_json {
        let ok = rep.manifest.is_some() && !rep.problems.has_errors();
        println!("{}", summary(at, rep, ok));
        return;
    }
    if !args.json {
        let warnings: Vec<String> = if args.verbose {
            rep.problems
                .0
                .iter()
                .filter(|p| !p.is_error())
                .map(|p| format!("{:?}", miette::Report::new(p.clone())))
                .collect()
        } else {
            rep.problems.warning_summary()
        };
        let same = !warnings.is_empty() && warnings == *shown;
        if !same {
            for w in &warnings {
                eprintln!("{}", crate::term::text(w));
            }
        }
        for p in rep.problems.0.iter().filter(|p| p.is_error()) {
            eprintln!("{:?}", miette::Report::new(p.clone()));
        }
        *shown = warnings;
        let mut line = format!("[watch] {}", crate::watch::clock());
        if let Some(what) = trigger.describe() {
            line.push_str(&format!(" {what}:"));
        }
        use crate::term::count;
        match &rep.manifest {
            Some(m) => line.push_str(&format!(
                " built {} in {} ms ({} read, {} extracted, {} written)",
                m.corpus_version,
                rep.run.ms,
                count(rep.run.files_read, "file", "files"),
                count(rep.run.docs_extracted, "doc", "docs"),
                count(rep.run.shards_written, "file", "files"),
            )),
            None => line.push_str(&format!(
                " build failed: {}; keeping the last good build",
                count(rep.problems.errors(), "error", "errors")
            )),
        }
        if same {
            let n = rep.problems.warnings();
            line.push_str(&format!("; {} as before", count(n, "warning", "warnings")));
        }
        eprintln!("{line}");
    }
    if args.stats_json {
        println!(
            "{}",
            serde_json::to_string(&rep.run).expect("stats serialize")
        );
    }
}

/// Whether progress may be drawn: a terminal on both streams and no machine-readable output.
pub(super) fn want_progress(json: bool) -> bool {
    !json && std::io::stdout().is_terminal() && std::io::stderr().is_terminal()
}
