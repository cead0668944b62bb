//! `askzico rules check`: each normalization rule and alias with its focused cases (rank with
//! and without it) and its collisions over the built corpus vocabulary; exit 1 when a rule merges
//! a `[[collision]]` pair that is not accepted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{BuildLocation, EXIT_ERRORS, Failure, Outcome};
use crate::artifacts::manifest::Manifest;
use crate::artifacts::store::read_manifest;
use crate::artifacts::{ChunkRecord, Kind};
use crate::config::Config;
use crate::diag::Problem;
use crate::engine::{BuildRequest, run as build};
use crate::eval::rules_check::{
    case_prefix, collisions, is_on, pairs, stem_collisions, vocabulary, with_rule,
};
use crate::eval::{Case, load_fixtures, run as run_eval};
use crate::inspect::key_collisions::{KeyCollisions, KeyMatch, key_collisions};
use crate::normalize::ALL_RULE_NAMES;
use crate::normalize::aliases::AliasTable;
use crate::retrieve::{Mode, Searcher};

fn ranks(
    cfg: &Config,
    out: &std::path::Path,
    env: Option<&str>,
    cases: &[Case],
) -> Result<BTreeMap<String, Option<usize>>, Problem> {
    if cases.is_empty() {
        return Ok(BTreeMap::new());
    }
    let m = read_manifest(out, env)?;
    let s = Searcher::open(cfg.search_settings(), out, m)?;
    let r = run_eval(&s, cases, 10, Mode::Fused)?;
    Ok(r.cases.into_iter().map(|c| (c.id, c.rank)).collect())
}

/// Ranks of `cases` in a fresh build of `cfg` (a variant of the corpus config) in a temp dir.
fn ranks_rebuilt(
    cfg: &Config,
    env: Option<&str>,
    cases: &[Case],
    tag: &str,
) -> Result<BTreeMap<String, Option<usize>>, Problem> {
    if cases.is_empty() {
        return Ok(BTreeMap::new());
    }
    let dir = std::env::temp_dir().join(format!("askzico-rules-{}-{tag}", std::process::id()));
    let rep = build(
        cfg,
        &BuildRequest {
            out: dir.clone(),
            env: env.map(str::to_string),
            progress: false,
            // A scratch build into a temporary directory publishes nothing.
            allow_empty: true,
        },
    );
    let result = if rep.manifest.is_none() {
        Err(Problem::error(
            "rules",
            format!("the build without `{tag}` failed"),
        ))
    } else {
        ranks(cfg, &dir, env, cases)
    };
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn show(r: Option<usize>) -> String {
    r.map(|x| x.to_string()).unwrap_or_else(|| "miss".into())
}

/// What every part of the report reads: the config and its build, the focused cases and their
/// ranks in that build, and the built evidence's vocabulary.
struct Check<'a> {
    cfg: &'a Config,
    out: &'a Path,
    env: Option<&'a str>,
    cases: &'a [Case],
    /// Each case's rank in the build as it is.
    with: &'a BTreeMap<String, Option<usize>>,
    /// Distinct words of the built evidence and their counts.
    vocab: &'a BTreeMap<String, usize>,
    /// Collision groups listed per rule.
    examples: usize,
    /// Rank without a rule only where no rebuild is needed (`--no-rebuild`).
    no_rebuild: bool,
}

#[derive(clap::Args, Debug)]
pub(super) struct RulesArgs {
    #[command(subcommand)]
    pub command: RulesCommand,
}

#[derive(clap::Subcommand, Debug)]
pub(super) enum RulesCommand {
    /// For every rule and alias: its focused cases (rank with and without it) and the distinct
    /// corpus words it merges; exit 1 when a rule merges a pair `[[collision]]` does not accept.
    Check(CheckArgs),
}

#[derive(clap::Args, Debug)]
pub(super) struct CheckArgs {
    #[command(flatten)]
    pub at: BuildLocation,
    /// Fixture files holding the focused cases (default: fixtures.toml beside the config).
    #[arg(long, num_args = 1..)]
    pub fixtures: Vec<PathBuf>,
    /// Skip the with/without rebuilds (collisions only).
    #[arg(long)]
    pub no_rebuild: bool,
    /// Examples per rule.
    #[arg(long, default_value_t = 5)]
    pub examples: usize,
}

