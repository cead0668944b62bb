//! Diagnostics: every problem of a run is collected as a `Problem` (error or warning), rendered
//! with miette, and counted into the exit code. Problems carry the file, the line, what went
//! wrong and what to do about it.

use std::fmt;
use std::sync::Arc;

use miette::{
    Diagnostic, LabeledSpan, MietteError, MietteSpanContents, NamedSource, SourceCode, SourceSpan,
    SpanContents,
};
use serde::{Deserialize, Serialize};

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
pub fn line_of(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Most bytes of a message or label: one that quotes a huge value (a 5 MB key) is cut in the
/// middle. Far above any real message (a duplicate ID naming a thousand sources is ~50 KB).
const MESSAGE_MAX: usize = 64 * 1024;
/// Most bytes of a source line a snippet shows; a longer line is cut to a window this wide
/// around the span, with an ellipsis where it was cut.
const SNIPPET_LINE_MAX: usize = 240;
/// Bytes a cut line keeps before the span's start.
const SNIPPET_BEFORE: usize = 80;
/// Most lines of a span; a longer one is shown by its first line.
const SNIPPET_SPAN_LINES: usize = 12;
const ELLIPSIS: &str = "…";

/// The largest char boundary of `text` at or before `i`.
fn floor_char(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

fn cut_message(message: String) -> String {
    if message.len() <= MESSAGE_MAX {
        return message;
    }
    let head = floor_char(&message, MESSAGE_MAX / 2);
    let tail = ceil_char(&message, message.len() - MESSAGE_MAX / 2);
    format!(
        "{}{ELLIPSIS} ({} bytes cut) {ELLIPSIS}{}",
        &message[..head],
        tail - head,
        &message[tail..]
    )
}

/// The source text a diagnostic shows: the whole file, or, when the lines around the span are
/// long, an excerpt of them (a 50 MB line must not reach the terminal).
#[derive(Debug)]
enum Snippet {
    Whole(Arc<str>),
    Excerpt(Excerpt),
}

/// Lines of a file, each cut to a window, that miette reads as if they were the file: line
/// numbers and the span's column are those of the file.
#[derive(Debug)]
struct Excerpt {
    text: String,
    /// Lines of the file before the excerpt's first line.
    first_line: usize,
    /// The excerpt line of the span's start, and what to add to a column on it.
    shift: (usize, isize),
}

impl Snippet {
    /// The snippet of the span `start..end` (char boundaries of `text`), and the span in it.
    fn of(text: &Arc<str>, start: usize, mut end: usize) -> (Snippet, SourceSpan) {
        let line_start = |o: usize| text[..o].rfind('\n').map_or(0, |i| i + 1);
        let line_end = |o: usize| text[o..].find('\n').map_or(text.len(), |i| o + i);
        let first = line_start(start);
        // The line of the span's last byte (a span ending after a newline ends on that line).
        let last_of = |end: usize| line_start(floor_char(text, end.saturating_sub(1)).max(start));
        if text[first..last_of(end)].matches('\n').count() >= SNIPPET_SPAN_LINES {
            end = end.min(line_end(start));
        }
        // The lines miette shows: one of context on each side of the span's lines.
        let last = last_of(end);
        let mut lines = Vec::new();
        if first > 0 {
            lines.push((line_start(first - 1), first - 1));
        }
        let start_idx = lines.len();
        let mut at = first;
        loop {
            let e = line_end(at);
            lines.push((at, e));
            if at >= last || e >= text.len() {
                break;
            }
            at = e + 1;
        }
        let end_idx = lines.len() - 1;
        let e = lines[end_idx].1;
        if e < text.len() {
            lines.push((e + 1, line_end(e + 1)));
        }
        if lines.iter().all(|(s, e)| e - s <= SNIPPET_LINE_MAX) {
            return (Snippet::Whole(text.clone()), (start, end - start).into());
        }
        let mut out = String::new();
        let (mut new_start, mut new_end) = (0, 0);
        let mut shift = (0, 0);
        for (i, &(ls, le)) in lines.iter().enumerate() {
            // The span's first line keeps a little before the span; other lines their start.
            let from = if i == start_idx && start - ls > SNIPPET_BEFORE {
                floor_char(text, start - SNIPPET_BEFORE)
            } else {
                ls
            };
            let to = ceil_char(text, (from + SNIPPET_LINE_MAX).min(le));
            let base = out.len();
            if from > ls {
                out.push_str(ELLIPSIS);
            }
            let pos = |o: usize, len: usize| len + o.clamp(from, to) - from;
            if i == start_idx {
                new_start = pos(start, out.len());
                shift = (i, (start - ls) as isize - (new_start - base) as isize);
            }
            if i == end_idx {
                new_end = pos(end, out.len());
            }
            out.push_str(&text[from..to]);
            if to < le {
                out.push_str(ELLIPSIS);
            }
            out.push('\n');
        }
        let new_end = new_end.max(new_start);
        let excerpt = Excerpt {
            text: out,
            first_line: line_of(text, lines[0].0) - 1,
            shift,
        };
        (
            Snippet::Excerpt(excerpt),
            (new_start, new_end - new_start).into(),
        )
    }
}

impl Snippet {
    /// The snippet with each control character a terminal would act on (ESC, BEL, a lone CR)
    /// shown as its Unicode control picture (`␛`), one character for one, so the source a
    /// diagnostic quotes can neither clear the screen nor move the label off its place.
    fn visible(self, span: SourceSpan) -> (Snippet, SourceSpan) {
        let text: &str = match &self {
            Snippet::Whole(t) => t,
            Snippet::Excerpt(x) => &x.text,
        };
        let Some((pictured, span)) = pictured(text, span) else {
            return (self, span);
        };
        let snippet = match self {
            Snippet::Whole(_) => Snippet::Whole(Arc::from(pictured)),
            Snippet::Excerpt(x) => Snippet::Excerpt(Excerpt {
                text: pictured,
                ..x
            }),
        };
        (snippet, span)
    }
}

/// `text` with its control characters (but newline, tab and the CR of a CRLF) replaced by
/// their control pictures, and `span` moved to the same characters; `None` when it has none.
fn pictured(text: &str, span: SourceSpan) -> Option<(String, SourceSpan)> {
    let bytes = text.as_bytes();
    let shown = |i: usize, c: char| {
        !c.is_control() || c == '\n' || c == '\t' || (c == '\r' && bytes.get(i + 1) == Some(&b'\n'))
    };
    if text.char_indices().all(|(i, c)| shown(i, c)) {
        return None;
    }
    let (start, end) = (span.offset(), span.offset() + span.len());
    let mut out = String::with_capacity(text.len() + 16);
    let (mut new_start, mut new_end) = (None, None);
    for (i, c) in text.char_indices() {
        if i == start {
            new_start = Some(out.len());
        }
        if i == end {
            new_end = Some(out.len());
        }
        if shown(i, c) {
            out.push(c);
        } else {
            out.push(match c as u32 {
                n @ 0..=0x1f => char::from_u32(0x2400 + n).unwrap_or('\u{fffd}'),
                0x7f => '\u{2421}',
                _ => '\u{fffd}',
            });
        }
    }
    let new_start = new_start.unwrap_or(out.len());
    let new_end = new_end.unwrap_or(out.len()).max(new_start);
    Some((out, (new_start, new_end - new_start).into()))
}

impl SourceCode for Snippet {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        match self {
            Snippet::Whole(text) => text.read_span(span, before, after),
            Snippet::Excerpt(x) => {
                let c = x.text.read_span(span, before, after)?;
                let column = match c.column() {
                    0 => 0,
                    col if c.line() == x.shift.0 => (col as isize + x.shift.1).max(0) as usize,
                    col => col,
                };
                Ok(Box::new(MietteSpanContents::new(
                    c.data(),
                    *c.span(),
                    c.line() + x.first_line,
                    column,
                    c.line_count(),
                )))
            }
        }
    }
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

/// A warning or note as a build's stamp keeps it (`engine::stamp`), so that a no-op standing for that
/// build shows it again as it was shown, code frame included: the frame's lines are kept (the
/// span's lines with one of context each side, as miette renders them), not the whole file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StoredWarning {
    level: Level,
    code: String,
    file: Option<String>,
    line: Option<usize>,
    message: String,
    help: Option<String>,
    frame: Option<StoredFrame>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct StoredFrame {
    name: String,
    text: String,
    /// Lines of the file before `text`'s first line.
    first_line: usize,
    /// As `Excerpt::shift`: the excerpt line of the span's start, and what to add to a column.
    shift: (usize, isize),
    /// The span in `text`: offset and length.
    span: (usize, usize),
    label: Option<String>,
}

impl Problem {
    /// The warning as a stamp keeps it; `None` for an error (a build with errors is not stamped).
    pub fn to_stored(&self) -> Option<StoredWarning> {
        if self.is_error() {
            return None;
        }
        let frame = match (&self.source, self.span) {
            (Some(src), Some(span)) => Some(StoredFrame::of(src, span, self.label.clone())),
            _ => None,
        };
        Some(StoredWarning {
            level: self.level,
            code: self.code.to_string(),
            file: self.file.clone(),
            line: self.line,
            message: self.message.clone(),
            help: self.help.clone(),
            frame,
        })
    }

    /// The warning or note a stamp kept.
    pub fn from_stored(w: StoredWarning) -> Problem {
        let mut p = Problem::warning(intern_code(&w.code), w.message);
        p.level = w.level;
        p.file = w.file;
        p.line = w.line;
        p.help = w.help;
        // A stamp is a cache anyone can edit: a frame whose span is not inside its text is
        // dropped, never rendered.
        let fits = |f: &StoredFrame| {
            let (start, len) = f.span;
            start
                .checked_add(len)
                .is_some_and(|end| f.text.get(start..end).is_some())
        };
        if let Some(f) = w.frame.filter(fits) {
            let excerpt = Excerpt {
                text: f.text,
                first_line: f.first_line,
                shift: f.shift,
            };
            p.source = Some(Arc::new(NamedSource::new(
                f.name,
                Snippet::Excerpt(excerpt),
            )));
            p.span = Some(f.span.into());
            p.label = f.label;
        }
        p
    }
}

impl StoredFrame {
    fn of(src: &NamedSource<Snippet>, span: SourceSpan, label: Option<String>) -> StoredFrame {
        let name = src.name().to_string();
        match src.inner() {
            Snippet::Excerpt(x) => StoredFrame {
                name,
                text: x.text.clone(),
                first_line: x.first_line,
                shift: x.shift,
                span: (span.offset(), span.len()),
                label,
            },
            Snippet::Whole(text) => {
                // The span's lines and one line of context on each side, whole.
                let (start, end) = (span.offset(), span.offset() + span.len());
                let line_start = |o: usize| text[..o].rfind('\n').map_or(0, |i| i + 1);
                let line_end = |o: usize| text[o..].find('\n').map_or(text.len(), |i| o + i);
                let first = line_start(start);
                let from = if first > 0 { line_start(first - 1) } else { 0 };
                // The line of the span's last byte (a span ending after a newline ends on it).
                let last = line_start(floor_char(text, end.saturating_sub(1)).max(start));
                let last_end = line_end(last);
                let to = if last_end < text.len() {
                    line_end(last_end + 1)
                } else {
                    last_end
                };
                StoredFrame {
                    name,
                    text: text[from..to].to_string(),
                    first_line: line_of(text, from) - 1,
                    shift: (0, 0),
                    span: (start - from, end - start),
                    label,
                }
            }
        }
    }
}

/// A problem code as the `&'static str` every `Problem` holds: codes are a small fixed set, so
/// each distinct one read back from a stamp is leaked once and shared after.
fn intern_code(code: &str) -> &'static str {
    static CODES: std::sync::OnceLock<std::sync::Mutex<std::collections::HashSet<&'static str>>> =
        std::sync::OnceLock::new();
    let mut codes = CODES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(c) = codes.get(code) {
        return c;
    }
    let c: &'static str = Box::leak(code.to_string().into_boxed_str());
    codes.insert(c);
    c
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
                line.push_str(&format!(" in {} file(s)", files.len()));
            }
            if !files.is_empty() {
                let shown: Vec<String> = files
                    .iter()
                    .take(GROUP_EXAMPLES)
                    .map(|f| short_file(&f[prefix..]))
                    .collect();
                let more = if files.len() > GROUP_EXAMPLES {
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
                let same = c
                    .bytes()
                    .zip(dir.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                // Back to the last `/` of the shared part.
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
mod tests {
    use super::*;

    fn render(p: &Problem) -> String {
        let mut s = String::new();
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_width(10_000)
            .render_report(&mut s, p)
            .unwrap();
        s
    }

    /// A value the message quotes and a source line the snippet shows reach the terminal with
    /// their control characters as text: `\u{…}` in words, a control picture in the snippet,
    /// the label still under the span.
    #[test]
    fn control_characters_are_shown_not_sent() {
        let text = "a = 1\ntitle = \"\u{1b}[2J\u{1b}]0;x\u{7}\" bad\r\nz = 2\r\n";
        let at = text.find("bad").unwrap();
        let p = Problem::error("t", "title \u{1b}[2J is bad")
            .in_file("f.toml")
            .help("no \u{1b}]0;title\u{7} here")
            .with_span(&Arc::from(text), at..at + 3, "this \u{1b}[2J");
        let out = render(&p);
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
        assert!(out.contains("title \\u{1b}[2J is bad"), "{out}");
        assert!(out.contains("no \\u{1b}]0;title\\u{7} here"), "{out}");
        assert!(out.contains("this \\u{1b}[2J"), "{out}");
        assert!(out.contains("\"␛[2J␛]0;x␇\" bad"), "{out}");
        assert!(!out.contains('␍'), "the CR of a CRLF stays: {out}");
        // The label points at `bad`: its column under the picture line is that of `bad`.
        let line = out.lines().find(|l| l.contains("␛[2J")).unwrap();
        let mark = out
            .lines()
            .skip_while(|l| !l.contains("␛[2J"))
            .nth(1)
            .unwrap();
        let col = |s: &str, i: usize| s[..i].chars().count();
        let under = mark.find(['─', '┬']).unwrap();
        assert_eq!(
            col(line, line.find("bad").unwrap()),
            col(mark, under),
            "{out}"
        );
    }

    fn problem(text: &str, span: std::ops::Range<usize>) -> Problem {
        Problem::error("t", "bad")
            .in_file("f.toml")
            .with_span(&Arc::from(text), span, "here")
    }

    /// A warning read back from a stamp renders as it did, code frame included, whether its
    /// frame held the whole file or an excerpt of long lines.
    #[test]
    fn a_stored_warning_renders_as_the_original() {
        let warn = |text: &str, span: std::ops::Range<usize>| {
            Problem::warning("t", "odd")
                .in_file("f.md")
                .help("fix it")
                .with_span(&Arc::from(text), span, "here")
        };
        let long = format!("a\nb = \"{}\" oops\nc\n", "ت".repeat(5000));
        let at = long.find("oops").unwrap();
        let text = "l1\nl2\nl3 bad\nl4\nl5\nl6\n";
        let cases = [
            warn(text, 9..12),
            warn(text, 0..2),
            warn(text, 15..18),
            warn(&long, at..at + 4),
            Problem::warning("t", "no frame").in_file("g.md").at_line(3),
            Problem::note("draft", "a draft").in_file("d.md"),
        ];
        for p in cases {
            let json = serde_json::to_string(&p.to_stored().unwrap()).unwrap();
            let back = Problem::from_stored(serde_json::from_str(&json).unwrap());
            assert_eq!(render(&back), render(&p));
            assert_eq!(back.headline(), p.headline());
            assert_eq!(back.to_json(), p.to_json());
            assert_eq!(back.level, p.level);
        }
        assert!(Problem::error("t", "bad").to_stored().is_none());
        // A hand-edited stamp: a span outside its text, or inside a letter, loses the frame.
        let mut w = warn(text, 9..12).to_stored().unwrap();
        for span in [(1000, 5), (usize::MAX, 2), (1, 1)] {
            let mut f = w.frame.clone().unwrap();
            f.text = if span == (1, 1) { "ت".into() } else { f.text };
            f.span = span;
            w.frame = Some(f);
            let back = Problem::from_stored(w.clone());
            assert!(back.span.is_none() && render(&back).contains("odd"));
        }
    }

    /// Short lines are shown from the file itself, as they always were.
    #[test]
    fn short_lines_are_shown_whole() {
        let text = "a = 1\nb = oops\nc = 3\n";
        let p = problem(text, 10..14);
        assert!(matches!(
            p.source.as_deref().map(NamedSource::inner),
            Some(Snippet::Whole(_))
        ));
        let r = render(&p);
        assert!(r.contains("[f.toml:2:5]"), "{r}");
        for line in ["1 │ a = 1", "2 │ b = oops", "3 │ c = 3"] {
            assert!(r.contains(line), "{r}");
        }
    }

    /// A 5 MB line is cut to a window around the span; line, column and context are the file's.
    #[test]
    fn a_long_line_is_cut_around_the_span() {
        let long = "ت".repeat(1_000_000);
        let text = format!(
            "a = 1\nb = \"{long}\" oops tail{}\nc = 3\n",
            "x".repeat(1000)
        );
        let at = text.find("oops").unwrap();
        let p = problem(&text, at..at + 4);
        assert_eq!(p.line, Some(2));
        let r = render(&p);
        assert!(r.len() < 2000, "{} bytes:\n{r}", r.len());
        assert!(r.contains(&format!("[f.toml:2:{}]", at - 6 + 1)), "{r}");
        assert!(r.contains("1 │ a = 1") && r.contains("3 │ c = 3"), "{r}");
        let line2 = r.lines().find(|l| l.contains("2 │")).unwrap();
        assert!(
            line2.contains("…تت") && line2.contains("\" oops tail"),
            "{line2}"
        );
        assert!(line2.ends_with("x…"), "{line2}");
        // The label is under `oops`, at its place in the cut line.
        let marker = r.lines().find(|l| l.contains('┬')).unwrap();
        assert!(marker.ends_with("──┬─"), "{r}");
        let col = |l: &str, pat: &str| l[..l.find(pat).unwrap()].chars().count();
        assert_eq!(col(marker, "──┬─"), col(line2, "oops"), "{r}");
    }

    /// Long context lines are cut as well, and a span at the start of a line keeps its start.
    #[test]
    fn long_context_lines_are_cut() {
        let text = format!("{}\nbad\n{}\n", "y".repeat(100_000), "z".repeat(100_000));
        let at = text.find("bad").unwrap();
        let r = render(&problem(&text, at..at + 3));
        assert!(r.len() < 2000, "{} bytes:\n{r}", r.len());
        assert!(r.contains("[f.toml:2:1]"), "{r}");
        assert!(r.contains("2 │ bad"), "{r}");
        assert!(r.contains("yyy…") && r.contains("zzz…"), "{r}");
    }

    /// A span over many lines is shown by its first; one over a long line ends at its window.
    #[test]
    fn long_spans_are_clipped() {
        let text: String = (0..10_000).map(|i| format!("k{i} = {i}\n")).collect();
        let r = render(&problem(&text, 0..text.len()));
        assert!(r.lines().count() < 20, "{r}");
        assert!(r.contains("1 │ k0 = 0"), "{r}");
        let text = format!("v = \"{}\"\n", "ب".repeat(1_000_000));
        let r = render(&problem(&text, 4..text.len() - 1));
        assert!(r.len() < 2000, "{} bytes:\n{r}", r.len());
        assert!(r.contains("[f.toml:1:5]"), "{r}");
    }

    /// Spans cut inside a character, empty texts and spans past the end never panic.
    #[test]
    fn odd_spans_are_safe() {
        let long = format!("{}\n", "ع".repeat(10_000));
        for (text, span) in [
            (long.as_str(), 1..3),
            (long.as_str(), 5001..5001),
            (long.as_str(), 0..usize::MAX),
            (long.as_str(), 20_001..20_001),
            ("", 0..0),
            ("x", 5..9),
        ] {
            render(&problem(text, span));
        }
    }

    /// One line per kind, the most frequent first; a kind seen once shows its headline; a file
    /// with several warnings of a kind is named once; folders every file shares are dropped.
    /// Listing a kind's files is linear in its warnings: counted in comparisons, 20k files
    /// (each warned twice) cost a few per warning, not one per pair of files.
    #[test]
    fn distinct_files_are_found_in_linear_work() {
        use std::cell::Cell;
        thread_local!(static EQ_CALLS: Cell<usize> = const { Cell::new(0) });
        #[derive(Clone, Copy)]
        struct File(usize);
        impl std::hash::Hash for File {
            fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
                self.0.hash(h);
            }
        }
        impl PartialEq for File {
            fn eq(&self, o: &Self) -> bool {
                EQ_CALLS.with(|c| c.set(c.get() + 1));
                self.0 == o.0
            }
        }
        impl Eq for File {}
        let n = 20_000;
        let files = super::first_seen((0..2 * n).map(|i| File(i % n)));
        assert_eq!(files.len(), n);
        assert!(files.iter().enumerate().all(|(i, f)| f.0 == i));
        let calls = EQ_CALLS.with(Cell::get);
        assert!(calls <= 4 * n, "{calls} comparisons for {} warnings", 2 * n);
    }

    #[test]
    fn warnings_are_summarised_one_line_per_kind() {
        let mut ps = Problems::default();
        for i in 0..5 {
            ps.push(Problem::warning("empty", "nothing").in_file(format!("site/docs/e{i}.md")));
        }
        for _ in 0..2 {
            ps.push(Problem::warning("no-title", "no title").in_file("site/docs/r.json"));
        }
        ps.push(Problem::warning("mdx-fallback", "read as Markdown").in_file("site/docs/x.mdx"));
        ps.push(Problem::error("frontmatter", "bad").in_file("site/docs/bad.md"));
        assert_eq!(
            ps.warning_summary(),
            [
                "⚠ askzico::empty: 5 warnings, e.g. e0.md, e1.md, e2.md, …",
                "⚠ askzico::no-title: 2 warnings in 1 file(s), e.g. r.json",
                "⚠ askzico::mdx-fallback: site/docs/x.mdx: read as Markdown",
                "  (one line per kind of warning: `--verbose` prints each in full; `--json` and \
                 `askzico inspect` list every one)",
            ]
        );
        assert!(
            Problems(vec![Problem::error("e", "x")])
                .warning_summary()
                .is_empty()
        );
    }

    #[test]
    fn example_files_keep_their_last_segments() {
        assert_eq!(short_file("a.md"), "a.md");
        assert_eq!(short_file("docs/ar/404.html"), "docs/ar/404.html");
        assert_eq!(
            short_file("eis1600-html-ar/docs/ar/categories/general/page/1/index.html"),
            "…/general/page/1/index.html"
        );
        let long = format!("dir/{}.md", "x".repeat(50));
        assert_eq!(short_file(&long), format!("…/{}.md", "x".repeat(50)));
        assert_eq!(common_dir(["a/b/c.md", "a/b/d/e.md"].into_iter()), 4);
        assert_eq!(common_dir(["a/bc/x.md", "a/bd/y.md"].into_iter()), 2);
        assert_eq!(common_dir(["x.md", "a/y.md"].into_iter()), 0);
    }

    #[test]
    fn a_huge_message_is_cut() {
        let p = Problem::error("t", format!("unknown key `{}`", "k".repeat(5_000_000)));
        assert!(p.message.len() <= MESSAGE_MAX + 40, "{}", p.message.len());
        assert!(p.message.starts_with("unknown key `kkk") && p.message.ends_with("kkk`"));
        assert!(p.message.contains("… (4934478 bytes cut) …"));
        // Long lists stay whole.
        let list = vec!["src/a-long-source-name.md"; 1000].join(", ");
        assert_eq!(Problem::error("t", list.clone()).message, list);
    }
}
