//! The Markdown dialects of site generators, rewritten to the CommonMark their pages show, before
//! `markdown::preprocess_with` reads it. What a reader of the published page never sees is not
//! evidence; what the generator shows in its place is.
//!
//! Every library: callout markers (`> [!note] Title`, GitHub's alerts and Obsidian's callouts)
//! leave their title, and MkDocs admonitions (`!!! note "Title"`, collapsible `???` and `???+`)
//! leave their title and their indented body, which would otherwise read as indented code.
//! `generator = "mdbook"`: the includes `extract::include` could not resolve and `{{#title …}}`
//! are left out (a code block holding nothing else goes whole), and so are the hidden `# `
//! lines of Rust listings; an escaped `\{{#…}}` shows without its backslash. `generator = "obsidian"` (Obsidian and Quartz):
//! `[[target|label]]` reads as its label, `[[target#heading]]` as `target > heading`,
//! `![[embeds]]` and `%%comments%%` go, Dataview fields (`key:: value` lines, inline
//! `[key:: value]` and `(key:: value)`) become the document's metadata, and query blocks
//! (`dataview`, `dataviewjs`, `query`, `tasks`) go. Code spans and fenced code are otherwise
//! never touched.

use std::borrow::Cow;

/// The generator whose Markdown dialect a library's pages are written in (`[[library]]
/// generator`). The dialects every generator shares are read in every library.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Generator {
    #[default]
    Plain,
    Mdbook,
    /// Obsidian vaults and the Quartz sites published from them.
    #[serde(alias = "quartz")]
    Obsidian,
    /// Docusaurus: its Markdown is the shared dialect; its front matter `id` names a document
    /// within its folder, and `slug` sets its URL (`compile`).
    Docusaurus,
}

/// A page's Markdown as its generator shows it, and the Dataview fields it held (in order).
pub(super) struct Rewritten<'a> {
    pub text: Cow<'a, str>,
    pub fields: Vec<(String, String)>,
}

/// An open code fence: its character, length, the first word of its info string, and whether
/// its lines are kept.
struct Fence {
    c: char,
    n: usize,
    lang: String,
    lines: Vec<String>,
}

pub(super) fn rewrite(text: &str, generator: Generator) -> Rewritten<'_> {
    if !might_rewrite(text, generator) {
        return Rewritten {
            text: Cow::Borrowed(text),
            fields: Vec::new(),
        };
    }
    let mut out = String::with_capacity(text.len());
    let mut fields = Vec::new();
    let mut fence: Option<Fence> = None;
    // The body columns of the MkDocs admonitions the line is inside, innermost last.
    let mut admonitions: Vec<usize> = Vec::new();
    let mut comment = false;
    for raw in text.split_inclusive('\n') {
        let (line, closed) = dedent(raw, &mut admonitions, fence.is_some());
        let line = line.as_ref();
        if closed {
            // What follows an admonition is a paragraph of its own.
            out.push('\n');
        }
        let t = line.trim_start();
        let indent = line.len() - t.len();
        if let Some(f) = fence.as_mut() {
            let run = t.chars().take_while(|&x| x == f.c).count();
            if indent < 4 && run >= f.n && t[run * f.c.len_utf8()..].trim().is_empty() {
                let f = fence.take().expect("open fence");
                close_fence(&mut out, f, line, generator);
            } else {
                f.lines.push(line.to_string());
            }
            continue;
        }
        if indent < 4
            && !comment
            && let Some(c @ ('`' | '~')) = t.chars().next()
        {
            let run = t.chars().take_while(|&x| x == c).count();
            if run >= 3 {
                let info = t[run..].trim();
                let lang = info
                    .split(|ch: char| ch == ',' || ch.is_whitespace() || ch == '{')
                    .next()
                    .unwrap_or("")
                    .to_ascii_lowercase();
                fence = Some(Fence {
                    c,
                    n: run,
                    lang,
                    lines: vec![line.to_string()],
                });
                continue;
            }
        }
        if let Some(body) = admonition(t) {
            let base = admonitions.last().copied().unwrap_or(0);
            admonitions.push(base + leading_columns(line) + 4);
            if let Some(title) = body {
                out.push('\n');
                out.push_str(&line[..indent]);
                out.push_str(title);
                out.push_str("\n\n");
            } else {
                out.push('\n');
            }
            continue;
        }
        if is_toc_marker(line) {
            continue;
        }
        let line = callout(line);
        let line = match generator {
            Generator::Plain | Generator::Docusaurus => line,
            Generator::Mdbook => match mdbook_line(&line) {
                Some(l) => l,
                None => continue,
            },
            Generator::Obsidian => match obsidian_line(&line, &mut comment, &mut fields) {
                Some(l) => l,
                None => continue,
            },
        };
        out.push_str(&line);
    }
    if let Some(f) = fence {
        // An unclosed fence runs to the end of the page.
        close_fence(&mut out, f, "", generator);
    }
    Rewritten {
        text: Cow::Owned(out),
        fields,
    }
}

