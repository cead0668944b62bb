//! Page metadata (title, refresh, site name, content language) and the final decision: a
//! document of blocks, or the reason why the page holds nothing to index.

use super::attrs::clean_lang;
use super::chrome::Analysis;
use super::root::{Choice, choose_root};
use super::sink::parse;
use super::tree::*;
use super::walk::{Acc, Block, Walker, strip_script_urls};
use super::{BlockKind, HtmlDoc, HtmlOutcome, MIN_PROSE_CHARS, MIN_TITLED_PROSE_CHARS};
use crate::extract::is_script_url;

struct PageMeta {
    pub(super) title: Option<String>,
    pub(super) refresh: Option<Refresh>,
    pub(super) site_name: Option<String>,
    content_language: Option<Box<str>>,
}

/// A `<meta http-equiv="refresh">`: seconds before the redirect, and its target.
pub(super) struct Refresh {
    delay: f64,
    url: Option<String>,
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

/// `content="0; url=https://x/"` → delay 0, URL `https://x/`
fn parse_refresh(content: &str) -> Option<Refresh> {
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
    Some(Refresh { delay, url })
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

/// A server's error page (`403`, `500 Internal Server Error`, `Forbidden`) saved as a page: its
/// title or first heading names an HTTP error status.
pub(super) fn is_http_error(text: &str) -> bool {
    let t = text.trim();
    let l = t.to_lowercase();
    let status = t
        .get(..3)
        .and_then(|d| d.parse::<u16>().ok())
        .is_some_and(|code| (400..600).contains(&code))
        && !t[3..].starts_with(|c: char| c.is_ascii_alphanumeric());
    status
        || [
            "forbidden",
            "access denied",
            "internal server error",
            "service unavailable",
            "bad gateway",
            "gateway timeout",
        ]
        .iter()
        .any(|w| l.contains(w))
}

/// An RSS, Atom or RDF feed saved as a page (a WordPress `feed/index.html`): its first element
/// is the feed's, not `<html>`.
fn is_feed(src: &str) -> bool {
    let mut rest = src.trim_start_matches('\u{feff}').trim_start();
    // past the XML declaration, processing instructions and comments
    loop {
        if let Some(r) = rest.strip_prefix("<?") {
            rest = r.split_once("?>").map_or("", |(_, r)| r).trim_start();
        } else if let Some(r) = rest.strip_prefix("<!--") {
            rest = r.split_once("-->").map_or("", |(_, r)| r).trim_start();
        } else {
            break;
        }
    }
    let head: String = rest
        .chars()
        .take(10)
        .collect::<String>()
        .to_ascii_lowercase();
    ["<rss", "<feed", "<rdf:rdf"].iter().any(|tag| {
        head.strip_prefix(tag)
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_whitespace() || c == '>'))
    })
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

pub(super) fn extract_inner(src: &str) -> HtmlOutcome {
    if src.trim().is_empty() {
        return HtmlOutcome::Skip("empty document".to_string());
    }
    if is_feed(src) {
        return HtmlOutcome::Skip("an RSS or Atom feed, not a page".to_string());
    }
    let tree = parse(src);
    let meta = page_meta(&tree);
    if let Some(Refresh {
        delay,
        url: Some(url),
    }) = &meta.refresh
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
        Choice::Roots { roots, strict } => (roots, strict),
    };
    let (mut blocks, links) = walk_roots(&tree, &an, &roots, strict);
    if let Some(reason) = skip_reason(&tree, &meta, &roots, &blocks, links) {
        // A scored root is made for long articles: on a short page it can miss the heading
        // beside it. The whole page less its chrome is the content when it makes a titled
        // short page.
        let whole = [0];
        let (all, all_links) = walk_roots(&tree, &an, &whole, false);
        let titled = opens_with_heading(&all);
        if strict
            || !titled
            || all_links > 0
            || skip_reason(&tree, &meta, &whole, &all, all_links).is_some()
        {
            return HtmlOutcome::Skip(reason);
        }
        blocks = all;
    }
    let h1 = blocks
        .iter()
        .find(|b| b.kind == BlockKind::Heading(1))
        .map(|b| b.text.clone());
    let title = h1.or_else(|| {
        meta.title
            .as_deref()
            .map(|t| strip_title_suffix(t, meta.site_name.as_deref()))
            .map(|t| strip_script_urls(&t).trim().to_string())
    });
    let title = title.filter(|t| !t.is_empty());
    let lang = nearest_lang(&tree, roots.first().copied().unwrap_or(0))
        .or_else(|| tree.html_lang.clone())
        .or(meta.content_language)
        .map(|l| l.to_string());
    HtmlOutcome::Doc(HtmlDoc {
        title,
        lang,
        ids: blocks
            .iter()
            .enumerate()
            .filter_map(|(i, b)| Some((i, b.id.clone()?)))
            .collect(),
        blocks: blocks.into_iter().map(|b| (b.kind, b.text)).collect(),
    })
}

