//! Zero config of a Jekyll site: what Jekyll publishes as pages. Its `_layouts/`, `_includes/`,
//! `_sass/`, `_data/`, `_site/`, `_drafts/` (any folder or file whose name starts with `_`, at
//! any depth, but `_posts` and the collections the site outputs) and the entries of
//! `_config.yml`'s `exclude:` are not pages; its Markdown is a Liquid template (`liquid`).

use std::path::Path;

use globset::{Glob, GlobSetBuilder};

use super::SiteWarning;

/// A Jekyll site found at the root of a sources directory.
#[derive(Debug, Default)]
pub(super) struct Jekyll {
    /// Exclude globs of the zero-config library (relative to the sources directory), valid.
    pub exclude: Vec<String>,
    /// The sources they leave out (paths relative to the sources directory), but drafts.
    pub left_out: Vec<String>,
    /// The drafts they leave out: the files of `_drafts/` folders.
    pub drafts: Vec<String>,
    /// A `_config.yml` that could not be read: the site is still read as Jekyll's, with its
    /// defaults.
    pub warnings: Vec<SiteWarning>,
}

/// What `_config.yml` says of the files Jekyll reads.
#[derive(Debug, Default)]
struct SiteConfig {
    exclude: Vec<String>,
    include: Vec<String>,
    /// Collections whose documents are pages (`output: true`).
    collections: Vec<String>,
    collections_dir: String,
}

/// Folders Jekyll leaves out by default (`exclude`'s defaults, kept whatever the site adds).
const DEFAULT_EXCLUDE: [&str; 6] = [
    "Gemfile",
    "Gemfile.lock",
    "vendor/bundle",
    "vendor/cache",
    "vendor/gems",
    "vendor/ruby",
];

/// The Jekyll site at `dir`, when `dir` holds a `_config.yml` and a `_posts/` or `_layouts/`
/// folder; `sources` (paths relative to `dir`) loses what Jekyll would not publish.
pub(super) fn detect(dir: &Path, sources: &mut Vec<String>) -> Option<Jekyll> {
    let config = ["_config.yml", "_config.yaml"]
        .into_iter()
        .find(|n| dir.join(n).is_file())?;
    if !dir.join("_posts").is_dir() && !dir.join("_layouts").is_dir() {
        return None;
    }
    let mut site = Jekyll::default();
    let cfg = match read_config(&dir.join(config)) {
        Ok(c) => c,
        Err(reason) => {
            site.warnings.push(SiteWarning {
                code: "jekyll-config",
                file: config.to_string(),
                message: format!("{config} could not be read ({reason}): its `exclude`, `include` and `collections` are not applied"),
                help: format!("fix the YAML of {config} (Jekyll refuses it too); until then every file outside `_` folders is read"),
            });
            SiteConfig::default()
        }
    };
    let mut globs: Vec<String> = Vec::new();
    // Braces are literal to Jekyll (no extglob) but alternatives to a glob, which the config
    // checks one by one: a name holding them is not left out rather than made a config error.
    let mut add = |g: String| {
        if !globs.contains(&g) && !g.contains(['{', '}']) {
            globs.push(g);
        }
    };
    for e in DEFAULT_EXCLUDE
        .iter()
        .map(|s| s.to_string())
        .chain(cfg.exclude.clone())
    {
        let e = e.trim().trim_start_matches("./").trim_matches('/');
        if e.is_empty() || e.split('/').any(|s| s == "..") {
            continue;
        }
        let e = if Glob::new(e).is_ok() {
            e.to_string()
        } else {
            globset::escape(e)
        };
        add(format!("{e}/**"));
        add(e);
    }
    for rel in sources.iter() {
        if let Some(g) = underscore_glob(rel, &cfg) {
            add(g);
        }
    }
    let mut set = GlobSetBuilder::new();
    for g in &globs {
        set.add(Glob::new(g).expect("globs are checked or escaped"));
    }
    let set = set.build().unwrap_or_else(|_| globset::GlobSet::empty());
    let (out, kept): (Vec<String>, Vec<String>) = std::mem::take(sources)
        .into_iter()
        .partition(|s| set.is_match(s));
    *sources = kept;
    site.exclude = globs;
    (site.drafts, site.left_out) = out
        .into_iter()
        .partition(|s| s.split('/').any(|seg| seg == "_drafts"));
    Some(site)
}

/// The glob leaving out `rel` when a folder or file on its path is one of Jekyll's own (its
/// name starts with `_`): `_layouts/**`, `theme/_includes/**`, `a/_partial.md`. `_posts`,
/// the output collections and `include:` entries are pages.
fn underscore_glob(rel: &str, cfg: &SiteConfig) -> Option<String> {
    let segs: Vec<&str> = rel.split('/').collect();
    for (i, seg) in segs.iter().enumerate() {
        if !seg.starts_with('_') {
            continue;
        }
        let prefix = segs[..=i].join("/");
        let parent = segs[..i].join("/");
        let collection =
            parent == cfg.collections_dir && cfg.collections.iter().any(|c| seg[1..] == **c);
        if *seg == "_posts" || collection || cfg.include.contains(&prefix) {
            continue;
        }
        let escaped = globset::escape(&prefix);
        return Some(if i + 1 == segs.len() {
            escaped
        } else {
            format!("{escaped}/**")
        });
    }
    None
}

