//! The tokenizer sink: a simplified HTML tree builder over html5ever's tokenizer (implicit
//! closes of `p`/`li`/`td`/…, foreign content, raw-text elements dropped at once, depth
//! capped at [`MAX_DEPTH`] so that pathological nesting stays linear).

use std::cell::RefCell;

use html5ever::LocalName;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

use super::MAX_DEPTH;
use super::attrs::{attr, clean_lang, make_elem};
use super::tags::*;
use super::tree::*;

#[derive(Clone, Copy, PartialEq)]
enum Raw {
    No,
    /// inside script/style/…: text is dropped
    Drop,
    /// inside <title>: text is kept
    Keep,
}

struct Builder {
    st: RefCell<BuildState>,
}

/// Element names whose open count is tracked, so that scope searches for them
/// are O(1) when none is open (keeps pathological nesting linear).
const TRACKED: [&str; 13] = [
    "p", "li", "dd", "dt", "a", "nobr", "button", "tr", "td", "th", "tbody", "thead", "tfoot",
];

fn tracked_idx(n: &str) -> Option<usize> {
    TRACKED.iter().position(|t| *t == n)
}

struct BuildState {
    pub(super) nodes: Vec<Node>,
    stack: Vec<u32>,
    open_counts: [u32; TRACKED.len()],
    pub(super) raw: Raw,
    pub(super) html_lang: Option<Box<str>>,
    seen_html: bool,
}

