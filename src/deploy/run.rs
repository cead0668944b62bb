//! `askzico deploy --target NAME [--env ENV] [--dry-run] [--gc] [--json]`: verify, read the pointer
//! and the registry (or the local journal without credentials), plan against what the inactive
//! index holds, claim that index in the registry, upsert and delete vectors there, wait for
//! Vectorize to apply them, write the version's KV records (manifest and key table, then the
//! content-addressed values no complete version holds), mark it complete, check that the index
//! answers for the new version, and flip the pointer last; then, with `--gc`,
//! delete the keys of versions no index holds (`gc`). A journal makes a killed deploy resumable
//! without re-sending confirmed batches.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::client::Client;
use super::error::{Action, Stored, resume_hint};
use super::gc::{dry_gc, forget_collected};
use super::journal::{self, IndexRecord, Journal, Pending, Pointer};
use super::keys::{self, Registry};
use super::send::{correct, send_kv, send_vectors, wait_applied};
use super::served::up_to_date;
use super::summary::{plan_json, print_plan};
use super::upload::{self, KvVersion};
use super::verify;
use super::{DeployError, IndexState, Limits, Plan, Records, VectorItem, gc, plan, state_after};
use crate::artifacts::manifest::Manifest;
use crate::config::DeployTarget;

pub(crate) struct Args<'a> {
    pub target: &'a str,
    pub dry_run: bool,
    pub json: bool,
    /// After the deploy, delete the KV keys of versions no index holds.
    pub gc: bool,
    /// Send a plan over the target's `max_kv_writes`.
    pub confirm_writes: bool,
    /// The query settings deployed with the version (`QuerySettings` as JSON).
    pub settings: &'a str,
}

/// Loads the upload records of a verified build: vectors, and the KV pairs of layout 2 less the
/// content-addressed values already `present` in KV (named by a complete version).
pub(crate) fn records(
    out: &Path,
    m: &Manifest,
    prefix: &str,
    settings: &str,
    present: &BTreeSet<String>,
) -> Result<(Records, KvVersion), DeployError> {
    let kv = upload::kv_version(out, m, prefix, settings)
        .map_err(|p| DeployError::Build(Box::new(p)))?;
    let files =
        upload::vector_lines(out, m, &kv.records).map_err(|p| DeployError::Build(Box::new(p)))?;
    let vectors = files
        .iter()
        .flat_map(|(_, lines)| lines.iter())
        .map(VectorItem::from_record)
        .collect();
    // Each group is confirmed before the next is sent: the version's manifest and key table (the
    // claim on every value they name), the record tables, then records and lexical files.
    let tables = kv.tables.len();
    let record_tables = kv.values[..kv.record_tables]
        .iter()
        .filter(|(k, _)| !present.contains(k))
        .count();
    let pairs: Vec<(String, String)> = kv
        .tables
        .iter()
        .chain(kv.values.iter().filter(|(k, _)| !present.contains(k)))
        .cloned()
        .collect();
    let skipped = kv.tables.len() + kv.values.len() - pairs.len();
    Ok((
        Records {
            version: m.corpus_version.clone(),
            vectors,
            kv: pairs,
            kv_breaks: vec![tables, tables + record_tables],
            kv_present: skipped,
        },
        kv,
    ))
}

/// The limits (with the `test-hooks` feature, hooks that can only lower them).
pub(crate) fn limits() -> Limits {
    #[cfg(feature = "test-hooks")]
    {
        let mut l = Limits::default();
        let var = |n| usize::try_from(crate::knobs::hook_number(n)?).ok();
        if let Some(n) = var(crate::knobs::DEPLOY_MAX_METADATA_BYTES) {
            l.max_metadata_bytes = l.max_metadata_bytes.min(n);
        }
        if let Some(n) = var(crate::knobs::DEPLOY_MAX_UPSERT_VECTORS) {
            l.upsert_max_vectors = l.upsert_max_vectors.min(n);
        }
        if let Some(n) = var(crate::knobs::DEPLOY_MAX_KV_PAIRS) {
            l.kv_max_pairs = l.kv_max_pairs.min(n);
            l.kv_delete_max_keys = l.kv_delete_max_keys.min(n);
        }
        l
    }
    #[cfg(not(feature = "test-hooks"))]
    Limits::default()
}

