//! The MDX fast path: pulldown-cmark (hundreds of MB/s) instead of markdown-rs (about 10 MB/s)
//! for MDX documents that use only the MDX syntax whose effect on the evidence text is known
//! exactly. The result is the mdast tree markdown-rs would give, less the nodes the MDX walker
//! drops anyway, so `mdx::Walker` renders both the same; a document this path cannot reproduce
//! exactly is declined (`None`) and goes through markdown-rs.
//!
//! How: a line scanner (`prepare`) rewrites the MDX-only syntax into CommonMark that parses to the
//! same blocks: ESM lines and lines holding only JSX tags and `{expressions}` become thematic
//! breaks `***` (a block boundary the walker ignores, as it ignores ESM, expressions and the tags
//! of unwrapped components); inline tags and expressions are cut out of their line. Then
//! pulldown-cmark parses the result and `build` turns its events into mdast nodes. Both steps
//! decline anything where MDX and CommonMark may read the same bytes differently:
//! - HTML and autolinks (MDX has none: `<` is JSX or an error), indented code (MDX has none, and
//!   lets every other block start at any indentation), setext headings (markdown-rs panics on
//!   some), strikethrough (`~`), tabs in indentation, multi-line tags and expressions, JSX inside
//!   containers, `<script>`-like components the walker hides, unbalanced tags;
//! - a cut that could change the Markdown around it: next to a delimiter (`*`, `_`, `[`, `\`,
//!   `&`, …), inside brackets or a table row, or leaving whitespace at a line's edge (a soft break
//!   would then differ);
//! - any disagreement between the scanner and pulldown-cmark on where code is: every fenced block
//!   must start where the scanner saw its fence, no cut may fall inside code, every `<`/`{` the
//!   scanner left as code must be code, and every `***` the scanner wrote must parse as a break.

use markdown::mdast::{self, Node};
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// The mdast tree of an MDX document (frontmatter already split off), when the fast path
/// reproduces markdown-rs exactly for it; `None` when the document must go through markdown-rs.
pub(super) fn to_mdast(text: &str) -> Option<Node> {
    let prepared = prepare(text)?;
    build(&prepared)
}

/// CommonMark rewritten from MDX, with what `build` must check against pulldown-cmark's parse.
#[derive(Debug, Default)]
struct Prepared {
    text: String,
    /// Offsets in `text` where an inline tag or expression was cut out (never inside code).
    cuts: Vec<usize>,
    /// Offsets in `text` of the `***` lines written for ESM and JSX/expression-only lines.
    markers: Vec<usize>,
    /// Fenced code blocks: where each opens (its first fence character) and ends (after its
    /// closing fence line).
    fences: Vec<(usize, usize)>,
    /// Offsets of `<` and `{` the scanner left alone as code.
    kept: Vec<usize>,
}

const MARKER: &str = "***\n";

/// JSX elements whose content the walker hides: the fast path leaves such files to markdown-rs.
fn is_hidden(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "script" | "style" | "template" | "iframe" | "noscript" | "svg" | "object" | "embed"
    )
}

