//! The KV key schemes of a deployed version (DESIGN §4) and the records that let `--gc` delete
//! an old version by exact keys, never by prefix listing.
//!
//! **Layout 2** (content-addressed; the pointer says `"layout": 2`): lookup records
//! `<prefix>r/<h>`, lexical files (metas and shards) `<prefix>l/<h>` and each domain's record
//! table `<prefix>t/<h>` (`{chunk_id: record hash}`) are stored once under the hash of their
//! bytes (`value_hash`, 128 bits of blake3) and shared by every version holding them, as is each
//! domain's document table `<prefix>d/<h>` ([`DocEntry`] per document). Per version only
//! `<prefix><version>/manifest` and the key table `<prefix><version>/tables` ([`VersionTable`]:
//! per domain its record table, document table and lexical files' hashes), written before any
//! value. A vector's metadata carries its record hash.
//!
//! **Layout 1** (the pointer has no `layout`), still read by `--gc` and by runtimes of sites
//! deployed before:
//! - **key pages** `<prefix><version>/keys/<n>`: the version's chunk IDs in lookup order,
//!   [`PAGE_IDS`] a page (JSON array). The manifest says how many lookup records the version has,
//!   hence how many pages; the manifest names the lexical shards itself. So the manifest plus its
//!   pages name every key of the version.
//! - **the registry** `<prefix>versions`: `{"versions": [...], "indexes": {index: version}}`, the
//!   versions whose records this target may hold and the version each index holds or is being
//!   written with. A deploy claims the inactive index in it before writing a vector; GC drops a
//!   version from it once the version's keys are deleted.
//!
//! Write order within a version (a deploy confirms each group before the next): the manifest, then
//! the pages, then the lookup records and lexical shards. GC deletes in reverse (content, pages,
//! manifest last), so a missing manifest means nothing of that version is left. Pure: no I/O.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::DeployError;
use super::error::Stored;
use crate::artifacts::Kind;
use crate::artifacts::manifest::Manifest;

pub(crate) use askzico_core::deployed::{
    DocEntry, LAYOUT, LexTable, VersionTable, content_addressed, doc_table_key, lexical_key,
    manifest_key, pointer_key, record_key, settings_key, table_key, value_hash, version_table_key,
};

/// A version's key table as stored under `key`.
pub(crate) fn parse_table(text: &str, key: &str) -> Result<VersionTable, DeployError> {
    serde_json::from_str(text).map_err(|e| malformed(key, Stored::KeyTable, e))
}

/// A version's key table as stored.
pub(crate) fn table_json(table: &VersionTable) -> String {
    serde_json::to_string(table).expect("serializes")
}

/// The record tables' keys of a version.
pub(crate) fn table_keys(table: &VersionTable, prefix: &str) -> Vec<String> {
    table
        .records
        .values()
        .map(|h| table_key(prefix, h))
        .collect()
}

/// Every content-addressed key version `table` names, given its record tables as read (`None`:
/// absent). `Err` when one is absent or malformed: which records it names is then unknown.
pub(crate) fn value_keys(
    table: &VersionTable,
    prefix: &str,
    tables: &[Option<String>],
) -> Result<BTreeSet<String>, DeployError> {
    let mut keys: BTreeSet<String> = table_keys(table, prefix).into_iter().collect();
    for (key, text) in table_keys(table, prefix).iter().zip(tables) {
        let text = text.as_deref().ok_or_else(|| DeployError::Missing {
            key: key.clone(),
            what: Stored::RecordTable,
        })?;
        let ids: BTreeMap<String, String> =
            serde_json::from_str(text).map_err(|e| malformed(key, Stored::RecordTable, e))?;
        keys.extend(ids.values().map(|h| record_key(prefix, h)));
    }
    keys.extend(table.docs.values().map(|h| doc_table_key(prefix, h)));
    keys.extend(table.settings.iter().map(|h| settings_key(prefix, h)));
    for l in table.lexical.values() {
        keys.insert(lexical_key(prefix, &l.meta));
        keys.extend(l.shards.iter().map(|h| lexical_key(prefix, h)));
    }
    Ok(keys)
}

/// Chunk IDs per key page: one page is one KV bulk delete (at most 10,000 keys) and, with IDs of
/// at most 64 bytes, well under a megabyte. Part of the KV format: changing it orphans the pages
/// of versions deployed before.
pub(crate) const PAGE_IDS: usize = 10_000;

pub(crate) fn registry_key(prefix: &str) -> String {
    format!("{prefix}versions")
}

pub(crate) fn chunk_key(prefix: &str, version: &str, chunk_id: &str) -> String {
    format!("{prefix}{version}/chunk/{chunk_id}")
}

pub(crate) fn page_key(prefix: &str, version: &str, n: usize) -> String {
    format!("{prefix}{version}/keys/{n}")
}

