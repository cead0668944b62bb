//! The Worker's side of a question, without I/O: versions opened from the values KV returned,
//! and each question in the core's three steps (plan → rank → answer), each step naming the KV
//! keys the next one needs. The Worker reads them between steps (one bulk read each) and calls
//! the next; several questions may be between steps at once.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use askzico_core::deployed::{self, Chunks, LoadedSettings, QuerySettings, VersionTable};
use askzico_core::embed::HashEmbedder;
use askzico_core::lexical::{LexMeta, ShardData};
use askzico_core::normalize::query_words::WordClasses;
use askzico_core::search::{Answer, Mode, Plan, Ranker, Records, Scored, Shards};
use askzico_core::tables::{LookupRecord, Tables};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A failure the Worker turns into an HTTP status and a JSON error: `code` says which.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    pub code: &'static str,
    pub message: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub help: String,
}

impl Failure {
    fn new(code: &'static str, message: impl Into<String>, help: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
            help: help.into(),
        }
    }

    /// A stored value that is not what askzico writes there.
    fn deployed(message: impl Into<String>) -> Failure {
        Failure::new(
            "deployed",
            message,
            "the version is incomplete or was changed outside askzico: deploy the build again (`askzico deploy --target NAME`)",
        )
    }

    fn bad_request(message: impl Into<String>) -> Failure {
        Failure::new("bad-request", message, "")
    }
}

impl From<askzico_core::Error> for Failure {
    fn from(e: askzico_core::Error) -> Failure {
        Failure::new(e.code, e.message, e.help)
    }
}

pub type Result<T> = std::result::Result<T, Failure>;

/// The longest question a visitor may ask, in characters.
pub const MAX_QUESTION_CHARS: usize = 500;
/// The most pages one answer shows (as `askzico query --k`).
pub const MAX_K: usize = 20;

/// What a deployed version's key table names, to read before the version can be opened.
#[derive(Debug, Serialize)]
pub struct Needed {
    /// Every key [`Runtime::open`] needs, in the order it wants their values.
    pub keys: Vec<String>,
}

/// The manifest fields a question's filters are checked against.
#[derive(Deserialize)]
struct ManifestLibraries {
    corpus_version: String,
    libraries: Vec<ManifestLibrary>,
}

#[derive(Deserialize)]
struct ManifestLibrary {
    id: String,
    #[serde(default)]
    domains: Vec<String>,
    #[serde(default)]
    filterable: Vec<String>,
}

/// One deployed version, opened: what every question over it reads.
pub struct Version {
    /// Term shards read for earlier questions, kept (they are content-addressed, never stale)
    /// under a byte budget: a question hands over only the shards the Worker must read.
    shards: std::cell::RefCell<Held<ShardData>>,
    /// Lookup records read for earlier questions, parsed, kept the same way: a question asks
    /// the Worker only for the records this version does not hold.
    held_records: std::cell::RefCell<Held<Arc<LookupRecord>>>,
    /// Keys whose values were read and found to hash to their key: the Worker keeps such values
    /// for the isolate's life, so each is hashed once, not by every question.
    verified: std::cell::RefCell<std::collections::HashSet<String>>,
    settings: LoadedSettings,
    tables: Tables,
    classes: WordClasses,
    /// Chunk ID → the hash of its lookup record.
    records: HashMap<String, String>,
    lexical: BTreeMap<String, deployed::LexTable>,
    prefix: String,
    domains: BTreeSet<String>,
    libraries: BTreeSet<String>,
    fields: BTreeSet<String>,
}

/// What the Worker needs to know of an opened version.
#[derive(Debug, Serialize)]
pub struct Opened {
    pub corpus_version: String,
    /// `hash`, `workers-ai` or `command` (which cannot run in a Worker).
    pub embedding: deployed::EmbedderSpec,
    /// How many matches to ask the vector index for.
    pub top_k: usize,
}

