//! `corpus.toml`: the declarative description of a corpus. Parsing reports every problem it
//! finds in one run, each pointing into the file. Paths in the config resolve relative to the
//! config file's directory.

mod build;
mod generator_site;
mod hugo_params;
mod jekyll;
pub(crate) mod keys;
mod raw;
mod records;
mod zero_config;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::GlobSet;
use serde::Serialize;

pub(crate) use crate::chunk::ChunkSettings;
use crate::diag::{Problem, Problems};
pub(crate) use crate::embed::EmbedSettings;
pub(crate) use crate::extract::{Format, RecordMapping, SectionMapping};
use crate::normalize::Rules;
pub(crate) use crate::template::Template;

/// A pair of distinct words and whether normalization may merge them (`askzico rules check`).
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Collision {
    pub a: String,
    pub b: String,
    pub accept: bool,
    pub why: String,
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
    /// How the site names headings that have no explicit id: the section links of citations.
    pub anchors: crate::chunk::AnchorRule,
    /// Top-level metadata fields a query may filter on, kept in the version's tables.
    pub filterable: Vec<String>,
    /// File stems (compared ignoring ASCII case) whose URL is their folder's; empty: none.
    pub url_index: Vec<String>,
    pub records: Option<RecordMapping>,
    /// Frontmatter keys copied into chunk metadata.
    pub frontmatter_metadata: Vec<String>,
    /// Frontmatter keys whose text the page shows: evidence before the body, in this order.
    pub frontmatter_text: Vec<String>,
    /// Markdown sources are Liquid templates (Jekyll, Eleventy): template code is not evidence.
    pub liquid: bool,
    /// The site generator whose Markdown dialect the pages are written in.
    pub generator: crate::extract::Generator,
    /// How a slug that is not an ID as it is becomes one: `transliterate` by default for an
    /// Obsidian or Quartz vault, `escape` elsewhere.
    pub slugs: crate::identity::SlugStyle,
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
    /// Markdown, MDX and HTML files under `dir` the walk left out: ignored by an ignore file or
    /// inside a hidden folder (paths relative to `dir`); a `node_modules` folder counts as one
    /// entry (`name/`), its files unlisted.
    pub left_out: Vec<String>,
    /// Markdown, MDX and HTML files under `dir` outside the content root (`layout`): a site's
    /// other folders (a blog beside `docs`), paths relative to `dir`.
    pub outside_root: Vec<String>,
    /// GitBook tables of contents (`SUMMARY.md`, links only) at the top of `dir` or of the
    /// content root, left out: navigation, not content (paths relative to `dir`).
    pub tables_of_contents: Vec<String>,
    /// The directory's name has no ASCII letter or digit: the library id was transliterated from
    /// it, with a hash of the name.
    pub id_transliterated: bool,
    /// The site generator `dir` shows by its own files (`Jekyll`, `mdBook`, `Quartz`, …), if any.
    pub generator: Option<&'static str>,
    /// Markdown, MDX and HTML files under `dir` that `generator` does not publish as pages (its
    /// layouts, includes and data, its config's `exclude:`), paths relative to `dir`.
    pub unpublished: Vec<String>,
    /// The drafts `generator` keeps apart (Jekyll's `_drafts/`), paths relative to `dir`: left
    /// out and counted with the drafts the build finds by their frontmatter.
    pub drafts: Vec<String>,
    /// What could not be read of the site's own config, reported with the build's problems.
    pub warnings: Vec<SiteWarning>,
}

/// A warning about a site's own files found while zero config read the directory (a
/// malformed `_config.yml`): `discover` reports it with the build's problems.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteWarning {
    pub code: &'static str,
    /// The file, relative to the sources directory.
    pub file: String,
    pub message: String,
    pub help: String,
}

/// How a source is left out of a build, as help texts say it: `exclude` in `corpus.toml` (the
/// phrases below), which a zero-config build (`--sources DIR`) has not; there an ignore file
/// does it (`walk::site_walk` honours `.ignore` and `.gitignore`).
const EXCLUDE_IN_CONFIG: [&str; 3] = [
    "exclude it in corpus.toml",
    "exclude the file in corpus.toml",
    "exclude this directory in corpus.toml",
];

impl Config {
    /// Help texts that tell to exclude a source in `corpus.toml` say what works in a
    /// zero-config build instead: a `.ignore` file in the sources directory.
    pub fn help_for_mode(&self, problems: &mut Problems) {
        let Some(zc) = self.libraries.iter().find_map(|l| l.zero_config.as_ref()) else {
            return;
        };
        let instead = format!(
            "list its path in a .ignore file in {} (as in .gitignore)",
            zc.dir.display()
        );
        for p in &mut problems.0 {
            if let Some(help) = &mut p.help {
                for phrase in EXCLUDE_IN_CONFIG {
                    if help.contains(phrase) {
                        *help = help.replace(phrase, &instead);
                    }
                }
            }
        }
    }
}

