//! `corpus.toml`: the declarative description of a corpus. Parsing reports every problem it
//! finds in one run, each pointing into the file. Paths in the config resolve relative to the
//! config file's directory.

mod raw;
pub mod template;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Serialize;
use toml::Spanned;

use crate::diag::{Problem, Problems};
use crate::normalize::Rules;
pub use template::Template;

pub use crate::embed::EmbedSettings;

/// Source formats the extractor understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Markdown,
    Mdx,
    Html,
    Json,
}

impl Format {
    /// The format a file extension implies, when the library does not declare one.
    pub fn from_extension(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "md" | "markdown" => Some(Format::Markdown),
            "mdx" => Some(Format::Mdx),
            "html" | "htm" => Some(Format::Html),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

/// A pair of distinct words and whether normalization may merge them (`askzico rules check`).
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Collision {
    pub a: String,
    pub b: String,
    pub accept: bool,
    pub why: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ChunkSettings {
    pub max_chars: usize,
    pub min_chars: usize,
}

/// How a JSON file maps to documents.
#[derive(Debug, Clone, Serialize)]
pub struct RecordMapping {
    /// Path from the file's top value to each record: `.`-separated steps, `*` = every child.
    pub select: Vec<String>,
    pub id: Option<Template>,
    /// Named captures of `pattern` over `field` become template variables.
    #[serde(skip)]
    pub id_match: Option<(String, regex::Regex)>,
    pub title: Option<String>,
    pub text: Vec<String>,
    pub url: Option<Template>,
    pub date: Option<String>,
    pub sections: Option<SectionMapping>,
    pub metadata: BTreeMap<String, String>,
}

/// Nested records: each selected section becomes a heading with its content below it.
#[derive(Debug, Clone, Serialize)]
pub struct SectionMapping {
    pub select: Vec<String>,
    pub title: Option<String>,
    pub text: Vec<String>,
    /// When an item of `text` is an object, the field holding its text.
    pub item_text: String,
    /// When an item of `text` is an object, a field shown as a label before its text.
    pub item_label: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Library {
    pub id: String,
    pub root: PathBuf,
    /// The root as written in the config, for messages.
    pub root_display: String,
    pub include: GlobSet,
    pub include_patterns: Vec<String>,
    pub exclude: GlobSet,
    pub exclude_patterns: Vec<String>,
    pub format: Option<Format>,
    pub domains: Vec<String>,
    pub url: Option<Template>,
    /// URLs drop numeric ordering prefixes from path segments (`01-intro` → `intro`).
    pub url_strip_order: bool,
    /// File stems (compared ignoring ASCII case) whose URL is their folder's; empty: none.
    pub url_index: Vec<String>,
    pub records: Option<RecordMapping>,
    /// Frontmatter keys copied into chunk metadata.
    pub frontmatter_metadata: Vec<String>,
    pub allow_outside_root: bool,
    /// Set for the library of `build --sources DIR` (zero config) only: discovery then skips
    /// what the site's ignore files say, as a site generator would (`discover::site_walk`).
    pub zero_config: Option<ZeroConfig>,
}

/// How `--sources DIR` read its directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZeroConfig {
    /// The sources directory (canonical): its `.gitignore` and `.ignore` files, and those below
    /// it, apply; none above it.
    pub dir: PathBuf,
    /// The site layout whose content root became the library's root (`Starlight`, `Hugo`, …),
    /// or none when the root is `dir` itself.
    pub layout: Option<&'static str>,
}

impl Library {
    /// The name a source file of this library has in diagnostics: its path relative to the
    /// config file's directory (`compile::display_name`).
    pub fn display_name(&self, rel: &str) -> String {
        let root = self.root_display.trim_end_matches('/');
        if root.is_empty() || root == "." {
            rel.to_string()
        } else {
            format!("{root}/{rel}")
        }
    }

    /// The values of this library that shape output, for the settings fingerprint.
    pub fn shape(&self) -> serde_json::Value {
        let mut shape = serde_json::json!({
            "id": self.id,
            "include": self.include_patterns,
            "exclude": self.exclude_patterns,
            "format": self.format,
            "domains": self.domains,
            "url": self.url.as_ref().map(|t| t.source()),
            "records": self.records,
            "frontmatter_metadata": self.frontmatter_metadata,
        });
        // The URL switches are recorded only when set, so a config that does not use them keeps
        // the fingerprint (and corpus version) it had before they existed.
        if self.url_strip_order {
            shape["url_strip_order"] = true.into();
        }
        if self.url_index != default_url_index() {
            shape["url_index"] = serde_json::json!(self.url_index);
        }
        shape
    }
}

#[derive(Debug, Clone)]
pub struct Config {
    pub path: PathBuf,
    /// How diagnostics name the config: the path given to `--config`, or `--sources DIR`.
    pub shown: String,
    pub base_dir: PathBuf,
    pub name: String,
    pub out_dir: PathBuf,
    pub id_width: usize,
    /// `[corpus] strict_ids`: a slug that is not an ID as it is (bad characters, too long) is an
    /// error instead of being mapped (escaped or shortened). Not part of the fingerprint: it
    /// only refuses builds; the compile cache keys on it.
    pub strict_ids: bool,
    pub chunking: ChunkSettings,
    pub normalize: Rules,
    pub embedding: EmbedSettings,
    pub retrieval: crate::retrieve::RetrievalSettings,
    /// Recall aliases: the shipped table (unless `[aliases] shipped = false`) plus `[[alias]]`.
    pub aliases: crate::normalize::aliases::AliasTable,
    /// Article stems as additive lexical tokens (`[aliases] article_stems`).
    pub article_stems: bool,
    pub collisions: Vec<Collision>,
    pub libraries: Vec<Library>,
    pub envs: BTreeMap<String, Vec<String>>,
    /// Limits that keep one bad file from exhausting the machine.
    pub max_file_bytes: u64,
    /// `[chunking] max_chunks`: most chunks one document may make (more is an error). Not part
    /// of the fingerprint: it never changes a build's output, only whether it is refused.
    pub max_chunks: usize,
    /// `[inspect]`: thresholds of `askzico inspect`.
    pub inspect: crate::inspect::InspectSettings,
    /// `[deploy.NAME]`: deploy targets of `askzico deploy`.
    pub deploy: BTreeMap<String, DeployTarget>,
}

/// A deploy target: two Vectorize indexes (blue/green), one KV namespace, a key prefix.
#[derive(Debug, Clone, PartialEq)]
pub struct DeployTarget {
    pub account_id: Option<String>,
    /// Exactly two distinct index names; the pointer says which one is live.
    pub indexes: [String; 2],
    pub kv_namespace_id: String,
    pub prefix: String,
}

impl Config {
    /// Reads and validates a config file. `Err` holds every problem found.
    pub fn load(path: &Path) -> Result<Config, Problems> {
        let display = path.display().to_string();
        let text = crate::fsio::read_capped_string(path, crate::fsio::cap::CONFIG).map_err(|e| {
            use crate::fsio::ReadError;
            let help = match e {
                ReadError::TooLarge { .. } => {
                    "a corpus.toml is a few KB: check that --config names the config file, not a data file"
                }
                ReadError::NotAFile { .. } => {
                    "pass the config file (a corpus.toml) with --config PATH, or create one with `askzico init`"
                }
                ReadError::NotUtf8 => "save the config as UTF-8",
                ReadError::Io(_) => {
                    "pass the config with --config PATH, or create one with `askzico init`"
                }
            };
            Problems(vec![
                Problem::error("config-read", format!("cannot read config {display}: {e}"))
                    .in_file(display.clone())
                    .help(help),
            ])
        })?;
        let base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let base_dir = if base_dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            base_dir
        };
        Config::parse(&text, &display, &base_dir, path)
    }

    /// A command's config: the sources directory's (`--sources DIR`) when one is given, else the
    /// config file's (`--config`).
    pub fn load_or_sources(config: &Path, sources: Option<&Path>) -> Result<Config, Problems> {
        match sources {
            Some(dir) => Config::for_sources(dir),
            None => Config::load(config),
        }
    }

    /// The config of a bare sources directory (`askzico build --sources DIR`): one library named
    /// after the directory, its Markdown, MDX and HTML files (format by extension) as a site
    /// generator would publish them (`discover::site_walk`: ignore files honoured, hidden
    /// folders and `node_modules` skipped), rooted in the site's content folder when the tree
    /// has one (`content_root`), frontmatter `title`, `url` and `domains` honoured as in any
    /// library, the default settings, and output into `out` under the current directory. It is
    /// parsed like a written config, so it is checked the same way. A directory of JSON and no
    /// such source is an error showing the `[library.records]` mapping to write.
    pub fn for_sources(dir: &Path) -> Result<Config, Problems> {
        let shown = format!("--sources {}", dir.display());
        if !dir.is_dir() {
            return Err(Problems(vec![
                Problem::error(
                    "sources-dir",
                    format!("{} is not a directory", dir.display()),
                )
                .in_file(shown)
                .help("pass the directory that holds the Markdown, MDX or HTML sources"),
            ]));
        }
        let canon = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let name = canon
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "sources".into());
        let out = std::env::current_dir()
            .map(|d| d.join("out"))
            .unwrap_or_else(|_| PathBuf::from("out"));
        let survey = survey_sources(&canon);
        if survey.sources.is_empty() && !survey.json.is_empty() {
            return Err(Problems(vec![json_only(dir, &shown, &survey.json)]));
        }
        let root = content_root(&survey.sources);
        let text = sources_config_text(&name, &out, root.as_ref().map_or(".", |r| &r.0));
        let mut cfg = Config::parse(&text, &shown, &canon, &canon.join("corpus.toml"))?;
        for lib in &mut cfg.libraries {
            lib.zero_config = Some(ZeroConfig {
                dir: canon.clone(),
                layout: root.as_ref().map(|r| r.1),
            });
        }
        Ok(cfg)
    }

    /// Parses config text; `base_dir` is where relative paths resolve.
    pub fn parse(
        text: &str,
        display: &str,
        base_dir: &Path,
        path: &Path,
    ) -> Result<Config, Problems> {
        let src: Arc<str> = Arc::from(text);
        let mut cx = Cx {
            src: src.clone(),
            file: display.to_string(),
            problems: Problems::default(),
        };
        let raw = raw::parse(&mut cx);
        let Some(raw) = raw else {
            return Err(cx.problems);
        };
        let cfg = build(&mut cx, raw, base_dir, path);
        if cx.problems.has_errors() {
            Err(cx.problems)
        } else {
            Ok(cfg)
        }
    }

    /// The additive tokens of a search word under these settings (`[aliases]`).
    pub fn word_extras(&self) -> crate::normalize::WordExtras<'_> {
        crate::normalize::WordExtras::new(&self.aliases, self.article_stems)
    }

