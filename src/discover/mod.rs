//! discover: which files of each library's root are sources (include/exclude globs), in a
//! deterministic order. The only stage besides `artifacts::store` that touches the file system
//! for listing.

use std::path::{Path, PathBuf};

use crate::config::{Config, Format, Library};
use crate::diag::{Problem, Problems};
pub(crate) use crate::walk::site_walk;

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
    let mut claimed = Claims::default();
    for lib in libs {
        let root_canon = match open_root(cfg, lib) {
            Ok(r) => r,
            Err(p) => {
                problems.push(p);
                continue;
            }
        };
        let skip = out_in_walk(lib, &root_canon, out_canon.as_deref());
        if let Some(zc) = &lib.zero_config {
            problems.extend(zc.warnings.iter().map(crate::config::SiteWarning::problem));
        }
        let mut listing = Listing::new(cfg, lib, root_canon, out_canon.as_deref());
        for step in walk(lib, skip.as_deref()) {
            listing.step(step, &mut claimed, &mut problems);
        }
        files.extend(listing.finish(cfg, &mut problems));
    }
    (files, problems)
}

/// The library each source file was claimed by, by canonical path. Looked up once per file:
/// hashed by the canonical path's bytes (an ordered map compared paths component by component,
/// ~30 ms at 10k files, and `Path`'s own hash walks its components too; a canonical path has
/// one spelling).
/// Per canonical source path: the library that took it and the name it was taken under.
type Claims = rustc_hash::FxHashMap<std::ffi::OsString, Claim>;

struct Claim {
    library: String,
    display: String,
}

/// Whether a file name is an editor's lock file, never content: Emacs marks a buffer with unsaved
/// edits by a symbolic link `.#name` (to a missing `user@host.pid:time`) beside the file, which
/// a `**/*.md` glob matches.
fn is_editor_lock(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes().starts_with(b".#")
}

/// The canonical path of a library's root: an error when it cannot be opened or is on a
/// kernel pseudo filesystem.
fn open_root(cfg: &Config, lib: &Library) -> Result<PathBuf, Problem> {
    let Ok(root_canon) = lib.root.canonicalize() else {
        return Err(Problem::error(
            "library-root",
            format!(
                "library `{}`: cannot open root {}",
                lib.id,
                lib.root.display()
            ),
        )
        .in_file(cfg.shown.clone())
        .help("check the `root` path in corpus.toml"));
    };
    if let Some(fs) = pseudo_filesystem(&root_canon) {
        return Err(Problem::error(
                "library-root",
                format!(
                    "library `{}`: root {} is on the kernel's `{fs}` filesystem, not a directory of sources: nothing was read",
                    lib.id,
                    root_canon.display()
                ),
            )
            .in_file(cfg.shown.clone())
            .help("point the library's `root` (or --sources) at the directory holding the Markdown, MDX, HTML or JSON sources"));
    }
    Ok(root_canon)
}

/// The listing of one library's root while its walk goes on.
struct Listing<'a> {
    lib: &'a Library,
    /// Index of the library in the config.
    lib_index: usize,
    root_canon: PathBuf,
    out_canon: Option<&'a Path>,
    /// Whether a file reached without a symlink (the canonical root joined with its path) may
    /// lie in the output directory: only when the output is inside this root.
    out_in_root: bool,
    /// Directories reached through a symlink: files under them (and symlinked files) are
    /// resolved with `canonicalize`; any other file's canonical path is the canonical root
    /// joined with its path (one system call per file saved on every build).
    linked_dirs: Vec<PathBuf>,
    /// The directories being listed, by depth: an error reading a directory's entries carries
    /// no path, and is named by the directory it came from.
    open_dirs: Vec<PathBuf>,
    /// Entries the globs select (sources, special files, links refused): none is a warning.
    matched: usize,
    files: Vec<SourceFile>,
}

