//! The block walker: turns the chosen roots into blocks (headings, paragraphs, lists, quotes,
//! code, tables) with whitespace collapsing, skipping what the analysis removed.

use std::borrow::Cow;

use super::BlockKind;
use super::chrome::Analysis;
use super::tags::{heading_level, is_block, is_heading};
use super::tree::*;

#[derive(Default)]
pub(super) struct Acc {
    pub(super) s: String,
    pub(super) space: bool,
    /// A `<br>` since the last character: the next one starts a new line.
    line: bool,
    pub(super) chars: usize,
    pub(super) link: usize,
}

impl Acc {
    pub(super) fn text(&mut self, t: &str, in_link: bool) {
        for c in t.chars() {
            if c.is_whitespace() {
                self.space = true;
                continue;
            }
            if c.is_control() || c == '\u{feff}' || c == '\u{200b}' {
                continue;
            }
            if (self.space || self.line) && !self.s.is_empty() {
                self.s.push(if self.line { '\n' } else { ' ' });
                self.chars += 1;
            }
            self.space = false;
            self.line = false;
            self.s.push(c);
            self.chars += 1;
            if in_link {
                self.link += 1;
            }
        }
    }
    fn brk(&mut self) {
        self.space = true;
    }
    /// A line break kept in the text (a poem's verse, an address's line).
    fn line_break(&mut self) {
        self.line = true;
    }
    pub(super) fn take(&mut self) -> Acc {
        std::mem::take(self)
    }
}

pub(super) struct Block {
    pub(super) kind: BlockKind,
    pub(super) text: String,
    pub(super) chars: usize,
    pub(super) link: usize,
    /// A heading's `id` attribute.
    pub(super) id: Option<String>,
}

/// The paragraph `Walker::walk` is gathering.
#[derive(Default)]
struct Para {
    acc: Acc,
    /// `<br>`s in a row (two end the paragraph)
    brs: u32,
    /// `<a>` elements open around the current text
    link_depth: usize,
}

/// A list being turned into lines: the next child to visit and the next item number.
#[derive(Clone, Copy)]
struct ListFrame {
    list: u32,
    next_child: u32,
    counter: i64,
}

impl ListFrame {
    fn start(t: &Tree, list: u32) -> ListFrame {
        ListFrame {
            list,
            next_child: t.nodes[list as usize].first_child,
            counter: list_start(t, list),
        }
    }
}

/// List containers: their items become lines.
fn is_list(name: &str) -> bool {
    matches!(name, "ul" | "ol" | "dl" | "menu" | "dir")
}

pub(super) struct Walker<'a> {
    pub(super) t: &'a Tree,
    pub(super) an: &'a Analysis,
    pub(super) blocks: Vec<Block>,
    /// `<a>` elements with text seen in the content
    pub(super) links: usize,
    /// the element being emitted as a whole sits inside a link
    ctx_link: bool,
}

/// Inline text symbol-only anchors ("#", "¶", "🔗") are permalink chrome.
fn is_symbol_anchor(t: &Tree, an: &Analysis, i: u32) -> bool {
    if t.name(i) != "a" || an.total[i as usize] > 3 {
        return false;
    }
    let mut acc = Acc::default();
    traverse(t, i, |n, enter| {
        if enter && let NodeData::Text(s) = &t.nodes[n as usize].data {
            acc.text(s, false);
        }
        true
    });
    let s = acc.s.trim();
    s.is_empty() || matches!(s, "#" | "¶" | "§" | "🔗" | "⚓" | "↩" | "↩︎" | "⬆")
}

impl<'a> Walker<'a> {
    pub(super) fn new(t: &'a Tree, an: &'a Analysis) -> Self {
        Walker {
            t,
            an,
            blocks: Vec::new(),
            links: 0,
            ctx_link: false,
        }
    }

    pub(super) fn skip(&self, i: u32) -> bool {
        self.an.removed[i as usize] || is_symbol_anchor(self.t, self.an, i)
    }