    /// What the quality checks of `askzico inspect` need: chunk bounds, the known libraries and
    /// domains, and `[inspect]`.
    pub fn inspect_context(&self) -> crate::inspect::Context {
        crate::inspect::Context {
            min_chars: self.chunking.min_chars,
            max_chars: self.chunking.max_chars,
            libraries: self.libraries.iter().map(|l| l.id.clone()).collect(),
            domains: self
                .libraries
                .iter()
                .flat_map(|l| l.domains.iter().cloned())
                .chain(self.inspect.domains.iter().cloned())
                .collect(),
            settings: self.inspect.clone(),
        }
    }

    /// What a query over a built version needs (`query`, `eval`, `rules check`).
    pub fn search_settings(&self) -> crate::retrieve::SearchSettings<'_> {
        crate::retrieve::SearchSettings {
            retrieval: &self.retrieval,
            normalize: &self.normalize,
            aliases: &self.aliases,
            article_stems: self.article_stems,
            embedding: &self.embedding,
        }
    }

    pub fn library(&self, id: &str) -> Option<&Library> {
        self.libraries.iter().find(|l| l.id == id)
    }

    /// Libraries enabled in an environment (`None` = the default environment: all of them).
    pub fn libraries_for(&self, env: Option<&str>) -> Result<Vec<&Library>, Problem> {
        match env {
            None => Ok(self.libraries.iter().collect()),
            Some(name) => {
                let ids = self.envs.get(name).ok_or_else(|| {
                    let known: Vec<_> = self.envs.keys().cloned().collect();
                    Problem::error(
                        "unknown-env",
                        format!("no environment `{name}` in {}", self.path.display()),
                    )
                    .help(if known.is_empty() {
                        "add an [env.NAME] table with `libraries = [..]` to the config".to_string()
                    } else {
                        format!("known environments: {}", known.join(", "))
                    })
                })?;
                Ok(self
                    .libraries
                    .iter()
                    .filter(|l| ids.contains(&l.id))
                    .collect())
            }
        }
    }

    /// The output directory a command writes into: `--out`, checked exactly as `[corpus] out`
    /// is (`paths::out_dir_problem`), or the config's (checked when it was parsed).
    pub fn out_dir_for_writing(&self, over: Option<&Path>) -> Result<PathBuf, Problem> {
        let Some(out) = over else {
            return Ok(self.out_dir.clone());
        };
        let shown = out.display().to_string();
        match out_dir_problem(out, &shown, &self.path, &self.libraries) {
            None => Ok(out.to_path_buf()),
            Some((msg, help)) => Err(Problem::error("out-dir", msg)
                .in_file(format!("--out {shown}"))
                .help(help)),
        }
    }

    /// The output directory, overridable on the command line.
    pub fn out_dir_or(&self, over: Option<&Path>) -> PathBuf {
        over.map(Path::to_path_buf)
            .unwrap_or_else(|| self.out_dir.clone())
    }
}

