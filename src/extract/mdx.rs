//! MDX through markdown-rs (the only MDX parser): ESM `import`/`export` lines, `{expressions}`
//! and `{/* comments */}` are dropped; JSX components are unwrapped, their prose kept. A file the
//! MDX parser rejects is read as plain Markdown, with a warning. A comment that ends a heading
//! (`## الأخبار {/*news*/}`, react.dev's heading ids) is kept as the heading's `Block::anchor`.
//!
//! Most files take the fast path first (`mdx_fast`: pulldown-cmark, the same mdast tree for the
//! walker); only a file it declines is parsed by markdown-rs, which is some 30 times slower.

use markdown::mdast::Node;
use markdown::{Constructs, ParseOptions};

use super::{BlockKind, Body, Document, FileExtraction, frontmatter};
use crate::diag::Problem;

pub(super) fn extract(file: &str, text: &str, lib: &super::ExtractSettings) -> FileExtraction {
    let split = match frontmatter::split(text) {
        Ok(s) => s,
        Err(p) => return FileExtraction::error(file, p),
    };
    let mut doc = Document::default();
    if let Err(p) = frontmatter::apply(&mut doc, split.fields, lib) {
        return FileExtraction::error(file, p.at_line(1));
    }
    let pre = super::markdown::preprocess(split.body);
    let mut problems = Vec::new();
    if let Some(why) = too_nested_for_mdx(&pre) {
        problems.push(
            Problem::warning(
                "mdx-fallback",
                format!("{why}: read as plain Markdown instead of MDX"),
            )
            .in_file(file.to_string())
            .help("flatten the nesting; the MDX parser is slow on such input"),
        );
        doc.body = super::markdown::render(&strip_mdx_syntax(&pre));
        super::markdown::shown_frontmatter(&mut doc, lib);
        return super::finish(file, doc, problems);
    }
    // The fast path never panics on any input tried, but a panic must never cost a file.
    if let Some(Some(tree)) = super::guard::quietly(|| super::mdx_fast::to_mdast(&pre)) {
        doc.body = walk(&tree);
        super::markdown::shown_frontmatter(&mut doc, lib);
        return super::finish(file, doc, problems);
    }
    // markdown-rs 1.0 panics on some inputs (open upstream issues: adjacent setext underlines,
    // an unclosed JSX tag in a setext heading, …); such a file is read as plain Markdown too.
    match super::guard::quietly(|| markdown::to_mdast(&pre, &options())) {
        Some(Ok(tree)) => doc.body = walk(&tree),
        Some(Err(msg)) => {
            let line = msg.place.as_ref().map(|p| match &**p {
                markdown::message::Place::Point(pt) => pt.line,
                markdown::message::Place::Position(pos) => pos.start.line,
            });
            let mut p = Problem::warning(
                "mdx-fallback",
                format!("not valid MDX ({}); read as plain Markdown", msg.reason),
            )
            .in_file(file.to_string())
            .help("close the JSX tag or `{expression}` the parser points at");
            if let Some(l) = line {
                p = p.at_line(l + split.lines);
            }
            problems.push(p);
            doc.body = super::markdown::render(&strip_mdx_syntax(&pre));
        }
        None => {
            problems.push(
                Problem::warning("mdx-fallback", "the MDX parser failed on this file (a known markdown-rs bug); read as plain Markdown")
                    .in_file(file.to_string())
                    .help("check the rendered text with `askzico show`; separating adjacent `===`/`---` underlines or closing JSX tags in headings avoids it"),
            );
            doc.body = super::markdown::render(&strip_mdx_syntax(&pre));
        }
    }
    super::markdown::shown_frontmatter(&mut doc, lib);
    super::finish(file, doc, problems)
}

/// The evidence blocks of an MDX tree (from markdown-rs or the fast path).
fn walk(tree: &Node) -> Body {
    let mut w = Walker::default();
    w.block(tree);
    w.body
}

/// A heading's explicit id, written as a trailing comment expression (`## الأخبار {/*news*/}`,
/// react.dev's convention): the comment's text.
fn heading_id(children: &[Node]) -> Option<&str> {
    match children.last()? {
        Node::MdxTextExpression(e) => e.value.trim().strip_prefix("/*")?.strip_suffix("*/"),
        _ => None,
    }
}

/// The body of the tree markdown-rs gives `text`, or `None` where it fails or panics.
#[cfg(test)]
pub(super) fn markdown_rs_body(text: &str) -> Option<Body> {
    match super::guard::quietly(|| markdown::to_mdast(text, &options())) {
        Some(Ok(tree)) => Some(walk(&tree)),
        _ => None,
    }
}

