//! A document's URL from its library's `url` template: the placeholders a site generator's
//! routes are made of, read from the source path, and the library's URL switches (ordering
//! prefixes dropped, index files collapsed to their folder). URLs only: IDs never see these.

use serde_json::{Map, Value};

use super::LibrarySettings;
use super::url_path;
use crate::extract::Generator;
use crate::identity::strip_order;
use crate::template::{Missing, Template};

/// The source path's parts, as URL placeholders see them (not yet encoded).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct PathParts {
    /// The path without its extension (`guide/README`).
    pub path: String,
    /// Its folder (`guide`; `` at the root).
    pub dir: String,
    /// The file stem (`README`).
    pub stem: String,
    /// The name of the file's folder (`guide`; `` at the root).
    pub parent: String,
    /// The path as a page: an index file is its folder (`guide`; `` for a root index).
    pub page: String,
}

impl PathParts {
    pub(crate) fn new(rel: &str, lib: &LibrarySettings) -> PathParts {
        // The extension rule of `identity::file_slug`, so `{path}` and `{slug}` agree.
        let no_ext = match rel.rsplit_once('.') {
            Some((stem, ext)) if !ext.contains('/') && !stem.is_empty() && !stem.ends_with('/') => {
                stem
            }
            _ => rel,
        };
        let generator = lib.extract.generator;
        // Docusaurus drops ordering prefixes from every route; Quartz writes a note's path as a
        // slug (`My Note` → `My-Note`).
        let strip = lib.url_strip_order || generator == Generator::Docusaurus;
        let owned: Vec<String> = no_ext
            .split('/')
            .map(|s| {
                let s = if strip { strip_order(s) } else { s };
                if generator == Generator::Obsidian {
                    quartz_slug(s)
                } else {
                    s.to_string()
                }
            })
            .collect();
        let segs: Vec<&str> = owned.iter().map(String::as_str).collect();
        let (stem, dirs) = segs.split_last().expect("split yields one item");
        let dir = dirs.join("/");
        let index = lib.url_index.iter().any(|n| n.eq_ignore_ascii_case(stem))
            // The slug of `a/index.md` has always been `a`, whatever `url_index` says.
            || (*stem == "index" && !dirs.is_empty());
        PathParts {
            path: segs.join("/"),
            page: if index { dir.clone() } else { segs.join("/") },
            stem: stem.to_string(),
            parent: dirs.last().copied().unwrap_or_default().to_string(),
            dir,
        }
    }
}

/// A path segment as Quartz publishes it (its `slugifyFilePath`): whitespace as `-`, `&` as
/// `-and-`, `%` as `-percent`, `?` and `#` dropped.
fn quartz_slug(seg: &str) -> String {
    let mut out = String::with_capacity(seg.len());
    for c in seg.chars() {
        match c {
            c if c.is_whitespace() => out.push('-'),
            '&' => out.push_str("-and-"),
            '%' => out.push_str("-percent"),
            '?' | '#' => {}
            c => out.push(c),
        }
    }
    out
}

/// The value of one placeholder, `None` when this document has none.
///
/// `slug` is the document's slug; `from_path` says it is the file's (no frontmatter `id`, not a
/// record), so the library's URL switches apply to it.
pub(crate) fn lookup(
    name: &str,
    lib: &LibrarySettings,
    parts: &PathParts,
    slug: &str,
    from_path: bool,
    fields: &Map<String, Value>,
) -> Option<String> {
    let field = |key: &str| {
        fields.get(key).and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
    };
    Some(match name {
        "slug" if from_path => url_path(&parts.page),
        "slug" => url_path(slug),
        "library" => lib.id.to_string(),
        "path" => url_path(&parts.path),
        "dir" => url_path(&parts.dir),
        "stem" => url_path(&parts.stem),
        "parent" => url_path(&parts.parent),
        // The page path's folder and last segment, for generators whose frontmatter `slug`
        // replaces the last segment (Hugo, Docusaurus): `{page_dir}/{fm.slug|page_name}`.
        "page_dir" => url_path(parts.page.rsplit_once('/').map_or("", |(d, _)| d)),
        "page_name" => url_path(parts.page.rsplit('/').next().unwrap_or_default()),
        _ => match name.strip_prefix("fm.") {
            Some(key) => url_path(&field(key).filter(|v| !v.trim().is_empty())?),
            // Any other name is a frontmatter field, inserted as written.
            None => field(name)?,
        },
    })
}