/// Why `out` cannot be the output directory of a config at `config` with these libraries, as
/// (message, help): it is (or sits under) a file, it is or holds a library's root, or it holds
/// the config. `shown` is `out` as the user wrote it. An output directory *inside* a root is
/// fine (discovery skips it); `claim` refuses it when it already holds anything else.
pub fn out_dir_problem(
    out: &Path,
    shown: &str,
    config: &Path,
    libraries: &[Library],
) -> Option<(String, String)> {
    const APART: &str = "build output must live apart from sources: use a dedicated directory such as `out` (`[corpus] out` in corpus.toml, or --out)";
    let abs = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    // The nearest existing ancestor (or `out` itself) must be a directory.
    if let Some(file) = abs
        .ancestors()
        .find(|a| std::fs::metadata(a).is_ok())
        .filter(|a| !a.is_dir())
    {
        let what = if file == abs {
            format!("the output directory `{shown}` is a file, not a directory")
        } else {
            format!(
                "the output directory `{shown}` lies under {}, which is a file",
                file.display()
            )
        };
        return Some((
            what,
            "the output directory holds askzico's build: move the file away, or name another directory with `out` in corpus.toml or --out".to_string(),
        ));
    }
    let resolved = crate::fsio::resolve(out);
    for lib in libraries {
        let Ok(root) = lib.root.canonicalize() else {
            continue;
        };
        if root == resolved {
            return Some((
                format!(
                    "the output directory `{shown}` is the root of library `{}`",
                    lib.id
                ),
                APART.to_string(),
            ));
        }
        if root.starts_with(&resolved) {
            return Some((
                format!(
                    "the output directory `{shown}` contains the root of library `{}`",
                    lib.id
                ),
                APART.to_string(),
            ));
        }
    }
    if let Ok(cfg) = config.canonicalize()
        && cfg.starts_with(&resolved)
    {
        return Some((
            format!(
                "the output directory `{shown}` holds the config {}",
                config.display()
            ),
            APART.to_string(),
        ));
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
}

fn survey_sources(dir: &Path) -> Survey {
    let glob = globset::Glob::new(SOURCE_GLOB)
        .expect("valid glob")
        .compile_matcher();
    let mut survey = Survey {
        sources: Vec::new(),
        json: Vec::new(),
    };
    // Unreadable entries are reported by discovery, which walks the same way.
    for entry in crate::walk::site_walk(dir, dir).flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(dir) else {
            continue;
        };
        let rel = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        if glob.is_match(&rel) {
            survey.sources.push(rel);
        } else if rel
            .rsplit_once('.')
            .is_some_and(|(_, e)| e.eq_ignore_ascii_case("json"))
        {
            survey.json.push(rel);
        }
    }
    survey
}

