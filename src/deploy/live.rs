//! The live version of a target read as a runtime reads it, for `askzico query --target`: the
//! pointer, the version's manifest and key table, each domain's record table, document table and
//! lexical meta (once), then per question the lexical shards of its terms from KV, the vector
//! candidates from the query endpoint of the index the pointer names, and each retrieved chunk's
//! record in one read of `<prefix>r/<h>` (`h` from the record table already held). The ranking
//! is `retrieve`'s, over this store instead of a build's files. Reads only.

use std::collections::{BTreeMap, HashMap};

use super::DeployError;
use super::client::Client;
use super::journal::Pointer;
use super::keys::{self, LexTable, VersionTable};
use crate::artifacts::LookupRecord;
use crate::artifacts::lexical::LexMeta;
use crate::artifacts::manifest::Manifest;
use crate::config::DeployTarget;
use crate::diag::Problem;
use crate::retrieve::{ChunkInfo, Ranking, ShardKey, Shards, VersionStore};
use askzico_core::deployed::{self, Chunks, LoadedSettings, QuerySettings};
use askzico_core::lexical::ShardData;

/// Keys per bulk read (the limit Cloudflare documents for bulk gets).
const GET_KEYS: usize = 100;

/// The most vectors Vectorize's query returns without values or metadata.
pub(crate) const MAX_TOP_K: usize = deployed::MAX_TOP_K;

/// The live version: what a searcher holds, and the store of the rest.
pub(crate) struct Live {
    pub manifest: Manifest,
    pub chunks: BTreeMap<String, ChunkInfo>,
    pub lex_meta: BTreeMap<String, LexMeta>,
    /// The query settings deployed with the version; `None` for a version deployed before
    /// they travelled with it (a query then reads the local config's).
    pub settings: Option<LoadedSettings>,
    pub store: KvStore,
}

/// Lexical shards, vector candidates and records of the live version, read through the API.
pub(crate) struct KvStore {
    client: Client,
    target: String,
    ns: String,
    prefix: String,
    version: String,
    index: String,
    lexical: BTreeMap<String, LexTable>,
    /// Chunk ID → the hash of its lookup record.
    records: HashMap<String, String>,
}

/// Reads the live version of `target` (`t`): the pointer, the version's manifest and key table,
/// each domain's record and document tables (its chunks) and lexical meta.
pub(crate) fn open(client: Client, t: &DeployTarget, target: &str) -> Result<Live, Problem> {
    let r = Reader {
        client: &client,
        target,
        ns: &t.kv_namespace_id,
    };
    let p = live_pointer(&r, t, target)?;
    let v = &p.version;
    let redeploy = format!(
        "the live version is incomplete or was changed outside askzico: \
         `askzico deploy --target {target} --check` names what it lacks; deploy a build again"
    );
    let manifest = version_manifest(&r, t, v, &redeploy)?;
    let table = key_table(&r, t, target, v, &redeploy)?;
    let values = r.values(&table_keys(&r, t, &table, v, &redeploy)?, &redeploy)?;
    let value = |key: &str| values.get(key).map(String::as_str).unwrap_or_default();
    let Chunks { chunks, records } = chunks(&r, t, &table, value, &redeploy)?;
    let mut lex_meta = BTreeMap::new();
    for (domain, l) in &table.lexical {
        let key = keys::lexical_key(&t.prefix, &l.meta);
        let meta: LexMeta = serde_json::from_str(value(&key)).map_err(|e| {
            r.problem(format!("`{key}` is not a lexical meta: {e}"))
                .help(redeploy.clone())
        })?;
        lex_meta.insert(domain.clone(), meta);
    }
    let settings = match &table.settings {
        None => None,
        Some(h) => {
            let key = keys::settings_key(&t.prefix, h);
            let parsed = QuerySettings::parse(value(&key)).map_err(|e| {
                r.problem(format!("`{key}`: {}", e.message))
                    .help(if e.code == "settings-format" {
                        e.help
                    } else {
                        redeploy.clone()
                    })
            })?;
            Some(parsed.load())
        }
    };
    let store = KvStore {
        client,
        target: target.to_string(),
        ns: t.kv_namespace_id.clone(),
        prefix: t.prefix.clone(),
        version: v.clone(),
        index: p.index.clone(),
        lexical: table.lexical,
        records,
    };
    Ok(Live {
        manifest,
        chunks,
        lex_meta,
        settings,
        store,
    })
}