fn prepare(src: &str) -> Option<Prepared> {
    let mut p = Prepared {
        text: String::with_capacity(src.len()),
        ..Prepared::default()
    };
    // An open fence: its character, length and indentation.
    let mut fence: Option<(u8, usize, usize)> = None;
    let mut esm = false;
    let mut prev_blank = true;
    let mut prev_line = "";
    let mut prev_prev_blank = true;
    let mut flow_stack: Vec<&str> = Vec::new();
    for line in src.split_inclusive('\n') {
        let content = line.strip_suffix('\n').unwrap_or(line);
        let prev = std::mem::replace(&mut prev_line, content);
        let before_prev = std::mem::replace(&mut prev_prev_blank, prev_blank);
        let blank = content.bytes().all(|b| b == b' ' || b == b'\t');
        if esm {
            // ESM runs to the first blank line (the parse hook accepts every line).
            if blank {
                esm = false;
                p.text.push_str(line);
            } else {
                p.markers.push(p.text.len());
                p.text.push_str(MARKER);
            }
            prev_blank = blank;
            continue;
        }
        let trimmed = content.trim_start_matches(' ');
        let indent = content.len() - trimmed.len();
        if let Some((c, n, fence_indent)) = fence {
            if fence_indent > 0
                && content[..content.len() - content.trim_start().len()].contains('\t')
            {
                return None; // the fence's indentation is removed from tabs differently
            }
            let run = trimmed.bytes().take_while(|&b| b == c).count();
            let closes = run >= n && trimmed[run..].bytes().all(|b| b == b' ' || b == b'\t');
            if closes && indent < 4 && !trimmed.starts_with('\t') {
                fence = None;
                keep_code(&mut p, line);
                if let Some(last) = p.fences.last_mut() {
                    last.1 = p.text.len();
                }
                prev_blank = false;
                continue;
            } else if closes || (run >= n && trimmed.starts_with('\t')) {
                // MDX closes fences at any indentation, CommonMark only below 4 spaces.
                return None;
            }
            keep_code(&mut p, line);
            prev_blank = blank;
            continue;
        }
        if blank {
            p.text.push_str(line);
            prev_blank = true;
            continue;
        }
        if trimmed.starts_with('\t') {
            return None;
        }
        if is_delimiter_row(trimmed) && !before_prev {
            // markdown-rs lets a table interrupt a paragraph, pulldown-cmark does not.
            return None;
        }
        if !prev_blank && interrupt_sensitive(trimmed, prev) {
            // markdown-rs and CommonMark disagree on whether such a line may interrupt the
            // block above after a component line or a container's end.
            return None;
        }
        let first = trimmed.as_bytes()[0];
        if indent >= 4 {
            // MDX starts blocks at any indentation; CommonMark reads such a line as code or as
            // paragraph text. Only a line starting with a letter means the same in both.
            if first.is_ascii() && !first.is_ascii_alphabetic() {
                return None;
            }
        } else if let Some((c, n)) = fence_open(trimmed) {
            fence = Some((c, n, indent));
            p.fences.push((p.text.len() + indent, usize::MAX));
            keep_code(&mut p, line);
            prev_blank = false;
            continue;
        }
        if indent == 0 && (trimmed.starts_with("import ") || trimmed.starts_with("export ")) {
            if !prev_blank {
                // Whether it is ESM depends on the block above (ESM cannot interrupt a paragraph).
                return None;
            }
            esm = true;
            p.markers.push(p.text.len());
            p.text.push_str(MARKER);
            prev_blank = false;
            continue;
        }
        if matches!(first, b'<' | b'{')
            && let Some(items) = flow_items(trimmed)
        {
            if indent > 0 {
                // A component indented into a list item: its blocks would nest differently.
                return None;
            }
            for item in items {
                match item {
                    Item::Tag(t) => flow_tag(&mut flow_stack, t)?,
                    Item::Expr => {}
                }
            }
            p.markers.push(p.text.len());
            p.text.push_str(MARKER);
            prev_blank = false;
            continue;
        }
        inline_line(&mut p, content, indent)?;
        if line.ends_with('\n') {
            p.text.push('\n');
        }
        prev_blank = false;
    }
    if !flow_stack.is_empty() || fence.is_some() {
        return None; // markdown-rs reports the unclosed component; unclosed fences vary
    }
    Some(p)
}

/// A list item line whose start depends on whether it interrupts the block above (a blank item,
/// or an ordered item not numbered 1, unless it follows a sibling ordered item), or a quote or
/// list item whose first line holds one.
fn interrupt_sensitive(trimmed: &str, prev: &str) -> bool {
    if starts_sensitive_item(trimmed, prev) {
        return true;
    }
    match container_rest(trimmed) {
        Some(rest) => interrupt_sensitive(rest.trim_start_matches([' ', '\t']), ""),
        None => false,
    }
}

fn starts_sensitive_item(t: &str, prev: &str) -> bool {
    let b = t.as_bytes();
    let blank_after = |n: usize| t[n..].trim_matches([' ', '\t']).is_empty();
    if matches!(b.first(), Some(b'-' | b'*' | b'+'))
        && b.get(1).is_none_or(|c| *c == b' ' || *c == b'\t')
    {
        return blank_after(1);
    }
    let digits = ordered_marker(t);
    if digits == 0 {
        return false;
    }
    if blank_after(digits + 1) {
        return true;
    }
    let sibling = ordered_marker(prev.trim_start_matches(' ')) > 0;
    &t[..digits] != "1" && !sibling
}