    pub(super) fn push(&mut self, kind: BlockKind, acc: Acc) {
        let text = strip_script_urls(&acc.s);
        let text = if kind == BlockKind::Code {
            text.trim_end().trim_start_matches(['\n', '\r'])
        } else {
            text.trim()
        };
        if kind == BlockKind::Code && text.trim().is_empty() {
            return;
        }
        if text.is_empty() {
            return;
        }
        if kind != BlockKind::Code && !text.chars().any(|c| c.is_alphanumeric()) {
            return; // only punctuation / bullets
        }
        if matches!(kind, BlockKind::Paragraph | BlockKind::Heading(_)) && is_reading_time(text) {
            return;
        }
        self.blocks.push(Block {
            kind,
            text: text.to_string(),
            chars: acc.chars,
            link: acc.link,
            id: None,
        });
    }

    /// A heading element `n` as a block, with its `id` attribute.
    fn push_heading(&mut self, n: u32, level: u8, acc: Acc) {
        let before = self.blocks.len();
        self.push(BlockKind::Heading(level), acc);
        if self.blocks.len() > before
            && let Some(b) = self.blocks.last_mut()
        {
            b.id = self
                .t
                .elem(n)
                .and_then(|e| e.id.as_deref())
                .map(str::to_string);
        }
    }

    /// Whole-subtree inline text; block boundaries become spaces.
    /// `stop` elements (other than `root`) are not descended into.
    pub(super) fn inline(&mut self, root: u32, stop: &dyn Fn(&str) -> bool) -> Acc {
        let mut acc = Acc::default();
        let mut link_depth = usize::from(self.ctx_link);
        let t = self.t;
        let mut links = 0;
        traverse(t, root, |n, enter| match &t.nodes[n as usize].data {
            NodeData::Text(s) => {
                if enter {
                    acc.text(s, link_depth > 0);
                }
                false
            }
            NodeData::Elem(e) => {
                if enter {
                    if n != root && (self.skip(n) || stop(&e.name)) {
                        return false;
                    }
                    if is_block(&e.name) || &*e.name == "br" {
                        acc.brk();
                    }
                    if &*e.name == "a" {
                        link_depth += 1;
                        if self.an.total[n as usize] > 0 {
                            links += 1;
                        }
                    }
                    true
                } else {
                    if &*e.name == "a"
                        && link_depth > 0
                        && !(n != root && (self.skip(n) || stop(&e.name)))
                    {
                        link_depth -= 1;
                    }
                    if is_block(&e.name) {
                        acc.brk();
                    }
                    false
                }
            }
            NodeData::Root => true,
        });
        self.links += links;
        acc
    }

    /// Verbatim text of a `<pre>`: newlines kept, `<br>` → newline.
    fn preformatted(&mut self, root: u32) -> Acc {
        let mut acc = Acc::default();
        let t = self.t;
        traverse(t, root, |n, enter| {
            if !enter {
                return false;
            }
            match &t.nodes[n as usize].data {
                NodeData::Text(s) => {
                    for c in s.chars() {
                        if c == '\n' || c == '\t' || !(c.is_control() || c == '\u{feff}') {
                            acc.s.push(c);
                            if !c.is_whitespace() {
                                acc.chars += 1;
                            }
                        }
                    }
                    false
                }
                NodeData::Elem(e) => {
                    if n != root && self.skip(n) {
                        return false;
                    }
                    if &*e.name == "br" {
                        acc.s.push('\n');
                    }
                    true
                }
                NodeData::Root => true,
            }
        });
        // the parser drops one newline right after <pre>; ours doesn't
        if acc.s.starts_with('\n') {
            acc.s.remove(0);
        }
        let trimmed_end = acc.s.trim_end().len();
        acc.s.truncate(trimmed_end);
        // drop leading blank lines but keep the first line's indentation
        while let Some(pos) = acc.s.find('\n') {
            if acc.s[..pos].trim().is_empty() {
                acc.s.replace_range(..=pos, "");
            } else {
                break;
            }
        }
        acc
    }

