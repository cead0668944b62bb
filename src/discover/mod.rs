//! discover: which files of each library's root are sources (include/exclude globs), in a
//! deterministic order. The only stage besides `artifacts::store` that touches the file system
//! for listing.

use std::path::{Path, PathBuf};

use crate::build::display_name;
use crate::config::{Config, Format, Library};
use crate::diag::{Problem, Problems};

/// One source file of one library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// Index of the library in the config.
    pub library: usize,
    /// Path relative to the library root, `/`-separated.
    pub rel: String,
    /// Canonical path (symlinks resolved), so file events match it.
    pub path: PathBuf,
    pub format: Format,
}

impl SourceFile {
    /// `<library id>/<rel>`: the machine-independent `source` of a chunk record.
    pub fn source_name(&self, cfg: &Config) -> String {
        format!("{}/{}", cfg.libraries[self.library].id, self.rel)
    }
}

/// Lists the source files of the given libraries. Problems: unknown formats are skipped
/// silently only when excluded by globs; a file that matches but has no known format is a warning;
/// a file claimed by two libraries is an error.
pub fn discover(cfg: &Config, libs: &[&Library], out_dir: &Path) -> (Vec<SourceFile>, Problems) {
    let mut problems = Problems::default();
    let mut files = Vec::new();
    let out_canon = out_dir.canonicalize().ok();
    // Looked up once per file: hashed by the canonical path's bytes (an ordered map compared
    // paths component by component, ~30 ms at 10k files, and `Path`'s own hash walks its
    // components too; a canonical path has one spelling).
    let mut claimed: rustc_hash::FxHashMap<std::ffi::OsString, String> =
        rustc_hash::FxHashMap::default();
    for lib in libs {
        let lib_index = cfg
            .libraries
            .iter()
            .position(|l| l.id == lib.id)
            .expect("library from this config");
        let Ok(root_canon) = lib.root.canonicalize() else {
            problems.push(
                Problem::error(
                    "library-root",
                    format!(
                        "library `{}`: cannot open root {}",
                        lib.id,
                        lib.root.display()
                    ),
                )
                .in_file(cfg.path.display().to_string())
                .help("check the `root` path in corpus.toml"),
            );
            continue;
        };
        // Whether a file reached without a symlink (the canonical root joined with its path)
        // may lie in the output directory: only when the output is inside this root.
        let out_in_root = out_canon
            .as_ref()
            .is_some_and(|o| o.starts_with(&root_canon) || root_canon.starts_with(o));
        let walker = walkdir::WalkDir::new(&lib.root)
            .follow_links(true)
            .sort_by_file_name();
        let mut lib_files = Vec::new();
        // Directories reached through a symlink: files under them (and symlinked files) are
        // resolved with `canonicalize`; any other file's canonical path is the canonical root
        // joined with its path (one system call per file saved on every build).
        let mut linked_dirs: Vec<PathBuf> = Vec::new();
        for entry in walker {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    let path = e.path().map(|p| shown(lib, p)).unwrap_or_default();
                    // A loop is not a source (warning); anything else that cannot be listed or
                    // followed (a dangling symlink, an unreadable directory) may hide sources.
                    let p = if e.loop_ancestor().is_some() {
                        Problem::warning("discover", format!("symlink loop at {path}: skipped"))
                    } else {
                        Problem::error("discover", format!("cannot read {path}: {e}"))
                    };
                    problems.push(p.in_file(path).help("fix or remove the entry (a dangling symlink, a directory without read permission), or exclude it in corpus.toml"));
                    continue;
                }
            };
            if !entry.file_type().is_file() {
                if entry.path_is_symlink() {
                    linked_dirs.push(entry.path().to_path_buf());
                }
                continue;
            }
            let path = entry.path();
            let Ok(rel) = path.strip_prefix(&lib.root) else {
                continue;
            };
            let rel_str = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            if !lib.include.is_match(&rel_str) || lib.exclude.is_match(&rel_str) {
                continue;
            }
            let linked = entry.path_is_symlink() || linked_dirs.iter().any(|d| path.starts_with(d));
            let canon = if linked {
                match path.canonicalize() {
                    Ok(c) => c,
                    Err(_) => continue, // vanished between listing and now
                }
            } else {
                root_canon.join(rel)
            };
            if (linked || out_in_root)
                && let Some(out) = &out_canon
                && canon.starts_with(out)
            {
                continue;
            }
            let display = display_name(lib, &rel_str);
            // Without a symlink, the canonical root joined with a path under it stays under it.
            if linked && !lib.allow_outside_root && !canon.starts_with(&root_canon) {
                problems.push(
                    Problem::error("outside-root", format!("{display} resolves outside the library root (to {})", canon.display()))
                        .in_file(display.clone())
                        .help("a symlink may not leave the library root; set `allow_outside_root = true` on the library to allow it"),
                );
                continue;
            }
            let format = match lib.format.or_else(|| Format::from_extension(path)) {
                Some(f) => f,
                None => {
                    problems.push(
                        Problem::warning(
                            "unknown-format",
                            "no format for this file extension; skipped",
                        )
                        .in_file(display.clone())
                        .help("narrow the library's `include` globs, or set `format`"),
                    );
                    continue;
                }
            };
            if let Some(other) = claimed.get(canon.as_os_str()) {
                problems.push(
                    Problem::error(
                        "claimed-twice",
                        format!(
                            "{display} is claimed by two libraries: `{other}` and `{}`",
                            lib.id
                        ),
                    )
                    .in_file(display.clone())
                    .help("make the libraries' roots or include/exclude globs disjoint"),
                );
                continue;
            }
            claimed.insert(canon.as_os_str().to_owned(), lib.id.clone());
            lib_files.push(SourceFile {
                library: lib_index,
                rel: rel_str,
                path: canon,
                format,
            });
        }
        lib_files.sort_by(|a, b| a.rel.cmp(&b.rel));
        files.extend(lib_files);
    }
    (files, problems)
}

/// A path under a library's root as diagnostics name files (relative to the config's directory).
fn shown(lib: &Library, path: &Path) -> String {
    match path.strip_prefix(&lib.root) {
        Ok(rel) => display_name(
            lib,
            &rel.components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
        ),
        Err(_) => path.display().to_string(),
    }
}