/// The digits of an ordered list marker (`12.` or `3)` followed by a space or the line's end)
/// at the start of `t`, or 0.
fn ordered_marker(t: &str) -> usize {
    let b = t.as_bytes();
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let ok = digits > 0
        && matches!(b.get(digits), Some(b'.' | b')'))
        && b.get(digits + 1).is_none_or(|c| *c == b' ' || *c == b'\t');
    if ok { digits } else { 0 }
}

/// The rest of a line after a block quote marker or a list item marker with content.
fn container_rest(t: &str) -> Option<&str> {
    let b = t.as_bytes();
    let marker = match b.first()? {
        b'>' => return Some(&t[1..]),
        b'-' | b'*' | b'+' => 1,
        _ => match ordered_marker(t) {
            0 => return None,
            digits => digits + 1,
        },
    };
    let rest = t.get(marker..)?;
    (rest.starts_with([' ', '\t']) && !rest.trim().is_empty()).then_some(rest)
}

/// A possible table delimiter row (`|---|:--:|`, `--- | ---`).
fn is_delimiter_row(line: &str) -> bool {
    line.contains('|')
        && line.contains('-')
        && line
            .bytes()
            .all(|b| matches!(b, b'|' | b'-' | b':' | b' ' | b'\t'))
}

/// A fenced-code opening line (`trimmed` has no leading spaces): the fence character and length.
fn fence_open(trimmed: &str) -> Option<(u8, usize)> {
    let c = *trimmed.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let run = trimmed.bytes().take_while(|&b| b == c).count();
    if run < 3 || (c == b'`' && trimmed[run..].contains('`')) {
        return None;
    }
    Some((c, run))
}

fn keep_code(p: &mut Prepared, line: &str) {
    let base = p.text.len();
    p.kept.extend(
        line.bytes()
            .enumerate()
            .filter(|(_, b)| matches!(b, b'<' | b'{'))
            .map(|(i, _)| base + i),
    );
    p.text.push_str(line);
}

fn flow_tag<'a>(stack: &mut Vec<&'a str>, t: JsxTag<'a>) -> Option<()> {
    if is_hidden(t.name) {
        return None;
    }
    match t.kind {
        TagKind::Open => stack.push(t.name),
        TagKind::Close => {
            if stack.pop()? != t.name {
                return None;
            }
        }
        TagKind::SelfClosing => {}
    }
    Some(())
}

enum Item<'a> {
    Tag(JsxTag<'a>),
    Expr,
}

/// A line of only JSX tags and expressions (MDX "flow" JSX/expressions): its items, in order.
/// As in markdown-rs, an expression may follow a tag but not another expression.
fn flow_items(line: &str) -> Option<Vec<Item<'_>>> {
    let mut items = Vec::new();
    let mut rest = line;
    let mut after_expr = false;
    loop {
        rest = rest.trim_start_matches([' ', '\t']);
        if rest.is_empty() {
            break;
        }
        if rest.starts_with('<') {
            let (len, tag) = jsx_tag(rest)?;
            items.push(Item::Tag(tag));
            rest = &rest[len..];
            after_expr = false;
        } else if rest.starts_with('{') && !after_expr {
            let len = expression(rest)?;
            items.push(Item::Expr);
            rest = &rest[len..];
            after_expr = true;
        } else {
            return None;
        }
    }
    (!items.is_empty()).then_some(items)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum TagKind {
    Open,
    Close,
    SelfClosing,
}

#[derive(Clone, Copy, Debug)]
struct JsxTag<'a> {
    name: &'a str,
    kind: TagKind,
}

