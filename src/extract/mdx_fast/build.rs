//! The mdast tree from pulldown-cmark's events over the prepared text, checked against what the
//! scanner saw: fences, cuts, `***` markers and the `<`/`{` it left as code.

use markdown::mdast::{self, Node};
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use super::Prepared;

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS
}

/// An open node while events are read.
enum Frame {
    Root,
    Paragraph,
    /// Inline content of a tight list item, which mdast wraps in a paragraph.
    ImplicitParagraph,
    /// Its level, and the id comment that ended its line.
    Heading(u8, Option<String>),
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

pub(super) struct Open {
    frame: Frame,
    children: Vec<Node>,
    pub(super) text: String,
}

impl Open {
    fn new(frame: Frame) -> Open {
        Open {
            frame,
            children: Vec::new(),
            text: String::new(),
        }
    }
}

pub(super) fn build(p: &Prepared) -> Option<Node> {
    let mut stack = vec![Open::new(Frame::Root)];
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
            stack.push(Open::new(Frame::ImplicitParagraph));
        } else if !inline
            && matches!(top, Frame::ImplicitParagraph)
            && !matches!(ev, Event::End(TagEnd::Item))
        {
            close(&mut stack)?;
        }
        match ev {
            Event::Start(tag) => {
                let Some(frame) = start_frame(p, tag, range, &mut fences, &mut code_ranges)? else {
                    image = 1;
                    continue;
                };
                stack.push(Open::new(frame));
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

/// The frame a start tag opens; `Some(None)` for an image (its content is skipped); `None` where
/// pulldown-cmark and markdown-rs may read the document differently (it is declined).
fn start_frame<'a>(
    p: &Prepared,
    tag: Tag<'_>,
    range: std::ops::Range<usize>,
    fences: &mut impl Iterator<Item = &'a (usize, usize)>,
    code_ranges: &mut Vec<(usize, usize)>,
) -> Option<Option<Frame>> {
    let frame = match tag {
        Tag::Paragraph => Frame::Paragraph,
        Tag::Heading { level, .. } => {
            if !p.text[range.start..].trim_start().starts_with('#') {
                return None; // setext: markdown-rs panics on some
            }
            // `heading_ids` is in text order: the first at or after the heading's start.
            let i = p.heading_ids.partition_point(|(at, _)| *at < range.start);
            let id = p
                .heading_ids
                .get(i)
                .filter(|(at, _)| range.contains(at))
                .map(|(_, id)| id.clone());
            Frame::Heading(level as u8, id)
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
        Tag::Image { .. } => return Some(None),
        _ => return None,
    };
    Some(Some(frame))
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
pub(super) fn close(stack: &mut Vec<Open>) -> Option<()> {
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
        Frame::Heading(depth, id) => {
            let mut children = children;
            // As markdown-rs parses it: the id comment is the heading's last child.
            if let Some(id) = id {
                children.push(Node::MdxTextExpression(mdast::MdxTextExpression {
                    value: format!("/*{id}*/"),
                    position: None,
                    stops: Vec::new(),
                }));
            }
            Node::Heading(mdast::Heading {
                children,
                position: None,
                depth,
            })
        }
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
