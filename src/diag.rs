//! Diagnostics: every problem of a run is collected as a `Problem` (error or warning), rendered
//! with miette, and counted into the exit code. Problems carry the file, the line, what went
//! wrong and what to do about it.

use std::fmt;
use std::sync::Arc;

use miette::{Diagnostic, LabeledSpan, NamedSource, SourceCode, SourceSpan};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
}

/// One diagnostic. `file` is the path as the user knows it (relative to the config when possible).
#[derive(Debug, Clone)]
pub struct Problem {
    pub level: Level,
    pub code: &'static str,
    pub file: Option<String>,
    pub line: Option<usize>,
    pub message: String,
    pub help: Option<String>,
    source: Option<Arc<NamedSource<Arc<str>>>>,
    span: Option<SourceSpan>,
    label: Option<String>,
}

impl Problem {
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Problem {
            level: Level::Error,
            code,
            file: None,
            line: None,
            message: message.into(),
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

    /// Names the file (a leading `./` is dropped: one path style everywhere).
    pub fn in_file(mut self, file: impl Into<String>) -> Self {
        let file = file.into();
        self.file = Some(match file.strip_prefix("./") {
            Some(rest) if !rest.is_empty() => rest.to_string(),
            _ => file,
        });
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
    pub fn with_span(
        mut self,
        text: &Arc<str>,
        span: std::ops::Range<usize>,
        label: impl Into<String>,
    ) -> Self {
        let name = self.file.clone().unwrap_or_default();
        let start = span.start.min(text.len());
        let end = span.end.clamp(start, text.len());
        self.line = Some(line_of(text, start));
        self.source = Some(Arc::new(NamedSource::new(name, text.clone())));
        self.span = Some((start, end - start).into());
        self.label = Some(label.into());
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

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.headline())
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
        })
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h.as_str()) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_deref().map(|s| s as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.span?;
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(
            self.label.clone(),
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
        self.0.len() - self.errors()
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
}
