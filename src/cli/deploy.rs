//! `askzico deploy`

use super::{BuildLocation, EXIT_ERRORS, EXIT_OK, EXIT_USAGE};

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
        Err(e) => {
            eprintln!("{e}");
            return EXIT_USAGE;
        }
    };
    let needs = if check {
        Some("a check")
    } else if rollback {
        Some("a rollback")
    } else if !dry_run {
        Some("a deploy")
    } else {
        None
    };
    if let Some(what) = needs
        && client.is_none()
    {
        let hint = if check || rollback {
            ""
        } else {
            " (use --dry-run to see the plan without it)"
        };
        eprintln!("{what} needs CLOUDFLARE_API_TOKEN in the environment{hint}");
        return EXIT_USAGE;
    }
    if check {
        let result = client
            .ok_or_else(|| "a check needs CLOUDFLARE_API_TOKEN in the environment".to_string())
            .and_then(|c| crate::deploy::check::run(&c, t, target, json));
        return match result {
            Ok(()) => EXIT_OK,
            Err(e) => {
                eprintln!("{e}");
                EXIT_ERRORS
            }
        };
    }
    if rollback {
        return match crate::deploy::rollback::rollback(&out, t, target, json) {
            Ok(()) => EXIT_OK,
            Err(e) => {
                eprintln!("{e}");
                EXIT_ERRORS
            }
        };
    }
    let manifest = match super::verify::verified_manifest(&out, at.env.as_deref(), json, "deploy") {
        Ok(m) => m,
        Err(code) => return code,
    };
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
        Err(e) => {
            eprintln!("{e}");
            EXIT_ERRORS
        }
    }
}
