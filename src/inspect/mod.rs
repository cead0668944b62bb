//! inspect: the quality gate over a built corpus. The check functions are pure — chunk records
//! (and the problems `artifacts::verify` found) in, named counts with examples out; `load`
//! is the thin reader of a build. Also here: the stratified sample, the diff between two
//! corpus versions and the self-contained HTML report.

mod boilerplate;
mod diff;
pub(crate) mod html;
pub(crate) mod key_collisions;
mod patterns;
mod sample;
pub(crate) mod upstream;

pub(crate) use diff::{Diff, diff};
pub(crate) use patterns::{escaped, generator_syntax, markup};
pub(crate) use sample::{SampleItem, sample};

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use crate::artifacts::manifest::Manifest;
use crate::artifacts::store::read_manifest_file;
use crate::artifacts::{ChunkRecord, Kind};
use crate::diag::Problem;
use crate::identity::MAX_ID_BYTES;
use boilerplate::boilerplate_of_library;

/// Every check, in report order, with what it looks for.
pub(crate) const CHECKS: &[(&str, &str)] = &[
    (
        "mojibake",
        "UTF-8 read as Latin-1/CP1252/CP1256 (Ø§Ù„, Ã©, ط§ظ„)",
    ),
    (
        "escaped-prose",
        "escapes in prose outside code: \\u0627, &#1575;, &quot; and other entities",
    ),
    ("replacement-char", "U+FFFD replacement characters"),
    ("no-letters", "chunks without a single letter"),
    (
        "boilerplate",
        "the same line (≥ 20 chars) in more than boilerplate_percent of a library's chunks, mostly at the top or bottom of its pages: leaked chrome (a line that recurs inside page bodies is content)",
    ),
    (
        "markup",
        "markup remnants outside code: :::, {#, {/*, {{<, Liquid {% … %}, {{ site.… }} and {{ … | filter }}, HTML/JSX tags, import/export lines",
    ),
    (
        "generator-syntax",
        "site generator syntax outside code: {{#, [[, ![[, key:: lines, :::, !!! and > [! lines, {% (and {{#include anywhere in an mdBook library)",
    ),
    (
        "too-short",
        "chunks under chunking.min_chars that are not their whole document",
    ),
    ("too-long", "chunks over chunking.max_chars"),
    (
        "cut-heading",
        "chunks whose last line is a heading of their heading path (the heading is cut from its content)",
    ),
    ("empty-title", "documents without a title"),
    (
        "duplicate-title",
        "the same title on different documents of one library",
    ),
    (
        "bad-url",
        "URLs neither absolute (http/https) nor site-relative (/…)",
    ),
    ("repeated-url", "the same URL on different documents"),
    ("unknown-library", "libraries the config does not declare"),
    (
        "unknown-domain",
        "domains no library of the config declares",
    ),
    ("long-id", "doc or chunk IDs over 64 bytes"),
    (
        "mapped-id",
        "documents whose slug was not an ID as it is, so their ID was escaped or shortened (listed in full; informational unless [inspect] max sets a limit)",
    ),
    (
        "coverage",
        "lookup/lexical/vector coverage and integrity (askzico verify)",
    ),
];

/// `[inspect]` of corpus.toml.
#[derive(Debug, Clone, PartialEq)]
pub struct InspectSettings {
    pub boilerplate_percent: f64,
    pub boilerplate_min_chunks: usize,
    /// Per-check maximum counts (missing: `default_max`).
    pub max: BTreeMap<String, usize>,
    /// Per-library lines accepted as real repeated formulas.
    pub allow: BTreeMap<String, Vec<String>>,
    /// Domains documents may name (frontmatter `domains`) beyond the libraries' own.
    pub domains: Vec<String>,
}

impl Default for InspectSettings {
    fn default() -> Self {
        InspectSettings {
            boilerplate_percent: 20.0,
            boilerplate_min_chunks: 3,
            max: BTreeMap::new(),
            allow: BTreeMap::new(),
            domains: Vec::new(),
        }
    }
}

impl InspectSettings {
    /// The threshold of a check over a build of `docs` documents and `chunks` chunks.
    pub fn max_of(&self, check: &str, docs: usize, chunks: usize) -> usize {
        self.max
            .get(check)
            .copied()
            .unwrap_or_else(|| default_max(check, docs, chunks))
    }
}

