//! What an element's attributes say: hidden, chrome or content by class/id words and ARIA
//! role, script URLs, search boxes, `itemprop=articleBody`, its language, a list's start and
//! the `<meta>` tags the page decision reads.

use html5ever::tokenizer::Tag;
use html5ever::{Attribute, LocalName};

use super::tree::*;
use crate::extract::is_script_url;

pub(super) fn attr<'a>(attrs: &'a [Attribute], name: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|a| &*a.name.local == name)
        .map(|a| &*a.value)
}

pub(super) fn make_elem(tag: &Tag) -> Elem {
    let name: LocalName = if &*tag.name == "image" {
        LocalName::from("img")
    } else {
        tag.name.clone()
    };
    let a = &tag.attrs;
    let mut flags = hidden_flags(a);
    let class = attr(a, "class").unwrap_or("");
    // A section's id is its heading's slug (Sphinx, Pandoc, Quarto: `<section id="next-steps">`,
    // docutils' `<div class="section" id="…">`): words of the content's own title, not chrome.
    let id = if &*name == "section"
        || class
            .split_ascii_whitespace()
            .any(|c| c.eq_ignore_ascii_case("section"))
    {
        ""
    } else {
        attr(a, "id").unwrap_or("")
    };
    flags |= class_flags(class, id);
    if name.contains('-') {
        // custom elements: <starlight-toc>, <language-picker>, <site-search> …
        flags |= class_flags(&name, "") & (F_CLASS_CHROME | F_CLASS_CONTENT);
    }
    flags |= role_flags(a) | search_flags(&name, a);
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
    let meta = if &*name == "meta" { meta_of(a) } else { None };
    let id = super::tags::is_heading(&name)
        .then(|| attr(a, "id"))
        .flatten()
        .map(Box::from);
    Elem {
        name,
        flags,
        lang,
        start,
        meta,
        id,
    }
}

/// `hidden`, `aria-hidden="true"`, or an inline style that hides the element.
fn hidden_flags(a: &[Attribute]) -> u32 {
    let mut flags = 0;
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
    flags
}

/// ARIA roles: chrome landmarks and widgets, `main`, `presentation`, `search`.
fn role_flags(a: &[Attribute]) -> u32 {
    let mut flags = 0;
    let Some(role) = attr(a, "role") else {
        return flags;
    };
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
    flags
}

/// A search box (`<input type=search>` or a query-named input) or a form that posts to a search.
fn search_flags(name: &str, a: &[Attribute]) -> u32 {
    match name {
        "input" => {
            let ty = attr(a, "type").unwrap_or("").trim().to_ascii_lowercase();
            let nm = attr(a, "name").unwrap_or("").trim().to_ascii_lowercase();
            if ty == "search"
                || matches!(
                    nm.as_str(),
                    "q" | "s" | "query" | "keyword" | "keywords" | "search" | "searchword"
                )
            {
                return F_SEARCH;
            }
            0
        }
        "form" if attr(a, "action").is_some_and(|v| v.to_ascii_lowercase().contains("search")) => {
            F_SEARCH
        }
        _ => 0,
    }
}

/// The `(key, content)` of a `<meta>` the page decision reads: `refresh`, `content-language`
/// or `site_name`.
fn meta_of(a: &[Attribute]) -> Option<Box<(&'static str, String)>> {
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
}

pub(super) fn clean_lang(v: &str) -> Option<Box<str>> {
    let v = v.trim();
    (!v.is_empty()
        && v.len() <= 35
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
    .then(|| v.into())
}

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

/// The words of an Elementor block's type that mark chrome: its icon boxes, image boxes,
/// counters and testimonials are the page's content.
#[rustfmt::skip]
const BUILDER_CHROME_WORDS: &[&str] = &[
    "nav", "menu", "breadcrumb", "breadcrumbs", "share", "sharing", "social", "search", "sidebar",
    "footer", "comment", "comments", "login", "pagination", "toc", "copyright", "newsletter",
    "subscribe", "cookie", "cookies", "popup", "related",
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
    // A block of the Elementor page builder: what it is, a text or a menu, is in its type
    // (`elementor-widget-text-editor`, `elementor-widget-nav-menu`, `elementor-location-footer`);
    // its other classes are layout and effects (`bdt-icon-type-icon`), and its type is read
    // with `BUILDER_CHROME_WORDS`. Elementor calls every block and its inner wrapper
    // (`elementor-widget-container`) a "widget".
    let builder = class
        .split_ascii_whitespace()
        .any(|t| t.eq_ignore_ascii_case("elementor-element"));
    for token in class
        .split_ascii_whitespace()
        .chain(id.split_ascii_whitespace())
    {
        // Tailwind-style variants: `print:hidden`, `md:text-lg` → the utility part only
        let token = token.rsplit(':').next().unwrap_or(token);
        let lower = token.to_ascii_lowercase();
        if builder
            && !(lower.starts_with("elementor-widget-") || lower.starts_with("elementor-location-"))
        {
            continue;
        }
        if CHROME_TOKENS.contains(&lower.as_str()) {
            flags |= F_CLASS_CHROME_TOKEN;
        }
        for w in split_words(token) {
            if lower.starts_with("elementor") && matches!(w.as_str(), "widget" | "widgets") {
                continue;
            }
            let chrome = if builder {
                BUILDER_CHROME_WORDS.contains(&w.as_str())
            } else {
                CHROME_WORDS.contains(&w.as_str())
            };
            if chrome {
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
