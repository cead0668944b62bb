//! Zero config (`askzico build --sources DIR`): the config of a bare sources directory, written
//! as the `corpus.toml` it stands for and parsed like any other.

use std::path::{Path, PathBuf};

use super::generator_site::generator_site;
use super::{Config, ZeroConfig};
use crate::diag::{Problem, Problems};

impl Config {
    /// The config of a bare sources directory (`askzico build --sources DIR`): one library named
    /// after the directory, its Markdown, MDX and HTML files (format by extension) as a site
    /// generator would publish them (`discover::site_walk`: ignore files honoured, hidden
    /// folders and `node_modules` skipped), rooted in the site's content folder when the tree
    /// has one (`content_root`), frontmatter `title`, `url` and `domains` honoured as in any
    /// library, the default settings, and output into `out` under the current directory (or
    /// `out`, `--out`, which the caller applies); the survey never enters the output directory. It is
    /// parsed like a written config, so it is checked the same way. A directory of JSON and no
    /// such source is an error showing the `[library.records]` mapping to write.
    pub fn for_sources(dir: &Path, out: Option<&Path>) -> Result<Config, Problems> {
        let shown = format!("--sources {}", dir.display());
        if let Some(p) = not_a_directory(dir, &shown) {
            return Err(Problems(vec![p]));
        }
        let canon = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let name = canon
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "sources".into());
        let out_default = std::env::current_dir()
            .map(|d| d.join("out"))
            .unwrap_or_else(|_| PathBuf::from("out"));
        // The output of an earlier build (`--sources .` writes `./out` inside the sources), not
        // surveyed. `--out` itself is checked (and named) as the command line gave it, later.
        let skip = out
            .unwrap_or(&out_default)
            .canonicalize()
            .ok()
            .filter(|o| *o != canon && o.starts_with(&canon));
        let mut survey = survey_sources(&canon, skip.as_deref());
        // A Jekyll site: its own folders and `exclude:` entries are not pages (`jekyll`).
        let jekyll = super::jekyll::detect(&canon, &mut survey.sources);
        if survey.sources.is_empty() && !survey.json.is_empty() {
            return Err(Problems(vec![json_only(dir, &shown, &survey.json)]));
        }
        let site = match jekyll {
            Some(_) => None,
            None => generator_site(&canon, &survey.sources),
        };
        let root = match (&jekyll, &site) {
            (Some(_), _) => None,
            (None, Some(site)) => site.root.clone().map(|r| (r, site.name)),
            (None, None) => content_root(&canon, &survey.sources),
        };
        let root_folder = root.as_ref().map_or(".", |r| r.0.as_str());
        let mut contents = tables_of_contents(&canon, root_folder, &survey.sources);
        // mdBook's `SUMMARY.md` is the book's navigation whatever it holds besides links.
        let summary = in_folder(root_folder, SUMMARY);
        if site.as_ref().is_some_and(|s| s.name == "mdBook")
            && survey.sources.contains(&summary)
            && !contents.contains(&summary)
        {
            contents.push(summary);
        }
        let mut text = sources_config_text(&name, &out_default, root_folder);
        let docusaurus = site.as_ref().is_some_and(|s| s.name == "Docusaurus");
        text.push_str(&site_keys(
            root_folder,
            &contents,
            jekyll.as_ref(),
            docusaurus,
        ));
        // A Hugo site's pages may keep their text in frontmatter its layouts show.
        if let Some((folder, "Hugo")) = &root {
            let prefix = format!("{folder}/");
            let pages: Vec<String> = survey
                .sources
                .iter()
                .filter(|s| s.starts_with(&prefix))
                .cloned()
                .collect();
            let shown = super::hugo_params::shown_text_params(&canon, &pages);
            if !shown.is_empty() {
                text.push_str(&format!("frontmatter_text = {}\n", toml_list(&shown)));
            }
        }
        if let Some(g) = site.as_ref().and_then(|s| s.dialect) {
            text.push_str(&format!("generator = \"{g}\"\n"));
        }
        if jekyll.is_none()
            && let Some(rule) = anchor_rule(&canon, root.as_ref().map(|r| r.1))
        {
            text.push_str(&format!("anchors = \"{rule}\"\n"));
        }
        let mut cfg = Config::parse(&text, &shown, &canon, &canon.join("corpus.toml"))?;
        let zc = ZeroConfig {
            dir: canon,
            layout: root.as_ref().map(|r| r.1),
            outside_root: match &root {
                Some((folder, _)) => outside(&survey.sources, folder)
                    .into_iter()
                    .filter(|s| !contents.contains(s))
                    .collect(),
                None => Vec::new(),
            },
            left_out: survey.left_out,
            tables_of_contents: contents,
            id_transliterated: library_id(&name).1,
            generator: match (&jekyll, &site) {
                (Some(_), _) => Some("Jekyll"),
                (None, Some(site)) => Some(site.name),
                (None, None) => None,
            },
            unpublished: jekyll
                .as_ref()
                .map_or_else(Vec::new, |j| j.left_out.clone()),
            drafts: jekyll.as_ref().map_or_else(Vec::new, |j| j.drafts.clone()),
            warnings: match (jekyll, site) {
                (Some(j), _) => j.warnings,
                (None, Some(site)) => site.warnings,
                (None, None) => Vec::new(),
            },
        };
        for lib in &mut cfg.libraries {
            lib.zero_config = Some(zc.clone());
        }
        Ok(cfg)
    }
}