pub(super) fn other<'a>(t: &'a DeployTarget, live: &str) -> &'a str {
    if t.indexes[0] == live {
        &t.indexes[1]
    } else {
        &t.indexes[0]
    }
}

/// Runs a deploy; `Err` is a problem for the user (exit 1). The phases, in the order
/// docs/deploy.md gives: read the target, plan and bill, claim, vectors, wait, KV, complete,
/// check query, pointer last, then `--gc`.
pub(crate) fn deploy(
    out: &Path,
    m: &Manifest,
    t: &DeployTarget,
    args: &Args,
) -> Result<(), DeployError> {
    let mut d = Deploy::read(out, m, t, args)?;
    if let Some(live) = d.pointer.clone().filter(|p| p.version == d.version)
        && d.live_is_whole(&live)?
    {
        return up_to_date(
            out,
            m,
            t,
            args,
            d.client.as_ref(),
            &mut d.j,
            &d.jpath,
            &live,
        );
    }
    let planned = d.plan_and_bill()?;
    if args.dry_run {
        return d.dry_run(planned);
    }
    let Some(c) = d.client.take() else {
        return Err(DeployError::NoToken {
            action: Action::Deploy,
        });
    };
    if !args.json {
        print_plan(&planned.summary);
    }
    d.begin(&c, &planned)?;
    let reg = d.claim(&c)?;
    let mut sent = send_vectors(&c, &planned.p, &d.index, &mut d.j, &d.jpath)?;
    d.wait_for_index(&c)?;
    d.confirm_present(&c, &planned.present_from)?;
    sent += send_kv(&c, t, &planned.p, &mut d.j, &d.jpath)?;
    sent += d.verify_kv(&c, &planned)?;
    // Every value is confirmed: later deploys may take them as present.
    d.j.present.extend(upload::value_keys(&planned.kvv));
    let (checked, repaired) = d.verify_index(&c, &planned)?;
    sent += repaired;
    // The registry calls the version complete only once KV and the index are both read back.
    sent += d.complete(&c, reg)?;
    let new_pointer = d.flip(&c, &planned.recs)?;
    if !args.json {
        println!(
            "deployed {} to {} (index {}); pointer {} written last",
            d.version, args.target, d.index, d.pointer_key
        );
    }
    let gc = d.gc(&c, &new_pointer)?;
    if args.json {
        let mut report = json!({"target": args.target, "deployed": d.version, "index": d.index, "requests": sent + 1, "checked_ids": checked, "plan": planned.summary});
        if let Some(g) = gc {
            report["gc"] = g;
        }
        println!("{report}");
    }
    Ok(())
}

/// One deploy of one build to one target: what was read before the plan, and the journal.
pub(super) struct Deploy<'a> {
    /// The journal's lock (none for a dry run, which writes nothing).
    _lock: Option<journal::Lock>,
    pub(super) out: &'a Path,
    pub(super) m: &'a Manifest,
    pub(super) t: &'a DeployTarget,
    pub(super) args: &'a Args<'a>,
    pub(super) version: &'a str,
    pub(super) jpath: PathBuf,
    pub(super) j: Journal,
    /// `None` without credentials: then only a dry run, against the journal.
    pub(super) client: Option<Client>,
    pointer_key: String,
    /// The live pointer, from KV (or the journal without credentials).
    pointer: Option<Pointer>,
    /// The registry; `None` without credentials or before the first deploy.
    registry: Option<Registry>,
    /// Where the pointer was read, as the plan names it.
    source: &'static str,
    /// The inactive index: the one this deploy writes.
    pub(super) index: String,
    pub(super) limits: Limits,
}

