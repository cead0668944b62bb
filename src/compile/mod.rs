//! compile: the pure per-file core of a build — a source file's bytes to its built documents
//! (extract → chunk → identify → normalize → inline embed), and the values of a build that are
//! functions of the config alone (the settings fingerprint, duplicate IDs). No I/O, no clock,
//! no engine types: the engine (`engine`, through the `db` queries) calls it.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::artifacts::manifest::fingerprint;
use crate::artifacts::{BuiltChunk, BuiltDoc};
use crate::chunk::ChunkSettings;
use crate::diag::Problem;
use crate::embed::{EmbedSettings, HashEmbedder};
use crate::extract::{self, Document, ExtractSettings, Format};
use crate::identity::{self, MAX_ID_BYTES, file_slug};
use crate::normalize::aliases::AliasTable;
use crate::normalize::{NORMALIZATION_UNICODE_VERSION, RULES_VERSION, Rules};
use crate::template::Template;
use crate::text::Text;
use crate::timings::{Stage, timed};

pub(crate) mod url;

/// Bumped whenever extraction or chunking output changes for the same input.
pub(crate) const PIPELINE_VERSION: u32 = 3;

/// What compiling reads of the corpus settings (`config` builds it: `Config::compile_settings`).
#[derive(Debug, Clone, Copy)]
pub struct CompileSettings<'a> {
    pub chunking: &'a ChunkSettings,
    pub normalize: &'a Rules,
    /// Recall aliases, recorded in the settings fingerprint.
    pub aliases: &'a AliasTable,
    /// Article stems as additive lexical tokens.
    pub article_stems: bool,
    pub embedding: &'a EmbedSettings,
    pub id_width: usize,
    /// A slug that is not an ID as it is is an error instead of being mapped.
    pub strict_ids: bool,
    /// Most chunks one document may make.
    pub max_chunks: usize,
}

/// What compiling reads of a source's library (`config` builds it: `Library::compile_settings`).
#[derive(Debug, Clone, Copy)]
pub struct LibrarySettings<'a> {
    pub id: &'a str,
    /// The library's root as written in the config, for messages.
    pub root_display: &'a str,
    /// The `url` template.
    pub url: Option<&'a Template>,
    /// URLs drop numeric ordering prefixes from path segments (`01-intro` → `intro`).
    pub url_strip_order: bool,
    /// File stems (compared ignoring ASCII case) whose URL is their folder's.
    pub url_index: &'a [String],
    /// How the site names headings without an explicit id (the sections' links).
    pub anchors: crate::chunk::AnchorRule,
    /// How a slug that is not an ID as it is becomes one.
    pub slugs: identity::SlugStyle,
    /// The domains of a document that names none.
    pub domains: &'a [String],
    pub extract: ExtractSettings<'a>,
}

impl LibrarySettings<'_> {
    /// The name a source file has in diagnostics (the `file` field): its path relative to the
    /// config file's directory, as the library's `root` is written there
    /// (`sources/articles/a.md`). The config itself is named as passed with `--config`. One
    /// style everywhere, so an editor or CI annotation opens the file from the project
    /// directory.
    pub fn display_name(&self, rel: &str) -> String {
        let root = self.root_display.trim_end_matches('/');
        if root.is_empty() || root == "." {
            rel.to_string()
        } else {
            format!("{root}/{rel}")
        }
    }
}

/// Pure per-file compile: a source file's bytes to its built documents.
/// `hash` embeds inline when the offline provider is configured; other providers fill vectors
/// later, in batches, through the on-disk cache (`db::shard_vectors`).
pub fn compile_file(
    cfg: &CompileSettings,
    lib: &LibrarySettings,
    rel: &str,
    bytes: &[u8],
    format: Format,
    includes: &extract::Includes,
    hash: Option<&HashEmbedder>,
) -> (Vec<BuiltDoc>, Vec<Problem>) {
    let display = lib.display_name(rel);
    let ex = timed(Stage::Extract, || {
        extract::extract(&display, rel, bytes, format, &lib.extract, includes)
    });
    let mut problems = ex.problems;
    let mut docs: Vec<BuiltDoc> = Vec::with_capacity(ex.docs.len());
    // Where each doc_id of this file came from, to name both records of a duplicate.
    let mut first: BTreeMap<String, Option<String>> = BTreeMap::new();
    for doc in ex.docs {
        let position = doc.position.clone();
        match build_doc(cfg, lib, rel, &display, doc, hash) {
            Ok(d) => match first.get(d.doc_id.as_str()) {
                Some(prev) => problems.push(duplicate_in_file(
                    &display,
                    d.doc_id.as_str(),
                    prev.as_deref(),
                    position.as_deref(),
                )),
                None => {
                    first.insert(d.doc_id.as_str().to_string(), position);
                    docs.push(d);
                }
            },
            Err(p) => problems.push(p),
        }
    }
    (docs, problems)
}