impl Version {
    /// The keys to read for version `version` stored under `prefix`, given its key table as
    /// read: its manifest, every domain's record and document tables and lexical meta, and its
    /// query settings.
    pub fn needed(prefix: &str, version: &str, table: &str) -> Result<Needed> {
        let t = parse_table(table)?;
        let settings = t.settings.as_ref().ok_or_else(|| {
            Failure::new(
                "no-settings",
                format!("version {version} was deployed without its query settings"),
                "deploy the build again with this askzico (`askzico deploy --target NAME`): the deploy writes them",
            )
        })?;
        let mut keys = vec![
            deployed::manifest_key(prefix, version),
            deployed::settings_key(prefix, settings),
        ];
        for (domain, h) in &t.records {
            let d = t.docs.get(domain).ok_or_else(|| {
                Failure::deployed(format!(
                    "the key table of version {version} names no document table for domain `{domain}`"
                ))
            })?;
            keys.push(deployed::table_key(prefix, h));
            keys.push(deployed::doc_table_key(prefix, d));
        }
        for l in t.lexical.values() {
            keys.push(deployed::lexical_key(prefix, &l.meta));
        }
        Ok(Needed { keys })
    }

    /// The version from its key table and the values of [`Version::needed`]'s keys, in that
    /// order; each content-addressed value must hash to its key.
    pub fn open(
        prefix: &str,
        version: &str,
        table: &str,
        values: &[&str],
        budget: Budget,
    ) -> Result<Version> {
        let keys = Version::needed(prefix, version, table)?.keys;
        if values.len() != keys.len() {
            return Err(Failure::deployed(format!(
                "{} values given for the {} keys version {version} needs",
                values.len(),
                keys.len()
            )));
        }
        for (key, value) in keys.iter().zip(values).skip(1) {
            let h = key.rsplit('/').next().unwrap_or("");
            if deployed::value_hash(value.as_bytes()) != h {
                return Err(Failure::deployed(format!(
                    "`{key}` does not hash to its key"
                )));
            }
        }
        let t = parse_table(table)?;
        let manifest: ManifestLibraries = serde_json::from_str(values[0]).map_err(|e| {
            Failure::deployed(format!(
                "the manifest of version {version} does not parse: {e}"
            ))
        })?;
        if manifest.corpus_version != version {
            return Err(Failure::deployed(format!(
                "the manifest under version {version} names version {}",
                manifest.corpus_version
            )));
        }
        let settings = QuerySettings::parse(values[1])?.load();
        let mut chunks = Chunks::default();
        let mut at = 2;
        for domain in t.records.keys() {
            chunks.add_domain(domain, values[at], values[at + 1])?;
            at += 2;
        }
        let mut lex_meta = BTreeMap::new();
        for domain in t.lexical.keys() {
            let meta: LexMeta = serde_json::from_str(values[at]).map_err(|e| {
                Failure::deployed(format!(
                    "the lexical meta of domain `{domain}` does not parse: {e}"
                ))
            })?;
            lex_meta.insert(domain.clone(), meta);
            at += 1;
        }
        let classes = Ranker::classes(&settings.settings());
        let lib = &manifest.libraries;
        Ok(Version {
            tables: Tables {
                corpus_version: version.to_string(),
                chunks: chunks.chunks,
                lex_meta,
            },
            records: chunks.records,
            lexical: t.lexical,
            prefix: prefix.to_string(),
            domains: lib.iter().flat_map(|l| l.domains.iter().cloned()).collect(),
            libraries: lib.iter().map(|l| l.id.clone()).collect(),
            fields: lib
                .iter()
                .flat_map(|l| l.filterable.iter().cloned())
                .collect(),
            settings,
            classes,
            verified: Default::default(),
            shards: std::cell::RefCell::new(Held::new(budget.shards)),
            held_records: std::cell::RefCell::new(Held::new(budget.records)),
        })
    }

    /// Whether `value` as read under `key` hashes to it (remembered once it does).
    fn hashes_to(&self, key: &str, value: &str) -> bool {
        if self.verified.borrow().contains(key) {
            return true;
        }
        let ok = deployed::value_hash(value.as_bytes()) == key.rsplit('/').next().unwrap_or("");
        if ok {
            self.verified.borrow_mut().insert(key.to_string());
        }
        ok
    }

    pub fn opened(&self) -> Opened {
        Opened {
            corpus_version: self.tables.corpus_version.clone(),
            embedding: self.settings.embedding.clone(),
            top_k: deployed::top_k(self.settings.retrieval.depth),
        }
    }

    fn ranker(&self) -> Ranker<'_> {
        Ranker::borrowing(self.settings.settings(), &self.tables, &self.classes)
    }
}

