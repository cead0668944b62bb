//! Main-content extraction from untrusted HTML pages (written for Arabic sites,
//! works for any language).
//!
//! `extract_html` turns one HTML page into either the blocks of its main article
//! (`HtmlOutcome::Doc`) or a human-readable reason why there is nothing to index
//! (`HtmlOutcome::Skip`).
//!
//! Pipeline (everything is iterative, nothing recurses over the DOM):
//! 1. **Tokenize** with html5ever's spec-compliant tokenizer (entity decoding,
//!    raw-text states for `<script>`/`<style>`/… whose content is dropped right there).
//! 2. **Build** a small arena tree with a simplified tree builder (implicit closes of
//!    `p`/`li`/`td`/…, foreign content, depth capped at [`MAX_DEPTH`] so that
//!    100,000 nested `<div>`s cost linear time; html5ever's full tree builder is
//!    quadratic on such input).
//! 3. **Mark** junk (scripts, forms, media, hidden nodes, `javascript:` links) and
//!    chrome (`nav`, `aside`, `footer`, menus, TOC, tags, share, language and theme
//!    switchers, …, by tag, ARIA role and class/id words). A chrome-looking element
//!    is kept when it holds most of the page's prose (guards against
//!    `<form>`-wraps-everything and "content-with-sidebar" wrappers).
//! 4. **Pick the root**: the dominant `<article>`, else `itemprop=articleBody`,
//!    else `<main>`/`role=main`, else a readability-style score.
//! 5. **Walk** the root into blocks (headings, paragraphs, lists, quotes, code,
//!    tables) with whitespace collapsing, and decide Doc vs Skip from the amount of
//!    non-link prose (≥ [`MIN_PROSE_CHARS`]).

use std::borrow::Cow;
use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::{Attribute, LocalName};

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

/// The extractor's block kinds (one type for every format).
pub use crate::extract::BlockKind;

#[derive(Debug, Clone, PartialEq)]
pub struct HtmlDoc {
    pub title: Option<String>,
    pub lang: Option<String>,
    pub blocks: Vec<(BlockKind, String)>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum HtmlOutcome {
    Doc(HtmlDoc),
    /// nothing to index, with a human reason, e.g. "redirect stub to /ar/",
    /// "listing page: only links", "no main content found"
    Skip(String),
}

/// Deepest element nesting that is kept; deeper start tags are ignored (their
/// text is kept, attached to the deepest kept ancestor).
pub const MAX_DEPTH: usize = 256;

/// A page needs at least this many characters of non-link, non-heading text in
/// its main content to become a `Doc`.
pub const MIN_PROSE_CHARS: usize = 200;

/// Extract the main article of an HTML page. Never panics, deterministic.
pub fn extract_html(src: &str) -> HtmlOutcome {
    // A panic here is a bug: the page is skipped with a warning, and the panic's message (meant
    // for developers) stays off the user's terminal.
    crate::extract::guard::quietly(|| extract_inner(src))
        .unwrap_or_else(|| HtmlOutcome::Skip("internal error while extracting HTML".to_string()))
}

/// Concatenated text of all blocks (blank line between blocks); handy for
/// assertions and for quick previews.
pub fn doc_text(doc: &HtmlDoc) -> String {
    let mut out = String::new();
    for (_, t) in &doc.blocks {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(t);
    }
    out
}

/// `Some("ar")` when at least half of the letters in the blocks are Arabic-script
/// letters. Useful because many sites declare a wrong `<html lang>` (EIS1600's
/// Arabic pages declare `en-us`). Does not tell Arabic from Persian/Urdu.
pub fn arabic_script_majority(doc: &HtmlDoc) -> Option<&'static str> {
    let (mut arabic, mut letters) = (0usize, 0usize);
    for (_, t) in &doc.blocks {
        for c in t.chars().filter(|c| c.is_alphabetic()) {
            letters += 1;
            if is_arabic_script(c) {
                arabic += 1;
            }
        }
    }
    (letters > 0 && arabic * 2 >= letters).then_some("ar")
}

fn is_arabic_script(c: char) -> bool {
    matches!(c as u32, 0x0600..=0x06FF | 0x0750..=0x077F | 0x08A0..=0x08FF | 0xFB50..=0xFDFF | 0xFE70..=0xFEFF)
}

// ---------------------------------------------------------------------------
// Arena tree
// ---------------------------------------------------------------------------

const NONE: u32 = u32::MAX;

struct Node {
    parent: u32,
    first_child: u32,
    last_child: u32,
    next_sibling: u32,
    data: NodeData,
}

enum NodeData {
    Root,
    Text(String),
    Elem(Elem),
}

struct Elem {
    name: LocalName,
    flags: u32,
    lang: Option<Box<str>>,
    start: Option<i64>,
    /// `(key, content)` of interesting `<meta>` tags: key is `refresh`,
    /// `site_name` or `content-language`.
    meta: Option<Box<(&'static str, String)>>,
}

// element flags (from attributes / namespace)
const F_FOREIGN: u32 = 1 << 0; // svg/math element
const F_INTEGRATION: u32 = 1 << 1; // foreign element whose children are HTML
const F_HIDDEN: u32 = 1 << 2; // hidden / aria-hidden / display:none
const F_CLASS_CHROME: u32 = 1 << 3;
const F_CLASS_HEADER: u32 = 1 << 4;
const F_CLASS_CONTENT: u32 = 1 << 5; // class/id words like content, article, post
const F_JS_HREF: u32 = 1 << 6; // href/src with javascript:, vbscript: or data:
const F_ROLE_CHROME: u32 = 1 << 7;
const F_ROLE_MAIN: u32 = 1 << 8;
const F_ROLE_PRESENTATION: u32 = 1 << 9;
const F_SEARCH: u32 = 1 << 10; // search box / search form
const F_ARTICLE_BODY: u32 = 1 << 11; // itemprop=articleBody
const F_CLASS_CHROME_TOKEN: u32 = 1 << 12; // whole class token like `sr-only`, `toc`, `lnt`

struct Tree {
    nodes: Vec<Node>,
    html_lang: Option<Box<str>>,
}

impl Tree {
    fn elem(&self, i: u32) -> Option<&Elem> {
        match &self.nodes[i as usize].data {
            NodeData::Elem(e) => Some(e),
            _ => None,
        }
    }
    fn name(&self, i: u32) -> &str {
        match &self.nodes[i as usize].data {
            NodeData::Elem(e) => &e.name,
            _ => "",
        }
    }
    fn flags(&self, i: u32) -> u32 {
        self.elem(i).map_or(0, |e| e.flags)
    }
    fn parent(&self, i: u32) -> u32 {
        self.nodes[i as usize].parent
    }
    fn children(&self, i: u32) -> Children<'_> {
        Children {
            t: self,
            cur: self.nodes[i as usize].first_child,
        }
    }
}

struct Children<'a> {
    t: &'a Tree,
    cur: u32,
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
fn traverse(t: &Tree, root: u32, mut f: impl FnMut(u32, bool) -> bool) {
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

// ---------------------------------------------------------------------------
// Tokenizer sink = simplified tree builder
// ---------------------------------------------------------------------------

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
    nodes: Vec<Node>,
    stack: Vec<u32>,
    open_counts: [u32; TRACKED.len()],
    raw: Raw,
    html_lang: Option<Box<str>>,
    seen_html: bool,
}

impl BuildState {
    fn top(&self) -> u32 {
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
                if !self.seen_html {
                    self.seen_html = true;
                    self.html_lang = attr(&tag.attrs, "lang")
                        .or_else(|| attr(&tag.attrs, "xml:lang"))
                        .and_then(clean_lang);
                }
                return TokenSinkResult::Continue;
            }
            "head" | "body" => return TokenSinkResult::Continue,
            _ => {}
        }
        if self.in_foreign() {
            let breakout = is_breakout(name)
                || (name == "font"
                    && ["color", "face", "size"]
                        .iter()
                        .any(|a| attr(&tag.attrs, a).is_some()));
            if breakout {
                while self.stack.len() > 1 && self.in_foreign() {
                    self.pop_open();
                }
            } else {
                let mut e = make_elem(&tag);
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
                return TokenSinkResult::Continue;
            }
        }
        match name {
            "svg" | "math" => {
                let mut e = make_elem(&tag);
                e.flags |= F_FOREIGN;
                self.insert(e, !tag.self_closing);
                return TokenSinkResult::Continue;
            }
            "script" => {
                self.raw = Raw::Drop;
                return TokenSinkResult::RawData(RawKind::ScriptData);
            }
            "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
                self.raw = Raw::Drop;
                return TokenSinkResult::RawData(RawKind::Rawtext);
            }
            "textarea" => {
                self.raw = Raw::Drop;
                return TokenSinkResult::RawData(RawKind::Rcdata);
            }
            "title" => {
                if self.stack.len() > MAX_DEPTH {
                    self.raw = Raw::Drop;
                    return TokenSinkResult::RawData(RawKind::Rcdata);
                }
                self.insert(make_elem(&tag), true);
                self.raw = Raw::Keep;
                return TokenSinkResult::RawData(RawKind::Rcdata);
            }
            _ => {}
        }
        // implied end tags
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
        let void = is_void(name);
        let plaintext = name == "plaintext";
        self.insert(make_elem(&tag), !void);
        if plaintext {
            return TokenSinkResult::Plaintext;
        }
        TokenSinkResult::Continue
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

fn parse(src: &str) -> Tree {
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

fn attr<'a>(attrs: &'a [Attribute], name: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|a| &*a.name.local == name)
        .map(|a| &*a.value)
}

