//! From the serde shape of `corpus.toml` (`raw`) to a `Config`: every value checked, each
//! problem with its span into `cx`, each part built by its own function.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use globset::{Glob, GlobSet, GlobSetBuilder};
use toml::Spanned;

use super::{
    ChunkSettings, Config, Cx, DeployTarget, EmbedSettings, Format, Library, Template,
    default_url_index, out_dir_problem, raw,
};
use crate::normalize::Rules;

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
pub(super) fn build(cx: &mut Cx, raw: raw::RawConfig, base_dir: &Path, path: &Path) -> Config {
    let corpus = raw.corpus.unwrap_or_default();
    let chunking = raw.chunking.unwrap_or_default();
    check_chunking(cx, &chunking);
    let embedding = raw.embedding.unwrap_or_default();
    check_embedding(cx, &embedding);
    let id_width = check_id_width(cx, &corpus.id_width);

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
    let max_mb = check_max_file_mb(cx, &corpus.max_file_mb);
    if let Some(refusal) = out_dir_problem(
        &base_dir.join(corpus.out.get_ref()),
        corpus.out.get_ref(),
        path,
        &libraries,
    ) {
        cx.error(
            "config-value",
            corpus.out.span(),
            refusal.message,
            refusal.help,
        );
    }
    let out_rel = corpus.out.into_inner();
    let rules = raw.normalize.unwrap_or_default();
    let aliases = recall_aliases(raw.aliases.as_ref(), raw.alias, &rules);
    let article_stems = raw.aliases.as_ref().is_none_or(|a| a.article_stems);
    let glossary = glossary(cx, raw.glossary, &rules);
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
        embedding: embed_settings(embedding),
        retrieval: retrieval_settings(cx, raw.retrieval, &raw.retrieval_keys),
        aliases,
        article_stems,
        glossary,
        collisions: raw.collision,
        libraries,
        envs,
        max_file_bytes: max_mb.clamp(1, 4096) * 1024 * 1024,
        inspect,
        deploy,
    }
}

/// `[corpus] id_width`: between 1 and 6 digits.
fn check_id_width(cx: &mut Cx, id_width: &Spanned<usize>) -> usize {
    if !(1..=6).contains(id_width.get_ref()) {
        cx.error(
            "config-value",
            id_width.span(),
            "id_width must be between 1 and 6",
            "the default is 3",
        );
    }
    *id_width.get_ref()
}

/// `[corpus] max_file_mb`: between 1 and 4096.
fn check_max_file_mb(cx: &mut Cx, max_mb: &Spanned<u64>) -> u64 {
    if !(1..=4096).contains(max_mb.get_ref()) {
        cx.error(
            "config-value",
            max_mb.span(),
            "max_file_mb must be between 1 and 4096",
            "the default is 64",
        );
    }
    *max_mb.get_ref()
}

/// `[embedding]` as the embedders read it (checked by `check_embedding`).
fn embed_settings(embedding: raw::RawEmbedding) -> EmbedSettings {
    EmbedSettings {
        provider: embedding.provider.into_inner(),
        dims: embedding.dims.into_inner(),
        model: embedding.model,
        account_id: embedding.account_id,
        max_chars: embedding.max_chars,
        command: embedding.command.unwrap_or_default(),
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
    check_library_id(cx, &lib.id, seen);
    let root_display = lib.root.get_ref().clone();
    let root = base_dir.join(&root_display);
    let allow_outside = lib.allow_outside_root.unwrap_or(false);
    check_root(cx, &id, &lib.root, &root, base_dir, allow_outside);
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
    let domains = library_domains(cx, &id, lib.id.span(), lib.domains);
    let url = lib.url.map(|t| template_or_error(cx, t));
    let records = lib.records.map(|r| super::records::records(cx, r));
    check_records_format(cx, &id, lib.format.as_ref(), records.is_some());
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
        url_index: url_index(lib.url_index),
        records: records.flatten(),
        frontmatter_metadata: lib.frontmatter_metadata.unwrap_or_default(),
        frontmatter_text: lib.frontmatter_text.unwrap_or_default(),
        liquid: lib.liquid.unwrap_or(false),
        generator: lib.generator.unwrap_or_default(),
        slugs: lib.slugs.unwrap_or(match lib.generator {
            Some(crate::extract::Generator::Obsidian) => crate::identity::SlugStyle::Transliterate,
            _ => crate::identity::SlugStyle::Escape,
        }),
        anchors: lib.anchors.unwrap_or_default(),
        filterable: lib.filterable.unwrap_or_default(),
        allow_outside_root: allow_outside,
        zero_config: None,
    }
}