/// A JSX tag at the start of `s`, on one line, in a conservative subset of the syntax (plain
/// names; string, expression and boolean attributes separated by spaces): its length and shape.
fn jsx_tag(s: &str) -> Option<(usize, JsxTag<'_>)> {
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
            },
        ));
    }
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
                    },
                ));
            }
            b'/' => {
                return (b.get(i + 1) == Some(&b'>')).then_some((
                    i + 2,
                    JsxTag {
                        name,
                        kind: TagKind::SelfClosing,
                    },
                ));
            }
            c if spaced && (c.is_ascii_alphabetic() || *c == b'_') => {
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
fn expression(s: &str) -> Option<usize> {
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

/// Copies a text line into `p.text`, cutting out inline JSX tags and expressions; declines a line
/// where a cut could change what CommonMark makes of the rest.
fn inline_line(p: &mut Prepared, line: &str, indent: usize) -> Option<()> {
    let b = line.as_bytes();
    let start = p.text.len();
    let mut cuts = Vec::new();
    let mut stack: Vec<&str> = Vec::new();
    let mut brackets = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if b.get(i + 1).is_some_and(u8::is_ascii_punctuation) => {
                let delimiter = |c: Option<&u8>| matches!(c, Some(b'*' | b'_'));
                if delimiter(b.get(i + 1))
                    && (delimiter(b.get(i + 2)) || i > 0 && delimiter(b.get(i - 1)))
                {
                    return None; // an escaped delimiter next to a run: the parsers disagree
                }
                p.text.push_str(&line[i..i + 2]);
                i += 2;
            }
            b'`' => {
                let run = b[i..].iter().take_while(|&&c| c == b'`').count();
                let len = code_span(&line[i..], run)?;
                keep_code(p, &line[i..i + len]);
                i += len;
            }
            b'{' => {
                let len = expression(&line[i..])?;
                cuts.push((p.text.len(), brackets > 0));
                i += len;
            }
            b'<' => {
                let (len, tag) = jsx_tag(&line[i..])?;
                if is_hidden(tag.name) {
                    return None;
                }
                match tag.kind {
                    TagKind::Open => stack.push(tag.name),
                    TagKind::Close if stack.pop()? != tag.name => return None,
                    _ => {}
                }
                cuts.push((p.text.len(), brackets > 0));
                i += len;
            }
            b'}' | b'~' => return None,
            b'*' | b'_' if b[i..].iter().take_while(|&&c| c == b[i]).count() >= 3 => {
                return None; // long delimiter runs: the parsers' emphasis rules disagree
            }
            c => {
                if c == b'[' {
                    brackets += 1;
                } else if c == b']' {
                    if b.get(i + 1) == Some(&b':') {
                        return None; // link reference definitions interact with setext and lists differently
                    }
                    brackets = brackets.saturating_sub(1);
                }
                // This byte and every one after it up to the next that a branch above looks at
                // (all ASCII, so the run ends on a character boundary) are copied as they are.
                let end = b[i + 1..]
                    .iter()
                    .position(|&x| INLINE_SPECIAL[x as usize])
                    .map_or(b.len(), |n| i + 1 + n);
                p.text.push_str(line.get(i..end)?);
                i = end;
            }
        }
    }
    if !stack.is_empty() {
        return None; // an element left open at the end of a line: markdown-rs decides
    }
    if cuts.is_empty() {
        return Some(());
    }
    let out = &p.text[start..];
    let heading = indent == 0 && is_atx_heading(out);
    if out.contains('|') {
        return None; // table cells trim differently around cuts
    }
    for &(at, in_brackets) in &cuts {
        if in_brackets {
            return None; // a link label or reference name would change
        }
        let before = &out[..at - start];
        let after = &out[at - start..];
        // Only list or quote markers before the cut: it is at the start of a block's text.
        let at_start = before.chars().all(|c| {
            c.is_whitespace()
                || c.is_ascii_digit()
                || matches!(c, '>' | '-' | '*' | '+' | '.' | ')')
        });
        let left = before.chars().next_back().filter(|_| !at_start);
        let right = after.chars().next().filter(|_| !after.trim().is_empty());
        let ok = match (left, right) {
            _ if heading => left.is_none_or(safe_neighbour) && right.is_none_or(safe_neighbour),
            (Some(l), Some(r)) => safe_neighbour(l) && safe_neighbour(r),
            // At the start of a line or block: it must still begin as paragraph text.
            (None, Some(r)) => r.is_alphabetic(),
            // At the line's end: no whitespace may be left before the line ending.
            (Some(l), None) => !l.is_whitespace() && safe_neighbour(l),
            (None, None) => false,
        };
        if !ok {
            return None;
        }
    }
    p.cuts.extend(cuts.iter().map(|c| c.0));
    Some(())
}

