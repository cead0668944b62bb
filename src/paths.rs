//! paths: where askzico may write, decided in one place. A name a user gives (an environment, a
//! deploy target, a library id, a domain) becomes part of a path only through `component`; the
//! output directory is checked against the sources (`out_dir_problem`, for `[corpus] out` and
//! `--out` alike) and claimed with a marker file before the first write (`claim`); an output
//! flag (`inspect --html`, `export --dest`, `eval --write-baseline`, `init`) is checked by
//! `guard_output` before anything is written. `artifacts::store::out_path` is the last check on
//! every path written under `out/`. The rules `config` needs too (`identity::component`,
//! `config::out_dir_problem`, `fsio::resolve`, `artifacts::marker`) live below both and are
//! re-exported here, so nothing `config` depends on depends on `paths`.

use std::io::Read;
use std::path::{Path, PathBuf};

pub(crate) use crate::artifacts::marker::{MARKER, MARKER_TEXT, is_marked};
use crate::config::Config;
use crate::diag::Problem;
pub(crate) use crate::fsio::resolve;
pub(crate) use crate::identity::{NameError, component};
pub(crate) use crate::inspect::html::GENERATOR as HTML_GENERATOR;

/// `component` as a clap value parser (`--env`, `--target`): a bad name is a usage error.
pub(crate) fn name_arg(s: &str) -> Result<String, NameError> {
    component(s).map(str::to_string)
}

/// The top-level names askzico writes under `out/` (besides manifests and dot files).
pub(crate) const LAYOUT: [&str; 6] = [
    "chunks", "lookup", "lexical", "vectors", "versions", "cache",
];

/// Whether `dir` is an output directory an earlier askzico (before the marker) built: it holds
/// an askzico manifest or askzico's compile cache.
fn earlier_output(dir: &Path) -> bool {
    let manifest = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("manifest.")
                && name.ends_with(".json")
                && e.file_type().is_ok_and(|t| t.is_file())
                && starts_with_manifest(&e.path())
        });
    manifest || std::fs::symlink_metadata(dir.join("cache/compiled")).is_ok_and(|m| m.is_dir())
}

/// Whether a file begins as askzico writes a manifest (its first key).
fn starts_with_manifest(path: &Path) -> bool {
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(256).read_to_end(&mut head))
        .is_ok()
        && String::from_utf8_lossy(&head).contains("\"askzico_manifest\"")
}

/// Makes `out` askzico's output directory before a command writes there: a missing directory
/// is made, an empty one or one an earlier askzico built gets the marker, one with the marker is
/// taken as it is. Anything else is refused, nothing written: a file, a directory holding files
/// askzico did not write (sources, a project, a home directory), and a directory whose own
/// folders (`chunks`, `cache`, …) are symbolic links.
pub(crate) fn claim(out: &Path) -> Result<(), Problem> {
    let claim = Claim {
        out,
        shown: out.display().to_string(),
    };
    let shown = &claim.shown;
    match std::fs::metadata(out) {
        Ok(m) if !m.is_dir() => {
            return Err(claim.refuse(
                format!("the output directory `{shown}` is a file, not a directory"),
                "the output directory holds askzico's build: move the file away, or name another directory with `out` in corpus.toml or --out",
            ));
        }
        Ok(_) => {
            let marked = is_marked(out);
            if !marked {
                claim.unmarked_is_askzicos()?;
            }
            claim.folders_are_real()?;
            if marked {
                return Ok(());
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => claim.make()?,
        Err(e) => {
            return Err(claim.refuse(
                format!("cannot read the output directory `{shown}`: {e}"),
                "check its permissions, or name another directory with `out` in corpus.toml or --out",
            ));
        }
    }
    claim.mark()
}

/// An output directory being claimed, and how messages name it.
struct Claim<'a> {
    out: &'a Path,
    shown: String,
}

impl Claim<'_> {
    /// The refusal of this output directory.
    fn refuse(&self, msg: String, help: &str) -> Problem {
        Problem::error("out-dir", msg)
            .in_file(self.shown.clone())
            .help(help.to_string())
    }

    /// A directory without the marker is askzico's to mark when it is empty (but for the lock)
    /// or an earlier askzico built it, and no other file sits where the marker goes.
    fn unmarked_is_askzicos(&self) -> Result<(), Problem> {
        let (out, shown) = (self.out, &self.shown);
        let marker = out.join(MARKER);
        if std::fs::symlink_metadata(&marker).is_ok() {
            return Err(self.refuse(
                format!("{} is not askzico's marker file", marker.display()),
                "askzico marks its output directory with this file; it holds something else here: pick another directory with `out` in corpus.toml or --out",
            ));
        }
        let empty = std::fs::read_dir(out)
            .map(|mut d| d.all(|e| e.is_ok_and(|e| e.file_name() == ".askzico.lock")))
            .unwrap_or(false);
        if !empty && !earlier_output(out) {
            return Err(self.refuse(
                format!(
                    "`{shown}` holds files askzico did not write (it has no `{MARKER}` marker), so askzico will not build into it"
                ),
                "askzico builds into a new or empty directory, or one it built before: name another directory with `out` in corpus.toml or --out",
            ));
        }
        Ok(())
    }

    /// Askzico's own folders (`chunks`, `cache`, …) are real directories where they exist.
    fn folders_are_real(&self) -> Result<(), Problem> {
        for name in LAYOUT {
            let p = self.out.join(name);
            if std::fs::symlink_metadata(&p).is_ok_and(|m| !m.is_dir()) {
                return Err(self.refuse(
                    format!(
                        "{} is not a directory (a symbolic link or a file): askzico writes only into real directories under its output directory",
                        p.display()
                    ),
                    "remove it (askzico makes the directory), or point --out at the real output directory",
                ));
            }
        }
        Ok(())
    }

    /// A missing output directory made.
    fn make(&self) -> Result<(), Problem> {
        std::fs::create_dir_all(self.out).map_err(|e| {
            self.refuse(
                format!("cannot make the output directory `{}`: {e}", self.shown),
                "check that its parent exists and is writable, or name another directory with `out` in corpus.toml or --out",
            )
        })
    }

    /// The marker written.
    fn mark(&self) -> Result<(), Problem> {
        let marker = self.out.join(MARKER);
        crate::artifacts::store::write_atomic(&marker, MARKER_TEXT.as_bytes()).map_err(|e| {
            self.refuse(
                format!("cannot write {}: {e}", marker.display()),
                "check that the output directory is writable and the disk has space",
            )
        })
    }
}