/// A lexical shard's key: its domain and the file name before the content hash.
pub(crate) fn lex_key(prefix: &str, version: &str, domain: &str, path: &str) -> String {
    let name = crate::artifacts::artifact_name(path);
    format!("{prefix}{version}/lex/{domain}/{name}")
}

/// Lookup records (= chunk keys) a manifest names.
pub(crate) fn lookup_records(m: &Manifest) -> usize {
    m.artifacts_of(Kind::Lookup).map(|a| a.records).sum()
}

/// The key pages of a version: (key, JSON array of chunk IDs), `page_ids` a page.
#[cfg(test)]
pub(crate) fn pages(
    prefix: &str,
    version: &str,
    chunk_ids: &[String],
    page_ids: usize,
) -> Vec<(String, String)> {
    chunk_ids
        .chunks(page_ids.max(1))
        .enumerate()
        .map(|(n, ids)| {
            (
                page_key(prefix, version, n),
                serde_json::to_string(ids).expect("serializes"),
            )
        })
        .collect()
}

/// Every key of an old version, in the order GC deletes them.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct VersionKeys {
    /// Lookup records and lexical shards.
    pub content: Vec<String>,
    /// The key pages (deleted after the content they name).
    pub pages: Vec<String>,
    /// Deleted last: while it exists, GC can still find everything else.
    pub manifest: String,
}

impl VersionKeys {
    pub(crate) fn count(&self) -> usize {
        self.content.len() + self.pages.len() + 1
    }
}

/// The key page names a stored manifest implies.
pub(crate) fn page_keys(m: &Manifest, prefix: &str, page_ids: usize) -> Vec<String> {
    (0..lookup_records(m).div_ceil(page_ids.max(1)))
        .map(|n| page_key(prefix, &m.corpus_version, n))
        .collect()
}

/// The exact keys of a version from its stored manifest and its pages as read (`None`: absent).
/// A page that is present must hold exactly the IDs the manifest's counts imply; an absent one
/// means the deploy stopped before writing it, hence before any chunk key it would name.
pub(crate) fn version_keys(
    m: &Manifest,
    prefix: &str,
    pages: &[Option<String>],
    page_ids: usize,
) -> Result<VersionKeys, DeployError> {
    let v = &m.corpus_version;
    let names = page_keys(m, prefix, page_ids);
    if pages.len() != names.len() {
        return Err(DeployError::PageCount {
            version: v.clone(),
            read: pages.len(),
            implied: names.len(),
        });
    }
    let total = lookup_records(m);
    let mut content = Vec::with_capacity(total);
    for (n, page) in pages.iter().enumerate() {
        let Some(text) = page else { continue };
        let ids: Vec<String> =
            serde_json::from_str(text).map_err(|e| malformed(&names[n], Stored::KeyPage, e))?;
        let expected = page_ids.min(total - n * page_ids);
        if ids.len() != expected {
            return Err(DeployError::PageSize {
                key: names[n].clone(),
                named: ids.len(),
                version: v.clone(),
                implied: expected,
            });
        }
        content.extend(ids.iter().map(|id| chunk_key(prefix, v, id)));
    }
    content.extend(
        m.artifacts_of(Kind::Lexical)
            .map(|a| lex_key(prefix, v, a.domain.as_deref().unwrap_or(""), &a.path)),
    );
    Ok(VersionKeys {
        content,
        pages: names,
        manifest: manifest_key(prefix, v),
    })
}

/// The value under `key` is not the `what` askzico writes there.
pub(crate) fn malformed(key: &str, what: Stored, e: impl std::fmt::Display) -> DeployError {
    DeployError::Malformed {
        key: key.to_string(),
        what,
        detail: e.to_string(),
    }
}

/// `<prefix>versions`: what this target's KV may hold, and what each index holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Registry {
    /// Versions whose records may be in KV (written, or being written), oldest first.
    #[serde(default)]
    pub versions: Vec<String>,
    /// Index name → the version it holds or is being written with.
    #[serde(default)]
    pub indexes: BTreeMap<String, String>,
    /// Versions of layout 2 whose every value a deploy confirmed: what a deploy may take as
    /// present in KV (GC drops a version from here before it deletes any of its values).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub complete: Vec<String>,
}

impl Registry {
    pub(crate) fn parse(text: &str, key: &str) -> Result<Registry, DeployError> {
        serde_json::from_str(text).map_err(|e| malformed(key, Stored::Registry, e))
    }

    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string(self).expect("serializes")
    }

    /// Records that `index` now gets `version`; `false` when the registry already said so.
    pub(crate) fn claim(&mut self, index: &str, version: &str) -> bool {
        let known = self.versions.iter().any(|v| v == version);
        if known && self.indexes.get(index).map(String::as_str) == Some(version) {
            return false;
        }
        if !known {
            self.versions.push(version.to_string());
        }
        self.indexes.insert(index.to_string(), version.to_string());
        true
    }
}
