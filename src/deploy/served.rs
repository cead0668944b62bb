//! A target whose pointer already names the build's version: whether that version is whole (KV
//! pairs it lacks are written again in place; vectors its index lacks mean deploying it again into
//! the other index), and, when it is, the deploy with nothing to do, which completes in the
//! journal a deploy killed after writing its pointer. Apart from the deploy's phases, none of
//! which runs for a version already served whole.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::json;

use super::client::Client;
use super::gc::{self, dry_gc, forget_collected};
use super::journal::{self, IndexRecord, Journal, Pointer};
use super::run::{Args, Deploy, limits, records};
use super::send::write_pairs;
use super::verify::{self, Want};
use super::{DeployError, state_after};
use crate::artifacts::manifest::Manifest;
use crate::config::DeployTarget;

impl Deploy<'_> {
    /// The target already serves this build's version: whether it is whole. Pairs KV lacks are
    /// written again in place (what the pointer names only gains what it lacked); vectors the
    /// live index lacks cannot be written there, so then the version is deployed again into the
    /// other index and the pointer moves once that one is whole. Without credentials the journal
    /// is taken at its word.
    pub(super) fn live_is_whole(&mut self, live: &Pointer) -> Result<bool, DeployError> {
        let Some(c) = &self.client else {
            return Ok(true);
        };
        let (recs, kvv) = records(
            self.out,
            self.m,
            &self.t.prefix,
            self.args.settings,
            &BTreeSet::new(),
        )?;
        let ns = &self.t.kv_namespace_id;
        let target = self.args.target;
        let lacking = verify::kv_differing(c, ns, kvv.tables.iter().chain(&kvv.values))?;
        if !lacking.is_empty() {
            let of = verify::some_of(&lacking, kvv.tables.len() + kvv.values.len(), "keys");
            let lacking: BTreeSet<&String> = lacking.iter().collect();
            let pairs: Vec<(String, String)> = kvv
                .pairs()
                .filter(|(k, _)| lacking.contains(k))
                .cloned()
                .collect();
            if self.args.dry_run {
                println!(
                    "target {target} serves {}, but KV lacks {of} of it: a deploy writes them again",
                    live.version
                );
            } else {
                eprintln!(
                    "target {target} serves {}, but KV lacks {of} of it: writing them again",
                    live.version
                );
                write_pairs(c, ns, pairs.clone(), &self.limits)?;
                let still = verify::kv_differing(c, ns, pairs.iter())?;
                if !still.is_empty() {
                    return Err(DeployError::KvNotStored {
                        wrong: verify::some_of(&still, pairs.len(), "pairs"),
                        from: self.from(),
                        target: target.to_string(),
                    });
                }
            }
        }
        let want: Vec<Want> = recs
            .vectors
            .iter()
            .map(|v| Want::of_line(&v.line, false, self.version))
            .collect();
        let wrong = verify::vectors_wrong(c, &live.index, &want)?;
        if wrong.is_empty() {
            return Ok(true);
        }
        eprintln!(
            "index {} that serves {} does not hold {} as deployed: the version is deployed again into {}, and the pointer moves there once it is whole",
            live.index,
            live.version,
            verify::some_of(&wrong, want.len(), "vectors"),
            self.index
        );
        Ok(false)
    }
}

/// The target already serves this version. A deploy killed after writing the pointer but before
/// saving the journal is completed in the journal here (the pointer is written only once
/// everything else was confirmed), so the next deploy diffs against what the index really holds.
#[allow(clippy::too_many_arguments)]
pub(super) fn up_to_date(
    out: &Path,
    m: &Manifest,
    t: &DeployTarget,
    args: &Args,
    client: Option<&Client>,
    j: &mut Journal,
    jpath: &Path,
    live: &Pointer,
) -> Result<(), DeployError> {
    let finished = j
        .pending
        .as_ref()
        .is_some_and(|p| p.version == live.version && p.index == live.index);
    if finished && client.is_some() && !args.dry_run {
        let (recs, _) = records(out, m, &t.prefix, args.settings, &BTreeSet::new())?;
        j.indexes.insert(
            live.index.clone(),
            IndexRecord {
                version: live.version.clone(),
                vectors: state_after(&recs),
            },
        );
        j.pointer = Some(live.clone());
        j.pending = None;
        journal::save(jpath, j)?;
        eprintln!(
            "the interrupted deploy of {} had already written the pointer; the journal is completed",
            live.version
        );
    }
    // A version served in an older layout has just had its values and key table written in
    // this layout (`live_is_whole`): the pointer now says so.
    if live.layout.unwrap_or(1) < super::keys::LAYOUT {
        let from = live.layout.unwrap_or(1);
        let to = super::keys::LAYOUT;
        match client {
            Some(c) if !args.dry_run => {
                let upgraded = Pointer {
                    layout: Some(to),
                    ..live.clone()
                };
                c.kv_put(
                    &t.kv_namespace_id,
                    &super::keys::pointer_key(&t.prefix),
                    &serde_json::to_string(&upgraded).expect("serializes"),
                )?;
                j.pointer = Some(upgraded);
                journal::save(jpath, j)?;
                eprintln!(
                    "target {} serves {} in layout {to} now (it was layout {from})",
                    args.target, live.version
                );
                return Ok(());
            }
            _ => {
                println!(
                    "target {} serves {} in layout {from}: a deploy writes it again in layout {to} (upgrade: layout {from} -> {to}), then the pointer",
                    args.target, live.version
                );
                return Ok(());
            }
        }
    }
    let msg = format!(
        "target {} already serves {} (index {}); nothing to do",
        args.target, live.version, live.index
    );
    let gc = match client {
        _ if !args.gc => None,
        Some(c) => Some(gc::run(
            c,
            t,
            gc::read_registry(c, t)?,
            j,
            Some(live),
            &limits(),
            args.dry_run,
            args.json,
        )?),
        None => Some(dry_gc(None, t, None, j, Some(live), &limits(), args.json)?),
    };
    if let Some(g) = &gc {
        forget_collected(j, jpath, g)?;
    }
    if args.json {
        let mut v = json!({"target": args.target, "up_to_date": true, "version": live.version});
        if let Some(g) = gc {
            v["gc"] = g;
        }
        println!("{v}");
    } else {
        println!("{msg}");
    }
    Ok(())
}