fn parse_table(table: &str) -> Result<VersionTable> {
    let t: VersionTable = serde_json::from_str(table)
        .map_err(|e| Failure::deployed(format!("the version's key table does not parse: {e}")))?;
    if !deployed::content_addressed(t.layout) {
        return Err(Failure::new(
            "layout",
            format!(
                "the version is stored in layout {}; this Worker reads layouts 2 to {}",
                t.layout,
                deployed::LAYOUT
            ),
            "update the Worker: `askzico worker init` then `npx wrangler deploy`",
        ));
    }
    Ok(t)
}

/// The bytes of values a version may keep between questions.
#[derive(Debug, Clone, Copy, Default)]
pub struct Budget {
    /// Of term shards (as stored).
    pub shards: usize,
    /// Of lookup records (as stored; parsed, they take about as much).
    pub records: usize,
}

/// Values by KV key, least recently used evicted first once over the byte budget.
struct Held<T> {
    map: HashMap<String, (T, u64, usize)>,
    bytes: usize,
    budget: usize,
    tick: u64,
}

impl<T: Clone> Held<T> {
    fn new(budget: usize) -> Held<T> {
        Held {
            map: HashMap::new(),
            bytes: 0,
            budget,
            tick: 0,
        }
    }

    fn get(&mut self, key: &str) -> Option<T> {
        self.tick += 1;
        let tick = self.tick;
        self.map.get_mut(key).map(|(s, used, _)| {
            *used = tick;
            s.clone()
        })
    }

    fn put(&mut self, key: String, value: T, bytes: usize) {
        if bytes > self.budget || self.map.contains_key(&key) {
            return;
        }
        self.tick += 1;
        self.bytes += bytes;
        self.map.insert(key, (value, self.tick, bytes));
        while self.bytes > self.budget {
            let Some(oldest) = self
                .map
                .iter()
                .min_by_key(|(_, (_, used, _))| *used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some((_, _, b)) = self.map.remove(&oldest) {
                self.bytes -= b;
            }
        }
    }
}

/// A visitor's question as the Worker received it.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Ask {
    pub q: String,
    pub k: Option<usize>,
    pub domains: Vec<String>,
    pub libraries: Vec<String>,
    /// `KEY=VALUE` filters, as sent.
    #[serde(rename = "where")]
    pub wheres: Vec<String>,
    /// `fused` (default), `lexical` or `vector`.
    pub mode: Option<String>,
}

/// A question between its steps.
pub struct Question {
    question: String,
    k: usize,
    /// Per shard the plan names: its KV key, and the shard when the cache held it at planning.
    shards: Vec<(String, Option<ShardData>)>,
    plan: Option<Plan>,
    scored: Option<Scored>,
    /// The records step 2 named, in order: chunk ID, KV key (`None`: the version names no
    /// record for it), and the record when the version held it at ranking.
    record_ids: Vec<(String, Option<String>, Option<Arc<LookupRecord>>)>,
}

/// What step 1 asks the Worker to read: the term shards, and the question to embed.
#[derive(Debug, Serialize)]
pub struct Planned {
    pub shards: Vec<String>,
    /// The question's search text when the mode ranks by vectors (what is embedded).
    pub embed: Option<String>,
    /// The question's vector when the version's embedder runs here (`hash`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector: Option<Vec<f32>>,
}

/// What step 2 asks the Worker to read: lookup records.
#[derive(Debug, Serialize)]
pub struct Ranked {
    pub records: Vec<String>,
    /// Vector IDs the index returned that the version does not name (to log).
    pub stale: Vec<String>,
}

