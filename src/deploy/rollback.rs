//! `askzico deploy --rollback`: the pointer back at the version the inactive index still holds.

use std::path::Path;

use serde_json::json;

use super::DeployError;
use super::check;
use super::client::Client;
use super::error::{Action, NoRollback};
use super::gc;
use super::journal::{self, Pointer};
use super::keys;
use super::run::{other, read_pointer};
use crate::config::DeployTarget;

/// `deploy --rollback`: points the pointer back at the version the inactive index holds (per the
/// registry), in that version's layout, once its keys are known complete: a layout-2 version the
/// registry lists as complete whose every vector the index still holds (read back), or a layout-1 version whose manifest and first key page are in KV
/// (what the first scheme's deploys wrote first). Writes the pointer only.
pub(crate) fn rollback(
    out: &Path,
    t: &DeployTarget,
    target: &str,
    json: bool,
) -> Result<(), DeployError> {
    let jpath = journal::path(out, target)?;
    let _lock = journal::lock(&jpath, target)?;
    let mut j = journal::load(&jpath)?;
    let Some(c) = Client::from_env(t.account_id.as_deref()).map_err(DeployError::Environment)?
    else {
        return Err(DeployError::NoToken {
            action: Action::Rollback,
        });
    };
    let pointer_key = keys::pointer_key(&t.prefix);
    let Some(live) = read_pointer(&c, &t.kv_namespace_id, &pointer_key)? else {
        return Err(DeployError::NothingDeployed {
            target: target.to_string(),
            key: pointer_key,
        });
    };
    let index = other(t, &live.index).to_string();
    let reg = gc::read_registry(&c, t)?.unwrap_or_default();
    let Some(held) = reg.indexes.get(&index).cloned() else {
        return Err(DeployError::NoRollback(NoRollback::Unknown {
            registry: keys::registry_key(&t.prefix),
            index,
        }));
    };
    if held == live.version {
        return Err(DeployError::NoRollback(NoRollback::SameVersion {
            index,
            version: held,
        }));
    }
    let ns = &t.kv_namespace_id;
    let layout = if c
        .kv_get(ns, &keys::version_table_key(&t.prefix, &held))?
        .is_some()
    {
        if !reg.complete.contains(&held) {
            return Err(DeployError::NoRollback(NoRollback::Incomplete {
                version: held,
                index,
            }));
        }
        // The index must still hold the version whole: read every vector back.
        let mut problems = Vec::new();
        let (table, records) = check::version_records(&c, t, &held, &mut problems)?;
        problems.extend(check::index_problems(&c, &index, &records)?);
        if !problems.is_empty() {
            return Err(DeployError::NoRollback(NoRollback::IndexLacks {
                version: held,
                index,
                problems: problems.len(),
                first: problems[0].clone(),
            }));
        }
        Some(table.layout)
    } else if c
        .kv_get(ns, &keys::manifest_key(&t.prefix, &held))?
        .is_some()
        && c.kv_get(ns, &keys::page_key(&t.prefix, &held, 0))?
            .is_some()
    {
        None
    } else {
        return Err(DeployError::NoRollback(NoRollback::Collected {
            version: held,
            index,
        }));
    };
    let back = Pointer {
        version: held.clone(),
        index: index.clone(),
        layout,
    };
    c.kv_put(
        ns,
        &pointer_key,
        &serde_json::to_string(&back).expect("serializes"),
    )?;
    j.pointer = Some(back);
    journal::save(&jpath, &j)?;
    if json {
        println!(
            "{}",
            json!({"target": target, "rolled_back_to": held, "index": index, "layout": layout.unwrap_or(1), "from": live.version})
        );
    } else {
        println!(
            "rolled {target} back to {held} (index {index}, layout {}); it served {} before",
            layout.unwrap_or(1),
            live.version
        );
    }
    Ok(())
}
