//! Main-content extraction from untrusted HTML pages (written for Arabic sites,
//! works for any language).
//!
//! `extract_html` turns one HTML page into either the blocks of its main article
//! (`HtmlOutcome::Doc`) or a human-readable reason why there is nothing to index
//! (`HtmlOutcome::Skip`).
//!
//! Pipeline (everything is iterative, nothing recurses over the DOM), one module a step:
//! 1. **Tokenize** (`sink`) with html5ever's spec-compliant tokenizer (entity decoding,
//!    raw-text states for `<script>`/`<style>`/… whose content is dropped right there).
//! 2. **Build** (`sink` into `tree`) a small arena tree with a simplified tree builder
//!    (implicit closes of `p`/`li`/`td`/… from the `tags` tables, foreign content, depth
//!    capped at [`MAX_DEPTH`] so that 100,000 nested `<div>`s cost linear time; html5ever's
//!    full tree builder is quadratic on such input). `attrs` reads each element's flags.
//! 3. **Mark** (`chrome`) junk (scripts, forms, media, hidden nodes, `javascript:` links) and
//!    chrome (`nav`, `aside`, `footer`, menus, TOC, tags, share, language and theme
//!    switchers, …, by tag, ARIA role and class/id words). A chrome-looking element
//!    is kept when it holds most of the page's prose (guards against
//!    `<form>`-wraps-everything and "content-with-sidebar" wrappers).
//! 4. **Pick the root** (`root`): the dominant `<article>`, else `itemprop=articleBody`,
//!    else `<main>`/`role=main`, else a readability-style score.
//! 5. **Walk** (`walk`) the root into blocks (headings, paragraphs, lists, quotes, code,
//!    tables) with whitespace collapsing, and decide (`page`) Doc vs Skip from the amount
//!    of non-link prose (≥ [`MIN_PROSE_CHARS`], or ≥ [`MIN_TITLED_PROSE_CHARS`] under an
//!    opening heading with no link).

mod attrs;
mod chrome;
mod page;
mod root;
mod sink;
mod tags;
mod tree;
mod walk;

#[cfg(test)]
mod tests;

use page::extract_inner;

/// The extractor's block kinds (one type for every format).
pub(crate) use crate::extract::BlockKind;

#[derive(Debug, Clone, PartialEq)]
pub struct HtmlDoc {
    pub title: Option<String>,
    pub lang: Option<String>,
    pub blocks: Vec<(BlockKind, String)>,
    /// The `id` attributes of heading blocks: (index in `blocks`, id).
    pub ids: Vec<(usize, String)>,
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
pub(crate) const MAX_DEPTH: usize = 256;

/// A page needs at least this many characters of non-link, non-heading text in
/// its main content to become a `Doc`.
pub(crate) const MIN_PROSE_CHARS: usize = 200;

/// A short page whose main content opens with a heading and holds no link (a procedure's
/// checklist, an office's address and hours, a glossary entry) needs only this many: such a
/// page answers in a few lines, as a short Markdown page does, while chrome left around a
/// missing article rarely opens with a heading and seldom lacks links.
pub(crate) const MIN_TITLED_PROSE_CHARS: usize = 60;

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