/// A JSON library has a records mapping, and a records mapping is for JSON.
fn check_records_format(
    cx: &mut Cx,
    id: &str,
    format: Option<&Spanned<Format>>,
    has_records: bool,
) {
    let Some(f) = format else {
        return;
    };
    if !has_records && *f.get_ref() == Format::Json {
        cx.error("json-mapping", f.span(), format!("library `{id}` reads JSON but has no [library.records] mapping"), "add `[library.records]` with at least `text` (and `select` for files with many records)");
    }
    if has_records && *f.get_ref() != Format::Json {
        cx.error(
            "config-value",
            f.span(),
            "`records` needs format = \"json\"",
            "remove `format` or set it to json",
        );
    }
}

/// `url_index`: the index file stems, the default ones unless switched off, plus any listed.
fn url_index(setting: Option<raw::UrlIndex>) -> Vec<String> {
    match setting {
        None | Some(raw::UrlIndex::On(true)) => default_url_index(),
        Some(raw::UrlIndex::On(false)) => Vec::new(),
        Some(raw::UrlIndex::More(more)) => {
            let mut names = default_url_index();
            names.extend(more);
            names
        }
    }
}

/// A library's id: ASCII, a file-name component, and unique (`seen`: the ids before it, with
/// their spans; this one is added).
fn check_library_id(
    cx: &mut Cx,
    id_spanned: &Spanned<String>,
    seen: &mut BTreeMap<String, std::ops::Range<usize>>,
) {
    let id = id_spanned.get_ref().clone();
    if !is_ascii_id(&id) {
        cx.error(
            "library-id",
            id_spanned.span(),
            format!("library id `{id}` must be ASCII letters, digits, `-` or `_`"),
            "the id prefixes every doc_id and KV key; pick an ASCII name such as `seneksar`",
        );
    } else {
        check_name(cx, "library-id", "library id", &id, id_spanned.span());
    }
    if let Some(prev) = seen.get(&id) {
        let prev_line = crate::diag::line_of(&cx.src, prev.start);
        cx.error(
            "library-id",
            id_spanned.span(),
            format!("two libraries have the id `{id}` (the first is on line {prev_line})"),
            "library ids must be unique: rename one of them",
        );
    } else {
        seen.insert(id.clone(), id_spanned.span());
    }
}

/// A library's root: a directory, inside the corpus directory unless `allow_outside_root`.
fn check_root(
    cx: &mut Cx,
    id: &str,
    root_spanned: &Spanned<String>,
    root: &Path,
    base_dir: &Path,
    allow_outside: bool,
) {
    let root_display = root_spanned.get_ref();
    if !root.is_dir() {
        cx.error(
            "library-root",
            root_spanned.span(),
            format!(
                "library `{id}`: root `{root_display}` is not a directory (resolved to {})",
                root.display()
            ),
            "paths in corpus.toml are relative to the config file's directory",
        );
    } else if !allow_outside && !inside_corpus(base_dir, root) {
        cx.error(
            "outside-corpus",
            root_spanned.span(),
            format!("library `{id}`: root `{root_display}` leaves the corpus directory (the config's directory) through `..` or a symlink"),
            "move the sources under the config's directory, or set `allow_outside_root = true` on this library to read them there on purpose",
        );
    }
}

