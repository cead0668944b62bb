//! The serde shape of `corpus.toml`. Each top-level section and each `[[library]]` is
//! deserialized on its own from the spanned document, so one bad table does not hide the
//! problems of the others.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use toml::Spanned;
use toml::de::{DeTable, DeValue, ValueDeserializer};

use super::{Cx, Format};
use crate::normalize::Rules;

#[derive(Default)]
pub(super) struct RawConfig {
    pub corpus: Option<RawCorpus>,
    pub chunking: Option<RawChunking>,
    pub normalize: Option<Rules>,
    pub embedding: Option<RawEmbedding>,
    pub library: Vec<RawLibrary>,
    pub env: Option<BTreeMap<String, RawEnv>>,
    pub retrieval: Option<crate::retrieve::RetrievalSettings>,
    pub aliases: Option<RawAliases>,
    pub alias: Vec<crate::normalize::aliases::Alias>,
    pub glossary: Vec<RawGlossaryTerm>,
    pub collision: Vec<super::Collision>,
    pub inspect: Option<RawInspect>,
    pub deploy: Option<BTreeMap<String, RawDeploy>>,
    /// Where each `[env.NAME]` and `[deploy.NAME]` name is written (names become file names).
    pub env_keys: BTreeMap<String, std::ops::Range<usize>>,
    pub deploy_keys: BTreeMap<String, std::ops::Range<usize>>,
    /// Where each `[retrieval]` key is written (its value is checked after deserializing).
    pub retrieval_keys: BTreeMap<String, std::ops::Range<usize>>,
}

/// `[deploy.NAME]`: a deploy target. Never secrets (the token comes from the environment).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDeploy {
    pub account_id: Option<String>,
    pub indexes: Spanned<Vec<String>>,
    pub kv_namespace_id: Spanned<String>,
    pub prefix: Option<String>,
    pub max_kv_writes: Option<usize>,
}

/// `[inspect]`: thresholds of `askzico inspect` (never part of a build's settings).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawInspect {
    pub boilerplate_percent: Option<Spanned<f64>>,
    pub boilerplate_min_chunks: Option<usize>,
    pub max: Option<Spanned<BTreeMap<String, usize>>>,
    pub allow: Option<Spanned<BTreeMap<String, Vec<String>>>>,
    pub domains: Option<Vec<String>>,
}

/// `[[glossary]]`: a term of the corpus's own added to the shipped bilingual glossary.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawGlossaryTerm {
    pub en: Spanned<Vec<Spanned<String>>>,
    pub ar: Spanned<Vec<Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAliases {
    /// Use the shipped Egyptian → MSA table (default true).
    #[serde(default = "yes")]
    pub shipped: bool,
    /// Index article stems (`الميلاد` → `ميلاد`) as additive tokens and match them on the query side.
    #[serde(default = "yes")]
    pub article_stems: bool,
}
fn yes() -> bool {
    true
}

