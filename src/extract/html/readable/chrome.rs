//! Junk and chrome marking and subtree statistics: which nodes are outside the content, and
//! how much prose, text and commas each subtree holds.

use super::MIN_PROSE_CHARS;
use super::tags::{is_block, is_heading, is_junk_tag};
use super::tree::*;

pub(super) struct Analysis {
    /// node is outside the content (junk, chrome, or inside such)
    pub(super) removed: Vec<bool>,
    /// element whose only content are its headings (`<header>` and friends)
    pub(super) header_mode: Vec<bool>,
    /// non-link text chars under the node (visible nodes only)
    pub(super) prose: Vec<u32>,
    /// all text chars under the node (visible nodes only)
    pub(super) total: Vec<u32>,
    /// commas under the node
    pub(super) commas: Vec<u32>,
}

fn is_junk(t: &Tree, i: u32) -> bool {
    match t.elem(i) {
        Some(e) => is_junk_tag(&e.name) || e.flags & (F_HIDDEN | F_JS_HREF | F_FOREIGN) != 0,
        None => false,
    }
}

/// What a forward pass learns about each node from its ancestors.
struct Context {
    /// junk, or inside junk
    dead: Vec<bool>,
    /// inside an `<a>`
    in_link: Vec<bool>,
    /// inside pre/code: class names belong to syntax highlighting (`token comment`,
    /// `hljs-meta`, `language-js`), so class words do not mark chrome there
    in_code: Vec<bool>,
}

/// Which nodes are chrome, and which elements keep only their headings.
struct Marks {
    removed: Vec<bool>,
    header_mode: Vec<bool>,
}

impl Analysis {
    pub(super) fn new(t: &Tree) -> Self {
        let cx = context(t);
        let guard_prose = guard_prose(t, &cx);
        let marks = mark_chrome(t, &cx, &guard_prose);
        statistics(t, &cx, marks)
    }
}

/// Pass 1 (forward, parents before children): junk, link and code context.
fn context(t: &Tree) -> Context {
    let n = t.nodes.len();
    let mut cx = Context {
        dead: vec![false; n],
        in_link: vec![false; n],
        in_code: vec![false; n],
    };
    for i in 1..n {
        let p = t.nodes[i].parent as usize;
        let name = t.name(i as u32);
        cx.dead[i] = cx.dead[p] || is_junk(t, i as u32);
        cx.in_link[i] = cx.in_link[p] || name == "a";
        cx.in_code[i] =
            cx.in_code[p] || matches!(name, "pre" | "code" | "kbd" | "samp" | "listing");
    }
    cx
}

/// Pass 2 (reverse): the prose the chrome guard weighs; only longer non-link text runs count.
fn guard_prose(t: &Tree, cx: &Context) -> Vec<u32> {
    let n = t.nodes.len();
    let mut guard_prose = vec![0u32; n];
    for i in (1..n).rev() {
        if cx.dead[i] {
            continue;
        }
        if let NodeData::Text(s) = &t.nodes[i].data
            && !cx.in_link[i]
        {
            let len = collapsed_len(s);
            if len >= 30 {
                guard_prose[i] = len as u32;
            }
        }
        let p = t.nodes[i].parent as usize;
        guard_prose[p] = guard_prose[p].saturating_add(guard_prose[i]);
    }
    guard_prose
}

/// Pass 3 (forward): the chrome decision, with guards for elements that hold the page's prose.
fn mark_chrome(t: &Tree, cx: &Context, guard_prose: &[u32]) -> Marks {
    let n = t.nodes.len();
    let page_prose = guard_prose[0];
    let mut removed = vec![false; n];
    let mut header_mode = vec![false; n];
    for i in 1..n {
        let p = t.nodes[i].parent as usize;
        if removed[p] || cx.dead[i] {
            removed[i] = true;
            continue;
        }
        let Some(e) = t.elem(i as u32) else { continue };
        let name: &str = &e.name;
        let gp = guard_prose[i];
        let holds_most = gp >= 500 && gp * 2 >= page_prose;
        let holds_half = gp >= MIN_PROSE_CHARS as u32 && gp * 2 >= page_prose;
        let holds_some = gp >= MIN_PROSE_CHARS as u32 && e.flags & F_CLASS_CONTENT != 0;
        let semantic_content = matches!(name, "article" | "main");
        // headings are structure: `<h2 class="anchor">` (Docusaurus) stays
        let class_chrome = e.flags & F_CLASS_CHROME_TOKEN != 0
            || (e.flags & F_CLASS_CHROME != 0
                && !cx.in_code[i]
                && !matches!(name, "pre" | "code")
                && !is_heading(name));
        let chrome = matches!(name, "nav" | "aside" | "footer" | "menu" | "label")
            || (e.flags & F_ROLE_CHROME != 0 && !semantic_content)
            || (matches!(name, "form" | "fieldset" | "legend") && !holds_half)
            || (class_chrome && !semantic_content && !holds_most && !holds_some);
        if chrome {
            removed[i] = true;
            continue;
        }
        header_mode[i] = (name == "header"
            || (e.flags & F_CLASS_HEADER != 0
                && !semantic_content
                && !cx.in_code[i]
                && is_block(name)))
            && !holds_most
            && !is_heading(name);
    }
    Marks {
        removed,
        header_mode,
    }
}

/// Pass 4 (reverse): prose, text and comma counts over what is left.
fn statistics(t: &Tree, cx: &Context, marks: Marks) -> Analysis {
    let n = t.nodes.len();
    let Marks {
        removed,
        header_mode,
    } = marks;
    let mut prose = vec![0u32; n];
    let mut total = vec![0u32; n];
    let mut commas = vec![0u32; n];
    for i in (1..n).rev() {
        if removed[i] {
            continue;
        }
        if let NodeData::Text(s) = &t.nodes[i].data {
            let len = collapsed_len(s) as u32;
            total[i] = len;
            if !cx.in_link[i] {
                prose[i] = len;
            }
            commas[i] = s
                .chars()
                .filter(|c| matches!(c, ',' | '،' | '؛' | '；' | '，'))
                .count() as u32;
        }
        let p = t.nodes[i].parent as usize;
        prose[p] = prose[p].saturating_add(prose[i]);
        total[p] = total[p].saturating_add(total[i]);
        commas[p] = commas[p].saturating_add(commas[i]);
    }
    Analysis {
        removed,
        header_mode,
        prose,
        total,
        commas,
    }
}

/// Length in chars of `s` after whitespace collapsing and trimming (control characters
/// dropped). Read a byte at a time: ASCII and the Arabic block (lead bytes D8–DB: neither
/// whitespace nor control) are told apart by their first byte, other characters decoded.
pub(super) fn collapsed_len(s: &str) -> usize {
    let b = s.as_bytes();
    let (mut len, mut space) = (0, false);
    let mut i = 0;
    while i < b.len() {
        let (whitespace, control, width) = match b[i] {
            x @ 0..0x80 => (
                matches!(x, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' '),
                x < 0x20 || x == 0x7F,
                1,
            ),
            0xD8..=0xDB => (false, false, 2),
            _ => match s[i..].chars().next() {
                Some(c) => (c.is_whitespace(), c.is_control(), c.len_utf8()),
                None => break,
            },
        };
        if whitespace {
            space = true;
        } else if !control {
            if space && len > 0 {
                len += 1;
            }
            space = false;
            len += 1;
        }
        i += width;
    }
    len
}
