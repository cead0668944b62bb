//! `askzico verify`

use super::{BuildLocation, EXIT_ERRORS, EXIT_OK, EXIT_USAGE, report};
use crate::artifacts::store::read_manifest;
use crate::artifacts::verify::verify;
use crate::diag::Problems;

/// The output directory of a build: `--out`, else the config's.
pub fn out_dir(at: &BuildLocation, json: bool) -> Option<std::path::PathBuf> {
    if let Some(o) = &at.out {
        return Some(o.clone());
    }
    match at.config() {
        Ok(c) => Some(c.out_dir),
        Err(p) => {
            report(&p, json);
            None
        }
    }
}

/// The manifest of a build that verifies, for commands that upload it; `Err` is the exit code
/// after the problems were reported. An upload must never carry a half-written version.
pub fn verified_manifest(
    out: &std::path::Path,
    env: Option<&str>,
    json: bool,
    what: &str,
) -> Result<crate::artifacts::manifest::Manifest, i32> {
    let manifest = read_manifest(out, env).map_err(|p| {
        report(&Problems(vec![p]), json);
        EXIT_ERRORS
    })?;
    let problems = verify(out, &manifest);
    if !problems.is_empty() {
        report(&Problems(problems), json);
        eprintln!("{what} refused: the build does not verify");
        return Err(EXIT_ERRORS);
    }
    Ok(manifest)
}

pub fn run(at: &BuildLocation, json: bool) -> i32 {
    let Some(out) = out_dir(at, json) else {
        return EXIT_USAGE;
    };
    let manifest = match at.read_manifest(&out) {
        Ok(m) => m,
        Err(p) => {
            report(&Problems(vec![p]), json);
            return EXIT_ERRORS;
        }
    };
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
                "verify failed: {} problem(s) in {}",
                problems.0.len(),
                manifest.corpus_version
            );
        }
    }
    if problems.0.is_empty() {
        EXIT_OK
    } else {
        EXIT_ERRORS
    }
}

/// `askzico gc` flags.
pub struct GcArgs {
    /// Version manifests kept besides the current ones.
    pub keep: usize,
    pub dry_run: bool,
    pub json: bool,
}

/// `askzico gc`
pub fn gc(at: &BuildLocation, args: GcArgs) -> i32 {
    let GcArgs {
        keep,
        dry_run,
        json,
    } = args;
    let Some(out) = out_dir(at, json) else {
        return EXIT_USAGE;
    };
    match crate::artifacts::gc::gc(&out, keep, dry_run) {
        Ok(r) => {
            if json {
                println!("{}", serde_json::to_string(&r).expect("serializes"));
            } else {
                let verb = if dry_run { "would remove" } else { "removed" };
                eprintln!(
                    "gc: kept {} version(s); {verb} {} version manifest(s) and {} file(s), {:.1} MB",
                    r.versions_kept.len(),
                    r.versions_removed,
                    r.files_removed,
                    r.bytes_removed as f64 / 1e6
                );
                if !r.left_in_place.is_empty() {
                    let shown: Vec<&str> =
                        r.left_in_place.iter().take(5).map(String::as_str).collect();
                    eprintln!(
                        "gc: left {} file(s) no manifest names and askzico cannot prove it wrote (e.g. {}); remove them yourself if they are not needed",
                        r.left_in_place.len(),
                        shown.join(", ")
                    );
                }
            }
            EXIT_OK
        }
        Err(p) => {
            report(&Problems(vec![p]), json);
            EXIT_ERRORS
        }
    }
}