/// The bytes `inline_line` does more with than copy them: all ASCII.
const INLINE_SPECIAL: [bool; 256] = super::byte_set(b"\\`{<}~*_[]");

/// Characters that end or start no Markdown construct when they become neighbours.
fn safe_neighbour(c: char) -> bool {
    c.is_alphanumeric()
        || c == ' '
        || matches!(
            c,
            '.' | ',' | '،' | '؛' | '؟' | ':' | ';' | '?' | '"' | '«' | '»'
        )
}

fn is_atx_heading(line: &str) -> bool {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&hashes) && (hashes == line.len() || line[hashes..].starts_with([' ', '\t']))
}

/// A code span opening with `run` backticks at the start of `s`, closed on the same line: its
/// length. A span the line does not close is declined (CommonMark may close it on a later line).
fn code_span(s: &str, run: usize) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = run;
    while i < b.len() {
        if b[i] == b'`' {
            let n = b[i..].iter().take_while(|&&c| c == b'`').count();
            if n == run {
                return Some(i + n);
            }
            i += n;
        } else {
            i += 1;
        }
    }
    None
}

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS
}

/// An open node while events are read.
enum Frame {
    Root,
    Paragraph,
    /// Inline content of a tight list item, which mdast wraps in a paragraph.
    ImplicitParagraph,
    Heading(u8),
    Quote,
    Code(Option<String>),
    List(Option<u32>),
    Item,
    Table,
    Row,
    Cell,
    /// Emphasis, strong and links: the walker reads only their children.
    Phrasing,
}

struct Open {
    frame: Frame,
    children: Vec<Node>,
    text: String,
}

