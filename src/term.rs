//! Terminal safety: every string that comes from a source, from KV or Vectorize, or from an
//! API answer passes through here before it is printed, so that a title or a stored value
//! holding ESC, OSC or other control characters cannot clear the screen, retitle the window
//! or hide output. A control character is shown as `\u{…}`, as Rust's debug format would,
//! and everything else (Arabic, marks, RLM/LRM) is kept as it is. Counts printed with their
//! noun agree in number ([`count`]).

use std::borrow::Cow;
use std::fmt::Write;

/// `s` with every control character but newline and tab shown as `\u{…}`: for text printed
/// over several lines (an excerpt, a page's body).
pub(crate) fn text(s: &str) -> Cow<'_, str> {
    escape(s, |c| c == '\n' || c == '\t')
}

/// `s` with every control character, newlines included, shown as `\u{…}`: for a value
/// printed on one line (a title, a key, an API's message).
pub(crate) fn line(s: &str) -> Cow<'_, str> {
    escape(s, |_| false)
}

/// `n` with the noun it counts, singular for one and plural otherwise: `1 file`, `0 files`,
/// `2 libraries`.
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn escape(s: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && !keep(c);
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
    fn arabic_and_directional_marks_are_kept() {
        let s = "أين \u{200f}الكتاب\u{200e}؟";
        assert!(matches!(line(s), Cow::Borrowed(_)));
        assert_eq!(line(s), s);
    }
}