pub(super) fn run(args: RulesArgs) -> Outcome {
    match args.command {
        RulesCommand::Check(a) => check(a),
    }
}

fn check(args: CheckArgs) -> Outcome {
    let CheckArgs {
        ref at,
        fixtures,
        no_rebuild,
        examples,
    } = args;
    let cfg = at.load(false)?;
    let out = cfg.out_dir_or(at.out.as_deref());
    let env = at.env.as_deref();
    let manifest = read_manifest(&out, env).map_err(|p| Failure::errors(p, false))?;
    let cases = load_cases(&cfg, fixtures).map_err(|ps| Failure::usage(ps, false))?;
    let texts = built_texts(&out, &manifest);
    let vocab = vocabulary(texts.iter().map(String::as_str));
    let with = ranks(&cfg, &out, env, &cases).map_err(|p| Failure::errors(p, false))?;
    println!(
        "rules check over {} ({} distinct words, {} focused cases)\n",
        manifest.corpus_version,
        vocab.len(),
        cases.iter().filter(|c| c.set == "focused").count()
    );
    let run = Check {
        cfg: &cfg,
        out: &out,
        env,
        cases: &cases,
        with: &with,
        vocab: &vocab,
        examples,
        no_rebuild,
    };
    let mut unjustified = Vec::new();
    run.print_rules(&mut unjustified);
    run.print_stemmer(&mut unjustified);
    println!();
    run.print_aliases(&mut unjustified);
    println!();
    print_key_collisions(
        &key_collisions(
            texts.iter().map(String::as_str),
            &cfg.normalize,
            &cfg.glossary,
            examples,
        ),
        examples,
    );
    println!();
    let violations = print_collision_pairs(&cfg);
    if !unjustified.is_empty() {
        println!("\nwithout a focused case: {}", unjustified.join(", "));
    }
    if violations > 0 {
        eprintln!(
            "rules check failed: {} merged without `accept = true`",
            crate::term::count(violations, "collision pair", "collision pairs")
        );
        return Err(Failure::said(EXIT_ERRORS));
    }
    Ok(())
}

/// The loanword keys of the site's words that reach other words: the words whose keys are
/// dropped (and why), the bridges kept, and the everyday words the list keeps apart.
fn print_key_collisions(c: &KeyCollisions, examples: usize) {
    let by_chunks =
        |a: &&KeyMatch, b: &&KeyMatch| b.chunks.cmp(&a.chunks).then(a.word.cmp(&b.word));
    let mut dropped: Vec<&KeyMatch> = c.dropped().collect();
    dropped.sort_by(by_chunks);
    println!(
        "loanword keys: {} whose keys spell other words, kept to their own matches",
        crate::term::count(dropped.len(), "site word", "site words")
    );
    for m in &dropped {
        println!(
            "  {} ({}, {}): {}",
            m.word,
            crate::term::count(m.chunks, "chunk", "chunks"),
            m.dropped.unwrap_or_default(),
            reaches(&m.reaches)
        );
    }
    let mut kept: Vec<&KeyMatch> = c.words.iter().filter(|w| w.dropped.is_none()).collect();
    kept.sort_by(by_chunks);
    println!(
        "  bridges kept (words the site uses less often than what their keys reach): {}{}",
        kept.len(),
        if kept.len() > examples {
            format!(", the {examples} most frequent:")
        } else {
            String::new()
        }
    );
    for m in kept.iter().take(examples) {
        println!(
            "  {} ({}) → {}",
            m.word,
            crate::term::count(m.chunks, "chunk", "chunks"),
            reaches(&m.reaches)
        );
    }
    println!(
        "  everyday words the site does not use whose keys spell its Latin words (never bridged): {}",
        c.everyday_elsewhere
    );
    for (w, latin) in &c.everyday_examples {
        println!("    {w}: {}", latin.join(", "));
    }
}