fn build(p: &Prepared) -> Option<Node> {
    let mut stack = vec![Open {
        frame: Frame::Root,
        children: Vec::new(),
        text: String::new(),
    }];
    let mut code_ranges: Vec<(usize, usize)> = Vec::new();
    let (mut fences, mut markers) = (p.fences.iter().peekable(), p.markers.iter().peekable());
    let mut image = 0usize;
    for (ev, range) in Parser::new_ext(&p.text, options()).into_offset_iter() {
        if image > 0 {
            match ev {
                Event::Start(Tag::Image { .. }) => image += 1,
                Event::End(TagEnd::Image) => image -= 1,
                Event::Html(_) | Event::InlineHtml(_) => return None,
                _ => {}
            }
            continue;
        }
        let inline = matches!(
            ev,
            Event::Text(_)
                | Event::Code(_)
                | Event::SoftBreak
                | Event::HardBreak
                | Event::Start(Tag::Emphasis | Tag::Strong | Tag::Link { .. } | Tag::Image { .. })
        );
        let top = &stack.last()?.frame;
        if inline && matches!(top, Frame::Item) {
            stack.push(Open {
                frame: Frame::ImplicitParagraph,
                children: Vec::new(),
                text: String::new(),
            });
        } else if !inline
            && matches!(top, Frame::ImplicitParagraph)
            && !matches!(ev, Event::End(TagEnd::Item))
        {
            close(&mut stack)?;
        }
        match ev {
            Event::Start(tag) => {
                let frame = match tag {
                    Tag::Paragraph => Frame::Paragraph,
                    Tag::Heading { level, .. } => {
                        if !p.text[range.start..].trim_start().starts_with('#') {
                            return None; // setext: markdown-rs panics on some
                        }
                        Frame::Heading(level as u8)
                    }
                    Tag::BlockQuote(_) => Frame::Quote,
                    Tag::CodeBlock(CodeBlockKind::Fenced(info)) => {
                        let &(start, end) = fences.next()?;
                        if start != range.start || !(end == range.end || end == range.end + 1) {
                            return None;
                        }
                        code_ranges.push((range.start, range.end));
                        // markdown-rs ends the language at a space or tab only (not at U+00A0).
                        let lang = info.split([' ', '\t']).next().unwrap_or("");
                        Frame::Code((!lang.is_empty()).then(|| lang.to_string()))
                    }
                    Tag::List(start) => Frame::List(match start {
                        Some(n) => Some(u32::try_from(n).ok()?),
                        None => None,
                    }),
                    Tag::Item => Frame::Item,
                    Tag::Table(_) => {
                        // markdown-rs tries a table only after other constructs that start with
                        // these characters failed, and then goes straight to paragraph text.
                        if matches!(
                            p.text.as_bytes()[range.start],
                            b'e' | b'i' | b'#' | b'`' | b'~' | b'$' | b'*' | b'_' | b'{'
                        ) {
                            return None;
                        }
                        Frame::Table
                    }
                    Tag::TableHead | Tag::TableRow => Frame::Row,
                    Tag::TableCell => {
                        if range.is_empty() {
                            return None; // a cell pulldown-cmark filled in; mdast has none
                        }
                        Frame::Cell
                    }
                    Tag::Emphasis | Tag::Strong | Tag::Link { .. } => Frame::Phrasing,
                    Tag::Image { .. } => {
                        image = 1;
                        continue;
                    }
                    _ => return None,
                };
                stack.push(Open {
                    frame,
                    children: Vec::new(),
                    text: String::new(),
                });
            }
            Event::End(TagEnd::Item) => {
                if matches!(stack.last()?.frame, Frame::ImplicitParagraph) {
                    close(&mut stack)?;
                }
                close(&mut stack)?;
            }
            Event::End(_) => close(&mut stack)?,
            Event::Text(t) => {
                let top = stack.last_mut()?;
                if matches!(top.frame, Frame::Code(_)) {
                    top.text.push_str(&t);
                } else {
                    push_text(&mut top.children, &t);
                }
            }
            Event::Code(t) => {
                code_ranges.push((range.start, range.end));
                stack
                    .last_mut()?
                    .children
                    .push(Node::InlineCode(mdast::InlineCode {
                        value: t.into_string(),
                        position: None,
                    }));
            }
            Event::SoftBreak => push_text(&mut stack.last_mut()?.children, "\n"),
            Event::HardBreak => stack
                .last_mut()?
                .children
                .push(Node::Break(mdast::Break { position: None })),
            Event::Rule => {
                if markers.peek() == Some(&&range.start) {
                    markers.next();
                }
            }
            Event::TaskListMarker(_) => {}
            Event::Html(_)
            | Event::InlineHtml(_)
            | Event::FootnoteReference(_)
            | Event::InlineMath(_)
            | Event::DisplayMath(_) => return None,
        }
    }
    if markers.next().is_some() || fences.next().is_some() || stack.len() != 1 {
        return None;
    }
    if !all_outside(&p.cuts, &code_ranges) || !all_inside(&p.kept, &code_ranges) {
        return None;
    }
    let root = stack.pop()?;
    Some(Node::Root(mdast::Root {
        children: root.children,
        position: None,
    }))
}

fn push_text(children: &mut Vec<Node>, t: &str) {
    if let Some(Node::Text(last)) = children.last_mut() {
        last.value.push_str(t);
    } else {
        children.push(Node::Text(mdast::Text {
            value: t.to_string(),
            position: None,
        }));
    }
}

/// Pops the open node and appends it to its parent.
fn close(stack: &mut Vec<Open>) -> Option<()> {
    let Open {
        frame,
        children,
        text,
    } = stack.pop()?;
    let node = match frame {
        Frame::Root => return None,
        Frame::Paragraph | Frame::ImplicitParagraph => Node::Paragraph(mdast::Paragraph {
            children,
            position: None,
        }),
        Frame::Heading(depth) => Node::Heading(mdast::Heading {
            children,
            position: None,
            depth,
        }),
        Frame::Quote => Node::Blockquote(mdast::Blockquote {
            children,
            position: None,
        }),
        Frame::Code(lang) => {
            // mdast holds the lines without the last line ending.
            let value = text.strip_suffix('\n').map(str::to_string).unwrap_or(text);
            Node::Code(mdast::Code {
                value,
                position: None,
                lang,
                meta: None,
            })
        }
        Frame::List(start) => Node::List(mdast::List {
            children,
            position: None,
            ordered: start.is_some(),
            start,
            spread: false,
        }),
        Frame::Item => Node::ListItem(mdast::ListItem {
            children,
            position: None,
            spread: false,
            checked: None,
        }),
        Frame::Table => Node::Table(mdast::Table {
            children,
            position: None,
            align: Vec::new(),
        }),
        Frame::Row => Node::TableRow(mdast::TableRow {
            children,
            position: None,
        }),
        Frame::Cell => Node::TableCell(mdast::TableCell {
            children,
            position: None,
        }),
        Frame::Phrasing => Node::Emphasis(mdast::Emphasis {
            children,
            position: None,
        }),
    };
    stack.last_mut()?.children.push(node);
    Some(())
}