impl SiteWarning {
    pub fn problem(&self) -> Problem {
        Problem::warning(self.code, self.message.clone())
            .in_file(self.file.clone())
            .help(self.help.clone())
    }
}

impl Library {
    /// The name a source file of this library has in diagnostics: its path relative to the
    /// config file's directory (`compile::LibrarySettings::display_name`).
    pub fn display_name(&self, rel: &str) -> String {
        self.compile_settings().display_name(rel)
    }

    /// What compiling a source of this library reads of it.
    pub fn compile_settings(&self) -> crate::compile::LibrarySettings<'_> {
        crate::compile::LibrarySettings {
            id: &self.id,
            root_display: &self.root_display,
            url: self.url.as_ref(),
            url_strip_order: self.url_strip_order,
            url_index: &self.url_index,
            anchors: self.anchors,
            slugs: self.slugs,
            domains: &self.domains,
            extract: crate::extract::ExtractSettings {
                library: &self.id,
                frontmatter_metadata: &self.frontmatter_metadata,
                frontmatter_text: &self.frontmatter_text,
                records: self.records.as_ref(),
                liquid: self.liquid,
                generator: self.generator,
            },
        }
    }

    /// The values of this library that shape output, for the settings fingerprint (and every
    /// cache key: the compile cache, the build stamp, the resume state).
    pub fn shape(&self) -> serde_json::Value {
        // Every field is named: a new one does not compile until it is recorded here or said
        // not to shape output (the property test of `tests/incremental.rs` changes them all).
        let Library {
            id,
            include_patterns,
            exclude_patterns,
            format,
            domains,
            url,
            url_strip_order,
            url_index,
            records,
            frontmatter_metadata,
            frontmatter_text,
            liquid,
            generator,
            slugs,
            anchors,
            filterable,
            // Which files are read: every build lists them again, and each one's library,
            // path and bytes are inputs of their own (the globs are recorded as patterns).
            root: _,
            include: _,
            exclude: _,
            allow_outside_root: _,
            zero_config: _,
            // How messages name the root.
            root_display: _,
        } = self;
        let mut shape = serde_json::json!({
            "id": id,
            "include": include_patterns,
            "exclude": exclude_patterns,
            "format": format,
            "domains": domains,
            "url": url.as_ref().map(|t| t.source()),
            "records": records,
            "frontmatter_metadata": frontmatter_metadata,
        });
        // The URL switches are recorded only when set, so a config that does not use them keeps
        // the fingerprint (and corpus version) it had before they existed.
        if *url_strip_order {
            shape["url_strip_order"] = true.into();
        }
        if *liquid {
            shape["liquid"] = true.into();
        }
        if !frontmatter_text.is_empty() {
            shape["frontmatter_text"] = serde_json::json!(frontmatter_text);
        }
        if *generator != crate::extract::Generator::Plain {
            shape["generator"] = serde_json::json!(generator);
        }
        if *slugs != crate::identity::SlugStyle::Escape {
            shape["slugs"] = serde_json::json!(slugs);
        }
        if *anchors != crate::chunk::AnchorRule::Explicit {
            shape["anchors"] = serde_json::json!(anchors);
        }
        if !filterable.is_empty() {
            shape["filterable"] = serde_json::json!(filterable);
        }
        if *url_index != default_url_index() {
            shape["url_index"] = serde_json::json!(url_index);
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
    /// The bilingual glossary of questions: the shipped terms plus `[[glossary]]` (query side
    /// only, never part of a build).
    pub glossary: crate::normalize::glossary::Glossary,
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
    /// KV writes one deploy may make without `--confirm-writes`.
    pub max_kv_writes: Option<usize>,
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

    /// A command's config: the sources directory's (`--sources DIR`, its output in `out` when
    /// given) when one is given, else the config file's (`--config`).
    pub fn load_or_sources(
        config: &Path,
        sources: Option<&Path>,
        out: Option<&Path>,
    ) -> Result<Config, Problems> {
        match sources {
            Some(dir) => Config::for_sources(dir, out),
            None => Config::load(config),
        }
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
        let cfg = build::build(&mut cx, raw, base_dir, path);
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
            mdbook_libraries: self
                .libraries
                .iter()
                .filter(|l| l.generator == crate::extract::Generator::Mdbook)
                .map(|l| l.id.clone())
                .collect(),
            settings: self.inspect.clone(),
        }
    }

    /// What a query over a built version needs (`query`, `eval`, `rules check`).
    pub(crate) fn search_settings(&self) -> crate::retrieve::SearchSettings<'_> {
        crate::retrieve::SearchSettings {
            ranking: askzico_core::search::Settings {
                retrieval: &self.retrieval,
                normalize: &self.normalize,
                aliases: &self.aliases,
                article_stems: self.article_stems,
                glossary: &self.glossary,
            },
            embedding: &self.embedding,
        }
    }

    /// The query settings a deployed version carries (`askzico_core::deployed::QuerySettings`):
    /// a runtime answers with them as `askzico query` does with this config.
    pub(crate) fn query_settings(&self) -> askzico_core::deployed::QuerySettings {
        let e = &self.embedding;
        let model = match e.provider.as_str() {
            "workers-ai" => Some(
                e.model
                    .clone()
                    .unwrap_or_else(|| crate::embed::WORKERS_AI_MODEL.to_string()),
            ),
            "hash" => None,
            _ => e.model.clone(),
        };
        askzico_core::deployed::QuerySettings::of(
            &self.search_settings().ranking,
            askzico_core::deployed::EmbedderSpec {
                provider: e.provider.clone(),
                dims: e.dims,
                model,
            },
        )
    }

    /// What compiling a source reads of these settings (its library's: `Library::compile_settings`).
    /// With the libraries' shapes, this is all of the config a build's output depends on
    /// (`compile::settings_values` records it).
    pub fn compile_settings(&self) -> crate::compile::CompileSettings<'_> {
        // Every field is named: a new one does not compile until it is passed to the build
        // (and recorded in the settings) or said not to shape output.
        let Config {
            chunking,
            normalize,
            aliases,
            article_stems,
            embedding,
            id_width,
            strict_ids,
            max_chunks,
            // Shape output through `Library::shape` (each enabled library's) and the manifest's
            // `environment`, which names the libraries an environment enables.
            libraries: _,
            envs: _,
            // The manifest's `corpus` field (and part of the build stamp): not an artifact's.
            name: _,
            // Refuses a file over it, never changes what a file compiles to.
            max_file_bytes: _,
            // Where things are, and how messages name the config.
            path: _,
            shown: _,
            base_dir: _,
            out_dir: _,
            // Read by `query`, `eval`, `rules check`, `inspect` and `deploy`, never by a build.
            retrieval: _,
            glossary: _,
            collisions: _,
            inspect: _,
            deploy: _,
        } = self;
        crate::compile::CompileSettings {
            chunking,
            normalize,
            aliases,
            article_stems: *article_stems,
            embedding,
            id_width: *id_width,
            strict_ids: *strict_ids,
            max_chunks: *max_chunks,
        }
    }

    /// A chunk record's `source` (`<library>/<rel>[#record]`) as diagnostics name files.
    pub fn source_display(&self, source: &str) -> String {
        let (lib_id, rest) = source.split_once('/').unwrap_or(("", source));
        match self.library(lib_id) {
            Some(lib) => lib.display_name(rest),
            None => source.to_string(),
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
            Some(refusal) => Err(Problem::error("out-dir", refusal.message)
                .in_file(format!("--out {shown}"))
                .help(refusal.help)),
        }
    }

    /// The output directory, overridable on the command line.
    pub fn out_dir_or(&self, over: Option<&Path>) -> PathBuf {
        over.map(Path::to_path_buf)
            .unwrap_or_else(|| self.out_dir.clone())
    }
}

