//! The line scanner: rewrites MDX-only syntax into CommonMark that parses to the same blocks
//! (ESM and JSX/expression-only lines become `***` breaks, inline tags and expressions are cut
//! out), declining anything MDX and CommonMark may read differently.

use super::jsx::{JsxTag, TagKind, expression, jsx_tag};
use super::{MARKER, Prepared, is_hidden};

pub(super) fn prepare(src: &str) -> Option<Prepared> {
    let mut s = Scanner::new(src.len());
    for line in src.split_inclusive('\n') {
        s.line(line)?;
    }
    s.finish()
}

/// The scanner's state between lines: the text so far, an open fence or ESM block, the lines
/// above and the open flow components.
struct Scanner<'s> {
    p: Prepared,
    fence: Option<Fence>,
    esm: bool,
    prev_blank: bool,
    prev_line: &'s str,
    prev_prev_blank: bool,
    flow_stack: Vec<&'s str>,
}

impl<'s> Scanner<'s> {
    fn new(len: usize) -> Self {
        Scanner {
            p: Prepared {
                text: String::with_capacity(len),
                ..Prepared::default()
            },
            fence: None,
            esm: false,
            prev_blank: true,
            prev_line: "",
            prev_prev_blank: true,
            flow_stack: Vec::new(),
        }
    }

    /// One line (with its `\n`, if any); `None` declines the document.
    fn line(&mut self, line: &'s str) -> Option<()> {
        let content = line.strip_suffix('\n').unwrap_or(line);
        let prev = std::mem::replace(&mut self.prev_line, content);
        let before_prev = std::mem::replace(&mut self.prev_prev_blank, self.prev_blank);
        let blank = content.bytes().all(|b| b == b' ' || b == b'\t');
        if self.esm {
            self.esm_line(line, blank);
            return Some(());
        }
        let trimmed = content.trim_start_matches(' ');
        let indent = content.len() - trimmed.len();
        if let Some(open) = self.fence {
            return self.code_line(line, open, blank);
        }
        if blank {
            self.p.text.push_str(line);
            self.prev_blank = true;
            return Some(());
        }
        self.decline_ambiguous(trimmed, indent, prev, before_prev)?;
        if indent < 4
            && let Some(open) = fence_open(trimmed, indent)
        {
            self.open_fence(line, indent, open);
            return Some(());
        }
        if indent == 0 && (trimmed.starts_with("import ") || trimmed.starts_with("export ")) {
            return self.esm_start();
        }
        if matches!(trimmed.as_bytes()[0], b'<' | b'{')
            && let Some(items) = flow_items(trimmed)
        {
            return self.flow_line(items, indent);
        }
        inline_line(&mut self.p, content, indent)?;
        if line.ends_with('\n') {
            self.p.text.push('\n');
        }
        self.prev_blank = false;
        Some(())
    }

    /// A line of an ESM block: ESM runs to the first blank line (the parse hook accepts every
    /// line).
    fn esm_line(&mut self, line: &str, blank: bool) {
        if blank {
            self.esm = false;
            self.p.text.push_str(line);
        } else {
            self.push_marker();
        }
        self.prev_blank = blank;
    }

    /// A line inside an open fenced code block.
    fn code_line(&mut self, line: &str, open: Fence, blank: bool) -> Option<()> {
        if fence_line(&mut self.p, line, open)? {
            self.fence = None;
            self.prev_blank = false;
        } else {
            self.prev_blank = blank;
        }
        Some(())
    }

    /// Declines a non-blank line MDX and CommonMark may read differently.
    fn decline_ambiguous(
        &self,
        trimmed: &str,
        indent: usize,
        prev: &str,
        before_prev: bool,
    ) -> Option<()> {
        if trimmed.starts_with('\t') {
            return None;
        }
        if is_delimiter_row(trimmed) && !before_prev {
            // markdown-rs lets a table interrupt a paragraph, pulldown-cmark does not.
            return None;
        }
        if !self.prev_blank && interrupt_sensitive(trimmed, prev) {
            // markdown-rs and CommonMark disagree on whether such a line may interrupt the
            // block above after a component line or a container's end.
            return None;
        }
        let first = trimmed.as_bytes()[0];
        if indent >= 4 && first.is_ascii() && !first.is_ascii_alphabetic() {
            // MDX starts blocks at any indentation; CommonMark reads such a line as code or as
            // paragraph text. Only a line starting with a letter means the same in both.
            return None;
        }
        Some(())
    }

    /// The opening line of a fenced code block, kept as code.
    fn open_fence(&mut self, line: &str, indent: usize, open: Fence) {
        self.fence = Some(open);
        self.p.fences.push((self.p.text.len() + indent, usize::MAX));
        keep_code(&mut self.p, line);
        self.prev_blank = false;
    }

    /// The first line of an ESM block, replaced by a marker.
    fn esm_start(&mut self) -> Option<()> {
        if !self.prev_blank {
            // Whether it is ESM depends on the block above (ESM cannot interrupt a paragraph).
            return None;
        }
        self.esm = true;
        self.push_marker();
        self.prev_blank = false;
        Some(())
    }