impl Version {
    /// Step 1: the question checked and planned.
    pub fn plan(&self, ask: Ask) -> Result<(Question, Planned)> {
        let question = ask.q.trim().to_string();
        if question.is_empty() {
            return Err(Failure::bad_request("the question `q` is empty"));
        }
        if question.chars().count() > MAX_QUESTION_CHARS {
            return Err(Failure::bad_request(format!(
                "the question is longer than {MAX_QUESTION_CHARS} characters"
            )));
        }
        let k = ask.k.unwrap_or(5);
        if !(1..=MAX_K).contains(&k) {
            return Err(Failure::bad_request(format!("`k` must be 1 to {MAX_K}")));
        }
        let mode = match ask.mode.as_deref() {
            None | Some("fused") => Mode::Fused,
            Some("lexical") => Mode::Lexical,
            Some("vector") => Mode::Vector,
            Some(_) => {
                return Err(Failure::bad_request(
                    "`mode` must be fused, lexical or vector",
                ));
            }
        };
        known("domain", &self.domains, &ask.domains)?;
        known("library", &self.libraries, &ask.libraries)?;
        let mut fields = Vec::new();
        for w in &ask.wheres {
            match w.split_once('=') {
                Some((key, value)) if !key.trim().is_empty() => {
                    fields.push((key.trim().to_string(), value.to_string()))
                }
                _ => {
                    return Err(Failure::bad_request(
                        "`where` must be KEY=VALUE (a filterable field and its value)",
                    ));
                }
            }
        }
        let keys: Vec<String> = fields.iter().map(|(k, _)| k.clone()).collect();
        known("filterable field", &self.fields, &keys)?;
        let ranker = self.ranker();
        let plan = ranker
            .plan(&question, &ask.domains, mode)
            .in_libraries(&ask.libraries)
            .with_fields(&fields);
        let keys: Vec<String> = plan
            .shards()
            .iter()
            .map(|(domain, n)| self.shard_key(domain, *n))
            .collect::<Result<_>>()?;
        let held: Vec<(String, Option<ShardData>)> = {
            let mut cache = self.shards.borrow_mut();
            keys.into_iter()
                .map(|k| {
                    let s = cache.get(&k);
                    (k, s)
                })
                .collect()
        };
        let shards = held
            .iter()
            .filter(|(_, s)| s.is_none())
            .map(|(k, _)| k.clone())
            .collect();
        let embed = plan.embedding_input().map(|s| s.as_str().to_string());
        let vector = match (&embed, self.settings.embedding.provider.as_str()) {
            (Some(text), "hash") => {
                Some(HashEmbedder::new(self.settings.embedding.dims).embed(text))
            }
            _ => None,
        };
        let q = Question {
            question,
            k,
            shards: held,
            plan: Some(plan),
            scored: None,
            record_ids: Vec::new(),
        };
        Ok((
            q,
            Planned {
                shards,
                embed,
                vector,
            },
        ))
    }

    fn shard_key(&self, domain: &str, n: usize) -> Result<String> {
        let h = self
            .lexical
            .get(domain)
            .and_then(|l| l.shards.get(n))
            .filter(|h| !h.is_empty())
            .ok_or_else(|| {
                Failure::deployed(format!(
                    "the key table names no lexical shard {n} of domain `{domain}`"
                ))
            })?;
        Ok(deployed::lexical_key(&self.prefix, h))
    }

    /// Step 2: the shards step 1 asked for, read (in its order), and the vector index's matches
    /// (`None`: no vector ranking); names the records to read.
    pub fn rank(
        &self,
        q: &mut Question,
        shards: &[&str],
        matches: Option<Vec<(String, f64)>>,
    ) -> Result<Ranked> {
        let plan = q
            .plan
            .take()
            .ok_or_else(|| Failure::new("invariant", "the question was ranked twice", ""))?;
        let wanted = q.shards.iter().filter(|(_, s)| s.is_none()).count();
        if shards.len() != wanted {
            return Err(Failure::new(
                "invariant",
                format!(
                    "{} shards given for the {wanted} step 1 asked for",
                    shards.len()
                ),
                "",
            ));
        }
        let mut given = shards.iter();
        let mut read = Shards::new();
        for (key, (kv_key, held)) in plan.shards().iter().zip(&q.shards) {
            let shard = match held {
                Some(s) => s.clone(),
                None => {
                    let text = given.next().copied().unwrap_or_default();
                    if !self.hashes_to(kv_key, text) {
                        return Err(Failure::deployed(format!(
                            "`{kv_key}` does not hash to its key"
                        )));
                    }
                    let shard = ShardData::read(text.to_string()).map_err(|e| {
                        Failure::deployed(format!("`{kv_key}` is not a lexical shard: {e}"))
                    })?;
                    self.shards
                        .borrow_mut()
                        .put(kv_key.clone(), shard.clone(), text.len());
                    shard
                }
            };
            read.insert(key.clone(), shard);
        }
        let ranker = self.ranker();
        let mut stale = Vec::new();
        let vector = match matches {
            None => Vec::new(),
            Some(m) => {
                let keep = ranker.keeps(&plan);
                let depth = self.settings.retrieval.depth;
                let got = deployed::nearest(
                    m,
                    deployed::top_k(depth),
                    |id| self.records.contains_key(id),
                    keep,
                    depth,
                );
                stale = got.stale;
                got.found
            }
        };
        let scored = ranker.rank(plan, &read, vector)?;
        let mut held = self.held_records.borrow_mut();
        q.record_ids = scored
            .needs(&ranker, Some(q.k))
            .into_iter()
            .map(|id| {
                let key = self
                    .records
                    .get(&id)
                    .map(|h| deployed::record_key(&self.prefix, h));
                let record = key.as_deref().and_then(|k| held.get(k));
                (id, key, record)
            })
            .collect();
        q.scored = Some(scored);
        let records = q
            .record_ids
            .iter()
            .filter(|(_, _, r)| r.is_none())
            .filter_map(|(_, k, _)| k.clone())
            .collect();
        Ok(Ranked { records, stale })
    }

