//! HTML: the main article only (interim: whole-page text; replaced by the readability extractor).

use super::{Body, BlockKind, Document, FileExtraction};

pub fn extract(file: &str, text: &str) -> FileExtraction {
    let mut doc = Document::default();
    let mut body = Body::default();
    body.push(BlockKind::Paragraph, &super::markdown::strip_html(text));
    doc.body = body;
    super::finish(file, doc, Vec::new())
}