impl BuildState {
    pub(super) fn top(&self) -> u32 {
        *self.stack.last().unwrap_or(&0)
    }
    fn name_of(&self, i: u32) -> &str {
        match &self.nodes[i as usize].data {
            NodeData::Elem(e) => &e.name,
            _ => "",
        }
    }
    fn flags_of(&self, i: u32) -> u32 {
        match &self.nodes[i as usize].data {
            NodeData::Elem(e) => e.flags,
            _ => 0,
        }
    }
    fn in_foreign(&self) -> bool {
        let f = self.flags_of(self.top());
        f & F_FOREIGN != 0 && f & F_INTEGRATION == 0
    }
    fn append(&mut self, parent: u32, data: NodeData) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            parent,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            data,
        });
        let p = &mut self.nodes[parent as usize];
        let last = p.last_child;
        p.last_child = id;
        if last == NONE {
            p.first_child = id;
        } else {
            self.nodes[last as usize].next_sibling = id;
        }
        id
    }
    fn append_text(&mut self, s: &str) {
        let parent = self.top();
        let last = self.nodes[parent as usize].last_child;
        if last != NONE
            && let NodeData::Text(t) = &mut self.nodes[last as usize].data
        {
            t.push_str(s);
            return;
        }
        self.append(parent, NodeData::Text(s.to_string()));
    }
    /// Appends an element to the current node; pushes it on the stack of open
    /// elements when `push` and the depth cap allows it.
    fn insert(&mut self, elem: Elem, push: bool) {
        if push && self.stack.len() > MAX_DEPTH {
            return; // too deep: ignore the tag, keep its content in the parent
        }
        let parent = self.top();
        let id = self.append(parent, NodeData::Elem(elem));
        if push {
            self.push_open(id);
        }
    }
    fn push_open(&mut self, id: u32) {
        if let Some(k) = tracked_idx(self.name_of(id)) {
            self.open_counts[k] += 1;
        }
        self.stack.push(id);
    }
    fn pop_open(&mut self) {
        if self.stack.len() > 1
            && let Some(id) = self.stack.pop()
            && let Some(k) = tracked_idx(self.name_of(id))
        {
            self.open_counts[k] = self.open_counts[k].saturating_sub(1);
        }
    }
    /// Index in the stack of the nearest open element named one of `names`,
    /// searching down from the top and stopping at any of `boundaries`.
    fn find_in_scope(&self, names: &[&str], boundaries: &[&str]) -> Option<usize> {
        let none_open = names
            .iter()
            .all(|n| tracked_idx(n).is_some_and(|k| self.open_counts[k] == 0));
        if none_open {
            return None;
        }
        for j in (1..self.stack.len()).rev() {
            let n = self.name_of(self.stack[j]);
            if names.contains(&n) {
                return Some(j);
            }
            if boundaries.contains(&n) {
                return None;
            }
        }
        None
    }
    fn pop_through(&mut self, j: usize) {
        while self.stack.len() > j.max(1) {
            self.pop_open();
        }
    }
    fn close_p(&mut self) {
        if let Some(j) = self.find_in_scope(&["p"], BUTTON_SCOPE) {
            self.pop_through(j);
        }
    }
    fn close_item(&mut self, names: &[&str]) {
        if names
            .iter()
            .all(|n| tracked_idx(n).is_some_and(|k| self.open_counts[k] == 0))
        {
            return;
        }
        for j in (1..self.stack.len()).rev() {
            let n = self.name_of(self.stack[j]);
            if names.contains(&n) {
                self.pop_through(j);
                return;
            }
            if is_special(n) && !matches!(n, "address" | "div" | "p") {
                return;
            }
        }
    }

    fn start_tag(&mut self, tag: Tag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        match name {
            "html" => {
                self.html_tag(&tag);
                return TokenSinkResult::Continue;
            }
            "head" | "body" => return TokenSinkResult::Continue,
            _ => {}
        }
        if self.in_foreign() && self.start_foreign(&tag) {
            return TokenSinkResult::Continue;
        }
        if let Some(result) = self.start_special(&tag) {
            return result;
        }
        self.close_implied(name);
        let void = is_void(name);
        let plaintext = name == "plaintext";
        self.insert(make_elem(&tag), !void);
        if plaintext {
            return TokenSinkResult::Plaintext;
        }
        TokenSinkResult::Continue
    }

    /// The first `<html>` tag's language.
    fn html_tag(&mut self, tag: &Tag) {
        if !self.seen_html {
            self.seen_html = true;
            self.html_lang = attr(&tag.attrs, "lang")
                .or_else(|| attr(&tag.attrs, "xml:lang"))
                .and_then(clean_lang);
        }
    }

    /// A start tag inside svg/math: inserted as foreign content (true), or a tag that breaks out
    /// of it, which closes the foreign elements and is then handled as HTML (false).
    fn start_foreign(&mut self, tag: &Tag) -> bool {
        let name: &str = &tag.name;
        let breakout = is_breakout(name)
            || (name == "font"
                && ["color", "face", "size"]
                    .iter()
                    .any(|a| attr(&tag.attrs, a).is_some()));
        if breakout {
            while self.stack.len() > 1 && self.in_foreign() {
                self.pop_open();
            }
            return false;
        }
        let mut e = make_elem(tag);
        e.flags |= F_FOREIGN;
        if matches!(
            name,
            "foreignobject"
                | "desc"
                | "title"
                | "mi"
                | "mo"
                | "mn"
                | "ms"
                | "mtext"
                | "annotation-xml"
        ) {
            e.flags |= F_INTEGRATION;
        }
        self.insert(e, !tag.self_closing);
        true
    }

    /// svg/math roots and the raw-text elements (script, style, title, …), whose content the
    /// tokenizer reads as text; `None` for every other tag.
    fn start_special(&mut self, tag: &Tag) -> Option<TokenSinkResult<()>> {
        let raw = match &*tag.name {
            "svg" | "math" => {
                let mut e = make_elem(tag);
                e.flags |= F_FOREIGN;
                self.insert(e, !tag.self_closing);
                return Some(TokenSinkResult::Continue);
            }
            "script" => {
                self.raw = Raw::Drop;
                RawKind::ScriptData
            }
            "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
                self.raw = Raw::Drop;
                RawKind::Rawtext
            }
            "textarea" => {
                self.raw = Raw::Drop;
                RawKind::Rcdata
            }
            "title" => {
                if self.stack.len() > MAX_DEPTH {
                    self.raw = Raw::Drop;
                } else {
                    self.insert(make_elem(tag), true);
                    self.raw = Raw::Keep;
                }
                RawKind::Rcdata
            }
            _ => return None,
        };
        Some(TokenSinkResult::RawData(raw))
    }

    /// The end tags a start tag implies (`<li>` closes the open `li` and `p`, …).
    fn close_implied(&mut self, name: &str) {
        match name {
            "li" => {
                self.close_item(&["li"]);
                self.close_p();
            }
            "dd" | "dt" => {
                self.close_item(&["dd", "dt"]);
                self.close_p();
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.close_p();
                if is_heading(self.name_of(self.top())) {
                    self.pop_open();
                }
            }
            "a" | "nobr" | "button" => {
                if let Some(j) = self.find_in_scope(&[name], DEFAULT_SCOPE) {
                    self.pop_through(j);
                }
            }
            "option" if self.name_of(self.top()) == "option" => {
                self.pop_open();
            }
            "optgroup" => {
                for n in ["option", "optgroup"] {
                    if self.name_of(self.top()) == n {
                        self.pop_open();
                    }
                }
            }
            "tr" => {
                if let Some(j) = self.find_in_scope(&["tr"], &["table", "template", "caption"]) {
                    self.pop_through(j);
                }
            }
            "td" | "th" => {
                if let Some(j) =
                    self.find_in_scope(&["td", "th"], &["tr", "table", "template", "caption"])
                {
                    self.pop_through(j);
                }
            }
            "tbody" | "thead" | "tfoot" => {
                if let Some(j) = self.find_in_scope(
                    &["tbody", "thead", "tfoot", "tr", "td", "th"],
                    &["table", "template", "caption"],
                ) {
                    self.pop_through(j);
                }
            }
            n if closes_p(n) => self.close_p(),
            _ => {}
        }
    }

    fn end_tag(&mut self, tag: Tag) {
        let name: &str = &tag.name;
        if self.raw != Raw::No {
            // the tokenizer only leaves a raw-text state on the matching end tag
            if self.raw == Raw::Keep && self.name_of(self.top()) == "title" {
                self.pop_open();
            }
            self.raw = Raw::No;
            return;
        }
        match name {
            "html" | "head" | "body" => return,
            "br" => {
                let e = Elem {
                    name: LocalName::from("br"),
                    flags: 0,
                    lang: None,
                    start: None,
                    meta: None,
                    id: None,
                };
                self.insert(e, false);
                return;
            }
            _ => {}
        }
        if self.in_foreign() {
            for j in (1..self.stack.len()).rev() {
                let id = self.stack[j];
                if self.flags_of(id) & F_FOREIGN == 0 {
                    break;
                }
                if self.name_of(id) == name {
                    self.pop_through(j);
                    return;
                }
            }
        }
        if name == "p" && self.find_in_scope(&["p"], BUTTON_SCOPE).is_none() {
            // a stray </p> acts as an empty paragraph (a paragraph break)
            let e = Elem {
                name: LocalName::from("p"),
                flags: 0,
                lang: None,
                start: None,
                meta: None,
                id: None,
            };
            self.insert(e, false);
            return;
        }
        let target_special = is_special(name);
        let boundaries: &[&str] = match name {
            "li" => LIST_ITEM_SCOPE,
            "p" => BUTTON_SCOPE,
            "td" | "th" | "tr" | "tbody" | "thead" | "tfoot" | "table" | "caption" => TABLE_SCOPE,
            _ => DEFAULT_SCOPE,
        };
        for j in (1..self.stack.len()).rev() {
            let n = self.name_of(self.stack[j]);
            if n == name {
                self.pop_through(j);
                return;
            }
            if target_special {
                if boundaries.contains(&n) {
                    return;
                }
            } else if is_special(n) {
                return; // e.g. </span> while a <div> inside it is open: ignored
            }
        }
    }
}