/// The pointer: present, in the layout this askzico reads, naming one of the target's indexes.
fn live_pointer(r: &Reader, t: &DeployTarget, target: &str) -> Result<Pointer, Problem> {
    let pointer_key = keys::pointer_key(&t.prefix);
    let deploy_hint = format!("deploy a build to it: `askzico deploy --target {target}`");
    let Some(text) = r.get(&pointer_key)? else {
        return Err(r
            .problem(format!(
                "nothing is deployed: KV namespace {} has no pointer `{pointer_key}`",
                t.kv_namespace_id
            ))
            .help(deploy_hint));
    };
    let p: Pointer = serde_json::from_str(&text).map_err(|e| {
        r.problem(format!(
            "the pointer `{pointer_key}` is not {{\"version\", \"index\", \"layout\"}}: {e}"
        ))
        .help(format!(
            "it was written outside askzico; {deploy_hint} (the pointer is written last)"
        ))
    })?;
    let v = &p.version;
    match p.layout {
        Some(n) if keys::content_addressed(n) => {}
        Some(1) | None => {
            return Err(r
                .problem(DeployError::OldLayout { version: v.clone() })
                .help(format!(
                    "{deploy_hint}: the deploy upgrades the target to layout {} in place",
                    keys::LAYOUT
                )));
        }
        Some(n) => {
            return Err(r
                .problem(DeployError::NewerLayout {
                    version: v.clone(),
                    layout: n,
                })
                .help("use the askzico that deployed it, or a newer one"));
        }
    }
    if !t.indexes.contains(&p.index) {
        return Err(r
            .problem(format!(
                "the pointer names index `{}`, which is not one of the target's indexes ({})",
                p.index,
                t.indexes.join(", ")
            ))
            .help(format!(
                "check `indexes` in [deploy.{target}], or {deploy_hint}"
            )));
    }
    Ok(p)
}

/// The manifest of version `v`, which must name `v`.
fn version_manifest(
    r: &Reader,
    t: &DeployTarget,
    v: &str,
    redeploy: &str,
) -> Result<Manifest, Problem> {
    let mkey = keys::manifest_key(&t.prefix, v);
    let manifest: Manifest = match r.get(&mkey)? {
        None => return Err(r.problem(format!("`{mkey}` is missing")).help(redeploy)),
        Some(text) => serde_json::from_str(&text).map_err(|e| {
            r.problem(format!("`{mkey}` is not an askzico manifest: {e}"))
                .help(redeploy)
        })?,
    };
    if manifest.corpus_version != v {
        return Err(r
            .problem(format!(
                "`{mkey}` names version {}, not the version {v} the pointer names",
                manifest.corpus_version
            ))
            .help(redeploy));
    }
    Ok(manifest)
}

/// The key table of version `v`, with the document tables a search needs.
fn key_table(
    r: &Reader,
    t: &DeployTarget,
    target: &str,
    v: &str,
    redeploy: &str,
) -> Result<VersionTable, Problem> {
    let tkey = keys::version_table_key(&t.prefix, v);
    let table = match r.get(&tkey)? {
        None => return Err(r.problem(format!("`{tkey}` is missing")).help(redeploy)),
        Some(text) => keys::parse_table(&text, &tkey).map_err(|e| r.problem(e).help(redeploy))?,
    };
    if table.docs.is_empty() && !table.records.is_empty() {
        return Err(r
            .problem(format!(
                "version {v} was deployed without document tables (`{}d/…`), which a search \
                 needs for the sources and dates of its chunks",
                t.prefix
            ))
            .help(format!(
                "deploy a new build: `askzico deploy --target {target}` writes them"
            )));
    }
    Ok(table)
}

/// The keys read once: per domain its record table and document table, then the lexical metas.
fn table_keys(
    r: &Reader,
    t: &DeployTarget,
    table: &VersionTable,
    v: &str,
    redeploy: &str,
) -> Result<Vec<String>, Problem> {
    let mut wanted: Vec<String> = Vec::new();
    for (domain, h) in &table.records {
        let d = table.docs.get(domain).ok_or_else(|| {
            r.problem(format!(
                "`{}` names a record table but no document table for domain `{domain}`",
                keys::version_table_key(&t.prefix, v)
            ))
            .help(redeploy)
        })?;
        wanted.push(keys::table_key(&t.prefix, h));
        wanted.push(keys::doc_table_key(&t.prefix, d));
    }
    for l in table.lexical.values() {
        wanted.push(keys::lexical_key(&t.prefix, &l.meta));
    }
    wanted.extend(
        table
            .settings
            .iter()
            .map(|h| keys::settings_key(&t.prefix, h)),
    );
    Ok(wanted)
}