/// The content folder of a site laid out as its generator expects, when most of the sources
/// (more than half), or most of the Markdown and MDX ones (a site's templates are HTML), are in
/// it: `src/content/docs` (Astro Starlight; in its one language folder
/// when every source there is in the same `ar` or `pt-BR`-like folder), `content` (Hugo),
/// `docs` (Docusaurus, VitePress, GitHub Pages). The folder, relative to the sources directory, and the
/// layout's name.
fn content_root(sources: &[String]) -> Option<(String, &'static str)> {
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
            "{} holds {} JSON file(s) ({example}{more}) and no Markdown, MDX or HTML: JSON is read as records, which needs a mapping from its fields",
            dir.display(),
            json.len()
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
/// at `root` (relative to the directory), named after the directory. The library id keeps the
/// name's ASCII letters and digits (lowercased, other runs become `-`, at most 24: it starts
/// every chunk ID), or is `sources` when none are left.
fn sources_config_text(name: &str, out: &Path, root: &str) -> String {
    let mut id = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            id.push(c.to_ascii_lowercase());
        } else if !id.is_empty() && !id.ends_with('-') {
            id.push('-');
        }
    }
    let id: String = id.chars().take(24).collect();
    let id = id.trim_end_matches('-');
    let id = if id.is_empty() { "sources" } else { id };
    let quote = |s: &str| toml::Value::String(s.to_string()).to_string();
    format!(
        "[corpus]\nname = {}\nout = {}\n\n[[library]]\nid = {}\nroot = {}\ninclude = [{SOURCE_GLOB:?}]\n",
        quote(name),
        quote(&out.to_string_lossy()),
        quote(id),
        quote(root)
    )
}

/// Parsing context: the config text and the problems found so far.
pub(crate) struct Cx {
    pub src: Arc<str>,
    pub file: String,
    pub problems: Problems,
}

impl Cx {
    pub fn error(
        &mut self,
        code: &'static str,
        span: std::ops::Range<usize>,
        msg: impl Into<String>,
        help: impl Into<String>,
    ) {
        let msg = msg.into();
        let p = Problem::error(code, msg.clone())
            .in_file(self.file.clone())
            .with_span(&self.src, span, msg)
            .help(help);
        self.problems.push(p);
    }
}

/// Whether a library root lies inside the corpus directory, with `..` and symlinks resolved.
fn inside_corpus(base_dir: &Path, root: &Path) -> bool {
    match (base_dir.canonicalize(), root.canonicalize()) {
        (Ok(base), Ok(root)) => root.starts_with(base),
        _ => true, // unreadable: reported as a missing root instead
    }
}

/// Reports a name that becomes part of a file name and is not one (`paths::component`), at
/// `span`; whether it is fine.
fn check_name(
    cx: &mut Cx,
    code: &'static str,
    what: &str,
    name: &str,
    span: std::ops::Range<usize>,
) -> bool {
    match crate::identity::component(name) {
        Ok(_) => true,
        Err(why) => {
            cx.error(
                code,
                span,
                format!("{what} {why}"),
                format!(
                    "the {what} becomes part of a file name under the output directory: rename it"
                ),
            );
            false
        }
    }
}

