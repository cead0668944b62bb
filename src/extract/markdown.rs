//! Markdown (CommonMark + GFM) through pulldown-cmark. Also the fallback for MDX that the MDX
//! parser rejects. Dropped from evidence: frontmatter, HTML tags and `<script>`/`<style>` blocks,
//! HTML comments, heading `{#anchor}` ids (kept as the heading's `Block::anchor`), VitePress `:::`
//! container markers, Hugo shortcodes, Liquid tags and output in a Liquid library (`liquid`),
//! link and image URLs (link text kept), a Docusaurus page's MDX `import`/`export` lines. An
//! mdBook page's includes are expanded first (`include`). Fenced code is kept, fenced.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use super::{BlockKind, Body, Document, FileExtraction, frontmatter, is_script_url};
use crate::diag::Problem;

pub(super) fn extract(
    file: &str,
    rel: &str,
    text: &str,
    lib: &super::ExtractSettings,
    includes: &super::Includes,
) -> FileExtraction {
    let split = match frontmatter::split(text) {
        Ok(s) => s,
        Err(p) => return FileExtraction::error(file, p),
    };
    let mut doc = Document::default();
    if let Err(p) = frontmatter::apply(&mut doc, split.fields, lib) {
        return FileExtraction::error(file, p.at_line(1));
    }
    let mut problems = Vec::new();
    let body = match lib.generator {
        super::Generator::Mdbook => {
            let mut missing = Vec::new();
            let body = super::include::expand(split.body, rel, includes, &mut missing);
            for (at, path) in missing {
                let line = split.lines + split.body[..at].matches('\n').count() + 1;
                problems.push(
                    Problem::warning(
                        "include",
                        format!("`{path}` is not in the book: its include is left out"),
                    )
                    .at_line(line)
                    .help("add the file, or fix the path (relative to this page)"),
                );
            }
            body
        }
        _ => std::borrow::Cow::Borrowed(split.body),
    };
    // Docusaurus reads `.md` pages as MDX: their ESM lines are code, never shown.
    let body = match lib.generator {
        super::Generator::Docusaurus => super::mdx::strip_esm(body),
        _ => body,
    };
    let page = super::generator::rewrite(&body, lib.generator);
    for (key, value) in page.fields {
        doc.metadata.entry(key).or_insert(value.into());
    }
    if lib.generator == super::Generator::Obsidian && doc.title.is_none() {
        // A note's title is its file's name, as Obsidian and Quartz show it.
        let name = file.rsplit('/').next().unwrap_or(file);
        let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
        doc.title = Some(stem.to_string()).filter(|t| !t.trim().is_empty());
    }
    // Obsidian reads `$…$` and `$$…$$` as TeX: without math parsing, the Markdown escapes in
    // it would be unescaped (`\,` read as `,`).
    let math = lib.generator == super::Generator::Obsidian;
    doc.body = render_with(&preprocess_with(&page.text, lib.liquid), math);
    shown_frontmatter(&mut doc, lib);
    super::finish(file, doc, problems)
}

/// The text of the frontmatter keys the page shows (`frontmatter_text`), rendered as Markdown,
/// put before the body.
pub(super) fn shown_frontmatter(doc: &mut Document, lib: &super::ExtractSettings) {
    let shown = frontmatter::text_of(&doc.fields, lib.frontmatter_text);
    if !shown.is_empty() {
        let first = render_with(&preprocess_with(&shown, lib.liquid), false);
        doc.body = std::mem::take(&mut doc.body).after(first);
    }
}

/// Removes syntax that CommonMark does not know and that would otherwise leak into evidence:
/// VitePress container fences (`::: tip Title` keeps its title) and Hugo shortcodes. Code
/// fences are left alone.
pub(super) fn preprocess(text: &str) -> String {
    preprocess_with(text, false)
}