/// Whether `text` may hold anything `rewrite` changes: most pages hold none of it.
fn might_rewrite(text: &str, generator: Generator) -> bool {
    // Every page passes here: memchr's substring search, not `str::contains`, which scans
    // several times slower.
    let has = |p: &str| memchr::memmem::find(text.as_bytes(), p.as_bytes()).is_some();
    has("[!")
        || has("!!!")
        || has("???")
        || has("===")
        || has("[toc]")
        || has("[TOC]")
        || has("[[toc]]")
        || match generator {
            Generator::Plain | Generator::Docusaurus => false,
            Generator::Mdbook => has("{{#") || has("```rust"),
            Generator::Obsidian => has("[[") || has("::") || has("%%") || has("```") || has("~~~"),
        }
}

/// `raw` with the indentation of the admonitions it sits in taken off, and whether it closed
/// any: a less indented line leaves them. Blank lines and fenced code keep them open.
fn dedent<'a>(raw: &'a str, admonitions: &mut Vec<usize>, in_fence: bool) -> (Cow<'a, str>, bool) {
    if admonitions.is_empty() {
        return (Cow::Borrowed(raw), false);
    }
    if raw.trim().is_empty() {
        return (Cow::Borrowed("\n"), false);
    }
    let columns = leading_columns(raw);
    let open = admonitions.len();
    if !in_fence {
        while admonitions.last().is_some_and(|&body| columns < body) {
            admonitions.pop();
        }
    }
    let closed = admonitions.len() < open;
    match admonitions.last() {
        Some(&body) => (Cow::Owned(strip_columns(raw, body)), closed),
        None => (Cow::Borrowed(raw), closed),
    }
}

/// The columns of a line's leading whitespace, a tab to the next multiple of 4.
fn leading_columns(line: &str) -> usize {
    let mut col = 0;
    for c in line.chars() {
        match c {
            ' ' => col += 1,
            '\t' => col += 4 - col % 4,
            _ => break,
        }
    }
    col
}

/// `line` without its first `n` columns of leading whitespace (fewer when it has fewer).
fn strip_columns(line: &str, n: usize) -> String {
    let mut col = 0;
    for (i, c) in line.char_indices() {
        if col >= n {
            return line[i..].to_string();
        }
        match c {
            ' ' => col += 1,
            '\t' => {
                col += 4 - col % 4;
                if col > n {
                    return format!("{}{}", " ".repeat(col - n), &line[i + 1..]);
                }
            }
            _ => return line[i..].to_string(),
        }
    }
    String::new()
}

/// An MkDocs admonition's opening line (`!!! note "Title"`, `??? tip`, `???+ warning ""`):
/// `Some(Some(title))` when it shows a title, `Some(None)` when it does not (the type alone is
/// a word of the theme's language, not of the page), `None` for any other line.
fn admonition(t: &str) -> Option<Option<&str>> {
    if let Some(tab) = content_tab(t) {
        return Some(Some(tab));
    }
    let rest = t
        .strip_prefix("!!!")
        .or_else(|| t.strip_prefix("???+"))
        .or_else(|| t.strip_prefix("???"))?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let rest = rest.trim();
    let kind_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let kind = &rest[..kind_end];
    if kind.is_empty()
        || !kind
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    {
        return None;
    }
    let tail = rest[kind_end..].trim();
    let title = tail
        .strip_prefix('"')
        .and_then(|s| s.rfind('"').map(|e| s[..e].trim()))
        .filter(|s| !s.is_empty());
    Some(title)
}

/// A content tab's label (`=== "Title"`, `===+ "Title"`, `===! "Title"`; pymdownx.tabbed in
/// MkDocs Material), whose body is indented like an admonition's.
fn content_tab(t: &str) -> Option<&str> {
    let rest = t.strip_prefix("===")?;
    let rest = rest.strip_prefix(['+', '!']).unwrap_or(rest);
    let title = rest.strip_prefix([' ', '\t'])?.trim().strip_prefix('"')?;
    let title = title[..title.rfind('"')?].trim();
    Some(icon_free(title)).filter(|t| !t.is_empty())
}