fn is_ascii_id(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The config from its serde shape: every value checked (problems into `cx`), then each part
/// built by its own function.
fn build(cx: &mut Cx, raw: raw::RawConfig, base_dir: &Path, path: &Path) -> Config {
    let corpus = raw.corpus.unwrap_or_default();
    let chunking = raw.chunking.unwrap_or_default();
    check_chunking(cx, &chunking);
    let embedding = raw.embedding.unwrap_or_default();
    check_embedding(cx, &embedding);
    let id_width = *corpus.id_width.get_ref();
    if !(1..=6).contains(&id_width) {
        cx.error(
            "config-value",
            corpus.id_width.span(),
            "id_width must be between 1 and 6",
            "the default is 3",
        );
    }

    let mut seen: BTreeMap<String, std::ops::Range<usize>> = BTreeMap::new();
    let libraries: Vec<Library> = raw
        .library
        .into_iter()
        .map(|lib| library(cx, lib, base_dir, &mut seen))
        .collect();
    if libraries.is_empty() {
        cx.error(
            "config-value",
            0..0,
            "the config declares no [[library]]",
            "add a [[library]] table with id and root",
        );
    }

    let envs = environments(cx, raw.env.unwrap_or_default(), &raw.env_keys, &seen);
    let max_mb = *corpus.max_file_mb.get_ref();
    if !(1..=4096).contains(&max_mb) {
        cx.error(
            "config-value",
            corpus.max_file_mb.span(),
            "max_file_mb must be between 1 and 4096",
            "the default is 64",
        );
    }
    if let Some((msg, help)) = out_dir_problem(
        &base_dir.join(corpus.out.get_ref()),
        corpus.out.get_ref(),
        path,
        &libraries,
    ) {
        cx.error("config-value", corpus.out.span(), msg, help);
    }
    let out_rel = corpus.out.into_inner();
    let rules = raw.normalize.unwrap_or_default();
    let aliases = recall_aliases(raw.aliases.as_ref(), raw.alias, &rules);
    let article_stems = raw.aliases.as_ref().is_none_or(|a| a.article_stems);
    let inspect = inspect_settings(cx, raw.inspect, &seen);
    let deploy = deploy_targets(cx, raw.deploy, &raw.deploy_keys);
    Config {
        path: path.to_path_buf(),
        shown: cx.file.clone(),
        base_dir: base_dir.to_path_buf(),
        name: corpus.name,
        out_dir: base_dir.join(out_rel),
        id_width,
        strict_ids: corpus.strict_ids,
        max_chunks: *chunking.max_chunks.get_ref(),
        chunking: ChunkSettings {
            max_chars: chunking.max_chars.into_inner(),
            min_chars: chunking.min_chars.into_inner(),
        },
        normalize: rules,
        embedding: EmbedSettings {
            provider: embedding.provider.into_inner(),
            dims: embedding.dims.into_inner(),
            model: embedding.model,
            account_id: embedding.account_id,
            max_chars: embedding.max_chars,
            command: embedding.command.unwrap_or_default(),
        },
        retrieval: raw.retrieval.unwrap_or_default(),
        aliases,
        article_stems,
        collisions: raw.collision,
        libraries,
        envs,
        max_file_bytes: max_mb.clamp(1, 4096) * 1024 * 1024,
        inspect,
        deploy,
    }
}

/// `[chunking]`: bounds of `max_chars`, `min_chars` and `max_chunks`.
fn check_chunking(cx: &mut Cx, chunking: &raw::RawChunking) {
    if chunking.max_chars.get_ref() < &500 {
        cx.error(
            "config-value",
            chunking.max_chars.span(),
            "max_chars must be at least 500",
            "the default is 7000",
        );
    }
    if chunking.min_chars.get_ref() >= chunking.max_chars.get_ref() {
        cx.error(
            "config-value",
            chunking.min_chars.span(),
            "min_chars must be below max_chars",
            "the default is 200",
        );
    }
    if !(1..=1_000_000).contains(chunking.max_chunks.get_ref()) {
        cx.error(
            "config-value",
            chunking.max_chunks.span(),
            "max_chunks must be between 1 and 1000000",
            "the default is 10000",
        );
    }
}

/// `[embedding]`: a known provider with what it needs, and `dims` in range.
fn check_embedding(cx: &mut Cx, embedding: &raw::RawEmbedding) {
    match embedding.provider.get_ref().as_str() {
        "hash" | "workers-ai" => {}
        "command" if embedding.command.as_ref().is_some_and(|c| !c.is_empty()) => {}
        "command" => cx.error("config-value", embedding.provider.span(), "the command provider needs `command = [\"program\", \"arg\", …]`", "give the argv of a process that reads {\"id\",\"text\"} lines and writes {\"id\",\"values\"} lines"),
        other => cx.error(
            "config-value",
            embedding.provider.span(),
            format!("unknown embedding provider `{other}`"),
            "providers: `hash` (offline feature hashing), `workers-ai` (Cloudflare REST), `command` (an external process)",
        ),
    }
    if !(8..=4096).contains(embedding.dims.get_ref()) {
        cx.error(
            "config-value",
            embedding.dims.span(),
            "dims must be between 8 and 4096",
            "the default is 256",
        );
    }
}

/// One `[[library]]`: its id (unique: `seen` holds the ids before it, with their spans), root,
/// globs, domains, URL switches and JSON records mapping.
fn library(
    cx: &mut Cx,
    lib: raw::RawLibrary,
    base_dir: &Path,
    seen: &mut BTreeMap<String, std::ops::Range<usize>>,
) -> Library {
    let id = lib.id.get_ref().clone();
    if !is_ascii_id(&id) {
        cx.error(
            "library-id",
            lib.id.span(),
            format!("library id `{id}` must be ASCII letters, digits, `-` or `_`"),
            "the id prefixes every doc_id and KV key; pick an ASCII name such as `seneksar`",
        );
    } else {
        check_name(cx, "library-id", "library id", &id, lib.id.span());
    }
    if let Some(prev) = seen.get(&id) {
        let prev_line = crate::diag::line_of(&cx.src, prev.start);
        cx.error(
            "library-id",
            lib.id.span(),
            format!("two libraries have the id `{id}` (the first is on line {prev_line})"),
            "library ids must be unique: rename one of them",
        );
    } else {
        seen.insert(id.clone(), lib.id.span());
    }
    let root_display = lib.root.get_ref().clone();
    let root = base_dir.join(&root_display);
    let allow_outside = lib.allow_outside_root.unwrap_or(false);
    if !root.is_dir() {
        cx.error(
            "library-root",
            lib.root.span(),
            format!(
                "library `{id}`: root `{root_display}` is not a directory (resolved to {})",
                root.display()
            ),
            "paths in corpus.toml are relative to the config file's directory",
        );
    } else if !allow_outside && !inside_corpus(base_dir, &root) {
        cx.error(
            "outside-corpus",
            lib.root.span(),
            format!("library `{id}`: root `{root_display}` leaves the corpus directory (the config's directory) through `..` or a symlink"),
            "move the sources under the config's directory, or set `allow_outside_root = true` on this library to read them there on purpose",
        );
    }
    if let Some(inc) = lib.include.as_ref().filter(|i| i.get_ref().is_empty()) {
        cx.error(
            "glob",
            inc.span(),
            format!("library `{id}` has `include = []`: it would read no file"),
            "list the files to read, such as `include = [\"**/*.md\"]`, or leave `include` out (it defaults to every file under the root)",
        );
    }
    let include_patterns: Vec<Spanned<String>> = lib.include.map_or_else(
        || vec![Spanned::new(0..0, "**/*".to_string())],
        Spanned::into_inner,
    );
    within_root(cx, "include", &include_patterns);
    let include = globs(cx, &include_patterns);
    let exclude_patterns = lib.exclude.unwrap_or_default();
    within_root(cx, "exclude", &exclude_patterns);
    let exclude = globs(cx, &exclude_patterns);
    let mut domains = Vec::new();
    if let Some(ds) = lib.domains.as_ref().filter(|d| d.is_empty()) {
        let _ = ds;
        cx.error(
            "domain",
            lib.id.span(),
            format!(
                "library `{id}` has `domains = []`: its documents would be in no lexical shard"
            ),
            "name at least one domain, or leave `domains` out (it defaults to the library id)",
        );
    }
    for d in lib
        .domains
        .unwrap_or_else(|| vec![Spanned::new(lib.id.span(), id.clone())])
    {
        if !is_ascii_id(d.get_ref()) {
            cx.error(
                "domain",
                d.span(),
                format!(
                    "domain `{}` must be ASCII letters, digits, `-` or `_`",
                    d.get_ref()
                ),
                "domains name lexical shards and KV keys",
            );
        } else {
            check_name(cx, "domain", "domain", d.get_ref(), d.span());
        }
        domains.push(d.into_inner());
    }
    let url = lib.url.map(|t| template_or_error(cx, t));
    let records = lib.records.map(|r| records(cx, r));
    if records.is_none()
        && let Some(f) = lib.format.as_ref().filter(|f| *f.get_ref() == Format::Json)
    {
        cx.error("json-mapping", f.span(), format!("library `{id}` reads JSON but has no [library.records] mapping"), "add `[library.records]` with at least `text` (and `select` for files with many records)");
    }
    if records.is_some()
        && lib
            .format
            .as_ref()
            .is_some_and(|f| *f.get_ref() != Format::Json)
    {
        let f = lib.format.as_ref().unwrap();
        cx.error(
            "config-value",
            f.span(),
            "`records` needs format = \"json\"",
            "remove `format` or set it to json",
        );
    }
    Library {
        id,
        root,
        root_display,
        include,
        include_patterns: include_patterns
            .into_iter()
            .map(Spanned::into_inner)
            .collect(),
        exclude,
        exclude_patterns: exclude_patterns
            .into_iter()
            .map(Spanned::into_inner)
            .collect(),
        format: lib.format.map(Spanned::into_inner),
        domains,
        url: url.flatten(),
        url_strip_order: lib.url_strip_order.unwrap_or(false),
        url_index: match lib.url_index {
            None | Some(raw::UrlIndex::On(true)) => default_url_index(),
            Some(raw::UrlIndex::On(false)) => Vec::new(),
            Some(raw::UrlIndex::More(more)) => {
                let mut names = default_url_index();
                names.extend(more);
                names
            }
        },
        records: records.flatten(),
        frontmatter_metadata: lib.frontmatter_metadata.unwrap_or_default(),
        allow_outside_root: allow_outside,
        zero_config: None,
    }
}

/// `[env.NAME]`: each environment's libraries, known ones (`seen`), each once.
fn environments(
    cx: &mut Cx,
    raw_envs: BTreeMap<String, raw::RawEnv>,
    env_keys: &BTreeMap<String, std::ops::Range<usize>>,
    seen: &BTreeMap<String, std::ops::Range<usize>>,
) -> BTreeMap<String, Vec<String>> {
    let mut envs = BTreeMap::new();
    for (name, env) in raw_envs {
        let span = env_keys.get(&name).cloned().unwrap_or(0..0);
        check_name(cx, "env", "environment name", &name, span);
        let mut ids = Vec::new();
        let mut dup = BTreeSet::new();
        for l in env.libraries {
            if !seen.contains_key(l.get_ref()) {
                cx.error(
                    "env",
                    l.span(),
                    format!(
                        "environment `{name}` names unknown library `{}`",
                        l.get_ref()
                    ),
                    format!(
                        "known libraries: {}",
                        seen.keys().cloned().collect::<Vec<_>>().join(", ")
                    ),
                );
            }
            if dup.insert(l.get_ref().clone()) {
                ids.push(l.into_inner());
            }
        }
        envs.insert(name, ids);
    }
    envs
}

/// The recall aliases: the shipped table unless `[aliases] shipped = false`, plus `[[alias]]`.
fn recall_aliases(
    settings: Option<&raw::RawAliases>,
    extra: Vec<crate::normalize::aliases::Alias>,
    rules: &Rules,
) -> crate::normalize::aliases::AliasTable {
    let mut alias_list = if settings.is_none_or(|a| a.shipped) {
        crate::normalize::aliases::shipped()
    } else {
        Vec::new()
    };
    alias_list.extend(extra);
    crate::normalize::aliases::AliasTable::new(alias_list, rules)
}

fn deploy_targets(
    cx: &mut Cx,
    raw: Option<BTreeMap<String, raw::RawDeploy>>,
    keys: &BTreeMap<String, std::ops::Range<usize>>,
) -> BTreeMap<String, DeployTarget> {
    let mut out = BTreeMap::new();
    for (name, t) in raw.unwrap_or_default() {
        let key = keys.get(&name).cloned().unwrap_or(0..0);
        if !check_name(cx, "deploy-target", "deploy target name", &name, key) {
            continue;
        }
        let span = t.indexes.span();
        let idx = t.indexes.into_inner();
        let ok_name = |s: &str| {
            !s.is_empty()
                && s.len() <= 64
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        };
        if idx.len() != 2 || idx[0] == idx[1] || !idx.iter().all(|i| ok_name(i)) {
            cx.error("config-value", span, format!("[deploy.{name}] indexes must name two distinct Vectorize indexes"), "write e.g. indexes = [\"corpus-blue\", \"corpus-green\"] (letters, digits, - and _, at most 64 bytes)");
            continue;
        }
        let ns_span = t.kv_namespace_id.span();
        let ns = t.kv_namespace_id.into_inner();
        if !ok_name(&ns) {
            cx.error(
                "config-value",
                ns_span,
                format!("[deploy.{name}] kv_namespace_id {ns:?} is not a namespace ID"),
                "copy the KV namespace ID from the Cloudflare dashboard",
            );
            continue;
        }
        let [a, b]: [String; 2] = idx.try_into().expect("two indexes");
        out.insert(
            name,
            DeployTarget {
                account_id: t.account_id,
                indexes: [a, b],
                kv_namespace_id: ns,
                prefix: t.prefix.unwrap_or_default(),
            },
        );
    }
    out
}

fn inspect_settings(
    cx: &mut Cx,
    raw: Option<raw::RawInspect>,
    libraries: &BTreeMap<String, std::ops::Range<usize>>,
) -> crate::inspect::InspectSettings {
    let mut s = crate::inspect::InspectSettings::default();
    let Some(raw) = raw else { return s };
    if let Some(p) = raw.boilerplate_percent {
        if !(*p.get_ref() > 0.0 && *p.get_ref() <= 100.0) {
            cx.error(
                "config-value",
                p.span(),
                "boilerplate_percent must be above 0 and at most 100",
                "the default is 20",
            );
        }
        s.boilerplate_percent = p.into_inner();
    }
    s.domains = raw.domains.unwrap_or_default();
    if let Some(n) = raw.boilerplate_min_chunks {
        s.boilerplate_min_chunks = n;
    }
    if let Some(max) = raw.max {
        let span = max.span();
        for (name, n) in max.into_inner() {
            if !crate::inspect::CHECKS.iter().any(|(c, _)| *c == name) {
                let names: Vec<&str> = crate::inspect::CHECKS.iter().map(|(c, _)| *c).collect();
                cx.error(
                    "config-value",
                    span.clone(),
                    format!("unknown inspect check `{name}`"),
                    format!("checks are: {}", names.join(", ")),
                );
            }
            s.max.insert(name, n);
        }
    }
    if let Some(allow) = raw.allow {
        let span = allow.span();
        for (lib, lines) in allow.into_inner() {
            if !libraries.contains_key(&lib) {
                cx.error(
                    "config-value",
                    span.clone(),
                    format!("[inspect.allow] names unknown library `{lib}`"),
                    format!(
                        "known libraries: {}",
                        libraries.keys().cloned().collect::<Vec<_>>().join(", ")
                    ),
                );
            }
            s.allow.insert(lib, lines);
        }
    }
    s
}

fn globs(cx: &mut Cx, patterns: &[Spanned<String>]) -> GlobSet {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        match Glob::new(p.get_ref()) {
            Ok(g) => {
                b.add(g);
            }
            Err(e) => cx.error(
                "glob",
                p.span(),
                format!("bad glob `{}`: {}", p.get_ref(), e.kind()),
                "globs use `*`, `**`, `?`, `[..]` and `{a,b}`, relative to the library root",
            ),
        }
    }
    b.build().unwrap_or_else(|_| GlobSet::empty())
}

