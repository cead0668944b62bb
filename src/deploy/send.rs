//! Sending a planned deploy and waiting for it: the vector batches upserted and deleted, the KV
//! batches written (keys KV reports unsuccessful sent again), each confirmed batch recorded in the
//! journal so a rerun never sends it twice, the wait until Vectorize has applied the last
//! mutation, and the journal's record of an index corrected by what the index lists. Apart from
//! the deploy's phases, which decide what is sent and when.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::client::Client;
use super::journal::{self, Journal};
use super::{DeployError, IndexState, Limits, Plan, Records};
use crate::config::DeployTarget;

/// Upserts and deletes the planned vector batches not yet confirmed; returns requests sent.
pub(super) fn send_vectors(
    c: &Client,
    p: &Plan,
    index: &str,
    j: &mut Journal,
    jpath: &Path,
) -> Result<usize, DeployError> {
    let mut sent = 0;
    let n = p.upserts.len();
    for (i, b) in p.upserts.iter().enumerate() {
        if is_done(j, &b.id) {
            continue;
        }
        let body = b.items.join("\n");
        let mutation = c.upsert(
            index,
            &body,
            &format!(
                "upsert batch {}/{n} ({}) into {index}",
                i + 1,
                crate::term::count(b.items.len(), "vector", "vectors")
            ),
        )?;
        confirm_mutation(j, jpath, &b.id, mutation)?;
        sent += 1;
    }
    let n = p.deletes.len();
    for (i, b) in p.deletes.iter().enumerate() {
        if is_done(j, &b.id) {
            continue;
        }
        let mutation = c.delete_ids(
            index,
            &b.items,
            &format!(
                "delete batch {}/{n} ({} ids) from {index}",
                i + 1,
                b.items.len()
            ),
        )?;
        confirm_mutation(j, jpath, &b.id, mutation)?;
        sent += 1;
    }
    Ok(sent)
}

/// Writes the planned KV batches not yet confirmed, in order, retrying `unsuccessful_keys`.
pub(super) fn send_kv(
    c: &Client,
    t: &DeployTarget,
    p: &Plan,
    j: &mut Journal,
    jpath: &Path,
) -> Result<usize, DeployError> {
    let mut sent = 0;
    let n = p.kv.len();
    for (i, b) in p.kv.iter().enumerate() {
        if is_done(j, &b.id) {
            continue;
        }
        let what = format!(
            "KV bulk batch {}/{n} ({})",
            i + 1,
            crate::term::count(b.items.len(), "pair", "pairs")
        );
        put_batch(c, &t.kv_namespace_id, &b.items, &what)?;
        j.pending
            .as_mut()
            .expect("a deploy in progress")
            .done
            .insert(b.id.clone());
        journal::save(jpath, j)?;
        sent += 1;
    }
    Ok(sent)
}

fn is_done(j: &Journal, batch: &str) -> bool {
    j.pending.as_ref().is_some_and(|p| p.done.contains(batch))
}

pub(super) fn line_id(line: &str) -> Option<String> {
    serde_json::from_str::<Value>(line)
        .ok()?
        .get("id")?
        .as_str()
        .map(String::from)
}

/// Corrects the journal's record of an index by the index's listing: IDs it records that the
/// index lacks are upserted again; IDs the index holds that it does not record are taken as
/// unknown (upserted when the build has them, deleted otherwise). Says so when they disagree.
pub(super) fn correct(known: &mut IndexState, listed: Vec<String>, index: &str) {
    let listed: BTreeSet<String> = listed.into_iter().collect();
    let lost = known.keys().filter(|id| !listed.contains(*id)).count();
    let unknown: Vec<String> = listed
        .iter()
        .filter(|id| !known.contains_key(*id))
        .cloned()
        .collect();
    if lost == 0 && unknown.is_empty() {
        return;
    }
    eprintln!(
        "the journal's record of index {index} disagrees with the index (listed): {lost} vectors it records are not there and are upserted again, {} there are unknown to it (upserted or deleted); the journal is corrected",
        unknown.len()
    );
    known.retain(|id, _| listed.contains(id));
    known.extend(unknown.into_iter().map(|id| (id, String::new())));
}