/// `preprocess`, and with `liquid` the Liquid template code of a Jekyll or Eleventy page
/// (`liquid::Liquid`), outside fenced code and code spans.
pub(super) fn preprocess_with(text: &str, liquid: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<(char, usize)> = None;
    let mut template = liquid.then(super::liquid::Liquid::default);
    // Inside a Hugo `{{< highlight >}}` block: the fence that closes it.
    let mut hugo_code: Option<String> = None;
    for line in text.split_inclusive('\n') {
        if let Some(close) = &hugo_code {
            if is_hugo_highlight_end(line) {
                out.push_str(close);
                out.push('\n');
                hugo_code = None;
            } else {
                out.push_str(line);
            }
            continue;
        }
        // A `{% highlight %}` or `{% comment %}` block owns its lines, fences included.
        if let Some(l) = template.as_mut().filter(|l| l.owns_line()) {
            out.push_str(&l.line(line));
            continue;
        }
        let t = line.trim_start();
        let indent = line.len() - t.len();
        if indent < 4 {
            if let Some((c, n)) = fence {
                let run = t.chars().take_while(|&x| x == c).count();
                if run >= n && t[run * c.len_utf8()..].trim().is_empty() {
                    fence = None;
                }
                out.push_str(line);
                continue;
            }
            let first = t.chars().next();
            if let Some(c @ ('`' | '~')) = first {
                let run = t.chars().take_while(|&x| x == c).count();
                if run >= 3 {
                    fence = Some((c, run));
                    out.push_str(line);
                    continue;
                }
            }
        } else if fence.is_some() {
            out.push_str(line);
            continue;
        }
        if let Some(lang) = hugo_highlight_start(t) {
            // Hugo's `{{< highlight go >}}` … `{{< /highlight >}}` is a code block of its
            // language: a fence longer than any backtick run the code holds.
            let offset = line.as_ptr() as usize - text.as_ptr() as usize + line.len();
            let fence = "`".repeat(hugo_fence_len(&text[offset..]));
            out.push_str(&fence);
            out.push_str(lang);
            out.push('\n');
            hugo_code = Some(fence);
            continue;
        }
        if t.starts_with(":::") {
            // `::: tip عنوان` → `عنوان`; a bare `:::` → blank line. Containers may sit indented
            // inside list items, so any indentation counts (fenced code was handled above).
            let rest = t.trim_start_matches(':').trim();
            let title = rest
                .split_once(char::is_whitespace)
                .map(|(_, title)| title.trim())
                .unwrap_or("");
            let pad = &line[..indent];
            out.push('\n');
            if !title.is_empty() {
                out.push_str(pad);
                out.push_str(title);
                out.push_str("\n\n");
            }
            continue;
        }
        match template.as_mut() {
            Some(l) => out.push_str(&strip_shortcodes(&l.line(line))),
            None => out.push_str(&strip_shortcodes(line)),
        }
    }
    if let Some(close) = hugo_code {
        // An unclosed block runs to the end of the page, as Hugo renders it.
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&close);
        out.push('\n');
    }
    if let Some(l) = template {
        out.push_str(&l.finish());
    }
    out
}

/// The language of a line that opens a Hugo highlight block (`{{< highlight go "linenos=table" >}}`
/// or with `%`), alone on its line: "" when it names none.
fn hugo_highlight_start(t: &str) -> Option<&str> {
    let mut words = shortcode_inner(t)?.split_whitespace();
    (words.next()? == "highlight").then(|| {
        words
            .next()
            .map(|l| l.trim_matches('"'))
            .filter(|l| {
                l.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+-#._".contains(&b))
            })
            .unwrap_or("")
    })
}

fn is_hugo_highlight_end(line: &str) -> bool {
    shortcode_inner(line).is_some_and(|i| i.trim() == "/highlight")
}

/// What a line that is one shortcode alone (`{{< name args >}}` or `{{% … %}}`) holds inside.
fn shortcode_inner(line: &str) -> Option<&str> {
    let t = line.trim();
    t.strip_prefix("{{<")
        .and_then(|r| r.strip_suffix(">}}"))
        .or_else(|| t.strip_prefix("{{%").and_then(|r| r.strip_suffix("%}}")))
}