/// Globs match paths relative to the library root, which never start with `/` or hold a `..`
/// component: a pattern that does could only match nothing (an `include` would build an empty
/// library), so it is refused with its span rather than left to silently select nothing.
fn within_root(cx: &mut Cx, key: &str, patterns: &[Spanned<String>]) {
    for p in patterns {
        let pat = p.get_ref();
        // Alternatives (`{a,b}`) are patterns of their own: `{/etc/**,x}` or `{..,x}/**` too.
        let b = pat.as_bytes();
        let drive = b.len() > 2 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'/';
        let absolute = pat.starts_with('/') || pat.contains("{/") || pat.contains(",/") || drive;
        let climbs = pat.split(['/', '{', '}', ',']).any(|c| c == "..");
        let why = if absolute {
            "is absolute"
        } else if climbs {
            "climbs out of the root with `..`"
        } else {
            continue;
        };
        cx.error(
            "glob",
            p.span(),
            format!("{key} pattern `{pat}` {why}: globs are relative to the library root and match only files under it"),
            "write the pattern relative to the library's `root` (such as `**/*.md`); to read another directory, point `root` at it (with `allow_outside_root = true` if it lies outside the config's directory)",
        );
    }
}

/// The index file stems every site generator serves as their folder's page.
pub const URL_INDEX_NAMES: [&str; 3] = ["index", "README", "_index"];

