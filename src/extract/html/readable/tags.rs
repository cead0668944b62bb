//! Tag tables: the HTML parsing algorithm's scopes and element categories, and the tags that
//! are never content.

#[rustfmt::skip]
pub(super) const DEFAULT_SCOPE: &[&str] = &[
    "applet", "caption", "table", "td", "th", "marquee", "object", "template",
];
#[rustfmt::skip]
pub(super) const BUTTON_SCOPE: &[&str] = &[
    "applet", "caption", "table", "td", "th", "marquee", "object", "template", "button",
];
#[rustfmt::skip]
pub(super) const LIST_ITEM_SCOPE: &[&str] = &[
    "applet", "caption", "table", "td", "th", "marquee", "object", "template", "ol", "ul",
];
pub(super) const TABLE_SCOPE: &[&str] = &["table", "template"];

pub(super) fn is_heading(n: &str) -> bool {
    matches!(n, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

pub(super) fn heading_level(n: &str) -> Option<u8> {
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
pub(super) fn is_void(n: &str) -> bool {
    matches!(
        n,
        "area" | "base" | "basefont" | "bgsound" | "br" | "col" | "embed" | "hr" | "img" |
        "input" | "keygen" | "link" | "meta" | "param" | "source" | "track" | "wbr" | "frame"
    )
}

#[rustfmt::skip]
pub(super) fn closes_p(n: &str) -> bool {
    matches!(
        n,
        "address" | "article" | "aside" | "blockquote" | "center" | "details" | "dialog" | "dir" |
        "div" | "dl" | "fieldset" | "figcaption" | "figure" | "footer" | "header" | "hgroup" |
        "main" | "menu" | "nav" | "ol" | "p" | "search" | "section" | "summary" | "ul" | "pre" |
        "listing" | "form" | "table" | "hr" | "plaintext"
    )
}

#[rustfmt::skip]
pub(super) fn is_special(n: &str) -> bool {
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
pub(super) fn is_breakout(n: &str) -> bool {
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
pub(super) fn is_junk_tag(n: &str) -> bool {
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
pub(super) fn is_block(n: &str) -> bool {
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
