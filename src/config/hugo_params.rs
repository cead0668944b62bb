//! Zero config for a Hugo site whose pages keep text in their frontmatter: the frontmatter keys
//! the site's own layouts show (`{{ .Params.answer }}`) and that hold prose in its pages become
//! the library's `frontmatter_text`. Both pieces of evidence are needed: a key the layouts name
//! but that holds no sentence (`featured_image`, `author`) is not text, and one that holds
//! sentences but that no layout shows is not on the page.

use std::path::Path;

use regex::Regex;

/// Parameters Hugo themes show as teasers or in `<head>`, not as the page's text: never read
/// as evidence, whatever they hold.
const TEASERS: [&str; 3] = ["description", "summary", "title"];

/// At most this many layout files and this many pages are read.
const MAX_LAYOUTS: usize = 5_000;
const MAX_PAGES: usize = 500;

/// The frontmatter keys the layouts of the Hugo site at `site` show (its own `layouts/` and
/// each theme's) that hold prose in at least one Markdown page of `pages` (paths relative to
/// `site`), spelled as the pages spell them, in the order the layouts first name them.
pub(super) fn shown_text_params(site: &Path, pages: &[String]) -> Vec<String> {
    let named = named_in_layouts(site);
    if named.is_empty() {
        return Vec::new();
    }
    let mut prose: Vec<String> = Vec::new();
    let markdown = pages.iter().filter(|p| {
        let p = p.to_ascii_lowercase();
        p.ends_with(".md") || p.ends_with(".markdown")
    });
    for page in markdown.take(MAX_PAGES) {
        let Ok(text) = crate::fsio::read_capped_string(&site.join(page), crate::fsio::cap::CONFIG)
        else {
            continue;
        };
        for key in crate::extract::frontmatter_prose_keys(&text) {
            if !prose.contains(&key) {
                prose.push(key);
            }
        }
    }
    named
        .iter()
        .filter_map(|n| prose.iter().find(|k| k.eq_ignore_ascii_case(n)).cloned())
        .collect()
}

/// The parameter names (`.Params.NAME`, lowercased as Hugo reads them) the site's layouts use,
/// in the order of first use over the layout files in path order, teasers left out.
fn named_in_layouts(site: &Path) -> Vec<String> {
    let re = Regex::new(r"\.Params\.([A-Za-z_][A-Za-z0-9_]*)").expect("valid pattern");
    let mut dirs = vec![site.join("layouts")];
    if let Ok(themes) = std::fs::read_dir(site.join("themes")) {
        let mut themes: Vec<_> = themes.flatten().map(|t| t.path().join("layouts")).collect();
        themes.sort();
        dirs.extend(themes);
    }
    let mut files = Vec::new();
    for dir in dirs.iter().filter(|d| d.is_dir()) {
        for entry in walkdir::WalkDir::new(dir)
            .sort_by_file_name()
            .into_iter()
            .flatten()
        {
            let html = entry
                .path()
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("html"));
            if entry.file_type().is_file() && html && files.len() < MAX_LAYOUTS {
                files.push(entry.into_path());
            }
        }
    }
    let mut named: Vec<String> = Vec::new();
    for file in files {
        let Ok(text) = crate::fsio::read_capped_string(&file, crate::fsio::cap::CONFIG) else {
            continue;
        };
        for c in re.captures_iter(&text) {
            let name = c[1].to_ascii_lowercase();
            if !TEASERS.contains(&name.as_str()) && !named.contains(&name) {
                named.push(name);
            }
        }
    }
    named
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str, text: &str) {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn keys_the_layouts_show_and_the_pages_fill_with_prose() {
        let t = tempfile::tempdir().unwrap();
        let site = t.path();
        write(
            site,
            "layouts/fatawa/single.html",
            "{{ with .Params.question }}<div>{{ . }}</div>{{ end }}\n{{ .Params.answer | safeHTML }}\n{{ .Params.featured_image }} {{ .Params.description }}",
        );
        write(
            site,
            "themes/t/layouts/_default/list.html",
            "{{ .Params.Author }} {{ .Params.faq }}",
        );
        write(
            site,
            "content/a.md",
            "---\ntitle: t\nquestion: ما حكم الصلاة في السفر الطويل لمن يعمل في البحر؟\nanswer: |\n  <p>يقصر الصلاة الرباعية ما دام مسافرا سفرا طويلا كما قال العلماء.</p>\ndescription: وصف طويل للصفحة يقع في ثماني كلمات أو أكثر هنا\nfeatured_image: /img/a.png\nauthor: الشيخ\n---\n",
        );
        write(site, "content/b.md", "# بلا frontmatter\n\nنص.\n");
        let pages = ["content/a.md".to_string(), "content/b.md".to_string()];
        assert_eq!(shown_text_params(site, &pages), ["question", "answer"]);
    }

    #[test]
    fn nothing_without_layouts_or_without_prose() {
        let t = tempfile::tempdir().unwrap();
        let site = t.path();
        write(
            site,
            "content/a.md",
            "---\nanswer: جواب طويل فيه ثماني كلمات على الأقل يا صديقي العزيز\n---\n",
        );
        let pages = ["content/a.md".to_string()];
        assert!(
            shown_text_params(site, &pages).is_empty(),
            "no layout names it"
        );
        write(site, "layouts/_default/single.html", "{{ .Params.answer }}");
        write(site, "content/a.md", "---\nanswer: نعم\n---\n");
        assert!(shown_text_params(site, &pages).is_empty(), "no prose");
    }
}
