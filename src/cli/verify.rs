//! `askzico verify`

use super::{BuildLocation, EXIT_ERRORS, Failure, Outcome, report};
use crate::artifacts::store::read_manifest;
use crate::artifacts::verify::verify;
use crate::diag::Problems;

#[derive(clap::Args, Debug)]
pub(super) struct VerifyArgs {
    #[command(flatten)]
    pub at: BuildLocation,
    /// Print the result (ok, problems) as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// The output directory of a build: `--out`, else the config's.
pub(super) fn out_dir(at: &BuildLocation, json: bool) -> Result<std::path::PathBuf, Failure> {
    if let Some(o) = &at.out {
        return Ok(o.clone());
    }
    Ok(at.load(json)?.out_dir)
}

/// The manifest of a build that verifies, for commands that upload it. An upload must never
/// carry a half-written version.
pub(super) fn verified_manifest(
    out: &std::path::Path,
    env: Option<&str>,
    json: bool,
    what: &str,
) -> Result<crate::artifacts::manifest::Manifest, Failure> {
    let manifest = read_manifest(out, env).map_err(|p| Failure::errors(p, json))?;
    let problems = verify(out, &manifest);
    if !problems.is_empty() {
        report(&Problems(problems), json);
        eprintln!("{what} refused: the build does not verify");
        return Err(Failure::said(EXIT_ERRORS));
    }
    Ok(manifest)
}

pub(super) fn run(args: VerifyArgs) -> Outcome {
    let VerifyArgs { ref at, json } = args;
    let out = out_dir(at, json)?;
    let manifest = at
        .read_manifest(&out)
        .map_err(|p| Failure::errors(p, json))?;
    let problems = Problems(verify(&out, &manifest));
    if json {
        println!(
            "{}",
            serde_json::json!({
                "ok": problems.0.is_empty(),
                "corpus_version": manifest.corpus_version,
                "artifacts": manifest.artifacts.len(),
                "diagnostics": problems.0.iter().map(|p| p.to_json()).collect::<Vec<_>>(),
            })
        );
    } else {
        report(&problems, false);
        if problems.0.is_empty() {
            println!(
                "ok: {} — {} artifacts re-hashed, invariants hold",
                manifest.corpus_version,
                manifest.artifacts.len()
            );
        } else {
            eprintln!(
                "verify failed: {} in {}",
                crate::term::count(problems.0.len(), "problem", "problems"),
                manifest.corpus_version
            );
        }
    }
    if problems.0.is_empty() {
        Ok(())
    } else {
        Err(Failure::said(EXIT_ERRORS))
    }
}

/// `askzico gc` flags.
#[derive(clap::Args, Debug)]
pub(super) struct GcArgs {
    #[command(flatten)]
    pub at: BuildLocation,
    /// How many of the newest version manifests under `out/versions/` to keep, besides the current ones.
    #[arg(long, default_value_t = 3)]
    pub keep: usize,
    /// Say what would be removed, remove nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print what was (or would be) removed as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `askzico gc`
pub(super) fn gc(args: GcArgs) -> Outcome {
    let GcArgs {
        ref at,
        keep,
        dry_run,
        json,
    } = args;
    let out = out_dir(at, json)?;
    match crate::artifacts::gc::gc(&out, keep, dry_run) {
        Ok(r) => {
            if json {
                println!("{}", serde_json::to_string(&r).expect("serializes"));
            } else {
                let verb = if dry_run { "would remove" } else { "removed" };
                eprintln!(
                    "gc: kept {}; {verb} {} and {}, {:.1} MB",
                    crate::term::count(r.versions_kept.len(), "version", "versions"),
                    crate::term::count(r.versions_removed, "version manifest", "version manifests"),
                    crate::term::count(r.files_removed, "file", "files"),
                    r.bytes_removed as f64 / 1e6
                );
                if !r.left_in_place.is_empty() {
                    let shown: Vec<&str> =
                        r.left_in_place.iter().take(5).map(String::as_str).collect();
                    eprintln!(
                        "gc: left {} no manifest names and askzico cannot prove it wrote (e.g. {}); remove them yourself if they are not needed",
                        crate::term::count(r.left_in_place.len(), "file", "files"),
                        shown.join(", ")
                    );
                }
            }
            Ok(())
        }
        Err(p) => Err(Failure::errors(p, json)),
    }
}
