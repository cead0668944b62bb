//! HTML: the main article only — never the navigation, headers, footers, sidebars, breadcrumbs,
//! reading-time lines, tag chips, TOC widgets or scripts around it. HTML is untrusted and parsed
//! leniently (`readable`); a page that is only chrome (listing, tag, search, 404, redirect stub)
//! yields no document and a warning that says why.

pub(crate) mod readable;

use super::{Body, Document, FileExtraction};
use crate::diag::Problem;
use readable::{HtmlOutcome, extract_html};

pub(crate) fn extract(file: &str, text: &str) -> FileExtraction {
    match extract_html(text) {
        HtmlOutcome::Doc(page) => {
            let mut body = Body::default();
            for (i, (kind, t)) in page.blocks.iter().enumerate() {
                match kind {
                    // A heading's `id`, the page's own fragment for its section.
                    crate::extract::BlockKind::Heading(level) => {
                        let id = page
                            .ids
                            .iter()
                            .find(|(at, _)| *at == i)
                            .map(|(_, id)| id.as_str());
                        body.push_heading(*level, t, id);
                    }
                    _ => body.push(*kind, t),
                }
            }
            let doc = Document { title: page.title, body, ..Document::default() };
            super::finish(file, doc, Vec::new())
        }
        HtmlOutcome::Skip(reason) => FileExtraction {
            docs: Vec::new(),
            problems: vec![
                Problem::warning("no-content", format!("nothing to index: {reason}; no document"))
                    .in_file(file.to_string())
                    .help("this page is site chrome only; exclude it in corpus.toml to silence this warning"),
            ],
        },
    }
}
