//! `askzico deploy`

use super::{BuildLocation, EXIT_ERRORS, EXIT_OK, EXIT_USAGE, report};
use crate::deploy::DeployError;
use crate::deploy::error::Action;
use crate::diag::Problems;

/// The switches of `askzico deploy`.
pub struct Mode {
    pub dry_run: bool,
    pub gc: bool,
    pub json: bool,
    pub confirm_writes: bool,
    pub rollback: bool,
    pub check: bool,
}

pub fn run(at: &BuildLocation, target: &str, mode: Mode) -> i32 {
    let Mode {
        dry_run,
        gc,
        json,
        confirm_writes,
        rollback,
        check,
    } = mode;
    let Some(config) = at.load(json) else {
        return EXIT_USAGE;
    };
    let Some(t) = at.deploy_target(&config, target) else {
        return EXIT_USAGE;
    };
    let out = at.out.clone().unwrap_or(config.out_dir.clone());
    // Credentials are part of the invocation: a missing token (where one is needed) or a bad
    // one is a usage error, reported before anything is read or planned.
    let client = match crate::deploy::client::Client::from_env(t.account_id.as_deref()) {
        Ok(c) => c,
        Err(e) => return usage(DeployError::Environment(e), json),
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
        return usage(DeployError::NoToken { action }, json);
    }
    if check {
        let result = client
            .ok_or(DeployError::NoToken {
                action: Action::Check,
            })
            .and_then(|c| crate::deploy::check::run(&c, t, target, json));
        return match result {
            Ok(()) => EXIT_OK,
            Err(e) => failed(e, json),
        };
    }
    if rollback {
        return match crate::deploy::rollback::rollback(&out, t, target, json) {
            Ok(()) => EXIT_OK,
            Err(e) => failed(e, json),
        };
    }
    let manifest = match super::verify::verified_manifest(&out, at.env.as_deref(), json, "deploy") {
        Ok(m) => m,
        Err(code) => return code,
    };
    if let Err(p) = super::build_of_config(&out, &manifest, &config, at.env.as_deref(), at.shown())
    {
        report(&Problems(vec![p]), json);
        return EXIT_ERRORS;
    }
    match crate::deploy::run::deploy(
        &out,
        &manifest,
        t,
        &crate::deploy::run::Args {
            target,
            dry_run,
            json,
            gc,
            confirm_writes,
        },
    ) {
        Ok(()) => EXIT_OK,
        Err(e) => failed(e, json),
    }
}

/// Reports credentials that cannot serve the invocation: a usage error.
fn usage(e: DeployError, json: bool) -> i32 {
    report(&Problems(vec![e.into()]), json);
    EXIT_USAGE
}

/// Reports a failed deploy, rollback or check as a problem (what failed, what to do).
fn failed(e: DeployError, json: bool) -> i32 {
    report(&Problems(vec![e.into()]), json);
    EXIT_ERRORS
}
