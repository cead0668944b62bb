//! The JSX the fast path accepts, on one line: tags in a conservative subset of the syntax and
//! `{…}` expressions closed on their line.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum TagKind {
    Open,
    Close,
    SelfClosing,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct JsxTag<'a> {
    pub(super) name: &'a str,
    pub(super) kind: TagKind,
    /// It has a string `label` or `title` attribute, which the walker renders as text: the fast
    /// path, which drops tags, declines such a tag.
    pub(super) labelled: bool,
}

/// A JSX tag at the start of `s`, on one line, in a conservative subset of the syntax (plain
/// names; string, expression and boolean attributes separated by spaces): its length and shape.
pub(super) fn jsx_tag(s: &str) -> Option<(usize, JsxTag<'_>)> {
    let b = s.as_bytes();
    let mut i = 1;
    let closing = b.get(i) == Some(&b'/');
    if closing {
        i += 1;
    }
    let name_start = i;
    if !b.get(i)?.is_ascii_alphabetic() {
        return None;
    }
    while b
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-'))
    {
        i += 1;
    }
    let name = &s[name_start..i];
    if closing {
        return (b.get(i) == Some(&b'>')).then_some((
            i + 1,
            JsxTag {
                name,
                kind: TagKind::Close,
                labelled: false,
            },
        ));
    }
    let mut labelled = false;
    loop {
        let spaced = b.get(i) == Some(&b' ');
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        match b.get(i)? {
            b'>' => {
                return Some((
                    i + 1,
                    JsxTag {
                        name,
                        kind: TagKind::Open,
                        labelled,
                    },
                ));
            }
            b'/' => {
                return (b.get(i + 1) == Some(&b'>')).then_some((
                    i + 2,
                    JsxTag {
                        name,
                        kind: TagKind::SelfClosing,
                        labelled,
                    },
                ));
            }
            c if spaced && (c.is_ascii_alphabetic() || *c == b'_') => {
                let attr_start = i;
                while b
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-'))
                {
                    i += 1;
                }
                if b.get(i) == Some(&b'=') {
                    i += 1;
                    match b.get(i)? {
                        q @ (b'"' | b'\'') => {
                            labelled |=
                                crate::extract::mdx::is_label_attribute(&s[attr_start..i - 1]);
                            let end = s[i + 1..].find(*q as char)?;
                            i += end + 2;
                        }
                        b'{' => i += expression(&s[i..])?,
                        _ => return None,
                    }
                }
            }
            _ => return None,
        }
    }
}

/// A `{…}` expression at the start of `s`, closed on the same line (braces counted, as
/// markdown-rs does without an expression parser): its length.
pub(super) fn expression(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.bytes().enumerate() {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'\n' => return None,
            _ => {}
        }
    }
    None
}
