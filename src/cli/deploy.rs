//! `askzico deploy`

use super::{BuildLocation, EXIT_ERRORS, EXIT_OK, EXIT_USAGE, load_config, report};
use crate::artifacts::store::read_manifest;
use crate::artifacts::verify::verify;
use crate::diag::Problems;

pub fn run(at: &BuildLocation, target: &str, dry_run: bool, json: bool) -> i32 {
    let Some(config) = load_config(&at.config, json) else { return EXIT_USAGE };
    let Some(t) = config.deploy.get(target) else {
        let known: Vec<&str> = config.deploy.keys().map(String::as_str).collect();
        eprintln!("no deploy target `{target}` in {} (known: {})", at.config.display(), if known.is_empty() { "none; add a [deploy.NAME] table".to_string() } else { known.join(", ") });
        return EXIT_USAGE;
    };
    let out = at.out.clone().unwrap_or(config.out_dir.clone());
    let manifest = match read_manifest(&out, at.env.as_deref()) {
        Ok(m) => m,
        Err(p) => {
            report(&Problems(vec![p]), json);
            return EXIT_ERRORS;
        }
    };
    // Deploy only a build that verifies.
    let problems = verify(&out, &manifest);
    if !problems.is_empty() {
        report(&Problems(problems), json);
        eprintln!("deploy refused: the build does not verify");
        return EXIT_ERRORS;
    }
    match crate::deploy::run::deploy(&out, &manifest, t, &crate::deploy::run::Args { target, dry_run, json }) {
        Ok(()) => EXIT_OK,
        Err(e) => {
            eprintln!("{e}");
            EXIT_ERRORS
        }
    }
}