/// Why `dir` cannot be a sources directory, if it cannot.
fn not_a_directory(dir: &Path, shown: &str) -> Option<Problem> {
    if dir.is_dir() {
        return None;
    }
    let what = if dir.exists() {
        "is not a directory"
    } else {
        "does not exist"
    };
    Some(
        Problem::error("sources-dir", format!("{} {what}", dir.display()))
            .in_file(shown.to_string())
            .help("pass the directory that holds the Markdown, MDX or HTML sources"),
    )
}

/// The library keys a site's own files add to its zero config: a GitBook table of contents at
/// the content root, a Jekyll site's unpublished files and a Docusaurus site's partials (files
/// and folders whose name starts with `_`, which its pages import but it never publishes)
/// excluded, and Jekyll's Markdown read as Liquid.
fn site_keys(
    root_folder: &str,
    contents: &[String],
    jekyll: Option<&super::jekyll::Jekyll>,
    docusaurus: bool,
) -> String {
    let mut keys = String::new();
    let mut exclude: Vec<String> = Vec::new();
    if contents
        .iter()
        .any(|c| *c == in_folder(root_folder, SUMMARY))
    {
        exclude.push(SUMMARY.to_string());
    }
    if let Some(j) = jekyll {
        keys.push_str("liquid = true\n");
        exclude.extend(j.exclude.iter().cloned());
    }
    if docusaurus {
        exclude.extend(["**/_*.{md,mdx}".to_string(), "**/_*/**".to_string()]);
    }
    if !exclude.is_empty() {
        keys.push_str(&format!("exclude = {}\n", toml_list(&exclude)));
    }
    keys
}

/// `items` as a TOML array of strings (`["a", "b"]`), each quoted and escaped as TOML writes it.
fn toml_list(items: &[String]) -> String {
    let quoted: Vec<String> = items
        .iter()
        .map(|i| toml::Value::String(i.clone()).to_string())
        .collect();
    format!("[{}]", quoted.join(", "))
}

/// How the site's generator names headings without an explicit id (`[[library]] anchors`),
/// when `dir` shows which generator it is: VitePress by its `.vitepress` folder, MkDocs by its
/// `mkdocs.yml`, mdBook by its `book.toml`, Docusaurus by its config, and the Starlight, Hugo
/// and Quartz layouts (github-slugger ids, Hugo's default). `None` leaves only explicit ids.
fn anchor_rule(dir: &Path, layout: Option<&str>) -> Option<&'static str> {
    let has = |p: &str| dir.join(p).exists();
    if has(".vitepress") || has("docs/.vitepress") {
        return Some("vitepress");
    }
    if has("mkdocs.yml") || has("mkdocs.yaml") {
        return Some("mkdocs");
    }
    if has("book.toml") {
        return Some("mdbook");
    }
    let docusaurus = ["js", "ts", "mjs"]
        .iter()
        .any(|e| has(&format!("docusaurus.config.{e}")));
    if docusaurus || matches!(layout, Some("Starlight" | "Hugo" | "Quartz")) {
        return Some("github");
    }
    None
}