/// A selected entry's canonical path, and whether a symlink led to it.
struct Resolved {
    canon: PathBuf,
    linked: bool,
}

impl<'a> Listing<'a> {
    fn new(
        cfg: &Config,
        lib: &'a Library,
        root_canon: PathBuf,
        out_canon: Option<&'a Path>,
    ) -> Self {
        let lib_index = cfg
            .libraries
            .iter()
            .position(|l| l.id == lib.id)
            .expect("library from this config");
        let out_in_root =
            out_canon.is_some_and(|o| o.starts_with(&root_canon) || root_canon.starts_with(o));
        Listing {
            lib,
            lib_index,
            root_canon,
            out_canon,
            out_in_root,
            linked_dirs: Vec::new(),
            open_dirs: Vec::new(),
            matched: 0,
            files: Vec::new(),
        }
    }

    /// Takes one step of the walk: a directory entered, a source file listed, or a problem.
    fn step(&mut self, step: Step, claimed: &mut Claims, problems: &mut Problems) {
        let entry = match step {
            Step::Entry(e) => e,
            // An editor's lock file is a link to nothing: following it fails.
            Step::WalkError(e)
                if e.path()
                    .and_then(Path::file_name)
                    .is_some_and(is_editor_lock) =>
            {
                return;
            }
            Step::WalkError(e) => {
                problems.push(walk_problem(self.lib, &e, &self.open_dirs));
                return;
            }
            Step::SiteError(e) => {
                problems.push(site_walk_problem(self.lib, &e, &self.open_dirs));
                return;
            }
            Step::Problem(p) => {
                problems.push(p);
                return;
            }
        };
        if entry.file_type.is_dir() {
            self.enter_dir(entry);
            return;
        }
        let Ok(rel) = entry.path.strip_prefix(&self.lib.root) else {
            return;
        };
        let rel_str = crate::walk::rel_string(rel);
        if !self.lib.include.is_match(&rel_str)
            || self.lib.exclude.is_match(&rel_str)
            || entry.path.file_name().is_some_and(is_editor_lock)
        {
            return;
        }
        self.matched += 1;
        let Some(resolved) = self.resolve(&entry, rel) else {
            return;
        };
        match self.source_file(&entry, rel_str, resolved, claimed) {
            Ok(f) => {
                let claim = Claim {
                    library: self.lib.id.clone(),
                    display: self.lib.display_name(&f.rel),
                };
                claimed.insert(f.path.as_os_str().to_owned(), claim);
                self.files.push(f);
            }
            Err(p) => problems.push(p),
        }
    }

    fn enter_dir(&mut self, dir: Entry) {
        if dir.is_symlink {
            self.linked_dirs.push(dir.path.clone());
        }
        self.open_dirs.truncate(dir.depth);
        self.open_dirs.push(dir.path);
    }

    /// The canonical path of a selected entry (`rel`: its path under the root); `None` when it
    /// vanished since it was listed or lies in the output directory.
    fn resolve(&self, entry: &Entry, rel: &Path) -> Option<Resolved> {
        let path = entry.path.as_path();
        let linked = entry.is_symlink || self.linked_dirs.iter().any(|d| path.starts_with(d));
        let canon = if linked {
            path.canonicalize().ok()? // vanished between listing and now
        } else {
            self.root_canon.join(rel)
        };
        if (linked || self.out_in_root)
            && let Some(out) = self.out_canon
            && canon.starts_with(out)
        {
            return None;
        }
        Some(Resolved { canon, linked })
    }