/// The fast path's body for `text`, when it accepts the file.
#[cfg(test)]
pub(super) fn fast_body(text: &str) -> Option<Body> {
    super::mdx_fast::to_mdast(text).map(|t| walk(&t))
}

/// Input on which markdown-rs would take seconds or minutes (deep JSX, brackets or container
/// nesting, huge tables): such files are read as plain Markdown instead.
fn too_nested_for_mdx(text: &str) -> Option<String> {
    const LIMIT: usize = 256;
    let (mut tags, mut brackets, mut max_tags, mut max_brackets) = (0usize, 0usize, 0usize, 0usize);
    let mut fence = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let markers = t
            .chars()
            .take_while(|c| matches!(c, '>' | '-' | '*' | '+' | ' '))
            .filter(|c| *c != ' ')
            .count();
        if markers > 64 {
            return Some(format!("{markers} nested quote/list markers on one line"));
        }
        if line.matches('|').count() > 500 {
            return Some("a table row of more than 500 cells".into());
        }
        let b = line.as_bytes();
        // Only `[`, `]`, `<` and `/` count: the bytes between them (most of a line) are skipped
        // a table lookup each.
        for (i, &c) in b.iter().enumerate().filter(|&(_, &c)| NESTING[c as usize]) {
            match c {
                b'[' => {
                    brackets += 1;
                    max_brackets = max_brackets.max(brackets);
                }
                b']' => brackets = brackets.saturating_sub(1),
                b'<' if b.get(i + 1) == Some(&b'/') => tags = tags.saturating_sub(1),
                b'<' if b.get(i + 1).is_some_and(|n| n.is_ascii_alphabetic()) => {
                    tags += 1;
                    max_tags = max_tags.max(tags);
                }
                b'/' if b.get(i + 1) == Some(&b'>') => tags = tags.saturating_sub(1),
                _ => {}
            }
        }
    }
    if max_tags > LIMIT {
        return Some(format!("JSX nested {max_tags} deep"));
    }
    if max_brackets > LIMIT {
        return Some(format!("brackets nested {max_brackets} deep"));
    }
    None
}

/// The bytes `too_nested_for_mdx` counts.
const NESTING: [bool; 256] = super::byte_set(b"[]</");

/// `text` without its MDX ESM statements (`import … from '…';`, `export const …`), each from a
/// line that starts with `import ` or `export ` outside fenced code to the line that ends it
/// (a `;`, a `from '…'` or a blank line).
pub(super) fn strip_esm(text: std::borrow::Cow<'_, str>) -> std::borrow::Cow<'_, str> {
    if !text.contains("import ") && !text.contains("export ") {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<(char, usize)> = None;
    let mut in_esm = false;
    for line in text.split_inclusive('\n') {
        let t = line.trim_end();
        if in_esm {
            in_esm = !(t.is_empty() || t.ends_with(';') || ends_with_from(t));
            out.push('\n');
            continue;
        }
        let lead = line.trim_start();
        let c = lead.chars().next().unwrap_or(' ');
        let run = lead.chars().take_while(|&x| x == c).count();
        if matches!(c, '`' | '~') && run >= 3 {
            fence = match fence {
                Some((fc, n)) if fc == c && run >= n && lead[run..].trim().is_empty() => None,
                Some(f) => Some(f),
                None => Some((c, run)),
            };
        } else if fence.is_none() && (line.starts_with("import ") || line.starts_with("export ")) {
            in_esm = !(t.ends_with(';') || ends_with_from(t) || t.ends_with('}'));
            out.push('\n');
            continue;
        }
        out.push_str(line);
    }
    std::borrow::Cow::Owned(out)
}

/// Whether an import line ends with its module (`from '…'` or `from "…"`).
fn ends_with_from(line: &str) -> bool {
    (line.ends_with('\'') || line.ends_with('"')) && line.contains(" from ")
}

/// MDX syntax that plain Markdown would keep as text: ESM lines and `{expressions}` outside
/// code. Used when a file is read as Markdown after all, so it must keep every word of the prose:
/// only a brace pair that closes within its paragraph is dropped (an expression), while an
/// unclosed `{`, often the very reason the MDX parser refused the file, stays as text with all
/// that follows it.
fn strip_mdx_syntax(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // The lines of the current paragraph (up to a blank line, a fence or an ESM line).
    let mut para = String::new();
    let mut fence = false;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            strip_expressions(&std::mem::take(&mut para), &mut out);
            fence = !fence;
            out.push_str(line);
            continue;
        }
        if fence {
            out.push_str(line);
            continue;
        }
        if line.starts_with("import ") || line.starts_with("export ") {
            strip_expressions(&std::mem::take(&mut para), &mut out);
            out.push('\n');
            continue;
        }
        if t.trim().is_empty() {
            strip_expressions(&std::mem::take(&mut para), &mut out);
            out.push_str(line);
            continue;
        }
        para.push_str(line);
    }
    strip_expressions(&para, &mut out);
    out
}

