//! The MDX fast path: pulldown-cmark (hundreds of MB/s) instead of markdown-rs (about 10 MB/s)
//! for MDX documents that use only the MDX syntax whose effect on the evidence text is known
//! exactly. The result is the mdast tree markdown-rs would give, less the nodes the MDX walker
//! drops anyway, so `mdx::Walker` renders both the same; a document this path cannot reproduce
//! exactly is declined (`None`) and goes through markdown-rs.
//!
//! How: a line scanner (`prepare`) rewrites the MDX-only syntax into CommonMark that parses to the
//! same blocks: ESM lines and lines holding only JSX tags and `{expressions}` become thematic
//! breaks `***` (a block boundary the walker ignores, as it ignores ESM, expressions and the tags
//! of unwrapped components); inline tags and expressions are cut out of their line. Then
//! pulldown-cmark parses the result and `build` turns its events into mdast nodes. Both steps
//! decline anything where MDX and CommonMark may read the same bytes differently:
//! - HTML and autolinks (MDX has none: `<` is JSX or an error), indented code (MDX has none, and
//!   lets every other block start at any indentation), setext headings (markdown-rs panics on
//!   some), strikethrough (`~`), tabs in indentation, multi-line tags and expressions, JSX inside
//!   containers, `<script>`-like components the walker hides, unbalanced tags;
//! - a cut that could change the Markdown around it: next to a delimiter (`*`, `_`, `[`, `\`,
//!   `&`, …), inside brackets or a table row, or leaving whitespace at a line's edge (a soft break
//!   would then differ);
//! - any disagreement between the scanner and pulldown-cmark on where code is: every fenced block
//!   must start where the scanner saw its fence, no cut may fall inside code, every `<`/`{` the
//!   scanner left as code must be code, and every `***` the scanner wrote must parse as a break.

mod build;
mod jsx;
mod prepare;
#[cfg(test)]
mod tests;

use markdown::mdast::Node;

use build::build;
use prepare::prepare;

/// The mdast tree of an MDX document (frontmatter already split off), when the fast path
/// reproduces markdown-rs exactly for it; `None` when the document must go through markdown-rs.
pub(super) fn to_mdast(text: &str) -> Option<Node> {
    let prepared = prepare(text)?;
    build(&prepared)
}

/// CommonMark rewritten from MDX, with what `build` must check against pulldown-cmark's parse.
#[derive(Debug, Default)]
pub(super) struct Prepared {
    pub(super) text: String,
    /// Offsets in `text` where an inline tag or expression was cut out (never inside code).
    pub(super) cuts: Vec<usize>,
    /// Offsets in `text` of the `***` lines written for ESM and JSX/expression-only lines.
    pub(super) markers: Vec<usize>,
    /// Fenced code blocks: where each opens (its first fence character) and ends (after its
    /// closing fence line).
    pub(super) fences: Vec<(usize, usize)>,
    /// Offsets of `<` and `{` the scanner left alone as code.
    pub(super) kept: Vec<usize>,
    /// ATX headings that end with an id comment (`{/*id*/}`): where the heading's line starts
    /// in `text`, and the id.
    pub(super) heading_ids: Vec<(usize, String)>,
}

pub(super) const MARKER: &str = "***\n";

/// JSX elements whose content the walker hides: the fast path leaves such files to markdown-rs.
pub(super) fn is_hidden(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "script" | "style" | "template" | "iframe" | "noscript" | "svg" | "object" | "embed"
    )
}