    /// The source file a selected entry is, or the problem that keeps it out: a link outside
    /// the root, a special file, an unknown format, or a file another library claimed.
    fn source_file(
        &self,
        entry: &Entry,
        rel: String,
        Resolved { canon, linked }: Resolved,
        claimed: &Claims,
    ) -> Result<SourceFile, Problem> {
        let lib = self.lib;
        let display = lib.display_name(&rel);
        // Without a symlink, the canonical root joined with a path under it stays under it.
        if linked && !lib.allow_outside_root && !canon.starts_with(&self.root_canon) {
            return Err(Problem::error("outside-root", format!("{display} resolves outside the library root (to {})", canon.display()))
                    .in_file(display.clone())
                    .help("a symlink may not leave the library root; set `allow_outside_root = true` on the library to allow it"));
        }
        // A FIFO blocks its reader, a device never ends: named, never opened.
        if !entry.file_type.is_file() {
            return Err(Problem::warning(
                "special-file",
                format!(
                    "{display} is {}, not a regular file: skipped",
                    special_kind(&entry.file_type)
                ),
            )
            .in_file(display.clone())
            .help("remove it from the library root, or exclude it in corpus.toml"));
        }
        let Some(format) = lib.format.or_else(|| Format::from_extension(&entry.path)) else {
            return Err(Problem::warning(
                "unknown-format",
                "no format for this file extension; skipped",
            )
            .in_file(display.clone())
            .help("narrow the library's `include` globs, or set `format`"));
        };
        if let Some(first) = claimed.get(canon.as_os_str()) {
            if first.library == lib.id {
                return Err(Problem::warning(
                    "same-file",
                    format!(
                        "{display} is the same file as {} (one of them through a symbolic link): read once, as {}",
                        first.display, first.display
                    ),
                )
                .in_file(display.clone())
                .help("exclude one of the two paths in the library's `exclude` globs, or remove the link"));
            }
            return Err(Problem::error(
                "claimed-twice",
                format!(
                    "{display} is claimed by two libraries: `{}` and `{}`",
                    first.library, lib.id
                ),
            )
            .in_file(display.clone())
            .help("make the libraries' roots or include/exclude globs disjoint"));
        }
        Ok(SourceFile {
            library: self.lib_index,
            rel,
            path: canon,
            format,
        })
    }

    /// The library's source files in path order; a warning when its globs selected nothing.
    fn finish(mut self, cfg: &Config, problems: &mut Problems) -> Vec<SourceFile> {
        if self.matched == 0 {
            problems.push(matches_nothing(cfg, self.lib));
        }
        self.files.sort_by(|a, b| a.rel.cmp(&b.rel));
        self.files
    }
}

/// One entry of a library's walk.
struct Entry {
    path: PathBuf,
    depth: usize,
    file_type: std::fs::FileType,
    is_symlink: bool,
}

/// One step of a library's walk: an entry, or what went wrong.
enum Step {
    Entry(Entry),
    /// A written config's walk (walkdir) could not list or follow an entry.
    WalkError(walkdir::Error),
    /// A zero-config walk (the ignore crate) could not list or follow an entry.
    SiteError(ignore::Error),
    /// An ignore file that could not be read in full (a zero-config walk).
    Problem(Problem),
}

/// The output directory as the walk of `lib` names it, when it lies inside the walked tree: the
/// walk does not enter it, so nothing a build wrote there (artifacts, caches, its lock and temp
/// files, whatever else lands there) is listed, read or reported. A file reached through a
/// symlink is still checked against the output directory one by one (`Listing::resolve`).
fn out_in_walk(lib: &Library, root_canon: &Path, out_canon: Option<&Path>) -> Option<PathBuf> {
    let out = out_canon?;
    match &lib.zero_config {
        // The zero-config walk starts at the canonical sources directory.
        Some(zc) => (out != zc.dir && out.starts_with(&zc.dir)).then(|| out.to_path_buf()),
        None => {
            let rel = out.strip_prefix(root_canon).ok()?;
            (!rel.as_os_str().is_empty()).then(|| lib.root.join(rel))
        }
    }
}