/// Two documents of one file (JSON records) with one doc_id: both records are named.
fn duplicate_in_file(
    display: &str,
    id: &str,
    first: Option<&str>,
    second: Option<&str>,
) -> Problem {
    let (a, b) = (
        first.unwrap_or("a document"),
        second.unwrap_or("another document"),
    );
    Problem::error("duplicate-id", format!("doc_id `{id}` is produced twice in this file: by {a} and by {b}"))
        .in_file(display.to_string())
        .help("IDs must be unique: make the records `id` template include a distinguishing field (e.g. `$index` or the url's fragment)")
}

/// A slug (or a path) as a URL path: readable (`c++` stays `c++`, Arabic stays Arabic, as browsers show it),
/// with only what a URL path cannot hold percent-encoded (whitespace, controls, `"#%<>?\^`{|}`).
fn url_path(slug: &str) -> String {
    let mut out = String::with_capacity(slug.len());
    for (i, seg) in slug.split('/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        // A `.` or `..` segment would be resolved away by every browser.
        if seg == "." || seg == ".." {
            out.push_str(&"%2E".repeat(seg.len()));
            continue;
        }
        url_segment(seg, &mut out);
    }
    out
}

fn url_segment(seg: &str, out: &mut String) {
    use std::fmt::Write;
    for c in seg.chars() {
        if c.is_whitespace() || c.is_control() || "\"#%<>?\\^`{|}".contains(c) {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                let _ = write!(out, "%{b:02X}");
            }
        } else {
            out.push(c);
        }
    }
}

fn build_doc(
    cfg: &CompileSettings,
    lib: &LibrarySettings,
    rel: &str,
    display: &str,
    doc: Document,
    hash: Option<&HashEmbedder>,
) -> Result<BuiltDoc, Problem> {
    let fail = Fail {
        display,
        position: doc.position.as_deref(),
        line: doc.line,
    };
    let fail = |msg: String, help: &str| fail.problem(msg, help);
    let docusaurus = lib.extract.generator == crate::extract::Generator::Docusaurus;
    // A Docusaurus page's URL comes from its path (or its `slug`), never from its `id`.
    let from_path = doc.record_slug.is_none() && (doc.slug_override.is_none() || docusaurus);
    let slug = match (&doc.record_slug, &doc.slug_override) {
        (Some(s), _) => s.clone(),
        // Docusaurus names a document by its folder and its front matter `id`.
        (None, Some(id)) if docusaurus && !id.contains('/') => match rel.rsplit_once('/') {
            Some((dir, _)) => format!("{}/{id}", without_order(dir)),
            None => id.clone(),
        },
        (None, Some(s)) => s.clone(),
        // Docusaurus names a page by its path without ordering prefixes (`01-guide/02-intro`
        // is `guide/intro`).
        (None, None) if docusaurus => without_order(&file_slug(rel)),
        (None, None) => file_slug(rel),
    };
    // Chunk first: a valid slug keeps its ID exactly when its chunk IDs fit, as they always did.
    let spans = timed(Stage::Chunk, || {
        crate::chunk::chunk_linked(&doc.body, cfg.chunking, lib.anchors)
    });
    let doc_id = doc_id(cfg, lib, &doc, &slug, spans.len(), &fail)?;
    let source = match &doc.record_slug {
        Some(s) => format!("{}/{rel}#{s}", lib.id),
        None => format!("{}/{rel}", lib.id),
    };
    let url = doc_url(lib, rel, &slug, from_path, &doc, &fail)?;
    let domains = doc_domains(&doc, lib, &fail)?;
    if spans.len() > cfg.max_chunks {
        return Err(fail(
            format!(
                "`{doc_id}` would make {} chunks, over the limit of {} per document",
                spans.len(),
                cfg.max_chunks
            ),
            "split the document, exclude it, or raise `max_chunks` under [chunking] in corpus.toml",
        ));
    }
    let chunks = built_chunks(cfg, &doc_id, &doc, spans, hash);
    Ok(BuiltDoc {
        doc_id,
        library: lib.id.to_string(),
        source,
        title: doc.title.unwrap_or_default(),
        url,
        domains,
        metadata: doc.metadata,
        chunks,
    })
}