    /// A line of JSX tags and expressions only: its tags open and close flow components, the
    /// line becomes a marker.
    fn flow_line(&mut self, items: Vec<Item<'s>>, indent: usize) -> Option<()> {
        if indent > 0 {
            // A component indented into a list item: its blocks would nest differently.
            return None;
        }
        for item in items {
            match item {
                Item::Tag(t) => flow_tag(&mut self.flow_stack, t)?,
                Item::Expr => {}
            }
        }
        self.push_marker();
        self.prev_blank = false;
        Some(())
    }

    fn push_marker(&mut self) {
        self.p.markers.push(self.p.text.len());
        self.p.text.push_str(MARKER);
    }

    /// The prepared text, unless a component or a fence is left open.
    fn finish(self) -> Option<Prepared> {
        if !self.flow_stack.is_empty() || self.fence.is_some() {
            return None; // markdown-rs reports the unclosed component; unclosed fences vary
        }
        Some(self.p)
    }
}

/// A line inside an open fenced code block,
/// copied as code: `Some(true)` when it closes the block, `None` where MDX and CommonMark would
/// end the block differently.
fn fence_line(p: &mut Prepared, line: &str, fence: Fence) -> Option<bool> {
    let content = line.strip_suffix('\n').unwrap_or(line);
    let trimmed = content.trim_start_matches(' ');
    let indent = content.len() - trimmed.len();
    if fence.indent > 0 && content[..content.len() - content.trim_start().len()].contains('\t') {
        return None; // the fence's indentation is removed from tabs differently
    }
    let run = trimmed.bytes().take_while(|&b| b == fence.ch).count();
    let closes = run >= fence.len && trimmed[run..].bytes().all(|b| b == b' ' || b == b'\t');
    if closes && indent < 4 && !trimmed.starts_with('\t') {
        keep_code(p, line);
        if let Some(last) = p.fences.last_mut() {
            last.1 = p.text.len();
        }
        return Some(true);
    } else if closes || (run >= fence.len && trimmed.starts_with('\t')) {
        // MDX closes fences at any indentation, CommonMark only below 4 spaces.
        return None;
    }
    keep_code(p, line);
    Some(false)
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

/// An open fenced code block: its fence character, the fence's length and its indentation.
#[derive(Clone, Copy)]
struct Fence {
    ch: u8,
    len: usize,
    indent: usize,
}

/// A fenced-code opening line (`trimmed`: the line without its `indent` leading spaces).
fn fence_open(trimmed: &str, indent: usize) -> Option<Fence> {
    let c = *trimmed.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let run = trimmed.bytes().take_while(|&b| b == c).count();
    if run < 3 || (c == b'`' && trimmed[run..].contains('`')) {
        return None;
    }
    Some(Fence {
        ch: c,
        len: run,
        indent,
    })
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
    if is_hidden(t.name) || t.labelled {
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

pub(super) enum Item<'a> {
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

/// Copies a text line into `p.text`, cutting out inline JSX tags and expressions; declines a line
/// where a cut could change what CommonMark makes of the rest.
fn inline_line(p: &mut Prepared, line: &str, indent: usize) -> Option<()> {
    let start = p.text.len();
    let cuts = copy_inline(p, line)?;
    if cuts.is_empty() {
        return Some(());
    }
    let out = &p.text[start..];
    if out.contains('|') {
        return None; // table cells trim differently around cuts
    }
    let heading = indent == 0 && is_atx_heading(out);
    for cut in &cuts {
        if cut.in_brackets {
            return None; // a link label or reference name would change
        }
        if !cut_is_safe(out, cut.at - start, heading) {
            return None;
        }
    }
    p.cuts.extend(cuts.iter().map(|c| c.at));
    // A heading's explicit id, a comment expression that ends the line (`## الأخبار {/*news*/}`):
    // markdown-rs keeps it as the heading's last child, which the walker reads.
    if heading
        && let Some(last) = cuts.last()
        && out[last.at - start..].trim().is_empty()
        && let Some(id) = last
            .expr
            .and_then(|e| e.strip_prefix("{/*")?.strip_suffix("*/}"))
    {
        p.heading_ids.push((start, id.to_string()));
    }
    Some(())
}

/// Where an inline tag or expression was cut out of the prepared text.
struct Cut<'a> {
    at: usize,
    /// Inside `[…]`: a link label or reference name.
    in_brackets: bool,
    /// The expression cut out (`{…}`), when it was one.
    expr: Option<&'a str>,
}

/// Copies a line's inline text into `p`, code spans kept as code, inline tags and expressions
/// cut out; `None` where the parsers may disagree.
fn copy_inline<'a>(p: &mut Prepared, line: &'a str) -> Option<Vec<Cut<'a>>> {
    let b = line.as_bytes();
    let mut inline = Inline::default();
    let mut i = 0;
    while i < b.len() {
        i += match b[i] {
            b'\\' if b.get(i + 1).is_some_and(u8::is_ascii_punctuation) => escape(p, line, i)?,
            b'`' => {
                let run = b[i..].iter().take_while(|&&c| c == b'`').count();
                let len = code_span(&line[i..], run)?;
                keep_code(p, &line[i..i + len]);
                len
            }
            b'{' => {
                let len = expression(&line[i..])?;
                inline.cut(p);
                if let Some(c) = inline.cuts.last_mut() {
                    c.expr = Some(&line[i..i + len]);
                }
                len
            }
            b'<' => inline.tag(p, &line[i..])?,
            b'}' | b'~' => return None,
            b'*' | b'_' if b[i..].iter().take_while(|&&c| c == b[i]).count() >= 3 => {
                return None; // long delimiter runs: the parsers' emphasis rules disagree
            }
            _ => inline.text(p, line, i)?,
        };
    }
    if !inline.open.is_empty() {
        return None; // an element left open at the end of a line: markdown-rs decides
    }
    Some(inline.cuts)
}