/// The walk of a library's root, in file name order, symlinks followed, `skip` not entered:
/// every entry for a written config; for zero config (`--sources`), the entries a site generator
/// would publish (`site_walk`).
fn walk<'a>(lib: &'a Library, skip: Option<&Path>) -> Box<dyn Iterator<Item = Step> + 'a> {
    let Some(zc) = &lib.zero_config else {
        let skip = skip.map(Path::to_path_buf);
        let walker = walkdir::WalkDir::new(&lib.root)
            .follow_links(true)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(move |e| {
                e.depth() == 0
                    || (skip.as_deref() != Some(e.path())
                        && !(e.file_type().is_dir() && crate::walk::is_output_dir(e.path())))
            });
        return Box::new(walker.map(|r| match r {
            Ok(e) => Step::Entry(Entry {
                depth: e.depth(),
                file_type: e.file_type(),
                is_symlink: e.path_is_symlink(),
                path: e.into_path(),
            }),
            Err(e) => Step::WalkError(e),
        }));
    };
    Box::new(site_walk(&zc.dir, &lib.root, skip).flat_map(move |r| {
        let (entry, problem) = match r {
            Err(e) => (Step::SiteError(e), None),
            Ok(e) => {
                let problem = e.error().map(|err| ignore_file_problem(lib, err));
                match e.file_type() {
                    // Only standard input has no file type; a walk never yields it.
                    None => return Vec::new(),
                    Some(file_type) => (
                        Step::Entry(Entry {
                            depth: e.depth(),
                            file_type,
                            is_symlink: e.path_is_symlink(),
                            path: e.into_path(),
                        }),
                        problem.map(Step::Problem),
                    ),
                }
            }
        };
        std::iter::once(entry).chain(problem).collect::<Vec<_>>()
    }))
}

/// A zero-config walk error as a problem, as `walk_problem` names walkdir's.
fn site_walk_problem(lib: &Library, e: &ignore::Error, open_dirs: &[PathBuf]) -> Problem {
    let mut path = None;
    let mut inner = e;
    loop {
        match inner {
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                inner = err;
            }
            ignore::Error::WithPath { path: p, err } => {
                path.get_or_insert(p.as_path());
                inner = err;
            }
            _ => break,
        }
    }
    if let ignore::Error::Loop { child, .. } = inner {
        let path = shown(lib, child);
        return Problem::warning("discover", format!("symlink loop at {path}: skipped"))
            .in_file(path)
            .help("remove the symlink, or list it in a .ignore file");
    }
    let (what, file) = match path {
        Some(p) => {
            let p = shown(lib, p);
            (p.clone(), p)
        }
        None => {
            let dir = e
                .depth()
                .and_then(|d| d.checked_sub(1))
                .and_then(|d| open_dirs.get(d))
                .map_or_else(|| lib.root_display.clone(), |d| shown(lib, d));
            (format!("an entry of the directory {dir}"), dir)
        }
    };
    Problem::error("discover", format!("cannot read {what}: {inner}"))
        .in_file(file)
        .help("fix or remove the entry (a dangling symlink, a directory without read permission), or list it in a .ignore file")
}

/// An ignore file (`.gitignore`, `.ignore`) with lines that are not patterns: the rest of it
/// applies.
fn ignore_file_problem(lib: &Library, e: &ignore::Error) -> Problem {
    fn first_path(e: &ignore::Error) -> Option<&Path> {
        match e {
            ignore::Error::WithPath { path, .. } => Some(path),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                first_path(err)
            }
            ignore::Error::Partial(errs) => errs.iter().find_map(first_path),
            _ => None,
        }
    }
    let p = Problem::warning(
        "ignore-file",
        format!("an ignore file is read in part: {e}"),
    )
    .help("fix the line (git's pattern syntax): until then it does not apply");
    match first_path(e) {
        Some(path) => p.in_file(shown(lib, path)),
        None => p,
    }
}