/// 0 for every check but two, which default to a tolerance of 1% (rounded up) of the chunks or
/// documents. `too-short`: the chunker keeps heading boundaries, so a short section between two
/// long ones can stay short; a few are normal, many mean a broken extractor or chunker.
/// `duplicate-title`: counted per repeated title; real corpora repeat some titles on purpose (a
/// calendar's monthly commemorations, a docs site's "Overview" pages).
pub(crate) fn default_max(check: &str, docs: usize, chunks: usize) -> usize {
    match check {
        "too-short" => chunks.div_ceil(100),
        "duplicate-title" => docs.div_ceil(100),
        // A report, not a defect: mapping is how a file name never blocks a build.
        "mapped-id" => usize::MAX,
        _ => 0,
    }
}

/// What the checks need from the config.
#[derive(Debug, Clone)]
pub struct Context {
    pub min_chars: usize,
    pub max_chars: usize,
    pub libraries: BTreeSet<String>,
    pub domains: BTreeSet<String>,
    /// The libraries written for mdBook (`generator = "mdbook"`), where a directive in code is
    /// one too.
    pub mdbook_libraries: BTreeSet<String>,
    pub settings: InspectSettings,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct Example {
    pub chunk_id: String,
    pub excerpt: String,
    /// The source shows this as written (`upstream`): not counted against the check.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub upstream: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct CheckResult {
    pub name: String,
    pub description: String,
    pub count: usize,
    /// Hits the sources show as written (`upstream`: the published page shows them too):
    /// counted apart, a warning, never a failure.
    pub upstream: usize,
    /// The most this check allows; `usize::MAX` (shown as `-`, `null` in JSON) for a report
    /// without a limit.
    #[serde(serialize_with = "max_or_null")]
    pub max: usize,
    pub ok: bool,
    pub examples: Vec<Example>,
}

impl CheckResult {
    /// The limit as shown to a reader: `-` when there is none.
    pub(crate) fn max_shown(&self) -> String {
        if self.max == usize::MAX {
            "-".to_string()
        } else {
            self.max.to_string()
        }
    }
}

fn max_or_null<S: serde::Serializer>(max: &usize, s: S) -> Result<S::Ok, S::Error> {
    if *max == usize::MAX {
        s.serialize_none()
    } else {
        s.serialize_u64(*max as u64)
    }
}

const EXAMPLES: usize = 10;

/// A short excerpt of `s` around char index `at` (whole when short), on one line.
pub(crate) fn excerpt_at(s: &str, at_byte: usize, width: usize) -> String {
    let at = s[..at_byte.min(s.len())].chars().count();
    let chars: Vec<char> = s.chars().collect();
    let start = at.saturating_sub(width / 3);
    let end = (start + width).min(chars.len());
    let mut out: String = chars[start..end]
        .iter()
        .map(|c| if c.is_whitespace() { ' ' } else { *c })
        .collect();
    if start > 0 {
        out.insert(0, '…');
    }
    if end < chars.len() {
        out.push('…');
    }
    out
}

pub(crate) fn excerpt(s: &str) -> String {
    excerpt_at(s, 0, 80)
}

/// The prose of a chunk text: fenced code blocks and inline code spans removed. A chunk cut
/// from inside a long code block starts in code: when its fence lines are odd in number and
/// the first is a bare one, that first one closes code that began before the chunk.
pub(crate) fn prose(text: &str) -> String {
    static INLINE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"``[^`]*``|`[^`\n]*`").unwrap());
    let fence_lines: Vec<(usize, bool)> = text
        .lines()
        .filter_map(|l| {
            let t = l.trim_start();
            let ticks = t.chars().take_while(|c| *c == '`').count();
            (ticks >= 3).then(|| (ticks, t[ticks..].trim().is_empty()))
        })
        .collect();
    let starts_in_code = fence_lines.len() % 2 == 1 && fence_lines.first().is_some_and(|f| f.1);
    let mut out = String::new();
    let mut fence: Option<usize> = starts_in_code.then(|| fence_lines[0].0);
    for line in text.lines() {
        let t = line.trim_start();
        let ticks = t.chars().take_while(|c| *c == '`').count();
        match fence {
            Some(n) => {
                if ticks >= n && t[ticks..].trim().is_empty() {
                    fence = None;
                }
                out.push('\n');
            }
            None if ticks >= 3 => {
                fence = Some(ticks);
                out.push('\n');
            }
            None => {
                out.push_str(&INLINE.replace_all(line, " "));
                out.push('\n');
            }
        }
    }
    out
}