/// Appends `para` to `out` less each outermost `{…}` that closes within it, outside inline code;
/// an unmatched brace and the text after it are kept.
fn strip_expressions(para: &str, out: &mut String) {
    if !para.contains('{') {
        out.push_str(para);
        return;
    }
    // Where each open `{` was written to `out`; an outermost one that closes is cut back to.
    let mut open: Vec<usize> = Vec::new();
    // The length of the backtick run that opened inline code, while in it.
    let mut code: Option<usize> = None;
    let mut chars = para.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '`' => {
                let run = para[i..].bytes().take_while(|&b| b == b'`').count();
                for _ in 1..run {
                    chars.next();
                }
                code = match code {
                    None => Some(run),
                    Some(n) if n == run => None,
                    same => same,
                };
                out.push_str(&para[i..i + run]);
            }
            '{' if code.is_none() => {
                open.push(out.len());
                out.push(c);
            }
            '}' if code.is_none() && !open.is_empty() => {
                let start = open.pop().expect("checked");
                if open.is_empty() {
                    out.truncate(start);
                } else {
                    out.push(c);
                }
            }
            c => out.push(c),
        }
    }
}

fn options() -> ParseOptions {
    let mut opts = ParseOptions::mdx();
    opts.constructs = Constructs {
        frontmatter: false,
        gfm_table: true,
        gfm_strikethrough: true,
        gfm_task_list_item: true,
        ..Constructs::mdx()
    };
    // Without this hook, ESM lines are parsed as paragraph text and leak into evidence.
    opts.mdx_esm_parse = Some(Box::new(|_| markdown::MdxSignal::Ok));
    opts
}

/// Deeper nesting than this is not descended into: a 40 KB file of nested quotes must not
/// overflow the stack (readable documents never come close).
const MAX_DEPTH: usize = 128;

/// Elements whose content is code or chrome, never evidence.
fn is_hidden_element(name: Option<&str>) -> bool {
    matches!(
        name.map(|n| n.to_ascii_lowercase()).as_deref(),
        Some("script" | "style" | "template" | "iframe" | "noscript" | "svg" | "object" | "embed")
    )
}

/// The string `label` or `title` of a component wrapping content (`<TabItem label="ويندوز">`,
/// `<Card title="سريع">`, `<Details title=…>`): the site shows it above the content, and the
/// content often makes sense only with it (steps for one OS, a card's claim). Lowercase HTML
/// elements are left out: their `title` is a tooltip, not a label.
fn component_label(n: &markdown::mdast::MdxJsxFlowElement) -> Option<&str> {
    use markdown::mdast::{AttributeContent, AttributeValue};
    let name = n.name.as_deref()?;
    if !name.starts_with(|c: char| c.is_ascii_uppercase()) || n.children.is_empty() {
        return None;
    }
    n.attributes.iter().find_map(|a| match a {
        AttributeContent::Property(p) if is_label_attribute(&p.name) => match &p.value {
            Some(AttributeValue::Literal(v)) if !v.trim().is_empty() => Some(v.trim()),
            _ => None,
        },
        _ => None,
    })
}

/// Attribute names a component's visible label comes in.
pub(super) fn is_label_attribute(name: &str) -> bool {
    matches!(name, "label" | "title")
}

#[derive(Default)]
struct Walker {
    body: Body,
    depth: usize,
}

impl Walker {
    fn block(&mut self, node: &Node) {
        if self.depth > MAX_DEPTH {
            return;
        }
        self.depth += 1;
        self.block_inner(node);
        self.depth -= 1;
    }