/// The files `--sources` reads: Markdown, MDX and HTML by extension. Others (images, notes) are
/// not sources; JSON files are records only under a `[library.records]` mapping, which needs a
/// `corpus.toml`.
const SOURCE_GLOB: &str = "**/*.{md,markdown,mdx,html,htm,MD,MARKDOWN,MDX,HTML,HTM}";

/// What a sources directory holds, as `discover::site_walk` lists it: paths relative to it.
struct Survey {
    /// Markdown, MDX and HTML files (`SOURCE_GLOB`).
    sources: Vec<String>,
    /// JSON files.
    json: Vec<String>,
    /// Sources the walk left out (`ZeroConfig::left_out`).
    left_out: Vec<String>,
}

fn survey_sources(dir: &Path, skip: Option<&Path>) -> Survey {
    let glob = globset::Glob::new(SOURCE_GLOB)
        .expect("valid glob")
        .compile_matcher();
    let mut survey = Survey {
        sources: Vec::new(),
        json: Vec::new(),
        left_out: Vec::new(),
    };
    // Unreadable entries are reported by discovery, which walks the same way.
    for entry in crate::walk::site_walk(dir, dir, skip).flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Some(rel) = rel_path(dir, entry.path()) else {
            continue;
        };
        if glob.is_match(&rel) {
            survey.sources.push(rel);
        } else if rel
            .rsplit_once('.')
            .is_some_and(|(_, e)| e.eq_ignore_ascii_case("json"))
        {
            survey.json.push(rel);
        }
    }
    survey.left_out = left_out(dir, &glob, &survey.sources, skip);
    survey
}

/// The sources under `dir` that a walk without ignore rules finds and `site_walk` did not
/// (`listed`, sorted): what the ignore files and hidden folders left out. `.git` and `skip`
/// (the output directory) are not entered; a `node_modules` folder is one entry, not walked.
fn left_out(
    dir: &Path,
    glob: &globset::GlobMatcher,
    listed: &[String],
    skip: Option<&Path>,
) -> Vec<String> {
    let listed: std::collections::HashSet<&str> = listed.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    let mut walker = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || (e.file_name() != ".git" && skip != Some(e.path())));
    // An unreadable entry is skipped, not the end of the walk (discovery reports it).
    while let Some(next) = walker.next() {
        let Ok(e) = next else {
            continue;
        };
        let Some(rel) = rel_path(dir, e.path()) else {
            continue;
        };
        if e.file_type().is_dir() && e.file_name() == "node_modules" {
            out.push(format!("{rel}/"));
            walker.skip_current_dir();
        } else if e.file_type().is_file() && glob.is_match(&rel) && !listed.contains(rel.as_str()) {
            out.push(rel);
        }
    }
    out
}

/// GitBook's table of contents, the navigation of a book, never a page of it.
const SUMMARY: &str = "SUMMARY.md";

/// `name` in `folder` (relative to the sources directory; `.` is the directory itself).
fn in_folder(folder: &str, name: &str) -> String {
    if folder == "." {
        name.to_string()
    } else {
        format!("{folder}/{name}")
    }
}

/// The `SUMMARY.md` files at the sources directory's top or the content root's that are
/// GitBook tables of contents (`walk::is_gitbook_summary`), among the surveyed `sources`: left
/// out of the build, since their links would be evidence of nothing.
fn tables_of_contents(dir: &Path, root_folder: &str, sources: &[String]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for rel in [SUMMARY.to_string(), in_folder(root_folder, SUMMARY)] {
        if found.contains(&rel) || !sources.contains(&rel) {
            continue;
        }
        if crate::walk::is_gitbook_summary(&dir.join(&rel)) {
            found.push(rel);
        }
    }
    found
}

/// `path` relative to `dir`, its components joined by `/`; `None` outside `dir`.
fn rel_path(dir: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(dir).ok()?;
    Some(crate::walk::rel_string(rel))
}

/// The sources not under `folder` (paths relative to the sources directory).
fn outside(sources: &[String], folder: &str) -> Vec<String> {
    let prefix = format!("{folder}/");
    sources
        .iter()
        .filter(|s| !s.starts_with(&prefix))
        .cloned()
        .collect()
}

