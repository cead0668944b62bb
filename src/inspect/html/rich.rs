//! Text kept in order inside a right-to-left page: identifiers and code left to right, runs of
//! Latin script isolated, everything escaped.

use std::fmt::Write;

use super::escape;

/// An identifier (chunk or doc ID, path, URL, version) kept left to right, escaped.
pub(super) fn ltr(s: &str) -> String {
    format!("<span class=\"id\" dir=\"ltr\">{}</span>", escape(s))
}

/// A check key as the CLI and docs name it: small, left to right.
pub(super) fn key(s: &str) -> String {
    format!("<code class=\"key\" dir=\"ltr\">{}</code>", escape(s))
}

/// English text (a diagnostic, a note) in its own left-to-right element.
pub(super) fn english(s: &str) -> String {
    format!(
        "<span class=\"en\" dir=\"ltr\" lang=\"en\">{}</span>",
        escape(s)
    )
}

/// Text with its code (fenced blocks, inline spans, their backticks shown) in left-to-right
/// `code` elements and its runs of Latin script isolated left to right, escaped.
pub(crate) fn rich(s: &str) -> String {
    rich_with(s, Ticks::Shown)
}

/// Whether a code span's backticks are shown: evidence shows its text as it is; the report's
/// own descriptions mark code with them.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Ticks {
    Shown,
    Hidden,
}

pub(super) fn rich_with(s: &str, ticks: Ticks) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 4);
    let (mut pos, mut plain) = (0, 0);
    while let Some(off) = s[pos..].find('`') {
        let at = pos + off;
        let n = s[at..].bytes().take_while(|b| *b == b'`').count();
        let (start, end) = if n >= 3 {
            fence_end(s, at, n).map_or_else(|| unclosed_fence(s, plain, at, n), |e| (at, e))
        } else if let Some(e) = span_end(s, at + n, n) {
            (at, e)
        } else {
            pos = at + n;
            continue;
        };
        let code = &s[start..end];
        if code.contains('\n') {
            // A block on lines of its own: the newlines around it are the block's edges.
            let before = &s[plain..start];
            prose_into(before.strip_suffix('\n').unwrap_or(before), &mut out);
            let _ = write!(
                out,
                "<code class=\"block\" dir=\"ltr\">{}</code>",
                escape(code)
            );
            pos = if s[end..].starts_with('\n') {
                end + 1
            } else {
                end
            };
        } else {
            prose_into(&s[plain..start], &mut out);
            let shown = match ticks {
                Ticks::Shown => code,
                Ticks::Hidden => code.trim_matches('`').trim(),
            };
            let _ = write!(out, "<code dir=\"ltr\">{}</code>", escape(shown));
            pos = end;
        }
        plain = pos;
    }
    prose_into(&s[plain..], &mut out);
    out
}

/// Where the fence of `n` backticks opening at `at` ends: after its closing line when it opens
/// a line and one closes it, else after the next run of as many backticks (an excerpt on one
/// line); `None` when nothing closes it.
pub(super) fn fence_end(s: &str, at: usize, n: usize) -> Option<usize> {
    let opens_line = s[..at]
        .rsplit('\n')
        .next()
        .is_some_and(|l| l.trim().is_empty());
    if opens_line && let Some(eol) = s[at..].find('\n') {
        let mut line_start = at + eol + 1;
        while line_start <= s.len() {
            let line_end = s[line_start..]
                .find('\n')
                .map_or(s.len(), |i| line_start + i);
            let line = s[line_start..line_end].trim();
            let ticks = line.bytes().take_while(|b| *b == b'`').count();
            if ticks >= n && line[ticks..].trim().is_empty() {
                return Some(line_end);
            }
            line_start = line_end + 1;
        }
    }
    let mut from = at + n;
    while let Some(off) = s[from..].find('`') {
        let i = from + off;
        let run = s[i..].bytes().take_while(|b| *b == b'`').count();
        if run >= n {
            return Some(i + run);
        }
        from = i + run;
    }
    None
}