/// The plan of a deploy, what it was made from, and its bill.
pub(super) struct Planned {
    pub(super) recs: Records,
    kvv: KvVersion,
    pub(super) p: Plan,
    /// The complete versions whose values the plan takes as present in KV.
    present_from: Vec<String>,
    /// The journal's unfinished deploy of this version into this index goes on.
    resuming: bool,
    /// The journal's record of the inactive index was used for the plan.
    trusted: bool,
    summary: Value,
    /// The target's `max_kv_writes`, when the plan is over it.
    over: Option<usize>,
}

/// What the inactive index holds, as far as the plan may rely on it.
struct Held {
    /// Its vector IDs and hashes; `None` when unknown (a dry run without credentials).
    previous: Option<IndexState>,
    resuming: bool,
    trusted: bool,
}

impl<'a> Deploy<'a> {
    /// Reads the journal, the pointer and the registry (the journal alone without credentials),
    /// and picks the inactive index.
    fn read(
        out: &'a Path,
        m: &'a Manifest,
        t: &'a DeployTarget,
        args: &'a Args<'a>,
    ) -> Result<Self, DeployError> {
        let jpath = journal::path(out, args.target)?;
        let lock = if args.dry_run {
            None
        } else {
            Some(journal::lock(&jpath, args.target)?)
        };
        let j = journal::load(&jpath)?;
        let mut client =
            Client::from_env(t.account_id.as_deref()).map_err(DeployError::Environment)?;
        if let Some(c) = &mut client {
            c.resume = Some(resume_hint(args.target));
        }
        let pointer_key = keys::pointer_key(&t.prefix);
        let (pointer, registry, source) = match &client {
            Some(c) => (
                read_pointer(c, &t.kv_namespace_id, &pointer_key)?,
                gc::read_registry(c, t)?,
                "Cloudflare KV",
            ),
            None => {
                let note = if j.pointer.is_some() {
                    "the local deploy journal"
                } else {
                    "the local deploy journal (empty target)"
                };
                eprintln!(
                    "no CLOUDFLARE_API_TOKEN: planning against {note}, {}",
                    jpath.display()
                );
                (j.pointer.clone(), None, "local journal (no credentials)")
            }
        };
        if let Some(p) = pointer.as_ref().filter(|p| !t.indexes.contains(&p.index)) {
            return Err(DeployError::ForeignIndex {
                index: p.index.clone(),
                indexes: t.indexes.clone(),
            });
        }
        let index = match &pointer {
            Some(p) => other(t, &p.index).to_string(),
            None => t.indexes[0].clone(),
        };
        Ok(Deploy {
            _lock: lock,
            out,
            m,
            t,
            args,
            version: m.corpus_version.as_str(),
            jpath,
            j,
            client,
            pointer_key,
            pointer,
            registry,
            source,
            index,
            limits: limits(),
        })
    }

    /// Plans against what the inactive index holds and counts its KV writes; refuses a plan that
    /// breaks a limit, or is over `max_kv_writes` without `--confirm-writes`.
    fn plan_and_bill(&self) -> Result<Planned, DeployError> {
        // Content-addressed values already in KV: those the complete versions name.
        let (mut present, present_from) = match &self.client {
            Some(c) => gc::present_values(c, self.t, self.registry.as_ref())?,
            None => (self.j.present.clone(), Vec::new()),
        };
        let (mut recs, mut kvv) = records(
            self.out,
            self.m,
            &self.t.prefix,
            self.args.settings,
            &present,
        )?;
        if let Some(c) = &self.client
            && recs.kv_present > 0
        {
            // The registry says which values are stored; KV says whether they are. Those it
            // lacks (or holds other bytes under) are sent with the rest.
            let taken = kvv.values.iter().filter(|(k, _)| present.contains(k));
            let lacking = verify::kv_differing(c, &self.t.kv_namespace_id, taken)?;
            if !lacking.is_empty() {
                eprintln!(
                    "KV lacks {} that complete versions name and this build needs: they are sent again",
                    verify::some_of(&lacking, recs.kv_present, "values")
                );
                for k in &lacking {
                    present.remove(k);
                }
                (recs, kvv) = records(
                    self.out,
                    self.m,
                    &self.t.prefix,
                    self.args.settings,
                    &present,
                )?;
            }
        }
        self.prefix_fits(&recs)?;
        let held = self.held()?;
        let p = plan(&recs, held.previous.as_ref(), &self.limits)
            .map_err(|breaks| DeployError::PlanBreaksLimits { breaks })?;
        let (summary, over) = self.bill(&p, &recs)?;
        Ok(Planned {
            recs,
            kvv,
            p,
            present_from,
            resuming: held.resuming,
            trusted: held.trusted,
            summary,
            over,
        })
    }