/// The keys of `_config.yml` zero config reads; the reason when it cannot be read.
fn read_config(path: &Path) -> Result<SiteConfig, String> {
    let text = crate::fsio::read_capped_string(path, crate::fsio::cap::CONFIG)
        .map_err(|e| e.to_string())?;
    let value: serde_json::Value = if text.trim().is_empty() {
        serde_json::Value::Null
    } else {
        serde_saphyr::from_str(&text).map_err(|e| {
            // A resource limit said in words (an alias bomb), not as the parser's debug dump.
            match crate::extract::yaml_budget_reason(&e, &text) {
                Some((reason, _)) if reason.contains("aliases") => {
                    format!("alias expansion too large: its YAML {reason}")
                }
                Some((reason, _)) => format!("its YAML {reason}"),
                None => {
                    let msg = e.to_string();
                    msg.lines().next().unwrap_or_default().to_string()
                }
            }
        })?
    };
    let strings = |key: &str| -> Vec<String> {
        match value.get(key) {
            Some(serde_json::Value::Array(a)) => a
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            Some(serde_json::Value::String(s)) => vec![s.clone()],
            _ => Vec::new(),
        }
    };
    let collections = match value.get("collections") {
        Some(serde_json::Value::Object(m)) => m
            .iter()
            .filter(|(_, v)| v.get("output").and_then(serde_json::Value::as_bool) == Some(true))
            .map(|(k, _)| k.clone())
            .collect(),
        _ => Vec::new(),
    };
    Ok(SiteConfig {
        exclude: strings("exclude"),
        include: strings("include")
            .into_iter()
            .map(|s| s.trim_matches('/').to_string())
            .collect(),
        collections,
        collections_dir: value
            .get("collections_dir")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("")
            .trim_matches('/')
            .to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(files: &[&str], config: &str) -> (tempfile::TempDir, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        for f in files {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        std::fs::write(dir.path().join("_config.yml"), config).unwrap();
        (dir, files.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn jekyll_folders_and_excludes_are_left_out() {
        let (dir, mut sources) = site(
            &[
                "_posts/2024-01-01-a.md",
                "_layouts/post.html",
                "_includes/head.html",
                "_drafts/d.md",
                "_pages/about.md",
                "_notes/n.md",
                "blog/_posts/b.md",
                "theme/_layouts/x.html",
                "sandbox/index.md",
                "docs/guide.md",
                "_partial.md",
                "index.md",
            ],
            "exclude:\n  - sandbox\n  - \"/docs/\"\ncollections:\n  pages:\n    output: true\n  notes:\n    output: false\n",
        );
        let j = detect(dir.path(), &mut sources).unwrap();
        assert_eq!(
            sources,
            [
                "_posts/2024-01-01-a.md",
                "_pages/about.md",
                "blog/_posts/b.md",
                "index.md"
            ]
        );
        assert_eq!(
            j.left_out,
            [
                "_layouts/post.html",
                "_includes/head.html",
                "_notes/n.md",
                "theme/_layouts/x.html",
                "sandbox/index.md",
                "docs/guide.md",
                "_partial.md",
            ]
        );
        assert_eq!(j.drafts, ["_drafts/d.md"]);
        assert!(j.warnings.is_empty());
        assert!(!j.exclude.is_empty());
    }

    #[test]
    fn a_site_without_posts_or_layouts_is_not_jekyll_and_bad_yaml_is_a_warning() {
        let (dir, mut sources) = site(&["index.md"], "title: x\n");
        assert!(detect(dir.path(), &mut sources).is_none());
        let (dir, mut sources) = site(&["_posts/a.md", "_layouts/x.html"], "exclude: [a\n");
        let j = detect(dir.path(), &mut sources).unwrap();
        assert_eq!(sources, ["_posts/a.md"]);
        assert_eq!(j.warnings.len(), 1);
        assert_eq!(j.warnings[0].file, "_config.yml");
    }

    #[test]
    fn an_alias_bomb_in_the_site_config_is_named_as_one() {
        let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for (i, name) in ["b", "c", "d", "e", "f", "g", "h"].iter().enumerate() {
            let prev = ["a", "b", "c", "d", "e", "f", "g"][i];
            bomb.push_str(&format!(
                "{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
            ));
        }
        let (dir, mut sources) = site(&["_posts/a.md", "_layouts/x.html"], &bomb);
        let j = detect(dir.path(), &mut sources).unwrap();
        assert_eq!(j.warnings.len(), 1);
        let m = &j.warnings[0].message;
        assert!(m.contains("alias expansion too large"), "{m}");
        assert!(m.starts_with("_config.yml"), "{m}");
        assert!(!m.contains("Nodes {"), "{m}");
    }
}
