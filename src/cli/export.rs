//! `askzico export`: the exact upload files of the current manifest — Vectorize NDJSON
//! (`wrangler vectorize upsert`) or the `wrangler kv bulk put` JSON array of the deploy's KV
//! layout (`deploy::keys`): `<prefix><version>/manifest` and `…/tables`, then the
//! content-addressed `<prefix>t/<h>`, `r/<h>` and `l/<h>`; with `--since <manifest>`, only what
//! that older version lacks. The records come from `deploy::upload`, as the deploy's do.
//! `--dest` is the export's own folder (a listing of what it wrote, and nothing else); an
//! export is written beside it and swapped in whole, so a failed one changes nothing.

use std::path::Path;

use serde_json::{Value, json};

use super::{BuildLocation, EXIT_ERRORS, EXIT_OK, EXIT_USAGE, report};
use crate::artifacts::Kind;
use crate::artifacts::manifest::Manifest;
use crate::artifacts::store::write_atomic;
use crate::deploy::upload;
use crate::diag::{Problem, Problems};

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ExportFormat {
    Vectorize,
    Kv,
}

/// Vectorize limits (reference/cloudflare.md).
const MAX_VECTOR_ID: usize = 64;
const MAX_METADATA_BYTES: usize = 10 * 1024;
/// Workers KV limits.
const MAX_KEY_BYTES: usize = 512;
const MAX_VALUE_BYTES: usize = 25 * 1024 * 1024;
/// Pairs per bulk file (the KV bulk API takes at most 10,000 a request).
const KV_PAIRS_PER_FILE: usize = 10_000;
/// Bytes per bulk file: the KV bulk API takes at most 100 MB a request.
const KV_BYTES_PER_FILE: usize = 100_000_000;

pub fn run(
    at: &BuildLocation,
    format: ExportFormat,
    dest: &Path,
    prefix: &str,
    since: Option<&Path>,
) -> i32 {
    if since.is_some() && matches!(format, ExportFormat::Vectorize) {
        let p = Problem::error("usage", "--since applies to `--format kv` only").help(
            "a Vectorize upsert replaces vectors by ID: export every vector, or pass --format kv",
        );
        report(&Problems(vec![p]), false);
        return EXIT_USAGE;
    }
    // A `--since` that is not a manifest askzico wrote is a wrong argument: refused before
    // anything else is read or written, and before any file it names is opened.
    let older = match since.map(older_manifest).transpose() {
        Ok(m) => m,
        Err(p) => {
            report(&Problems(vec![p]), false);
            return EXIT_USAGE;
        }
    };
    let Some(out) = super::verify::out_dir(at, false) else {
        return EXIT_USAGE;
    };
    let manifest = match super::verify::verified_manifest(&out, at.env.as_deref(), false, "export")
    {
        Ok(m) => m,
        Err(code) => return code,
    };
    if matches!(format, ExportFormat::Vectorize) && manifest.libraries.iter().all(|l| l.chunks == 0)
    {
        let p = Problem::error(
            "empty-build",
            format!(
                "the build in {} has no chunks: there are no vectors to export",
                out.display()
            ),
        )
        .help("add sources the build indexes and run `askzico build` again, then export");
        report(&Problems(vec![p]), false);
        return EXIT_ERRORS;
    }
    if let (Some(older), Some(path)) = (&older, since)
        && let Err(p) = older_artifacts_verify(&out, older, path)
    {
        report(&Problems(vec![p]), false);
        return EXIT_USAGE;
    }
    let claimed = guard_dest(at, format, dest, &out, &manifest).and_then(|()| {
        let (real, earlier) = claim_dest(dest)?;
        if real != dest {
            guard_dest(at, format, &real, &out, &manifest)?;
        }
        Ok((real, earlier))
    });
    let (dest, earlier) = match claimed {
        Ok(c) => c,
        Err(p) => {
            report(&Problems(vec![p]), false);
            return EXIT_USAGE;
        }
    };
    let version = manifest.corpus_version.clone();
    match staged_export(
        &dest,
        earlier.as_ref(),
        format,
        &version,
        |stage| match format {
            ExportFormat::Vectorize => vectorize(&out, &manifest, stage, prefix),
            ExportFormat::Kv => kv(&out, &manifest, stage, prefix, older.as_ref()),
        },
    ) {
        Ok(names) => {
            say_replaced(&dest, earlier.as_ref(), format, &names);
            for name in names {
                println!("{}", dest.join(name).display());
            }
            EXIT_OK
        }
        Err(p) => {
            report(&Problems(vec![p]), false);
            EXIT_ERRORS
        }
    }
}

