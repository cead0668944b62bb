//! A warning or note in the form a build's stamp keeps (`engine::stamp`): its words and its code
//! frame, written to disk and read back into a `Problem` that renders as the original did. Apart
//! from `Problem` and its rendering: only a stamp writes or reads this form.

use std::sync::Arc;

use miette::{NamedSource, SourceSpan};
use serde::{Deserialize, Serialize};

use super::snippet::{Excerpt, Snippet, floor_char};
use super::{Level, Problem, line_of};

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
    pub(super) frame: Option<StoredFrame>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(super) struct StoredFrame {
    name: String,
    pub(super) text: String,
    /// Lines of the file before `text`'s first line.
    first_line: usize,
    /// As `Excerpt::shift`: the excerpt line of the span's start, and what to add to a column.
    shift: (usize, isize),
    /// The span in `text`: offset and length.
    pub(super) span: (usize, usize),
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
