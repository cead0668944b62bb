//! `askzico deploy --target NAME --check`: reads the live version back through the API the way a
//! runtime reads it (the pointer, the version's key table, record and document tables, lexical
//! files) and confirms that every chunk ID of the version resolves to a stored record, every value
//! hashes to its key, every chunk a lexical document table names has a record hash, and the live
//! index holds every chunk's vector naming that record (so a key table of another version fails).
//! A pointer without a layout over a version of layout 2 fails; so does a check that covered no
//! chunk. Reads only (bulk gets of 100 keys, `get_by_ids` of 100 IDs).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use super::DeployError;
use super::client::Client;
use super::error::Stored;
use super::keys::{self, VersionTable};
use super::verify::Want;
use crate::artifacts::lexical::LexMeta;
use crate::config::DeployTarget;

/// Reads `keys` in bulk gets; absent keys map to `None`.
fn get_all(
    c: &Client,
    ns: &str,
    keys: &[String],
) -> Result<BTreeMap<String, Option<String>>, DeployError> {
    super::verify::kv_values(c, ns, keys)
}

/// A content-addressed value read back: the problem when it does not hash to its key
/// (`<prefix>x/<h>`): written outside askzico, or another value under its name.
fn unhashed(key: &str, value: &str) -> Option<String> {
    let h = key.rsplit('/').next().unwrap_or("");
    (keys::value_hash(value.as_bytes()) != h).then(|| {
        DeployError::ValueHash {
            key: key.to_string(),
        }
        .to_string()
    })
}

/// What `index` must hold for a version of layout 2: every chunk ID its record tables name,
/// each vector's metadata naming the record hash the table gives it. A key table swapped for
/// another version's names records the index's vectors do not carry.
pub(crate) fn index_problems(
    c: &Client,
    index: &str,
    records: &RecordTables,
) -> Result<Vec<String>, DeployError> {
    let mut want: BTreeMap<&String, &String> = BTreeMap::new();
    for table in records.values() {
        want.extend(table.iter());
    }
    let want: Vec<Want> = want
        .into_iter()
        .map(|(id, h)| Want {
            id: id.clone(),
            record: Some(h.clone()),
            version: None,
        })
        .collect();
    Ok(super::verify::vectors_wrong(c, index, &want)?
        .iter()
        .map(|w| format!("Vectorize index {index}: {w}"))
        .collect())
}

/// The record tables of a version of layout 2, read back (problems when missing or not as
/// stored).
pub(crate) fn version_records(
    c: &Client,
    t: &DeployTarget,
    version: &str,
    problems: &mut Vec<String>,
) -> Result<(VersionTable, RecordTables), DeployError> {
    let tkey = keys::version_table_key(&t.prefix, version);
    let text = c
        .kv_get(&t.kv_namespace_id, &tkey)?
        .ok_or_else(|| DeployError::Missing {
            key: tkey.clone(),
            what: Stored::KeyTable,
        })?;
    let table = keys::parse_table(&text, &tkey)?;
    let records = record_tables(c, t, &table, problems)?;
    Ok((table, records))
}

/// What the check found: chunk IDs checked and every problem (empty: the version resolves).
pub(crate) struct Found {
    pub version: String,
    pub layout: u32,
    pub chunks: usize,
    pub problems: Vec<String>,
}

