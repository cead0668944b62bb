//! extract: per format, the readable main text of a source plus its metadata. Pure: takes the
//! file's bytes, returns documents (one per file, or one per JSON record) and problems.
//!
//! A document's body is one string of evidence text made of blocks (headings, paragraphs, lists,
//! code, tables) joined by blank lines; the chunker cuts contiguous excerpts of it.

pub mod coptic;
mod frontmatter;
mod guard;
pub mod html;
mod json;
mod markdown;
mod mdx;

use serde_json::{Map, Value};

use crate::config::{Format, Library};
use crate::diag::Problem;

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
}

/// The extracted evidence of one document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Body {
    pub text: String,
    pub blocks: Vec<Block>,
}

impl Body {
    /// Appends a block (trimmed; empty ones are dropped), separated from the previous by a blank line.
    pub fn push(&mut self, kind: BlockKind, s: &str) {
        // Control characters (ESC, BEL, C1) are never readable evidence, and would reach a
        // reviewer's terminal through `show` and `query`.
        let cleaned;
        let s = if s.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
            cleaned = s.chars().filter(|c| !c.is_control() || *c == '\n' || *c == '\t').collect::<String>();
            cleaned.as_str()
        } else {
            s
        };
        let s = if kind == BlockKind::Code { s.trim_matches('\n') } else { s.trim() };
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
        self.blocks.push(Block { start, end: self.text.len(), kind });
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    pub fn block_text(&self, b: &Block) -> &str {
        &self.text[b.start..b.end]
    }

    pub fn first_heading(&self, level: u8) -> Option<&str> {
        self.blocks.iter().find(|b| b.kind == BlockKind::Heading(level)).map(|b| self.block_text(b))
    }

    /// Puts a title heading first, when the body has no H1 of its own.
    pub fn with_title_heading(self, title: &str) -> Body {
        let first = self.blocks.first().map(|b| self.block_text(b).trim());
        if self.first_heading(1).is_some() || title.trim().is_empty() || first == Some(title.trim()) {
            return self;
        }
        let mut out = Body::default();
        out.push(BlockKind::Heading(1), title);
        for b in &self.blocks {
            out.push(b.kind, self.block_text(b));
        }
        out
    }
}

/// A fenced code block as evidence; the fence is longer than any backtick run inside the code,
/// so code that itself shows fences stays one block.
pub fn fenced(lang: &str, code: &str) -> String {
    let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let code = code.strip_suffix('\n').unwrap_or(code);
    format!("{fence}{lang}\n{code}\n{fence}")
}

fn looks_like_tag(s: &str) -> bool {
    s.starts_with('<') && s.ends_with('>') && s[1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '/') && !s.contains('`')
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
}

/// What one file yields.
#[derive(Debug, Default)]
pub struct FileExtraction {
    pub docs: Vec<Document>,
    pub problems: Vec<Problem>,
}

impl FileExtraction {
    fn error(file: &str, p: Problem) -> Self {
        FileExtraction { docs: Vec::new(), problems: vec![p.in_file(file.to_string())] }
    }
}

/// Extracts the documents of one file. `file` names it in messages.
pub fn extract(file: &str, bytes: &[u8], format: Format, lib: &Library) -> FileExtraction {
    let text = match decode(bytes) {
        Ok(t) => t,
        Err(p) => return FileExtraction::error(file, p),
    };
    let mut out = match format {
        Format::Markdown => markdown::extract(file, &text, lib),
        Format::Mdx => mdx::extract(file, &text, lib),
        Format::Html => html::extract(file, &text),
        Format::Json => json::extract(file, &text, lib),
    };
    for p in &mut out.problems {
        if p.file.is_none() {
            p.file = Some(file.to_string());
        }
    }
    out
}

/// Source bytes to text: UTF-8 (a BOM is dropped) or UTF-16 with a BOM; CRLF and lone CR
/// become LF so that offsets and lines agree everywhere.
pub fn decode(bytes: &[u8]) -> Result<String, Problem> {
    let text = if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        utf8(rest, 3)?
    } else if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        let le = bytes[0] == 0xFF;
        let units = bytes[2..].chunks(2).map(|c| {
            let pair = [c[0], *c.get(1).unwrap_or(&0)];
            if le { u16::from_le_bytes(pair) } else { u16::from_be_bytes(pair) }
        });
        char::decode_utf16(units).collect::<Result<String, _>>().map_err(|e| {
            Problem::error("encoding", format!("invalid UTF-16: unpaired surrogate {:#06x}", e.unpaired_surrogate()))
                .help("re-save the file as UTF-8")
        })?
    } else {
        utf8(bytes, 0)?
    };
    if let Some(pos) = text.find('\0') {
        return Err(Problem::error("encoding", format!("NUL byte at byte offset {pos}: this is not a text file"))
            .at_line(crate::diag::line_of(&text, pos))
            .help("remove the file from the library or exclude it with a glob"));
    }
    if text.contains('\r') {
        Ok(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Ok(text)
    }
}

fn utf8(bytes: &[u8], offset: usize) -> Result<String, Problem> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => {
            let at = e.valid_up_to();
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            // A UTF-16 file without a BOM shows NULs between ASCII bytes.
            let hint = if bytes.len() > 2 && bytes.iter().take(200).filter(|&&b| b == 0).count() > 20 {
                "this looks like UTF-16 without a BOM: re-save it as UTF-8"
            } else {
                "re-save the file as UTF-8 (it may be Windows-1256 or Latin-1)"
            };
            Err(Problem::error("encoding", format!("invalid UTF-8 at byte offset {}", at + offset)).at_line(line).help(hint))
        }
    }
}

/// Decodes HTML character references (`&quot;`, `&#1575;`, `&amp;`) in text from any format.
pub fn decode_entities(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains('&') { html_escape::decode_html_entities(s) } else { std::borrow::Cow::Borrowed(s) }
}

/// The file stem, used as a last-resort title.
pub fn stem_title(file: &str) -> String {
    let name = file.rsplit('/').next().unwrap_or(file);
    let stem = name.rsplit_once('.').map(|(s, _)| s).unwrap_or(name);
    if stem == "index" {
        let parent = file.rsplit('/').nth(1).unwrap_or(stem);
        parent.to_string()
    } else {
        stem.to_string()
    }
}

/// Shared end of extraction for single-document files: title fallback, the title as the first
/// heading, and the "nothing to index" warning.
fn finish(file: &str, mut doc: Document, mut problems: Vec<Problem>) -> FileExtraction {
    if doc.body.is_empty() {
        problems.push(
            Problem::warning("empty", "nothing to index (empty, whitespace or frontmatter only): no document")
                .in_file(file.to_string())
                .help("add content, or exclude the file in corpus.toml"),
        );
        return FileExtraction { docs: Vec::new(), problems };
    }
    let title = doc.title.clone().or_else(|| doc.body.first_heading(1).map(str::to_string));
    let title = match title {
        Some(t) => t,
        None => {
            let t = stem_title(file);
            problems.push(
                Problem::warning("no-title", format!("no title (frontmatter `title` or a `# heading`); using `{t}`"))
                    .in_file(file.to_string())
                    .help("add `title:` to the frontmatter"),
            );
            t
        }
    };
    doc.body = std::mem::take(&mut doc.body).with_title_heading(&title);
    doc.title = Some(title);
    FileExtraction { docs: vec![doc], problems }
}
