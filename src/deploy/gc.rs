//! `askzico deploy --gc`: deletes the KV keys of versions that neither index holds any more.
//! Content-addressed values (layout 2, `keys`) are shared: one is deleted only when no version
//! the registry keeps or has claimed names it, and a version leaves the registry's `complete`
//! list before any of its values goes, so no later deploy takes them as present.
//! Which versions exist comes from the registry `<prefix>versions` (`keys`), kept by every
//! deploy; which keys a version has comes from its stored manifest and key pages, so keys are
//! deleted by exact name through the KV bulk delete endpoint, never by listing a prefix. The live
//! version, the versions the registry says the two indexes hold, and an unfinished local deploy
//! are never touched. Rerunnable: a version's manifest goes last, and a version whose manifest is
//! gone has nothing left.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};

use super::client::Client;
use super::error::Stored;
use super::journal::{self, Journal, Pointer};
use super::keys::{self, Registry};
use super::{DeployError, Limits};
use crate::artifacts::manifest::Manifest;
use crate::config::DeployTarget;

/// Versions GC must keep: the live one, what each index of the target holds (per the registry),
/// and the version of an unfinished deploy in the local journal.
pub(crate) fn protected(
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
pub(crate) fn candidates(reg: &Registry, keep: &BTreeSet<String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    reg.versions
        .iter()
        .filter(|v| !keep.contains(*v) && seen.insert(v.as_str()))
        .cloned()
        .collect()
}

/// Reads the registry; `None` when no deploy has written one.
pub(crate) fn read_registry(c: &Client, t: &DeployTarget) -> Result<Option<Registry>, DeployError> {
    let key = keys::registry_key(&t.prefix);
    c.kv_get(&t.kv_namespace_id, &key)?
        .map(|s| Registry::parse(&s, &key))
        .transpose()
}

/// A layout-2 version's key table as stored; `None` when absent (layout 1, or gone).
fn version_table(
    c: &Client,
    t: &DeployTarget,
    version: &str,
) -> Result<Option<keys::VersionTable>, DeployError> {
    let key = keys::version_table_key(&t.prefix, version);
    c.kv_get(&t.kv_namespace_id, &key)?
        .map(|s| keys::parse_table(&s, &key))
        .transpose()
}

/// The content-addressed keys a layout-2 version names, its record tables read from KV.
fn named_values(
    c: &Client,
    t: &DeployTarget,
    table: &keys::VersionTable,
) -> Result<BTreeSet<String>, DeployError> {
    let mut tables = Vec::new();
    for k in keys::table_keys(table, &t.prefix) {
        tables.push(c.kv_get(&t.kv_namespace_id, &k)?);
    }
    keys::value_keys(table, &t.prefix, &tables)
}

/// The content-addressed values present in KV: those the registry's complete versions name (a
/// version whose tables cannot be read adds none: its values are sent again). Also returns those
/// versions, so the deploy can see whether a GC has since started on one.
pub(crate) fn present_values(
    c: &Client,
    t: &DeployTarget,
    reg: Option<&Registry>,
) -> Result<(BTreeSet<String>, Vec<String>), DeployError> {
    let mut present = BTreeSet::new();
    let mut from = Vec::new();
    for v in reg.map(|r| r.complete.as_slice()).unwrap_or_default() {
        if !reg.is_some_and(|r| r.versions.contains(v)) {
            continue;
        }
        if let Some(table) = version_table(c, t, v)?
            && let Ok(keys) = named_values(c, t, &table)
        {
            present.extend(keys);
            from.push(v.clone());
        }
    }
    Ok((present, from))
}

/// A version's stored manifest; `None` when absent.
fn read_manifest(
    c: &Client,
    t: &DeployTarget,
    version: &str,
) -> Result<Option<Manifest>, DeployError> {
    let mkey = keys::manifest_key(&t.prefix, version);
    let Some(text) = c.kv_get(&t.kv_namespace_id, &mkey)? else {
        return Ok(None);
    };
    let m: Manifest =
        serde_json::from_str(&text).map_err(|e| keys::malformed(&mkey, Stored::Manifest, e))?;
    if m.corpus_version != version {
        return Err(DeployError::ManifestMismatch {
            key: mkey,
            named: m.corpus_version,
            version: version.to_string(),
        });
    }
    Ok(Some(m))
}

/// A version's stored manifest, which must be there.
pub(crate) fn stored_manifest(
    c: &Client,
    t: &DeployTarget,
    version: &str,
) -> Result<Manifest, DeployError> {
    read_manifest(c, t, version)?.ok_or_else(|| DeployError::Missing {
        key: keys::manifest_key(&t.prefix, version),
        what: Stored::Manifest,
    })
}

/// Every key of `version` as its stored manifest and pages name them; `None` when its manifest
/// is gone (nothing of it is left).
fn stored_keys(
    c: &Client,
    t: &DeployTarget,
    version: &str,
) -> Result<Option<keys::VersionKeys>, DeployError> {
    let Some(m) = read_manifest(c, t, version)? else {
        return Ok(None);
    };
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
) -> Result<(), DeployError> {
    let batches = super::delete_batches(keys, limits);
    let n = batches.len();
    for (i, b) in batches.iter().enumerate() {
        let what = format!(
            "{what}: bulk delete {}/{n} ({})",
            i + 1,
            crate::term::count(b.items.len(), "key", "keys")
        );
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
pub(crate) fn run(
    c: &Client,
    t: &DeployTarget,
    registry: Option<Registry>,
    j: &Journal,
    pointer: Option<&Pointer>,
    limits: &Limits,
    dry_run: bool,
    quiet: bool,
) -> Result<Value, DeployError> {
    let mut gc = Gc {
        c,
        t,
        limits,
        quiet,
        errors: Vec::new(),
    };
    let Some(mut reg) = registry else {
        gc.say(format!(
            "gc: no registry {} yet: no version to collect",
            keys::registry_key(&t.prefix)
        ));
        return Ok(json!({"dry_run": dry_run, "deleted": [], "gone": [], "kept": []}));
    };
    let keep = protected(&reg, t, pointer, j);
    let candidates = candidates(&reg, &keep);
    let kept_values = gc.kept_values(&reg, &candidates, &keep);
    let mut deleted = Vec::new();
    let mut gone = Vec::new();
    for v in candidates {
        let ks = match gc.keys_of(&v, kept_values.as_ref()) {
            Found::Keys(ks) => ks,
            Found::Gone => {
                gone.push(v);
                continue;
            }
            Found::Skipped => continue,
        };
        let count = ks.count();
        if dry_run {
            gc.say(format!(
                "gc: would delete {count} keys of version {v} ({} records and shards, {} key tables, its manifest)",
                ks.content.len(),
                ks.pages.len()
            ));
        } else if !gc.collect(&mut reg, &v, &ks) {
            continue;
        }
        deleted.push(json!({"version": v, "keys": count}));
    }
    if !dry_run && (!deleted.is_empty() || !gone.is_empty()) {
        gc.forget(&mut reg, &deleted, &gone)?;
    }
    if !gc.errors.is_empty() {
        return Err(DeployError::GcFailed { errors: gc.errors });
    }
    if deleted.is_empty() && gone.is_empty() {
        gc.say(format!(
            "gc: nothing to collect (kept {})",
            keep.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(json!({"dry_run": dry_run, "deleted": deleted, "gone": gone, "kept": keep}))
}

/// Why GC skips version `v` this run.
fn left_alone(v: &str, cause: DeployError) -> DeployError {
    DeployError::LeftAlone {
        version: v.to_string(),
        cause: Box::new(cause),
    }
}

/// One GC run: where it reads and deletes, and the errors it met so far (reported together).
struct Gc<'a> {
    c: &'a Client,
    t: &'a DeployTarget,
    limits: &'a Limits,
    quiet: bool,
    errors: Vec<DeployError>,
}

/// What GC finds of one candidate version.
enum Found {
    /// The keys to delete.
    Keys(keys::VersionKeys),
    /// No manifest left: nothing to delete, only the registry entry.
    Gone,
    /// Left for a later run (an error, if there was one, is recorded).
    Skipped,
}

impl Gc<'_> {
    fn say(&self, s: String) {
        if !self.quiet {
            println!("{s}");
        }
    }

    /// The values every version GC keeps names (every registry version that is not a candidate,
    /// and the protected ones the registry lost). Unknown for one: `None`, and no value is
    /// deleted this run.
    fn kept_values(
        &mut self,
        reg: &Registry,
        candidates: &[String],
        keep: &BTreeSet<String>,
    ) -> Option<BTreeSet<String>> {
        let (c, t) = (self.c, self.t);
        let mut kept_values = Some(BTreeSet::new());
        let kept: BTreeSet<&String> = reg
            .versions
            .iter()
            .filter(|v| !candidates.contains(v))
            .chain(keep.iter())
            .collect();
        for v in kept {
            match version_table(c, t, v)
                .and_then(|tb| tb.map(|tb| named_values(c, t, &tb)).transpose())
            {
                Ok(Some(ks)) => {
                    if let Some(all) = &mut kept_values {
                        all.extend(ks);
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    self.errors.push(DeployError::KeptValuesUnknown {
                        version: v.clone(),
                        cause: Box::new(e),
                    });
                    kept_values = None;
                }
            }
        }
        kept_values
    }

    /// The keys of candidate version `v`: layout 2 by its key table, layout 1 by its manifest.
    fn keys_of(&mut self, v: &str, kept_values: Option<&BTreeSet<String>>) -> Found {
        let table = match version_table(self.c, self.t, v) {
            Ok(tb) => tb,
            Err(e) => {
                self.errors.push(left_alone(v, e));
                return Found::Skipped;
            }
        };
        let found = match &table {
            Some(tb) => {
                let Some(kept_values) = kept_values else {
                    return Found::Skipped;
                };
                self.only_named_by(v, tb, kept_values).map(Found::Keys)
            }
            None => match stored_keys(self.c, self.t, v) {
                Ok(Some(ks)) => Ok(Found::Keys(ks)),
                Ok(None) => {
                    self.say(format!(
                        "gc: version {v}: no manifest left, nothing to delete"
                    ));
                    Ok(Found::Gone)
                }
                Err(e) => Err(e),
            },
        };
        found.unwrap_or_else(|e| {
            self.errors.push(left_alone(v, e));
            Found::Skipped
        })
    }

    /// Layout 2: the values only version `v` names, then its table and manifest.
    fn only_named_by(
        &self,
        v: &str,
        tb: &keys::VersionTable,
        kept_values: &BTreeSet<String>,
    ) -> Result<keys::VersionKeys, DeployError> {
        let t = self.t;
        let mut tables = Vec::new();
        let mut failed = None;
        for k in keys::table_keys(tb, &t.prefix) {
            match self.c.kv_get(&t.kv_namespace_id, &k) {
                Ok(x) => tables.push(x),
                Err(e) => failed = Some(e),
            }
        }
        if let Some(e) = failed {
            return Err(e.into());
        }
        // An absent record table was never confirmed, so none of its records were sent by this
        // version's deploy: the records it would name are another's, or none.
        let present: Vec<Option<String>> = tables
            .iter()
            .map(|x| Some(x.clone().unwrap_or_else(|| "{}".into())))
            .collect();
        let mut mine = keys::value_keys(tb, &t.prefix, &present)?;
        mine.retain(|k| !kept_values.contains(k));
        Ok(keys::VersionKeys {
            content: mine.into_iter().collect(),
            pages: vec![keys::version_table_key(&t.prefix, v)],
            manifest: keys::manifest_key(&t.prefix, v),
        })
    }

    /// Deletes version `v`'s keys, after taking it off the registry's complete versions (no later
    /// deploy may take its values as present); `false` when it failed (the error is recorded).
    fn collect(&mut self, reg: &mut Registry, v: &str, ks: &keys::VersionKeys) -> bool {
        let (c, t, limits) = (self.c, self.t, self.limits);
        let what = format!("gc of version {v}");
        if reg.complete.iter().any(|x| x == v) {
            reg.complete.retain(|x| x != v);
            if let Err(e) = c.kv_put(
                &t.kv_namespace_id,
                &keys::registry_key(&t.prefix),
                &reg.to_json(),
            ) {
                self.errors.push(e.into());
                return false;
            }
        }
        let done = delete(c, t, &ks.content, limits, &what)
            .and_then(|()| delete(c, t, &ks.pages, limits, &what))
            .and_then(|()| delete(c, t, std::slice::from_ref(&ks.manifest), limits, &what));
        if let Err(e) = done {
            self.errors.push(e);
            return false;
        }
        self.say(format!("gc: deleted {} keys of version {v}", ks.count()));
        true
    }

    /// Removes the deleted and gone versions from the registry.
    fn forget(
        &self,
        reg: &mut Registry,
        deleted: &[Value],
        gone: &[String],
    ) -> Result<(), DeployError> {
        let dropped: BTreeSet<&str> = deleted
            .iter()
            .filter_map(|d| d["version"].as_str())
            .chain(gone.iter().map(String::as_str))
            .collect();
        reg.versions.retain(|v| !dropped.contains(v.as_str()));
        reg.complete.retain(|v| !dropped.contains(v.as_str()));
        self.c.kv_put(
            &self.t.kv_namespace_id,
            &keys::registry_key(&self.t.prefix),
            &reg.to_json(),
        )?;
        Ok(())
    }
}

/// After a GC that deleted values, the journal no longer knows which values KV holds: a plan
/// without credentials then takes none as present (it may overstate the writes, never understate).
pub(super) fn forget_collected(
    j: &mut Journal,
    jpath: &Path,
    gc: &Value,
) -> Result<(), DeployError> {
    let deleted = gc["deleted"].as_array().is_some_and(|d| !d.is_empty());
    if gc["dry_run"] != json!(true) && deleted && !j.present.is_empty() {
        j.present.clear();
        journal::save(jpath, j)?;
    }
    Ok(())
}

/// `--gc --dry-run`: what GC would delete (it reads KV, so it needs credentials).
pub(super) fn dry_gc(
    client: Option<&Client>,
    t: &DeployTarget,
    registry: Option<Registry>,
    j: &Journal,
    pointer: Option<&Pointer>,
    limits: &Limits,
    quiet: bool,
) -> Result<Value, DeployError> {
    match client {
        Some(c) => run(c, t, registry, j, pointer, limits, true, quiet),
        None => {
            eprintln!(
                "gc: without CLOUDFLARE_API_TOKEN the registry {} cannot be read; nothing planned",
                keys::registry_key(&t.prefix)
            );
            Ok(json!({"dry_run": true, "skipped": "no credentials"}))
        }
    }
}