    /// Step 3: the records read (in the order step 2 named them); the answer as JSON, the same
    /// bytes `askzico query --json` prints for it.
    pub fn answer(&self, q: &mut Question, records: &[Option<&str>]) -> Result<String> {
        let scored = q
            .scored
            .take()
            .ok_or_else(|| Failure::new("invariant", "the question was not ranked", ""))?;
        // The records step 2 asked the Worker for: named by the version, not held.
        let wanted = q
            .record_ids
            .iter()
            .filter(|(_, k, r)| k.is_some() && r.is_none())
            .count();
        if records.len() != wanted {
            return Err(Failure::new(
                "invariant",
                format!("{} records given for the {wanted} named", records.len()),
                "",
            ));
        }
        let mut given = records.iter();
        let mut read = Records::new();
        for (id, key, held) in &q.record_ids {
            let record = match (key, held) {
                (None, _) => None,
                (Some(_), Some(r)) => Some(r.clone()),
                (Some(key), None) => {
                    // A record the version names but KV does not hold stays `None`: the core
                    // then fails the answer as an invariant, naming the chunk.
                    match given.next().copied().flatten() {
                        None => None,
                        Some(value) => {
                            if !self.hashes_to(key, value) {
                                return Err(Failure::deployed(format!(
                                    "`{key}` does not hash to its key"
                                )));
                            }
                            let record =
                                Arc::new(deployed::parse_record(id, value).map_err(|e| {
                                    Failure::deployed(format!(
                                        "`{key}` is not a lookup record: {e}"
                                    ))
                                })?);
                            self.held_records.borrow_mut().put(
                                key.clone(),
                                record.clone(),
                                value.len(),
                            );
                            Some(record)
                        }
                    }
                }
            };
            read.insert(id.clone(), record);
        }
        let ranker = self.ranker();
        let search = askzico_core::normalize::query_text(&q.question, &self.settings.normalize);
        let hits = ranker.answer(scored, &read, q.k)?;
        let answer = Answer {
            question: &q.question,
            search_text: search.as_str(),
            corpus_version: &self.tables.corpus_version,
            hits: &hits,
        };
        Ok(serde_json::to_string(&answer).expect("serializes"))
    }
}

/// Every name asked is one the version has; else a bad request naming the ones it has.
fn known(what: &str, have: &BTreeSet<String>, asked: &[String]) -> Result<()> {
    let unknown: Vec<&str> = asked
        .iter()
        .filter(|a| !have.contains(a.as_str()))
        .map(String::as_str)
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let have: Vec<&str> = have.iter().map(String::as_str).collect();
    Err(Failure::new(
        "bad-request",
        format!("unknown {what}: {}", unknown.join(", ")),
        if have.is_empty() {
            format!("this site has no {what}")
        } else {
            format!("one of: {}", have.join(", "))
        },
    ))
}

/// A failure as the JSON the Worker returns.
pub fn failure_json(f: &Failure) -> String {
    json!({ "error": f }).to_string()
}

/// A value as JSON.
pub fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serializes")
}

/// Parsed JSON of a request the Worker built.
pub fn from_json<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Failure::bad_request(format!("malformed request: {e}")))
}