    fn block_inner(&mut self, node: &Node) {
        match node {
            Node::Root(n) => self.blocks(&n.children),
            Node::MdxJsxFlowElement(n) if is_hidden_element(n.name.as_deref()) => {}
            Node::MdxJsxFlowElement(n) => {
                if let Some(label) = component_label(n) {
                    self.body.push(BlockKind::Paragraph, label);
                }
                self.blocks(&n.children)
            }
            Node::Heading(h) => {
                let mut s = String::new();
                inline_all(&h.children, &mut s, 0);
                self.body.push_heading(h.depth, &s, heading_id(&h.children));
            }
            Node::Paragraph(p) => {
                let mut s = String::new();
                inline_all(&p.children, &mut s, 0);
                self.body.push(BlockKind::Paragraph, &s);
            }
            Node::Code(c) => {
                let lang = c.lang.as_deref().unwrap_or("");
                self.body
                    .push(BlockKind::Code, &super::fenced(lang, &c.value));
            }
            Node::Math(m) => self.body.push(BlockKind::Code, &m.value),
            Node::List(_) => {
                let mut s = String::new();
                list(node, 0, &mut s);
                self.body.push(BlockKind::List, &s);
            }
            Node::Blockquote(q) => {
                let mut s = String::new();
                for c in &q.children {
                    flat(c, &mut s, 0);
                }
                self.body.push(BlockKind::Quote, &s);
            }
            Node::Table(t) => {
                let mut s = String::new();
                for row in &t.children {
                    if !s.is_empty() {
                        s.push('\n');
                    }
                    if let Node::TableRow(r) = row {
                        for (i, cell) in r.children.iter().enumerate() {
                            if i > 0 {
                                s.push_str(" | ");
                            }
                            if let Some(ch) = cell.children() {
                                inline_all(ch, &mut s, 0);
                            }
                        }
                    }
                }
                self.body.push(BlockKind::Table, &s);
            }
            Node::FootnoteDefinition(f) => self.blocks(&f.children),
            Node::Html(h) => self
                .body
                .push(BlockKind::Paragraph, &super::markdown::strip_html(&h.value)),
            // ESM, expressions, comments, frontmatter, rules, definitions: not evidence.
            _ => {}
        }
    }

    fn blocks(&mut self, nodes: &[Node]) {
        for n in nodes {
            self.block(n);
        }
    }
}

fn inline_all(nodes: &[Node], out: &mut String, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    for n in nodes {
        inline(n, out, depth + 1);
    }
}

fn inline(node: &Node, out: &mut String, depth: usize) {
    match node {
        Node::MdxJsxTextElement(e) if is_hidden_element(e.name.as_deref()) => {}
        Node::Text(t) => out.push_str(&t.value),
        Node::InlineCode(c) => super::markdown::push_inline_code(out, &c.value),
        Node::InlineMath(m) => out.push_str(&m.value),
        Node::Break(_) => out.push('\n'),
        Node::Image(_)
        | Node::ImageReference(_)
        | Node::MdxTextExpression(_)
        | Node::FootnoteReference(_) => {}
        Node::Html(h) => out.push_str(&super::markdown::strip_html(&h.value)),
        other => {
            if let Some(ch) = other.children() {
                inline_all(ch, out, depth);
            }
        }
    }
}

/// Any node's readable text, blocks separated by newlines (for quotes and list items).
fn flat(node: &Node, out: &mut String, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match node {
        Node::Paragraph(_) | Node::Heading(_) => {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            if let Some(ch) = node.children() {
                inline_all(ch, out, depth);
            }
        }
        Node::Code(c) => {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&super::fenced(c.lang.as_deref().unwrap_or(""), &c.value));
        }
        Node::List(_) => {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            list(node, depth, out);
        }
        Node::MdxjsEsm(_) | Node::MdxFlowExpression(_) => {}
        Node::MdxJsxFlowElement(e) if is_hidden_element(e.name.as_deref()) => {}
        other => match other.children() {
            Some(ch) => {
                for c in ch {
                    flat(c, out, depth + 1);
                }
            }
            None => inline(other, out, depth + 1),
        },
    }
}