/// No cut falls strictly inside a code range (`ranges` in document order, not nested).
fn all_outside(cuts: &[usize], ranges: &[(usize, usize)]) -> bool {
    cuts.iter().all(|&c| {
        let i = ranges.partition_point(|r| r.0 < c);
        i == 0 || ranges[i - 1].1 <= c
    })
}

/// Every position lies inside a code range.
fn all_inside(positions: &[usize], ranges: &[(usize, usize)]) -> bool {
    positions.iter().all(|&c| {
        let i = ranges.partition_point(|r| r.0 <= c);
        i > 0 && c < ranges[i - 1].1
    })
}

#[cfg(test)]
mod tests {
    use super::super::{frontmatter, markdown as md, mdx};
    use super::*;

    /// The body both paths give, with the fast path's acceptance.
    fn both(text: &str) -> (Option<super::super::Body>, Option<super::super::Body>) {
        (mdx::fast_body(text), mdx::markdown_rs_body(text))
    }

    #[test]
    fn components_expressions_and_esm_take_the_fast_path() {
        let doc = "import Note from './Note';\nexport const a = 1;\n\n# عنوان {/*top*/}\n\n<Note type=\"tip\">\n\nفقرة أولى\nتكملة السطر.\n\n- أ\n- ب\n\n```js{1}\nconst x = {a: 1};\n```\n\n</Note>\n\n{/* تعليق */}\n\nفقرة <Kbd>Ctrl</Kbd> أخيرة.\n";
        let (fast, slow) = both(doc);
        let fast = fast.expect("the fast path accepts this document");
        assert_eq!(Some(&fast), slow.as_ref());
        assert!(
            fast.text.contains("فقرة أولى\nتكملة السطر."),
            "soft breaks stay line breaks: {:?}",
            fast.text
        );
    }

    #[test]
    fn constructs_it_cannot_reproduce_are_declined() {
        for doc in [
            "text\n\n    indented code\n",
            "<script>\nlet a = 1;\n</script>\n",
            "<Note>\n\nunclosed\n",
            "a <b>open\nb</b>\n",
            "Title\n=====\n",
            "a {b\nc}\n",
            "~~struck~~\n",
            "- a\n\n  <Note>\n\n  x\n\n  </Note>\n",
            "a\n<A/>\n2. x\n",
            "[a]: /x\n",
            "```\nunclosed\n",
        ] {
            assert!(to_mdast(doc).is_none(), "should be declined: {doc:?}");
        }
    }

