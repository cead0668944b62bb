//! The site generator a sources directory shows by its own files, the folder it reads pages
//! from, its Markdown dialect, and what its config says that a reader of the build should know.

use std::path::Path;

/// A site whose generator `--sources` recognises by its own files.
pub(super) struct GeneratorSite {
    /// The generator's name, as messages show it.
    pub(super) name: &'static str,
    /// The folder its pages are in, relative to the sources directory, when it holds sources.
    pub(super) root: Option<String>,
    /// The `[[library]] generator` its Markdown dialect takes.
    pub(super) dialect: Option<&'static str>,
    /// What its own config says that a reader of the build should know.
    pub(super) warnings: Vec<super::SiteWarning>,
}

/// The site generator `dir` shows by its own files, and the folder it reads pages from:
/// mdBook (`book.toml`, its `[book] src`, `src` by default), Quartz (`quartz.config.ts`,
/// `content/`), an Obsidian vault (`.obsidian/`), VitePress (`.vitepress/` at `dir` or in
/// `docs/`, its config's `srcDir`), MkDocs (`mkdocs.yml`, its `docs_dir`, `docs` by default),
/// and Docusaurus (its config; the Arabic translation's docs under
/// `i18n/ar/docusaurus-plugin-content-docs/current` when the site has one, else `docs/`). A
/// folder that holds no source is not a root.
pub(super) fn generator_site(dir: &Path, sources: &[String]) -> Option<GeneratorSite> {
    let has = |p: &str| dir.join(p).exists();
    let holds = |folder: &str| {
        let folder = folder.trim_matches('/');
        if folder.is_empty() || folder == "." {
            return None;
        }
        let prefix = format!("{folder}/");
        sources
            .iter()
            .any(|s| s.starts_with(&prefix))
            .then(|| folder.to_string())
    };
    let read = |p: &str| std::fs::read_to_string(dir.join(p)).unwrap_or_default();
    if has("book.toml") {
        let src = toml::from_str::<toml::Table>(&read("book.toml"))
            .ok()
            .and_then(|t| t.get("book")?.get("src")?.as_str().map(str::to_string))
            .unwrap_or_else(|| "src".to_string());
        return Some(GeneratorSite {
            name: "mdBook",
            root: holds(&src),
            dialect: Some("mdbook"),
            warnings: Vec::new(),
        });
    }
    if ["ts", "js", "mjs"]
        .iter()
        .any(|e| has(&format!("quartz.config.{e}")))
    {
        return Some(GeneratorSite {
            name: "Quartz",
            root: holds("content"),
            dialect: Some("obsidian"),
            warnings: Vec::new(),
        });
    }
    if has(".obsidian") || wikilinked(dir, sources) {
        return Some(GeneratorSite {
            name: "Obsidian",
            root: None,
            dialect: Some("obsidian"),
            warnings: Vec::new(),
        });
    }
    for base in ["", "docs/"] {
        if !has(&format!("{base}.vitepress")) {
            continue;
        }
        let config = ["ts", "mts", "js", "mjs"]
            .iter()
            .map(|e| read(&format!("{base}.vitepress/config.{e}")))
            .find(|t| !t.is_empty())
            .unwrap_or_default();
        let src_dir = quoted_value(&config, "srcDir").unwrap_or_default();
        let folder = format!("{base}{src_dir}");
        return Some(GeneratorSite {
            name: "VitePress",
            root: holds(&folder).or_else(|| holds(base)),
            dialect: None,
            warnings: Vec::new(),
        });
    }
    for name in ["mkdocs.yml", "mkdocs.yaml"] {
        if has(name) {
            let docs = quoted_value(&read(name), "docs_dir").unwrap_or_else(|| "docs".into());
            return Some(GeneratorSite {
                name: "MkDocs",
                root: holds(&docs),
                dialect: None,
                warnings: Vec::new(),
            });
        }
    }
    if let Some(config) = ["js", "ts", "mjs"]
        .iter()
        .map(|e| format!("docusaurus.config.{e}"))
        .find(|c| has(c))
    {
        let arabic = holds(DOCUSAURUS_ARABIC);
        let mut warnings = Vec::new();
        // `docs/` holds the default locale's pages: say so when that is not Arabic.
        if arabic.is_none()
            && let Some(locale) = default_locale(&read(&config))
            && locale != "ar"
            && !locale.starts_with("ar-")
        {
            warnings.push(super::SiteWarning {
                code: "docusaurus-locale",
                file: config.clone(),
                message: format!(
                    "this site's default locale is `{locale}` and it has no Arabic translation under {DOCUSAURUS_ARABIC}: the build reads docs/, its `{locale}` pages"
                ),
                help: format!(
                    "if the site's Arabic pages are elsewhere, root a corpus.toml's library there (`askzico init` writes one); a site written in Arabic sets `defaultLocale: 'ar'` in {config}"
                ),
            });
        }
        return Some(GeneratorSite {
            name: "Docusaurus",
            root: arabic.or_else(|| holds("docs")),
            dialect: Some("docusaurus"),
            warnings,
        });
    }
    None
}

/// The `i18n.defaultLocale` a Docusaurus config names (`defaultLocale: 'en'`), wherever it
/// stands on its line.
fn default_locale(config: &str) -> Option<String> {
    let at = config.find("defaultLocale")?;
    let rest = config[at + "defaultLocale".len()..].trim_start();
    let rest = rest.strip_prefix(':')?.trim_start();
    let quote = rest
        .chars()
        .next()
        .filter(|c| matches!(c, '\'' | '"' | '`'))?;
    let body = &rest[1..];
    let locale = &body[..body.find(quote)?];
    (!locale.is_empty() && locale.len() <= 16).then(|| locale.to_string())
}

/// Where a Docusaurus site keeps the Arabic translation of its docs.
const DOCUSAURUS_ARABIC: &str = "i18n/ar/docusaurus-plugin-content-docs/current";

/// Whether the Markdown pages at `dir` are an Obsidian vault's notes without the vault's own
/// `.obsidian/` (often left out of a repository): at least a fifth of them (of the first 200)
/// link with `[[wikilinks]]`, two at least.
fn wikilinked(dir: &Path, sources: &[String]) -> bool {
    let pages: Vec<&String> = sources
        .iter()
        .filter(|s| s.to_ascii_lowercase().ends_with(".md"))
        .take(200)
        .collect();
    let linked = pages
        .iter()
        .filter(|p| {
            crate::fsio::read_capped(&dir.join(p), crate::fsio::cap::CONFIG).is_ok_and(|b| {
                String::from_utf8_lossy(&b)
                    .lines()
                    .any(|l| l.find("[[").is_some_and(|i| l[i + 2..].contains("]]")))
            })
        })
        .count();
    linked >= 2 && linked * 5 >= pages.len()
}

/// The value of `key` in a config file's text (`srcDir: 'src'`, `docs_dir: pages`), quoted or
/// bare, as a line of its own states it; `None` when no line does.
fn quoted_value(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let t = line.trim_start();
        let rest = t.strip_prefix(key)?.trim_start();
        let rest = rest.strip_prefix(':')?.trim();
        let rest = rest.trim_end_matches(',').trim();
        let v = rest.trim_matches(|c| c == '\'' || c == '"' || c == '`');
        let v = v.trim_start_matches("./").trim_end_matches('/');
        (!v.is_empty() && !v.contains(char::is_whitespace)).then(|| v.to_string())
    })
}
