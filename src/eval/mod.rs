//! eval: fixture sets of questions with the sources that must answer them; hit@1, hit@5 and
//! MRR@10 per set and per library, compared with a stored baseline so that no ingestion change
//! can silently regress retrieval.

pub(crate) mod paired;
pub(crate) mod rules_check;
pub(crate) mod stock;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::diag::Problem;
use crate::retrieve::{ChunkInfo, Mode, Searcher};

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Case {
    pub id: String,
    #[serde(default = "default_set")]
    pub set: String,
    pub question: String,
    pub expect: Vec<String>,
    #[serde(default)]
    pub domains: Vec<String>,
    /// Why the case exists (e.g. the rule or alias it justifies).
    #[serde(default)]
    pub note: Option<String>,
    /// Where the case is written: its fixture file and the line of its `id` (for diagnostics).
    #[serde(skip)]
    pub written_at: Option<(String, usize)>,
}

fn default_set() -> String {
    "regression".into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FixtureFile {
    #[serde(default)]
    case: Vec<Case>,
}

/// Reads fixture files; every problem (bad TOML, duplicate case ids) at once.
pub(crate) fn load_fixtures(paths: &[std::path::PathBuf]) -> Result<Vec<Case>, Vec<Problem>> {
    let mut cases = Vec::new();
    let mut problems = Vec::new();
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for p in paths {
        let display = p.display().to_string();
        let text = match crate::fsio::read_capped_string(p, crate::fsio::cap::FIXTURES) {
            Ok(t) => t,
            Err(e) => {
                let help = match e {
                    crate::fsio::ReadError::TooLarge { .. } => {
                        "split the cases into several files, each passed with its own --fixtures"
                    }
                    crate::fsio::ReadError::NotUtf8 => "save the fixtures as UTF-8",
                    _ => "pass an existing TOML file of [[case]] tables with --fixtures",
                };
                problems.push(
                    Problem::error("fixtures", format!("cannot read fixtures: {e}"))
                        .in_file(display)
                        .help(help),
                );
                continue;
            }
        };
        match toml::from_str::<FixtureFile>(&text) {
            Ok(f) => {
                for mut c in f.case {
                    let line = text
                        .find(&format!("\"{}\"", c.id))
                        .map_or(1, |at| crate::diag::line_of(&text, at));
                    c.written_at = Some((display.clone(), line));
                    if let Some(other) = seen.insert(c.id.clone(), display.clone()) {
                        problems.push(
                            Problem::error(
                                "fixtures",
                                format!("case id `{}` appears twice (also in {other})", c.id),
                            )
                            .in_file(display.clone())
                            .help("case ids must be unique"),
                        );
                    }
                    if c.expect.is_empty() {
                        problems.push(
                            Problem::error("fixtures", format!("case `{}` expects nothing", c.id))
                                .in_file(display.clone())
                                .help(
                                    "list at least one doc_id, chunk_id, url or source in `expect`",
                                ),
                        );
                    }
                    cases.push(c);
                }
            }
            Err(e) => {
                let line = e
                    .span()
                    .map(|s| crate::diag::line_of(&text, s.start))
                    .unwrap_or(1);
                problems.push(
                    Problem::error("fixtures", format!("invalid fixtures: {}", e.message()))
                        .in_file(display)
                        .at_line(line)
                        .help("each case is a [[case]] table with id, set, question, expect"),
                );
            }
        }
    }
    if problems.is_empty() && cases.is_empty() {
        problems.push(
            Problem::error(
                "fixtures",
                "the fixtures hold no case: nothing would be measured",
            )
            .in_file(
                paths
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            )
            .help("write [[case]] tables with id, set, question and expect"),
        );
    }
    if problems.is_empty() {
        Ok(cases)
    } else {
        Err(problems)
    }
}

/// The `expect` entries that name nothing in the build (no chunk, document, URL or source): a
/// case that cannot be met only lowers the figures, so each one is an error.
pub(crate) fn unmatched_expectations(searcher: &Searcher, cases: &[Case]) -> Vec<Problem> {
    let mut problems = Vec::new();
    for c in cases {
        for e in &c.expect {
            let found = searcher
                .chunks()
                .values()
                .any(|ch| matches(e, &ch.chunk_id, &ch.doc_id, &ch.url, &ch.source));
            if found {
                continue;
            }
            let mut p = Problem::error(
                "fixtures",
                format!(
                    "case `{}` expects `{e}`, which names no chunk, document, URL or source of version {}",
                    c.id, searcher.manifest.corpus_version
                ),
            )
            .help("expect a doc_id, chunk_id, url or source path of this build (`askzico show` finds one), or build the library that holds it");
            if let Some((file, line)) = &c.written_at {
                p = p.in_file(file.clone()).at_line(*line);
            }
            problems.push(p);
        }
    }
    problems
}

/// Whether a retrieved document answers to an `expect` entry.
pub(crate) fn matches(entry: &str, chunk_id: &str, doc_id: &str, url: &str, source: &str) -> bool {
    if entry == doc_id || entry == chunk_id || entry == url {
        return true;
    }
    match source.strip_suffix(entry) {
        Some(head) => {
            head.is_empty()
                || head.ends_with('/')
                || head.ends_with('#')
                || entry.starts_with('#')
                || entry.starts_with('/')
        }
        None => false,
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct TopHit {
    pub chunk_id: String,
    pub doc_id: String,
    pub url: String,
    pub source: String,
    pub score: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct CaseResult {
    pub id: String,
    pub set: String,
    pub question: String,
    /// Rank of the first matching document (documents, not chunks), `None` when not in the top `k`.
    pub rank: Option<usize>,
    pub libraries: Vec<String>,
    pub top: Vec<TopHit>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct Metrics {
    pub cases: usize,
    #[serde(rename = "hit@1")]
    pub hit1: f64,
    #[serde(rename = "hit@5")]
    pub hit5: f64,
    #[serde(rename = "mrr@10")]
    pub mrr10: f64,
}

impl Metrics {
    fn of<'a>(ranks: impl Iterator<Item = &'a Option<usize>>) -> Metrics {
        let mut m = Metrics::default();
        for r in ranks {
            m.cases += 1;
            if let Some(r) = *r {
                if r == 1 {
                    m.hit1 += 1.0;
                }
                if r <= 5 {
                    m.hit5 += 1.0;
                }
                if r <= 10 {
                    m.mrr10 += 1.0 / r as f64;
                }
            }
        }
        if m.cases > 0 {
            let n = m.cases as f64;
            m.hit1 = round4(m.hit1 / n);
            m.hit5 = round4(m.hit5 / n);
            m.mrr10 = round4(m.mrr10 / n);
        }
        m
    }
}

/// The metrics of each group (a set, a library) from its cases' ranks.
fn metrics_by(groups: BTreeMap<String, Vec<Option<usize>>>) -> BTreeMap<String, Metrics> {
    groups
        .into_iter()
        .map(|(k, v)| (k, Metrics::of(v.iter())))
        .collect()
}

fn round4(x: f64) -> f64 {
    (x * 10000.0).round() / 10000.0
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Report {
    pub corpus_version: String,
    pub mode: String,
    pub overall: Metrics,
    pub sets: BTreeMap<String, Metrics>,
    pub libraries: BTreeMap<String, Metrics>,
    pub cases: Vec<CaseResult>,
    /// The same fixtures scored by the pinned stock baseline (`stock`); absent in reports
    /// written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stock: Option<StockReport>,
}

/// The stock baseline's figures for the same cases: per set, per library, and each case's rank.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct StockReport {
    pub overall: Metrics,
    pub sets: BTreeMap<String, Metrics>,
    pub libraries: BTreeMap<String, Metrics>,
    /// Case id → rank of the first matching document within the top 10.
    pub ranks: BTreeMap<String, Option<usize>>,
    /// askzico against it, question by question (absent in reports written before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<paired::Versus>,
}

/// Scores the cases of `report` with the stock baseline over `records` (every chunk of the same
/// build), grouped exactly as askzico's figures are.
pub(crate) fn stock_report(
    report: &Report,
    cases: &[Case],
    records: &[crate::artifacts::ChunkRecord],
    rules: &crate::normalize::Rules,
) -> StockReport {
    let index = stock::StockIndex::build(records.iter().map(|r| stock::StockChunk {
        doc_id: &r.doc_id,
        title: &r.title,
        search_text: &r.search_text,
        domains: &r.domains,
    }));
    let mut first: BTreeMap<&str, &crate::artifacts::ChunkRecord> = BTreeMap::new();
    for r in records {
        first.entry(&r.doc_id).or_insert(r);
    }
    let mut ranks = BTreeMap::new();
    let mut sets: BTreeMap<String, Vec<Option<usize>>> = BTreeMap::new();
    let mut libs: BTreeMap<String, Vec<Option<usize>>> = BTreeMap::new();
    for (c, res) in cases.iter().zip(&report.cases) {
        let q = crate::normalize::query_text(&c.question, rules);
        let ranked = index.rank(q.as_str(), &c.domains, 10);
        let rank = ranked
            .iter()
            .position(|(doc, _)| {
                let r = first[doc.as_str()];
                c.expect
                    .iter()
                    .any(|e| matches(e, &r.chunk_id, &r.doc_id, &r.url, &r.source))
            })
            .map(|i| i + 1);
        ranks.insert(c.id.clone(), rank);
        sets.entry(c.set.clone()).or_default().push(rank);
        for l in &res.libraries {
            libs.entry(l.clone()).or_default().push(rank);
        }
    }
    let both: Vec<(Option<usize>, Option<usize>)> = report
        .cases
        .iter()
        .map(|c| (c.rank, ranks[&c.id]))
        .collect();
    StockReport {
        overall: Metrics::of(ranks.values()),
        sets: metrics_by(sets),
        libraries: metrics_by(libs),
        ranks,
        paired: Some(paired::Versus::of(&both)),
    }
}

/// Runs every case against a built version.
pub(crate) fn run(
    searcher: &Searcher,
    cases: &[Case],
    k: usize,
    mode: Mode,
) -> Result<Report, Problem> {
    let mut results = Vec::new();
    for c in cases {
        results.push(run_case(searcher, c, k, mode)?);
    }
    let overall = Metrics::of(results.iter().map(|r| &r.rank));
    let mut sets: BTreeMap<String, Vec<Option<usize>>> = BTreeMap::new();
    let mut libs: BTreeMap<String, Vec<Option<usize>>> = BTreeMap::new();
    for r in &results {
        sets.entry(r.set.clone()).or_default().push(r.rank);
        for l in &r.libraries {
            libs.entry(l.clone()).or_default().push(r.rank);
        }
    }
    Ok(Report {
        corpus_version: searcher.manifest.corpus_version.clone(),
        mode: format!("{mode:?}").to_lowercase(),
        overall,
        sets: metrics_by(sets),
        libraries: metrics_by(libs),
        cases: results,
        stock: None,
    })
}

/// One case: its top `k` pages, the rank of the first expected one (within the top 10 at
/// least), and the libraries its expected answers are in. A page is expected when its best
/// chunk or one of its sections (the pages `query` shows) matches an `expect` entry.
fn run_case(searcher: &Searcher, c: &Case, k: usize, mode: Mode) -> Result<CaseResult, Problem> {
    let (mut docs, pages) = top_documents(searcher, c, k, mode)?;
    let rank = pages
        .iter()
        .position(|chunks| {
            chunks.iter().any(|ch| {
                c.expect
                    .iter()
                    .any(|e| matches(e, &ch.chunk_id, &ch.doc_id, &ch.url, &ch.source))
            })
        })
        .map(|i| i + 1)
        .filter(|r| *r <= k.max(10));
    let mut libraries: Vec<String> = searcher
        .chunks()
        .values()
        .filter(|ch| {
            c.expect
                .iter()
                .any(|e| matches(e, &ch.chunk_id, &ch.doc_id, &ch.url, &ch.source))
        })
        .map(|ch| ch.library.clone())
        .collect();
    libraries.sort();
    libraries.dedup();
    docs.truncate(k);
    Ok(CaseResult {
        id: c.id.clone(),
        set: c.set.clone(),
        question: c.question.clone(),
        rank,
        libraries,
        top: docs,
    })
}

/// The pages the core ranks for a case's question, at most `k` (10 at least): each page's best
/// chunk, and the facts of every chunk it shows (best chunk and sections).
fn top_documents<'s>(
    searcher: &'s Searcher,
    c: &Case,
    k: usize,
    mode: Mode,
) -> Result<(Vec<TopHit>, Vec<Vec<&'s ChunkInfo>>), Problem> {
    let ranked = searcher.rank(&c.question, &c.domains, mode)?;
    let info = |id: &str| {
        searcher.chunks().get(id).ok_or_else(|| {
            Problem::error(
                "invariant",
                format!(
                    "retrieved chunk {id} is not in version {}",
                    searcher.manifest.corpus_version
                ),
            )
        })
    };
    let mut docs = Vec::new();
    let mut shown = Vec::new();
    for page in searcher.pages(&ranked, k.max(10)) {
        let (id, score, _) = &ranked[page[0]];
        let best = info(id)?;
        docs.push(TopHit {
            chunk_id: id.clone(),
            doc_id: best.doc_id.clone(),
            url: best.url.clone(),
            source: best.source.clone(),
            score: round4(score * 1000.0) / 1000.0,
        });
        shown.push(
            page.iter()
                .map(|&i| info(&ranked[i].0))
                .collect::<Result<Vec<_>, _>>()?,
        );
    }
    Ok((docs, shown))
}

/// Regressions against a baseline: sets, and libraries present in both, whose hit@5 or MRR@10
/// fell (so one library's gain cannot hide another's loss inside a set), and the cases that
/// flipped from a top-5 hit to a miss.
pub(crate) fn regressions(now: &Report, base: &Report) -> Vec<String> {
    let mut out = Vec::new();
    for (lib, b) in &base.libraries {
        let Some(n) = now.libraries.get(lib) else {
            continue;
        }; // not enabled in this build
        if n.hit5 + 1e-9 < b.hit5 {
            out.push(format!(
                "library `{lib}`: hit@5 {:.4} < baseline {:.4}",
                n.hit5, b.hit5
            ));
        }
        if n.mrr10 + 1e-9 < b.mrr10 {
            out.push(format!(
                "library `{lib}`: MRR@10 {:.4} < baseline {:.4}",
                n.mrr10, b.mrr10
            ));
        }
    }
    for (set, b) in &base.sets {
        let Some(n) = now.sets.get(set) else {
            out.push(format!(
                "set `{set}` is gone (baseline had {} cases)",
                b.cases
            ));
            continue;
        };
        if n.hit5 + 1e-9 < b.hit5 {
            out.push(format!(
                "set `{set}`: hit@5 {:.4} < baseline {:.4}",
                n.hit5, b.hit5
            ));
        }
        if n.mrr10 + 1e-9 < b.mrr10 {
            out.push(format!(
                "set `{set}`: MRR@10 {:.4} < baseline {:.4}",
                n.mrr10, b.mrr10
            ));
        }
    }
    for c in &now.cases {
        if let Some(bc) = base.cases.iter().find(|b| b.id == c.id) {
            let was = bc.rank.is_some_and(|r| r <= 5);
            let is = c.rank.is_some_and(|r| r <= 5);
            if was && !is {
                out.push(format!(
                    "case `{}` flipped: rank {:?} → {:?} ({})",
                    c.id, bc.rank, c.rank, c.question
                ));
            }
        }
    }
    out
}

/// Why `base` cannot gate `now`, as (what is wrong, what to do): a baseline of another mode, a
/// figure outside 0–1, no set at all, or a set of the run it has no figures for (that set
/// would pass ungated). `None` when it can gate the run.
pub(crate) fn baseline_mismatch(base: &Report, now: &Report) -> Option<(String, String)> {
    const REWRITE: &str = "write a baseline of this run with `askzico eval --write-baseline FILE` (same --fixtures and --mode), review it, and gate with it";
    if base.mode != now.mode {
        return Some((
            format!(
                "the baseline was measured in mode `{}`, this run in mode `{}`",
                base.mode, now.mode
            ),
            format!(
                "run with `--mode {}` to compare with it, or {REWRITE}",
                base.mode
            ),
        ));
    }
    let groups = std::iter::once(("overall".to_string(), &base.overall))
        .chain(base.sets.iter().map(|(k, m)| (format!("set `{k}`"), m)))
        .chain(
            base.libraries
                .iter()
                .map(|(k, m)| (format!("library `{k}`"), m)),
        );
    for (name, m) in groups {
        for (what, x) in [("hit@1", m.hit1), ("hit@5", m.hit5), ("MRR@10", m.mrr10)] {
            if !(0.0..=1.0).contains(&x) {
                return Some((
                    format!("the baseline's {what} of {name} is {x}, outside 0–1"),
                    format!("the file is not a report `--write-baseline` wrote: {REWRITE}"),
                ));
            }
        }
    }
    if base.sets.is_empty() {
        return Some((
            "the baseline has no fixture set: it would let any run pass".to_string(),
            REWRITE.to_string(),
        ));
    }
    let ungated: Vec<&str> = now
        .sets
        .keys()
        .filter(|s| !base.sets.contains_key(*s))
        .map(String::as_str)
        .collect();
    if !ungated.is_empty() {
        return Some((
            format!(
                "the baseline has no figures for set{} `{}` of this run (it has `{}`)",
                if ungated.len() == 1 { "" } else { "s" },
                ungated.join("`, `"),
                base.sets.keys().cloned().collect::<Vec<_>>().join("`, `")
            ),
            format!(
                "check that --fixtures names the fixtures the baseline was measured on, or {REWRITE}"
            ),
        ));
    }
    None
}

/// A build checkpoint: which libraries, how many cases, hit@5 per set and per library.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Checkpoint {
    pub label: String,
    pub corpus_version: String,
    pub libraries: Vec<String>,
    pub cases: usize,
    pub sets: BTreeMap<String, (usize, f64)>,
    pub per_library: BTreeMap<String, (usize, f64)>,
}

pub(crate) fn checkpoint(label: &str, r: &Report, libraries: Vec<String>) -> Checkpoint {
    Checkpoint {
        label: label.to_string(),
        corpus_version: r.corpus_version.clone(),
        libraries,
        cases: r.overall.cases,
        sets: r
            .sets
            .iter()
            .map(|(k, m)| (k.clone(), (m.cases, m.hit5)))
            .collect(),
        per_library: r
            .libraries
            .iter()
            .map(|(k, m)| (k.clone(), (m.cases, m.hit5)))
            .collect(),
    }
}

/// The checkpoint history's text (`checkpoints.jsonl`): empty when the file does not exist; a
/// file that cannot be read (or is over the cap) is an error, so a new checkpoint never
/// replaces it.
pub(crate) fn read_checkpoint_text(path: &Path) -> Result<String, Problem> {
    match crate::fsio::read_capped_string(path, crate::fsio::cap::FIXTURES) {
        Ok(t) => Ok(t),
        Err(e) if e.is_not_found() => Ok(String::new()),
        Err(e) => {
            let display = path.display().to_string();
            Err(
                Problem::error("checkpoints", format!("cannot read {display}: {e}"))
                    .in_file(display)
                    .help("move the file away (its checkpoints stay in it) and record again"),
            )
        }
    }
}

/// The checkpoints of the history (lines that are not one are skipped).
pub(crate) fn read_checkpoints(path: &Path) -> Result<Vec<Checkpoint>, Problem> {
    Ok(read_checkpoint_text(path)?
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expect_matching_rules() {
        let (c, d, u, s) = (
            "seneksar:4-29-1:000",
            "seneksar:4-29-1",
            "https://x/4_29.html?lang=ar#1",
            "seneksar/canonical.json#4-29-1",
        );
        assert!(matches("seneksar:4-29-1", c, d, u, s));
        assert!(matches(c, c, d, u, s));
        assert!(matches(u, c, d, u, s));
        assert!(matches("canonical.json#4-29-1", c, d, u, s));
        assert!(matches("4-29-1", c, d, u, s));
        assert!(!matches("9-1", c, d, u, s));
        assert!(!matches("seneksar:4-29", c, d, u, s));
        let s2 = "react-ar/learn/your-first-component.md";
        assert!(matches("learn/your-first-component.md", "x", "y", "z", s2));
        assert!(!matches("first-component.md", "x", "y", "z", s2));
    }

    #[test]
    fn metrics_and_regressions() {
        let m = Metrics::of([Some(1), Some(3), None, Some(7)].iter());
        assert_eq!(m.cases, 4);
        assert_eq!(m.hit1, 0.25);
        assert_eq!(m.hit5, 0.5);
        assert_eq!(m.mrr10, round4((1.0 + 1.0 / 3.0 + 1.0 / 7.0) / 4.0));
        let case = |id: &str, rank| CaseResult {
            id: id.into(),
            set: "focused".into(),
            question: String::new(),
            rank,
            libraries: vec![],
            top: vec![],
        };
        let report = |ranks: Vec<Option<usize>>| {
            let cases: Vec<_> = ranks
                .iter()
                .enumerate()
                .map(|(i, r)| case(&format!("c{i}"), *r))
                .collect();
            Report {
                corpus_version: "v".into(),
                mode: "fused".into(),
                overall: Metrics::of(ranks.iter()),
                sets: [("focused".to_string(), Metrics::of(ranks.iter()))].into(),
                libraries: BTreeMap::new(),
                cases,
                stock: None,
            }
        };
        let base = report(vec![Some(1), Some(2)]);
        assert!(regressions(&report(vec![Some(1), Some(2)]), &base).is_empty());
        let r = regressions(&report(vec![Some(1), None]), &base);
        assert!(
            r.iter().any(|x| x.contains("hit@5")) && r.iter().any(|x| x.contains("flipped")),
            "{r:?}"
        );

        // One library's gain hides another's loss in the set figures; the library check sees it.
        let with_libs = |a: Vec<Option<usize>>, b: Vec<Option<usize>>| {
            let mut r = report(a.iter().chain(&b).copied().collect());
            r.libraries = [
                ("a".to_string(), Metrics::of(a.iter())),
                ("b".to_string(), Metrics::of(b.iter())),
            ]
            .into();
            r
        };
        let base = with_libs(vec![Some(1), Some(4)], vec![Some(4), Some(1)]);
        let now = with_libs(vec![Some(4), Some(4)], vec![Some(1), Some(1)]);
        let r = regressions(&now, &base);
        assert!(!r.iter().any(|x| x.starts_with("set")), "{r:?}");
        assert!(r.iter().any(|x| x.contains("library `a`: MRR@10")), "{r:?}");
        assert!(!r.iter().any(|x| x.contains("library `b`")), "{r:?}");
    }
}
