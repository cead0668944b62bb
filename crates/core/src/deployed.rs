//! deployed: a version as Workers KV and Vectorize hold it (DESIGN §4), read side. The key
//! schemes, the pointer, the version's key table, its document tables, its query settings and
//! its lookup records, and the chunk facts a search builds from them: what `askzico query
//! --target` and the Worker read, in one implementation. Parsing only; the reads are the
//! caller's.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Error;
use crate::normalize::Rules;
use crate::normalize::aliases::{Alias, AliasTable};
use crate::normalize::glossary::{Glossary, Term};
use crate::search::{RetrievalSettings, Settings};
use crate::tables::{ChunkInfo, LookupRecord, WordIndex};

/// The key scheme new deploys write (the pointer's `layout`). Layout 2 stores every value once
/// under the hash of its bytes; layout 3 is layout 2 with lookup records that carry their
/// section anchors; layout 4 is layout 3 with term shards in the line format
/// (`lexical::to_lines`), of which a question decodes only its own terms; layout 5 is layout 4
/// with lookup records that carry where their words stand (`tables::WordIndex`), so
/// the second stage neither normalizes nor stems its candidates' text.
pub const LAYOUT: u32 = 5;

/// Whether a version of `layout` is content-addressed and read by this askzico (layouts 2 to 4).
pub fn content_addressed(layout: u32) -> bool {
    (2..=LAYOUT).contains(&layout)
}

/// The hash a content-addressed value is stored under: the hex of 128 bits of its blake3.
pub fn value_hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex()[..32].to_string()
}

/// The pointer: which version a target serves, from which index.
pub fn pointer_key(prefix: &str) -> String {
    format!("{prefix}current")
}

pub fn manifest_key(prefix: &str, version: &str) -> String {
    format!("{prefix}{version}/manifest")
}

/// A version's key table ([`VersionTable`]).
pub fn version_table_key(prefix: &str, version: &str) -> String {
    format!("{prefix}{version}/tables")
}

/// A lookup record.
pub fn record_key(prefix: &str, hash: &str) -> String {
    format!("{prefix}r/{hash}")
}

/// A lexical file (meta or shard).
pub fn lexical_key(prefix: &str, hash: &str) -> String {
    format!("{prefix}l/{hash}")
}

/// A domain's record table (`{chunk_id: record hash}`).
pub fn table_key(prefix: &str, hash: &str) -> String {
    format!("{prefix}t/{hash}")
}

/// A domain's document table (`{doc_id: DocEntry}`).
pub fn doc_table_key(prefix: &str, hash: &str) -> String {
    format!("{prefix}d/{hash}")
}

/// A version's query settings ([`QuerySettings`]).
pub fn settings_key(prefix: &str, hash: &str) -> String {
    format!("{prefix}s/{hash}")
}

/// `<prefix>current`: the version a target serves and the index its vectors are in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pointer {
    pub version: String,
    pub index: String,
    /// The version's key scheme ([`LAYOUT`]); absent: layout 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<u32>,
}

/// `<prefix><version>/tables`: what a content-addressed version names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VersionTable {
    pub layout: u32,
    /// Domain → the hash of its record table (chunks of no domain under "").
    pub records: BTreeMap<String, String>,
    /// Domain → the hashes of its lexical meta and of its term shards by number.
    pub lexical: BTreeMap<String, LexTable>,
    /// Domain → the hash of its document table (chunks of no domain under ""). Absent in the
    /// tables of versions deployed before document tables.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub docs: BTreeMap<String, String>,
    /// The hash of the version's query settings ([`QuerySettings`]); absent in the tables of
    /// versions deployed before the settings travelled with them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LexTable {
    pub meta: String,
    pub shards: Vec<String>,
}

/// One document of a domain's document table: what its chunks share that a search needs
/// before it reads any record: where it comes from, and the structured date a question's date
/// matches (`[month, day]`). A chunk's document is its ID before the last `:`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocEntry {
    pub source: String,
    pub url: String,
    pub library: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<[u8; 2]>,
    /// Its filterable fields (`[[library]] filterable`), by key.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fields: BTreeMap<String, String>,
}

