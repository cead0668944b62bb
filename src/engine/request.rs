//! The engine's request and report types: what a build is asked to do and what it answers.

use std::path::{Path, PathBuf};

use crate::artifacts::manifest::Manifest;
use crate::artifacts::store::WriteStats;
use crate::config::Config;
use crate::diag::{Problem, Problems};

#[derive(Debug, Clone)]
pub struct BuildRequest {
    pub out: PathBuf,
    pub env: Option<String>,
    pub progress: bool,
    /// Publish a build without any document (`build --allow-empty`); otherwise such a build is
    /// an error and the previous one stays in place.
    pub allow_empty: bool,
}

#[derive(Debug, Default, Clone)]
pub struct BuildStats {
    pub files: usize,
    pub docs: usize,
    pub chunks: usize,
    pub write: WriteStats,
    pub ms: u128,
}

#[derive(Debug)]
pub struct BuildReport {
    pub manifest: Option<Manifest>,
    pub manifest_path: Option<PathBuf>,
    pub problems: Problems,
    pub stats: BuildStats,
    /// The work this build actually did (`--stats-json`).
    pub run: super::Stats,
}

/// A full build in a fresh engine. Never writes anything when an error was found.
pub(crate) fn run(cfg: &Config, req: &BuildRequest) -> BuildReport {
    super::Engine::new(cfg.clone()).build(req)
}

pub(crate) fn write_failure(out: &Path, e: std::io::Error) -> Problem {
    if let Some(lock) = crate::artifacts::store::LockNotAFile::of(&e) {
        return lock.problem();
    }
    Problem::error("write", format!("writing the build failed: {e}"))
        .in_file(out.display().to_string())
        .help("the previous manifest and its files are untouched; fix the cause (disk space, permissions) and build again")
}