/// Windows-1252's printable mapping of the bytes 0x80–0x9F.
const CP1252_HIGH: &str = "€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ";

fn is_continuation(c: char) -> bool {
    ('\u{80}'..='\u{BF}').contains(&c) || CP1252_HIGH.contains(c)
}

/// Byte offset of the first mojibake sign in `s`, if any: two or more pairs of a UTF-8 lead
/// byte read as Latin-1/CP1252 (U+00C2–U+00F4) and a continuation byte, or one `Ã`/`Â` pair,
/// or two or more CP1256 pairs (ط/ظ followed by a continuation byte's CP1256 reading) each
/// followed by another such pair. Arabic read as CP1256 is pair after pair (ط§ظ„ظƒطھط§ط¨),
/// while prose has a word ending in ط or ظ before a quote or a dash (”فقط“).
pub(crate) fn mojibake(s: &str) -> Option<usize> {
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let (mut latin, mut arabic) = (Vec::new(), Vec::new());
    let lead = |k: usize| chars.get(k).is_some_and(|&(_, c)| c == 'ط' || c == 'ظ');
    for (k, w) in chars.windows(2).enumerate() {
        let ((i, a), (_, b)) = (w[0], w[1]);
        if ('\u{C2}'..='\u{F4}').contains(&a) && is_continuation(b) {
            if a == 'Ã' || a == 'Â' && b != '\u{A0}' {
                return Some(i);
            }
            latin.push(i);
        }
        if (a == 'ط' || a == 'ظ')
            && (('\u{A0}'..='\u{BF}').contains(&b) || CP1252_HIGH.contains(b))
            && lead(k + 2)
        {
            arabic.push(i);
        }
    }
    if latin.len() >= 2 {
        return latin.first().copied();
    }
    if arabic.len() >= 2 {
        return arabic.first().copied();
    }
    None
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn heading_path(r: &ChunkRecord) -> Vec<String> {
    r.metadata
        .get("heading_path")
        .and_then(|p| p.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn url_ok(u: &str) -> bool {
    (u.starts_with("https://") || u.starts_with("http://")) && u.len() > "https://".len()
        || u.starts_with('/') && !u.starts_with("//")
}

struct Tally {
    name: &'static str,
    count: usize,
    upstream: usize,
    examples: Vec<Example>,
}

impl Tally {
    fn new(name: &'static str) -> Self {
        Tally {
            name,
            count: 0,
            upstream: 0,
            examples: Vec::new(),
        }
    }
    fn hit(&mut self, chunk_id: &str, excerpt: String, upstream: bool) {
        if upstream {
            self.upstream += 1;
        } else {
            self.count += 1;
        }
        // Mapped IDs are listed in full: a reviewer looks each one up.
        if self.examples.len() < EXAMPLES || self.name == "mapped-id" {
            self.examples.push(Example {
                chunk_id: chunk_id.to_string(),
                excerpt,
                upstream,
            });
        }
    }
}

/// Whether the source of a chunk shows a text as written (`upstream::SourceTexts::shows`):
/// the chunk and the text.
pub(crate) type Shows<'a> = &'a dyn Fn(&ChunkRecord, &str) -> bool;

/// `check_sources` without the sources: every hit counts.
#[cfg(test)]
pub(crate) fn check(
    records: &[ChunkRecord],
    verify_problems: &[Problem],
    cx: &Context,
) -> Vec<CheckResult> {
    check_sources(records, verify_problems, cx, &|_, _| false)
}

/// Runs every check over the records of one build. `verify_problems` is what
/// `artifacts::verify::verify` reported for it; `shows` tells a text hit the source shows as
/// written (counted apart) from one the extraction let through.
pub(crate) fn check_sources(
    records: &[ChunkRecord],
    verify_problems: &[Problem],
    cx: &Context,
    shows: Shows<'_>,
) -> Vec<CheckResult> {
    let mut run = CheckRun::new(cx, shows);
    run.check_chunks(records);
    let docs = first_chunks(records);
    run.check_documents(&docs);
    run.check_boilerplate(records);
    for p in verify_problems {
        run.hit("coverage", "", p.headline());
    }
    run.results(docs.len(), records.len())
}

/// One run of the checks: the config's context and a tally per check.
struct CheckRun<'a> {
    cx: &'a Context,
    shows: Shows<'a>,
    tallies: BTreeMap<&'static str, Tally>,
}

impl<'a> CheckRun<'a> {
    fn new(cx: &'a Context, shows: Shows<'a>) -> Self {
        CheckRun {
            cx,
            shows,
            tallies: CHECKS.iter().map(|(n, _)| (*n, Tally::new(n))).collect(),
        }
    }

    fn hit(&mut self, name: &'static str, id: &str, ex: String) {
        self.tallies
            .get_mut(name)
            .expect("known check")
            .hit(id, ex, false)
    }

    /// A hit of a syntax check at byte `at` of `text` (the chunk's text or its prose): counted
    /// apart when the source shows it as written.
    fn text_hit(&mut self, name: &'static str, r: &ChunkRecord, text: &str, at: usize) {
        let token = upstream::token_at(text, at);
        let upstream = (self.shows)(r, token);
        self.tallies.get_mut(name).expect("known check").hit(
            &r.chunk_id,
            excerpt_at(text, at, 80),
            upstream,
        )
    }

    /// The checks of each chunk on its own: its text, its size, its end, its IDs and scope.
    fn check_chunks(&mut self, records: &[ChunkRecord]) {
        let mut chunks_per_doc: BTreeMap<&str, usize> = BTreeMap::new();
        for r in records {
            *chunks_per_doc.entry(&r.doc_id).or_default() += 1;
        }
        let mut unknown_libs = BTreeSet::new();
        let mut unknown_domains = BTreeSet::new();
        for r in records {
            self.check_text(r);
            let whole_doc = chunks_per_doc.get(r.doc_id.as_str()).copied().unwrap_or(0) <= 1;
            self.check_size(r, whole_doc);
            self.check_cut_heading(r);
            self.check_ids_and_scope(r, &mut unknown_libs, &mut unknown_domains);
        }
    }

    /// Encoding damage, escapes, markup remnants and letterless chunks.
    fn check_text(&mut self, r: &ChunkRecord) {
        let text = &r.text;
        // Damaged characters count wherever they come from: they are never good evidence.
        if let Some(i) = mojibake(text) {
            self.hit("mojibake", &r.chunk_id, excerpt_at(text, i, 80));
        }
        let p = prose(text);
        if let Some(i) = escaped(&p) {
            self.text_hit("escaped-prose", r, &p, i);
        }
        if let Some(i) = text.find('\u{FFFD}') {
            self.hit("replacement-char", &r.chunk_id, excerpt_at(text, i, 80));
        }
        if !text.chars().any(char::is_alphabetic) {
            self.hit("no-letters", &r.chunk_id, excerpt(text));
        }
        if let Some(i) = markup(&p) {
            self.text_hit("markup", r, &p, i);
        }
        let in_code = || {
            self.cx
                .mdbook_libraries
                .contains(&r.library)
                .then(|| text.find("{{#"))
                .flatten()
        };
        if let Some(i) = generator_syntax(&p) {
            self.text_hit("generator-syntax", r, &p, i);
        } else if let Some(i) = in_code() {
            self.text_hit("generator-syntax", r, text, i);
        }
    }

    /// Chunks outside the chunker's bounds; a chunk that is its whole document may be short.
    fn check_size(&mut self, r: &ChunkRecord, whole_doc: bool) {
        let text = &r.text;
        let chars = text.chars().count();
        if chars < self.cx.min_chars && !whole_doc {
            self.hit(
                "too-short",
                &r.chunk_id,
                format!("{chars} chars: {}", excerpt(text)),
            );
        }
        if chars > self.cx.max_chars {
            self.hit(
                "too-long",
                &r.chunk_id,
                format!("{chars} chars: {}", excerpt(text)),
            );
        }
    }

    /// A chunk whose last line is one of its own headings: the heading is cut from its content.
    fn check_cut_heading(&mut self, r: &ChunkRecord) {
        let text = &r.text;
        let last = text
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("");
        let path = heading_path(r);
        if !last.is_empty()
            && text.lines().filter(|l| !l.trim().is_empty()).count() > 1
            && path.iter().any(|h| collapse(h) == collapse(last))
        {
            self.hit(
                "cut-heading",
                &r.chunk_id,
                format!("ends with heading «{last}»"),
            );
        }
    }

    /// IDs over the limit, and libraries or domains the config does not declare (each once).
    fn check_ids_and_scope(
        &mut self,
        r: &ChunkRecord,
        unknown_libs: &mut BTreeSet<String>,
        unknown_domains: &mut BTreeSet<String>,
    ) {
        if r.chunk_id.len() > MAX_ID_BYTES || r.doc_id.len() > MAX_ID_BYTES {
            self.hit(
                "long-id",
                &r.chunk_id,
                format!("{} bytes", r.chunk_id.len()),
            );
        }
        if !self.cx.libraries.contains(&r.library) && unknown_libs.insert(r.library.clone()) {
            self.hit("unknown-library", &r.chunk_id, r.library.clone());
        }
        for d in &r.domains {
            if !self.cx.domains.contains(d) && unknown_domains.insert(d.clone()) {
                self.hit("unknown-domain", &r.chunk_id, d.clone());
            }
        }
    }

    /// Per document (its first chunk stands for it): mapped IDs, titles and URLs.
    fn check_documents(&mut self, docs: &BTreeMap<&str, &ChunkRecord>) {
        let mut titles: BTreeMap<(&str, String), Vec<&ChunkRecord>> = BTreeMap::new();
        let mut urls: BTreeMap<&str, Vec<&ChunkRecord>> = BTreeMap::new();
        for r in docs.values() {
            if crate::identity::is_mapped(&r.doc_id) {
                self.hit(
                    "mapped-id",
                    &r.chunk_id,
                    format!("doc {} from {}", r.doc_id, r.source),
                );
            }
            if r.title.trim().is_empty() {
                self.hit(
                    "empty-title",
                    &r.chunk_id,
                    format!("doc {} ({})", r.doc_id, r.source),
                );
            } else {
                titles
                    .entry((&r.library, collapse(&r.title)))
                    .or_default()
                    .push(r);
            }
            if !url_ok(&r.url) {
                self.hit("bad-url", &r.chunk_id, format!("url «{}»", r.url));
            }
            if !r.url.is_empty() {
                urls.entry(&r.url).or_default().push(r);
            }
        }
        self.check_duplicate_titles(&titles);
        self.check_repeated_urls(&urls);
    }

    /// One hit per title shared by documents of one library.
    fn check_duplicate_titles(&mut self, titles: &BTreeMap<(&str, String), Vec<&ChunkRecord>>) {
        for ((_, title), rs) in titles {
            if rs.len() > 1 {
                let ids: Vec<&str> = rs.iter().map(|r| r.doc_id.as_str()).take(4).collect();
                let more = if rs.len() > 4 { " …" } else { "" };
                self.hit(
                    "duplicate-title",
                    &rs[0].chunk_id,
                    format!(
                        "«{title}» on {} documents: {}{more}",
                        rs.len(),
                        ids.join(" ")
                    ),
                );
            }
        }
    }

    /// One hit per document whose URL another document has too.
    fn check_repeated_urls(&mut self, urls: &BTreeMap<&str, Vec<&ChunkRecord>>) {
        for (url, rs) in urls {
            if rs.len() > 1 {
                for r in rs {
                    self.hit(
                        "repeated-url",
                        &r.chunk_id,
                        format!("{url} on {} documents", rs.len()),
                    );
                }
            }
        }
    }

    /// Per library, lines and sentences repeated over too many chunks.
    fn check_boilerplate(&mut self, records: &[ChunkRecord]) {
        let mut by_lib: BTreeMap<&str, Vec<&ChunkRecord>> = BTreeMap::new();
        for r in records {
            by_lib.entry(&r.library).or_default().push(r);
        }
        for (lib, rs) in &by_lib {
            for (n, u, id) in boilerplate_of_library(lib, rs, &self.cx.settings) {
                self.hit(
                    "boilerplate",
                    id,
                    format!("{lib}: in {n} of {} chunks: «{}»", rs.len(), excerpt(&u)),
                );
            }
        }
    }

    /// Each check's result, in report order, against its limit for this build.
    fn results(mut self, docs: usize, chunks: usize) -> Vec<CheckResult> {
        CHECKS
            .iter()
            .map(|(name, description)| {
                let tally = self.tallies.remove(name).expect("tallied");
                let max = self.cx.settings.max_of(name, docs, chunks);
                CheckResult {
                    name: tally.name.to_string(),
                    description: description.to_string(),
                    count: tally.count,
                    upstream: tally.upstream,
                    max,
                    ok: tally.count <= max,
                    examples: tally.examples,
                }
            })
            .collect()
    }
}

/// Each document's first chunk, by doc ID.
fn first_chunks(records: &[ChunkRecord]) -> BTreeMap<&str, &ChunkRecord> {
    let mut docs: BTreeMap<&str, &ChunkRecord> = BTreeMap::new();
    for r in records {
        let e = docs.entry(&r.doc_id).or_insert(r);
        if r.chunk_index < e.chunk_index {
            *e = r;
        }
    }
    docs
}

/// Whether rebuilding the same inputs gives the same corpus version.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct Determinism {
    pub equal: bool,
    pub built: String,
    pub rebuilt: String,
    pub note: String,
}

/// Everything `askzico inspect` reports.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Report {
    pub corpus: String,
    pub corpus_version: String,
    pub environment: String,
    pub chunks: usize,
    /// The libraries of the build (in its manifest).
    pub libraries: usize,
    pub ok: bool,
    pub checks: Vec<CheckResult>,
    pub determinism: Option<Determinism>,
    /// The build's warnings by kind, every instance (from the determinism rebuild; `None`
    /// with `--no-rebuild`).
    pub warnings: Option<Vec<WarningGroup>>,
    pub sample: Vec<SampleItem>,
    pub diff: Option<Diff>,
    /// The site's words whose loanword keys spell other words: those whose keys a question
    /// drops (and why), and the bridges kept (`rules check` prints the same).
    pub loanword_keys: key_collisions::KeyCollisions,
}