/// The icon shortcodes of MkDocs Material (`:material-home:`, `:octicons-file-16:`,
/// `:fontawesome-brands-github:`, `:simple-python:`) left out: a reader sees an icon.
fn icon_free(s: &str) -> &str {
    let t = s.trim();
    let mut rest = t;
    loop {
        let Some(after) = rest.strip_prefix(':') else {
            return rest.trim();
        };
        let sets = ["material-", "octicons-", "fontawesome-", "simple-"];
        let Some(end) = after.find(':') else {
            return rest.trim();
        };
        let name = &after[..end];
        if !sets.iter().any(|p| name.starts_with(p))
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            return rest.trim();
        }
        rest = after[end + 1..].trim_start();
    }
}

/// A line that is only a table-of-contents marker (`[[toc]]`, `[TOC]`): the page shows its
/// headings there, which the page's own headings already are.
fn is_toc_marker(line: &str) -> bool {
    let t = line.trim();
    t.eq_ignore_ascii_case("[[toc]]") || t.eq_ignore_ascii_case("[toc]")
}

/// A blockquote line opening a callout (`> [!note] Title`, `> [!WARNING]`, `>> [!tip]- Title`)
/// keeps its quote markers and title only.
fn callout(line: &str) -> Cow<'_, str> {
    let t = line.trim_start();
    if !t.starts_with('>') || !t.contains("[!") {
        return Cow::Borrowed(line);
    }
    let quotes_end = t
        .char_indices()
        .find(|&(_, c)| c != '>' && c != ' ')
        .map_or(t.len(), |(i, _)| i);
    let rest = &t[quotes_end..];
    let Some(inner) = rest.strip_prefix("[!") else {
        return Cow::Borrowed(line);
    };
    let Some(close) = inner.find(']') else {
        return Cow::Borrowed(line);
    };
    let kind = &inner[..close];
    if kind.is_empty()
        || !kind
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    {
        return Cow::Borrowed(line);
    }
    let title = inner[close + 1..].trim_start_matches(['+', '-']).trim();
    let indent = &line[..line.len() - t.len()];
    let quotes = t[..quotes_end].trim_end();
    let mut out = format!("{indent}{quotes}");
    if !title.is_empty() {
        // The title is a line of its own above the callout's content.
        out.push_str(&format!(" {title}\n{indent}{quotes}"));
    }
    out.push('\n');
    Cow::Owned(out)
}

/// The mdBook directives that stand for other files' text or set the page's `<title>`.
const MDBOOK_DIRECTIVES: [&str; 4] = [
    "{{#include",
    "{{#rustdoc_include",
    "{{#playground",
    "{{#title",
];

/// A prose line of an mdBook page without its directives; `None` for a line that held only
/// directives.
fn mdbook_line(line: &str) -> Option<Cow<'_, str>> {
    if !line.contains("{{#") {
        return Some(Cow::Borrowed(line));
    }
    let out = outside_code_spans(line, |seg| {
        let mut s = String::with_capacity(seg.len());
        let mut rest = seg;
        while let Some(at) = MDBOOK_DIRECTIVES.iter().filter_map(|d| rest.find(d)).min() {
            let Some(end) = rest[at..].find("}}") else {
                break;
            };
            if let Some(before) = rest[..at].strip_suffix('\\') {
                // mdBook's escape: the directive shows as written.
                s.push_str(before);
                s.push_str(&rest[at..at + end + 2]);
            } else {
                s.push_str(&rest[..at]);
            }
            rest = &rest[at + end + 2..];
        }
        s.push_str(rest);
        s
    });
    if out.trim().is_empty() && !line.trim().is_empty() {
        return None;
    }
    Some(Cow::Owned(out))
}

/// Whether a line of code is an mdBook directive and nothing else.
fn is_mdbook_directive(line: &str) -> bool {
    let t = line.trim();
    MDBOOK_DIRECTIVES.iter().any(|d| t.starts_with(d)) && t.ends_with("}}")
}

/// A line of code without the backslash of an escaped directive (`\{{#include f}}`).
fn unescape_directive(line: &str) -> &str {
    let t = line.trim_start();
    match t.strip_prefix('\\') {
        Some(rest) if MDBOOK_DIRECTIVES.iter().any(|d| rest.starts_with(d)) => {
            // Only a line that starts with it: its indent goes too, rare enough in a listing.
            &line[line.len() - rest.len()..]
        }
        _ => line,
    }
}