fn make_elem(tag: &Tag) -> Elem {
    let name: LocalName = if &*tag.name == "image" {
        LocalName::from("img")
    } else {
        tag.name.clone()
    };
    let a = &tag.attrs;
    let mut flags = 0u32;
    if attr(a, "hidden").is_some()
        || attr(a, "aria-hidden").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    {
        flags |= F_HIDDEN;
    }
    if let Some(style) = attr(a, "style") {
        let s: String = style
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        if s.contains("display:none") || s.contains("visibility:hidden") {
            flags |= F_HIDDEN;
        }
    }
    flags |= class_flags(attr(a, "class").unwrap_or(""), attr(a, "id").unwrap_or(""));
    if name.contains('-') {
        // custom elements: <starlight-toc>, <language-picker>, <site-search> …
        flags |= class_flags(&name, "") & (F_CLASS_CHROME | F_CLASS_CONTENT);
    }
    if let Some(role) = attr(a, "role") {
        for r in role.split_ascii_whitespace() {
            match r.to_ascii_lowercase().as_str() {
                "navigation" | "banner" | "contentinfo" | "complementary" | "search" | "menu"
                | "menubar" | "toolbar" | "dialog" | "alertdialog" | "tablist" => {
                    flags |= F_ROLE_CHROME
                }
                "main" => flags |= F_ROLE_MAIN,
                "presentation" | "none" => flags |= F_ROLE_PRESENTATION,
                _ => {}
            }
            if r.eq_ignore_ascii_case("search") {
                flags |= F_SEARCH;
            }
        }
    }
    for key in ["href", "src", "action", "formaction"] {
        if let Some(v) = attr(a, key)
            && is_script_url(v)
        {
            flags |= F_JS_HREF;
        }
    }
    if attr(a, "itemprop").is_some_and(|v| {
        v.split_ascii_whitespace()
            .any(|w| w.eq_ignore_ascii_case("articlebody"))
    }) {
        flags |= F_ARTICLE_BODY;
    }
    match &*name {
        "input" => {
            let ty = attr(a, "type").unwrap_or("").trim().to_ascii_lowercase();
            let nm = attr(a, "name").unwrap_or("").trim().to_ascii_lowercase();
            if ty == "search"
                || matches!(
                    nm.as_str(),
                    "q" | "s" | "query" | "keyword" | "keywords" | "search" | "searchword"
                )
            {
                flags |= F_SEARCH;
            }
        }
        "form" if attr(a, "action").is_some_and(|v| v.to_ascii_lowercase().contains("search")) => {
            flags |= F_SEARCH;
        }
        _ => {}
    }
    let lang = attr(a, "lang")
        .or_else(|| attr(a, "xml:lang"))
        .and_then(clean_lang);
    let start = if &*name == "ol" {
        attr(a, "start")
            .and_then(|s| s.trim().parse::<i64>().ok())
            .map(|n| n.clamp(-1_000_000_000, 1_000_000_000))
    } else {
        None
    };
    let meta = if &*name == "meta" {
        let content = attr(a, "content").unwrap_or("");
        let http = attr(a, "http-equiv")
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let prop = attr(a, "property")
            .or_else(|| attr(a, "name"))
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let key = if http == "refresh" {
            Some("refresh")
        } else if http == "content-language" {
            Some("content-language")
        } else if prop == "og:site_name" || prop == "application-name" {
            Some("site_name")
        } else {
            None
        };
        key.map(|k| Box::new((k, content.to_string())))
    } else {
        None
    };
    Elem {
        name,
        flags,
        lang,
        start,
        meta,
    }
}

