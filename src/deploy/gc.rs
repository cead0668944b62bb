//! `askzico deploy --gc`: deletes the KV keys of versions that neither index holds any more.
//! Which versions exist comes from the registry `<prefix>versions` (`keys`), kept by every
//! deploy; which keys a version has comes from its stored manifest and key pages, so keys are
//! deleted by exact name through the KV bulk delete endpoint, never by listing a prefix. The live
//! version, the versions the registry says the two indexes hold, and an unfinished local deploy
//! are never touched. Rerunnable: a version's manifest goes last, and a version whose manifest is
//! gone has nothing left.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::Limits;
use super::client::Client;
use super::journal::{Journal, Pointer};
use super::keys::{self, Registry};
use crate::artifacts::manifest::Manifest;
use crate::config::DeployTarget;

/// Versions GC must keep: the live one, what each index of the target holds (per the registry),
/// and the version of an unfinished deploy in the local journal.
pub fn protected(
    reg: &Registry,
    t: &DeployTarget,
    pointer: Option<&Pointer>,
    j: &Journal,
) -> BTreeSet<String> {
    let mut keep: BTreeSet<String> = t
        .indexes
        .iter()
        .filter_map(|i| reg.indexes.get(i).cloned())
        .collect();
    keep.extend(pointer.map(|p| p.version.clone()));
    keep.extend(j.pending.as_ref().map(|p| p.version.clone()));
    keep
}

/// The registry's versions that GC deletes, oldest first.
pub fn candidates(reg: &Registry, keep: &BTreeSet<String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    reg.versions
        .iter()
        .filter(|v| !keep.contains(*v) && seen.insert(v.as_str()))
        .cloned()
        .collect()
}

/// Reads the registry; `None` when no deploy has written one.
pub fn read_registry(c: &Client, t: &DeployTarget) -> Result<Option<Registry>, String> {
    let key = keys::registry_key(&t.prefix);
    c.kv_get(&t.kv_namespace_id, &key)?
        .map(|s| Registry::parse(&s, &key))
        .transpose()
}

/// Every key of `version` as its stored manifest and pages name them; `None` when its manifest
/// is gone (nothing of it is left).
fn stored_keys(
    c: &Client,
    t: &DeployTarget,
    version: &str,
) -> Result<Option<keys::VersionKeys>, String> {
    let mkey = keys::manifest_key(&t.prefix, version);
    let Some(text) = c.kv_get(&t.kv_namespace_id, &mkey)? else {
        return Ok(None);
    };
    let m: Manifest = serde_json::from_str(&text).map_err(|e| {
        format!("{mkey} is not an askzico manifest ({e}); GC leaves version {version} alone")
    })?;
    if m.corpus_version != version {
        return Err(format!(
            "{mkey} names version {}; GC leaves version {version} alone",
            m.corpus_version
        ));
    }
    let mut pages = Vec::new();
    for name in keys::page_keys(&m, &t.prefix, keys::PAGE_IDS) {
        pages.push(c.kv_get(&t.kv_namespace_id, &name)?);
    }
    keys::version_keys(&m, &t.prefix, &pages, keys::PAGE_IDS).map(Some)
}

/// Deletes `keys` in bulk requests within the limits, retrying the keys KV reports unsuccessful.
fn delete(
    c: &Client,
    t: &DeployTarget,
    keys: &[String],
    limits: &Limits,
    what: &str,
) -> Result<(), String> {
    let batches = super::delete_batches(keys, limits);
    let n = batches.len();
    for (i, b) in batches.iter().enumerate() {
        let what = format!("{what}: bulk delete {}/{n} ({} keys)", i + 1, b.items.len());
        c.until_all_succeed(
            &b.items,
            |k| k.as_str(),
            &what,
            |todo| {
                let keys: Vec<String> = todo.iter().map(|k| k.to_string()).collect();
                c.kv_bulk_delete(&t.kv_namespace_id, &keys, &what)
            },
        )?;
    }
    Ok(())
}

/// Runs GC against `registry` (as read, or as a planned deploy would leave it) and `pointer`
/// (or, with `dry_run`, only reads what it would delete). Returns the JSON summary; an error
/// after deleting some versions still records those in the registry first.
#[allow(clippy::too_many_arguments)]
pub fn run(
    c: &Client,
    t: &DeployTarget,
    registry: Option<Registry>,
    j: &Journal,
    pointer: Option<&Pointer>,
    limits: &Limits,
    dry_run: bool,
    quiet: bool,
) -> Result<Value, String> {
    let say = |s: String| {
        if !quiet {
            println!("{s}");
        }
    };
    let Some(mut reg) = registry else {
        say(format!(
            "gc: no registry {} yet: no version to collect",
            keys::registry_key(&t.prefix)
        ));
        return Ok(json!({"dry_run": dry_run, "deleted": [], "gone": [], "kept": []}));
    };
    let keep = protected(&reg, t, pointer, j);
    let mut deleted = Vec::new();
    let mut gone = Vec::new();
    let mut errors = Vec::new();
    for v in candidates(&reg, &keep) {
        let ks = match stored_keys(c, t, &v) {
            Ok(Some(ks)) => ks,
            Ok(None) => {
                say(format!(
                    "gc: version {v}: no manifest left, nothing to delete"
                ));
                gone.push(v);
                continue;
            }
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        let count = ks.count();
        if dry_run {
            say(format!(
                "gc: would delete {count} keys of version {v} ({} records, {} key pages, its manifest)",
                ks.content.len(),
                ks.pages.len()
            ));
        } else {
            let what = format!("gc of version {v}");
            let done = delete(c, t, &ks.content, limits, &what)
                .and_then(|()| delete(c, t, &ks.pages, limits, &what))
                .and_then(|()| delete(c, t, std::slice::from_ref(&ks.manifest), limits, &what));
            if let Err(e) = done {
                errors.push(e);
                continue;
            }
            say(format!("gc: deleted {count} keys of version {v}"));
        }
        deleted.push(json!({"version": v, "keys": count}));
    }
    if !dry_run && (!deleted.is_empty() || !gone.is_empty()) {
        let dropped: BTreeSet<&str> = deleted
            .iter()
            .filter_map(|d| d["version"].as_str())
            .chain(gone.iter().map(String::as_str))
            .collect();
        reg.versions.retain(|v| !dropped.contains(v.as_str()));
        c.kv_put(
            &t.kv_namespace_id,
            &keys::registry_key(&t.prefix),
            &reg.to_json(),
        )?;
    }
    if !errors.is_empty() {
        return Err(format!(
            "gc failed for {} version(s); rerun `askzico deploy --gc` to retry:\n  {}",
            errors.len(),
            errors.join("\n  ")
        ));
    }
    if deleted.is_empty() && gone.is_empty() {
        say(format!(
            "gc: nothing to collect (kept {})",
            keep.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(json!({"dry_run": dry_run, "deleted": deleted, "gone": gone, "kept": keep}))
}