/// Checks the version the pointer of `target` (`t`) names.
pub(crate) fn check(c: &Client, t: &DeployTarget, target: &str) -> Result<Found, DeployError> {
    let pointer_key = keys::pointer_key(&t.prefix);
    let p = super::run::read_pointer(c, &t.kv_namespace_id, &pointer_key)?.ok_or_else(|| {
        DeployError::NothingDeployed {
            target: target.to_string(),
            key: pointer_key.clone(),
        }
    })?;
    let v = &p.version;
    let tkey = keys::version_table_key(&t.prefix, v);
    if p.layout.is_none() {
        if c.kv_get(&t.kv_namespace_id, &tkey)?.is_some() {
            // A runtime reading this pointer looks for keys of layout 1 the version never had.
            return Ok(Found {
                version: v.clone(),
                layout: 1,
                chunks: 0,
                problems: vec![format!(
                    "the pointer {pointer_key} names no layout (layout 1), but version {v} is stored in layout {} ({tkey} exists)",
                    keys::LAYOUT
                )],
            });
        }
        return check_layout1(c, t, v);
    }
    let mut problems = Vec::new();
    let (table, records) = version_records(c, t, v, &mut problems)?;
    let layout = p.layout.unwrap_or(1);
    if table.layout != layout {
        // A runtime reads the records by the pointer's layout.
        problems.push(format!(
            "the pointer {pointer_key} names layout {layout}, but version {v} is stored in layout {} ({tkey})",
            table.layout
        ));
    }
    doc_tables(c, t, &table, &mut problems)?;
    stored_records(c, t, &records, &mut problems)?;
    lexical_files(c, t, &table, &records, &mut problems)?;
    problems.extend(index_problems(c, &p.index, &records)?);
    let chunks: BTreeSet<&String> = records.values().flat_map(|m| m.keys()).collect();
    Ok(Found {
        version: v.clone(),
        layout,
        chunks: chunks.len(),
        problems,
    })
}

/// Layout 1: the chunk keys the key pages name must all be stored.
fn check_layout1(c: &Client, t: &DeployTarget, v: &str) -> Result<Found, DeployError> {
    let ns = &t.kv_namespace_id;
    let mut problems = Vec::new();
    let m = super::gc::stored_manifest(c, t, v)?;
    let names = keys::page_keys(&m, &t.prefix, keys::PAGE_IDS);
    let got = get_all(c, ns, &names)?;
    // A complete version of layout 1 has every page its manifest implies.
    problems.extend(
        names
            .iter()
            .filter(|k| got.get(*k).is_none_or(Option::is_none))
            .map(|k| format!("key page {k} is missing")),
    );
    let pages: Vec<Option<String>> = names
        .iter()
        .map(|k| got.get(k).cloned().flatten())
        .collect();
    let vk = keys::version_keys(&m, &t.prefix, &pages, keys::PAGE_IDS)?;
    let chunk_keys: Vec<String> = vk
        .content
        .into_iter()
        .filter(|k| k.contains("/chunk/"))
        .collect();
    for (k, val) in get_all(c, ns, &chunk_keys)? {
        if val.is_none() {
            problems.push(format!("{k} is missing"));
        }
    }
    Ok(Found {
        version: v.to_string(),
        layout: 1,
        chunks: chunk_keys.len(),
        problems,
    })
}

/// Per domain of a chunk ID → record hash, from each domain's record table.
pub(crate) type RecordTables = BTreeMap<String, BTreeMap<String, String>>;

/// Reads every domain's record table; a missing or unreadable one is a problem.
fn record_tables(
    c: &Client,
    t: &DeployTarget,
    table: &VersionTable,
    problems: &mut Vec<String>,
) -> Result<RecordTables, DeployError> {
    let mut records = RecordTables::new();
    // Domain and the key of its record table.
    let tkeys: Vec<(String, String)> = table
        .records
        .iter()
        .map(|(d, h)| (d.clone(), keys::table_key(&t.prefix, h)))
        .collect();
    let got = get_all(
        c,
        &t.kv_namespace_id,
        &tkeys.iter().map(|x| x.1.clone()).collect::<Vec<_>>(),
    )?;
    for (domain, key) in &tkeys {
        match got.get(key).cloned().flatten() {
            Some(text) if unhashed(key, &text).is_some() => problems.extend(unhashed(key, &text)),
            Some(text) => match serde_json::from_str(&text) {
                Ok(ids) => {
                    records.insert(domain.clone(), ids);
                }
                Err(e) => problems.push(format!("{key} is not a record table: {e}")),
            },
            None => problems.push(format!(
                "record table {key} of domain `{domain}` is missing"
            )),
        }
    }
    Ok(records)
}

