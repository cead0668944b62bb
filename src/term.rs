//! Terminal safety: every string that comes from a source, from KV or Vectorize, or from an
//! API answer passes through here before it is printed, so that a title or a stored value
//! holding ESC, OSC or other control characters cannot clear the screen, retitle the window
//! or hide output. A control character is shown as `\u{…}`, as Rust's debug format would,
//! and so is a bidirectional embedding, override or isolate (U+202A–U+202E, U+2066–U+2069):
//! on a terminal that lays out right-to-left text, one left open in a title reverses the rest
//! of the line (the "Trojan Source" trick). Everything else (Arabic, marks, and RLM, LRM and
//! ALM, which only set the direction of what is next to them) is kept as it is. Counts printed
//! with their noun agree in number ([`count`]).

use std::borrow::Cow;
use std::fmt::Write;

/// `s` with every control character but newline and tab, and every bidirectional control,
/// shown as `\u{…}`: for text printed over several lines (an excerpt, a page's body).
pub(crate) fn text(s: &str) -> Cow<'_, str> {
    escape(s, |c| c == '\n' || c == '\t')
}

/// `s` with every control character, newlines included, and every bidirectional control
/// shown as `\u{…}`: for a value printed on one line (a title, a key, an API's message).
pub(crate) fn line(s: &str) -> Cow<'_, str> {
    escape(s, |_| false)
}

/// `n` with the noun it counts, singular for one and plural otherwise: `1 file`, `0 files`,
/// `2 libraries`.
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn escape(s: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    let unsafe_char = |c: char| (c.is_control() || is_bidi_control(c)) && !keep(c);
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) {
            // Writing to a String cannot fail.
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The explicit bidirectional formatting characters that open or close a run: embeddings
/// and overrides (LRE, RLE, PDF, LRO, RLO) and isolates (LRI, RLI, FSI, PDI).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_shown_not_sent() {
        assert_eq!(line("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(line("\u{1b}]0;title\u{7}"), "\\u{1b}]0;title\\u{7}");
        assert_eq!(line("c1\u{9b}x"), "c1\\u{9b}x");
        assert_eq!(line("one\ntwo"), "one\\u{a}two");
        assert_eq!(text("one\ntwo\tthree\r"), "one\ntwo\tthree\\u{d}");
    }

    #[test]
    fn counts_agree_with_their_noun() {
        assert_eq!(count(1, "library", "libraries"), "1 library");
        assert_eq!(count(0, "file", "files"), "0 files");
        assert_eq!(count(11, "warning", "warnings"), "11 warnings");
    }

    #[test]
    fn bidirectional_overrides_and_isolates_are_shown_not_applied() {
        assert_eq!(line("\u{202e}الموقع"), "\\u{202e}الموقع");
        assert_eq!(
            text("a\u{2067}b\u{2069}\nc\u{202b}d\u{202c}"),
            "a\\u{2067}b\\u{2069}\nc\\u{202b}d\\u{202c}"
        );
    }

    #[test]
    fn arabic_and_directional_marks_are_kept() {
        let s = "أين \u{200f}الكتاب\u{200e}؟\u{61c}";
        assert!(matches!(line(s), Cow::Borrowed(_)));
        assert_eq!(line(s), s);
    }
}