    /// Every KV key starts with the target's prefix: a key over KV's limit whose part after the
    /// prefix would fit is the prefix's fault, and is said so (not blamed on the chunking).
    fn prefix_fits(&self, recs: &Records) -> Result<(), DeployError> {
        let prefix = self.t.prefix.len();
        let max = self.limits.max_key_bytes;
        match recs.kv.iter().map(|(k, _)| k).max_by_key(|k| k.len()) {
            Some(k) if k.len() > max && k.len() - prefix <= max => {
                Err(DeployError::PrefixTooLong {
                    target: self.args.target.to_string(),
                    prefix_bytes: prefix,
                    key_bytes: k.len(),
                    max,
                    example: crate::term::line(k).chars().take(80).collect::<String>() + "…",
                })
            }
            _ => Ok(()),
        }
    }

    /// What the inactive index holds. The registry names the version last written into it (by
    /// any machine); the journal's record of it is trusted only when the two agree. An unfinished
    /// deploy of another version into it left it in an unknown state: upsert everything then.
    fn held(&self) -> Result<Held, DeployError> {
        let (j, index, version) = (&self.j, &self.index, self.version);
        let claimed = self
            .registry
            .as_ref()
            .and_then(|r| r.indexes.get(index))
            .cloned();
        let agrees = |v: &str| claimed.as_deref().is_none_or(|c| c == v);
        let pending_here = j
            .pending
            .as_ref()
            .is_some_and(|p| p.version == version && &p.index == index);
        let resuming = pending_here && agrees(version);
        if pending_here && !resuming {
            eprintln!(
                "the unfinished deploy of {version} into {index} is stale: the registry says {index} was since claimed for {}; starting over",
                claimed.as_deref().unwrap_or("")
            );
        }
        let stale_pending = j
            .pending
            .as_ref()
            .is_some_and(|p| &p.index == index && !resuming);
        let trusted = !stale_pending
            && (resuming || j.indexes.get(index).is_some_and(|r| agrees(&r.version)));
        let mut previous = if trusted {
            j.indexes.get(index).map(|r| r.vectors.clone())
        } else {
            None
        };
        match (&mut previous, &self.client) {
            (None, Some(c)) => {
                // The journal does not know what the inactive index holds (first deploy from
                // this machine, another machine wrote it since, or an unfinished deploy of
                // another version): list its IDs, upsert everything and delete the IDs the
                // build lacks.
                let ids = c.list_ids(index)?;
                if !ids.is_empty() {
                    eprintln!(
                        "the journal does not know index {index}: it holds {} vectors (listed); all vectors are upserted",
                        ids.len()
                    );
                }
                previous = Some(ids.into_iter().map(|id| (id, String::new())).collect());
            }
            // An unfinished deploy goes on with the plan it was made with (its confirmed batches
            // are named by content); what the index lacks then is read back before the flip.
            (Some(known), Some(c)) if !resuming => correct(known, c.list_ids(index)?, index),
            _ => {}
        }
        Ok(Held {
            previous,
            resuming,
            trusted,
        })
    }