/// A walk error as a problem naming its entry: the path walkdir gives, or else the directory
/// whose listing failed (`open_dirs[depth - 1]`: walkdir reports an entry that could not be read
/// at the depth of the entries of that directory).
fn walk_problem(lib: &Library, e: &walkdir::Error, open_dirs: &[PathBuf]) -> Problem {
    // A loop is not a source (warning); anything else that cannot be listed or followed (a
    // dangling symlink, an unreadable directory) may hide sources.
    if let Some(p) = e.path() {
        let path = shown(lib, p);
        let reason = e
            .io_error()
            .map_or_else(|| e.to_string(), ToString::to_string);
        let p = if e.loop_ancestor().is_some() {
            Problem::warning("discover", format!("symlink loop at {path}: skipped"))
        } else {
            Problem::error("discover", format!("cannot read {path}: {reason}"))
        };
        return p.in_file(path).help("fix or remove the entry (a dangling symlink, a directory without read permission), or exclude it in corpus.toml");
    }
    let dir = e
        .depth()
        .checked_sub(1)
        .and_then(|d| open_dirs.get(d))
        .map_or_else(|| lib.root_display.clone(), |d| shown(lib, d));
    Problem::error(
        "discover",
        format!("cannot read an entry of the directory {dir}: {e}"),
    )
    .in_file(dir)
    .help("the library root must be an ordinary directory of source files (not /proc, /sys or /dev); point `root` (or --sources) at the sources, or exclude this directory in corpus.toml")
}

/// The warning for a library whose include/exclude globs select no file under its root.
fn matches_nothing(cfg: &Config, lib: &Library) -> Problem {
    let list = |ps: &[String]| {
        ps.iter()
            .map(|p| format!("{p:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut msg = format!(
        "library `{}` matches no file: include [{}]",
        lib.id,
        list(&lib.include_patterns)
    );
    if !lib.exclude_patterns.is_empty() {
        msg.push_str(&format!(" minus exclude [{}]", list(&lib.exclude_patterns)));
    }
    msg.push_str(&format!(" under root `{}`", lib.root_display));
    Problem::warning("no-match", msg)
        .in_file(cfg.shown.clone())
        .help("check the library's `root`, `include` and `exclude` in corpus.toml: globs are relative to the root (`**/*.md` matches Markdown at any depth)")
}

/// The name of the kernel pseudo filesystem (`/proc`, `/sys`, …) `dir` is on, if it is: its
/// files are views of the running system, never sources, and walking them only yields errors.
#[cfg(target_os = "linux")]
fn pseudo_filesystem(dir: &Path) -> Option<&'static str> {
    use std::os::unix::ffi::OsStrExt;
    const PSEUDO: [(u64, &str); 12] = [
        (0x9fa0, "proc"),
        (0x6265_6572, "sysfs"),
        (0x1cd1, "devpts"),
        (0x6462_6720, "debugfs"),
        (0x7472_6163, "tracefs"),
        (0x0027_e0eb, "cgroup"),
        (0x6367_7270, "cgroup2"),
        (0x7363_6673, "securityfs"),
        (0xcafe_4a11, "bpf"),
        (0x6165_676c, "pstore"),
        (0x6265_6570, "configfs"),
        (0xde5e_81e4, "efivarfs"),
    ];
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` a writable statfs the call fills.
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    let kind = (st.f_type as u64) & 0xffff_ffff;
    PSEUDO.iter().find(|(m, _)| *m == kind).map(|(_, n)| *n)
}

#[cfg(not(target_os = "linux"))]
fn pseudo_filesystem(_dir: &Path) -> Option<&'static str> {
    None
}

/// What a non-regular, non-directory entry is, for messages.
fn special_kind(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    let _ = t;
    "a special file"
}

/// A path under a library's root as diagnostics name files (relative to the config's directory).
fn shown(lib: &Library, path: &Path) -> String {
    match path.strip_prefix(&lib.root) {
        Ok(rel) => lib.display_name(&crate::walk::rel_string(rel)),
        Err(_) => path.display().to_string(),
    }
}