/// Every domain's document table must be stored.
fn doc_tables(
    c: &Client,
    t: &DeployTarget,
    table: &VersionTable,
    problems: &mut Vec<String>,
) -> Result<(), DeployError> {
    let dkeys: Vec<String> = table
        .docs
        .values()
        .map(|h| keys::doc_table_key(&t.prefix, h))
        .collect();
    for (k, val) in get_all(c, &t.kv_namespace_id, &dkeys)? {
        match val {
            None => problems.push(format!("document table {k} is missing")),
            Some(v) => problems.extend(unhashed(&k, &v)),
        }
    }
    Ok(())
}

/// Every record a record table names must be stored.
fn stored_records(
    c: &Client,
    t: &DeployTarget,
    records: &RecordTables,
    problems: &mut Vec<String>,
) -> Result<(), DeployError> {
    let all: BTreeSet<&String> = records.values().flat_map(|m| m.values()).collect();
    let rkeys: Vec<String> = all.iter().map(|h| keys::record_key(&t.prefix, h)).collect();
    for (k, val) in get_all(c, &t.kv_namespace_id, &rkeys)? {
        match val {
            None => problems.push(format!("record {k} is missing")),
            Some(v) => problems.extend(unhashed(&k, &v)),
        }
    }
    Ok(())
}

/// Lexical files: present, and every chunk a document table names has a record.
fn lexical_files(
    c: &Client,
    t: &DeployTarget,
    table: &VersionTable,
    records: &RecordTables,
    problems: &mut Vec<String>,
) -> Result<(), DeployError> {
    for (domain, l) in &table.lexical {
        let mut lkeys = vec![keys::lexical_key(&t.prefix, &l.meta)];
        lkeys.extend(l.shards.iter().map(|h| keys::lexical_key(&t.prefix, h)));
        let got = get_all(c, &t.kv_namespace_id, &lkeys)?;
        for (k, val) in &got {
            match val {
                None => problems.push(format!("lexical file {k} of domain `{domain}` is missing")),
                Some(v) => problems.extend(unhashed(k, v)),
            }
        }
        let Some(Some(text)) = got.get(&lkeys[0]) else {
            continue;
        };
        if unhashed(&lkeys[0], text).is_some() {
            continue;
        }
        let meta: LexMeta = match serde_json::from_str(text) {
            Ok(m) => m,
            Err(e) => {
                problems.push(format!("{} is not a lexical meta: {e}", lkeys[0]));
                continue;
            }
        };
        let table = records.get(domain);
        for (_, doc, lens) in &meta.docs {
            for i in 0..lens.len() {
                let id = format!("{doc}:{i:0w$}", w = meta.width);
                if table.is_none_or(|t| !t.contains_key(&id)) {
                    problems.push(format!(
                        "chunk {id} of the lexical table of domain `{domain}` has no record hash"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Runs the check and reports it; `Err` (exit 1) when a chunk does not resolve.
pub(crate) fn run(
    c: &Client,
    t: &DeployTarget,
    target: &str,
    json_out: bool,
) -> Result<(), DeployError> {
    let mut f = check(c, t, target)?;
    if f.chunks == 0 && f.problems.is_empty() {
        // A check that covered nothing proves nothing.
        f.problems.push(format!(
            "the check covered no chunk ID: version {} names none that could be read",
            f.version
        ));
    }
    if json_out {
        println!(
            "{}",
            json!({"target": target, "version": f.version, "layout": f.layout, "chunks": f.chunks, "problems": f.problems})
        );
    }
    if !f.problems.is_empty() {
        return Err(DeployError::CheckFailed {
            target: target.to_string(),
            version: f.version,
            layout: f.layout,
            problems: f.problems,
        });
    }
    if !json_out {
        println!(
            "check of {target}: every one of the {} chunk IDs of version {} (layout {}) resolves",
            f.chunks,
            crate::term::line(&f.version),
            f.layout
        );
    }
    Ok(())
}
