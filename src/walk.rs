//! walk: how a site directory's files are listed for zero config (`--sources DIR`), the way its
//! generator would publish them. A leaf: `config` surveys a directory with it, `discover` lists
//! a zero-config library's files with it. The one file it reads is a `SUMMARY.md`, to tell
//! GitBook's table of contents (not a page of the book) from a page of that name.

use std::path::Path;

/// The files of a site directory as its generator would publish them, the way ripgrep walks
/// (the `ignore` crate): `.gitignore` and `.ignore` files honoured, hidden files and folders and
/// `node_modules` skipped. Pinned so the result never depends on the machine: no global
/// excludes file, no `.git/info/exclude`, no ignore file above `dir`, and `.gitignore` read
/// whether or not `dir` is a git checkout. Only entries under `root` (`dir` or a folder in it)
/// are listed, with the ignore files of `dir` and the folders between applied. `skip` (the build's
/// output directory, as the walk names it) is not entered: a build never reads its own output.
pub(crate) fn site_walk(dir: &Path, root: &Path, skip: Option<&Path>) -> ignore::Walk {
    let root = root.to_path_buf();
    let skip = skip.map(Path::to_path_buf);
    ignore::WalkBuilder::new(dir)
        .hidden(true)
        .ignore(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(false)
        .parents(false)
        .require_git(false)
        .ignore_case_insensitive(false)
        .follow_links(true)
        .same_file_system(false)
        .max_filesize(None)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |e| {
            e.file_name() != "node_modules"
                && (e.depth() == 0 || skip.as_deref() != Some(e.path()))
                && (e.path().starts_with(&root) || root.starts_with(e.path()))
                && !(e.depth() > 0
                    && e.file_type().is_some_and(|t| t.is_dir())
                    && is_output_dir(e.path()))
        })
        .build()
}

/// Whether `dir` is an askzico output directory (it holds the marker `build` writes): the
/// output of any build, this one's or an earlier one's with another `--out`, is never a source.
pub(crate) fn is_output_dir(dir: &Path) -> bool {
    crate::artifacts::marker::is_marked(dir)
}

/// Whether the file at `path` is GitBook's table of contents (`is_table_of_contents`), read
/// within a cap. One that cannot be read is not: it stays a source, and its problem is
/// reported when the build reads it.
pub(crate) fn is_gitbook_summary(path: &Path) -> bool {
    crate::fsio::read_capped(path, crate::fsio::cap::CONFIG)
        .is_ok_and(|bytes| std::str::from_utf8(&bytes).is_ok_and(is_table_of_contents))
}

/// Whether Markdown `text` is a table of contents as GitBook's `SUMMARY.md` is: headings
/// (a title, part titles), thematic breaks and lists whose every item is one link (nested
/// lists allowed), and at least one such link; no paragraph, no item with words beside its
/// link. A page that only happens to be named `SUMMARY.md` has prose, and is kept.
fn is_table_of_contents(text: &str) -> bool {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut links = 0;
    // Per open list item: the links seen directly in it.
    let mut items: Vec<usize> = Vec::new();
    let (mut in_heading, mut in_link, mut in_meta) = (false, false, false);
    for event in Parser::new_ext(text, Options::ENABLE_YAML_STYLE_METADATA_BLOCKS) {
        match event {
            Event::Start(Tag::Heading { .. }) => in_heading = true,
            Event::End(TagEnd::Heading(_)) => in_heading = false,
            Event::Start(Tag::MetadataBlock(_)) => in_meta = true,
            Event::End(TagEnd::MetadataBlock(_)) => in_meta = false,
            Event::Start(Tag::List(_)) | Event::End(TagEnd::List(_)) | Event::Rule => {}
            Event::Start(Tag::Item) => items.push(0),
            Event::End(TagEnd::Item) => {
                if items.pop() != Some(1) {
                    return false;
                }
            }
            // A loose list wraps each item's link in a paragraph; a paragraph elsewhere is prose.
            Event::Start(Tag::Paragraph) | Event::End(TagEnd::Paragraph) if !items.is_empty() => {}
            Event::Start(Tag::Link { .. }) if !items.is_empty() && !in_link => {
                in_link = true;
                links += 1;
                *items.last_mut().expect("in an item") += 1;
            }
            Event::End(TagEnd::Link) => in_link = false,
            Event::Start(Tag::Emphasis | Tag::Strong | Tag::Strikethrough)
            | Event::End(TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough)
                if in_link || in_heading => {}
            Event::Text(t) | Event::Code(t)
                if in_meta || in_heading || in_link || t.trim().is_empty() => {}
            Event::SoftBreak | Event::HardBreak if in_heading || in_link => {}
            Event::Start(Tag::HtmlBlock) | Event::End(TagEnd::HtmlBlock) => {}
            Event::Html(h) | Event::InlineHtml(h) if h.trim_start().starts_with("<!--") => {}
            Event::Html(_) | Event::InlineHtml(_) => return false,
            _ => return false,
        }
    }
    links > 0 && items.is_empty()
}

/// A path relative to a root as askzico names it (a source's `rel`): its components joined by
/// `/`, a name's UTF-8 text as it is, and each byte that is not UTF-8 written `\xHH` (two
/// uppercase hex digits), so two names differing only in such a byte stay two names (and two
/// IDs) instead of both becoming U+FFFD.
pub(crate) fn rel_string(rel: &Path) -> String {
    let mut out = String::new();
    for (i, c) in rel.components().enumerate() {
        if i > 0 {
            out.push('/');
        }
        push_name(&mut out, c.as_os_str());
    }
    out
}

#[cfg(unix)]
fn push_name(out: &mut String, name: &std::ffi::OsStr) {
    use std::os::unix::ffi::OsStrExt;
    for chunk in name.as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
}

#[cfg(not(unix))]
fn push_name(out: &mut String, name: &std::ffi::OsStr) {
    out.push_str(&name.to_string_lossy());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_of_contents_is_links_only() {
        let toc = [
            "# Summary\n\n* [Introduction](README.md)\n* [Install](install.md)\n",
            "# Table of contents\n\n* [مقدمة](README.md)\n  * [الفصل الأول](ch1/README.md)\n    * [درس](ch1/a.md)\n\n## Part II\n\n- [الفصل الثاني](ch2.md)\n\n---\n\n- [ملحق](appendix.md)\n",
            "* [Intro](README.md)\n\n* [Loose](loose.md)\n",
            "<!-- generated -->\n# Summary\n\n* [A](a.md)\n",
        ];
        for t in toc {
            assert!(is_table_of_contents(t), "{t:?}");
        }
        let pages = [
            "# Summary\n\nThis book covers the basics. Read the chapters in order.\n",
            "# ملخص\n\nهذه صفحة عادية تلخص الكتاب.\n\n* [الفصل](ch1.md)\n",
            "# Summary\n\n* [A](a.md) explains the first steps\n",
            "# Summary\n\n* first point\n* second point\n",
            "# Summary\n",
            "",
        ];
        for t in pages {
            assert!(!is_table_of_contents(t), "{t:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn names_differing_in_a_non_utf8_byte_stay_distinct() {
        use std::os::unix::ffi::OsStrExt;
        let a = rel_string(Path::new(std::ffi::OsStr::from_bytes(b"d/a\xff.md")));
        let b = rel_string(Path::new(std::ffi::OsStr::from_bytes(b"d/a\xfe.md")));
        assert_eq!(a, "d/a\\xFF.md");
        assert_eq!(b, "d/a\\xFE.md");
        assert_eq!(rel_string(Path::new("د/مقال.md")), "د/مقال.md");
    }
}