fn sp<T>(v: T) -> Spanned<T> {
    Spanned::new(0..0, v)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCorpus {
    #[serde(default = "default_name")]
    pub name: String,
    #[serde(default = "default_out")]
    pub out: Spanned<String>,
    #[serde(default = "default_id_width")]
    pub id_width: Spanned<usize>,
    #[serde(default = "default_max_file_mb")]
    pub max_file_mb: Spanned<u64>,
    /// Refuse sources whose slug is not an ID as it is, instead of mapping it.
    #[serde(default)]
    pub strict_ids: bool,
}
fn default_name() -> String {
    "corpus".into()
}
fn default_out() -> Spanned<String> {
    sp("out".into())
}
fn default_id_width() -> Spanned<usize> {
    sp(3)
}
fn default_max_file_mb() -> Spanned<u64> {
    sp(64)
}
impl Default for RawCorpus {
    fn default() -> Self {
        RawCorpus {
            name: default_name(),
            out: default_out(),
            id_width: default_id_width(),
            max_file_mb: default_max_file_mb(),
            strict_ids: false,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawChunking {
    #[serde(default = "default_max_chars")]
    pub max_chars: Spanned<usize>,
    #[serde(default = "default_min_chars")]
    pub min_chars: Spanned<usize>,
    /// Most chunks one document may make; more is an error (a runaway or mis-mapped source).
    #[serde(default = "default_max_chunks")]
    pub max_chunks: Spanned<usize>,
}
fn default_max_chars() -> Spanned<usize> {
    sp(7000)
}
fn default_min_chars() -> Spanned<usize> {
    sp(200)
}
fn default_max_chunks() -> Spanned<usize> {
    sp(10_000)
}
impl Default for RawChunking {
    fn default() -> Self {
        RawChunking {
            max_chars: default_max_chars(),
            min_chars: default_min_chars(),
            max_chunks: default_max_chunks(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEmbedding {
    #[serde(default = "default_provider")]
    pub provider: Spanned<String>,
    #[serde(default = "default_dims")]
    pub dims: Spanned<usize>,
    /// Model name: `@cf/baai/bge-m3` for workers-ai, any label for command.
    pub model: Option<String>,
    /// Cloudflare account (CLOUDFLARE_ACCOUNT_ID wins); never a secret.
    pub account_id: Option<String>,
    /// Input policy: longer search texts are cut at a word boundary (workers-ai).
    pub max_chars: Option<usize>,
    /// argv of the external embedder (command provider).
    pub command: Option<Vec<String>>,
}
fn default_provider() -> Spanned<String> {
    sp("hash".into())
}
fn default_dims() -> Spanned<usize> {
    sp(256)
}
impl Default for RawEmbedding {
    fn default() -> Self {
        RawEmbedding {
            provider: default_provider(),
            dims: default_dims(),
            model: None,
            account_id: None,
            max_chars: None,
            command: None,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLibrary {
    pub id: Spanned<String>,
    pub root: Spanned<String>,
    pub include: Option<Spanned<Vec<Spanned<String>>>>,
    pub exclude: Option<Vec<Spanned<String>>>,
    pub format: Option<Spanned<Format>>,
    pub domains: Option<Vec<Spanned<String>>>,
    pub url: Option<Spanned<String>>,
    /// URLs drop numeric ordering prefixes from path segments (`01-intro` → `intro`).
    pub url_strip_order: Option<bool>,
    /// Index files whose URL is their folder's: `true` (default: `index`, `README`,
    /// `_index`), `false`, or more names added to those.
    pub url_index: Option<UrlIndex>,
    pub records: Option<RawRecords>,
    pub frontmatter_metadata: Option<Vec<String>>,
    /// Frontmatter keys whose text the page shows (a Hugo FAQ, a fatwa's question and answer).
    pub frontmatter_text: Option<Vec<String>>,
    /// Markdown sources are Liquid templates (Jekyll, Eleventy).
    pub liquid: Option<bool>,
    /// The site generator whose Markdown dialect the pages are written in.
    pub generator: Option<crate::extract::Generator>,
    /// How a file name that is not an ID as it is becomes one (`identity::SlugStyle`).
    pub slugs: Option<crate::identity::SlugStyle>,
    /// How the site names headings without an explicit id (`chunk::AnchorRule`).
    pub anchors: Option<crate::chunk::AnchorRule>,
    /// Top-level metadata fields a query may filter on (`query --where KEY=VALUE`).
    pub filterable: Option<Vec<String>>,
    /// The root may lie outside the config's directory, and symlinks may leave the root.
    pub allow_outside_root: Option<bool>,
}

#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum UrlIndex {
    On(bool),
    More(Vec<String>),
}

#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum OneOrMany {
    One(String),
    Many(Vec<String>),
}
impl OneOrMany {
    pub(super) fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRecords {
    #[serde(default)]
    pub select: String,
    pub id: Option<Spanned<String>>,
    pub id_match: Option<RawIdMatch>,
    pub title: Option<Spanned<String>>,
    pub text: Option<OneOrMany>,
    pub url: Option<Spanned<String>>,
    pub date: Option<String>,
    pub sections: Option<RawSections>,
    pub metadata: Option<BTreeMap<String, String>>,
    pub item_text: Option<String>,
    pub item_label: Option<String>,
    pub item_anchor: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawIdMatch {
    pub field: String,
    pub pattern: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSections {
    pub select: String,
    pub title: Option<String>,
    pub text: Option<OneOrMany>,
    pub item_text: Option<String>,
    pub item_label: Option<String>,
    pub item_anchor: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEnv {
    pub libraries: Vec<Spanned<String>>,
}

pub(super) const KEYS: &[&str] = &[
    "corpus",
    "chunking",
    "normalize",
    "aliases",
    "alias",
    "glossary",
    "collision",
    "embedding",
    "retrieval",
    "library",
    "env",
    "inspect",
    "deploy",
];

pub(super) fn parse(cx: &mut Cx) -> Option<RawConfig> {
    let src = cx.src.clone();
    let table = match DeTable::parse(&src) {
        Ok(t) => t,
        Err(e) => {
            let span = e.span().unwrap_or(0..0);
            cx.error(
                "config-syntax",
                span,
                format!("invalid TOML: {}", e.message().trim()),
                "fix the TOML syntax at the marked place",
            );
            return None;
        }
    };
    let mut raw = RawConfig::default();
    for (key, value) in table.get_ref().iter() {
        match key.get_ref().as_ref() {
            "corpus" => raw.corpus = de(cx, value),
            "chunking" => raw.chunking = de(cx, value),
            "normalize" => raw.normalize = de(cx, value),
            "embedding" => raw.embedding = de(cx, value),
            "env" => {
                raw.env_keys = key_spans(value);
                raw.env = de(cx, value);
            }
            "retrieval" => {
                raw.retrieval_keys = key_spans(value);
                raw.retrieval = de(cx, value);
            }
            "aliases" => raw.aliases = de(cx, value),
            "inspect" => raw.inspect = de(cx, value),
            "deploy" => {
                raw.deploy_keys = key_spans(value);
                raw.deploy = de(cx, value);
            }
            "collision" => raw.collision = de_tables(cx, "collision", value),
            "alias" => raw.alias = de_tables(cx, "alias", value),
            "glossary" => raw.glossary = de_tables(cx, "glossary", value),
            "library" => raw.library = de_tables(cx, "library", value),
            other => cx.error(
                "config-unknown-key",
                key.span(),
                format!("unknown key `{other}`"),
                format!("top-level keys are: {}", KEYS.join(", ")),
            ),
        }
    }
    Some(raw)
}

/// The span of each key of a table (empty when it is not one).
fn key_spans(value: &Spanned<DeValue<'_>>) -> BTreeMap<String, std::ops::Range<usize>> {
    match value.get_ref() {
        DeValue::Table(t) => t
            .iter()
            .map(|(k, _)| (k.get_ref().to_string(), k.span()))
            .collect(),
        _ => BTreeMap::new(),
    }
}

/// An array of tables (`[[name]]`), each deserialized on its own so one bad table does not hide
/// the problems of the others.
fn de_tables<T: DeserializeOwned>(cx: &mut Cx, name: &str, value: &Spanned<DeValue<'_>>) -> Vec<T> {
    match value.get_ref().as_array() {
        Some(items) => items.iter().filter_map(|item| de(cx, item)).collect(),
        None => {
            cx.error(
                "config-type",
                value.span(),
                format!("`{name}` must be an array of tables"),
                format!("write each entry as a [[{name}]] table"),
            );
            Vec::new()
        }
    }
}

/// Deserializes one table, reporting every bad key in it, not only the first: serde stops at the
/// first error, so the offending entry is removed and the table deserialized again until it
/// passes (or an error names no entry, such as a missing field). The pruned value is returned so
/// that later checks still run on the keys that were fine.
fn de<T: DeserializeOwned>(cx: &mut Cx, value: &Spanned<DeValue<'_>>) -> Option<T> {
    let mut value = value.clone();
    let mut pruned: Vec<String> = Vec::new();
    // Each round removes one entry, so the loop ends; the bound only guards against a bug.
    for _ in 0..256 {
        match T::deserialize(ValueDeserializer::from(value.clone())) {
            Ok(v) => return Some(v),
            Err(e) => {
                let span = e.span().unwrap_or_else(|| value.span());
                let msg = e.message().trim().replace('\n', " ");
                // A field reported missing only because an earlier round removed it.
                if pruned.iter().any(|k| msg == format!("missing field `{k}`")) {
                    return None;
                }
                cx.error(
                    "config-value",
                    span.clone(),
                    msg,
                    "see the commented corpus.toml that `askzico init` writes for every key",
                );
                match remove_entry_at(&mut value, &span) {
                    Some(key) => pruned.push(key),
                    None => return None,
                }
            }
        }
    }
    None
}

/// Removes the innermost table entry whose key or value covers `span`; returns its key.
fn remove_entry_at(
    value: &mut Spanned<DeValue<'_>>,
    span: &std::ops::Range<usize>,
) -> Option<String> {
    let covers = |outer: std::ops::Range<usize>| {
        outer.start <= span.start && span.end <= outer.end && outer != (0..0)
    };
    match value.get_mut() {
        DeValue::Table(t) => {
            let hit = t
                .iter_mut()
                .find(|(k, v)| covers(k.span()) || covers(v.span()));
            let (key, child) = hit?;
            let name = key.get_ref().to_string();
            if !covers(key.span())
                && let Some(inner) = remove_entry_at(child, span)
            {
                return Some(inner);
            }
            let key = key.clone();
            t.remove(&key);
            Some(name)
        }
        DeValue::Array(items) => items
            .iter_mut()
            .find(|v| covers(v.span()))
            .and_then(|v| remove_entry_at(v, span)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    fn problems(text: &str) -> Vec<(usize, String)> {
        let dir = std::env::temp_dir();
        let errs =
            Config::parse(text, "corpus.toml", &dir, &dir.join("corpus.toml")).expect_err("errors");
        errs.0
            .iter()
            .map(|p| (p.line.unwrap_or(0), p.message.clone()))
            .collect()
    }

    #[test]
    fn every_bad_key_of_one_table_is_reported() {
        let got = problems(
            "[corpus]\nid_width = \"x\"\ncolour = 1\nmax_file_mb = \"y\"\n\n[[library]]\nid = \"a\"\nroot = \".\"\n",
        );
        for line in [2, 3, 4] {
            assert!(got.iter().any(|(l, _)| *l == line), "line {line}: {got:?}");
        }
    }

    #[test]
    fn a_pruned_required_field_is_not_reported_missing() {
        let got = problems("[[library]]\nid = \"a\"\nroot = 5\n");
        assert!(
            got.iter()
                .any(|(l, m)| *l == 3 && m.contains("invalid type")),
            "{got:?}"
        );
        assert!(
            !got.iter().any(|(_, m)| m.contains("missing field")),
            "{got:?}"
        );
    }
}