    /// A list as lines (`- item`, `3. item`), nested lists after their item's line, in
    /// document order; iterative, so deep nesting costs no stack.
    pub(super) fn list(&mut self, root: u32) -> Acc {
        let t = self.t;
        let mut out = Acc::default();
        let mut frames = vec![ListFrame::start(t, root)];
        while let Some(frame) = frames.pop() {
            let child = frame.next_child;
            if child == NONE {
                continue;
            }
            let rest = ListFrame {
                next_child: t.nodes[child as usize].next_sibling,
                ..frame
            };
            let line_acc = match &t.nodes[child as usize].data {
                NodeData::Text(s) => {
                    let mut acc = Acc::default();
                    acc.text(s, false);
                    acc
                }
                NodeData::Elem(e) if !self.skip(child) && is_list(&e.name) => {
                    // a list directly inside a list
                    frames.push(rest);
                    frames.push(ListFrame::start(t, child));
                    continue;
                }
                NodeData::Elem(_) if !self.skip(child) => {
                    let acc = self.inline(child, &|n| is_list(n));
                    let nested = self.nested_lists(child);
                    let counter = self.list_line(&mut out, &rest, acc);
                    frames.push(ListFrame { counter, ..rest });
                    frames.extend(nested.iter().rev().map(|&l| ListFrame::start(t, l)));
                    continue;
                }
                NodeData::Elem(_) | NodeData::Root => {
                    frames.push(rest);
                    continue;
                }
            };
            let counter = self.list_line(&mut out, &rest, line_acc);
            frames.push(ListFrame { counter, ..rest });
        }
        out
    }

    /// Appends one item's line to `out` (numbered in an `<ol>`); returns the next number.
    fn list_line(&self, out: &mut Acc, frame: &ListFrame, line_acc: Acc) -> i64 {
        let line = line_acc.s.trim();
        let mut counter = frame.counter;
        if !line.is_empty() {
            if !out.s.is_empty() {
                out.s.push('\n');
            }
            if self.t.name(frame.list) == "ol" {
                out.s.push_str(&format!("{counter}. "));
                counter = counter.saturating_add(1);
            } else {
                out.s.push_str("- ");
            }
            out.s.push_str(line);
            out.chars += line_acc.chars;
            out.link += line_acc.link;
        }
        counter
    }

    /// The lists inside list item `item` (not inside one another), in document order.
    fn nested_lists(&self, item: u32) -> Vec<u32> {
        let t = self.t;
        let mut nested = Vec::new();
        traverse(t, item, |n, enter| {
            if !enter || n == item {
                return true;
            }
            if self.skip(n) {
                return false;
            }
            if is_list(t.name(n)) {
                nested.push(n);
                return false;
            }
            true
        });
        nested
    }

    /// Rows of a data table (nested tables are flattened into their cell).
    pub(super) fn table(&mut self, root: u32) -> (Acc, Acc) {
        let t = self.t;
        let mut rows: Vec<u32> = Vec::new();
        let mut captions: Vec<u32> = Vec::new();
        traverse(t, root, |n, enter| {
            if !enter || n == root {
                return true;
            }
            if self.skip(n) {
                return false;
            }
            match t.name(n) {
                "table" => false,
                "tr" => {
                    rows.push(n);
                    false
                }
                "caption" => {
                    captions.push(n);
                    false
                }
                _ => true,
            }
        });
        let mut caption = Acc::default();
        for c in captions {
            let a = self.inline(c, &|_| false);
            caption.text(&a.s, false);
            caption.brk();
        }
        let mut out = Acc::default();
        for r in rows {
            let mut cells: Vec<String> = Vec::new();
            for c in t.children(r) {
                if matches!(t.name(c), "td" | "th") && !self.skip(c) {
                    let a = self.inline(c, &|_| false);
                    out.chars += a.chars;
                    out.link += a.link;
                    cells.push(a.s.trim().to_string());
                }
            }
            if cells.iter().all(|c| c.is_empty()) {
                continue;
            }
            if !out.s.is_empty() {
                out.s.push('\n');
            }
            out.s.push_str(&cells.join(" | "));
        }
        (caption, out)
    }

