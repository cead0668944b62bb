//! MDX through markdown-rs (the only MDX parser): ESM `import`/`export` lines, `{expressions}`
//! and `{/* comments */}` are dropped; JSX components are unwrapped, their prose kept. A file the
//! MDX parser rejects is read as plain Markdown, with a warning.

use markdown::mdast::Node;
use markdown::{Constructs, ParseOptions};

use super::{Body, BlockKind, Document, FileExtraction, frontmatter};
use crate::config::Library;
use crate::diag::Problem;

pub fn extract(file: &str, text: &str, lib: &Library) -> FileExtraction {
    let split = match frontmatter::split(text) {
        Ok(s) => s,
        Err(p) => return FileExtraction::error(file, p),
    };
    let mut doc = Document::default();
    frontmatter::apply(&mut doc, split.fields, lib);
    let pre = super::markdown::preprocess(split.body);
    let mut problems = Vec::new();
    match markdown::to_mdast(&pre, &options()) {
        Ok(tree) => {
            let mut w = Walker::default();
            w.block(&tree);
            doc.body = w.body;
        }
        Err(msg) => {
            let line = msg.place.as_ref().map(|p| match &**p {
                markdown::message::Place::Point(pt) => pt.line,
                markdown::message::Place::Position(pos) => pos.start.line,
            });
            let mut p = Problem::warning("mdx-fallback", format!("not valid MDX ({}); read as plain Markdown", msg.reason))
                .in_file(file.to_string())
                .help("close the JSX tag or `{expression}` the parser points at");
            if let Some(l) = line {
                p = p.at_line(l + split.lines);
            }
            problems.push(p);
            doc.body = super::markdown::render(&pre);
        }
    }
    super::finish(file, doc, problems)
}

fn options() -> ParseOptions {
    let mut opts = ParseOptions::mdx();
    opts.constructs = Constructs { frontmatter: false, gfm_table: true, gfm_strikethrough: true, gfm_task_list_item: true, ..Constructs::mdx() };
    // Without this hook, ESM lines are parsed as paragraph text and leak into evidence.
    opts.mdx_esm_parse = Some(Box::new(|_| markdown::MdxSignal::Ok));
    opts
}

#[derive(Default)]
struct Walker {
    body: Body,
}

impl Walker {
    fn block(&mut self, node: &Node) {
        match node {
            Node::Root(n) => self.blocks(&n.children),
            Node::MdxJsxFlowElement(n) => self.blocks(&n.children),
            Node::Heading(h) => {
                let mut s = String::new();
                inline_all(&h.children, &mut s);
                self.body.push(BlockKind::Heading(h.depth), &s);
            }
            Node::Paragraph(p) => {
                let mut s = String::new();
                inline_all(&p.children, &mut s);
                self.body.push(BlockKind::Paragraph, &s);
            }
            Node::Code(c) => {
                let lang = c.lang.as_deref().unwrap_or("");
                self.body.push(BlockKind::Code, &super::fenced(lang, &c.value));
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
                    flat(c, &mut s);
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
                                inline_all(ch, &mut s);
                            }
                        }
                    }
                }
                self.body.push(BlockKind::Table, &s);
            }
            Node::FootnoteDefinition(f) => self.blocks(&f.children),
            Node::Html(h) => self.body.push(BlockKind::Paragraph, &super::markdown::strip_html(&h.value)),
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

fn inline_all(nodes: &[Node], out: &mut String) {
    for n in nodes {
        inline(n, out);
    }
}

fn inline(node: &Node, out: &mut String) {
    match node {
        Node::Text(t) => out.push_str(&t.value),
        Node::InlineCode(c) => super::markdown::push_inline_code(out, &c.value),
        Node::InlineMath(m) => out.push_str(&m.value),
        Node::Break(_) => out.push('\n'),
        Node::Image(_) | Node::ImageReference(_) | Node::MdxTextExpression(_) | Node::FootnoteReference(_) => {}
        Node::Html(h) => out.push_str(&super::markdown::strip_html(&h.value)),
        other => {
            if let Some(ch) = other.children() {
                inline_all(ch, out);
            }
        }
    }
}

/// Any node's readable text, blocks separated by newlines (for quotes and list items).
fn flat(node: &Node, out: &mut String) {
    match node {
        Node::Paragraph(_) | Node::Heading(_) => {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            if let Some(ch) = node.children() {
                inline_all(ch, out);
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
            list(node, 0, out);
        }
        Node::MdxjsEsm(_) | Node::MdxFlowExpression(_) => {}
        other => match other.children() {
            Some(ch) => {
                for c in ch {
                    flat(c, out);
                }
            }
            None => inline(other, out),
        },
    }
}

fn list(node: &Node, depth: usize, out: &mut String) {
    let Node::List(l) = node else { return };
    let mut n = l.start.unwrap_or(1);
    for item in &l.children {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&"  ".repeat(depth));
        if l.ordered {
            out.push_str(&format!("{n}. "));
            n += 1;
        } else {
            out.push_str("- ");
        }
        let Some(children) = item.children() else { continue };
        let mut first = true;
        for c in children {
            match c {
                Node::List(_) => list(c, depth + 1, out),
                Node::Paragraph(p) => {
                    if !first {
                        out.push(' ');
                    }
                    inline_all(&p.children, out);
                }
                other => {
                    let mut s = String::new();
                    flat(other, &mut s);
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
        w.body.blocks.iter().map(|b| w.body.block_text(b).to_string()).collect()
    }

    #[test]
    fn esm_jsx_and_comments_dropped_prose_kept() {
        let out = render("import Note from './Note';\nexport const a = 1;\n\n## البداية {/*start*/}\n\n<Note type=\"tip\">\n\nنص داخل المكون.\n\n</Note>\n\n{/* تعليق */}\n\nفقرة <Kbd>Ctrl</Kbd> أخيرة.\n");
        assert_eq!(out, vec!["البداية", "نص داخل المكون.", "فقرة Ctrl أخيرة."]);
    }
}