    /// The plan as printed, with its KV writes; `Err` when over `max_kv_writes` unconfirmed.
    fn bill(&self, p: &Plan, recs: &Records) -> Result<(Value, Option<usize>), DeployError> {
        let (args, index, version) = (self.args, &self.index, self.version);
        // Single KV writes besides the bulk batches: the registry's claim (unless it already
        // says so), the registry marking the version complete (unless it already is), the
        // pointer.
        let claim_puts = self
            .registry
            .as_ref()
            .is_none_or(|r| r.clone().claim(index, version)) as usize;
        let complete_puts =
            self.registry
                .as_ref()
                .is_none_or(|r| !r.complete.iter().any(|v| v == version)) as usize;
        let puts = claim_puts + complete_puts + 1;
        let mut summary = plan_json(
            p,
            args.target,
            self.pointer.as_ref(),
            index,
            self.source,
            args.dry_run,
        );
        summary["kv"]["writes"] = json!(p.kv_count() + puts);
        summary["kv"]["single_puts"] = json!(puts);
        summary["kv"]["present"] = json!(recs.kv_present);
        let writes = p.kv_count() + puts;
        let over = self.t.max_kv_writes.filter(|max| writes > *max);
        if let Some(max) = over {
            summary["kv"]["over_max"] = json!(max);
            if !args.confirm_writes && !args.dry_run {
                return Err(DeployError::OverMaxWrites {
                    writes,
                    max,
                    target: args.target.to_string(),
                });
            }
        }
        Ok((summary, over))
    }

    /// `--dry-run`: prints the plan (and with `--gc` what GC would delete after it); sends nothing.
    fn dry_run(self, planned: Planned) -> Result<(), DeployError> {
        let Planned {
            mut summary, over, ..
        } = planned;
        let args = self.args;
        if !args.json {
            print_plan(&summary);
            if let Some(max) = over {
                println!(
                    "  over max_kv_writes = {max}: a deploy of this plan needs --confirm-writes"
                );
            }
        }
        if args.gc {
            // What GC would delete once this plan is deployed.
            let mut after = self.registry.clone().unwrap_or_default();
            after.claim(&self.index, self.version);
            summary["gc"] = dry_gc(
                self.client.as_ref(),
                self.t,
                Some(after),
                &self.j,
                Some(&self.new_pointer()),
                &self.limits,
                args.json,
            )?;
        }
        if args.json {
            println!("{summary}");
        }
        Ok(())
    }

    /// Records the deploy in progress in the journal, or says that an unfinished one goes on.
    /// When a run before waited in vain for its last mutation, the index is asked once more; if
    /// it still has not applied it, the vector batches are sent again (new mutations).
    fn begin(&mut self, c: &Client, planned: &Planned) -> Result<(), DeployError> {
        let (version, index) = (self.version, &self.index);
        if planned.resuming {
            let pd = self.j.pending.as_mut().expect("a deploy in progress");
            if pd.wait_expired {
                pd.wait_expired = false;
                let last = pd.last_mutation.clone().unwrap_or_default();
                let info = c.info(index)?;
                if info.get("processedUpToMutation").and_then(Value::as_str) == Some(&last) {
                    pd.vectors_applied = true;
                } else {
                    eprintln!(
                        "Vectorize index {index} never reported mutation {} processed: the vector batches of the unfinished deploy are sent again",
                        crate::term::line(&last)
                    );
                    pd.done.clear();
                    pd.last_mutation = None;
                    pd.vectors_applied = false;
                }
                journal::save(&self.jpath, &self.j)?;
            }
            let done = self.j.pending.as_ref().map_or(0, |p| p.done.len());
            eprintln!(
                "resuming the unfinished deploy of {version} into {index}: {} already confirmed",
                crate::term::count(done, "batch", "batches")
            );
            return Ok(());
        }
        self.j.pending = Some(Pending {
            version: version.to_string(),
            index: index.clone(),
            ..Pending::default()
        });
        if !planned.trusted {
            self.j.indexes.remove(index);
        }
        journal::save(&self.jpath, &self.j)
    }

    /// Claims the inactive index for the new version in the registry, before its first vector
    /// changes; returns the registry as written.
    fn claim(&mut self, c: &Client) -> Result<Registry, DeployError> {
        let mut reg = self.registry.take().unwrap_or_default();
        if reg.claim(&self.index, self.version) {
            c.kv_put(
                &self.t.kv_namespace_id,
                &keys::registry_key(&self.t.prefix),
                &reg.to_json(),
            )?;
        }
        Ok(reg)
    }