    /// A table used for page layout rather than for data.
    fn is_layout_table(&self, root: u32) -> bool {
        let t = self.t;
        if t.flags(root) & F_ROLE_PRESENTATION != 0 {
            return true;
        }
        let mut cells = 0usize;
        let mut max_cols = 0usize;
        let mut layout = false;
        traverse(t, root, |n, enter| {
            if !enter || layout {
                return false;
            }
            if n == root {
                return true;
            }
            if self.skip(n) {
                return false;
            }
            match t.name(n) {
                "table" => {
                    layout = true; // nested table
                    false
                }
                "tr" => {
                    let cols = t
                        .children(n)
                        .filter(|&c| matches!(t.name(c), "td" | "th"))
                        .count();
                    max_cols = max_cols.max(cols);
                    true
                }
                "td" | "th" => {
                    cells += 1;
                    if self.an.total[n as usize] > 600 {
                        layout = true;
                    }
                    true
                }
                name if is_heading(name)
                    || matches!(
                        name,
                        "ul" | "ol" | "blockquote" | "pre" | "article" | "section" | "main"
                    ) =>
                {
                    layout = true;
                    false
                }
                _ => true,
            }
        });
        layout || cells <= 1 || max_cols <= 1
    }

    fn headings_only(&mut self, root: u32) {
        let t = self.t;
        let mut found: Vec<u32> = Vec::new();
        traverse(t, root, |n, enter| {
            if !enter || n == root {
                return true;
            }
            if self.skip(n) {
                return false;
            }
            if is_heading(t.name(n)) {
                found.push(n);
                return false;
            }
            true
        });
        for h in found {
            let level = heading_level(t.name(h)).unwrap_or(2);
            let acc = self.inline(h, &|_| false);
            self.push_heading(h, level, acc);
        }
    }

    /// Turns the subtree at `root` into blocks: text gathers into paragraphs that block elements,
    /// `<hr>` and two `<br>` end; headings, lists, quotes, code and data tables are emitted whole.
    pub(super) fn walk(&mut self, root: u32) {
        let t = self.t;
        let mut para = Para::default();
        traverse(t, root, |n, enter| match &t.nodes[n as usize].data {
            NodeData::Root => true,
            NodeData::Text(s) => {
                if enter {
                    if !s.chars().all(char::is_whitespace) {
                        para.brs = 0;
                    }
                    para.acc.text(s, para.link_depth > 0);
                }
                false
            }
            NodeData::Elem(e) if enter => self.enter_elem(&mut para, root, n, &e.name),
            NodeData::Elem(e) => {
                self.exit_elem(&mut para, root, n, &e.name);
                false
            }
        });
        let acc = para.acc.take();
        self.push(BlockKind::Paragraph, acc);
    }

    /// `walk` entering element `n`: whether to descend into it.
    fn enter_elem(&mut self, para: &mut Para, root: u32, n: u32, name: &str) -> bool {
        if n != root && self.skip(n) {
            return false;
        }
        if handled_whole(name, self, n) {
            self.end_paragraph(para);
            self.ctx_link = para.link_depth > 0;
            self.whole(n);
            self.ctx_link = false;
            return false;
        }
        match name {
            "br" => {
                para.brs += 1;
                if para.brs >= 2 {
                    let acc = para.acc.take();
                    self.push(BlockKind::Paragraph, acc);
                } else {
                    para.acc.line_break();
                }
                false
            }
            "hr" => {
                self.end_paragraph(para);
                false
            }
            "a" => {
                para.link_depth += 1;
                if self.an.total[n as usize] > 0 {
                    self.links += 1;
                }
                true
            }
            _ => {
                if is_block(name) {
                    self.end_paragraph(para);
                }
                true
            }
        }
    }

