//! `askzico deploy --target NAME --check`: reads the live version back through the API the way a
//! runtime reads it (the pointer, the version's key table, record and document tables, lexical
//! files) and confirms that every chunk ID of the version resolves to a stored record, and every
//! chunk a lexical document table names has a record hash. Reads only (bulk gets of 100 keys).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use super::DeployError;
use super::client::Client;
use super::error::Stored;
use super::keys::{self, VersionTable};
use crate::artifacts::lexical::LexMeta;
use crate::config::DeployTarget;

/// Keys per bulk get (the limit Cloudflare documents for bulk reads).
const GET_KEYS: usize = 100;

/// Reads `keys` in bulk gets; absent keys map to `None`.
fn get_all(
    c: &Client,
    ns: &str,
    keys: &[String],
) -> Result<BTreeMap<String, Option<String>>, DeployError> {
    let mut out = BTreeMap::new();
    for batch in keys.chunks(GET_KEYS) {
        out.extend(c.kv_bulk_get(ns, batch)?);
    }
    Ok(out)
}

/// What the check found: chunk IDs checked and every problem (empty: the version resolves).
pub struct Found {
    pub version: String,
    pub layout: u32,
    pub chunks: usize,
    pub problems: Vec<String>,
}

/// Checks the version the pointer of `target` (`t`) names.
pub fn check(c: &Client, t: &DeployTarget, target: &str) -> Result<Found, DeployError> {
    let pointer_key = keys::pointer_key(&t.prefix);
    let p = super::run::read_pointer(c, &t.kv_namespace_id, &pointer_key)?.ok_or_else(|| {
        DeployError::NothingDeployed {
            target: target.to_string(),
            key: pointer_key.clone(),
        }
    })?;
    if p.layout.is_none() {
        return check_layout1(c, t, &p.version);
    }
    let v = &p.version;
    let tkey = keys::version_table_key(&t.prefix, v);
    let text = c
        .kv_get(&t.kv_namespace_id, &tkey)?
        .ok_or_else(|| DeployError::Missing {
            key: tkey.clone(),
            what: Stored::KeyTable,
        })?;
    let table = VersionTable::parse(&text, &tkey)?;
    let mut problems = Vec::new();
    let records = record_tables(c, t, &table, &mut problems)?;
    doc_tables(c, t, &table, &mut problems)?;
    stored_records(c, t, &records, &mut problems)?;
    lexical_files(c, t, &table, &records, &mut problems)?;
    let chunks: BTreeSet<&String> = records.values().flat_map(|m| m.keys()).collect();
    Ok(Found {
        version: v.clone(),
        layout: keys::LAYOUT,
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
    let pages: Vec<Option<String>> = get_all(c, ns, &names)?.into_values().collect();
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
type RecordTables = BTreeMap<String, BTreeMap<String, String>>;

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
        if val.is_none() {
            problems.push(format!("document table {k} is missing"));
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
        if val.is_none() {
            problems.push(format!("record {k} is missing"));
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
            if val.is_none() {
                problems.push(format!("lexical file {k} of domain `{domain}` is missing"));
            }
        }
        let Some(Some(text)) = got.get(&lkeys[0]) else {
            continue;
        };
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
pub fn run(c: &Client, t: &DeployTarget, target: &str, json_out: bool) -> Result<(), DeployError> {
    let f = check(c, t, target)?;
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
            f.chunks, f.version, f.layout
        );
    }
    Ok(())
}
