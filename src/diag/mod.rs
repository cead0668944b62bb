//! Diagnostics: every problem of a run is collected as a `Problem` (error or warning), rendered
//! with miette, and counted into the exit code. Problems carry the file, the line, what went
//! wrong and what to do about it.

use std::fmt;
use std::sync::Arc;

use miette::{Diagnostic, LabeledSpan, NamedSource, SourceCode, SourceSpan};
use serde::{Deserialize, Serialize};

mod snippet;
mod stored;

use snippet::{Snippet, cut_message, floor_char};
pub(crate) use stored::StoredWarning;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    /// Not a fault: what a build left out on purpose (a draft), counted in its summary.
    Note,
}

/// What went wrong, for the problems a caller acts on (the message is for people and says the
/// same).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// A source's bytes, read again, are not those its hash was taken from.
    ChangedDuringBuild,
}

/// One diagnostic. `file` is the path as the user knows it (relative to the config when possible).
#[derive(Debug, Clone)]
pub struct Problem {
    pub level: Level,
    pub code: &'static str,
    /// Set where a caller branches on the kind of failure; never rendered.
    pub cause: Option<Cause>,
    pub file: Option<String>,
    pub line: Option<usize>,
    pub message: String,
    pub help: Option<String>,
    source: Option<Arc<NamedSource<Snippet>>>,
    span: Option<SourceSpan>,
    label: Option<String>,
}

impl Problem {
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Problem {
            level: Level::Error,
            code,
            cause: None,
            file: None,
            line: None,
            message: cut_message(message.into()),
            help: None,
            source: None,
            span: None,
            label: None,
        }
    }

    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Problem {
            level: Level::Warning,
            ..Problem::error(code, message)
        }
    }

    /// A note: something left out on purpose, neither an error nor a warning.
    pub fn note(code: &'static str, message: impl Into<String>) -> Self {
        Problem {
            level: Level::Note,
            ..Problem::error(code, message)
        }
    }

    /// Names the file (a leading `./` is dropped: one path style everywhere).
    pub fn in_file(mut self, file: impl Into<String>) -> Self {
        let file = file.into();
        self.file = Some(match file.strip_prefix("./") {
            Some(rest) if !rest.is_empty() => rest.to_string(),
            _ => file,
        });
        self
    }

    pub fn because(mut self, cause: Cause) -> Self {
        self.cause = Some(cause);
        self
    }

    pub fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Points into `text` (the file's content) at a byte range; the line is derived from it.
    /// The snippet shows the span's lines, each cut to a window around the span when long.
    pub fn with_span(
        mut self,
        text: &Arc<str>,
        span: std::ops::Range<usize>,
        label: impl Into<String>,
    ) -> Self {
        let name = self.file.clone().unwrap_or_default();
        let start = floor_char(text, span.start.min(text.len()));
        let end = floor_char(text, span.end.clamp(start, text.len()));
        self.line = Some(line_of(text, start));
        let (snippet, span) = Snippet::of(text, start, end);
        let (snippet, span) = snippet.visible(span);
        self.source = Some(Arc::new(NamedSource::new(name, snippet)));
        self.span = Some(span);
        self.label = Some(cut_message(label.into()));
        self
    }

    pub fn is_error(&self) -> bool {
        self.level == Level::Error
    }

    /// `file:line: message` — the plain one-line form used in JSON output and logs.
    pub fn headline(&self) -> String {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => format!("{f}:{l}: {}", self.message),
            (Some(f), None) => format!("{f}: {}", self.message),
            _ => self.message.clone(),
        }
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "level": self.level,
            "code": self.code,
            "file": self.file,
            "line": self.line,
            "message": self.message,
            "help": self.help,
        })
    }
}

/// 1-based line number of a byte offset.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Equal when they say the same thing (the rendered source snippet is not compared).
impl PartialEq for Problem {
    fn eq(&self, o: &Self) -> bool {
        (
            self.level,
            self.code,
            &self.file,
            self.line,
            &self.message,
            &self.help,
            self.span,
        ) == (
            o.level, o.code, &o.file, o.line, &o.message, &o.help, o.span,
        )
    }
}

/// As the terminal shows it: a value the message quotes (a title, a key, an API's answer) has
/// its control characters shown as `\u{…}` (`term::text`).
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::term::text(&self.headline()))
    }
}

impl std::error::Error for Problem {}

impl Diagnostic for Problem {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(format!("askzico::{}", self.code)))
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.level {
            Level::Error => miette::Severity::Error,
            Level::Warning => miette::Severity::Warning,
            Level::Note => miette::Severity::Advice,
        })
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(crate::term::text(h)) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_deref().map(|s| s as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.span?;
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(
            self.label
                .as_deref()
                .map(|l| crate::term::line(l).into_owned()),
            span,
        ))))
    }
}

/// Problems of a run, in a deterministic order (errors first, then by file and line).
#[derive(Debug, Default, Clone)]
pub struct Problems(pub Vec<Problem>);