/// What an output flag writes, so that a file already there can be told to be askzico's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// `inspect --html`
    HtmlReport,
    /// `eval --write-baseline`
    Baseline,
    /// `export --format vectorize` (one NDJSON file per library)
    ExportVectors,
    /// `export --format kv` (JSON arrays for `wrangler kv bulk put`)
    ExportKv,
    /// `init`: a new project's files (never replaced)
    Init,
}

impl Output {
    fn flag(self) -> &'static str {
        match self {
            Output::HtmlReport => "--html",
            Output::Baseline => "--write-baseline",
            Output::ExportVectors | Output::ExportKv => "--dest",
            Output::Init => "init",
        }
    }

    fn what(self) -> &'static str {
        match self {
            Output::HtmlReport => "an HTML report of `askzico inspect`",
            Output::Baseline => "a baseline of `askzico eval`",
            Output::ExportVectors => "a Vectorize file of `askzico export`",
            Output::ExportKv => "a KV file of `askzico export`",
            Output::Init => "a file of `askzico init`",
        }
    }
}

/// Whether the regular file at `path` is one askzico made for `kind` (an empty file holds
/// nothing to lose). Reads at most what recognizing it needs.
fn made_for(path: &Path, kind: Output) -> bool {
    let head = |n: u64| {
        let mut b = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(n).read_to_end(&mut b))
            .map(|_| b)
            .unwrap_or_default()
    };
    if std::fs::metadata(path).is_ok_and(|m| m.len() == 0) {
        return true;
    }
    match kind {
        Output::HtmlReport => String::from_utf8_lossy(&head(4096)).contains(HTML_GENERATOR),
        Output::Baseline => std::fs::File::open(path).is_ok_and(|f| {
            serde_json::from_reader::<_, crate::eval::Report>(std::io::BufReader::new(
                f.take(256 << 20),
            ))
            .is_ok()
        }),
        Output::ExportVectors => {
            let h = head(1 << 20);
            let line = h.split(|b| *b == b'\n').next().unwrap_or_default();
            serde_json::from_slice::<serde_json::Value>(line).is_ok_and(|v| {
                v.get("id").is_some() && v.get("values").is_some() && v.get("metadata").is_some()
            })
        }
        Output::ExportKv => {
            let h = head(16);
            h.starts_with(b"[{\"key\":") || h == b"[]"
        }
        Output::Init => false,
    }
}

