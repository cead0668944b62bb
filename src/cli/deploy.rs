//! `askzico deploy`

use super::{BuildLocation, Failure, Outcome};
use crate::deploy::DeployError;
use crate::deploy::error::Action;

#[derive(clap::Args, Debug)]
pub(super) struct DeployArgs {
    #[command(flatten)]
    pub at: BuildLocation,
    /// The `[deploy.NAME]` table of the config.
    #[arg(long, value_parser = crate::paths::name_arg)]
    pub target: String,
    /// Print the plan (counts, bytes, batches, the version switch) and send nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Then delete the KV keys of versions neither index holds any more (by the exact keys
    /// their stored manifests name; never the live version's). With --dry-run, only list them.
    #[arg(long)]
    pub gc: bool,
    /// Print the plan and the outcome as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Send a plan that makes more KV writes than the target's `max_kv_writes`.
    #[arg(long)]
    pub confirm_writes: bool,
    /// Point the target back at the version its inactive index still holds (writes the
    /// pointer only; refused once that version was overwritten or collected).
    #[arg(long, conflicts_with_all = ["dry_run", "gc", "confirm_writes"])]
    pub rollback: bool,
    /// Read the live version back through the API as a runtime reads it and confirm that
    /// every chunk ID of it resolves (reads only).
    #[arg(long, conflicts_with_all = ["dry_run", "gc", "confirm_writes", "rollback"])]
    pub check: bool,
}

pub(super) fn run(args: DeployArgs) -> Outcome {
    let DeployArgs {
        ref at,
        ref target,
        dry_run,
        gc,
        json,
        confirm_writes,
        rollback,
        check,
    } = args;
    let target = target.as_str();
    let config = at.load(json)?;
    let t = at.deploy_target(&config, target)?;
    let out = at.out.clone().unwrap_or(config.out_dir.clone());
    // Credentials are part of the invocation: a missing token (where one is needed) or a bad
    // one is a usage error, reported before anything is read or planned.
    let client = match crate::deploy::client::Client::from_env(t.account_id.as_deref()) {
        Ok(c) => c,
        Err(e) => return Err(usage(DeployError::Environment(e), json)),
    };
    let needs = if check {
        Some(Action::Check)
    } else if rollback {
        Some(Action::Rollback)
    } else if !dry_run {
        Some(Action::Deploy)
    } else {
        None
    };
    if let Some(action) = needs
        && client.is_none()
    {
        return Err(usage(DeployError::NoToken { action }, json));
    }
    if check {
        let result = client
            .ok_or(DeployError::NoToken {
                action: Action::Check,
            })
            .and_then(|c| crate::deploy::check::run(&c, t, target, json));
        return result.map_err(|e| failed(e, json));
    }
    if rollback {
        return crate::deploy::rollback::rollback(&out, t, target, json)
            .map_err(|e| failed(e, json));
    }
    let manifest = super::verify::verified_manifest(&out, at.env.as_deref(), json, "deploy")?;
    super::build_of_config(&out, &manifest, &config, at.env.as_deref(), at.shown())
        .map_err(|p| Failure::errors(p, json))?;
    let settings = config.query_settings().to_json();
    crate::deploy::run::deploy(
        &out,
        &manifest,
        t,
        &crate::deploy::run::Args {
            target,
            dry_run,
            json,
            gc,
            confirm_writes,
            settings: &settings,
        },
    )
    .map_err(|e| failed(e, json))
}

/// Credentials that cannot serve the invocation: a usage error.
fn usage(e: DeployError, json: bool) -> Failure {
    Failure::usage(crate::diag::Problem::from(e), json)
}

/// A failed deploy, rollback or check as a problem (what failed, what to do).
fn failed(e: DeployError, json: bool) -> Failure {
    Failure::errors(crate::diag::Problem::from(e), json)
}