/// What copying a line's inline text has seen: the cuts made, the elements open and the depth
/// of `[…]`.
#[derive(Default)]
struct Inline<'a> {
    cuts: Vec<Cut<'a>>,
    open: Vec<&'a str>,
    brackets: usize,
}

impl<'a> Inline<'a> {
    /// A cut at the end of the text copied so far.
    fn cut(&mut self, p: &Prepared) {
        self.cuts.push(Cut {
            at: p.text.len(),
            in_brackets: self.brackets > 0,
            expr: None,
        });
    }

    /// An inline JSX tag at the start of `rest`, cut out (opening and closing tags must pair
    /// up on the line, and none may be one whose content is hidden); its length.
    fn tag(&mut self, p: &Prepared, rest: &'a str) -> Option<usize> {
        let (len, tag) = jsx_tag(rest)?;
        if is_hidden(tag.name) {
            return None;
        }
        match tag.kind {
            TagKind::Open => self.open.push(tag.name),
            TagKind::Close if self.open.pop()? != tag.name => return None,
            _ => {}
        }
        self.cut(p);
        Some(len)
    }

    /// Plain text from byte `i`: this byte and every one after it up to the next that
    /// `copy_inline` looks at, copied as they are; brackets counted. Its length.
    fn text(&mut self, p: &mut Prepared, line: &str, i: usize) -> Option<usize> {
        let b = line.as_bytes();
        let c = b[i];
        if c == b'[' {
            self.brackets += 1;
        } else if c == b']' {
            if b.get(i + 1) == Some(&b':') {
                return None; // link reference definitions interact with setext and lists differently
            }
            self.brackets = self.brackets.saturating_sub(1);
        }
        // All ASCII, so the run ends on a character boundary.
        let end = b[i + 1..]
            .iter()
            .position(|&x| INLINE_SPECIAL[x as usize])
            .map_or(b.len(), |n| i + 1 + n);
        p.text.push_str(line.get(i..end)?);
        Some(end - i)
    }
}

/// A backslash escape at byte `i`, copied; `None` for an escaped delimiter next to a run of
/// them, where the parsers disagree.
fn escape(p: &mut Prepared, line: &str, i: usize) -> Option<usize> {
    let b = line.as_bytes();
    let delimiter = |c: Option<&u8>| matches!(c, Some(b'*' | b'_'));
    if delimiter(b.get(i + 1)) && (delimiter(b.get(i + 2)) || i > 0 && delimiter(b.get(i - 1))) {
        return None;
    }
    p.text.push_str(&line[i..i + 2]);
    Some(2)
}

/// Whether cutting at byte `at` of a line's prepared text `out` leaves the same blocks and
/// inlines: its new neighbours start or end no Markdown construct.
fn cut_is_safe(out: &str, at: usize, heading: bool) -> bool {
    let before = &out[..at];
    let after = &out[at..];
    // Only list or quote markers before the cut: it is at the start of a block's text.
    let at_start = before.chars().all(|c| {
        c.is_whitespace() || c.is_ascii_digit() || matches!(c, '>' | '-' | '*' | '+' | '.' | ')')
    });
    let left = before.chars().next_back().filter(|_| !at_start);
    let right = after.chars().next().filter(|_| !after.trim().is_empty());
    match (left, right) {
        _ if heading => left.is_none_or(safe_neighbour) && right.is_none_or(safe_neighbour),
        (Some(l), Some(r)) => safe_neighbour(l) && safe_neighbour(r),
        // At the start of a line or block: it must still begin as paragraph text.
        (None, Some(r)) => r.is_alphabetic(),
        // At the line's end: no whitespace may be left before the line ending.
        (Some(l), None) => !l.is_whitespace() && safe_neighbour(l),
        (None, None) => false,
    }
}

/// The bytes `inline_line` does more with than copy them: all ASCII.
const INLINE_SPECIAL: [bool; 256] = crate::extract::byte_set(b"\\`{<}~*_[]");

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