/// Writes `pairs` in bulk requests within the limits, retrying `unsuccessful_keys`; returns the
/// requests sent.
pub(super) fn write_pairs(
    c: &Client,
    ns: &str,
    pairs: Vec<(String, String)>,
    limits: &Limits,
) -> Result<usize, DeployError> {
    let recs = Records {
        kv: pairs,
        ..Records::default()
    };
    let batches = super::kv_batches(&recs, limits);
    let n = batches.len();
    for (i, b) in batches.iter().enumerate() {
        let what = format!(
            "KV bulk rewrite {}/{n} ({})",
            i + 1,
            crate::term::count(b.items.len(), "pair", "pairs")
        );
        put_batch(c, ns, &b.items, &what)?;
    }
    Ok(n)
}

/// One KV bulk batch, resending the keys KV reports unsuccessful.
fn put_batch(
    c: &Client,
    ns: &str,
    items: &[(String, String)],
    what: &str,
) -> Result<(), DeployError> {
    c.until_all_succeed(
        items,
        |(k, _)| k.as_str(),
        what,
        |todo| {
            let body = serde_json::to_vec(
                &todo
                    .iter()
                    .map(|(k, v)| json!({"key": k, "value": v}))
                    .collect::<Vec<_>>(),
            )
            .expect("serializes");
            c.kv_bulk(ns, &body, todo.len(), what)
        },
    )?;
    Ok(())
}

/// Records a Vectorize batch the API confirmed, so a rerun never sends it again.
fn confirm_mutation(
    j: &mut journal::Journal,
    jpath: &Path,
    batch: &str,
    mutation: String,
) -> Result<(), DeployError> {
    let pd = j.pending.as_mut().expect("a deploy in progress");
    pd.done.insert(batch.to_string());
    pd.last_mutation = Some(mutation);
    pd.vectors_applied = false;
    journal::save(jpath, j)
}

/// How long a deploy waits for Vectorize to apply its mutations (`ASKZICO_DEPLOY_WAIT_SECS`,
/// default 600).
fn max_wait() -> Duration {
    Duration::from_secs(crate::knobs::number(crate::knobs::DEPLOY_WAIT_SECS))
}

/// Polls `info` until `processedUpToMutation` is the last mutationId, at most [`max_wait`],
/// saying on stderr that it waits and, every 15 s or so, how long it has waited.
pub(super) fn wait_applied(
    c: &Client,
    index: &str,
    last: &str,
    target: &str,
) -> Result<(), DeployError> {
    let limit = max_wait();
    let start = Instant::now();
    let mut wait = Duration::from_millis(200);
    // When to say next that the deploy is waiting (zero: not said yet).
    let mut note_at = Duration::ZERO;
    loop {
        let info = c.info(index)?;
        if info.get("processedUpToMutation").and_then(Value::as_str) == Some(last) {
            if !note_at.is_zero() {
                eprintln!(
                    "  Vectorize index {index} applied mutation {last} after {:.0}s",
                    start.elapsed().as_secs_f64()
                );
            }
            return Ok(());
        }
        let waited = start.elapsed();
        if waited >= limit {
            return Err(DeployError::NotApplied {
                index: index.to_string(),
                mutation: last.to_string(),
                secs: limit.as_secs(),
                target: target.to_string(),
            });
        }
        if waited >= note_at {
            if note_at.is_zero() {
                eprintln!(
                    "  waiting for Vectorize index {index} to apply mutation {last} (at most {}s)",
                    limit.as_secs()
                );
            } else {
                eprintln!(
                    "  still waiting for Vectorize index {index}: {:.0}s of at most {}s",
                    waited.as_secs_f64(),
                    limit.as_secs()
                );
            }
            note_at = waited.max(Duration::from_millis(1)) + Duration::from_secs(15);
        }
        std::thread::sleep(wait.min(limit.saturating_sub(waited)));
        wait = (wait * 2).min(Duration::from_secs(10));
    }
}