fn default_url_index() -> Vec<String> {
    URL_INDEX_NAMES.iter().map(|s| s.to_string()).collect()
}

fn template_or_error(cx: &mut Cx, t: Spanned<String>) -> Option<Template> {
    match Template::parse(t.get_ref()) {
        Ok(tpl) => Some(tpl),
        Err(e) => {
            cx.error(
                "template",
                t.span(),
                format!("bad template `{}`: {e}", t.get_ref()),
                "use {name} for a variable, {{ and }} for braces",
            );
            None
        }
    }
}

fn path_steps(s: &str) -> Vec<String> {
    if s.is_empty() || s == "$" {
        return Vec::new();
    }
    s.split('.').map(str::to_string).collect()
}

fn records(cx: &mut Cx, r: raw::RawRecords) -> Option<RecordMapping> {
    let id = r.id.and_then(|t| template_or_error(cx, t));
    let url = r.url.and_then(|t| template_or_error(cx, t));
    let id_match = match r.id_match {
        None => None,
        Some(m) => match regex::Regex::new(m.pattern.get_ref()) {
            Ok(re) => Some((m.field, re)),
            Err(e) => {
                cx.error(
                    "regex",
                    m.pattern.span(),
                    format!("bad pattern: {e}"),
                    "id_match.pattern is a Rust regex with named groups (?<name>..)",
                );
                None
            }
        },
    };
    if let Some(d) = &r.date {
        let _ = d; // validated per record: the date's value comes from the data
    }
    Some(RecordMapping {
        select: path_steps(&r.select),
        id,
        id_match,
        title: r.title,
        text: r.text.map(|t| t.into_vec()).unwrap_or_default(),
        url,
        date: r.date,
        sections: r.sections.map(|s| SectionMapping {
            select: path_steps(&s.select),
            title: s.title,
            text: s.text.map(|t| t.into_vec()).unwrap_or_default(),
            item_text: s.item_text.unwrap_or_else(|| "text".to_string()),
            item_label: s.item_label,
        }),
        metadata: r.metadata.unwrap_or_default(),
    })
}