/// The format of [`QuerySettings`] this askzico writes. Format 2 added
/// `retrieval.dialect_verb_weight`; a format-1 value (a version deployed before it) is read with
/// that weight 0, so it answers as it did.
pub const SETTINGS_FORMAT: u32 = 2;

/// The formats of [`QuerySettings`] this askzico reads.
pub const SETTINGS_FORMATS_READ: [u32; 2] = [1, 2];

/// Everything that changes an answer and is not in the corpus version: the ranking's weights,
/// the normalization rules, the recall aliases and glossary as configured, and the embedder
/// that embeds a question. Deployed as a content-addressed value the version's key table names,
/// so a runtime answers as the deploying machine's `askzico query` does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuerySettings {
    pub format: u32,
    pub retrieval: RetrievalSettings,
    pub normalize: Rules,
    pub aliases: Vec<Alias>,
    pub article_stems: bool,
    pub glossary: Vec<Term>,
    pub embedding: EmbedderSpec,
    /// The everyday-word list whose words get no loanword keys
    /// (`normalize::native_words::SOURCE`: its source, version and license).
    #[serde(default)]
    pub native_words: String,
}

/// The embedder of a version's vectors, as a runtime must reproduce it for a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmbedderSpec {
    /// `hash`, `workers-ai` or `command`.
    pub provider: String,
    pub dims: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl QuerySettings {
    /// The settings of `s` as a value to deploy (its bytes are what the key hashes).
    pub fn of(s: &Settings<'_>, embedding: EmbedderSpec) -> QuerySettings {
        QuerySettings {
            format: SETTINGS_FORMAT,
            retrieval: s.retrieval.clone(),
            normalize: s.normalize.clone(),
            aliases: s.aliases.aliases.clone(),
            article_stems: s.article_stems,
            glossary: s.glossary.terms().to_vec(),
            embedding,
            native_words: crate::normalize::native_words::SOURCE.to_string(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("serializes")
    }

    /// A stored value: the format this askzico reads, or an error naming the one it is.
    pub fn parse(text: &str) -> Result<QuerySettings, Error> {
        #[derive(Deserialize)]
        struct Format {
            format: u32,
        }
        let format = serde_json::from_str::<Format>(text)
            .map_err(|e| Error::deployed(format!("the query settings do not parse: {e}")))?
            .format;
        if !SETTINGS_FORMATS_READ.contains(&format) {
            return Err(Error {
                code: "settings-format",
                message: format!(
                    "the query settings are of format {format}; this askzico reads formats {}",
                    SETTINGS_FORMATS_READ.map(|f| f.to_string()).join(" and ")
                ),
                help: "update the runtime to the askzico that deployed the version".to_string(),
            });
        }
        let mut settings: QuerySettings = serde_json::from_str(text)
            .map_err(|e| Error::deployed(format!("the query settings do not parse: {e}")))?;
        if format == 1 {
            settings.retrieval.dialect_verb_weight = 0.0;
        }
        Ok(settings)
    }

    /// The settings indexed for questions.
    pub fn load(self) -> LoadedSettings {
        LoadedSettings {
            aliases: AliasTable::new(self.aliases, &self.normalize),
            glossary: Glossary::new(self.glossary, &self.normalize),
            retrieval: self.retrieval,
            normalize: self.normalize,
            article_stems: self.article_stems,
            embedding: self.embedding,
        }
    }
}

/// A version's query settings, owned and indexed; [`LoadedSettings::settings`] lends them to a
/// [`crate::search::Ranker`].
#[derive(Debug, Clone)]
pub struct LoadedSettings {
    pub retrieval: RetrievalSettings,
    pub normalize: Rules,
    pub aliases: AliasTable,
    pub article_stems: bool,
    pub glossary: Glossary,
    pub embedding: EmbedderSpec,
}

impl LoadedSettings {
    pub fn settings(&self) -> Settings<'_> {
        Settings {
            retrieval: &self.retrieval,
            normalize: &self.normalize,
            aliases: &self.aliases,
            article_stems: self.article_stems,
            glossary: &self.glossary,
        }
    }
}

/// A lookup record as stored under `<prefix>r/<h>` (without its chunk ID: the key table names
/// it). Layout 2 records have no `anchors`; records before layout 5 no `words`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordValue {
    title: String,
    url: String,
    text: String,
    #[serde(default)]
    anchors: Vec<(usize, String)>,
    #[serde(default)]
    words: Option<WordIndex>,
    domains: Vec<String>,
    library: String,
    metadata: Map<String, Value>,
}