/// Whether a line of a Rust listing is one mdBook hides (`# use std::io;`, a lone `#`).
fn is_hidden_rust_line(line: &str) -> bool {
    let t = line.trim_start();
    let t = t.trim_end_matches(['\n', '\r']);
    t == "#" || t.starts_with("# ")
}

/// Writes a closed code fence (`closing` its last line) as the page shows it.
fn close_fence(out: &mut String, f: Fence, closing: &str, generator: Generator) {
    let body = &f.lines[1..];
    match generator {
        Generator::Plain | Generator::Docusaurus => {}
        Generator::Mdbook => {
            let rust = f.lang == "rust";
            let kept: Vec<&str> = body
                .iter()
                .filter(|l| !(is_mdbook_directive(l) || rust && is_hidden_rust_line(l)))
                .map(|l| unescape_directive(l))
                .collect();
            if kept.iter().all(|l| l.trim().is_empty()) {
                return;
            }
            out.push_str(&f.lines[0]);
            kept.into_iter().for_each(|l| out.push_str(l));
            out.push_str(closing);
            return;
        }
        Generator::Obsidian => {
            if matches!(
                f.lang.as_str(),
                "dataview" | "dataviewjs" | "query" | "tasks"
            ) {
                return;
            }
        }
    }
    f.lines.iter().for_each(|l| out.push_str(l));
    out.push_str(closing);
}

/// A prose line of an Obsidian note as its reading view shows it; `None` for a line that held
/// only Dataview fields or a comment. `comment`: inside a `%%` comment that spans lines.
fn obsidian_line<'a>(
    line: &'a str,
    comment: &mut bool,
    fields: &mut Vec<(String, String)>,
) -> Option<Cow<'a, str>> {
    let mut line: Cow<str> = Cow::Borrowed(line);
    if *comment || line.contains("%%") {
        let (kept, open) = strip_comments(&line, *comment);
        *comment = open;
        if kept.trim().is_empty() {
            return None;
        }
        line = Cow::Owned(kept);
    }
    if let Some((key, value)) = dataview_line(&line) {
        fields.push((key, value));
        return None;
    }
    if !line.contains("[[") && !line.contains("::") {
        return Some(line);
    }
    let out = outside_code_spans(&line, |seg| inline_fields(seg, fields));
    let out = wikilinks(&out);
    if out.trim().is_empty() && !line.trim().is_empty() {
        return None;
    }
    Some(Cow::Owned(out))
}

/// `line` without its `%%…%%` comments, and whether a comment is still open at its end
/// (`open` whether one was at its start).
fn strip_comments(line: &str, mut open: bool) -> (String, bool) {
    let mut out = String::new();
    let mut rest = line;
    loop {
        match rest.find("%%") {
            Some(at) => {
                if !open {
                    out.push_str(&rest[..at]);
                }
                open = !open;
                rest = &rest[at + 2..];
            }
            None => {
                if !open {
                    out.push_str(rest);
                } else if rest.ends_with('\n') {
                    out.push('\n');
                }
                return (out, open);
            }
        }
    }
}

/// A line that is one Dataview field (`key:: value`, also as a list item): its key and value.
fn dataview_line(line: &str) -> Option<(String, String)> {
    let t = line.trim();
    let t = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .or_else(|| t.strip_prefix("+ "))
        .unwrap_or(t)
        .trim_start();
    let (key, value) = t.split_once("::")?;
    let key = key.trim();
    let valid = !key.is_empty()
        && key.chars().count() <= 64
        && !key.starts_with(['[', '(', '`', '#', '>'])
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '*'));
    if !valid || !(value.is_empty() || value.starts_with([' ', '\t'])) {
        return None;
    }
    Some((
        key.trim_matches('*').trim().to_string(),
        value.trim().to_string(),
    ))
}