/// Where a document's problem is: its file, its record, its line.
struct Fail<'a> {
    display: &'a str,
    position: Option<&'a str>,
    line: Option<usize>,
}

impl Fail<'_> {
    /// An `identity` error about this document.
    fn problem(&self, msg: String, help: &str) -> Problem {
        let msg = match self.position {
            Some(pos) => format!("{pos}: {msg}"),
            None => msg,
        };
        let mut p = Problem::error("identity", msg)
            .in_file(self.display.to_string())
            .help(help.to_string());
        if let Some(l) = self.line {
            p = p.at_line(l);
        }
        p
    }
}

/// A document's ID from its slug, sized for its `chunks` chunks (and the most a document may
/// have); with `strict_ids`, a slug that is not an ID as it is refused.
fn doc_id(
    cfg: &CompileSettings,
    lib: &LibrarySettings,
    doc: &Document,
    slug: &str,
    chunks: usize,
    fail: &impl Fn(String, &str) -> Problem,
) -> Result<identity::DocId, Problem> {
    let digits = identity::index_digits(chunks, cfg.id_width);
    let reserve = identity::index_digits(cfg.max_chunks, cfg.id_width);
    let (doc_id, form) =
        identity::map_doc_id(lib.id, slug, digits, reserve, lib.slugs).map_err(|e| {
            fail(
                format!("cannot make a doc_id from slug `{slug}`: {e}"),
                if doc.record_slug.is_some() {
                    "make the records `id` template give every record a non-empty value"
                } else {
                    "give the library a shorter `id` in corpus.toml"
                },
            )
        })?;
    if cfg.strict_ids && form != identity::SlugForm::Same {
        let why = match identity::check_slug(slug) {
            Err(e) => e.to_string(),
            Ok(()) => {
                format!("its chunk IDs would be over the {MAX_ID_BYTES}-byte Vectorize limit")
            }
        };
        return Err(fail(
            format!("slug `{slug}` is not an ID as it is ({why}); strict_ids refuses `{doc_id}`"),
            if doc.record_slug.is_some() {
                "set a shorter ASCII `id` template under [library.records], or drop `strict_ids`"
            } else {
                "add an ASCII `id:` (letters, digits, `-`, `_`, `.`, `/`) to the frontmatter, rename the file, or drop `strict_ids`"
            },
        ));
    }
    Ok(doc_id)
}

/// `path` with each segment's ordering prefix dropped (`identity::strip_order`).
fn without_order(path: &str) -> String {
    path.split('/')
        .map(crate::identity::strip_order)
        .collect::<Vec<_>>()
        .join("/")
}

/// A document's URL: its own (frontmatter, record), its library's template, or
/// `/<library>/<page path>`; absolute or site-relative, without spaces, at most 2048 bytes.
fn doc_url(
    lib: &LibrarySettings,
    rel: &str,
    slug: &str,
    from_path: bool,
    doc: &Document,
    fail: &impl Fn(String, &str) -> Problem,
) -> Result<String, Problem> {
    let url = match (&doc.url, lib.url) {
        (Some(u), _) => u.clone(),
        (None, Some(t)) => url::render(t, lib, rel, slug, from_path, &doc.fields).map_err(
            |missing| {
                fail(
                    format!(
                        "url template `{}` needs `{}`, which this document lacks",
                        t.source(),
                        missing.variable
                    ),
                    "use {slug}, {path}, {dir}, {stem}, {parent}, {library}, a frontmatter field every document has, or alternatives such as {fm.slug|stem}",
                )
            },
        )?,
        (None, None) if let Some(p) = plain_permalink(&doc.fields) => p.to_string(),
        (None, None) => {
            let parts = url::PathParts::new(rel, lib);
            let mut page = parts.page;
            // Docusaurus's front matter `slug`: from the docs root when it starts with `/`,
            // else in the page's folder.
            if lib.extract.generator == crate::extract::Generator::Docusaurus
                && let Some(s) = doc.fields.get("slug").and_then(|v| v.as_str())
                && !s.trim().is_empty()
            {
                let s = s.trim();
                page = match s.strip_prefix('/') {
                    Some(abs) => abs.trim_end_matches('/').to_string(),
                    None if parts.dir.is_empty() => s.trim_end_matches('/').to_string(),
                    None => format!("{}/{}", parts.dir, s.trim_end_matches('/')),
                };
            }
            let slug = if from_path { page.as_str() } else { slug };
            format!("/{}/{}", lib.id, url_path(slug))
        }
    };
    let scheme_ok = url.starts_with("https://")
        || url.starts_with("http://")
        || (url.starts_with('/') && !url.starts_with("//"));
    if !scheme_ok || url.len() > 2048 || url.chars().any(char::is_whitespace) {
        let shown: String = url.chars().take(80).collect();
        return Err(fail(
            format!(
                "url `{shown}` must be absolute (http/https) or site-relative (/…), without spaces, at most 2048 bytes"
            ),
            "fix the frontmatter `url`, the record's url field, or the library's url template",
        ));
    }
    Ok(url)
}