/// The chunks of the live version, from its record and document tables.
fn chunks<'v>(
    r: &Reader,
    t: &DeployTarget,
    table: &VersionTable,
    value: impl Fn(&str) -> &'v str,
    redeploy: &str,
) -> Result<Chunks, Problem> {
    let mut chunks = Chunks::default();
    for (domain, h) in &table.records {
        let key = keys::table_key(&t.prefix, h);
        let dkey = keys::doc_table_key(&t.prefix, &table.docs[domain]);
        chunks
            .add_domain(domain, value(&key), value(&dkey))
            .map_err(|e| r.problem(e.message).help(redeploy))?;
    }
    Ok(chunks)
}

/// KV reads that word their failures as problems of the target.
struct Reader<'c> {
    client: &'c Client,
    target: &'c str,
    ns: &'c str,
}

impl Reader<'_> {
    fn problem(&self, message: impl std::fmt::Display) -> Problem {
        Problem::error("deployed", format!("target `{}`: {message}", self.target))
    }

    fn get(&self, key: &str) -> Result<Option<String>, Problem> {
        self.client.kv_get(self.ns, key).map_err(|e| {
            self.problem(e.as_str()).help(
                "check the network, CLOUDFLARE_API_TOKEN and the target's account and namespace",
            )
        })
    }

    /// Content-addressed values, all present and each hashing to its key (`<prefix>x/<h>`), in
    /// bulk reads; a missing or changed one fails with `help`.
    fn values(&self, keys: &[String], help: &str) -> Result<HashMap<String, String>, Problem> {
        let mut out = HashMap::new();
        for batch in keys.chunks(GET_KEYS) {
            let got = self.client.kv_bulk_get(self.ns, batch).map_err(|e| {
                self.problem(e.as_str()).help(
                    "check the network, CLOUDFLARE_API_TOKEN and the target's account and namespace",
                )
            })?;
            for (key, value) in got {
                let value = self.checked(&key, value, help)?;
                out.insert(key, value);
            }
        }
        Ok(out)
    }

    /// A content-addressed value as read: present, and hashing to its key.
    fn checked(&self, key: &str, value: Option<String>, help: &str) -> Result<String, Problem> {
        let Some(value) = value else {
            return Err(self
                .problem(format!("`{key}` is missing"))
                .help(help.to_string()));
        };
        let h = key.rsplit('/').next().unwrap_or("");
        if keys::value_hash(value.as_bytes()) != h {
            return Err(self
                .problem(DeployError::ValueHash {
                    key: key.to_string(),
                })
                .help(help.to_string()));
        }
        Ok(value)
    }
}

impl KvStore {
    fn reader(&self) -> Reader<'_> {
        Reader {
            client: &self.client,
            target: &self.target,
            ns: &self.ns,
        }
    }

    fn help(&self) -> String {
        format!(
            "version {} is incomplete or was changed outside askzico: `askzico deploy --target {} --check` names what it lacks",
            self.version, self.target
        )
    }
}

impl KvStore {
    /// The KV key of term shard `shard` of `domain`, from the version's key table.
    fn lex_key(&self, domain: &str, shard: usize) -> Result<String, Problem> {
        let h = self
            .lexical
            .get(domain)
            .and_then(|l| l.shards.get(shard))
            .filter(|h| !h.is_empty())
            .ok_or_else(|| {
                self.reader()
                    .problem(format!(
                        "the key table of version {} names no lexical shard {shard} of domain `{domain}`",
                        self.version
                    ))
                    .help(self.help())
            })?;
        Ok(keys::lexical_key(&self.prefix, h))
    }

    fn parse_shard(&self, key: &str, value: &str) -> Result<ShardData, Problem> {
        ShardData::read(value.to_string()).map_err(|e| {
            self.reader()
                .problem(format!("`{key}` is not a lexical shard: {e}"))
                .help(self.help())
        })
    }
}

impl VersionStore for KvStore {
    fn lex_shard(&self, domain: &str, shard: usize) -> Result<ShardData, Problem> {
        let r = self.reader();
        let key = self.lex_key(domain, shard)?;
        let value = r.checked(&key, r.get(&key)?, &self.help())?;
        self.parse_shard(&key, &value)
    }