/// The stored value of lookup record `r` (its hash is its key), with the [`WordIndex`] of its
/// title and text under the version's normalization `rules`, so a runtime's second stage reads
/// where its words stand instead of normalizing and stemming the text.
pub fn record_value(r: &LookupRecord, rules: &Rules) -> String {
    #[derive(Serialize)]
    struct Stored<'r> {
        title: &'r str,
        url: &'r str,
        text: &'r str,
        anchors: &'r [(usize, String)],
        words: &'r WordIndex,
        domains: &'r [String],
        library: &'r str,
        metadata: &'r Map<String, Value>,
    }
    serde_json::to_string(&Stored {
        title: &r.title,
        url: &r.url,
        text: &r.text,
        anchors: &r.anchors,
        words: &WordIndex::of(&r.title, &r.text, rules),
        domains: &r.domains,
        library: &r.library,
        metadata: &r.metadata,
    })
    .expect("serializes")
}

/// The lookup record of `chunk_id` from its stored value.
pub fn parse_record(chunk_id: &str, value: &str) -> Result<LookupRecord, serde_json::Error> {
    let v: RecordValue = serde_json::from_str(value)?;
    Ok(LookupRecord {
        chunk_id: chunk_id.to_string(),
        title: v.title,
        url: v.url,
        text: v.text,
        anchors: v.anchors,
        words: v.words,
        domains: v.domains,
        library: v.library,
        metadata: v.metadata,
    })
}

/// The chunks of a version, from its record and document tables.
#[derive(Debug, Clone, Default)]
pub struct Chunks {
    pub chunks: BTreeMap<String, ChunkInfo>,
    /// Chunk ID → the hash of its lookup record.
    pub records: HashMap<String, String>,
}

impl Chunks {
    /// Adds `domain`'s chunks from its record table (`{chunk_id: record hash}`) and document
    /// table as stored; an `Err` names the table at fault.
    pub fn add_domain(
        &mut self,
        domain: &str,
        record_table: &str,
        doc_table: &str,
    ) -> Result<(), Error> {
        let ids: BTreeMap<String, String> = serde_json::from_str(record_table).map_err(|e| {
            Error::deployed(format!(
                "the record table of domain `{domain}` does not parse: {e}"
            ))
        })?;
        let docs: BTreeMap<String, DocEntry> = serde_json::from_str(doc_table).map_err(|e| {
            Error::deployed(format!(
                "the document table of domain `{domain}` does not parse: {e}"
            ))
        })?;
        for (id, rh) in ids {
            let doc_id = id.rsplit_once(':').map_or("", |(d, _)| d);
            let doc = docs.get(doc_id).ok_or_else(|| {
                Error::deployed(format!(
                    "chunk {id} of domain `{domain}` has no document in its document table"
                ))
            })?;
            let info = self.chunks.entry(id.clone()).or_insert_with(|| ChunkInfo {
                chunk_id: id.clone(),
                doc_id: doc_id.to_string(),
                url: doc.url.clone(),
                source: doc.source.clone(),
                library: doc.library.clone(),
                domains: Vec::new(),
                date: doc.date.map(|[m, d]| (m, d)),
                fields: doc
                    .fields
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            });
            if !domain.is_empty() {
                info.domains.push(domain.to_string());
            }
            self.records.insert(id, rh);
        }
        Ok(())
    }
}

/// What a vector index's nearest matches give a search: the candidates, best first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Nearest {
    pub found: Vec<(String, f64)>,
    /// IDs the index returned that the version does not name (the index's state, not the
    /// version's): left out and reported.
    pub stale: Vec<String>,
    /// The index's `top` matches were all returned, some were of other domains and fewer than
    /// `k` are left: candidates of the domains asked may lie below them.
    pub crowded: bool,
}

/// The most vectors Vectorize's query returns without values or metadata.
pub const MAX_TOP_K: usize = 100;