/// One kind of build warning (its code) and every warning of that kind.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct WarningGroup {
    pub code: String,
    pub count: usize,
    /// Each warning as `build --json` lists it (level, code, file, line, message, help).
    pub instances: Vec<serde_json::Value>,
}

/// A build's warnings grouped by kind, the most frequent first.
pub(crate) fn warning_groups(problems: &crate::diag::Problems) -> Vec<WarningGroup> {
    problems
        .warning_groups()
        .into_iter()
        .map(|(code, ps)| WarningGroup {
            code: format!("askzico::{code}"),
            count: ps.len(),
            instances: ps.iter().map(|p| p.to_json()).collect(),
        })
        .collect()
}

/// Every chunk record a manifest names, read from `out`; unreadable lines are skipped here
/// (the coverage check reports them).
pub(crate) fn load_records(out: &Path, m: &Manifest) -> Vec<ChunkRecord> {
    let mut recs = Vec::new();
    for a in m.artifacts_of(Kind::Chunks) {
        let Ok(text) = crate::artifacts::store::read_artifact_text(out, a) else {
            continue;
        };
        recs.extend(
            text.lines()
                .filter_map(|l| serde_json::from_str::<ChunkRecord>(l).ok()),
        );
    }
    recs
}

/// Another build's manifest and the output directory its paths resolve against: the
/// manifest's directory, or its parent for `out/versions/<v>.json`.
pub(crate) fn load_other(path: &Path) -> Result<(Manifest, PathBuf), Problem> {
    let m = read_manifest_file(path)?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let candidates = [
        dir.clone(),
        dir.parent().map(Path::to_path_buf).unwrap_or_default(),
    ];
    let first = m.artifacts_of(Kind::Chunks).next().map(|a| a.path.clone());
    let out = candidates.iter().find(|c| first.as_ref().is_none_or(|p| c.join(p).is_file())).cloned().ok_or_else(|| {
        Problem::error("against", format!("the artifacts of {} are not beside it", path.display()))
            .in_file(path.display().to_string())
            .help("pass out/manifest.json or out/versions/<corpus_version>.json of a build whose files are still in place")
    })?;
    Ok((m, out))
}

#[cfg(test)]
mod tests;