    /// The shards a question's plan names, in bulk gets of up to 100 keys (one get for one).
    fn lex_shards(&self, wanted: &[ShardKey]) -> Result<Shards, Problem> {
        if let [(domain, shard)] = wanted {
            let one = self.lex_shard(domain, *shard)?;
            return Ok(Shards::from([((domain.clone(), *shard), one)]));
        }
        let keyed: Vec<(&ShardKey, String)> = wanted
            .iter()
            .map(|k| Ok((k, self.lex_key(&k.0, k.1)?)))
            .collect::<Result<_, Problem>>()?;
        let mut distinct: Vec<String> = keyed.iter().map(|(_, key)| key.clone()).collect();
        distinct.sort();
        distinct.dedup();
        let values = if distinct.is_empty() {
            HashMap::new()
        } else {
            self.reader().values(&distinct, &self.help())?
        };
        keyed
            .into_iter()
            .map(|(k, key)| Ok((k.clone(), self.parse_shard(&key, &values[&key])?)))
            .collect()
    }

    /// The index's `min(k, 100)` nearest, then those `keep` accepts: with a domain filter, a
    /// chunk of another domain takes a place among the 100 (Vectorize filters no list field).
    fn nearest(
        &self,
        q: &[f32],
        keep: &dyn Fn(&str) -> bool,
        k: usize,
    ) -> Result<Ranking, Problem> {
        let r = self.reader();
        if q.iter().all(|x| *x == 0.0) {
            // A question without features scores 0 against every vector: no candidate (cosine
            // is undefined for it).
            return Ok(Vec::new());
        }
        if k > MAX_TOP_K {
            eprintln!(
                "note: Vectorize returns at most {MAX_TOP_K} vectors a query; the vector candidates stop there, not at depth {k}"
            );
        }
        let top = deployed::top_k(k);
        let matches = self.client.query(&self.index, q, top).map_err(|e| {
            r.problem(e.as_str())
                .help("check that the target's Vectorize index exists and the token may read it")
        })?;
        let got = deployed::nearest(matches, top, |id| self.records.contains_key(id), keep, k);
        // A vector of an ID the live version's record tables do not name is the index's state,
        // not this version's: it is left out of the answer and named, with the check that lists
        // every such vector, rather than failing a question the rest of the index answers.
        if !got.stale.is_empty() {
            let stale: Vec<String> = got
                .stale
                .iter()
                .map(|id| crate::term::line(id).into_owned())
                .collect();
            eprintln!(
                "warning: index `{}` holds {} that version {} does not name ({}); they were left out of this answer. Remove them with `wrangler vectorize delete-vectors {} --ids {}`, or deploy the next build: a deploy lists the index it writes and deletes what its version does not name",
                self.index,
                crate::term::count(stale.len(), "vector", "vectors"),
                self.version,
                stale.join(", "),
                self.index,
                stale.join(" "),
            );
        }
        if got.crowded {
            eprintln!(
                "note: some of the index's {top} nearest vectors are of other domains; vector candidates of the domains asked may be missing below them"
            );
        }
        Ok(got.found)
    }

    /// One read of `<prefix>r/<h>` per record (a single get, or bulk gets of up to 100 keys).
    fn records(&self, ids: &[&str]) -> Result<Vec<Option<LookupRecord>>, Problem> {
        let r = self.reader();
        let help = self.help();
        let keyed: Vec<Option<String>> = ids
            .iter()
            .map(|id| {
                self.records
                    .get(*id)
                    .map(|h| keys::record_key(&self.prefix, h))
            })
            .collect();
        let mut wanted: Vec<String> = keyed.iter().flatten().cloned().collect();
        wanted.sort();
        wanted.dedup();
        let values = match wanted.as_slice() {
            [] => HashMap::new(),
            [one] => {
                let value = r.checked(one, r.get(one)?, &help)?;
                HashMap::from([(one.clone(), value)])
            }
            _ => r.values(&wanted, &help)?,
        };
        ids.iter()
            .zip(keyed)
            .map(|(id, key)| {
                let Some(key) = key else { return Ok(None) };
                let record = deployed::parse_record(id, &values[&key]).map_err(|e| {
                    r.problem(format!("`{key}` is not a lookup record: {e}"))
                        .help(help.clone())
                })?;
                Ok(Some(record))
            })
            .collect()
    }
}
