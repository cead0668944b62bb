//! The text patterns of the checks that read a chunk's prose: escapes, markup remnants and a
//! site generator's syntax.

use std::sync::LazyLock;

use regex::Regex;

static ESCAPED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\\u[0-9A-Fa-f]{4}|\\x[0-9A-Fa-f]{2}|&#[0-9]{2,7};|&#[xX][0-9A-Fa-f]{2,6};|&(?:quot|amp|lt|gt|apos|nbsp|laquo|raquo|hellip|mdash|ndash|lsquo|rsquo|ldquo|rdquo|copy|reg|shy|zwj|zwnj|rlm|lrm);").unwrap()
});

pub(crate) fn escaped(prose: &str) -> Option<usize> {
    ESCAPED.find(prose).map(|m| m.start())
}

static MARKUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?m):::|\{#|\{/\*|\{\{[<%]",
        // Liquid (Jekyll) tags and output: `{% if %}`, `{{ site.x }}`, `{{ x | filter }}`.
        // A bare `{{ name }}` is not flagged: VitePress pages show Vue's own interpolations.
        r"|\{%-?\s*[A-Za-z][^\n]*?%\}",
        r"|\{\{-?\s*(?:(?:site|page|post|include|layout|paginator|jekyll|forloop|content)\b[^{}\n]*|[^{}\n]*\|[^{}\n]*)\}\}",
        r"|</?[A-Za-z][A-Za-z0-9.-]*(?:\s+[A-Za-z_:@][^<>]*)?/?>",
        // ESM lines: an identifier, `*`, `{` or a string after `import` (an ASCII one: a page
        // about the `import` command, followed by its Arabic description, is prose).
        r"|^\s*(?:import\s+(?:[A-Za-z_$*{]|'|\x22)|export\s+(?:default|const|function|let|var|class|\{))",
    ))
    .unwrap()
});

pub(crate) fn markup(prose: &str) -> Option<usize> {
    MARKUP.find(prose).map(|m| m.start())
}

static GENERATOR_SYNTAX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        // mdBook directives, Obsidian links and embeds, Liquid and Jinja tags.
        r"(?m)\{\{#|!?\[\[|\{%",
        // Dataview fields: a line that is `key:: value`, also as a list item.
        r"|^[ \t]*(?:[-*+][ \t]+)?[\p{L}\p{N}_][\p{L}\p{N}_ -]{0,63}::(?:[ \t]|$)",
        // Containers and admonitions (Docusaurus, VitePress, MkDocs) and callouts.
        r"|:::|^[ \t]*(?:!!!|\?\?\?\+?)[ \t]+\S|^[ \t]*(?:>[ \t]*)*\[![A-Za-z-]+\]",
    ))
    .unwrap()
});

/// Where a chunk's prose (`prose`) first holds syntax of a site generator that its published
/// page never shows.
pub(crate) fn generator_syntax(prose: &str) -> Option<usize> {
    GENERATOR_SYNTAX.find(prose).map(|m| m.start())
}