/// The content folder of a site laid out as its generator expects, when most of the sources
/// (more than half), or most of the Markdown and MDX ones (a site's templates are HTML), are in
/// it: `src/content/docs` (Astro Starlight; in its one language folder
/// when every source there is in the same `ar` or `pt-BR`-like folder), `content` (Hugo),
/// `docs` (Docusaurus, VitePress, GitHub Pages; not when it holds most of the Markdown but
/// fewer sources than the HTML pages outside it). The folder, relative to the sources
/// directory, and the layout's name. A folder merely named `content` is Hugo's only with
/// evidence of a Hugo site at `dir` (`is_hugo_site`): without it, re-rooting would leave the
/// rest of the site out.
fn content_root(dir: &Path, sources: &[String]) -> Option<(String, &'static str)> {
    const LAYOUTS: [(&str, &str); 3] = [
        ("src/content/docs", "Starlight"),
        ("content", "Hugo"),
        ("docs", "Docusaurus, VitePress or GitHub Pages"),
    ];
    for (folder, layout) in LAYOUTS {
        let prefix = format!("{folder}/");
        let under: Vec<&str> = sources
            .iter()
            .filter_map(|s| s.strip_prefix(&prefix))
            .collect();
        let markdown = |s: &str| {
            let s = s.to_ascii_lowercase();
            !s.ends_with(".html") && !s.ends_with(".htm")
        };
        let most = under.len() * 2 > sources.len();
        let most_markdown = under.iter().filter(|s| markdown(s)).count() * 2
            > sources.iter().filter(|s| markdown(s)).count();
        if !most && !most_markdown {
            continue;
        }
        // A `docs` folder holding most of the Markdown is not the content root of a plain HTML
        // site whose pages outnumber it there (the folder holds the project's notes).
        let html_outside = sources
            .iter()
            .filter(|s| !s.starts_with(&prefix) && !markdown(s))
            .count();
        if folder == "docs" && !most && html_outside > under.len() {
            continue;
        }
        if layout == "Hugo" && !is_hugo_site(dir) {
            continue;
        }
        if layout == "Starlight" {
            let firsts: std::collections::BTreeSet<&str> = under
                .iter()
                .map(|r| r.split_once('/').map_or("", |(first, _)| first))
                .collect();
            if let [lang] = firsts.into_iter().collect::<Vec<_>>()[..]
                && is_language_folder(lang)
            {
                return Some((format!("{folder}/{lang}"), layout));
            }
        }
        return Some((folder.to_string(), layout));
    }
    None
}

/// Whether `dir` shows a Hugo site: a Hugo config (`hugo.toml`, `hugo.yaml`, `hugo.json`, or a
/// `config.toml`, `config.yaml` or `config.json` with a key only Hugo reads) or Hugo's own
/// folders (`layouts/`, `archetypes/`, `themes/`).
fn is_hugo_site(dir: &Path) -> bool {
    const HUGO_KEYS: [&str; 6] = [
        "baseurl",
        "languagecode",
        "theme",
        "contentdir",
        "publishdir",
        "disablekinds",
    ];
    if ["layouts", "archetypes", "themes"]
        .iter()
        .any(|d| dir.join(d).is_dir())
    {
        return true;
    }
    if ["hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json"]
        .iter()
        .any(|f| dir.join(f).is_file())
    {
        return true;
    }
    ["config.toml", "config.yaml", "config.yml", "config.json"]
        .iter()
        .filter_map(|f| {
            crate::fsio::read_capped_string(&dir.join(f), crate::fsio::cap::CONFIG).ok()
        })
        .any(|text| {
            text.lines().any(|line| {
                let key = line
                    .trim_start()
                    .trim_start_matches('"')
                    .split(['=', ':', '"', ' '])
                    .next()
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                HUGO_KEYS.contains(&key.as_str())
            })
        })
}

/// A Starlight locale folder's name: two ASCII letters (`ar`), or two and a region (`pt-BR`).
fn is_language_folder(name: &str) -> bool {
    let b = name.as_bytes();
    let letters = |s: &[u8]| s.iter().all(u8::is_ascii_alphabetic);
    match b.len() {
        2 => letters(b) && b.iter().all(u8::is_ascii_lowercase),
        5 => b[..2].iter().all(u8::is_ascii_lowercase) && b[2] == b'-' && letters(&b[3..]),
        _ => false,
    }
}