/// How many matches to ask an index for, for `k` candidates (at most [`MAX_TOP_K`]).
pub fn top_k(k: usize) -> usize {
    k.min(MAX_TOP_K)
}

/// The candidates of an index's `top` nearest `matches` (as the index returns them, without a
/// filter): those with a score above 0 that the version names (`known`) and the search keeps,
/// by score then chunk ID, at most `k`. The one rule for a deployed index and a build's vectors
/// alike, so a question gets the same candidates from both.
pub fn nearest(
    mut matches: Vec<(String, f64)>,
    top: usize,
    known: impl Fn(&str) -> bool,
    keep: impl Fn(&str) -> bool,
    k: usize,
) -> Nearest {
    matches.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let full = matches.len() >= top;
    matches.truncate(top);
    let mut out = Nearest::default();
    let mut positive = 0;
    for (id, score) in matches {
        // Not above 0 (NaN included): no candidate.
        if score.is_nan() || score <= 0.0 {
            continue;
        }
        if !known(&id) {
            out.stale.push(id);
            continue;
        }
        positive += 1;
        if keep(&id) {
            out.found.push((id, score));
        }
    }
    out.crowded = full && out.found.len() < positive && out.found.len() < k;
    out.found.truncate(k);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_takes_the_top_then_filters_then_cuts() {
        let m = |v: &[(&str, f64)]| v.iter().map(|(i, s)| (i.to_string(), *s)).collect();
        let got = nearest(
            m(&[("b", 0.5), ("a", 0.5), ("c", 0.9), ("z", 0.8), ("d", 0.0)]),
            4,
            |id| id != "z",
            |id| id != "c",
            5,
        );
        assert_eq!(got.found, m(&[("a", 0.5), ("b", 0.5)]));
        assert_eq!(got.stale, ["z"]);
        assert!(got.crowded);
        let got = nearest(m(&[("a", 0.2), ("b", 0.3)]), 4, |_| true, |_| true, 1);
        assert_eq!(got.found, m(&[("b", 0.3)]));
        assert!(!got.crowded);
    }

    #[test]
    fn settings_of_another_format_are_refused_by_name() {
        let e = QuerySettings::parse(r#"{"format": 99}"#).unwrap_err();
        assert_eq!(e.code, "settings-format");
        assert!(e.message.contains("format 99"), "{e}");
    }

    /// A version deployed before the colloquial verb forms answers as it did: its format-1
    /// settings, which have no `dialect_verb_weight`, are read with that weight 0.
    #[test]
    fn format_1_settings_are_read_without_the_colloquial_verb_forms() {
        let mut v: serde_json::Value = serde_json::from_str(
            &QuerySettings {
                format: SETTINGS_FORMAT,
                retrieval: Default::default(),
                normalize: Rules::default(),
                aliases: Vec::new(),
                article_stems: true,
                glossary: Vec::new(),
                embedding: EmbedderSpec {
                    provider: "hash".into(),
                    dims: 8,
                    model: None,
                },
                native_words: String::new(),
            }
            .to_json(),
        )
        .unwrap();
        let current = QuerySettings::parse(&v.to_string()).unwrap();
        assert!(current.retrieval.dialect_verb_weight > 0.0);
        v["format"] = 1.into();
        v["retrieval"]
            .as_object_mut()
            .unwrap()
            .remove("dialect_verb_weight");
        let old = QuerySettings::parse(&v.to_string()).unwrap();
        assert_eq!(old.retrieval.dialect_verb_weight, 0.0);
        assert_eq!(
            old.retrieval.derivation_weight,
            current.retrieval.derivation_weight
        );
    }

    #[test]
    fn a_record_value_reads_back_as_the_record() {
        let r = LookupRecord {
            chunk_id: "a:b:000".into(),
            title: "t".into(),
            url: "/b".into(),
            text: "نص".into(),
            anchors: vec![(0, String::new())],
            words: None,
            domains: vec!["d".into()],
            library: "a".into(),
            metadata: Map::new(),
        };
        let rules = Rules::default();
        let read = parse_record("a:b:000", &record_value(&r, &rules)).unwrap();
        assert_eq!(read.words, Some(WordIndex::of("t", "نص", &rules)));
        assert_eq!(
            LookupRecord {
                words: None,
                ..read
            },
            r
        );
    }
}
