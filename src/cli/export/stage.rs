//! The export's own folder: the listing of what an export wrote there (`LISTING`), the claim
//! of a `--dest` (a new or empty folder, or an earlier export's), and the staging beside it that
//! is swapped in whole, so a failed export changes nothing.

use std::path::Path;

use super::{ExportFormat, write_atomic};
use crate::diag::Problem;

/// The listing an export leaves in its `--dest` folder: the files it wrote there, per format,
/// and the version each came from. A folder is an export's only when it holds the listing and
/// nothing the listing does not name; an export replaces such a folder whole.
const LISTING: &str = ".askzico-export.json";

/// The listing's format number.
const LISTING_FORMAT: u32 = 1;

#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Listing {
    askzico_export: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kv: Option<Part>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    vectorize: Option<Part>,
}

/// The files of one format's export and the version they hold.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Part {
    corpus_version: String,
    files: Vec<String>,
}

impl Listing {
    fn part(&self, format: ExportFormat) -> Option<&Part> {
        match format {
            ExportFormat::Kv => self.kv.as_ref(),
            ExportFormat::Vectorize => self.vectorize.as_ref(),
        }
    }

    fn part_mut(&mut self, format: ExportFormat) -> &mut Option<Part> {
        match format {
            ExportFormat::Kv => &mut self.kv,
            ExportFormat::Vectorize => &mut self.vectorize,
        }
    }

    /// Whether `name` is a file this listing names (of either format).
    fn names(&self, name: &str) -> bool {
        [&self.kv, &self.vectorize]
            .into_iter()
            .flatten()
            .any(|p| p.files.iter().any(|f| f == name))
    }
}

fn format_name(format: ExportFormat) -> &'static str {
    match format {
        ExportFormat::Kv => "kv",
        ExportFormat::Vectorize => "vectorize",
    }
}

/// `--dest` as the export will replace it, and the listing of the export it holds: a new
/// folder (none), an empty one (none), or one an earlier export made and nothing else wrote
/// in. Anything else is refused, naming the first file that is not an export's: an export
/// never overwrites or removes a file askzico did not write. A `--dest` that is a link is
/// followed once, to the folder it names.
pub(super) fn claim_dest(dest: &Path) -> Result<(std::path::PathBuf, Option<Listing>), Problem> {
    let shown = dest.display().to_string();
    let refuse = |msg: String, help: String| {
        Problem::error("output-path", msg)
            .in_file(shown.clone())
            .help(help)
    };
    let meta = match std::fs::symlink_metadata(dest) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((dest.to_path_buf(), None));
        }
        Err(e) => {
            return Err(refuse(
                format!("cannot read --dest {shown}: {e}"),
                "check its permissions, or pass --dest a new folder".into(),
            ));
        }
        Ok(m) => m,
    };
    // A link, or a name without a last component (`.`), is taken as the folder it names.
    let real = if meta.file_type().is_symlink() || dest.file_name().is_none() {
        std::fs::canonicalize(dest).map_err(|e| {
            refuse(
                format!("--dest {shown} is a link that leads nowhere: {e}"),
                "pass --dest a folder (a new one is made)".into(),
            )
        })?
    } else {
        dest.to_path_buf()
    };
    if !std::fs::metadata(&real).is_ok_and(|m| m.is_dir()) {
        return Err(refuse(
            format!("--dest {shown} is a file, not a directory"),
            "pass --dest a directory (a new one is made)".into(),
        ));
    }
    let listing_path = real.join(LISTING);
    let listing = match std::fs::symlink_metadata(&listing_path) {
        Err(_) => None,
        Ok(m) if !m.is_file() => {
            return Err(refuse(
                format!(
                    "{} is not a file askzico wrote: an export lists its files there",
                    listing_path.display()
                ),
                "pass --dest a new or empty folder".into(),
            ));
        }
        Ok(_) => Some(read_listing(&listing_path).map_err(|e| {
            refuse(
                format!(
                    "{} is not the listing of an askzico export: {e}",
                    listing_path.display()
                ),
                "pass --dest a new or empty folder, or move the folder's files away".into(),
            )
        })?),
    };
    let ours = |name: &str| name == LISTING || listing.as_ref().is_some_and(|l| l.names(name));
    let foreign = crate::artifacts::marker::first_foreign_entry(&real, ours).map_err(|e| {
        refuse(
            format!("cannot list --dest {shown}: {e}"),
            "check its permissions, or pass --dest a new folder".into(),
        )
    })?;
    if let Some(f) = foreign {
        return Err(Problem::error(
            "output-path",
            format!(
                "--dest {shown} holds {}, which no askzico export wrote: an export replaces its folder whole, so it writes only into a new or empty folder or one an earlier export made",
                f.display()
            ),
        )
        .in_file(f.display().to_string())
        .help("pass --dest a new or empty folder, or move that file away first"));
    }
    // A listed name that is now a link or a folder is not the file the export wrote.
    for name in listing
        .iter()
        .flat_map(|l| [&l.kv, &l.vectorize])
        .flatten()
        .flat_map(|p| &p.files)
    {
        let path = real.join(name);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
            return Err(Problem::error(
                "output-path",
                format!(
                    "{} is not the file an earlier export wrote (a link or a folder stands there)",
                    path.display()
                ),
            )
            .in_file(path.display().to_string())
            .help("pass --dest a new or empty folder, or move that entry away first"));
        }
    }
    Ok((real, listing))
}