    /// Waits until Vectorize has applied the last mutation, unless a run before saw it applied.
    pub(super) fn wait_for_index(&mut self, c: &Client) -> Result<(), DeployError> {
        let pd = self.j.pending.as_ref().expect("a deploy in progress");
        if let (Some(last), false) = (pd.last_mutation.clone(), pd.vectors_applied) {
            if let Err(e) = wait_applied(c, &self.index, &last, self.args.target) {
                if matches!(e, DeployError::NotApplied { .. }) {
                    self.j
                        .pending
                        .as_mut()
                        .expect("a deploy in progress")
                        .wait_expired = true;
                    journal::save(&self.jpath, &self.j)?;
                }
                return Err(e);
            }
            self.j
                .pending
                .as_mut()
                .expect("a deploy in progress")
                .vectors_applied = true;
            journal::save(&self.jpath, &self.j)?;
        }
        Ok(())
    }

    /// Before the KV values: a GC since the plan may have deleted values the plan took as
    /// present (those of `present_from`); then the deploy stops, to be planned again.
    fn confirm_present(&self, c: &Client, present_from: &[String]) -> Result<(), DeployError> {
        if present_from.is_empty() {
            return Ok(());
        }
        let now = gc::read_registry(c, self.t)?.unwrap_or_default();
        if let Some(v) = present_from.iter().find(|v| !now.complete.contains(v)) {
            return Err(DeployError::ConcurrentGc {
                version: v.clone(),
                target: self.args.target.to_string(),
            });
        }
        Ok(())
    }

    /// Marks the version complete in the registry (read again: another deploy may have changed
    /// it); returns the requests sent.
    fn complete(&self, c: &Client, reg: Registry) -> Result<usize, DeployError> {
        if reg.complete.iter().any(|v| v == self.version) {
            return Ok(0);
        }
        let mut reg = gc::read_registry(c, self.t)?.unwrap_or(reg);
        reg.claim(&self.index, self.version);
        reg.complete.push(self.version.to_string());
        c.kv_put(
            &self.t.kv_namespace_id,
            &keys::registry_key(&self.t.prefix),
            &reg.to_json(),
        )?;
        Ok(1)
    }

    /// What the pointer names now, as the check query's refusal says it.
    pub(super) fn from(&self) -> String {
        self.pointer.as_ref().map_or("nothing".to_string(), |p| {
            format!("{} on {}", p.version, p.index)
        })
    }

    fn new_pointer(&self) -> Pointer {
        Pointer {
            version: self.version.to_string(),
            index: self.index.clone(),
            layout: Some(keys::LAYOUT),
        }
    }

    /// Writes the pointer, last, and records in the journal what the index now holds.
    fn flip(&mut self, c: &Client, recs: &Records) -> Result<Pointer, DeployError> {
        let new_pointer = self.new_pointer();
        c.kv_put(
            &self.t.kv_namespace_id,
            &self.pointer_key,
            &serde_json::to_string(&new_pointer).expect("serializes"),
        )?;
        self.j.indexes.insert(
            self.index.clone(),
            IndexRecord {
                version: self.version.to_string(),
                vectors: state_after(recs),
            },
        );
        self.j.pointer = Some(new_pointer.clone());
        self.j.pending = None;
        journal::save(&self.jpath, &self.j)?;
        Ok(new_pointer)
    }

    /// `--gc` after the flip: deletes the keys of versions no index holds.
    fn gc(&mut self, c: &Client, new_pointer: &Pointer) -> Result<Option<Value>, DeployError> {
        if !self.args.gc {
            return Ok(None);
        }
        let g = gc::run(
            c,
            self.t,
            gc::read_registry(c, self.t)?,
            &self.j,
            Some(new_pointer),
            &self.limits,
            false,
            self.args.json,
        )?;
        forget_collected(&mut self.j, &self.jpath, &g)?;
        Ok(Some(g))
    }
}

pub(super) fn read_pointer(
    c: &Client,
    ns: &str,
    key: &str,
) -> Result<Option<Pointer>, DeployError> {
    c.kv_get(ns, key)?
        .map(|s| {
            serde_json::from_str::<Pointer>(&s)
                .map_err(|e| keys::malformed(key, Stored::Pointer, e))
        })
        .transpose()
}
