//! HTML: the main article only — never the navigation, headers, footers, sidebars, breadcrumbs,
//! reading-time lines, tag chips, TOC widgets or scripts around it. HTML is untrusted and parsed
//! leniently (`readable`); a page that is only chrome (listing, a listing's later page, tag,
//! search, 404 or another server error, redirect stub, a feed saved as a page) yields no
//! document and a warning that says why.

pub(crate) mod readable;

use super::{Body, Document, FileExtraction};
use crate::diag::Problem;
use readable::{HtmlOutcome, extract_html};

/// The page number when `file` is a later page of a paginated listing, as generators write them
/// (`blog/page/2/index.html`, `page/3.html`): a `page` folder, then a number.
fn pagination(file: &str) -> Option<&str> {
    let parts: Vec<&str> = file.split(['/', '\\']).collect();
    parts.windows(2).find_map(|w| {
        let n = w[1].strip_suffix(".html").unwrap_or(w[1]);
        (w[0] == "page" && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(n)
    })
}

pub(crate) fn extract(file: &str, text: &str) -> FileExtraction {
    let outcome = match pagination(file) {
        Some(n) => HtmlOutcome::Skip(format!("page {n} of a paginated listing")),
        None => extract_html(text),
    };
    match outcome {
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

#[cfg(test)]
mod tests {
    use super::pagination;

    #[test]
    fn later_pages_of_a_listing_are_named_by_their_path() {
        assert_eq!(pagination("site/blog/page/2/index.html"), Some("2"));
        assert_eq!(pagination("page/13.html"), Some("13"));
        assert_eq!(pagination("site\\page\\4\\index.html"), Some("4"));
        for file in [
            "docs/page/intro.html",
            "page.html",
            "pages/2/index.html",
            "my-page/3.html",
        ] {
            assert_eq!(pagination(file), None, "{file}");
        }
    }
}