/// The listing at `path`, read within bounds; an unknown format is refused.
pub(super) fn read_listing(path: &Path) -> Result<Listing, String> {
    let bytes =
        crate::fsio::read_capped(path, crate::fsio::cap::MANIFEST).map_err(|e| e.to_string())?;
    let l: Listing = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
    if l.askzico_export != LISTING_FORMAT {
        return Err(format!("unknown format {}", l.askzico_export));
    }
    let names = [&l.kv, &l.vectorize]
        .into_iter()
        .flatten()
        .flat_map(|p| &p.files);
    if let Some(bad) = names.into_iter().find(|n| {
        n.contains('/')
            || !crate::artifacts::store::is_safe_artifact_path(n)
            || n.as_str() == LISTING
    }) {
        return Err(format!("it names {bad:?}, which is not a file name"));
    }
    Ok(l)
}

/// Runs `write` into a new folder beside `dest`, adds the other format's files of the earlier
/// export and the listing, then puts that folder in `dest`'s place whole: until then `dest` is
/// as it was, and a failed export removes only its own folder. Returns the names written.
pub(super) fn staged_export(
    dest: &Path,
    earlier: Option<&Listing>,
    format: ExportFormat,
    version: &str,
    write: impl FnOnce(&Path) -> Result<Vec<String>, Problem>,
) -> Result<Vec<String>, Problem> {
    let stage = stage_dir(dest)?;
    let result = (|| {
        let names = write(&stage)?;
        let mut listing = earlier.cloned().unwrap_or_default();
        listing.askzico_export = LISTING_FORMAT;
        let other = match format {
            ExportFormat::Kv => ExportFormat::Vectorize,
            ExportFormat::Vectorize => ExportFormat::Kv,
        };
        for name in listing
            .part(other)
            .map(|p| p.files.clone())
            .unwrap_or_default()
        {
            keep_file(&dest.join(&name), &stage.join(&name))?;
        }
        *listing.part_mut(format) = Some(Part {
            corpus_version: version.to_string(),
            files: names.clone(),
        });
        let bytes = serde_json::to_vec_pretty(&listing).expect("listing serializes");
        let path = stage.join(LISTING);
        write_atomic(&path, &bytes).map_err(|e| {
            Problem::error("write", format!("cannot write {}: {e}", path.display()))
                .help("check that the folder beside --dest is writable and the disk has space")
        })?;
        swap_in(&stage, dest, earlier)?;
        Ok(names)
    })();
    if result.is_err() {
        // Only this export's own folder: the files it wrote and links to the earlier ones.
        let _ = std::fs::remove_dir_all(&stage);
    }
    result
}