fn clean_lang(v: &str) -> Option<Box<str>> {
    let v = v.trim();
    (!v.is_empty()
        && v.len() <= 35
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
    .then(|| v.into())
}

/// `javascript:`, `vbscript:` or `data:` URL (browsers ignore ASCII whitespace
/// and control characters inside the scheme).
fn is_script_url(v: &str) -> bool {
    let scheme: String = v
        .chars()
        .filter(|c| !(c.is_ascii_whitespace() || c.is_control()))
        .take(12)
        .collect::<String>()
        .to_ascii_lowercase();
    scheme.starts_with("javascript:")
        || scheme.starts_with("vbscript:")
        || scheme.starts_with("data:")
}

// ---------------------------------------------------------------------------
// Tag tables
// ---------------------------------------------------------------------------

#[rustfmt::skip]
const DEFAULT_SCOPE: &[&str] = &[
    "applet", "caption", "table", "td", "th", "marquee", "object", "template",
];
#[rustfmt::skip]
const BUTTON_SCOPE: &[&str] = &[
    "applet", "caption", "table", "td", "th", "marquee", "object", "template", "button",
];
#[rustfmt::skip]
const LIST_ITEM_SCOPE: &[&str] = &[
    "applet", "caption", "table", "td", "th", "marquee", "object", "template", "ol", "ul",
];
const TABLE_SCOPE: &[&str] = &["table", "template"];

fn is_heading(n: &str) -> bool {
    matches!(n, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

fn heading_level(n: &str) -> Option<u8> {
    match n {
        "h1" => Some(1),
        "h2" => Some(2),
        "h3" => Some(3),
        "h4" => Some(4),
        "h5" => Some(5),
        "h6" => Some(6),
        _ => None,
    }
}

#[rustfmt::skip]
fn is_void(n: &str) -> bool {
    matches!(
        n,
        "area" | "base" | "basefont" | "bgsound" | "br" | "col" | "embed" | "hr" | "img" |
        "input" | "keygen" | "link" | "meta" | "param" | "source" | "track" | "wbr" | "frame"
    )
}

#[rustfmt::skip]
fn closes_p(n: &str) -> bool {
    matches!(
        n,
        "address" | "article" | "aside" | "blockquote" | "center" | "details" | "dialog" | "dir" |
        "div" | "dl" | "fieldset" | "figcaption" | "figure" | "footer" | "header" | "hgroup" |
        "main" | "menu" | "nav" | "ol" | "p" | "search" | "section" | "summary" | "ul" | "pre" |
        "listing" | "form" | "table" | "hr" | "plaintext"
    )
}

#[rustfmt::skip]
fn is_special(n: &str) -> bool {
    matches!(
        n,
        "address" | "applet" | "area" | "article" | "aside" | "base" | "basefont" | "bgsound" |
        "blockquote" | "body" | "br" | "button" | "caption" | "center" | "col" | "colgroup" |
        "dd" | "details" | "dir" | "div" | "dl" | "dt" | "embed" | "fieldset" | "figcaption" |
        "figure" | "footer" | "form" | "frame" | "frameset" | "h1" | "h2" | "h3" | "h4" | "h5" |
        "h6" | "head" | "header" | "hgroup" | "hr" | "html" | "iframe" | "img" | "input" |
        "keygen" | "li" | "link" | "listing" | "main" | "marquee" | "menu" | "meta" | "nav" |
        "noembed" | "noframes" | "noscript" | "object" | "ol" | "p" | "param" | "plaintext" |
        "pre" | "script" | "search" | "section" | "select" | "source" | "style" | "summary" |
        "table" | "tbody" | "td" | "template" | "textarea" | "tfoot" | "th" | "thead" | "title" |
        "tr" | "track" | "ul" | "wbr" | "xmp"
    )
}

/// HTML start tags that break out of svg/math content.
#[rustfmt::skip]
fn is_breakout(n: &str) -> bool {
    matches!(
        n,
        "b" | "big" | "blockquote" | "body" | "br" | "center" | "code" | "dd" | "div" | "dl" |
        "dt" | "em" | "embed" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "head" | "hr" | "i" |
        "img" | "li" | "listing" | "menu" | "meta" | "nobr" | "ol" | "p" | "pre" | "ruby" | "s" |
        "small" | "span" | "strong" | "strike" | "sub" | "sup" | "table" | "tt" | "u" | "ul" | "var"
    )
}

/// Never content: dropped with their whole subtree.
#[rustfmt::skip]
fn is_junk_tag(n: &str) -> bool {
    matches!(
        n,
        "script" | "style" | "noscript" | "template" | "svg" | "math" | "iframe" | "frame" |
        "frameset" | "object" | "embed" | "applet" | "param" | "canvas" | "audio" | "video" |
        "source" | "track" | "img" | "picture" | "map" | "area" | "head" | "title" | "meta" |
        "link" | "base" | "select" | "option" | "optgroup" | "datalist" | "textarea" | "input" |
        "button" | "output" | "progress" | "meter" | "dialog" | "noembed" | "noframes" | "xmp" |
        "portal" | "slot"
    )
}

/// Elements that end the current paragraph.
#[rustfmt::skip]
fn is_block(n: &str) -> bool {
    matches!(
        n,
        "address" | "article" | "aside" | "blockquote" | "body" | "caption" | "center" | "dd" |
        "details" | "dialog" | "dir" | "div" | "dl" | "dt" | "fieldset" | "figcaption" | "figure" |
        "footer" | "form" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "header" | "hgroup" | "hr" |
        "legend" | "li" | "listing" | "main" | "menu" | "nav" | "ol" | "p" | "plaintext" | "pre" |
        "search" | "section" | "summary" | "table" | "tbody" | "td" | "tfoot" | "th" | "thead" |
        "tr" | "ul" | "html" | "frameset" | "noscript" | "colgroup"
    )
}

// ---------------------------------------------------------------------------
// class / id words
// ---------------------------------------------------------------------------

/// Whole class/id tokens (lower-cased) that mark chrome.
#[rustfmt::skip]
const CHROME_TOKENS: &[&str] = &[
    "toc", "tableofcontents", "table-of-contents", "sr-only", "screen-reader-text",
    "visually-hidden", "visuallyhidden", "skip-link", "skiplink", "headerlink", "hash-link",
    "anchorjs-link", "post-meta", "entry-meta", "article-meta", "meta-info", "read-more",
    "readmore", "more-link", "edit-link", "lang-switch", "lang-switcher", "language-switch",
    "language-switcher", "language-selector", "lang-selector", "lang-menu", "language-menu",
    "languages", "langs", "language-picker",
    // line-number gutters of highlighted code (Hugo/Chroma, highlight.js, Prism, Pygments)
    "lnt", "ln", "lineno", "linenos", "linenodiv", "line-numbers-rows", "gutter",
    "hljs-ln-numbers", "hljs-ln-n", "code-line-number", "line-number", "line-numbers-wrapper",
];

/// Words (class/id split on `-`, `_`, digits and camelCase) that mark chrome.
#[rustfmt::skip]
const CHROME_WORDS: &[&str] = &[
    "nav", "navbar", "navigation", "navlinks", "menu", "menus", "submenu", "megamenu",
    "breadcrumb", "breadcrumbs", "crumbs", "sidebar", "sidebars", "widget", "widgets", "footer",
    "toc", "share", "shares", "sharing", "sharer", "social", "socials", "sns", "tags", "tag",
    "tagcloud", "taglist", "categories", "category", "comment", "comments", "commentlist",
    "disqus", "related", "pagination", "pager", "paginator", "paging", "cookie", "cookies",
    "consent", "gdpr", "advert", "adverts", "advertisement", "ads", "ad", "sponsor", "sponsored",
    "promo", "newsletter", "subscribe", "subscription", "signup", "login", "i18n", "translations",
    "switcher", "toggle", "darkmode", "hamburger", "toolbar", "topbar", "masthead", "banner",
    "skip", "search", "searchbar", "searchform", "modal", "popup", "overlay", "lightbox", "pswp",
    "print", "copyright", "license", "licence", "powered", "poweredby", "powerby", "byline",
    "author", "authors", "meta", "date", "dates", "time", "timestamp", "dateline", "readtime",
    "reading", "posted", "published", "updated", "archive", "archives", "recent", "popular",
    "trending", "rss", "feed", "icon", "icons", "avatar", "logo", "btn", "button", "buttons",
    "badge", "badges", "chip", "chips", "prev", "previous", "next", "prevnext", "backtotop",
    "totop", "scrolltop", "gotop", "dropdown", "follow", "anchor", "permalink", "rating", "likes",
    "views", "cta", "announcement", "breaking", "ticker", "marquee",
];

/// Words that mark a content wrapper (protects a chrome-looking element that holds prose,
/// and counts positively in the fallback score).
#[rustfmt::skip]
const CONTENT_WORDS: &[&str] = &[
    "article", "articlebody", "content", "entry", "post", "body", "main", "text", "story", "prose",
    "markdown", "blog",
];

fn class_flags(class: &str, id: &str) -> u32 {
    let mut flags = 0;
    for token in class
        .split_ascii_whitespace()
        .chain(id.split_ascii_whitespace())
    {
        // Tailwind-style variants: `print:hidden`, `md:text-lg` → the utility part only
        let token = token.rsplit(':').next().unwrap_or(token);
        let lower = token.to_ascii_lowercase();
        if CHROME_TOKENS.contains(&lower.as_str()) {
            flags |= F_CLASS_CHROME_TOKEN;
        }
        for w in split_words(token) {
            if CHROME_WORDS.contains(&w.as_str()) {
                flags |= F_CLASS_CHROME;
            } else if w == "header" {
                flags |= F_CLASS_HEADER;
            } else if CONTENT_WORDS.contains(&w.as_str()) {
                flags |= F_CLASS_CONTENT;
            }
        }
    }
    flags
}

/// `articleBody` → [article, body]; `post-meta_2` → [post, meta].
fn split_words(token: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in token.chars() {
        if c.is_ascii_alphabetic() {
            if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_ascii_lowercase();
            cur.push(c.to_ascii_lowercase());
        } else {
            prev_lower = false;
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

// ---------------------------------------------------------------------------
// Analysis: junk / chrome marking and subtree statistics
// ---------------------------------------------------------------------------

struct Analysis {
    /// node is outside the content (junk, chrome, or inside such)
    removed: Vec<bool>,
    /// element whose only content are its headings (`<header>` and friends)
    header_mode: Vec<bool>,
    /// non-link text chars under the node (visible nodes only)
    prose: Vec<u32>,
    /// all text chars under the node (visible nodes only)
    total: Vec<u32>,
    /// commas under the node
    commas: Vec<u32>,
}

fn is_junk(t: &Tree, i: u32) -> bool {
    match t.elem(i) {
        Some(e) => is_junk_tag(&e.name) || e.flags & (F_HIDDEN | F_JS_HREF | F_FOREIGN) != 0,
        None => false,
    }
}

impl Analysis {
    fn new(t: &Tree) -> Self {
        let n = t.nodes.len();
        // pass 1 (forward, parents before children): junk and link context
        let mut dead = vec![false; n];
        let mut in_link = vec![false; n];
        // inside pre/code: class names belong to syntax highlighting (`token comment`,
        // `hljs-meta`, `language-js`), so class words do not mark chrome there
        let mut in_code = vec![false; n];
        for i in 1..n {
            let p = t.nodes[i].parent as usize;
            let name = t.name(i as u32);
            dead[i] = dead[p] || is_junk(t, i as u32);
            in_link[i] = in_link[p] || name == "a";
            in_code[i] = in_code[p] || matches!(name, "pre" | "code" | "kbd" | "samp" | "listing");
        }
        // pass 2 (reverse): prose used by the chrome guard; only longer text runs
        let mut guard_prose = vec![0u32; n];
        for i in (1..n).rev() {
            if dead[i] {
                continue;
            }
            if let NodeData::Text(s) = &t.nodes[i].data
                && !in_link[i]
            {
                let len = collapsed_len(s);
                if len >= 30 {
                    guard_prose[i] = len as u32;
                }
            }
            let p = t.nodes[i].parent as usize;
            guard_prose[p] = guard_prose[p].saturating_add(guard_prose[i]);
        }
        let page_prose = guard_prose[0];
        // pass 3 (forward): chrome decision with guards
        let mut removed = vec![false; n];
        let mut header_mode = vec![false; n];
        for i in 1..n {
            let p = t.nodes[i].parent as usize;
            if removed[p] || dead[i] {
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
                    && !in_code[i]
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
                    && !in_code[i]
                    && is_block(name)))
                && !holds_most
                && !is_heading(name);
        }
        // pass 4 (reverse): statistics over what is left
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
                if !in_link[i] {
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
}

/// Length in chars of `s` after whitespace collapsing and trimming (control characters
/// dropped). Read a byte at a time: ASCII and the Arabic block (lead bytes D8–DB: neither
/// whitespace nor control) are told apart by their first byte, other characters decoded.
fn collapsed_len(s: &str) -> usize {
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

// ---------------------------------------------------------------------------
// Block walker
// ---------------------------------------------------------------------------

#[derive(Default)]
struct Acc {
    s: String,
    space: bool,
    chars: usize,
    link: usize,
}

impl Acc {
    fn text(&mut self, t: &str, in_link: bool) {
        for c in t.chars() {
            if c.is_whitespace() {
                self.space = true;
                continue;
            }
            if c.is_control() || c == '\u{feff}' || c == '\u{200b}' {
                continue;
            }
            if self.space && !self.s.is_empty() {
                self.s.push(' ');
                self.chars += 1;
            }
            self.space = false;
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
    fn take(&mut self) -> Acc {
        std::mem::take(self)
    }
}

struct Block {
    kind: BlockKind,
    text: String,
    chars: usize,
    link: usize,
}

struct Walker<'a> {
    t: &'a Tree,
    an: &'a Analysis,
    blocks: Vec<Block>,
    /// `<a>` elements with text seen in the content
    links: usize,
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
    fn new(t: &'a Tree, an: &'a Analysis) -> Self {
        Walker {
            t,
            an,
            blocks: Vec::new(),
            links: 0,
            ctx_link: false,
        }
    }

    fn skip(&self, i: u32) -> bool {
        self.an.removed[i as usize] || is_symbol_anchor(self.t, self.an, i)
    }

    fn push(&mut self, kind: BlockKind, acc: Acc) {
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
        });
    }

    /// Whole-subtree inline text; block boundaries become spaces.
    /// `stop` elements (other than `root`) are not descended into.
    fn inline(&mut self, root: u32, stop: &dyn Fn(&str) -> bool) -> Acc {
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

    fn list(&mut self, root: u32) -> Acc {
        let t = self.t;
        let is_list = |n: &str| matches!(n, "ul" | "ol" | "dl" | "menu" | "dir");
        let mut out = Acc::default();
        // frames: (list node, next child to visit, counter)
        let mut frames: Vec<(u32, u32, i64)> = vec![(
            root,
            t.nodes[root as usize].first_child,
            list_start(t, root),
        )];
        while let Some((list, child, counter)) = frames.pop() {
            if child == NONE {
                continue;
            }
            let next = t.nodes[child as usize].next_sibling;
            let ordered = t.name(list) == "ol";
            let mut line_acc;
            let mut nested: Vec<u32> = Vec::new();
            match &t.nodes[child as usize].data {
                NodeData::Text(s) => {
                    line_acc = Acc::default();
                    line_acc.text(s, false);
                }
                NodeData::Elem(e) => {
                    if self.skip(child) {
                        frames.push((list, next, counter));
                        continue;
                    }
                    if is_list(&e.name) {
                        // a list directly inside a list
                        frames.push((list, next, counter));
                        frames.push((
                            child,
                            t.nodes[child as usize].first_child,
                            list_start(t, child),
                        ));
                        continue;
                    }
                    line_acc = self.inline(child, &|n| is_list(n));
                    // nested lists inside this item, in document order
                    traverse(t, child, |n, enter| {
                        if !enter || n == child {
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
                }
                NodeData::Root => {
                    frames.push((list, next, counter));
                    continue;
                }
            }
            let line = line_acc.s.trim();
            let mut counter = counter;
            if !line.is_empty() {
                if !out.s.is_empty() {
                    out.s.push('\n');
                }
                if ordered {
                    out.s.push_str(&format!("{counter}. "));
                    counter = counter.saturating_add(1);
                } else {
                    out.s.push_str("- ");
                }
                out.s.push_str(line);
                out.chars += line_acc.chars;
                out.link += line_acc.link;
            }
            frames.push((list, next, counter));
            for &l in nested.iter().rev() {
                frames.push((l, t.nodes[l as usize].first_child, list_start(t, l)));
            }
        }
        out
    }

    /// Rows of a data table (nested tables are flattened into their cell).
    fn table(&mut self, root: u32) -> (Acc, Acc) {
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
            self.push(BlockKind::Heading(level), acc);
        }
    }

    fn walk(&mut self, root: u32) {
        let t = self.t;
        let mut para = Acc::default();
        let mut brs = 0u32;
        let mut link_depth = 0usize;
        // elements entered with descend=true whose exit must be handled
        traverse(t, root, |n, enter| {
            match &t.nodes[n as usize].data {
                NodeData::Root => true,
                NodeData::Text(s) => {
                    if enter {
                        if !s.chars().all(char::is_whitespace) {
                            brs = 0;
                        }
                        para.text(s, link_depth > 0);
                    }
                    false
                }
                NodeData::Elem(e) => {
                    let name: &str = &e.name;
                    if !enter {
                        // only elements we descended into reach here with state to undo
                        if n != root && self.skip(n) {
                            return false;
                        }
                        if name == "a" && link_depth > 0 && !handled_whole(name, self, n) {
                            link_depth -= 1;
                        }
                        if is_block(name) && !handled_whole(name, self, n) {
                            let acc = para.take();
                            self.push(BlockKind::Paragraph, acc);
                            brs = 0;
                        }
                        return false;
                    }
                    if n != root && self.skip(n) {
                        return false;
                    }
                    if handled_whole(name, self, n) {
                        let acc = para.take();
                        self.push(BlockKind::Paragraph, acc);
                        brs = 0;
                        self.ctx_link = link_depth > 0;
                        self.whole(n);
                        self.ctx_link = false;
                        return false;
                    }
                    match name {
                        "br" => {
                            brs += 1;
                            if brs >= 2 {
                                let acc = para.take();
                                self.push(BlockKind::Paragraph, acc);
                            } else {
                                para.brk();
                            }
                            false
                        }
                        "hr" => {
                            let acc = para.take();
                            self.push(BlockKind::Paragraph, acc);
                            brs = 0;
                            false
                        }
                        "a" => {
                            link_depth += 1;
                            if self.an.total[n as usize] > 0 {
                                self.links += 1;
                            }
                            true
                        }
                        _ => {
                            if is_block(name) {
                                let acc = para.take();
                                self.push(BlockKind::Paragraph, acc);
                                brs = 0;
                            }
                            true
                        }
                    }
                }
            }
        });
        let acc = para.take();
        self.push(BlockKind::Paragraph, acc);
    }

    /// Emit an element that is turned into blocks as a whole.
    fn whole(&mut self, n: u32) {
        let t = self.t;
        let name = t.name(n);
        if let Some(level) = heading_level(name) {
            let acc = self.inline(n, &|_| false);
            self.push(BlockKind::Heading(level), acc);
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
fn strip_script_urls(s: &str) -> Cow<'_, str> {
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

// ---------------------------------------------------------------------------
// Root choice
// ---------------------------------------------------------------------------

enum Choice {
    /// roots to walk; `strict` = semantic root (no block-level link filtering)
    Roots(Vec<u32>, bool),
    /// several comparable `<article>` elements: a listing of cards
    Cards(usize),
}

fn contains_h1(t: &Tree, an: &Analysis, root: u32) -> bool {
    let mut found = false;
    traverse(t, root, |n, enter| {
        if !enter || found || an.removed[n as usize] {
            return false;
        }
        if t.name(n) == "h1" && an.total[n as usize] > 0 {
            found = true;
            return false;
        }
        true
    });
    found
}

/// `a` is `b` or an ancestor of `b`.
fn is_ancestor(t: &Tree, a: u32, b: u32) -> bool {
    let mut cur = b;
    while cur != NONE {
        if cur == a {
            return true;
        }
        cur = t.parent(cur);
    }
    false
}

fn choose_root(t: &Tree, an: &Analysis) -> Choice {
    let n = t.nodes.len();
    // top-level <article> elements that survived chrome removal
    let mut articles: Vec<u32> = Vec::new();
    let mut in_article = vec![false; n];
    for i in 1..n {
        let p = t.nodes[i].parent as usize;
        in_article[i] = in_article[p];
        if an.removed[i] {
            continue;
        }
        if t.name(i as u32) == "article" && !in_article[i] {
            articles.push(i as u32);
            in_article[i] = true;
        }
    }
    if !articles.is_empty() {
        let mut sorted = articles.clone();
        sorted.sort_by(|&a, &b| {
            an.prose[b as usize]
                .cmp(&an.prose[a as usize])
                .then(a.cmp(&b))
        });
        let best = sorted[0];
        if sorted.len() == 1 {
            if (an.prose[best as usize] as usize) < MIN_PROSE_CHARS {
                // a lone small <article> (a card, a widget) while the prose lives
                // elsewhere: accept a scored root that neither contains it nor is inside it
                let alt = scored_roots(t, an);
                let related = |r: u32| is_ancestor(t, r, best) || is_ancestor(t, best, r);
                let alt_prose: usize = alt.iter().map(|&r| an.prose[r as usize] as usize).sum();
                if alt_prose >= MIN_PROSE_CHARS && !alt.iter().any(|&r| related(r)) {
                    return Choice::Roots(alt, false);
                }
            }
            return Choice::Roots(vec![best], true);
        }
        let bp = an.prose[best as usize] as usize;
        let sp = an.prose[sorted[1] as usize] as usize;
        let dominant = bp >= MIN_PROSE_CHARS && bp >= 3 * sp;
        let only_h1 = bp >= MIN_PROSE_CHARS
            && contains_h1(t, an, best)
            && sorted[1..].iter().all(|&a| !contains_h1(t, an, a));
        if dominant || only_h1 {
            return Choice::Roots(vec![best], true);
        }
        return Choice::Cards(articles.len());
    }
    for i in 1..n as u32 {
        if !an.removed[i as usize] && t.flags(i) & F_ARTICLE_BODY != 0 {
            return Choice::Roots(vec![i], true);
        }
    }
    for i in 1..n as u32 {
        if !an.removed[i as usize] && (t.name(i) == "main" || t.flags(i) & F_ROLE_MAIN != 0) {
            return Choice::Roots(vec![i], true);
        }
    }
    Choice::Roots(scored_roots(t, an), false)
}

/// Readability-style scoring for pages without semantic containers.
fn scored_roots(t: &Tree, an: &Analysis) -> Vec<u32> {
    let n = t.nodes.len();
    let mut score = vec![0f64; n];
    let mut is_cand = vec![false; n];
    for i in 1..n {
        if an.removed[i] {
            continue;
        }
        let name = t.name(i as u32);
        let paragraph_like = matches!(name, "p" | "pre" | "td" | "blockquote" | "dd")
            || (matches!(name, "div" | "section" | "font" | "center" | "span")
                && !t.children(i as u32).any(|c| is_block(t.name(c))));
        if !paragraph_like {
            continue;
        }
        let len = an.prose[i] as f64;
        if len < 25.0 {
            continue;
        }
        let s = 1.0 + an.commas[i] as f64 + (len / 100.0).min(3.0);
        let mut anc = t.parent(i as u32);
        let mut level = 0;
        while anc != NONE && anc != 0 && level < 3 {
            if !is_cand[anc as usize] {
                is_cand[anc as usize] = true;
                score[anc as usize] = initial_score(t, anc);
            }
            let div = match level {
                0 => 1.0,
                1 => 2.0,
                l => l as f64 * 3.0,
            };
            score[anc as usize] += s / div;
            anc = t.parent(anc);
            level += 1;
        }
    }
    let mut best = NONE;
    let mut best_score = 0.0;
    for i in 1..n {
        if !is_cand[i] {
            continue;
        }
        let total = an.total[i].max(1) as f64;
        let link_density = 1.0 - (an.prose[i] as f64 / total).min(1.0);
        score[i] *= 1.0 - link_density;
        if score[i] > best_score {
            best_score = score[i];
            best = i as u32;
        }
    }
    if best == NONE {
        return vec![0];
    }
    // siblings that look like part of the same content
    let parent = t.parent(best);
    if parent == NONE {
        return vec![best];
    }
    let threshold = (best_score * 0.2).max(10.0);
    let mut roots = Vec::new();
    for c in t.children(parent) {
        if c == best {
            roots.push(c);
            continue;
        }
        if an.removed[c as usize] || t.elem(c).is_none() {
            continue;
        }
        let total = an.total[c as usize] as f64;
        let prose = an.prose[c as usize] as f64;
        let link_density = if total > 0.0 {
            1.0 - prose / total
        } else {
            1.0
        };
        let keep = (is_cand[c as usize] && score[c as usize] >= threshold)
            || (t.name(c) == "p" && prose > 80.0 && link_density < 0.25);
        if keep {
            roots.push(c);
        }
    }
    roots
}

fn initial_score(t: &Tree, i: u32) -> f64 {
    let mut s = match t.name(i) {
        "div" | "article" | "section" | "main" => 5.0,
        "pre" | "td" | "blockquote" => 3.0,
        "address" | "ol" | "ul" | "dl" | "dd" | "dt" | "li" | "form" => -3.0,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "th" => -5.0,
        _ => 0.0,
    };
    let f = t.flags(i);
    if f & F_CLASS_CONTENT != 0 {
        s += 25.0;
    }
    if f & (F_CLASS_CHROME | F_CLASS_CHROME_TOKEN) != 0 {
        s -= 25.0;
    }
    s
}

// ---------------------------------------------------------------------------
// Page metadata and the final decision
// ---------------------------------------------------------------------------

struct PageMeta {
    title: Option<String>,
    refresh: Option<(f64, Option<String>)>,
    site_name: Option<String>,
    content_language: Option<Box<str>>,
}

fn page_meta(t: &Tree) -> PageMeta {
    let mut m = PageMeta {
        title: None,
        refresh: None,
        site_name: None,
        content_language: None,
    };
    for i in 1..t.nodes.len() as u32 {
        let Some(e) = t.elem(i) else { continue };
        match &*e.name {
            "title" if m.title.is_none() && e.flags & F_FOREIGN == 0 => {
                let mut acc = Acc::default();
                for c in t.children(i) {
                    if let NodeData::Text(s) = &t.nodes[c as usize].data {
                        acc.text(s, false);
                    }
                }
                let s = acc.s.trim();
                if !s.is_empty() {
                    m.title = Some(s.to_string());
                }
            }
            "meta" => {
                if let Some(b) = &e.meta {
                    let (key, content) = (&b.0, &b.1);
                    match *key {
                        "refresh" if m.refresh.is_none() => m.refresh = parse_refresh(content),
                        "site_name" if m.site_name.is_none() => {
                            let mut acc = Acc::default();
                            acc.text(content, false);
                            if !acc.s.is_empty() {
                                m.site_name = Some(acc.s);
                            }
                        }
                        "content-language" if m.content_language.is_none() => {
                            m.content_language = content.split(',').next().and_then(clean_lang);
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    m
}

/// `content="0; url=https://x/"` → (0.0, Some("https://x/"))
fn parse_refresh(content: &str) -> Option<(f64, Option<String>)> {
    let c = content.trim();
    let digits: String = c
        .chars()
        .take_while(|ch| ch.is_ascii_digit() || *ch == '.')
        .collect();
    let delay: f64 = if digits.is_empty() {
        0.0
    } else {
        digits.parse().unwrap_or(0.0)
    };
    let rest = c[digits.len()..]
        .trim_start_matches(|ch: char| ch.is_whitespace() || ch == ';' || ch == ',');
    let url = {
        let r = rest.trim();
        let r = if r.len() >= 3 && r[..3].eq_ignore_ascii_case("url") {
            r[3..]
                .trim_start()
                .strip_prefix('=')
                .map(str::trim_start)
                .unwrap_or(r)
        } else {
            r
        };
        let r = r.trim_matches(|ch: char| ch == '"' || ch == '\'' || ch.is_whitespace());
        (!r.is_empty()).then(|| r.to_string())
    };
    Some((delay, url))
}

fn strip_title_suffix(title: &str, site_name: Option<&str>) -> String {
    const SEPS: &[&str] = &[
        " | ", " - ", " – ", " — ", " :: ", " · ", " • ", " « ", " » ", " ~ ",
    ];
    let t = title.trim();
    if let Some(site) = site_name.map(str::trim).filter(|s| !s.is_empty()) {
        for sep in SEPS {
            if let Some(head) = t.strip_suffix(site).and_then(|h| h.strip_suffix(sep))
                && !head.trim().is_empty()
            {
                return head.trim().to_string();
            }
            if let Some(tail) = t.strip_prefix(site).and_then(|h| h.strip_prefix(sep))
                && !tail.trim().is_empty()
            {
                return tail.trim().to_string();
            }
        }
    }
    // generic: drop a short last segment (the site name)
    let mut best: Option<(usize, usize)> = None;
    for sep in SEPS {
        if let Some(pos) = t.rfind(sep)
            && best.is_none_or(|(p, _)| pos > p)
        {
            best = Some((pos, sep.len()));
        }
    }
    if let Some((pos, len)) = best {
        let (head, tail) = (t[..pos].trim(), t[pos + len..].trim());
        let tail_words = tail.split_whitespace().count();
        if !head.is_empty() && tail_words <= 4 && tail.chars().count() <= head.chars().count() {
            return head.to_string();
        }
    }
    t.to_string()
}

fn is_not_found(text: &str) -> bool {
    let l = text.to_lowercase();
    l.contains("404")
        || l.contains("not found")
        || l.contains("غير موجود")
        || l.contains("غير موجودة")
        || l.contains("لم يتم العثور")
        || l.contains("تعذر العثور")
        || l.contains("لا توجد صفحة")
}

fn sanitize_reason_url(url: &str) -> String {
    if is_script_url(url) {
        return "(script URL dropped)".to_string();
    }
    let clean: String = url
        .chars()
        .filter(|c| !c.is_control() && !c.is_whitespace())
        .take(200)
        .collect();
    clean
}

fn extract_inner(src: &str) -> HtmlOutcome {
    if src.trim().is_empty() {
        return HtmlOutcome::Skip("empty document".to_string());
    }
    let tree = parse(src);
    let meta = page_meta(&tree);
    if let Some((delay, Some(url))) = &meta.refresh
        && *delay <= 10.0
    {
        return HtmlOutcome::Skip(format!("redirect stub to {}", sanitize_reason_url(url)));
    }
    let an = Analysis::new(&tree);
    let (roots, strict) = match choose_root(&tree, &an) {
        Choice::Cards(k) => {
            return HtmlOutcome::Skip(format!(
                "listing page: {k} article cards and no dominant article"
            ));
        }
        Choice::Roots(r, s) => (r, s),
    };
    let mut w = Walker::new(&tree, &an);
    for &r in &roots {
        w.walk(r);
    }
    let mut blocks = w.blocks;
    if !strict {
        // no semantic container: drop link lists and link-only lines
        blocks.retain(|b| {
            matches!(b.kind, BlockKind::Heading(_) | BlockKind::Code)
                || !(b.link * 2 >= b.chars && b.chars - b.link < 40)
        });
    }
    let prose: usize = blocks
        .iter()
        .filter(|b| !matches!(b.kind, BlockKind::Heading(_)))
        .map(|b| b.chars.saturating_sub(b.link))
        .sum();
    let link: usize = blocks.iter().map(|b| b.link).sum();
    let h1 = blocks
        .iter()
        .find(|b| b.kind == BlockKind::Heading(1))
        .map(|b| b.text.clone());
    let mostly_links = link * 100 > (link + prose) * 65 && prose < 600;
    if prose < MIN_PROSE_CHARS || mostly_links {
        let headings: Vec<&str> = blocks
            .iter()
            .filter(|b| matches!(b.kind, BlockKind::Heading(_)))
            .map(|b| b.text.as_str())
            .collect();
        let not_found = meta.title.as_deref().is_some_and(is_not_found)
            || headings.first().is_some_and(|h| is_not_found(h));
        // a search box inside the chosen content area (not one in a sidebar)
        let search_in_content = roots.iter().any(|&r| {
            let mut found = false;
            traverse(&tree, r, |n, enter| {
                if enter && tree.flags(n) & F_SEARCH != 0 {
                    found = true;
                }
                enter && !found
            });
            found
        });
        let reason = if not_found {
            format!("not-found (404) page ({prose} chars of prose)")
        } else if search_in_content && prose < MIN_PROSE_CHARS {
            format!("search page: no indexable content ({prose} chars of prose)")
        } else if w.links >= 2 || (w.links > 0 && link >= prose) || mostly_links {
            format!(
                "listing page: only links ({} links, {prose} chars of prose)",
                w.links
            )
        } else if prose == 0 {
            "no main content found".to_string()
        } else {
            format!("no main content found (only {prose} chars of prose, need {MIN_PROSE_CHARS})")
        };
        return HtmlOutcome::Skip(reason);
    }
    let title = h1.or_else(|| {
        meta.title
            .as_deref()
            .map(|t| strip_title_suffix(t, meta.site_name.as_deref()))
            .map(|t| strip_script_urls(&t).trim().to_string())
    });
    let title = title.filter(|t| !t.is_empty());
    // nearest declared language: root or its ancestors, then <html>, then <meta>
    let mut lang: Option<Box<str>> = None;
    let mut cur = roots.first().copied().unwrap_or(0);
    while cur != NONE && cur != 0 {
        if let Some(l) = tree.elem(cur).and_then(|e| e.lang.clone()) {
            lang = Some(l);
            break;
        }
        cur = tree.parent(cur);
    }
    let lang = lang
        .or_else(|| tree.html_lang.clone())
        .or(meta.content_language)
        .map(|l| l.to_string());
    HtmlOutcome::Doc(HtmlDoc {
        title,
        lang,
        blocks: blocks.into_iter().map(|b| (b.kind, b.text)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The byte-at-a-time count is the count over chars, as first written.
        #[test]
        fn collapsed_len_counts_chars(s in "[ \t\n\r\u{0B}\u{0C}\u{85}\u{A0}\u{2009}\u{3000}\u{0}\u{1F}\u{7F}\u{9F}a،ابة\u{64B}\u{6F0}\u{200F}\u{1F642}]{0,40}") {
            let mut len = 0;
            let mut space = false;
            for c in s.chars() {
                if c.is_whitespace() {
                    space = true;
                } else if !c.is_control() {
                    if space && len > 0 {
                        len += 1;
                    }
                    space = false;
                    len += 1;
                }
            }
            proptest::prop_assert_eq!(collapsed_len(&s), len);
        }
    }

    // Our own sentences (not taken from any corpus).
    const P1: &str = "كتبت هذه الفقرة خصيصا لاختبار أداة الاستخراج، وهي تصف مكتبة صغيرة في حي قديم يزورها الطلاب كل صباح ليقرؤوا الكتب ويتناقشوا مع أمينها الذي يحفظ قصة كل مخطوطة على الرفوف.";
    const P2: &str = "وفي المساء تتحول المكتبة إلى مجلس للحديث عن الشعر والتاريخ، فيجلس الكبار والصغار معا حول مصباح واحد، ويقرأ كل واحد منهم صفحة من كتاب اختاره بنفسه ثم يشرح لماذا أحبه.";

    fn page(body: &str) -> String {
        format!(
            "<!doctype html><html lang=\"ar\" dir=\"rtl\"><head><meta charset=utf-8>\
             <title>صفحة تجريبية | موقعي</title></head><body>{body}</body></html>"
        )
    }

    fn doc(html: &str) -> HtmlDoc {
        match extract_html(html) {
            HtmlOutcome::Doc(d) => d,
            HtmlOutcome::Skip(r) => panic!("unexpected Skip({r})"),
        }
    }

    fn skip(html: &str) -> String {
        match extract_html(html) {
            HtmlOutcome::Skip(r) => r,
            HtmlOutcome::Doc(d) => panic!("unexpected Doc: {d:?}"),
        }
    }

    fn para(s: &str) -> (BlockKind, String) {
        (BlockKind::Paragraph, s.to_string())
    }

    #[test]
    fn decodes_entities_and_collapses_whitespace() {
        let html = page(&format!(
            "<article><p>قال &quot;أهلا&quot;&nbsp;&nbsp;يا\n\t صديقي: \
             &#1575;&#1604;&#1593;&#1585;&#1576;&#1610;&#1577; &amp; &lt;b&gt; \
             &#x627;&#x644;&#x62E;&#x637;&hellip;</p><p>{P1}</p><p>{P2}</p></article>"
        ));
        let d = doc(&html);
        assert_eq!(
            d.blocks[0],
            para("قال \"أهلا\" يا صديقي: العربية & <b> الخط…")
        );
        assert_eq!(d.blocks[1], para(P1));
        assert_eq!(d.blocks.len(), 3);
    }

    #[test]
    fn removes_nav_header_footer_aside_and_widgets() {
        let html = page(&format!(
            r##"<header class="site-header"><a href="/">شعار الموقع</a>
               <nav><ul><li><a href="/">الرئيسية</a></li><li><a href="/about">من نحن</a></li></ul></nav></header>
               <div class="breadcrumbs"><a href="/">الصفحة الأم</a> › <a href="/blog">المدونة</a></div>
               <main><article>
                 <header class="entry-header"><a class="category" href="/c">تصنيف أول</a><h1>عنوان المقال التجريبي</h1>
                   <div class="post-meta"><time>٢٠٢٤</time> <span>تُقرأ خلال 3 دقائق</span></div></header>
                 <p>{P1}</p>
                 <nav id="TableOfContents"><ol><li><a href="#a">قسم الفهرس</a></li></ol></nav>
                 <div class="toc"><a href="#b">فهرس ثان</a></div>
                 <p>{P2}</p>
                 <div class="share-buttons"><a href="https://example.com/s">شارك على المنصة</a></div>
                 <footer><span class="tags"><a href="/t/1">وسم أول</a></span></footer>
               </article></main>
               <aside class="sidebar"><h3>مقالات ذات صلة</h3><ul><li><a href="/p/2">مقال آخر</a></li></ul></aside>
               <footer class="site-footer"><p>جميع الحقوق محفوظة لموقعي التجريبي منذ سنوات طويلة جدا</p></footer>
               <select name="language"><option>English</option><option>العربية</option></select>
               <div id="dark-mode-toggle"><span>الوضع الداكن</span></div>
               <form class="search-form"><input name="q" placeholder="ابحث هنا"><button>ابحث</button></form>"##
        ));
        let d = doc(&html);
        assert_eq!(
            d.blocks,
            vec![
                (BlockKind::Heading(1), "عنوان المقال التجريبي".to_string()),
                para(P1),
                para(P2)
            ]
        );
        assert_eq!(d.title.as_deref(), Some("عنوان المقال التجريبي"));
        assert_eq!(d.lang.as_deref(), Some("ar"));
        let text = doc_text(&d);
        for chrome in [
            "شعار",
            "الرئيسية",
            "من نحن",
            "المدونة",
            "تصنيف",
            "٢٠٢٤",
            "تُقرأ",
            "الفهرس",
            "فهرس",
            "شارك",
            "وسم",
            "ذات صلة",
            "مقال آخر",
            "الحقوق",
            "English",
            "الوضع الداكن",
            "ابحث",
        ] {
            assert!(
                !text.contains(chrome),
                "chrome {chrome:?} leaked into {text:?}"
            );
        }
    }

    #[test]
    fn script_style_and_hostile_markup_never_reach_the_output() {
        let html = page(&format!(
            r##"<article><h1>عنوان آمن</h1>
               <script>document.write("كلمةمخفية1")</script>
               <style>.x {{ content: "كلمةمخفية2" }}</style>
               <noscript><p>كلمةمخفية3</p></noscript>
               <template><p>كلمةمخفية4</p></template>
               <svg><title>كلمةمخفية5</title><script>alert("كلمةمخفية6")</script><foreignObject><script>x="</svg><p>كلمةمخفية7</p>"</script></foreignObject></svg>
               <p>{P1} <a href="javascript:alert('كلمةمخفية8')">رابط مريب</a> <a href=" JaVa&#x09;script:void(0)">كلمةمخفية9</a>
                  javascript:alert(1) <img src=x onerror="alert('كلمةمخفية10')" alt="كلمةمخفية11"></p>
               <iframe src="https://example.com/">كلمةمخفية12</iframe>
               <p onmouseover="alert('كلمةمخفية13')">{P2}</p>
               <SCRIPT type="text/javascript">var s = "</scr" + "ipt>"; var t = "كلمةمخفية14";</SCRIPT>
               <script><!--<script>var u = "كلمةمخفية15";</script>--></script>
               <pre>vbscript:msgbox(1) نص برمجي</pre>
               <button onclick="steal()">كلمةمخفية16</button>
               <textarea>كلمةمخفية17</textarea><xmp>كلمةمخفية18</xmp>
               <div hidden>كلمةمخفية19</div><div style="display: none">كلمةمخفية20</div><span aria-hidden="true">كلمةمخفية21</span>
               </article>"##
        ));
        let d = doc(&html);
        let text = doc_text(&d);
        for bad in [
            "كلمةمخفية",
            "alert",
            "javascript",
            "vbscript",
            "document.write",
            "content:",
            "onerror",
            "steal",
        ] {
            assert!(
                !text.to_lowercase().contains(bad),
                "{bad:?} leaked into {text:?}"
            );
        }
        assert!(text.contains(P1) && text.contains(P2));
        assert!(text.contains("نص برمجي"));
        // an <a> pointing to javascript: is a UI control: its text goes too
        assert!(!text.contains("رابط مريب"));
    }

    #[test]
    fn event_handler_attributes_are_not_text() {
        let html = page(&format!(
            r##"<article><div onclick="alert('كلمةمخفية')" onmouseover="steal(document.cookie)">{P1}</div>
               <div>{P2}</div></article>"##
        ));
        let d = doc(&html);
        assert_eq!(d.blocks, vec![para(P1), para(P2)]);
    }

    #[test]
    fn redirect_stubs_are_skipped() {
        let stub = r##"<!DOCTYPE html><html lang="en-us"><head><title>https://example.org/ar/</title>
            <meta name="robots" content="noindex"><meta charset="utf-8">
            <meta http-equiv="refresh" content="0; url=/ar/"></head></html>"##;
        assert_eq!(skip(stub), "redirect stub to /ar/");
        let upper = r##"<META HTTP-EQUIV="Refresh" CONTENT="2;URL='https://example.org/new/'">"##;
        assert_eq!(skip(upper), "redirect stub to https://example.org/new/");
        let js = r##"<meta http-equiv="refresh" content="0;url=javascript:alert(1)">"##;
        assert!(!skip(js).contains("javascript"));
        // an auto-reload (no target) on a real article is not a redirect
        let reload = format!(
            r##"<meta http-equiv="refresh" content="300"><article><p>{P1}</p><p>{P2}</p></article>"##
        );
        assert_eq!(doc(&reload).blocks.len(), 2);
        // a tiny page with just a "moved" link
        let tiny = page(r##"<p>انتقلت الصفحة إلى <a href="/new">هنا</a></p>"##);
        assert!(
            skip(&tiny).starts_with("no main content found"),
            "{}",
            skip(&tiny)
        );
    }

    #[test]
    fn listing_pages_are_skipped() {
        let mut cards = String::new();
        for i in 1..=4 {
            cards.push_str(&format!(
                r##"<article><a href="/p/{i}"><h2>عنوان المنشور رقم {i}</h2></a><time>منذ يومين</time>
                   <p>مقتطف قصير من المنشور يشرح فكرته</p></article>"##
            ));
        }
        let r = skip(&page(&format!("<main><h1>المنشورات</h1>{cards}</main>")));
        assert!(r.starts_with("listing page"), "{r}");

        let mut links = String::new();
        for i in 1..=20 {
            links.push_str(&format!(
                r##"<li><a href="/p/{i}">مقال في التاريخ الإسلامي رقم {i}</a></li>"##
            ));
        }
        let r = skip(&page(&format!(
            "<main><h1>تصنيف: تاريخ</h1><ul>{links}</ul></main>"
        )));
        assert!(r.starts_with("listing page: only links"), "{r}");
        // same without any semantic container
        let r = skip(&page(&format!(
            "<div><h2>الأرشيف</h2><ul>{links}</ul></div>"
        )));
        assert!(
            r.starts_with("listing page") || r.starts_with("no main content"),
            "{r}"
        );
    }

    #[test]
    fn not_found_and_search_pages_are_skipped() {
        let nf = r##"<html><head><title>الصفحة غير موجودة</title></head><body><main>
            <h1>خطأ 404</h1><p>عذرا، لم نجد ما تبحث عنه.</p></main></body></html>"##;
        assert!(skip(nf).contains("404"));
        let search = page(
            r##"<main><form action="/search"><input type="search" name="q"></form><div class="results"></div></main>"##,
        );
        assert!(
            skip(&search).starts_with("search page"),
            "{}",
            skip(&search)
        );
    }

    #[test]
    fn short_real_articles_are_kept_and_too_short_ones_skipped() {
        let d = doc(&page(&format!(
            "<article><h1>خبر قصير</h1><p>{P1} {P2}</p></article>"
        )));
        assert_eq!(d.blocks.len(), 2);
        let short = page(
            "<article><h1>خبر قصير جدا</h1><p>جملة واحدة فقط لا تكفي لتكون مقالا.</p></article>",
        );
        assert!(skip(&short).contains("chars of prose"));
    }

    #[test]
    fn maps_headings_lists_quotes_code_and_tables() {
        let html = page(&format!(
            r##"<article>
            <h1>العنوان الأول</h1><h2>عنوان فرعي</h2><h3>عنوان ثالث</h3><h4>رابع</h4><h5>خامس</h5><h6>سادس</h6>
            <p>{P1}</p>
            <ul><li>عنصر أول</li><li>عنصر <b>ثان</b><ul><li>عنصر متداخل</li></ul></li></ul>
            <ol start="3"><li>الخطوة الأولى</li><li><p>الخطوة</p><p>الثانية</p></li></ol>
            <blockquote><p>قال الحكيم:</p><p>العلم   نور</p></blockquote>
            <pre><code>fn main() {{
    println!("مرحبا");
}}</code></pre>
            <pre>
  سطر بمسافة بادئة</pre>
            <table><thead><tr><th>الاسم</th><th>العمر</th></tr></thead>
              <tbody><tr><td>علي</td><td>٣٠</td></tr><tr><td><a href="/f">فاطمة</a></td><td>٢٥</td></tr></tbody></table>
            <p>{P2}</p>
            <dl><dt>مصطلح</dt><dd>تعريفه</dd></dl>
            </article>"##
        ));
        let d = doc(&html);
        let expected: Vec<(BlockKind, String)> = vec![
            (BlockKind::Heading(1), "العنوان الأول".into()),
            (BlockKind::Heading(2), "عنوان فرعي".into()),
            (BlockKind::Heading(3), "عنوان ثالث".into()),
            (BlockKind::Heading(4), "رابع".into()),
            (BlockKind::Heading(5), "خامس".into()),
            (BlockKind::Heading(6), "سادس".into()),
            para(P1),
            (
                BlockKind::List,
                "- عنصر أول\n- عنصر ثان\n- عنصر متداخل".into(),
            ),
            (BlockKind::List, "3. الخطوة الأولى\n4. الخطوة الثانية".into()),
            (BlockKind::Quote, "قال الحكيم: العلم نور".into()),
            (
                BlockKind::Code,
                "fn main() {\n    println!(\"مرحبا\");\n}".into(),
            ),
            (BlockKind::Code, "  سطر بمسافة بادئة".into()),
            (
                BlockKind::Table,
                "الاسم | العمر\nعلي | ٣٠\nفاطمة | ٢٥".into(),
            ),
            para(P2),
            (BlockKind::List, "- مصطلح\n- تعريفه".into()),
        ];
        assert_eq!(d.blocks, expected);
        assert_eq!(d.title.as_deref(), Some("العنوان الأول"));
        // determinism
        assert_eq!(extract_html(&html), extract_html(&html));
    }

    #[test]
    fn no_markdown_syntax_is_produced() {
        let html = page(&format!(
            r##"<article><h2>عنوان <a class="anchor" href="#x">#</a></h2><p><strong>{P1}</strong> <em>مائل</em>
               <a href="https://example.com/">رابط</a> <img src="a.png" alt="صورة"></p><p>{P2}</p></article>"##
        ));
        let d = doc(&html);
        assert_eq!(d.blocks[0], (BlockKind::Heading(2), "عنوان".to_string()));
        let text = doc_text(&d);
        assert!(text.contains("مائل رابط"));
        for md in ["#", "**", "](", "![", "__", "صورة", "https://"] {
            assert!(!text.contains(md), "{md:?} in {text:?}");
        }
    }

    #[test]
    fn title_falls_back_to_title_tag_without_site_suffix() {
        let html = format!(
            r##"<html><head><title>مقال عن الخط العربي | موقعي</title></head>
               <body><article><p>{P1}</p><p>{P2}</p></article></body></html>"##
        );
        assert_eq!(doc(&html).title.as_deref(), Some("مقال عن الخط العربي"));
        let html = format!(
            r##"<html><head><title>تاريخ المخطوطات - مدونة الخطاطين العرب الكبرى للفنون والآداب</title>
               <meta property="og:site_name" content="مدونة الخطاطين العرب الكبرى للفنون والآداب"></head>
               <body><article><p>{P1}</p><p>{P2}</p></article></body></html>"##
        );
        assert_eq!(doc(&html).title.as_deref(), Some("تاريخ المخطوطات"));
        let html = format!("<body><div><p>{P1}</p><p>{P2}</p></div></body>");
        assert_eq!(doc(&html).title, None);
        let html = format!(
            "<title>javascript:alert(1) عنوان</title><article><p>{P1}</p><p>{P2}</p></article>"
        );
        assert_eq!(doc(&html).title.as_deref(), Some("عنوان"));
    }

    #[test]
    fn lang_is_the_nearest_declared_one() {
        let html = format!(
            r##"<html lang="en"><body><article lang="fa"><p>{P1}</p><p>{P2}</p></article></body></html>"##
        );
        assert_eq!(doc(&html).lang.as_deref(), Some("fa"));
        let html = format!(
            r##"<html lang="en-us"><body><article><p>{P1}</p><p>{P2}</p></article></body></html>"##
        );
        let d = doc(&html);
        assert_eq!(d.lang.as_deref(), Some("en-us"));
        assert_eq!(arabic_script_majority(&d), Some("ar"));
    }

    #[test]
    fn pages_without_semantic_containers_use_scoring() {
        // old-style layout table, menu cell without class names, <br><br> paragraphs
        let html = format!(
            r##"<html><body><table width="100%"><tr>
               <td><a href="/">الرئيسية</a><br><a href="/a">الأخبار</a><br><a href="/b">المقالات</a><br><a href="/c">اتصل بنا</a></td>
               <td><h1>عنوان في جدول</h1><div class="text">{P1}<br><br>{P2}</div></td></tr></table>
               <div><a href="/x">سياسة الخصوصية</a> | <a href="/y">الشروط</a></div></body></html>"##
        );
        let d = doc(&html);
        assert_eq!(
            d.blocks,
            vec![
                (BlockKind::Heading(1), "عنوان في جدول".to_string()),
                para(P1),
                para(P2)
            ]
        );
        assert_eq!(d.title.as_deref(), Some("عنوان في جدول"));
        let text = doc_text(&d);
        assert!(!text.contains("الأخبار") && !text.contains("الخصوصية"));
    }

    #[test]
    fn content_wrappers_with_chrome_like_classes_survive() {
        // WordPress puts tag-/category- classes on the article itself
        let html = page(&format!(
            r##"<article class="post-12 post type-post category-news tag-history"><h1>عنوان</h1><p>{P1}</p><p>{P2}</p></article>"##
        ));
        assert_eq!(doc(&html).blocks.len(), 3);
        // ASP.NET WebForms wraps the whole page in a <form>
        let html = page(&format!(
            r##"<form id="aspnetForm" action="page.aspx"><div class="entry-content has-social-share"><p>{P1}</p><p>{P2}</p></div></form>"##
        ));
        assert_eq!(doc(&html).blocks, vec![para(P1), para(P2)]);
    }

    #[test]
    fn reading_time_lines_are_dropped() {
        let html = page(&format!(
            "<article><p>تُقرأ خلال 5 دقائق</p><p>{P1}</p><p>5 min read</p><p>{P2}</p></article>"
        ));
        assert_eq!(doc(&html).blocks, vec![para(P1), para(P2)]);
    }

    #[test]
    fn degenerate_inputs_do_not_panic() {
        let inputs = [
            "",
            " ",
            "\n\t",
            "<",
            ">",
            "<<<>>>",
            "</",
            "</>",
            "<!--",
            "<!-- x",
            "<![CDATA[",
            "<!doctype",
            "&",
            "&#",
            "&#x;",
            "&#xFFFFFFFF;",
            "&#0;",
            "&#xD800;",
            "\u{0}\u{0}",
            "<a href=",
            "<div class=\"",
            "<p>نص<p>",
            "<table><td>x",
            "<svg><p>نص</svg>",
            "<math><mi><script>x</script></mi>",
            "<plaintext><p>نص",
            "<title>",
            "<textarea>",
            "<script>",
            "<style>",
            "<noscript>",
            "</p></p></br>",
            "<select><option><optgroup>",
            "<frameset><frame>",
            "\u{feff}<p>x</p>",
            "<ul><li><ol><li>",
        ];
        for s in inputs {
            let a = extract_html(s);
            assert_eq!(a, extract_html(s), "nondeterministic on {s:?}");
        }
        assert_eq!(extract_html(""), HtmlOutcome::Skip("empty document".into()));
    }

    #[test]
    fn random_tag_soup_does_not_panic() {
        const PIECES: &[&str] = &[
            "<div>",
            "</div>",
            "<p>",
            "</p>",
            "<li>",
            "<ul>",
            "</ul>",
            "<ol start=x>",
            "<table>",
            "<tr>",
            "<td>",
            "</td>",
            "<pre>",
            "</pre>",
            "<h2>",
            "</h2>",
            "<a href='javascript:x'>",
            "<a href=/x>",
            "</a>",
            "<b>",
            "</b>",
            "<i class=a>",
            "<svg>",
            "</svg>",
            "<math>",
            "<foreignObject>",
            "<script>",
            "</script>",
            "<style>",
            "<br>",
            "<br/>",
            "</br>",
            "<hr>",
            "<!--",
            "-->",
            "<nav>",
            "</nav>",
            "<article>",
            "</article>",
            "<main>",
            "<header>",
            "</header>",
            "<blockquote>",
            "<dl><dt>",
            "<dd>",
            "نص عربي",
            " ",
            "&amp;",
            "&nbsp;",
            "&#1575;",
            "<",
            ">",
            "\"",
            "'",
            "=",
            "<title>",
            "</title>",
            "<meta http-equiv=refresh content='0;url=/x'>",
            "<template>",
            "</template>",
            "<select>",
            "<option>",
            "<textarea>",
            "</textarea>",
            "<plaintext>",
            "<p hidden>",
            "<div style='display:none'>",
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..300 {
            let mut s = String::new();
            let len = (seed % 200) as usize;
            for _ in 0..len {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                s.push_str(PIECES[(seed % PIECES.len() as u64) as usize]);
            }
            let a = extract_html(&s);
            assert_eq!(a, extract_html(&s));
        }
    }

    #[test]
    fn highlighted_code_keeps_comments_tags_and_drops_line_numbers() {
        let html = page(&format!(
            r##"<article><p>{P1}</p>
            <pre class="language-js"><code class="language-js"><span class="token comment">// تعليق مهم</span>
<span class="token tag">&lt;div class="meta"&gt;</span> <span class="hljs-meta">#include</span></code></pre>
            <div class="highlight"><div class="chroma"><table class="lntable"><tr><td class="lntd">
            <pre tabindex="0" class="chroma"><code><span class="lnt">1
</span><span class="lnt">2
</span></code></pre></td><td class="lntd">
            <pre tabindex="0" class="chroma"><code class="language-go" data-lang="go"><span class="line"><span class="cl"><span class="kd">func</span> main() {{
</span></span><span class="line"><span class="cl">}}
</span></span></code></pre></td></tr></table></div></div>
            <p>{P2}</p></article>"##
        ));
        let d = doc(&html);
        assert_eq!(
            d.blocks,
            vec![
                para(P1),
                (
                    BlockKind::Code,
                    "// تعليق مهم\n<div class=\"meta\"> #include".into()
                ),
                (BlockKind::Code, "func main() {\n}".into()),
                para(P2),
            ]
        );
    }

    #[test]
    fn utility_classes_do_not_look_like_chrome() {
        let html = page(&format!(
            r##"<main class="overflow-hidden"><div class="print:text-black md:hidden lang-ar"><p>{P1}</p></div>
               <p class="text-lg">{P2}</p></main>"##
        ));
        assert_eq!(doc(&html).blocks, vec![para(P1), para(P2)]);
    }

    #[test]
    fn common_static_site_layouts() {
        // VitePress-like
        let vitepress = format!(
            r##"<div id="app"><header class="VPNav"><a href="/">وثائق</a><div class="VPNavBarSearch"><button>بحث</button></div></header>
            <aside class="VPSidebar"><nav><a href="/guide">مقدمة الدليل</a></nav></aside>
            <div class="VPContent"><div class="VPDoc"><div class="aside"><div class="VPDocAsideOutline"><div class="outline-title">في هذه الصفحة</div></div></div>
            <div class="content"><main class="main"><div class="vp-doc _ar_guide"><div>
            <h1 id="intro">مقدمة <a class="header-anchor" href="#intro" aria-label="Permalink">&#8203;</a></h1>
            <p>{P1}</p><div class="tip custom-block"><p class="custom-block-title">نصيحة</p><p>{P2}</p></div>
            </div></div></main>
            <footer class="VPDocFooter"><div class="edit-info"><a href="https://example.com/edit">عدل هذه الصفحة</a></div>
            <nav class="prev-next"><a href="/a">الصفحة السابقة</a></nav></footer></div></div></div></div>"##
        );
        let d = doc(&page(&vitepress));
        assert_eq!(
            d.blocks,
            vec![
                (BlockKind::Heading(1), "مقدمة".into()),
                para(P1),
                para("نصيحة"),
                para(P2)
            ]
        );
        // Docusaurus-like
        let docusaurus = format!(
            r##"<nav class="navbar"><a class="navbar__brand" href="/">المشروع</a></nav>
            <div class="main-wrapper"><aside class="theme-doc-sidebar-container"><a href="/x">رابط جانبي</a></aside>
            <main class="docMainContainer"><div class="row"><div class="col docItemCol">
            <nav class="theme-doc-breadcrumbs" aria-label="Breadcrumbs"><a href="/">الصفحة الأم</a></nav>
            <article><div class="theme-doc-markdown markdown"><header><h1>عنوان الوثيقة</h1></header>
            <p>{P1}</p><h2 class="anchor" id="a">قسم<a href="#a" class="hash-link">&#8203;</a></h2><p>{P2}</p></div>
            <footer class="theme-doc-footer"><a href="/edit">تعديل</a></footer></article>
            <nav class="pagination-nav"><a href="/next">التالي</a></nav></div>
            <div class="col col--3"><div class="tableOfContents_bqdL thin-scrollbar theme-doc-toc-desktop"><ul><li><a href="#a">قسم</a></li></ul></div></div>
            </div></main></div><footer class="footer"><div>حقوق النشر لأصحابها</div></footer>"##
        );
        let d = doc(&page(&docusaurus));
        assert_eq!(
            d.blocks,
            vec![
                (BlockKind::Heading(1), "عنوان الوثيقة".into()),
                para(P1),
                (BlockKind::Heading(2), "قسم".into()),
                para(P2),
            ]
        );
        // Astro Starlight-like, with custom elements
        let starlight = format!(
            r##"<div class="page"><header class="header"><a class="site-title" href="/">بناء الأشياء</a><site-search><button>ابحث</button></site-search></header>
            <nav class="sidebar" aria-label="Main"><a href="/ar/intro">المقدمة</a></nav>
            <div class="main-frame"><div class="lg:sl-flex"><aside class="right-sidebar-container"><starlight-toc><h2>في هذه الصفحة</h2></starlight-toc></aside>
            <div class="main-pane"><main data-pagefind-body lang="ar" dir="rtl"><mobile-starlight-toc><details><summary>في هذه الصفحة</summary></details></mobile-starlight-toc>
            <div class="content-panel"><div class="sl-container"><h1 id="_top">الجزء الأول</h1></div></div>
            <div class="content-panel"><div class="sl-container"><div class="sl-markdown-content"><p>{P1}</p><p>{P2}</p></div>
            <footer class="sl-flex"><div class="meta"><a href="/edit">عدّل الصفحة</a></div><div class="pagination-links"><a href="/next">التالي</a></div></footer>
            </div></div></main></div></div></div></div>"##
        );
        let d = doc(&format!(
            "<html lang=\"en\"><body>{starlight}</body></html>"
        ));
        assert_eq!(
            d.blocks,
            vec![
                (BlockKind::Heading(1), "الجزء الأول".into()),
                para(P1),
                para(P2)
            ]
        );
        assert_eq!(d.lang.as_deref(), Some("ar"));
    }

    #[test]
    fn a_lone_card_article_does_not_hide_the_real_content() {
        let html = page(&format!(
            r##"<article><a href="/x"><h3>بطاقة مقال آخر</h3></a></article>
               <div id="content"><p>{P1}</p><p>{P2}</p></div>"##
        ));
        assert_eq!(doc(&html).blocks, vec![para(P1), para(P2)]);
    }

    #[test]
    fn script_url_stripping_keeps_code_indentation() {
        let html = page(&format!(
            "<article><p>{P1}</p><pre>if (x) {{\n    go(\"javascript:alert(1)\");\n        y();\n}}</pre><p>{P2}</p></article>"
        ));
        let d = doc(&html);
        assert_eq!(
            d.blocks[1],
            (
                BlockKind::Code,
                "if (x) {\n    go(\"\n        y();\n}".to_string()
            )
        );
    }

    fn nested(open: &str, close: &str, n: usize, inner: &str) -> String {
        let mut s = String::with_capacity((open.len() + close.len()) * n + inner.len());
        for _ in 0..n {
            s.push_str(open);
        }
        s.push_str(inner);
        for _ in 0..n {
            s.push_str(close);
        }
        s
    }

    #[test]
    fn deep_nesting_100k_divs_does_not_panic() {
        let inner = format!("<p>{P1}</p><p>{P2}</p>");
        let start = std::time::Instant::now();
        let d = doc(&nested("<div>", "</div>", 100_000, &inner));
        assert_eq!(d.blocks, vec![para(P1), para(P2)]);
        // unclosed
        let d = doc(&nested("<div>", "", 100_000, &inner));
        assert_eq!(d.blocks, vec![para(P1), para(P2)]);
        assert!(
            start.elapsed().as_secs() < 60,
            "too slow: {:?}",
            start.elapsed()
        );
    }

    #[test]
    fn deep_nesting_of_other_shapes_does_not_panic() {
        let inner = format!("{P1} {P2}");
        let shapes: &[(&str, &str)] = &[
            ("<span>", "</span>"),
            ("<b class=x>", ""),
            ("<div/>", ""),
            ("<p>", ""),
            ("<ul><li>", "</li></ul>"),
            ("<ol><li>", ""),
            ("<blockquote>", "</blockquote>"),
            ("<table><tr><td>", "</td></tr></table>"),
            ("<a href=/x>", "</a>"),
            ("<h2>", ""),
            ("<pre>", "</pre>"),
            ("<article>", "</article>"),
            ("<header>", ""),
            ("<svg>", ""),
            ("<dl><dd>", ""),
            ("<section><main>", ""),
            ("<font><center>", ""),
        ];
        // 30,000 levels: far past MAX_DEPTH (the 100k case is covered above)
        for (open, close) in shapes {
            let html = nested(open, close, 30_000, &inner);
            let a = extract_html(&html);
            if let HtmlOutcome::Doc(d) = &a {
                assert!(doc_text(d).contains("مصباح واحد"), "{open}: text lost");
            }
        }
    }
}