fn list(node: &Node, depth: usize, out: &mut String) {
    let Node::List(l) = node else { return };
    if depth > 8 {
        // Deeper lists flow inline: no marker or line per item.
        for item in &l.children {
            let mut s = String::new();
            flat(item, &mut s, depth + 1);
            if !s.trim().is_empty() {
                out.push(' ');
                out.push_str(s.trim());
            }
        }
        return;
    }
    let mut n = l.start.unwrap_or(1);
    for item in &l.children {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&"  ".repeat(depth.min(8)));
        if l.ordered {
            out.push_str(&format!("{n}. "));
            n += 1;
        } else {
            out.push_str("- ");
        }
        let Some(children) = item.children() else {
            continue;
        };
        let mut first = true;
        for c in children {
            match c {
                Node::List(_) => list(c, depth + 1, out),
                Node::Paragraph(p) => {
                    if !first {
                        out.push(' ');
                    }
                    inline_all(&p.children, out, depth);
                }
                other => {
                    let mut s = String::new();
                    flat(other, &mut s, depth + 1);
                    if !s.is_empty() {
                        if !first {
                            out.push('\n');
                        }
                        out.push_str(&s);
                    }
                }
            }
            first = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(src: &str) -> Vec<String> {
        let tree = markdown::to_mdast(src, &options()).unwrap();
        let mut w = Walker::default();
        w.block(&tree);
        w.body
            .blocks
            .iter()
            .map(|b| w.body.block_text(b).to_string())
            .collect()
    }

    #[test]
    fn esm_jsx_and_comments_dropped_prose_kept() {
        let out = render(
            "import Note from './Note';\nexport const a = 1;\n\n## البداية {/*start*/}\n\n<Note type=\"tip\">\n\nنص داخل المكون.\n\n</Note>\n\n{/* تعليق */}\n\nفقرة <Kbd>Ctrl</Kbd> أخيرة.\n",
        );
        assert_eq!(out, vec!["البداية", "نص داخل المكون.", "فقرة Ctrl أخيرة."]);
    }

    #[test]
    fn a_component_label_or_title_stays_above_its_content() {
        let out = render(
            "<Tabs>\n<TabItem value=\"win\" label=\"ويندوز\">\n\nشغل المثبت.\n\n</TabItem>\n<TabItem value=\"mac\" label=\"ماك\">\n\nاسحب التطبيق.\n\n</TabItem>\n</Tabs>\n\n<Card title=\"سريع\" icon=\"rocket\">\n\nتوجيه بلا انعكاس.\n\n</Card>\n",
        );
        assert_eq!(
            out,
            vec![
                "ويندوز",
                "شغل المثبت.",
                "ماك",
                "اسحب التطبيق.",
                "سريع",
                "توجيه بلا انعكاس."
            ]
        );
        // Not a label: an HTML element's tooltip, an expression, an empty component.
        let out = render(
            "<div title=\"تلميح\">\n\nنص.\n\n</div>\n\n<Card title={t}>\n\nبطاقة.\n\n</Card>\n\n<Card title=\"فارغة\" />\n",
        );
        assert_eq!(out, vec!["نص.", "بطاقة."]);
    }

    /// The evidence of the plain-Markdown fallback, as `extract` makes it.
    fn fallback_text(src: &str) -> String {
        let body = super::super::markdown::render(&strip_mdx_syntax(src));
        body.blocks
            .iter()
            .map(|b| body.block_text(b).to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_markdown_fallback_keeps_every_word_of_the_prose() {
        for src in [
            // An unclosed `{`: the words after it, on its line and the next.
            "# عنوان\n\nكلمة أولى {غير مغلق كلمة ثانية\nسطر ثالث\n\nفقرة أخيرة\n",
            "نص {قبل {داخل} بعد كلمات\n",
            // An unclosed JSX tag, alone on its line (an HTML block in Markdown) and inline.
            "# عنوان\n\n<Callout type=\"note\">\nداخل المكون\n\nبعد الفراغ\n",
            "فقرة <Badge>وسم بلا إغلاق وكلمات بعده\n",
            // Stray `<`: before a space, before a letter, inside an HTML block.
            "أ < ب وكلام\n\nفقرة <ب كلمة\n\n<Note>\nنص < بلا إغلاق <x كلمة أخرى\n",
        ] {
            assert!(
                markdown::to_mdast(src, &options()).is_err(),
                "not a fallback case: {src:?}"
            );
            let text = fallback_text(src);
            for word in src.split(|c: char| !c.is_alphabetic()) {
                if word.chars().any(|c| ('\u{600}'..='\u{6ff}').contains(&c)) {
                    assert!(text.contains(word), "`{word}` lost from {src:?}: {text:?}");
                }
            }
        }
    }

    #[test]
    fn the_markdown_fallback_drops_closed_expressions_and_esm() {
        let text = fallback_text(
            "import X from './x'\n\nنص {props.value} باق {a\nb} هنا\n\n`{كود}` {/* تعليق */}\n\n<X\n",
        );
        assert_eq!(text, "نص  باق  هنا\n`{كود}`\n<X");
    }
}