/// A new, empty folder beside `dest` for an export to be written in.
fn stage_dir(dest: &Path) -> Result<std::path::PathBuf, Problem> {
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "export".into());
    let fail = |e: std::io::Error| {
        Problem::error(
            "write",
            format!("cannot make a folder beside --dest {}: {e}", dest.display()),
        )
        .in_file(parent.display().to_string())
        .help("an export is written beside --dest first and then put in its place: check that the folder holding --dest is writable")
    };
    std::fs::create_dir_all(parent).map_err(fail)?;
    for i in 0.. {
        let stage = parent.join(format!(".{name}.askzico-export-{}-{i}", std::process::id()));
        match std::fs::create_dir(&stage) {
            Ok(()) => return Ok(stage),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(fail(e)),
        }
    }
    unreachable!("some name is free")
}

/// A file of the earlier export kept in the new one (the other format's): linked, or copied
/// where links cannot be made.
fn keep_file(from: &Path, to: &Path) -> Result<(), Problem> {
    if std::fs::symlink_metadata(from).is_err() {
        return Ok(());
    }
    std::fs::hard_link(from, to)
        .or_else(|_| std::fs::copy(from, to).map(|_| ()))
        .map_err(|e| {
            Problem::error(
                "write",
                format!(
                    "cannot keep the earlier export file {}: {e}",
                    from.display()
                ),
            )
            .in_file(from.display().to_string())
        })
}

/// Puts the finished `stage` in `dest`'s place: a rename when `dest` is new or empty, else an
/// exchange of the two folders (one step on Linux; elsewhere two renames, undone on failure).
/// The earlier export, now in `stage`, is then removed, file by listed file.
fn swap_in(stage: &Path, dest: &Path, earlier: Option<&Listing>) -> Result<(), Problem> {
    let fail = |e: std::io::Error| {
        Problem::error(
            "write",
            format!(
                "cannot put the export in place of --dest {}: {e}",
                dest.display()
            ),
        )
        .in_file(dest.display().to_string())
        .help("--dest is as it was; check that it and the folder holding it are writable")
    };
    // A rename replaces a missing or empty folder, and fails on any other.
    if std::fs::rename(stage, dest).is_ok() {
        return Ok(());
    }
    exchange(stage, dest).map_err(fail)?;
    // `stage` holds the earlier export now: only what its listing names goes.
    let listing = earlier.cloned().unwrap_or_default();
    if let Ok(entries) = std::fs::read_dir(stage) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name == LISTING || listing.names(&name) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    if std::fs::remove_dir(stage).is_err() {
        eprintln!(
            "left {}: it holds the earlier export's folder and a file no export wrote",
            stage.display()
        );
    }
    Ok(())
}

/// Exchanges two folders: at once on Linux (`RENAME_EXCHANGE`), else or where the filesystem
/// cannot, with two renames that are undone when the second fails.
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let ca = std::ffi::CString::new(a.as_os_str().as_bytes())?;
        let cb = std::ffi::CString::new(b.as_os_str().as_bytes())?;
        // SAFETY: both are NUL-terminated paths that outlive the call.
        let rc = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                ca.as_ptr(),
                libc::AT_FDCWD,
                cb.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if !matches!(
            e.raw_os_error(),
            Some(libc::EINVAL | libc::ENOSYS | libc::ENOTSUP)
        ) {
            return Err(e);
        }
    }
    let mut aside = a.as_os_str().to_owned();
    aside.push(".earlier");
    let aside = std::path::PathBuf::from(aside);
    std::fs::rename(b, &aside)?;
    if let Err(e) = std::fs::rename(a, b) {
        let _ = std::fs::rename(&aside, b);
        return Err(e);
    }
    std::fs::rename(&aside, a)
}

/// Says what the export replaced in `dest`: the earlier export of the same format and its
/// version, and each of its files this export does not have.
pub(super) fn say_replaced(
    dest: &Path,
    earlier: Option<&Listing>,
    format: ExportFormat,
    names: &[String],
) {
    let Some(part) = earlier.and_then(|l| l.part(format)) else {
        return;
    };
    eprintln!(
        "replaced the earlier {} export of version {} in {} ({})",
        format_name(format),
        crate::term::line(&part.corpus_version),
        dest.display(),
        crate::term::count(part.files.len(), "file", "files")
    );
    for f in part.files.iter().filter(|f| !names.contains(f)) {
        eprintln!(
            "removed {}: an earlier export's file this build does not have",
            crate::term::line(&dest.join(f).display().to_string())
        );
    }
}
