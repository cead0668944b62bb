//! The source a diagnostic shows: the lines around its span, each cut to a window when long and
//! with the control characters a terminal would act on shown as pictures, read by miette as if
//! they were the file; and messages cut to a bounded length. Kept apart from `Problem`, which
//! only holds the snippet it renders.

use std::sync::Arc;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use super::line_of;

/// Most bytes of a message or label: one that quotes a huge value (a 5 MB key) is cut in the
/// middle. Far above any real message (a duplicate ID naming a thousand sources is ~50 KB).
pub(super) const MESSAGE_MAX: usize = 64 * 1024;
/// Most bytes of a source line a snippet shows; a longer line is cut to a window this wide
/// around the span, with an ellipsis where it was cut.
const SNIPPET_LINE_MAX: usize = 240;
/// Bytes a cut line keeps before the span's start.
const SNIPPET_BEFORE: usize = 80;
/// Most lines of a span; a longer one is shown by its first line.
const SNIPPET_SPAN_LINES: usize = 12;
const ELLIPSIS: &str = "…";

/// The largest char boundary of `text` at or before `i`.
pub(super) fn floor_char(text: &str, mut i: usize) -> usize {
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

pub(super) fn cut_message(message: String) -> String {
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
pub(super) enum Snippet {
    Whole(Arc<str>),
    Excerpt(Excerpt),
}

/// Lines of a file, each cut to a window, that miette reads as if they were the file: line
/// numbers and the span's column are those of the file.
#[derive(Debug)]
pub(super) struct Excerpt {
    pub(super) text: String,
    /// Lines of the file before the excerpt's first line.
    pub(super) first_line: usize,
    /// The excerpt line of the span's start, and what to add to a column on it.
    pub(super) shift: (usize, isize),
}

impl Snippet {
    /// The snippet of the span `start..end` (char boundaries of `text`), and the span in it.
    pub(super) fn of(text: &Arc<str>, start: usize, mut end: usize) -> (Snippet, SourceSpan) {
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
    pub(super) fn visible(self, span: SourceSpan) -> (Snippet, SourceSpan) {
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