/// Renders a library's URL template for one document; `Err` names the missing placeholder.
pub(crate) fn render(
    t: &Template,
    lib: &LibrarySettings,
    rel: &str,
    slug: &str,
    from_path: bool,
    fields: &Map<String, Value>,
) -> Result<String, Missing> {
    let parts = PathParts::new(rel, lib);
    t.render(|name| lookup(name, lib, &parts, slug, from_path, fields))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Library;

    fn lib(extra: &str) -> Library {
        let dir = std::env::temp_dir();
        let toml = format!(
            "[corpus]\nname = \"t\"\n[[library]]\nid = \"lib\"\nroot = \".\"\nurl = \"/x/{{slug}}\"\n{extra}"
        );
        crate::config::Config::parse(&toml, "corpus.toml", &dir, &dir.join("corpus.toml"))
            .unwrap()
            .libraries
            .remove(0)
    }

    fn url(lib: &Library, template: &str, rel: &str, fm: &str) -> Result<String, Missing> {
        let fields: Map<String, Value> = serde_json::from_str(fm).unwrap();
        let slug = crate::identity::file_slug(rel);
        render(
            &Template::parse(template).unwrap(),
            &lib.compile_settings(),
            rel,
            &slug,
            true,
            &fields,
        )
    }

    #[test]
    fn ordering_prefixes() {
        for (seg, want) in [
            ("01-intro", "intro"),
            ("2-part", "part"),
            ("03_chapter", "chapter"),
            ("04.setup", "setup"),
            ("5 - x", "x"),
            ("2024", "2024"),
            ("12-", "12-"),
            ("v1-setup", "v1-setup"),
            ("intro", "intro"),
            ("3d-models", "3d-models"),
            ("١-مقدمة", "١-مقدمة"),
        ] {
            assert_eq!(strip_order(seg), want, "{seg}");
        }
    }

    #[test]
    fn path_placeholders() {
        let l = lib("");
        let t = "/{path}|{dir}|{stem}|{parent}|{slug}";
        for (rel, want) in [
            (
                "2-part/03-chapter/07-topic/4-exercise/solution.md",
                "/2-part/03-chapter/07-topic/4-exercise/solution|2-part/03-chapter/07-topic/4-exercise|solution|4-exercise|2-part/03-chapter/07-topic/4-exercise/solution",
            ),
            ("guide/README.md", "/guide/README|guide|README|guide|guide"),
            ("guide/index.md", "/guide/index|guide|index|guide|guide"),
            ("docs/_index.md", "/docs/_index|docs|_index|docs|docs"),
            ("index.mdx", "/index||index||"),
            ("c++.md", "/c++||c++||c++"),
            ("a b/ق?.md", "/a%20b/ق%3F|a%20b|ق%3F|a%20b|a%20b/ق%3F"),
        ] {
            assert_eq!(url(&l, t, rel, "{}").unwrap(), want, "{rel}");
        }
    }

    #[test]
    fn switches() {
        let l = lib("url_strip_order = true\nurl_index = [\"overview\"]");
        let t = "/{slug}|{path}|{dir}|{stem}|{parent}";
        for (rel, want) in [
            (
                "2-part/03-chapter/4-exercise/solution.md",
                "/part/chapter/exercise/solution|part/chapter/exercise/solution|part/chapter/exercise|solution|exercise",
            ),
            (
                "01-intro/02-overview.md",
                "/intro|intro/overview|intro|overview|intro",
            ),
            (
                "01-intro/readme.md",
                "/intro|intro/readme|intro|readme|intro",
            ),
        ] {
            assert_eq!(url(&l, t, rel, "{}").unwrap(), want, "{rel}");
        }
        // Off: README is a page of its own; `a/index` is `a` as its slug always was.
        let off = lib("url_index = false");
        assert_eq!(
            url(&off, "/{slug}", "g/README.md", "{}").unwrap(),
            "/g/README"
        );
        assert_eq!(url(&off, "/{slug}", "g/index.md", "{}").unwrap(), "/g");
        assert_eq!(url(&off, "/{slug}", "index.md", "{}").unwrap(), "/index");
        assert_eq!(url(&off, "/{slug}", "01-a.md", "{}").unwrap(), "/01-a");
    }

    /// An empty value between two slashes leaves one: a root index is the site's root.
    #[test]
    fn a_root_index_is_the_root() {
        let l = lib("");
        for t in ["https://s/ar/{slug}/", "https://s/ar/{slug}"] {
            assert_eq!(url(&l, t, "index.mdx", "{}").unwrap(), "https://s/ar/");
        }
        assert_eq!(url(&l, "/{dir}/{stem}", "x.md", "{}").unwrap(), "/x");
    }

    #[test]
    fn frontmatter_placeholders() {
        let l = lib("");
        let fm = r#"{"slug": "my page", "permalink": "/ar/p/x/", "slug2": 3}"#;
        assert_eq!(
            url(&l, "/{dir}/{fm.slug}/", "d/01-a.md", fm).unwrap(),
            "/d/my%20page/"
        );
        assert_eq!(
            url(&l, "https://s{fm.permalink}", "a.md", fm).unwrap(),
            "https://s/ar/p/x/"
        );
        assert_eq!(url(&l, "/{fm.slug2}", "a.md", fm).unwrap(), "/3");
        // `{slug}` stays the document's slug; a field by its bare name is as written.
        assert_eq!(url(&l, "/{slug}", "a.md", fm).unwrap(), "/a");
        assert_eq!(
            url(&l, "https://s{permalink}", "a.md", fm).unwrap(),
            "https://s/ar/p/x/"
        );
        // The first placeholder of `a|b` that the document has.
        assert_eq!(
            url(&l, "/{fm.permalink|fm.slug|stem}", "a.md", "{}").unwrap(),
            "/a"
        );
        assert_eq!(
            url(&l, "/{fm.slug|stem}", "a.md", fm).unwrap(),
            "/my%20page"
        );
        // Hugo: a bundle's `slug` replaces its folder's name.
        let t = "https://s/{page_dir}/{fm.slug|page_name}/";
        let hugo = r#"{"slug": "pi-setup"}"#;
        assert_eq!(
            url(&l, t, "post/v1-pi/index.md", hugo).unwrap(),
            "https://s/post/pi-setup/"
        );
        assert_eq!(
            url(&l, t, "post/v1-pi/index.md", "{}").unwrap(),
            "https://s/post/v1-pi/"
        );
        assert_eq!(url(&l, t, "about.md", hugo).unwrap(), "https://s/pi-setup/");
        assert_eq!(
            url(&l, "/{fm.title}", "a.md", "{}"),
            Err(Missing {
                variable: "fm.title".to_string()
            })
        );
    }
}