    /// Deterministic random documents mixing Markdown, MDX and tricky edges (no corpus text).
    fn generated(n: usize) -> Vec<String> {
        const WORDS: &[&str] = &["نص", "عربي", "كلمة", "word", "a", "b1", "في", "2024", "x"];
        const INLINE: &[&str] = &[
            "<Kbd>Ctrl</Kbd>",
            "<b/>",
            "<br />",
            "{x}",
            "{/* c */}",
            "{{a: 1}}",
            "*em*",
            "**strong**",
            "_u_",
            "`code`",
            "``a`b``",
            "[link](http://x)",
            "[ref]",
            "![img](i.png)",
            "&amp;",
            "&lt;",
            "&#1575;",
            "\\*",
            "\\{",
            "\\<",
            "  ",
            "\\",
            "<A b={1}>z</A>",
            "*",
            "_",
            "[",
            "]",
            "(",
            ")",
            "#",
            "!",
            "|",
            "~",
            "}",
            "<",
            "{",
            "a<b",
            ".",
            "،",
            "\"q\"",
            "<i>",
            "</i>",
            "***",
            "&nbsp;",
        ];
        const LINES: &[&str] = &[
            "",
            "",
            "",
            "# عنوان",
            "## h {/*anchor*/}",
            "### h <Badge/>",
            "#{x} a",
            "- item",
            "* item",
            "+ item",
            "1. one",
            "2) two",
            "  - nested",
            "    - deeper",
            "   1. three",
            "> quote",
            "> > deep",
            ">",
            "---",
            "***",
            "===",
            "| a | b |",
            "|---|---|",
            "a | b",
            "--- | ---",
            "```js",
            "```",
            "~~~",
            "    ```",
            "   ```",
            "```js{1,2}",
            "    code",
            "\tcode",
            "import X from 'y'",
            "export const a = 1",
            "<Note type=\"tip\">",
            "</Note>",
            "<Note>",
            "<Note/>",
            "{/* comment */}",
            "{x} {y}",
            "<A>{b}</A>",
            "  <Note>",
            "[r]: http://x",
            "- [ ] task",
            "- [x] done",
            "-",
            "1.",
            "    text",
            "<Kbd>a</Kbd> b",
            "{a} b",
            "b {a}",
            "text  ",
            "text\\",
            "Title",
            "- <X/> y",
            "exported text",
            "important",
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut below = |n: usize| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64) as usize
        };
        (0..n)
            .map(|_| {
                let mut s = String::new();
                for _ in 0..1 + below(14) {
                    let base = LINES[below(LINES.len())];
                    s.push_str(base);
                    if below(2) == 0 && !base.starts_with("```") {
                        for _ in 0..1 + below(5) {
                            s.push_str(if below(3) == 0 {
                                INLINE[below(INLINE.len())]
                            } else {
                                WORDS[below(WORDS.len())]
                            });
                            if below(2) == 0 {
                                s.push(' ');
                            }
                        }
                    }
                    s.push('\n');
                }
                s
            })
            .collect()
    }

    #[test]
    fn generated_documents_extract_the_same_on_both_paths() {
        let docs = generated(20_000);
        let mut accepted = 0;
        for doc in &docs {
            let (fast, slow) = both(doc);
            if let Some(fast) = fast {
                accepted += 1;
                assert_eq!(Some(&fast), slow.as_ref(), "the paths differ on {doc:?}");
            }
        }
        println!(
            "generated documents: {accepted} of {} take the fast path",
            docs.len()
        );
        assert!(
            accepted > docs.len() / 20,
            "only {accepted} generated documents took the fast path"
        );
    }

    /// Every Markdown and MDX file of the shared corpora (read at test time, never copied), as
    /// the MDX extractor sees it: both paths must agree wherever the fast path accepts a file.
    #[test]
    fn shared_corpora_extract_the_same_on_both_paths() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
        if !root.is_dir() {
            println!("skipped: {} is absent", root.display());
            return;
        }
        let mut files = Vec::new();
        collect(&root, &mut files);
        files.sort();
        let (mut accepted, mut mdx_files, mut mdx_accepted) = (0, 0, 0);
        for path in &files {
            let Ok(bytes) = std::fs::read(path) else {
                continue;
            };
            let Ok(text) = super::super::decode(&bytes) else {
                continue;
            };
            let Ok(split) = frontmatter::split(&text) else {
                continue;
            };
            let pre = md::preprocess(split.body);
            let rel = path
                .strip_prefix(&root)
                .unwrap_or(path)
                .display()
                .to_string();
            // The libraries that corpus.toml reads as MDX.
            let is_mdx = rel.starts_with("react-dev-ar/") || rel.ends_with(".mdx");
            mdx_files += usize::from(is_mdx);
            let (fast, slow) = both(&pre);
            if let Some(fast) = fast {
                accepted += 1;
                mdx_accepted += usize::from(is_mdx);
                assert_eq!(Some(&fast), slow.as_ref(), "the paths differ on {rel}");
            }
        }
        println!(
            "shared corpora: {accepted} of {} Markdown/MDX files take the fast path ({mdx_accepted} of the {mdx_files} read as MDX)",
            files.len()
        );
        assert!(
            files.is_empty() || accepted > 0,
            "no file of the shared corpora took the fast path"
        );
    }

    fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                collect(&path, out);
            } else if matches!(
                path.extension().and_then(|x| x.to_str()),
                Some("md" | "mdx")
            ) {
                out.push(path);
            }
        }
    }
}