/// A frontmatter `permalink` that is a plain site path (`/about/`: Jekyll's, and other
/// generators'), the page's URL on its site; one with `:placeholders` (`/:year/:title/`) is
/// left to the library's template.
fn plain_permalink(fields: &Map<String, Value>) -> Option<&str> {
    let p = fields.get("permalink")?.as_str()?.trim();
    let plain = p.starts_with('/') && !p.starts_with("//") && !p.contains(':');
    (plain && !p.contains(char::is_whitespace)).then_some(p)
}

/// A document's domains: its frontmatter's (ASCII names), or its library's.
fn doc_domains(
    doc: &Document,
    lib: &LibrarySettings,
    fail: &impl Fn(String, &str) -> Problem,
) -> Result<Vec<String>, Problem> {
    let domains = match &doc.domains {
        Some(ds) => {
            for d in ds {
                if d.is_empty()
                    || !d
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
                {
                    return Err(fail(
                        format!(
                            "frontmatter domain `{d}` must be ASCII letters, digits, `-` or `_`"
                        ),
                        "domains name lexical shards and KV keys",
                    ));
                }
            }
            ds.clone()
        }
        None => lib.domains.to_vec(),
    };
    Ok(domains)
}

/// The document's chunks: each span's text, its search fields and (inline `hash`) vector.
fn built_chunks(
    cfg: &CompileSettings,
    doc_id: &identity::DocId,
    doc: &Document,
    spans: Vec<crate::chunk::ChunkSpan>,
    hash: Option<&HashEmbedder>,
) -> Vec<BuiltChunk> {
    spans
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let _t = crate::timings::start(Stage::Normalize);
            let text = Text::new(&doc.body.text[s.start..s.end]);
            // The words of the headings' explicit ids join the headings as context.
            let context: std::borrow::Cow<[String]> = if s.anchors.is_empty() {
                std::borrow::Cow::Borrowed(&s.heading_path)
            } else {
                let words = s.anchors.iter().map(|a| crate::normalize::anchor_words(a));
                std::borrow::Cow::Owned(s.heading_path.iter().cloned().chain(words).collect())
            };
            let fields = crate::normalize::chunk_fields(
                &text,
                doc.title.as_deref(),
                &context,
                cfg.normalize,
                cfg.article_stems,
            );
            let vector = timed(Stage::Embed, || {
                hash.map(|h| h.embed(fields.search_text.as_str()))
                    .unwrap_or_default()
            });
            BuiltChunk {
                chunk_id: identity::chunk_id(doc_id, i, cfg.id_width),
                index: i,
                text,
                search_text: fields.search_text,
                extra_tokens: fields.extra_tokens,
                context_tokens: fields.context_tokens,
                heading_path: s.heading_path,
                anchors: s.section_anchors,
                span: (s.start, s.end),
                vector,
            }
        })
        .collect()
}