/// Whether askzico may write `path` for an output flag: never a source (anything under a library
/// root), never the config, never askzico's own files and places in an output directory (the
/// config's, `out`, or any directory holding the marker); a file already there only when
/// askzico made it for the same flag, and never through a symbolic link. Checked before
/// anything is written; the refusal names the path and what to do.
pub(crate) fn guard_output(
    path: &Path,
    kind: Output,
    cfg: Option<&Config>,
    out: Option<&Path>,
) -> Result<(), Problem> {
    let g = OutputGuard::new(path, kind);
    g.refuse_non_file()?;
    let resolved = resolve(path);
    if let Some(cfg) = cfg {
        g.refuse_config_and_sources(&resolved, cfg)?;
    }
    g.refuse_askzico_files(&resolved, out)?;
    g.refuse_foreign_file()
}

/// The path `guard_output` checks and how its refusals name it.
struct OutputGuard<'a> {
    path: &'a Path,
    kind: Output,
    shown: String,
    /// What the messages call the path: the flag's value, or the file a `--dest` export writes.
    subject: String,
    /// The help of a refusal whose fix is another place.
    elsewhere: String,
}

impl<'a> OutputGuard<'a> {
    fn new(path: &'a Path, kind: Output) -> Self {
        let shown = path.display().to_string();
        let flag = kind.flag();
        let (subject, elsewhere) = match kind {
            Output::ExportVectors | Output::ExportKv => (
                format!("the export file {shown}"),
                "pass --dest a directory outside the sources and askzico's own files".to_string(),
            ),
            _ => (
                format!("{flag} {shown}"),
                format!("pass {flag} a new file outside the sources and askzico's own files"),
            ),
        };
        OutputGuard {
            path,
            kind,
            shown,
            subject,
            elsewhere,
        }
    }

    fn refuse(&self, msg: String, help: String) -> Result<(), Problem> {
        Err(Problem::error("output-path", msg)
            .in_file(self.shown.clone())
            .help(help))
    }

    /// A symbolic link, a directory or anything else that is not a regular file.
    fn refuse_non_file(&self) -> Result<(), Problem> {
        let subject = &self.subject;
        match std::fs::symlink_metadata(self.path) {
            Ok(m) if m.file_type().is_symlink() => self.refuse(
                format!("{subject} is a symbolic link: askzico does not write through links"),
                "pass the real path, or a new file".to_string(),
            ),
            Ok(m) if m.is_dir() => self.refuse(
                format!("{subject} is a directory"),
                "pass a file path".to_string(),
            ),
            Ok(m) if !m.is_file() => self.refuse(
                format!("{subject} is not a regular file"),
                self.elsewhere.clone(),
            ),
            _ => Ok(()),
        }
    }

    /// The config file itself, or anything under a library root.
    fn refuse_config_and_sources(&self, resolved: &Path, cfg: &Config) -> Result<(), Problem> {
        let subject = &self.subject;
        if cfg.path.canonicalize().is_ok_and(|c| c == resolved) {
            return self.refuse(
                format!("{subject} is the config file"),
                self.elsewhere.clone(),
            );
        }
        for lib in &cfg.libraries {
            if lib
                .root
                .canonicalize()
                .is_ok_and(|r| resolved.starts_with(r))
            {
                return self.refuse(
                    format!(
                        "{subject} is inside the sources (the root `{}` of library `{}`): askzico never writes there",
                        lib.root_display, lib.id
                    ),
                    self.elsewhere.clone(),
                );
            }
        }
        Ok(())
    }

    /// Under an output directory: only a name of its own, never askzico's files or folders.
    fn refuse_askzico_files(&self, resolved: &Path, out: Option<&Path>) -> Result<(), Problem> {
        let mut outs: Vec<PathBuf> = out.map(resolve).into_iter().collect();
        outs.extend(
            resolved
                .ancestors()
                .skip(1)
                .filter(|a| is_marked(a))
                .map(Path::to_path_buf),
        );
        for o in &outs {
            let Ok(rel) = resolved.strip_prefix(o) else {
                continue;
            };
            let first = rel
                .components()
                .next()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .unwrap_or_default();
            let manifest = first.starts_with("manifest.") && first.ends_with(".json");
            if manifest || first.starts_with('.') || LAYOUT.contains(&first.as_str()) {
                return self.refuse(
                    format!(
                        "{} is one of askzico's own files or folders in the output directory {}",
                        self.subject,
                        o.display()
                    ),
                    "pass another path (a name of its own in the output directory is fine)"
                        .to_string(),
                );
            }
        }
        Ok(())
    }