/// `seg` without its inline Dataview fields (`[key:: value]`, `(key:: value)`), which go to
/// `fields`.
fn inline_fields(seg: &str, fields: &mut Vec<(String, String)>) -> String {
    if !seg.contains("::") {
        return seg.to_string();
    }
    let mut out = String::with_capacity(seg.len());
    let mut rest = seg;
    while let Some(open) = rest.find(['[', '(']) {
        let close_char = if rest[open..].starts_with('[') {
            ']'
        } else {
            ')'
        };
        let inner_start = open + 1;
        let parsed = rest[inner_start..].find(close_char).and_then(|len| {
            let inner = &rest[inner_start..inner_start + len];
            let (k, v) = inner.split_once("::")?;
            let k = k.trim();
            (!k.is_empty() && !k.contains(['[', ']', '(', ')']) && !inner.starts_with('['))
                .then(|| (k.to_string(), v.trim().to_string(), inner_start + len + 1))
        });
        match parsed {
            Some((k, v, end)) => {
                out.push_str(rest[..open].trim_end_matches(' '));
                fields.push((k, v));
                rest = &rest[end..];
            }
            None => {
                out.push_str(&rest[..inner_start]);
                rest = &rest[inner_start..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `line` with its wikilinks as their reading view shows them and its embeds left out. A
/// `[[` inside a code span is code; a link's label may hold one (`[[note#x|`x`]]`).
fn wikilinks(line: &str) -> String {
    let spans = code_spans(line);
    let in_code = |at: usize| spans.iter().any(|&(s, e)| s <= at && at < e);
    let mut out = String::with_capacity(line.len());
    let mut done = 0;
    let mut from = 0;
    while let Some(k) = line[from..].find("[[") {
        let at = from + k;
        if in_code(at) {
            from = at + 2;
            continue;
        }
        let Some(len) = line[at + 2..].find("]]") else {
            break;
        };
        let inner = &line[at + 2..at + 2 + len];
        let embed = line[..at].ends_with('!') && !in_code(at - 1);
        out.push_str(&line[done..if embed { at - 1 } else { at }]);
        if !embed {
            out.push_str(&link_text(inner));
        }
        done = at + 2 + len + 2;
        from = done;
    }
    out.push_str(&line[done..]);
    out
}

/// What a wikilink shows: its label, else its target without `.md` (`note > heading` for a
/// link to a heading; a block reference shows its note alone).
fn link_text(inner: &str) -> String {
    if let Some((_, label)) = inner.split_once('|') {
        return label.trim().to_string();
    }
    let (target, sub) = match inner.split_once('#') {
        Some((t, s)) => (t.trim(), s.trim()),
        None => (inner.trim(), ""),
    };
    let target = target.strip_suffix(".md").unwrap_or(target);
    let sub = if sub.starts_with('^') { "" } else { sub };
    match (target.is_empty(), sub.is_empty()) {
        (true, _) => sub.to_string(),
        (false, true) => target.to_string(),
        (false, false) => format!("{target} > {sub}"),
    }
}

/// `line` with `f` applied to the parts outside its code spans; the code spans are kept as
/// written.
fn outside_code_spans(line: &str, mut f: impl FnMut(&str) -> String) -> String {
    let mut out = String::with_capacity(line.len());
    let mut prose_start = 0;
    for (s, e) in code_spans(line) {
        out.push_str(&f(&line[prose_start..s]));
        out.push_str(&line[s..e]);
        prose_start = e;
    }
    out.push_str(&f(&line[prose_start..]));
    out
}

/// The byte ranges of a line's code spans: backtick runs closed by a run of the same length.
fn code_spans(line: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        let ticks = &line[i..i + run];
        let mut j = i + run;
        let mut close = None;
        while let Some(k) = line[j..].find(ticks) {
            let at = j + k;
            let len = bytes[at..].iter().take_while(|&&b| b == b'`').count();
            if len == run {
                close = Some(at + run);
                break;
            }
            j = at + len;
        }
        match close {
            Some(end) => {
                spans.push((i, end));
                i = end;
            }
            None => i += run,
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(s: &str) -> String {
        rewrite(s, Generator::Plain).text.into_owned()
    }

    #[test]
    fn callouts_keep_their_quote_and_title() {
        assert_eq!(plain("> [!NOTE]\n> نص\n"), ">\n> نص\n");
        assert_eq!(plain("> [!tip]- عنوان\n> نص\n"), "> عنوان\n>\n> نص\n");
        assert_eq!(plain(">> [!warning] W\n"), ">> W\n>>\n");
        // Not a callout: a link's text in brackets, a quote without a marker.
        assert_eq!(plain("> [!] x\n"), "> [!] x\n");
        assert_eq!(plain("> see [link](u)\n"), "> see [link](u)\n");
    }

    #[test]
    fn admonitions_keep_title_and_body_unindented() {
        let md = "قبل\n\n!!! note \"عنوان\"\n    سطر أول\n\n    سطر ثان\n\nبعد\n";
        assert_eq!(plain(md), "قبل\n\n\nعنوان\n\nسطر أول\n\nسطر ثان\n\n\nبعد\n");
        // No title: the type is not shown; a collapsible one reads the same.
        assert_eq!(plain("??? tip\n    نص\n"), "\nنص\n");
        assert_eq!(plain("???+ tip \"\"\n    نص\n"), "\nنص\n");
        // Nested, with code inside.
        let md = "!!! note\n    أ\n    !!! warning \"ب\"\n        ج\n        ```py\n        x = 1\n\n        y\n        ```\n    د\nهـ\n";
        assert_eq!(
            plain(md),
            "\nأ\n\nب\n\nج\n```py\nx = 1\n\ny\n```\n\nد\n\nهـ\n"
        );
        // A content tab: its label without icons, its body unindented.
        assert_eq!(
            plain("=== \":octicons-file-code-16: `mkdocs.yml`\"\n\n    نص\n"),
            "\n`mkdocs.yml`\n\n\nنص\n"
        );
        assert_eq!(plain("[[toc]]\nنص\n"), "نص\n");
        // Not admonitions.
        assert_eq!(plain("!!!مهم\n"), "!!!مهم\n");
        assert_eq!(
            plain("```\n!!! note\n    x\n```\n"),
            "```\n!!! note\n    x\n```\n"
        );
    }

    fn book(s: &str) -> String {
        rewrite(s, Generator::Mdbook).text.into_owned()
    }

    #[test]
    fn mdbook_directives_and_hidden_lines_go() {
        assert_eq!(
            book("قبل\n\n```rust\n{{#include ../listings/main.rs:here}}\n```\n\nبعد\n"),
            "قبل\n\n\nبعد\n"
        );
        assert_eq!(
            book("```rust,editable\n# use std::io;\n#[derive(Debug)]\nfn main() {}\n#\n```\n"),
            "```rust,editable\n#[derive(Debug)]\nfn main() {}\n```\n"
        );
        // Hidden lines are Rust's only.
        assert_eq!(
            book("```sh\n# comment\nls\n```\n"),
            "```sh\n# comment\nls\n```\n"
        );
        assert_eq!(
            book("{{#title عنوان}}\nنص {{#include a.md}} هنا\n"),
            "نص  هنا\n"
        );
        // A code span keeps what it shows; an escaped directive shows as written.
        assert_eq!(book("اكتب `{{#include f}}`\n"), "اكتب `{{#include f}}`\n");
        assert_eq!(book("اكتب \\{{#include f}}\n"), "اكتب {{#include f}}\n");
        assert_eq!(
            book("```hbs\n\\{{#include file.rs}}\n```\n"),
            "```hbs\n{{#include file.rs}}\n```\n"
        );
        // Other libraries keep the text as written.
        assert_eq!(plain("{{#include a.rs}}\n"), "{{#include a.rs}}\n");
    }

    fn vault(s: &str) -> (String, Vec<(String, String)>) {
        let r = rewrite(s, Generator::Obsidian);
        (r.text.into_owned(), r.fields)
    }

    #[test]
    fn obsidian_links_embeds_fields_and_comments() {
        let (t, f) = vault(
            "status:: draft\n- المؤلف:: أحمد\nانظر [[ملاحظة|الملاحظة]] و[[أخرى#قسم]] و[[ثالثة.md]] ![[صورة.png]]\nنص [rating:: 5] (hidden:: x) تم\n%% سر %%ظاهر\n%%\nسطر مخفي\n%%\n`[[code]]`\n",
        );
        assert_eq!(
            t,
            "انظر الملاحظة وأخرى > قسم وثالثة \nنص تم\nظاهر\n`[[code]]`\n"
        );
        let keys: Vec<&str> = f.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["status", "المؤلف", "rating", "hidden"]);
        assert_eq!(f[1].1, "أحمد");
        // A label may hold a code span; a link in a code span is code.
        let (t, _) = vault("عبر [[Functions#hasTag|`hasTag`]] و[[#`move`|move]] و`[[x]]`\n");
        assert_eq!(t, "عبر `hasTag` وmove و`[[x]]`\n");
        // Query blocks go; other code stays, links in it untouched.
        let (t, _) = vault("```dataview\nLIST FROM #x\n```\n```\n[[a]]\n```\n");
        assert_eq!(t, "```\n[[a]]\n```\n");
        // A time, a URL and a C++ scope are not fields.
        let (t, f) = vault("الساعة 10:30 و std::vector و http://x\n");
        assert_eq!(t, "الساعة 10:30 و std::vector و http://x\n");
        assert!(f.is_empty());
    }
}