/// The listing an export leaves in its `--dest` folder: the files it wrote there, per format,
/// and the version each came from. A folder is an export's only when it holds the listing and
/// nothing the listing does not name; an export replaces such a folder whole.
pub const LISTING: &str = ".askzico-export.json";

/// The listing's format number.
const LISTING_FORMAT: u32 = 1;

#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Listing {
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
fn claim_dest(dest: &Path) -> Result<(std::path::PathBuf, Option<Listing>), Problem> {
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
fn read_listing(path: &Path) -> Result<Listing, String> {
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
fn staged_export(
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
fn say_replaced(dest: &Path, earlier: Option<&Listing>, format: ExportFormat, names: &[String]) {
    let Some(part) = earlier.and_then(|l| l.part(format)) else {
        return;
    };
    eprintln!(
        "replaced the earlier {} export of version {} in {} ({} files)",
        format_name(format),
        crate::term::line(&part.corpus_version),
        dest.display(),
        part.files.len()
    );
    for f in part.files.iter().filter(|f| !names.contains(f)) {
        eprintln!(
            "removed {}: an earlier export's file this build does not have",
            crate::term::line(&dest.join(f).display().to_string())
        );
    }
}

/// Checks `--dest` before anything is written: every file the export writes there one askzico
/// may write (`paths::guard_output`: never in the sources, never the config or one of
/// askzico's own files, never over a file an export did not make).
fn guard_dest(
    at: &BuildLocation,
    format: ExportFormat,
    dest: &Path,
    out: &Path,
    m: &Manifest,
) -> Result<(), Problem> {
    let cfg = at.config().ok();
    let (kind, names) = match format {
        ExportFormat::Kv => (crate::paths::Output::ExportKv, vec!["kv.json".to_string()]),
        ExportFormat::Vectorize => {
            let mut names = Vec::new();
            for a in m.artifacts_of(Kind::Vectors) {
                let lib = a.library.as_deref().unwrap_or("all");
                let lib = crate::paths::component(lib).map_err(|e| {
                    Problem::error(
                        "bad-manifest",
                        format!("the manifest names the library {e}"),
                    )
                    .help("rebuild with `askzico build`; never edit manifests by hand")
                })?;
                names.push(format!("vectors.{lib}.ndjson"));
            }
            (crate::paths::Output::ExportVectors, names)
        }
    };
    for name in names {
        crate::paths::guard_output(&dest.join(name), kind, cfg.as_ref(), Some(out))?;
    }
    Ok(())
}

/// Writes one export file into the new folder `stage`; returns its name.
fn write(stage: &Path, name: &str, bytes: &[u8]) -> Result<String, Problem> {
    if name.contains('/') || !crate::artifacts::store::is_safe_artifact_path(name) {
        return Err(Problem::error(
            "output-path",
            format!("refusing to write the export file {name:?}: not a single file name"),
        ));
    }
    let path = stage.join(name);
    write_atomic(&path, bytes).map_err(|e| {
        Problem::error("write", format!("cannot write {}: {e}", path.display()))
            .in_file(path.display().to_string())
            .help("--dest is as it was; check the disk's space and export again")
    })?;
    Ok(name.to_string())
}

fn limit(what: String) -> Problem {
    Problem::error("limit", what).help(
        "this build cannot be uploaded as is; shorten the offending IDs or fields and rebuild",
    )
}

/// Vectors per NDJSON file: Cloudflare's advice for `wrangler vectorize` files, and the most one
/// upsert request takes (reference/cloudflare.md), so each file is one request.
const VECTORS_PER_FILE: usize = 5_000;
/// Bytes per NDJSON file: under the 100 MB of one upload request, with room for its framing.
const BYTES_PER_FILE: usize = 95 * 1_000_000;

/// One NDJSON file per library (`vectors.<library>.ndjson`), every vector shard of the library
/// in it; a library over one file's limits is split into `vectors.<library>.<n>.ndjson`.
fn vectorize(out: &Path, m: &Manifest, dest: &Path, prefix: &str) -> Result<Vec<String>, Problem> {
    let records = upload::kv_version(out, m, prefix)?.records;
    // Each library's lines from all its shards, libraries in manifest order.
    let mut by_library: Vec<(String, Vec<Value>)> = Vec::new();
    for (library, lines) in upload::vector_lines(out, m, &records)? {
        let name = library.unwrap_or_else(|| "all".to_string());
        match by_library.iter_mut().find(|(l, _)| *l == name) {
            Some((_, all)) => all.extend(lines),
            None => by_library.push((name, lines)),
        }
    }
    let mut files = Vec::new();
    for (library, lines) in by_library {
        for line in &lines {
            let id = line["id"].as_str().unwrap_or("");
            if id.len() > MAX_VECTOR_ID {
                return Err(limit(format!(
                    "vector ID {id} is over {MAX_VECTOR_ID} bytes"
                )));
            }
            let meta_len = serde_json::to_vec(&line["metadata"])
                .map(|v| v.len())
                .unwrap_or(0);
            if meta_len > MAX_METADATA_BYTES {
                return Err(limit(format!(
                    "metadata of vector {id} is {meta_len} bytes, over {MAX_METADATA_BYTES}"
                )));
            }
        }
        let parts = ndjson_parts(&lines, VECTORS_PER_FILE, BYTES_PER_FILE);
        let many = parts.len() > 1;
        for (i, part) in parts.iter().enumerate() {
            let name = if many {
                format!("vectors.{library}.{i:03}.ndjson")
            } else {
                format!("vectors.{library}.ndjson")
            };
            files.push(write(dest, &name, part)?);
        }
    }
    Ok(files)
}

/// `pairs` as JSON arrays of at most `per_file` pairs and `max_bytes` bytes each (a single
/// larger pair alone in its array), in order; one empty array for no pairs.
fn kv_parts(pairs: &[Value], per_file: usize, max_bytes: usize) -> Vec<Vec<u8>> {
    let mut parts = Vec::new();
    let mut buf = b"[".to_vec();
    let mut in_buf = 0;
    for pair in pairs {
        let bytes = serde_json::to_vec(pair).expect("serializes");
        // The pair, its comma and the closing bracket.
        if in_buf > 0 && (in_buf == per_file || buf.len() + bytes.len() + 2 > max_bytes) {
            buf.push(b']');
            parts.push(std::mem::replace(&mut buf, b"[".to_vec()));
            in_buf = 0;
        }
        if in_buf > 0 {
            buf.push(b',');
        }
        buf.extend_from_slice(&bytes);
        in_buf += 1;
    }
    buf.push(b']');
    parts.push(buf);
    parts
}

/// `lines` as NDJSON files of at most `per_file` lines and `max_bytes` bytes each (a single
/// longer line alone in its file), in order; one empty file for no lines.
fn ndjson_parts(lines: &[Value], per_file: usize, max_bytes: usize) -> Vec<Vec<u8>> {
    let mut parts = Vec::new();
    let mut buf = Vec::new();
    let mut in_buf = 0;
    for line in lines {
        let mut bytes = serde_json::to_vec(line).expect("serializes");
        bytes.push(b'\n');
        if in_buf > 0 && (in_buf == per_file || buf.len() + bytes.len() > max_bytes) {
            parts.push(std::mem::take(&mut buf));
            in_buf = 0;
        }
        buf.extend_from_slice(&bytes);
        in_buf += 1;
    }
    parts.push(buf);
    parts
}

fn kv(
    out: &Path,
    m: &Manifest,
    dest: &Path,
    prefix: &str,
    since: Option<&Manifest>,
) -> Result<Vec<String>, Problem> {
    let version = upload::kv_version(out, m, prefix)?;
    let older = match since {
        Some(older) => upload::value_keys(&upload::kv_version(out, older, prefix)?),
        None => Default::default(),
    };
    let mut pairs: Vec<Value> = Vec::new();
    for (key, value) in version.pairs().filter(|(k, _)| !older.contains(k)) {
        if key.len() > MAX_KEY_BYTES {
            return Err(limit(format!("KV key {key} is over {MAX_KEY_BYTES} bytes")));
        }
        if value.len() > MAX_VALUE_BYTES {
            return Err(limit(format!("KV value of {key} is over 25 MiB")));
        }
        pairs.push(json!({"key": key, "value": value}));
    }
    let mut files = Vec::new();
    let parts = kv_parts(&pairs, KV_PAIRS_PER_FILE, KV_BYTES_PER_FILE);
    for (i, part) in parts.iter().enumerate() {
        let name = if parts.len() == 1 {
            "kv.json".to_string()
        } else {
            format!("kv.{i:03}.json")
        };
        files.push(write(dest, &name, part)?);
    }
    Ok(files)
}

/// The manifest `--since` names, read within bounds: only one askzico wrote
/// (`Manifest::check_own`), refused before any file it names is opened.
fn older_manifest(path: &Path) -> Result<Manifest, Problem> {
    let shown = path.display().to_string();
    let help = "pass --since the manifest.json of the version the target holds (out/versions/<corpus_version>.json keeps each build's)";
    let bytes = crate::fsio::read_capped(path, crate::fsio::cap::CORPUS_STATE).map_err(|e| {
        Problem::error("read", format!("cannot read --since {shown}: {e}"))
            .in_file(shown.clone())
            .help(help)
    })?;
    let m: Manifest = serde_json::from_slice(&bytes).map_err(|e| {
        Problem::error(
            "bad-manifest",
            format!("--since {shown} is not an askzico manifest: {e}"),
        )
        .in_file(shown.clone())
        .help(help)
    })?;
    m.check_own().map_err(|why| {
        Problem::error(
            "bad-manifest",
            format!("--since {shown} is not a manifest askzico wrote: {why}"),
        )
        .in_file(shown.clone())
        .help(help)
    })?;
    Ok(m)
}

/// The files of the `--since` manifest the export reads (lookup, lexical and chunk files) are
/// in `out/` with the bytes it names: an older version is compared by what it held, never by
/// files that changed since.
fn older_artifacts_verify(out: &Path, older: &Manifest, path: &Path) -> Result<(), Problem> {
    let shown = path.display().to_string();
    let read = [Kind::Lookup, Kind::Lexical, Kind::Chunks];
    for a in older.artifacts.iter().filter(|a| read.contains(&a.kind)) {
        let file = out.join(&a.path);
        let same = crate::fsio::read_capped(&file, a.bytes).is_ok_and(|b| {
            b.len() as u64 == a.bytes && blake3::hash(&b).to_hex().as_str() == a.blake3
        });
        if !same {
            return Err(Problem::error(
                "bad-manifest",
                format!(
                    "--since {shown} names {}, which is missing from {} or holds other bytes",
                    a.path,
                    out.display()
                ),
            )
            .in_file(shown.clone())
            .help("pass --since a manifest of a build whose files are still in out/ (`askzico gc` keeps the versions it is told to), or export without --since"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kv_parts_keep_every_pair_in_order_within_both_limits() {
        let pairs: Vec<Value> = (0..11)
            .map(|i| json!({"key": format!("k{i}"), "value": "v"}))
            .collect();
        let one = serde_json::to_vec(&pairs[0]).unwrap().len() + 1;
        for (per_file, max_bytes) in [
            (5, usize::MAX),
            (100, 3 * one + 1),
            (4, 2 * one + 1),
            (1, 1),
        ] {
            let parts = kv_parts(&pairs, per_file, max_bytes);
            let mut all = Vec::new();
            for p in &parts {
                let got: Vec<Value> = serde_json::from_slice(p).unwrap();
                assert!(
                    !got.is_empty() && got.len() <= per_file,
                    "{} pairs",
                    got.len()
                );
                assert!(got.len() == 1 || p.len() <= max_bytes, "{} bytes", p.len());
                all.extend(got);
            }
            assert_eq!(all, pairs, "per_file {per_file}, max_bytes {max_bytes}");
        }
        // The bytes are the array serde_json writes.
        assert_eq!(
            kv_parts(&pairs, 100, usize::MAX),
            vec![serde_json::to_vec(&pairs).unwrap()]
        );
        assert_eq!(kv_parts(&[], 5, 10), vec![b"[]".to_vec()]);
    }

    #[test]
    fn ndjson_parts_keep_every_line_in_order_within_both_limits() {
        let lines: Vec<Value> = (0..11).map(|i| json!({"id": format!("v{i}")})).collect();
        let one = serde_json::to_vec(&lines[0]).unwrap().len() + 1;
        for (per_file, max_bytes) in [(5, usize::MAX), (100, 3 * one), (4, 2 * one), (1, 1)] {
            let parts = ndjson_parts(&lines, per_file, max_bytes);
            let mut ids = Vec::new();
            for p in &parts {
                let n = p.iter().filter(|&&b| b == b'\n').count();
                assert!(n >= 1 && n <= per_file, "{n} lines");
                assert!(n == 1 || p.len() <= max_bytes, "{} bytes", p.len());
                for l in String::from_utf8_lossy(p).lines() {
                    let v: Value = serde_json::from_str(l).unwrap();
                    ids.push(v["id"].as_str().unwrap().to_string());
                }
            }
            let want: Vec<String> = (0..11).map(|i| format!("v{i}")).collect();
            assert_eq!(ids, want, "per_file {per_file}, max_bytes {max_bytes}");
        }
        assert_eq!(ndjson_parts(&lines, 5, usize::MAX).len(), 3);
        assert_eq!(ndjson_parts(&[], 5, 10), vec![Vec::<u8>::new()]);
    }
}