    /// `walk` leaving element `n` (only elements it descended into carry state to undo).
    fn exit_elem(&mut self, para: &mut Para, root: u32, n: u32, name: &str) {
        if n != root && self.skip(n) {
            return;
        }
        if name == "a" && para.link_depth > 0 && !handled_whole(name, self, n) {
            para.link_depth -= 1;
        }
        if is_block(name) && !handled_whole(name, self, n) {
            self.end_paragraph(para);
        }
    }

    /// Emits the paragraph gathered so far and starts a new one.
    fn end_paragraph(&mut self, para: &mut Para) {
        let acc = para.acc.take();
        self.push(BlockKind::Paragraph, acc);
        para.brs = 0;
    }

    /// Emit an element that is turned into blocks as a whole.
    pub(super) fn whole(&mut self, n: u32) {
        let t = self.t;
        let name = t.name(n);
        if let Some(level) = heading_level(name) {
            let acc = self.inline(n, &|_| false);
            self.push_heading(n, level, acc);
        } else if matches!(name, "pre" | "listing" | "plaintext") {
            let acc = self.preformatted(n);
            self.push(BlockKind::Code, acc);
        } else if matches!(name, "ul" | "ol" | "dl" | "dir") {
            let acc = self.list(n);
            self.push(BlockKind::List, acc);
        } else if name == "blockquote" {
            let acc = self.inline(n, &|_| false);
            self.push(BlockKind::Quote, acc);
        } else if name == "table" {
            let (caption, rows) = self.table(n);
            self.push(BlockKind::Paragraph, caption);
            self.push(BlockKind::Table, rows);
        } else if self.an.header_mode[n as usize] {
            self.headings_only(n);
        }
    }
}

/// Elements that `Walker::whole` emits in one go (the generic walk does not
/// descend into them).
fn handled_whole(name: &str, w: &Walker<'_>, n: u32) -> bool {
    heading_level(name).is_some()
        || matches!(
            name,
            "pre" | "listing" | "plaintext" | "ul" | "ol" | "dl" | "dir" | "blockquote"
        )
        || (name == "table" && !w.is_layout_table(n))
        || w.an.header_mode[n as usize]
}

fn list_start(t: &Tree, list: u32) -> i64 {
    t.elem(list).and_then(|e| e.start).unwrap_or(1)
}

/// "تُقرأ خلال 2 دقائق", "5 min read", "مدة القراءة: 3 دقائق" …
fn is_reading_time(text: &str) -> bool {
    if text.chars().count() > 60 {
        return false;
    }
    let lower = text.to_lowercase();
    let unit = [
        "دقائق",
        "دقيقة",
        "دقيقه",
        "min read",
        "minute read",
        "minutes read",
        "mins read",
        "min. read",
    ]
    .iter()
    .any(|u| lower.contains(u));
    let verb = ["قراءة", "تقرأ", "تُقرأ", "القراءة", "read"]
        .iter()
        .any(|v| lower.contains(v));
    unit && verb
}

/// Removes `javascript:`/`vbscript:` URL tokens (up to the next whitespace)
/// from extracted text; other text, including code indentation, is untouched.
pub(super) fn strip_script_urls(s: &str) -> Cow<'_, str> {
    let lower = s.to_ascii_lowercase(); // ASCII-only change: byte offsets match `s`
    if !lower.contains("javascript:") && !lower.contains("vbscript:") {
        return Cow::Borrowed(s);
    }
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let rest = &lower[i..];
        let skip = if rest.starts_with("javascript:") {
            11
        } else if rest.starts_with("vbscript:") {
            9
        } else {
            0
        };
        if skip > 0 {
            let mut j = i + skip;
            while j < s.len() && !bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            // the token ends at ASCII whitespace or at the end: a char boundary
            if out.ends_with(' ') && j < s.len() && bytes[j] == b' ' {
                j += 1;
            }
            i = j;
            continue;
        }
        let c = s[i..].chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    Cow::Owned(out)
}
