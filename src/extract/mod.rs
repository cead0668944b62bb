//! extract: per format, the readable main text of a source plus its metadata. Pure: takes the
//! file's bytes, returns documents (one per file, or one per JSON record) and problems.
//!
//! A document's body is one string of evidence text made of blocks (headings, paragraphs, lists,
//! code, tables) joined by blank lines; the chunker cuts contiguous excerpts of it.

pub(crate) use crate::coptic;
mod encoding;
mod frontmatter;
mod generator;
mod guard;
pub(crate) mod html;
pub(crate) mod include;
mod json;
mod liquid;
pub(crate) use encoding::{decode, decode_html};
pub(crate) use frontmatter::yaml_budget_reason;
pub(crate) use generator::Generator;
pub use include::Includes;
pub(crate) use json::{IdMatch, RecordMapping, SectionMapping};
mod markdown;
mod mdx;
mod mdx_fast;

use serde_json::{Map, Value};

use crate::diag::Problem;

/// Source formats the extractor understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Markdown,
    Mdx,
    Html,
    Json,
}

impl Format {
    /// The format a file extension implies, when the library does not declare one.
    pub fn from_extension(path: &std::path::Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "md" | "markdown" => Some(Format::Markdown),
            "mdx" => Some(Format::Mdx),
            "html" | "htm" => Some(Format::Html),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

/// The frontmatter keys of a Markdown file's text that hold prose (none when it has no valid
/// frontmatter): what zero config checks a site's layouts against.
pub(crate) fn frontmatter_prose_keys(text: &str) -> Vec<String> {
    frontmatter::split(text).map_or_else(|_| Vec::new(), |s| frontmatter::prose_keys(&s.fields))
}

/// What extraction reads of a source's library (`config` builds it:
/// `Library::compile_settings`).
#[derive(Debug, Clone, Copy)]
pub struct ExtractSettings<'a> {
    /// The library's id, for messages.
    pub library: &'a str,
    /// Frontmatter keys copied into chunk metadata.
    pub frontmatter_metadata: &'a [String],
    /// Frontmatter keys whose text the page shows: evidence before the body, in this order.
    pub frontmatter_text: &'a [String],
    /// How a JSON file maps to documents (`[library.records]`).
    pub records: Option<&'a RecordMapping>,
    /// Markdown is a Liquid template (Jekyll, Eleventy): its tags and output are dropped.
    pub liquid: bool,
    /// The generator whose Markdown dialect the pages are written in.
    pub generator: Generator,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum BlockKind {
    Heading(u8),
    Paragraph,
    List,
    Quote,
    Code,
    Table,
}

/// A block of the body: a byte range of `Body::text`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Block {
    pub start: usize,
    pub end: usize,
    pub kind: BlockKind,
    /// A heading's explicit id, as its author wrote it (`## الرفع الثابت {#static-hoisting}`,
    /// `## الخصائص {/*props*/}`): in a translated site, the original heading's words. Never
    /// evidence text ([`anchor`]).
    pub anchor: Option<String>,
}

/// An explicit heading id worth keeping: an ASCII slug (letters, digits, `-`, `_`, `.`) of at
/// most 100 bytes with a letter in it. Generated or opaque ids (`h-1`, hashes) are rare in
/// Markdown sources, which is where explicit ids are written by hand.
pub(crate) fn anchor(id: &str) -> Option<&str> {
    let id = id.trim();
    let slug = !id.is_empty()
        && id.len() <= 100
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && id.bytes().any(|b| b.is_ascii_alphabetic());
    slug.then_some(id)
}

/// The extracted evidence of one document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Body {
    pub text: String,
    pub blocks: Vec<Block>,
}