impl Problems {
    pub fn push(&mut self, p: Problem) {
        self.0.push(p);
    }
    pub fn extend(&mut self, ps: impl IntoIterator<Item = Problem>) {
        self.0.extend(ps);
    }
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Problem::is_error)
    }
    pub fn errors(&self) -> usize {
        self.0.iter().filter(|p| p.is_error()).count()
    }
    pub fn warnings(&self) -> usize {
        self.0.iter().filter(|p| p.level == Level::Warning).count()
    }
    /// The notes of one kind (`code`): what the build left out on purpose.
    pub fn notes(&self, code: &str) -> Vec<&Problem> {
        self.0
            .iter()
            .filter(|p| p.level == Level::Note && p.code == code)
            .collect()
    }
    pub fn sort(&mut self) {
        self.0.sort_by(|a, b| {
            (a.level, &a.file, a.line, &a.message).cmp(&(b.level, &b.file, b.line, &b.message))
        });
    }
    /// Renders every problem to stderr with miette's graphical handler.
    pub fn report(&self) {
        for p in &self.0 {
            eprintln!("{:?}", miette::Report::new(p.clone()));
        }
    }

    /// The terminal form of a build's problems: warnings one line per kind (`warning_summary`),
    /// then every error in full, so hundreds of warnings never bury an error.
    pub fn report_grouped(&self) {
        for line in self.warning_summary() {
            eprintln!("{}", crate::term::text(&line));
        }
        for p in self.0.iter().filter(|p| p.is_error()) {
            eprintln!("{:?}", miette::Report::new(p.clone()));
        }
    }

    /// Warnings by kind (their code), the most frequent kind first, then by code; each kind's
    /// warnings in the order of the list.
    pub fn warning_groups(&self) -> Vec<(&'static str, Vec<&Problem>)> {
        let mut groups: std::collections::BTreeMap<&'static str, Vec<&Problem>> =
            std::collections::BTreeMap::new();
        for p in self.0.iter().filter(|p| p.level == Level::Warning) {
            groups.entry(p.code).or_default().push(p);
        }
        let mut groups: Vec<_> = groups.into_iter().collect();
        groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
        groups
    }

    /// One line per kind of warning: its count and up to three files as examples (a kind with
    /// one warning shows that warning's headline), then one line saying where every warning is
    /// shown in full. Empty without warnings.
    pub fn warning_summary(&self) -> Vec<String> {
        let groups = self.warning_groups();
        let mut lines = Vec::with_capacity(groups.len() + 1);
        // Example files without the folders every warned file shares (`../../corpora/`).
        let prefix = common_dir(self.0.iter().filter_map(|p| p.file.as_deref()));
        for (code, ps) in &groups {
            if let [p] = ps.as_slice() {
                let headline = p.headline();
                let first = headline.lines().next().unwrap_or_default();
                lines.push(format!("⚠ askzico::{code}: {first}"));
                continue;
            }
            let files = first_seen(ps.iter().filter_map(|p| p.file.as_deref()));
            let mut line = format!("⚠ askzico::{code}: {} warnings", ps.len());
            if files.len() < ps.len() {
                line.push_str(&format!(
                    " in {}",
                    crate::term::count(files.len(), "file", "files")
                ));
            }
            if !files.is_empty() {
                // Distinct as shown: two files can shorten alike (`…/posts/index.html`).
                let mut shown: Vec<String> = Vec::with_capacity(GROUP_EXAMPLES);
                for f in &files {
                    if shown.len() == GROUP_EXAMPLES {
                        break;
                    }
                    let short = short_file(&f[prefix..]);
                    if !shown.contains(&short) {
                        shown.push(short);
                    }
                }
                let more = if files.len() > shown.len() {
                    ", …"
                } else {
                    ""
                };
                line.push_str(&format!(", e.g. {}{more}", shown.join(", ")));
            }
            lines.push(line);
        }
        if !groups.is_empty() {
            lines.push(
                "  (one line per kind of warning: `--verbose` prints each in full; `--json` and \
                 `askzico inspect` list every one)"
                    .to_string(),
            );
        }
        lines
    }
}

/// Each distinct item once, in the order first seen (a set beside the list: a kind can hold a
/// warning for each of 100k files).
fn first_seen<T: std::hash::Hash + Eq + Copy>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut seen = std::collections::HashSet::new();
    items.filter(|i| seen.insert(*i)).collect()
}

/// Most example files a grouped warning line names.
const GROUP_EXAMPLES: usize = 3;

/// Most characters of an example file on a grouped warning line (its last segment is always
/// kept whole).
const SHORT_FILE_MAX: usize = 32;

/// The byte length of the folders all `files` start with (`a/b/` of `a/b/c.md` and `a/b/d.md`).
fn common_dir<'a>(files: impl Iterator<Item = &'a str>) -> usize {
    let mut common: Option<&str> = None;
    for f in files {
        let dir = f.rfind('/').map_or("", |i| &f[..=i]);
        common = Some(match common {
            None => dir,
            Some(c) => {
                let mut same = c
                    .bytes()
                    .zip(dir.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                // Two Arabic names can share the first byte of a letter (أ and ا both open
                // with 0xD8): back to a character's start, then to the last `/`.
                while !c.is_char_boundary(same) {
                    same -= 1;
                }
                c[..same].rfind('/').map_or("", |i| &c[..=i])
            }
        });
    }
    common.map_or(0, str::len)
}

/// A file as a grouped warning line names it: its last path segments, as many as fit in
/// `SHORT_FILE_MAX` characters (`…/general/page/1/index.html`).
fn short_file(file: &str) -> String {
    let segments: Vec<&str> = file.split('/').collect();
    let mut kept = 1;
    let mut len = segments[segments.len() - 1].chars().count();
    while kept < segments.len() {
        let next = segments[segments.len() - 1 - kept].chars().count() + 1;
        if len + next > SHORT_FILE_MAX {
            break;
        }
        len += next;
        kept += 1;
    }
    let tail = segments[segments.len() - kept..].join("/");
    if kept == segments.len() {
        tail
    } else {
        format!("…/{tail}")
    }
}

#[cfg(test)]
mod tests;
