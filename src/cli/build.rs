//! `askzico build`

use super::{BuildLocation, EXIT_ERRORS, EXIT_OK, EXIT_USAGE, load_config, report};
use crate::build::{BuildRequest, run as build};

pub fn run(at: &BuildLocation, json: bool) -> i32 {
    let Some(cfg) = load_config(&at.config, json) else { return EXIT_USAGE };
    let req = BuildRequest { out: cfg.out_dir_or(at.out.as_deref()), env: at.env.clone(), progress: crate::build::want_progress(json) };
    let rep = build(&cfg, &req);
    if !json {
        report(&rep.problems, false);
    }
    let ok = rep.manifest.is_some() && !rep.problems.has_errors();
    if json {
        let summary = serde_json::json!({
            "ok": ok,
            "corpus_version": rep.manifest.as_ref().map(|m| m.corpus_version.clone()),
            "environment": at.env.clone().unwrap_or_else(|| "default".into()),
            "manifest": rep.manifest_path.as_ref().map(|p| p.display().to_string()),
            "files": rep.stats.files,
            "docs": rep.stats.docs,
            "chunks": rep.stats.chunks,
            "files_written": rep.stats.write.files_written,
            "files_reused": rep.stats.write.files_reused,
            "bytes_written": rep.stats.write.bytes_written,
            "ms": rep.stats.ms,
            "errors": rep.problems.errors(),
            "warnings": rep.problems.warnings(),
            "diagnostics": rep.problems.0.iter().map(|p| p.to_json()).collect::<Vec<_>>(),
        });
        println!("{summary}");
    } else if let (Some(m), Some(path)) = (&rep.manifest, &rep.manifest_path) {
        let chunks: usize = m.libraries.iter().map(|l| l.chunks).sum();
        let docs: usize = m.libraries.iter().map(|l| l.docs).sum();
        println!(
            "built {} ({} libraries, {docs} docs, {chunks} chunks, {} artifacts; {} written, {} reused) in {} ms\n  -> {}",
            m.corpus_version,
            m.libraries.len(),
            m.artifacts.len(),
            rep.stats.write.files_written,
            rep.stats.write.files_reused,
            rep.stats.ms,
            path.display()
        );
        if rep.problems.warnings() > 0 {
            println!("  {} warning(s)", rep.problems.warnings());
        }
    } else {
        eprintln!("build failed: {} error(s); the previous build is untouched", rep.problems.errors());
    }
    if ok { EXIT_OK } else { EXIT_ERRORS }
}