/// Whether `s` holds a control character other than `\n` and `\t` (`char::is_control`: C0,
/// DEL and C1), by a byte scan: C0 and DEL are single bytes, C1 is `0xC2` then `0x80..=0x9F`.
///
/// Every extracted block goes through it: 32 bytes at a time, a test without early exit (which
/// the compiler vectorizes) says whether any byte could start one (below 0x20, 0x7F, 0xC2), and
/// only such a group (a line break, `«`) is looked at byte by byte.
fn has_control(s: &str) -> bool {
    const GROUP: usize = 32;
    let b = s.as_bytes();
    let exact = |i: usize, c: u8| {
        (c < 0x20 && c != b'\n' && c != b'\t')
            || c == 0x7F
            || (c == 0xC2 && b.get(i + 1).is_some_and(|n| (0x80..=0x9F).contains(n)))
    };
    b.chunks(GROUP).enumerate().any(|(k, group)| {
        let maybe = group.iter().fold(false, |acc, &c| {
            acc | (c < 0x20) | (c == 0x7F) | (c == 0xC2)
        });
        maybe
            && group
                .iter()
                .enumerate()
                .any(|(j, &c)| exact(k * GROUP + j, c))
    })
}

/// `s` without its control characters other than `\n` and `\t`: what a block of evidence keeps,
/// and what a title keeps (a title reaches records, KV and terminals as the body does).
pub(crate) fn without_controls(s: &str) -> std::borrow::Cow<'_, str> {
    if has_control(s) {
        std::borrow::Cow::Owned(
            s.chars()
                .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
                .collect(),
        )
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

impl Body {
    /// `first`'s blocks, then this body's, one blank line apart.
    pub fn after(self, mut first: Body) -> Body {
        if first.text.is_empty() {
            return self;
        }
        if self.text.is_empty() {
            return first;
        }
        first.text.push_str("\n\n");
        let shift = first.text.len();
        first.text.push_str(&self.text);
        first.blocks.extend(self.blocks.into_iter().map(|b| Block {
            start: b.start + shift,
            end: b.end + shift,
            ..b
        }));
        first
    }

    /// Appends a block (trimmed; empty ones are dropped), separated from the previous by a blank line.
    pub fn push(&mut self, kind: BlockKind, s: &str) {
        self.push_anchored(kind, s, None);
    }

    /// Appends a heading with its explicit id (kept when [`anchor`] accepts it).
    pub fn push_heading(&mut self, level: u8, s: &str, id: Option<&str>) {
        self.push_anchored(BlockKind::Heading(level), s, id.and_then(anchor));
    }

    /// Appends a paragraph that an id links (an item of a JSON record): a section of its own
    /// (`chunk`), whose citations link `#id`.
    pub(crate) fn push_item(&mut self, s: &str, id: Option<&str>) {
        self.push_anchored(BlockKind::Paragraph, s, id);
    }

    fn push_anchored(&mut self, kind: BlockKind, s: &str, anchor: Option<&str>) {
        // Control characters (ESC, BEL, C1) are never readable evidence, and would reach a
        // reviewer's terminal through `show` and `query`.
        let cleaned = without_controls(s);
        let s = cleaned.as_ref();
        let s = if kind == BlockKind::Code {
            s.trim_matches('\n')
        } else {
            s.trim()
        };
        if s.trim().is_empty() {
            return;
        }
        // A heading that is literally a tag (`<option>`, an escaped `\<script setup>`) is a code
        // name, shown as code so it never reads as markup.
        let wrapped;
        let s = if matches!(kind, BlockKind::Heading(_)) && looks_like_tag(s) {
            wrapped = format!("`{s}`");
            wrapped.as_str()
        } else {
            s
        };
        if !self.text.is_empty() {
            self.text.push_str("\n\n");
        }
        let start = self.text.len();
        self.text.push_str(s);
        self.blocks.push(Block {
            start,
            end: self.text.len(),
            kind,
            anchor: anchor.map(str::to_string),
        });
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    pub fn block_text(&self, b: &Block) -> &str {
        &self.text[b.start..b.end]
    }

    pub fn first_heading(&self, level: u8) -> Option<&str> {
        self.blocks
            .iter()
            .find(|b| b.kind == BlockKind::Heading(level))
            .map(|b| self.block_text(b))
    }

    /// The heading the body opens with, of any level: a page's own heading when it has no H1.
    /// A heading after body text names a section, not the page (an intro, then
    /// `## Prerequisites`).
    pub fn leading_heading(&self) -> Option<&str> {
        self.blocks
            .first()
            .filter(|b| matches!(b.kind, BlockKind::Heading(_)))
            .map(|b| self.block_text(b))
    }

    /// Puts a title heading first, when the body has no H1 of its own.
    pub fn with_title_heading(self, title: &str) -> Body {
        let first = self.blocks.first().map(|b| self.block_text(b).trim());
        if self.first_heading(1).is_some() || title.trim().is_empty() || first == Some(title.trim())
        {
            return self;
        }
        let mut out = Body::default();
        out.push(BlockKind::Heading(1), title);
        for b in &self.blocks {
            out.push_anchored(b.kind, self.block_text(b), b.anchor.as_deref());
        }
        out
    }
}

/// A fenced code block as evidence; the fence is longer than any backtick run inside the code,
/// so code that itself shows fences stays one block.
pub(crate) fn fenced(lang: &str, code: &str) -> String {
    let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let code = code.strip_suffix('\n').unwrap_or(code);
    format!("{fence}{lang}\n{code}\n{fence}")
}

fn looks_like_tag(s: &str) -> bool {
    s.starts_with('<')
        && s.ends_with('>')
        && s[1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '/')
        && !s.contains('`')
}

/// One document extracted from a source file.
#[derive(Debug, Clone, Default)]
pub struct Document {
    /// For files that yield several documents (JSON records): the record's slug.
    pub record_slug: Option<String>,
    /// A slug the source itself declares (frontmatter `id`, or the id template of a single record).
    pub slug_override: Option<String>,
    pub title: Option<String>,
    /// A URL the source maps itself (record field); otherwise the library's url template applies.
    pub url: Option<String>,
    /// Fields the library's url template may use (frontmatter or record fields).
    pub fields: Map<String, Value>,
    pub domains: Option<Vec<String>>,
    pub metadata: Map<String, Value>,
    pub body: Body,
    /// 1-based line of the document in its file (records), for messages.
    pub line: Option<usize>,
    /// Where a record sits in its file (`record #3 (`15 Hator`[0])`), for messages.
    pub position: Option<String>,
    /// The frontmatter that makes it a draft (`draft: true`, `published: false`): a site
    /// generator does not publish it, so it is left out.
    pub draft: Option<&'static str>,
}

/// What one file yields.
#[derive(Debug, Default)]
pub struct FileExtraction {
    pub docs: Vec<Document>,
    pub problems: Vec<Problem>,
}

impl FileExtraction {
    fn error(file: &str, p: Problem) -> Self {
        FileExtraction {
            docs: Vec::new(),
            problems: vec![p.in_file(file.to_string())],
        }
    }
}

/// Extracts the documents of one file. `file` names it in messages; `rel` is its path relative
/// to the library root (JSON records read its slug as `{$file}`).
pub fn extract(
    file: &str,
    rel: &str,
    bytes: &[u8],
    format: Format,
    lib: &ExtractSettings,
    includes: &Includes,
) -> FileExtraction {
    let decoded = if format == Format::Html {
        decode_html(bytes)
    } else {
        decode(bytes)
    };
    let text = match decoded {
        Ok(t) => t,
        Err(p) => return FileExtraction::error(file, p),
    };
    let mut out = match format {
        Format::Markdown => markdown::extract(file, rel, &text, lib, includes),
        Format::Mdx => mdx::extract(file, &text, lib),
        Format::Html if lib.liquid => html::extract(file, &liquid::strip_html(&text)),
        Format::Html => html::extract(file, &text),
        Format::Json => json::extract(file, &crate::identity::file_slug(rel), &text, lib),
    };
    for p in &mut out.problems {
        if p.file.is_none() {
            p.file = Some(file.to_string());
        }
    }
    out
}

/// A 256-entry membership table of `bytes`, for scanners that skip every other byte with one
/// lookup.
pub(crate) const fn byte_set(bytes: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut k = 0;
    while k < bytes.len() {
        t[bytes[k] as usize] = true;
        k += 1;
    }
    t
}

/// A link or resource URL that runs code or embeds a document (`javascript:`, `vbscript:`,
/// `data:`, any case): its element is dropped and its text never becomes evidence. Whitespace
/// and control characters anywhere before the scheme's end are ignored: browsers drop tabs and
/// newlines inside a URL and strip leading spaces and controls, and ignoring every Unicode
/// whitespace character too errs on the side of refusing.
pub(crate) fn is_script_url(url: &str) -> bool {
    // "javascript:" is the longest scheme looked for: 11 characters.
    let scheme = url
        .chars()
        .filter(|c| !(c.is_whitespace() || c.is_control()))
        .take(11)
        .collect::<String>()
        .to_ascii_lowercase();
    scheme.starts_with("javascript:")
        || scheme.starts_with("vbscript:")
        || scheme.starts_with("data:")
}

/// Decodes HTML character references (`&quot;`, `&#1575;`, `&amp;`) in text from any format.
pub fn decode_entities(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains('&') {
        html_escape::decode_html_entities(s)
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// File stems that say what a file is, not what it is about: their title names their folder
/// too (`4-exercise-name/solution.md` → "exercise name: solution").
const GENERIC_STEMS: [&str; 6] = ["solution", "task", "exercise", "answer", "demo", "example"];

/// Index stems: such a file's title is its folder's name alone.
const INDEX_STEMS: [&str; 3] = ["index", "readme", "_index"];

/// A path segment as words: ordering prefix dropped (`01-intro` → `intro`), `-` and `_` as
/// spaces. Falls back to the segment as it is when nothing readable is left.
fn readable(seg: &str) -> String {
    let words = crate::identity::strip_order(seg)
        .split(['-', '_', ' '])
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if words.is_empty() {
        seg.to_string()
    } else {
        words
    }
}

/// A last-resort title from a file's path: its stem as words; a generic stem (`solution`,
/// `README`…) with its folder's name, an index file as its folder's name.
pub(crate) fn path_title(file: &str) -> String {
    let mut segs = file
        .split('/')
        .filter(|s| !s.is_empty() && *s != "." && *s != "..");
    let name = segs.next_back().unwrap_or(file);
    let stem = match name.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s,
        _ => name,
    };
    let lower = stem.to_ascii_lowercase();
    let key = crate::identity::strip_order(&lower);
    let Some(folder) = segs.next_back().map(readable) else {
        return readable(stem);
    };
    if INDEX_STEMS.contains(&key) {
        folder
    } else if GENERIC_STEMS.contains(&key) {
        format!("{folder}: {}", readable(stem))
    } else {
        readable(stem)
    }
}

/// Shared end of extraction for single-document files: title fallback, the title as the first
/// heading, and the "nothing to index" warning.
fn finish(file: &str, mut doc: Document, mut problems: Vec<Problem>) -> FileExtraction {
    if let Some(marked) = doc.draft {
        problems.push(
            Problem::note(
                "draft",
                format!(
                    "a draft (`{marked}`): left out, as its site generator does not publish it"
                ),
            )
            .in_file(file.to_string())
            .help(format!(
                "remove `{marked}` from the frontmatter to publish and index it"
            )),
        );
        return FileExtraction {
            docs: Vec::new(),
            problems,
        };
    }
    if doc.body.is_empty() {
        let prose = frontmatter::prose_keys(&doc.fields);
        let help = if prose.is_empty() {
            "add content, or exclude the file in corpus.toml".to_string()
        } else {
            let keys: Vec<String> = prose.iter().map(|k| format!("`{k}`")).collect();
            format!(
                "its frontmatter holds text in {}: if the page shows it, list those keys in the library's `frontmatter_text` in corpus.toml (`askzico init` writes one); else add content or exclude the file",
                keys.join(", ")
            )
        };
        problems.push(
            Problem::warning(
                "empty",
                "nothing to index (empty, whitespace or frontmatter only): no document",
            )
            .in_file(file.to_string())
            .help(help),
        );
        return FileExtraction {
            docs: Vec::new(),
            problems,
        };
    }
    let title = doc
        .title
        .as_deref()
        .map(|t| without_controls(t).into_owned())
        .or_else(|| doc.body.first_heading(1).map(str::to_string))
        .or_else(|| doc.body.leading_heading().map(str::to_string))
        .filter(|t| !t.trim().is_empty());
    let title = match title {
        Some(t) => t,
        None => {
            let t = path_title(file);
            problems.push(
                Problem::warning(
                    "no-title",
                    format!("no title (frontmatter `title` or a `# heading`); using `{t}`"),
                )
                .in_file(file.to_string())
                .help("add `title:` to the frontmatter"),
            );
            t
        }
    };
    doc.body = std::mem::take(&mut doc.body).with_title_heading(&title);
    doc.title = Some(title);
    FileExtraction {
        docs: vec![doc],
        problems,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn control_scan_agrees_with_char_is_control(s in "(\\PC|[\\x00-\\x1f\\x7f-\\u{9f}\\u{a0}-\\u{ff}\\u{600}-\\u{6ff}])*") {
            proptest::prop_assert_eq!(has_control(&s), s.chars().any(|c| c.is_control() && c != '\n' && c != '\t'));
        }
    }

    #[test]
    fn script_urls_are_told_by_their_scheme_whatever_the_spacing() {
        for url in [
            "javascript:alert(1)",
            "JaVaScRiPt:void(0)",
            " \t\njavascript:x",
            "java\tscript:x",
            "java\u{0}script:x",
            "\u{2003}javascript:x",
            "java\u{a0}script:x",
            "vbscript:msgbox",
            "data:text/html,<p>x</p>",
            " DATA:image/png;base64,AAAA",
        ] {
            assert!(is_script_url(url), "{url:?}");
        }
        for url in [
            "https://x/javascript:",
            "/data:x",
            "#javascript",
            "mailto:a@b",
            "java-script:x",
            "",
        ] {
            assert!(!is_script_url(url), "{url:?}");
        }
    }

    #[test]
    fn titles_from_paths() {
        for (file, want) in [
            (
                "site/2-part/03-chapter/07-topic/4-exercise-name/solution.md",
                "exercise name: solution",
            ),
            ("site/1-js/02-first-steps/05-types/task.md", "types: task"),
            ("site/1-js/02-first-steps/05-data_types.md", "data types"),
            ("docs/guide/README.md", "guide"),
            ("content/post/v1-raspberry-pi/index.md", "v1 raspberry pi"),
            ("content/posts/_index.md", "posts"),
            ("a/01-index.md", "a"),
            ("README.md", "README"),
            ("pages.ar/common/c++.md", "c++"),
            ("pages.ar/common/$.md", "$"),
            ("../x/2024.md", "2024"),
            ("مقالات/عن-الخط.md", "عن الخط"),
        ] {
            assert_eq!(path_title(file), want, "{file}");
        }
    }

    fn titled(file: &str, title: Option<&str>, blocks: &[(BlockKind, &str)]) -> (String, usize) {
        let mut body = Body::default();
        for (k, t) in blocks {
            body.push(*k, t);
        }
        let doc = Document {
            title: title.map(str::to_string),
            body,
            ..Document::default()
        };
        let out = finish(file, doc, Vec::new());
        let warned = out.problems.iter().filter(|p| p.code == "no-title").count();
        (out.docs[0].title.clone().unwrap(), warned)
    }

    /// A file without a title takes its first H1, or the heading it opens with (of any level),
    /// then a name from its path (with the `no-title` warning); a heading after body text names
    /// a section, never the page; a title it has is never replaced.
    #[test]
    fn titles_fall_back_to_the_first_heading_then_the_path() {
        let p = BlockKind::Paragraph;
        let h = BlockKind::Heading;
        let file = "s/4-exercise-name/solution.md";
        assert_eq!(
            titled(file, Some("عنوان"), &[(h(2), "قسم"), (p, "نص")]),
            ("عنوان".to_string(), 0)
        );
        assert_eq!(
            titled(file, None, &[(p, "نص"), (h(2), "قسم"), (h(1), "رئيس")]),
            ("رئيس".to_string(), 0)
        );
        assert_eq!(
            titled(file, None, &[(h(3), "قسم فرعي"), (p, "نص"), (h(2), "قسم")]),
            ("قسم فرعي".to_string(), 0)
        );
        assert_eq!(
            titled(file, None, &[(p, "مقدمة"), (h(2), "المتطلبات"), (p, "نص")]),
            ("exercise name: solution".to_string(), 1)
        );
        assert_eq!(
            titled(file, Some(" "), &[(p, "نص")]),
            ("exercise name: solution".to_string(), 1)
        );
        assert_eq!(
            titled(file, None, &[(p, "نص")]),
            ("exercise name: solution".to_string(), 1)
        );
    }
}