/// Why an output directory is refused, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OutDirRefusal {
    pub message: String,
    pub help: String,
}

/// Why `out` cannot be the output directory of a config at `config` with these libraries: it is (or sits under) a file, it is or holds a library's root, or it holds
/// the config. `shown` is `out` as the user wrote it. An output directory *inside* a root is
/// fine (discovery skips it); `claim` refuses it when it already holds anything else.
pub(crate) fn out_dir_problem(
    out: &Path,
    shown: &str,
    config: &Path,
    libraries: &[Library],
) -> Option<OutDirRefusal> {
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
        return Some(OutDirRefusal::new(
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
            return Some(OutDirRefusal::new(
                format!(
                    "the output directory `{shown}` is the root of library `{}`",
                    lib.id
                ),
                APART.to_string(),
            ));
        }
        if root.starts_with(&resolved) {
            return Some(OutDirRefusal::new(
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
        return Some(OutDirRefusal::new(
            format!(
                "the output directory `{shown}` holds the config {}",
                config.display()
            ),
            APART.to_string(),
        ));
    }
    None
}

impl OutDirRefusal {
    fn new(message: String, help: String) -> OutDirRefusal {
        OutDirRefusal { message, help }
    }
}

/// Parsing context: the config text and the problems found so far.
pub(crate) struct Cx {
    pub src: Arc<str>,
    pub file: String,
    pub problems: Problems,
}

impl Cx {
    pub(crate) fn error(
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

/// The index file stems every site generator serves as their folder's page.
pub(crate) const URL_INDEX_NAMES: [&str; 3] = ["index", "README", "_index"];

pub(super) fn default_url_index() -> Vec<String> {
    URL_INDEX_NAMES.iter().map(|s| s.to_string()).collect()
}