    /// A file already there that askzico did not make for the same flag.
    fn refuse_foreign_file(&self) -> Result<(), Problem> {
        if std::fs::symlink_metadata(self.path).is_ok() && !made_for(self.path, self.kind) {
            return self.refuse(
                format!(
                    "{} already exists and is not {}: it is left as it is",
                    self.subject,
                    self.kind.what()
                ),
                "pass a new file name, or move the existing file away first".to_string(),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::NAME_RULE;

    #[test]
    fn names_become_one_safe_component_or_are_refused() {
        for good in [
            "prod",
            "staging-2",
            "ar_eg",
            "v1.2",
            "A",
            "9",
            "_x",
            "console",
            "com10",
            &"x".repeat(64),
        ] {
            assert_eq!(component(good), Ok(good), "{good}");
        }
        for (bad, why) in [
            ("", "is empty"),
            (".", "names a directory"),
            ("..", "names a directory"),
            ("../x", "holds `/`"),
            ("a/b", "holds `/`"),
            ("a\\b", "holds `\\`"),
            ("a\0b", "control character U+0000"),
            ("a\nb", "control character U+000A"),
            ("a\u{7f}", "control character U+007F"),
            ("a b", "holds a space"),
            ("إنتاج", "holds `إ`"),
            ("café", "holds `é`"),
            (".hidden", "starts with `.`"),
            ("-rf", "starts with `-`"),
            ("x.", "ends with `.`"),
            ("nul", "Windows reserves"),
            ("CON", "Windows reserves"),
            ("com1.json", "Windows reserves"),
            ("a:b", "holds `:`"),
            ("a*b", "holds `*`"),
        ] {
            let e = component(bad).expect_err(bad).to_string();
            assert!(e.contains(why), "{bad:?}: {e}");
            assert!(e.contains(NAME_RULE), "{bad:?}: {e}");
        }
        let long = "x".repeat(65);
        assert!(
            component(&long)
                .unwrap_err()
                .to_string()
                .contains("65 bytes")
        );
    }

    #[test]
    fn resolve_applies_links_and_dots_of_paths_not_made_yet() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("real/src")).unwrap();
        std::os::unix::fs::symlink(base.join("real"), base.join("link")).unwrap();
        assert_eq!(resolve(&base.join("link/src")), base.join("real/src"));
        assert_eq!(
            resolve(&base.join("link/new/../src")),
            base.join("real/src")
        );
        assert_eq!(resolve(&base.join("link/./a/b")), base.join("real/a/b"));
        assert_eq!(resolve(&base.join("link/..")), base);
    }

    #[test]
    fn a_directory_is_claimed_only_when_new_empty_marked_or_built_before() {
        let t = tempfile::tempdir().unwrap();
        let new = t.path().join("new/out");
        claim(&new).unwrap();
        assert!(is_marked(&new));
        claim(&new).unwrap();
        let empty = t.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        claim(&empty).unwrap();
        assert!(is_marked(&empty));
        // Built by an earlier askzico: a manifest, no marker.
        let earlier = t.path().join("earlier");
        std::fs::create_dir(&earlier).unwrap();
        std::fs::write(
            earlier.join("manifest.json"),
            "{\n  \"askzico_manifest\": 1,\n  \"corpus\": \"x\"\n}\n",
        )
        .unwrap();
        claim(&earlier).unwrap();
        assert!(is_marked(&earlier));
        // Someone else's directory: refused, nothing written.
        let foreign = t.path().join("foreign");
        std::fs::create_dir(&foreign).unwrap();
        std::fs::write(foreign.join("manifest.json"), "{\"name\": \"app\"}").unwrap();
        let e = claim(&foreign).unwrap_err();
        assert!(
            e.message.contains("holds files askzico did not write"),
            "{}",
            e.message
        );
        assert_eq!(std::fs::read_dir(&foreign).unwrap().count(), 1);
        // A file.
        let file = t.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let e = claim(&file).unwrap_err();
        assert!(e.message.contains("is a file"), "{}", e.message);
        // A marker with other content.
        let fake = t.path().join("fake");
        std::fs::create_dir(&fake).unwrap();
        std::fs::write(fake.join(MARKER), "mine").unwrap();
        assert!(claim(&fake).is_err());
        assert_eq!(std::fs::read(fake.join(MARKER)).unwrap(), b"mine");
        // One of askzico's folders a link.
        std::os::unix::fs::symlink(&foreign, new.join("chunks")).unwrap();
        let e = claim(&new).unwrap_err();
        assert!(
            e.message.contains("chunks is not a directory"),
            "{}",
            e.message
        );
    }
}