/// The values that shape output, recorded in the manifest and hashed into its fingerprint.
/// `libraries` are the shapes of the build's libraries (`config::Library::shape`).
pub(crate) fn settings_values(
    cfg: &CompileSettings,
    libraries: impl IntoIterator<Item = Value>,
) -> Map<String, Value> {
    // Every field is named: a new one does not compile until it is recorded or said not to
    // shape output.
    let CompileSettings {
        chunking,
        normalize,
        aliases,
        article_stems,
        embedding,
        id_width,
        // Refuse a build (a slug that is not an ID, too many chunks), never change one.
        strict_ids: _,
        max_chunks: _,
    } = cfg;
    let mut m = Map::new();
    m.insert("pipeline_version".into(), Value::from(PIPELINE_VERSION));
    m.insert(
        "chunker".into(),
        serde_json::to_value(chunking).expect("serializes"),
    );
    m.insert(
        "normalizer".into(),
        serde_json::json!({
            "version": RULES_VERSION,
            "unicode": format!("{}.{}.{}", NORMALIZATION_UNICODE_VERSION.0, NORMALIZATION_UNICODE_VERSION.1, NORMALIZATION_UNICODE_VERSION.2),
            "rules": normalize,
            "active": normalize.active_rule_names(),
            "lossy": normalize.active_lossy_rule_names(),
            "aliases": aliases.aliases,
            "article_stems": article_stems,
        }),
    );
    m.insert("embedder".into(), crate::embed::describe(embedding));
    m.insert(
        "identity".into(),
        serde_json::json!({"id_width": id_width, "max_id_bytes": MAX_ID_BYTES}),
    );
    m.insert(
        "libraries".into(),
        Value::from(libraries.into_iter().collect::<Vec<_>>()),
    );
    let fp = fingerprint(&m);
    m.insert("fingerprint".into(), Value::from(fp));
    m
}

/// Pages of different source files that claim one URL, each URL an error naming the files: a
/// citation of that URL would send a reader to one page for the other's evidence. Documents of
/// one file (JSON records) may share their file's URL. `docs` are (url, source) pairs.
pub(crate) fn duplicate_url_problems(
    display: impl Fn(&str) -> String,
    docs: impl IntoIterator<Item = (String, String)>,
) -> Vec<Problem> {
    let mut by_url: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for (url, source) in docs {
        let file = source.split('#').next().unwrap_or_default().to_string();
        by_url.entry(url).or_default().insert(file);
    }
    by_url
        .into_iter()
        .filter(|(_, files)| files.len() > 1)
        .map(|(url, files)| {
            let mut shown: Vec<String> = files.iter().map(|f| display(f)).collect();
            shown.sort();
            Problem::error(
                "duplicate-url",
                format!("{} pages claim the URL `{url}`: {}", shown.len(), shown.join(", ")),
            )
            .in_file(shown[0].clone())
            .help("a URL names one page: remove or exclude one of them, or give one a `url` of its own in its frontmatter")
        })
        .collect()
}

/// Duplicate doc IDs across the build, each an error naming every source as `display` names a
/// chunk record's `source` (`Config::source_display`). The IDs are counted first; only a
/// duplicate's sources are formatted.
pub(crate) fn duplicate_problems<'a>(
    display: impl Fn(&str) -> String,
    docs: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Vec<Problem> {
    let docs: Vec<(&str, &str)> = docs.into_iter().collect();
    let mut count: rustc_hash::FxHashMap<&str, u32> = rustc_hash::FxHashMap::default();
    count.reserve(docs.len());
    for (id, _) in &docs {
        *count.entry(id).or_default() += 1;
    }
    let mut by_id: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (id, source) in docs {
        if count[id] > 1 {
            by_id.entry(id).or_default().push(display(source));
        }
    }
    by_id
        .into_iter()
        .map(|(id, mut sources)| {
            sources.sort();
            // JSON records are named `file#record`: their IDs come from the records mapping.
            let help = if sources.iter().all(|s| s.contains('#')) {
                "IDs must be unique: records of several files give this one, so make the records `id` template name the file (`{$file}/{chapter}`) or a field of the object the records lie in (`{..name}/{chapter}`)"
            } else if sources.iter().any(|s| s.contains('#')) {
                "IDs must be unique: give the page a frontmatter `id`, or change the records `id` template"
            } else {
                "IDs must be unique: give one of the pages a frontmatter `id`, or rename a file"
            };
            Problem::error("duplicate-id", format!("doc_id `{id}` is produced by {} sources: {}", sources.len(), sources.join(", ")))
                .in_file(sources[0].split('#').next().unwrap_or_default().to_string())
                .help(help)
        })
        .collect()
}