/// What a word's keys reach, with chunk counts.
fn reaches(r: &[(String, usize)]) -> String {
    r.iter()
        .map(|(w, n)| format!("{w} ({n})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The fixtures' cases: the given files, or the config's `fixtures.toml` when there is one.
fn load_cases(cfg: &Config, fixtures: Vec<PathBuf>) -> Result<Vec<Case>, Vec<Problem>> {
    let fixtures = if fixtures.is_empty() {
        let f = cfg.base_dir.join("fixtures.toml");
        if f.is_file() { vec![f] } else { Vec::new() }
    } else {
        fixtures
    };
    load_fixtures(&fixtures)
}

/// The built evidence: every chunk's text.
fn built_texts(out: &Path, manifest: &Manifest) -> Vec<String> {
    let mut texts = Vec::new();
    for a in manifest.artifacts_of(Kind::Chunks) {
        if let Ok(t) = crate::artifacts::store::read_artifact_text(out, a) {
            texts.extend(
                t.lines()
                    .filter_map(|l| serde_json::from_str::<ChunkRecord>(l).ok())
                    .map(|r| r.text),
            );
        }
    }
    texts
}

impl Check<'_> {
    /// Each normalization rule: its state, its focused cases ranked with and without it (the
    /// corpus rebuilt with the rule flipped), and the groups of distinct words it merges.
    fn print_rules(&self, unjustified: &mut Vec<String>) {
        let (cfg, cases) = (self.cfg, self.cases);
        let coll = collisions(self.vocab, &cfg.normalize, self.examples);
        for rule in ALL_RULE_NAMES {
            let prefix = case_prefix(rule);
            let served: Vec<Case> = cases
                .iter()
                .filter(|c| c.id == prefix || c.id.starts_with(&format!("{prefix}-")))
                .cloned()
                .collect();
            let on = is_on(&cfg.normalize, rule);
            let lossy = crate::normalize::LOSSY_RULE_NAMES.contains(rule);
            let flipped = with_rule(&cfg.normalize, rule, !on);
            let without = match (&flipped, self.no_rebuild) {
                (Some(r), false) => {
                    let mut c2 = cfg.clone();
                    c2.normalize = r.clone();
                    c2.aliases = AliasTable::new(cfg.aliases.aliases.clone(), r);
                    ranks_rebuilt(&c2, self.env, &served, rule).ok()
                }
                _ => None,
            };
            let state = match (on, flipped.is_some()) {
                (true, true) => "on",
                (true, false) => "always on",
                (false, _) => "off",
            };
            println!("{rule:<20} [{state}{}]", if lossy { ", lossy" } else { "" });
            if served.is_empty() && on {
                unjustified.push(rule.to_string());
            }
            for c in &served {
                let w = self.with.get(&c.id).copied().flatten();
                let wo = match &without {
                    Some(m) => show(m.get(&c.id).copied().flatten()),
                    None if flipped.is_none() => "n/a (always on)".into(),
                    None => "not rebuilt".into(),
                };
                let (a, b) = if on { (show(w), wo) } else { (wo, show(w)) };
                println!("    case {:<28} rank with {a:>5}   without {b}", c.id);
            }
            let c = &coll[rule];
            let verb = if on { "merges" } else { "would merge" };
            println!(
                "    {verb} {} groups of distinct words ({} words)",
                c.groups, c.words
            );
            for (key, ws) in &c.examples {
                let ws: Vec<String> = ws.iter().map(|(w, n)| format!("{w}×{n}")).collect();
                println!("      {key:<16} ← {}", ws.join(", "));
            }
        }
    }

    /// The stemmer (`normalize::stem`, the `stem_terms` field): its focused `stem-` cases,
    /// ranked with it and without it (`stem_field_weight` 0: query side, no rebuild), and the
    /// distinct search forms it merges per stem key, the worst groups listed.
    fn print_stemmer(&self, unjustified: &mut Vec<String>) {
        let cfg = self.cfg;
        let on = cfg.retrieval.stem_field_weight > 0.0;
        let served: Vec<Case> = self
            .cases
            .iter()
            .filter(|c| c.id.starts_with("stem-"))
            .cloned()
            .collect();
        println!(
            "{:<20} [{}]",
            "stemmer",
            if on {
                format!("on, stem_field_weight {}", cfg.retrieval.stem_field_weight)
            } else {
                "off".into()
            }
        );
        if served.is_empty() && on {
            unjustified.push("stemmer".into());
        }
        let mut off = cfg.clone();
        off.retrieval.stem_field_weight = 0.0;
        let without = ranks(&off, self.out, self.env, &served).ok();
        for c in &served {
            let w = show(self.with.get(&c.id).copied().flatten());
            let wo = without
                .as_ref()
                .map(|m| show(m.get(&c.id).copied().flatten()))
                .unwrap_or_else(|| "n/a".into());
            let (a, b) = if on { (w, wo) } else { (wo, w) };
            println!("    case {:<28} rank with {a:>5}   without {b}", c.id);
        }
        let c = stem_collisions(self.vocab, &cfg.normalize, self.examples);
        println!(
            "    {} {} stem keys of several distinct words ({} words); the worst:",
            if on { "merges" } else { "would merge" },
            c.groups,
            c.words
        );
        for (key, forms) in &c.examples {
            let shown: Vec<String> = forms
                .iter()
                .take(12)
                .map(|(w, n)| format!("{w}×{n}"))
                .collect();
            let more = if forms.len() > 12 {
                format!(", … ({} forms)", forms.len())
            } else {
                String::new()
            };
            println!("      {key:<16} ← {}{more}", shown.join(", "));
        }
    }

    /// Each recall alias: its focused case ranked with and without it (rebuilt without it), and
    /// how often its colloquial words occur in the corpus.
    fn print_aliases(&self, unjustified: &mut Vec<String>) {
        let cfg = self.cfg;
        for (i, a) in cfg.aliases.aliases.iter().enumerate() {
            let served: Vec<Case> = self
                .cases
                .iter()
                .filter(|c| c.id == a.case)
                .cloned()
                .collect();
            let without = if self.no_rebuild || served.is_empty() {
                None
            } else {
                let mut rest = cfg.aliases.aliases.clone();
                rest.remove(i);
                let mut c2 = cfg.clone();
                c2.aliases = AliasTable::new(rest, &cfg.normalize);
                ranks_rebuilt(&c2, self.env, &served, &format!("alias{i}")).ok()
            };
            println!(
                "alias {} → {} [direction {}]",
                a.from.join("/"),
                a.to.join("/"),
                a.direction
            );
            if let Some(source) = a.source.as_deref().filter(|_| a.case.is_empty()) {
                println!("    source: {source}");
            } else if served.is_empty() {
                println!("    no focused case `{}` in the fixtures", a.case);
                unjustified.push(format!("alias {}", a.from.join("/")));
            }
            for c in &served {
                let wo = without
                    .as_ref()
                    .map(|m| show(m.get(&c.id).copied().flatten()))
                    .unwrap_or_else(|| "not rebuilt".into());
                println!(
                    "    case {:<28} rank with {:>5}   without {wo}",
                    c.id,
                    show(self.with.get(&c.id).copied().flatten())
                );
            }
            // What this alias joins in the corpus: how often its colloquial words occur.
            let uses: Vec<String> = a
                .from
                .iter()
                .filter_map(|f| self.vocab.get(f).map(|n| format!("{f}×{n}")))
                .collect();
            if !uses.is_empty() {
                println!("    colloquial forms in the corpus: {}", uses.join(", "));
            }
        }
    }
}

/// The `[[collision]]` pairs, merged or kept apart; how many are merged without `accept`.
fn print_collision_pairs(cfg: &Config) -> usize {
    let verdicts = pairs(cfg);
    let mut violations = 0;
    for v in &verdicts {
        let status = match (v.merged, v.accept) {
            (true, true) => "merged, accepted".to_string(),
            (true, false) => {
                violations += 1;
                "MERGED BUT NOT ACCEPTED".to_string()
            }
            (false, _) => "kept apart".to_string(),
        };
        let by = if v.by.is_empty() {
            String::new()
        } else {
            format!(" by {}", v.by.join(", "))
        };
        println!("collision {} / {}: {status}{by} — {}", v.a, v.b, v.why);
    }
    violations
}