/// A library's domains: `domains` as written (never empty), or its id.
fn library_domains(
    cx: &mut Cx,
    id: &str,
    id_span: std::ops::Range<usize>,
    raw_domains: Option<Vec<Spanned<String>>>,
) -> Vec<String> {
    let mut domains = Vec::new();
    if let Some(ds) = raw_domains.as_ref().filter(|d| d.is_empty()) {
        let _ = ds;
        cx.error(
            "domain",
            id_span.clone(),
            format!(
                "library `{id}` has `domains = []`: its documents would be in no lexical shard"
            ),
            "name at least one domain, or leave `domains` out (it defaults to the library id)",
        );
    }
    for d in raw_domains.unwrap_or_else(|| vec![Spanned::new(id_span.clone(), id.to_string())]) {
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
    domains
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

/// The shipped glossary plus the `[[glossary]]` terms, each checked: at least one English word
/// and one Arabic form, an English word of Latin letters only (three or more), an Arabic form
/// that is one search word.
/// `[retrieval]`, each value outside its range a config error at its key.
fn retrieval_settings(
    cx: &mut Cx,
    raw: Option<crate::retrieve::RetrievalSettings>,
    keys: &BTreeMap<String, std::ops::Range<usize>>,
) -> crate::retrieve::RetrievalSettings {
    let settings = raw.unwrap_or_default();
    for (key, range) in settings.out_of_range() {
        cx.error(
            "config-value",
            keys.get(key).cloned().unwrap_or(0..0),
            format!("`[retrieval] {key}` must be {range}"),
            format!("set `{key}` within its range, or remove it for the default (docs/configuration.md#retrieval)"),
        );
    }
    settings
}

fn glossary(
    cx: &mut Cx,
    extra: Vec<raw::RawGlossaryTerm>,
    rules: &crate::normalize::Rules,
) -> crate::normalize::glossary::Glossary {
    use crate::normalize::glossary::{Glossary, Term};
    let mut terms = crate::normalize::glossary::shipped();
    for t in extra {
        let mut ok = true;
        for (list, what) in [
            (&t.en, "`en` (English words)"),
            (&t.ar, "`ar` (Arabic forms)"),
        ] {
            if list.get_ref().is_empty() {
                cx.error(
                    "config-value",
                    list.span(),
                    format!("a `[[glossary]]` term with an empty {what}"),
                    "give each term at least one English word in `en` and one Arabic form in `ar`",
                );
                ok = false;
            }
        }
        for w in t.en.get_ref() {
            let word = w.get_ref();
            if word.len() < 3 || !word.bytes().all(|b| b.is_ascii_alphabetic()) {
                cx.error(
                    "config-value",
                    w.span(),
                    format!("`{word}` is not one English word of three or more Latin letters"),
                    "write one word per entry (for a term of several words, its most distinctive one: `order` for \"sales order\")",
                );
                ok = false;
            }
        }
        for w in t.ar.get_ref() {
            let word = w.get_ref();
            let search = crate::normalize::normalize(word, rules);
            if search.is_empty() || search.contains(' ') || search.is_ascii() {
                cx.error(
                    "config-value",
                    w.span(),
                    format!("`{word}` is not one Arabic word (its search form is `{search}`)"),
                    "write one Arabic word per entry, without punctuation: list the forms of a longer term as separate words",
                );
                ok = false;
            }
        }
        if ok {
            terms.push(Term {
                en: t
                    .en
                    .into_inner()
                    .into_iter()
                    .map(|w| w.into_inner().to_lowercase())
                    .collect(),
                ar: t
                    .ar
                    .into_inner()
                    .into_iter()
                    .map(Spanned::into_inner)
                    .collect(),
            });
        }
    }
    Glossary::new(terms, rules)
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
                max_kv_writes: t.max_kv_writes,
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

pub(super) fn template_or_error(cx: &mut Cx, t: Spanned<String>) -> Option<Template> {
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