/// The backtick fence for a highlight block whose code starts `rest`: one longer than the
/// longest backtick run at a line start before the block's end, and at least three.
fn hugo_fence_len(rest: &str) -> usize {
    rest.split_inclusive('\n')
        .take_while(|l| !is_hugo_highlight_end(l))
        .map(|l| l.trim_start().bytes().take_while(|&b| b == b'`').count() + 1)
        .fold(3, usize::max)
}

fn strip_shortcodes(line: &str) -> std::borrow::Cow<'_, str> {
    // Most lines have no `{` at all: one byte search instead of two substring searches.
    if !line.as_bytes().contains(&b'{') || (!line.contains("{{<") && !line.contains("{{%")) {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = String::new();
    let mut rest = line;
    loop {
        let next = [rest.find("{{<"), rest.find("{{%")]
            .into_iter()
            .flatten()
            .min();
        let Some(start) = next else { break };
        let close = if rest[start..].starts_with("{{<") {
            ">}}"
        } else {
            "%}}"
        };
        match rest[start..].find(close) {
            Some(end) => {
                out.push_str(&rest[..start]);
                // What a reader sees of a shortcode (a figure's title and caption) stays.
                let inner = &rest[start + 3..start + end];
                let shown: Vec<&str> = ["title", "caption"]
                    .into_iter()
                    .filter_map(|k| shortcode_param(inner, k))
                    .filter(|v| !v.trim().is_empty())
                    .collect();
                out.push_str(&shown.join(" — "));
                rest = &rest[start + end + close.len()..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// A named parameter of a shortcode's inside (`figure src="a.png" caption="نص"`), quoted with
/// `"` or a backtick.
fn shortcode_param<'a>(inner: &'a str, key: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(i) = inner[from..].find(key) {
        let at = from + i;
        from = at + key.len();
        let before_ok = at == 0 || inner.as_bytes()[at - 1].is_ascii_whitespace();
        let after = inner[from..].trim_start();
        if let (true, Some(v)) = (before_ok, after.strip_prefix('=')) {
            let v = v.trim_start();
            let q = v.chars().next().filter(|c| *c == '"' || *c == '`')?;
            return v[1..].find(q).map(|end| &v[1..1 + end]);
        }
    }
    None
}

fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_GFM
}

/// Markdown body → evidence blocks.
pub(super) fn render(md: &str) -> Body {
    render_with(md, false)
}

/// `render`, with `$…$` and `$$…$$` read as TeX (kept as written) when `math`.
fn render_with(md: &str, math: bool) -> Body {
    let mut opts = options();
    if math {
        opts |= Options::ENABLE_MATH;
    }
    let mut w = Walker::default();
    for ev in Parser::new_ext(md, opts) {
        w.event(ev);
    }
    w.flush(BlockKind::Paragraph);
    w.body
}

#[derive(Default)]
struct Walker {
    body: Body,
    buf: String,
    lists: Vec<Option<u64>>,
    quote: usize,
    table: bool,
    cell: usize,
    heading: Option<u8>,
    /// A heading open inside a list item (`- ##### Step`): read as the item's first line.
    item_heading: bool,
    /// The open heading's explicit id (`{#id}`).
    heading_id: Option<String>,
    /// An open code block: its language and where its text starts in `buf`.
    code: Option<(String, usize)>,
    image: usize,
    html: String,
    in_html_block: bool,
    /// Inside an inline `<script>`/`<style>` element: its text is code, not evidence.
    inline_hidden: Option<&'static str>,
    /// Inside a link whose target is `javascript:` (or another script scheme).
    unsafe_link: usize,
}

impl Walker {
    fn contained(&self) -> bool {
        !self.lists.is_empty() || self.quote > 0 || self.table || self.heading.is_some()
    }

    fn flush(&mut self, kind: BlockKind) {
        let text = std::mem::take(&mut self.buf);
        self.body.push(kind, &text);
    }

    fn space(&mut self) {
        if !self.buf.is_empty() && !self.buf.ends_with(char::is_whitespace) {
            self.buf.push(' ');
        }
    }

    fn event(&mut self, ev: Event<'_>) {
        if self.image > 0 {
            match ev {
                Event::Start(Tag::Image { .. }) => self.image += 1,
                Event::End(TagEnd::Image) => self.image -= 1,
                _ => {}
            }
            return;
        }
        if let Some(tag) = self.inline_hidden {
            if let Event::InlineHtml(t) = &ev
                && t.to_ascii_lowercase().starts_with(&format!("</{tag}"))
            {
                self.inline_hidden = None;
            }
            return;
        }
        if self.unsafe_link > 0 {
            match ev {
                Event::Start(Tag::Link { .. }) => self.unsafe_link += 1,
                Event::End(TagEnd::Link) => self.unsafe_link -= 1,
                _ => {}
            }
            return;
        }
        match ev {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => {
                if self.in_html_block {
                    self.html.push_str(&t);
                } else {
                    self.buf.push_str(&t);
                }
            }
            Event::Code(t) => push_inline_code(&mut self.buf, &t),
            Event::InlineMath(t) | Event::DisplayMath(t) => self.buf.push_str(&t),
            Event::Html(t) => self.html.push_str(&t),
            Event::InlineHtml(t) => {
                let lower = t.to_ascii_lowercase();
                if lower.starts_with("<br") {
                    self.space();
                }
                for tag in ["script", "style", "template", "iframe", "noscript"] {
                    if lower.starts_with(&format!("<{tag}"))
                        && !lower.trim_end().ends_with("/>")
                        && !lower.contains(&format!("</{tag}"))
                    {
                        self.inline_hidden = Some(tag);
                    }
                }
            }
            Event::SoftBreak => self.space(),
            Event::HardBreak => self.buf.push('\n'),
            Event::TaskListMarker(done) => self.buf.push_str(if done { "[x] " } else { "[ ] " }),
            Event::FootnoteReference(_) | Event::Rule => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => {
                if self.contained() {
                    self.space();
                } else {
                    self.flush(BlockKind::Paragraph);
                }
            }
            // A heading inside a list item is the item's first line, not a section: flushing
            // here would leave the item's marker alone on a line.
            Tag::Heading { .. } if !self.lists.is_empty() => {
                if !self.buf.is_empty() && !self.buf.ends_with([' ', '\n']) {
                    self.buf.push('\n');
                }
                self.item_heading = true;
            }
            Tag::Heading { level, id, .. } => {
                self.flush(BlockKind::Paragraph);
                self.heading = Some(level as u8);
                self.heading_id = id.map(|i| i.to_string());
            }
            Tag::BlockQuote(_) => {
                if self.quote == 0 && !self.contained() {
                    self.flush(BlockKind::Paragraph);
                }
                self.quote += 1;
            }
            Tag::CodeBlock(kind) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().unwrap_or("").to_string()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                if self.contained() {
                    if !self.buf.is_empty() {
                        self.buf.push('\n');
                    }
                } else {
                    self.flush(BlockKind::Paragraph);
                }
                self.code = Some((lang, self.buf.len()));
            }
            Tag::HtmlBlock => {
                self.in_html_block = true;
                self.html.clear();
            }
            Tag::List(start) => {
                if self.lists.is_empty() && !self.contained() {
                    self.flush(BlockKind::Paragraph);
                }
                self.lists.push(start);
            }
            Tag::Item if self.lists.len() > 8 => self.space(), // deeper items flow inline
            Tag::Item => {
                if !self.buf.is_empty() {
                    while self.buf.ends_with(' ') {
                        self.buf.pop();
                    }
                    self.buf.push('\n');
                }
                let depth = self.lists.len().saturating_sub(1).min(8);
                for _ in 0..depth {
                    self.buf.push_str("  ");
                }
                match self.lists.last_mut() {
                    Some(Some(n)) => {
                        self.buf.push_str(&format!("{n}. "));
                        *n += 1;
                    }
                    _ => self.buf.push_str("- "),
                }
            }
            Tag::Table(_) => {
                self.flush(BlockKind::Paragraph);
                self.table = true;
            }
            Tag::TableHead | Tag::TableRow => {
                if !self.buf.is_empty() {
                    self.buf.push('\n');
                }
                self.cell = 0;
            }
            Tag::TableCell => {
                if self.cell > 0 {
                    self.buf.push_str(" | ");
                }
                self.cell += 1;
            }
            Tag::Image { .. } => self.image = 1,
            Tag::Link { dest_url, .. } if is_script_url(&dest_url) => self.unsafe_link = 1,
            Tag::FootnoteDefinition(_) => self.flush(BlockKind::Paragraph),
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph if !self.contained() => {
                self.flush(BlockKind::Paragraph);
            }
            TagEnd::Heading(_) if self.item_heading => {
                self.item_heading = false;
                self.buf.push('\n');
            }
            TagEnd::Heading(_) => {
                let level = self.heading.take().unwrap_or(1);
                let text = std::mem::take(&mut self.buf);
                let id = self.heading_id.take();
                self.body.push_heading(level, &text, id.as_deref());
            }
            TagEnd::BlockQuote(_) => {
                self.quote -= 1;
                if self.quote == 0 && !self.contained() {
                    self.flush(BlockKind::Quote);
                }
            }
            TagEnd::CodeBlock => {
                if let Some((lang, start)) = self.code.take() {
                    let code = self.buf.split_off(start);
                    self.buf.push_str(&super::fenced(&lang, &code));
                }
                if !self.contained() {
                    self.flush(BlockKind::Code);
                }
            }
            TagEnd::HtmlBlock => {
                self.in_html_block = false;
                let text = strip_html(&std::mem::take(&mut self.html));
                if self.contained() {
                    self.space();
                    self.buf.push_str(&text);
                } else {
                    self.flush(BlockKind::Paragraph);
                    self.buf.push_str(&text);
                    self.flush(BlockKind::Paragraph);
                }
            }
            TagEnd::List(_) => {
                self.lists.pop();
                if self.lists.is_empty() && !self.contained() {
                    self.flush(BlockKind::List);
                }
            }
            TagEnd::Table => {
                self.table = false;
                self.flush(BlockKind::Table);
            }
            TagEnd::FootnoteDefinition => self.flush(BlockKind::Paragraph),
            _ => {}
        }
    }
}

/// Inline code stays marked as code in evidence: `x`, or ``x`y`` when it holds a backtick.
pub(super) fn push_inline_code(out: &mut String, code: &str) {
    let fence = if code.contains('`') { "``" } else { "`" };
    let pad = if code.starts_with('`') || code.ends_with('`') {
        " "
    } else {
        ""
    };
    out.push_str(fence);
    out.push_str(pad);
    out.push_str(code);
    out.push_str(pad);
    out.push_str(fence);
}

/// Readable text of an HTML fragment embedded in Markdown: tags, comments and the content of
/// `<script>`, `<style>` and `<template>`-free elements are dropped; entities are decoded.
pub(super) fn strip_html(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut out = String::new();
    let mut i = 0;
    let bytes = html.as_bytes();
    while i < html.len() {
        if bytes[i] == b'<' {
            if lower[i..].starts_with("<!--") {
                i = lower[i..]
                    .find("-->")
                    .map(|e| i + e + 3)
                    .unwrap_or(html.len());
                continue;
            }
            let mut skipped = false;
            for tag in ["script", "style", "template", "iframe", "noscript"] {
                let open = format!("<{tag}");
                if lower[i..].starts_with(&open)
                    && !lower[i + open.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
                {
                    let close = format!("</{tag}");
                    i = match lower[i..].find(&close) {
                        Some(e) => lower[i + e..]
                            .find('>')
                            .map(|g| i + e + g + 1)
                            .unwrap_or(html.len()),
                        None => html.len(),
                    };
                    skipped = true;
                    break;
                }
            }
            if skipped {
                continue;
            }
            let is_tag = html[i + 1..]
                .starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!');
            if is_tag {
                // The tag ends at the first `>` outside a quoted attribute value.
                let mut quote: Option<u8> = None;
                let mut j = i + 1;
                while j < bytes.len() {
                    match (quote, bytes[j]) {
                        (None, b'"' | b'\'') => quote = Some(bytes[j]),
                        (Some(q), c) if c == q => quote = None,
                        (None, b'>') => break,
                        _ => {}
                    }
                    j += 1;
                }
                // A `<` no `>` closes is a stray character, not a tag: the words after it stay.
                if j < bytes.len() {
                    i = j + 1;
                    out.push(' ');
                    continue;
                }
            }
        }
        let ch = html[i..].chars().next().unwrap();
        out.push(ch);
        i += ch.len_utf8();
    }
    let decoded = super::decode_entities(&out);
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(md: &str) -> Vec<(BlockKind, String)> {
        let b = render(&preprocess(md));
        b.blocks
            .iter()
            .map(|x| (x.kind, b.block_text(x).to_string()))
            .collect()
    }

    #[test]
    fn headings_paragraphs_lists_code() {
        let t = texts(
            "# عنوان {#title}\n\nفقرة &quot;أولى&quot; [رابط](https://x)\n\n- أ\n- ب\n\n```js\nlet a = 1;\n```\n",
        );
        assert_eq!(t[0], (BlockKind::Heading(1), "عنوان".into()));
        assert_eq!(t[1], (BlockKind::Paragraph, "فقرة \"أولى\" رابط".into()));
        assert_eq!(t[2], (BlockKind::List, "- أ\n- ب".into()));
        assert_eq!(t[3], (BlockKind::Code, "```js\nlet a = 1;\n```".into()));
    }

    /// An explicit heading id is the heading's anchor, never its text; an id that is no ASCII
    /// slug is dropped.
    #[test]
    fn a_heading_inside_a_list_item_is_the_item_s_first_line() {
        let t = texts("- ##### أوجد القيم\n  ثم الشرح.\n- ```\n  x\n  ```\n  ## بعد الكود\n");
        assert_eq!(
            t,
            [(
                BlockKind::List,
                "- أوجد القيم\nثم الشرح.\n- \n```\nx\n```\nبعد الكود".to_string()
            )]
        );
    }

    #[test]
    fn a_heading_id_is_its_anchor() {
        let b = render(&preprocess(
            "## الرفع الثابت {#static-hoisting}\n\nنص.\n\n## قسم {#قسم}\n\n## بلا معرف\n",
        ));
        let got: Vec<_> = b
            .blocks
            .iter()
            .map(|x| (b.block_text(x), x.anchor.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("الرفع الثابت", Some("static-hoisting")),
                ("نص.", None),
                ("قسم", None),
                ("بلا معرف", None),
            ]
        );
    }

    #[test]
    fn containers_shortcodes_and_html_dropped() {
        let t = texts(
            "::: tip ملاحظة\nنص داخل\n:::\n\n{{< youtube abc >}}\n\n<script setup>\nimport X from 'y'\n</script>\n\n<div class=\"a\">\n\nنص\n\n</div>\n",
        );
        let all: Vec<_> = t.iter().map(|x| x.1.clone()).collect();
        assert_eq!(all, vec!["ملاحظة", "نص داخل", "نص"]);
    }

    /// Hugo: a figure's title and caption are what a reader sees of it; a highlight block is
    /// code of its language (its lines never read as prose, a shortcode inside kept as written).
    #[test]
    fn hugo_figures_keep_their_caption_and_highlight_is_code() {
        let t = texts(concat!(
            "{{< figure src=\"/img/pi.png\" alt=\"x\" caption=\"لوحة راسبيري باي\" >}}\n\n",
            "{{< highlight go \"linenos=table\" >}}\nfunc main() {\n\t// {{< youtube a >}}\n}\n{{< /highlight >}}\n\n",
            "نص بعده.\n"
        ));
        assert_eq!(
            t,
            vec![
                (BlockKind::Paragraph, "لوحة راسبيري باي".into()),
                (
                    BlockKind::Code,
                    "```go\nfunc main() {\n\t// {{< youtube a >}}\n}\n```".into()
                ),
                (BlockKind::Paragraph, "نص بعده.".into()),
            ]
        );
        // Code holding a fence gets a longer one; an unclosed block runs to the end.
        let t = texts("{{% highlight md %}}\n```\nx\n```\n");
        assert_eq!(
            t,
            vec![(BlockKind::Code, "````md\n```\nx\n```\n````".into())]
        );
    }

    proptest::proptest! {
        /// Any text of Liquid's and Markdown's punctuation is read without a panic, and what a
        /// Liquid library drops is never more than the text had.
        #[test]
        fn liquid_never_panics(s in "([{}%`:\n -]| highlight a | endhighlight |raw|endraw|comment|endcomment|ب){0,24}") {
            let out = preprocess_with(&s, true);
            proptest::prop_assert!(out.len() <= s.len() + 16 * s.matches("highlight").count() + 8);
            let _ = render(&out);
        }
    }

    fn liquid_texts(md: &str) -> Vec<(BlockKind, String)> {
        let b = render(&preprocess_with(md, true));
        b.blocks
            .iter()
            .map(|x| (x.kind, b.block_text(x).to_string()))
            .collect()
    }

    /// A Jekyll page's template code is not evidence: output, tags (one line or several),
    /// comments, kramdown attribute lists and Liquid in a link target go; a highlight block is
    /// code of its language; raw text stays as written.
    #[test]
    fn liquid_template_code_is_dropped_outside_code() {
        let t = liquid_texts(concat!(
            "فقرة أولى.\n{:style=\"direction:ltr;\"}\n{% highlight ruby %}\ndef hi\n  puts \"{{ x }}\"\nend\n{% endhighlight %}\n\n",
            "{% assign posts = site.posts %}{% for p in posts %}\n- {{ p.title }} عنوان\n{% endfor %}\n\n",
            "{% include image.html\n   url=\"/a.png\" %}\n\n",
            "اكتب لي على {{ site.email }} أو راجع [الصفحة]({{ \"/about\" | relative_url }}).\n\n",
            "## عنوان {: #id}\n\n{% comment %}\nنص مخفي\n{% endcomment %}\n\n",
            "{% raw %}اكتب {{ page.title }} في القالب{% endraw %}\n",
        ));
        let want = [
            (BlockKind::Paragraph, "فقرة أولى."),
            (
                BlockKind::Code,
                "```ruby\ndef hi\n  puts \"{{ x }}\"\nend\n```",
            ),
            (BlockKind::List, "- عنوان"),
            (BlockKind::Paragraph, "اكتب لي على أو راجع الصفحة."),
            (BlockKind::Heading(2), "عنوان"),
            (BlockKind::Paragraph, "اكتب {{ page.title }} في القالب"),
        ];
        let want: Vec<_> = want.iter().map(|(k, s)| (*k, s.to_string())).collect();
        assert_eq!(t, want);
    }

    /// Mustaches in code are code (tldr placeholders, Vue templates), with or without Liquid;
    /// without it, prose keeps them too.
    #[test]
    fn mustaches_in_code_are_kept() {
        let md = "- نسخ ملف:\n\n`cp {{path/to/file}} {{dest}}`\n\n```vue\n<p>{{ msg }}</p>\n{% raw %}\n```\n\nنص {{ count }}\n";
        let t = liquid_texts(md);
        assert_eq!(t[1].1, "`cp {{path/to/file}} {{dest}}`");
        assert_eq!(t[2].1, "```vue\n<p>{{ msg }}</p>\n{% raw %}\n```");
        assert_eq!(t[3].1, "نص");
        assert_eq!(texts(md)[3].1, "نص {{ count }}");
        // Punctuation that only looks like a tag is no tag.
        assert_eq!(liquid_texts("أ {%} ب\n")[0].1, "أ");
        // A `{{` that never closes drops the rest of its paragraph only.
        let t = liquid_texts("أ {{ x\nب\n\nفقرة تالية.\n");
        assert_eq!(t[0].1, "أ");
        assert_eq!(t[1].1, "فقرة تالية.");
    }
}