/// The code around a fence nothing closes, from `plain` (the end of the last code) on. An
/// excerpt on one line that has no Arabic before the fence began inside the block: the fence
/// closes it when Arabic follows, else all of it is code. Otherwise the block opens at the
/// fence and the excerpt ends inside it.
pub(super) fn unclosed_fence(s: &str, plain: usize, at: usize, n: usize) -> (usize, usize) {
    let before = &s[plain..at];
    if s.contains('\n') || before.trim().is_empty() || before.chars().any(is_arabic) {
        (at, s.len())
    } else if s[at + n..].chars().any(is_arabic) {
        (plain, at + n)
    } else {
        (plain, s.len())
    }
}

/// The end of an inline code span of `n` backticks whose content starts at `from`: after the
/// next run of exactly `n` backticks before a blank line, if any.
pub(super) fn span_end(s: &str, from: usize, n: usize) -> Option<usize> {
    let limit = s[from..].find("\n\n").map_or(s.len(), |i| from + i);
    let mut i = from;
    while let Some(off) = s[i..limit].find('`') {
        let at = i + off;
        let run = s[at..limit].bytes().take_while(|b| *b == b'`').count();
        if run == n && at > from {
            return Some(at + run);
        }
        i = at + run;
    }
    None
}

pub(super) fn is_arabic(c: char) -> bool {
    matches!(c, '\u{0600}'..='\u{06FF}' | '\u{0750}'..='\u{077F}' | '\u{08A0}'..='\u{08FF}' | '\u{FB50}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFF}')
}

/// What a word is for the direction of the text around it.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Word {
    Arabic,
    Latin,
    Neutral,
}

pub(super) fn word(w: &str) -> Word {
    if w.chars().any(is_arabic) {
        Word::Arabic
    } else if w.chars().any(|c| c.is_alphabetic() && c < '\u{0590}') {
        Word::Latin
    } else {
        Word::Neutral
    }
}

/// Prose escaped, each run of Latin words (with the symbols between them: `createApp({`) in a
/// left-to-right `bdi`, so its brackets and punctuation stay where it wrote them. A run ends at
/// an Arabic word or a line break, and leaves out the sentence's closing punctuation.
pub(super) fn prose_into(s: &str, out: &mut String) {
    // Words, as byte ranges.
    let mut words: Vec<(usize, usize)> = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(b)) => {
                words.push((b, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(b) = start {
        words.push((b, s.len()));
    }
    let mut done = 0;
    let mut k = 0;
    while k < words.len() {
        if word(&s[words[k].0..words[k].1]) != Word::Latin {
            k += 1;
            continue;
        }
        // The run: from this Latin word to the last Latin word before an Arabic word or a newline.
        let mut last = k;
        let mut j = k + 1;
        while j < words.len() && !s[words[j - 1].1..words[j].0].contains('\n') {
            match word(&s[words[j].0..words[j].1]) {
                Word::Arabic => break,
                Word::Latin => last = j,
                Word::Neutral => {}
            }
            j += 1;
        }
        let (mut a, b) = (words[k].0, words[last].1);
        a += s[a..b].len() - s[a..b].trim_start_matches('«').len();
        let b = trim_run_end(&s[..b], a);
        if a < b {
            escape_into(&s[done..a], out);
            out.push_str("<bdi dir=\"ltr\">");
            escape_into(&s[a..b], out);
            out.push_str("</bdi>");
            done = b;
        }
        k = last + 1;
    }
    escape_into(&s[done..], out);
}

/// The end of a Latin run starting at `a` in `s`, without the punctuation that closes the
/// Arabic sentence around it or a bracket it did not open.
pub(super) fn trim_run_end(s: &str, a: usize) -> usize {
    let mut b = s.len();
    loop {
        let run = &s[a..b];
        let Some(c) = run.chars().last() else {
            return b;
        };
        let unopened = |open: char, close: char| {
            c == close && run.matches(close).count() > run.matches(open).count()
        };
        if run.chars().count() > 1
            && (matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | '،' | '؛' | '؟' | '»')
                || unopened('(', ')')
                || unopened('[', ']'))
        {
            b -= c.len_utf8();
        } else {
            return b;
        }
    }
}

pub(super) fn escape_into(s: &str, out: &mut String) {
    askzico_core::search::excerpt::escape_into(s, out);
}