/// The blocks of `roots` and the number of links in them; without a semantic container
/// (`strict` false), link lists and link-only lines are dropped.
fn walk_roots(tree: &Tree, an: &Analysis, roots: &[u32], strict: bool) -> (Vec<Block>, usize) {
    let mut w = Walker::new(tree, an);
    for &r in roots {
        w.walk(r);
    }
    let mut blocks = w.blocks;
    if !strict {
        blocks.retain(|b| {
            matches!(b.kind, BlockKind::Heading(_) | BlockKind::Code)
                || !(b.link * 2 >= b.chars && b.chars - b.link < 40)
        });
    }
    (blocks, w.links)
}

/// Whether the blocks open with a heading (a titled page).
fn opens_with_heading(blocks: &[Block]) -> bool {
    blocks
        .first()
        .is_some_and(|b| matches!(b.kind, BlockKind::Heading(_)))
}

/// Why the walked blocks do not make a document: too little non-link prose (a short page that
/// opens with a heading and links nowhere is a document), or mostly links; the reason names
/// the kind of page (404, search, listing) when it can tell.
fn skip_reason(
    tree: &Tree,
    meta: &PageMeta,
    roots: &[u32],
    blocks: &[Block],
    links: usize,
) -> Option<String> {
    let prose: usize = blocks
        .iter()
        .filter(|b| !matches!(b.kind, BlockKind::Heading(_)))
        .map(|b| b.chars.saturating_sub(b.link))
        .sum();
    let link: usize = blocks.iter().map(|b| b.link).sum();
    let mostly_links = link * 100 > (link + prose) * 65 && prose < 600;
    if prose >= MIN_PROSE_CHARS && !mostly_links {
        return None;
    }
    let first_heading = blocks
        .iter()
        .find(|b| matches!(b.kind, BlockKind::Heading(_)))
        .map(|b| b.text.as_str());
    let not_found =
        meta.title.as_deref().is_some_and(is_not_found) || first_heading.is_some_and(is_not_found);
    let http_error = meta.title.as_deref().is_some_and(is_http_error)
        || first_heading.is_some_and(is_http_error);
    let titled = opens_with_heading(blocks);
    // a search box inside the chosen content area (not one in a sidebar)
    let search_in_content = roots.iter().any(|&r| {
        let mut found = false;
        traverse(tree, r, |n, enter| {
            if enter && tree.flags(n) & F_SEARCH != 0 {
                found = true;
            }
            enter && !found
        });
        found
    });
    if titled
        && links == 0
        && prose >= MIN_TITLED_PROSE_CHARS
        && !not_found
        && !http_error
        && !search_in_content
    {
        return None;
    }
    let reason = if not_found {
        format!("not-found (404) page ({prose} chars of prose)")
    } else if http_error {
        format!("a server's error page ({prose} chars of prose)")
    } else if search_in_content && prose < MIN_PROSE_CHARS {
        format!("search page: no indexable content ({prose} chars of prose)")
    } else if links >= 2 || (links > 0 && link >= prose) || mostly_links {
        format!("listing page: only links ({links} links, {prose} chars of prose)")
    } else if prose == 0 {
        "no main content found".to_string()
    } else {
        format!(
            "no main content found (only {prose} chars of prose, need {MIN_PROSE_CHARS}, or \
             {MIN_TITLED_PROSE_CHARS} under an opening heading with no link)"
        )
    };
    Some(reason)
}

/// The language declared on `root` or its nearest ancestor that declares one.
fn nearest_lang(tree: &Tree, root: u32) -> Option<Box<str>> {
    let mut cur = root;
    while cur != NONE && cur != 0 {
        if let Some(l) = tree.elem(cur).and_then(|e| e.lang.clone()) {
            return Some(l);
        }
        cur = tree.parent(cur);
    }
    None
}