impl TokenSink for Builder {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut st = self.st.borrow_mut();
        match token {
            Token::TagToken(tag) => match tag.kind {
                TagKind::StartTag => {
                    if st.raw != Raw::No {
                        // cannot happen (raw states emit no start tags); stay safe
                        return TokenSinkResult::Continue;
                    }
                    return st.start_tag(tag);
                }
                TagKind::EndTag => st.end_tag(tag),
            },
            Token::CharacterTokens(s) if st.raw != Raw::Drop => {
                st.append_text(&s);
            }
            _ => {}
        }
        TokenSinkResult::Continue
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.st.borrow().in_foreign()
    }
}

pub(super) fn parse(src: &str) -> Tree {
    let builder = Builder {
        st: RefCell::new(BuildState {
            nodes: vec![Node {
                parent: NONE,
                first_child: NONE,
                last_child: NONE,
                next_sibling: NONE,
                data: NodeData::Root,
            }],
            stack: vec![0],
            open_counts: [0; TRACKED.len()],
            raw: Raw::No,
            html_lang: None,
            seen_html: false,
        }),
    };
    let tok = Tokenizer::new(builder, TokenizerOpts::default());
    let queue = BufferQueue::default();
    // feed in chunks: a single tendril cannot exceed u32::MAX bytes
    const CHUNK: usize = 1 << 20;
    let mut rest = src;
    while !rest.is_empty() {
        let mut cut = rest.len().min(CHUNK);
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        queue.push_back(StrTendril::from_slice(&rest[..cut]));
        rest = &rest[cut..];
    }
    // we never ask the tokenizer to pause (no Script/EncodingIndicator results),
    // but loop defensively anyway
    for _ in 0..1_000_000 {
        let _ = tok.feed(&queue);
        if queue.is_empty() {
            break;
        }
    }
    tok.end();
    let st = tok.sink.st.into_inner();
    Tree {
        nodes: st.nodes,
        html_lang: st.html_lang,
    }
}
