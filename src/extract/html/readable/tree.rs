//! The arena tree the tokenizer sink builds: nodes linked by index, element flags read from
//! attributes, and an iterative traversal (nothing recurses over the DOM).

use html5ever::LocalName;

pub(super) const NONE: u32 = u32::MAX;

pub(super) struct Node {
    pub(super) parent: u32,
    pub(super) first_child: u32,
    pub(super) last_child: u32,
    pub(super) next_sibling: u32,
    pub(super) data: NodeData,
}

pub(super) enum NodeData {
    Root,
    Text(String),
    Elem(Elem),
}

pub(super) struct Elem {
    pub(super) name: LocalName,
    pub(super) flags: u32,
    pub(super) lang: Option<Box<str>>,
    pub(super) start: Option<i64>,
    /// `(key, content)` of interesting `<meta>` tags: key is `refresh`,
    /// `site_name` or `content-language`.
    pub(super) meta: Option<Box<(&'static str, String)>>,
    /// A heading's `id` attribute: the fragment that links its section.
    pub(super) id: Option<Box<str>>,
}

// element flags (from attributes / namespace)
pub(super) const F_FOREIGN: u32 = 1 << 0; // svg/math element
pub(super) const F_INTEGRATION: u32 = 1 << 1; // foreign element whose children are HTML
pub(super) const F_HIDDEN: u32 = 1 << 2; // hidden / aria-hidden / display:none
pub(super) const F_CLASS_CHROME: u32 = 1 << 3;
pub(super) const F_CLASS_HEADER: u32 = 1 << 4;
pub(super) const F_CLASS_CONTENT: u32 = 1 << 5; // class/id words like content, article, post
pub(super) const F_JS_HREF: u32 = 1 << 6; // href/src with javascript:, vbscript: or data:
pub(super) const F_ROLE_CHROME: u32 = 1 << 7;
pub(super) const F_ROLE_MAIN: u32 = 1 << 8;
pub(super) const F_ROLE_PRESENTATION: u32 = 1 << 9;
pub(super) const F_SEARCH: u32 = 1 << 10; // search box / search form
pub(super) const F_ARTICLE_BODY: u32 = 1 << 11; // itemprop=articleBody
pub(super) const F_CLASS_CHROME_TOKEN: u32 = 1 << 12; // whole class token like `sr-only`, `toc`, `lnt`

pub(super) struct Tree {
    pub(super) nodes: Vec<Node>,
    pub(super) html_lang: Option<Box<str>>,
}

impl Tree {
    pub(super) fn elem(&self, i: u32) -> Option<&Elem> {
        match &self.nodes[i as usize].data {
            NodeData::Elem(e) => Some(e),
            _ => None,
        }
    }
    pub(super) fn name(&self, i: u32) -> &str {
        match &self.nodes[i as usize].data {
            NodeData::Elem(e) => &e.name,
            _ => "",
        }
    }
    pub(super) fn flags(&self, i: u32) -> u32 {
        self.elem(i).map_or(0, |e| e.flags)
    }
    pub(super) fn parent(&self, i: u32) -> u32 {
        self.nodes[i as usize].parent
    }
    pub(super) fn children(&self, i: u32) -> Children<'_> {
        Children {
            t: self,
            cur: self.nodes[i as usize].first_child,
        }
    }
}

pub(super) struct Children<'a> {
    pub(super) t: &'a Tree,
    pub(super) cur: u32,
}

impl Iterator for Children<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.cur == NONE {
            return None;
        }
        let c = self.cur;
        self.cur = self.t.nodes[c as usize].next_sibling;
        Some(c)
    }
}

/// Iterative pre/post-order traversal of the subtree at `root`.
/// `f(node, true)` is called on entry and returns whether to descend;
/// `f(node, false)` is called on exit (after the children, or right after
/// entry when not descending).
pub(super) fn traverse(t: &Tree, root: u32, mut f: impl FnMut(u32, bool) -> bool) {
    let mut cur = root;
    let mut descend = f(cur, true);
    loop {
        let fc = t.nodes[cur as usize].first_child;
        if descend && fc != NONE {
            cur = fc;
            descend = f(cur, true);
            continue;
        }
        loop {
            f(cur, false);
            if cur == root {
                return;
            }
            let ns = t.nodes[cur as usize].next_sibling;
            if ns != NONE {
                cur = ns;
                descend = f(cur, true);
                break;
            }
            cur = t.nodes[cur as usize].parent;
        }
    }
}