/// The error for a sources directory of JSON files only: JSON is read as records through a
/// mapping, which `--sources` cannot guess, so it shows the `corpus.toml` to write.
fn json_only(dir: &Path, shown: &str, json: &[String]) -> Problem {
    // The deepest folder holding every JSON file becomes the example's root.
    let folders: Vec<Vec<&str>> = json
        .iter()
        .map(|j| {
            let mut parts: Vec<&str> = j.split('/').collect();
            parts.pop();
            parts
        })
        .collect();
    let mut common: Vec<&str> = folders[0].clone();
    for f in &folders[1..] {
        let same = common.iter().zip(f).take_while(|(a, b)| a == b).count();
        common.truncate(same);
    }
    let root = if common.is_empty() {
        ".".to_string()
    } else {
        common.join("/")
    };
    let quote = |s: &str| toml::Value::String(s.to_string()).to_string();
    let example = json
        .iter()
        .take(3)
        .map(|j| j.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let more = if json.len() > 3 { ", …" } else { "" };
    Problem::error(
        "sources-json",
        format!(
            "{} holds {} ({example}{more}) and no Markdown, MDX or HTML: JSON is read as records, which needs a mapping from its fields",
            dir.display(),
            crate::term::count(json.len(), "JSON file", "JSON files")
        ),
    )
    .in_file(shown.to_string())
    .help(format!(
        "write a corpus.toml in {} and build with `askzico build --config corpus.toml`:

[corpus]
name = \"my-corpus\"

[[library]]
id = \"records\"                        # starts every chunk ID: short, lowercase
root = {}
include = [\"**/*.json\"]

[library.records]
select = \"*\"                          # path to each record: `*` = every item of the top list,
                                      # `*.*` = of every value of a top object, empty = the file is one
id = \"{{id}}\"                           # its slug: a template of its fields, `$key` or `$index`
title = \"title\"                       # the field holding its title
text = \"text\"                         # the field(s) of its text: a path or a list of paths
url = \"https://example.org/{{id}}\"      # its page: a template like `id`

(docs/configuration.md#libraryrecords-json-records lists every key)",
        dir.display(),
        quote(&root)
    ))
}

/// The `corpus.toml` text `Config::for_sources` parses: the corpus and its one library rooted
/// at `root` (relative to the directory), named after the directory (`library_id`).
fn sources_config_text(name: &str, out: &Path, root: &str) -> String {
    let id = library_id(name).0;
    let quote = |s: &str| toml::Value::String(s.to_string()).to_string();
    format!(
        "[corpus]\nname = {}\nout = {}\n\n[[library]]\nid = {}\nroot = {}\ninclude = [{SOURCE_GLOB:?}]\n",
        quote(name),
        quote(&out.to_string_lossy()),
        quote(&id),
        quote(root)
    )
}

/// The library id of a sources directory named `name`, and whether it was transliterated.
/// Library ids are ASCII (DESIGN §3): the id keeps the name's ASCII letters and digits
/// (lowercased, other runs become `-`, shortened by [`short_id`]: it starts every chunk ID).
/// A name with none (`مدونتي`) is transliterated (`ascii_letters`), cut to leave room, and
/// given `-` and hex digits of the blake3 of its NFC form, up to [`MAX_LIBRARY_ID`]
/// characters (`mdwnty-…`): readable, the same for one name on every machine, and different for
/// two names that transliterate alike.
fn library_id(name: &str) -> (String, bool) {
    let kept = id_of(name.chars().map(|c| c.to_string()));
    if !kept.is_empty() {
        return (kept, false);
    }
    use unicode_normalization::UnicodeNormalization;
    let nfc: String = name.nfc().collect();
    let latin = id_of(nfc.chars().map(ascii_letters));
    let head = latin[..latin.len().min(7)].trim_end_matches('-');
    let head = if head.is_empty() { "site" } else { head };
    let hash = blake3::hash(nfc.as_bytes()).to_hex();
    let hex = &hash[..MAX_LIBRARY_ID - head.len() - 1];
    (format!("{head}-{hex}"), true)
}

/// The id made of `pieces` (each a character's ASCII spelling): ASCII letters and digits
/// lowercased, every other run one `-`, shortened by [`short_id`], no `-` at either end.
fn id_of(pieces: impl Iterator<Item = String>) -> String {
    let mut id = String::new();
    for piece in pieces {
        // A mark inside a word spells nothing, and does not split it.
        if piece.is_empty() {
            continue;
        }
        let mut any = false;
        for c in piece.chars().filter(char::is_ascii_alphanumeric) {
            id.push(c.to_ascii_lowercase());
            any = true;
        }
        if !any && !id.is_empty() && !id.ends_with('-') {
            id.push('-');
        }
    }
    short_id(&id).trim_end_matches('-').to_string()
}

/// A character's ASCII spelling for a library id: an ASCII character itself, an Arabic-script
/// one as `identity::arabic_spelling` gives it, a space for anything else.
fn ascii_letters(c: char) -> String {
    if c.is_ascii() {
        return c.to_string();
    }
    crate::identity::arabic_spelling(c)
        .unwrap_or(" ")
        .to_string()
}

/// Longest zero-config library id: it starts every chunk ID, which must fit in 64 bytes with the
/// page's own path and position.
const MAX_LIBRARY_ID: usize = 12;

/// `id` cut to [`MAX_LIBRARY_ID`] characters, at a `-` when that keeps at least four
/// (`javascript-tutorial-ar` → `javascript`, `redis-from-scratch-ar` → `redis-from`).
fn short_id(id: &str) -> &str {
    if id.len() <= MAX_LIBRARY_ID {
        return id;
    }
    let head = &id[..MAX_LIBRARY_ID + 1];
    match head.rfind('-') {
        Some(i) if i >= 4 => &id[..i],
        _ => &id[..MAX_LIBRARY_ID],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_ids_stay_short_and_cut_at_a_hyphen() {
        assert_eq!(short_id("gin-docs-ar"), "gin-docs-ar");
        assert_eq!(short_id("javascript-tutorial-ar"), "javascript");
        assert_eq!(short_id("redis-from-scratch-ar"), "redis-from");
        assert_eq!(short_id("abc-defghijklmnop"), "abc-defghijk");
        assert_eq!(short_id("abcdefghijklmnopq"), "abcdefghijkl");
    }

    #[test]
    fn a_name_without_ascii_letters_gets_a_transliterated_id_distinct_per_name() {
        // ASCII names as they always were.
        assert_eq!(library_id("My Site"), ("my-site".to_string(), false));
        assert_eq!(
            library_id("javascript-tutorial-ar"),
            ("javascript".into(), false)
        );
        let (id, translit) = library_id("مدونتي");
        assert!(translit);
        assert!(id.starts_with("mdwnty-"), "{id}");
        assert_eq!(id.len(), MAX_LIBRARY_ID);
        assert_eq!(library_id("مدونتي"), (id.clone(), true), "deterministic");
        // NFD (as macOS may name a folder) and NFC are one name; harakat do not split a word.
        use unicode_normalization::UnicodeNormalization;
        let nfd: String = "مؤلفاتي".nfd().collect();
        assert_eq!(library_id(&nfd), library_id("مؤلفاتي"));
        assert!(library_id("مُدَوَّنَتِي").0.starts_with("mdwnty-"));
        assert!(library_id("٢٠٢٤").0.starts_with("2024-"));
        assert!(library_id("אתר").0.starts_with("site-"));
        // Names that transliterate alike still differ.
        let names = [
            "مدونتي",
            "مدونتى",
            "مدونة",
            "مدونه",
            "مدونت",
            "صور",
            "سور",
            "دليل المستخدم",
        ];
        let ids: std::collections::BTreeSet<String> =
            names.iter().map(|n| library_id(n).0).collect();
        assert_eq!(ids.len(), names.len(), "{ids:?}");
        for id in &ids {
            assert!(
                crate::identity::component(id).is_ok() && id.len() <= MAX_LIBRARY_ID,
                "{id}"
            );
        }
    }

    #[test]
    fn the_survey_lists_what_the_ignore_rules_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for f in [
            "a.md",
            "drafts/b.md",
            ".hidden/c.md",
            "node_modules/pkg/README.md",
            "img.png",
        ] {
            std::fs::create_dir_all(d.join(f).parent().unwrap()).unwrap();
            std::fs::write(d.join(f), "# t\n\nx\n").unwrap();
        }
        std::fs::write(d.join(".gitignore"), "drafts/\n").unwrap();
        let survey = survey_sources(d, None);
        assert_eq!(survey.sources, ["a.md"]);
        assert_eq!(
            survey.left_out,
            [".hidden/c.md", "drafts/b.md", "node_modules/"]
        );
    }
}
