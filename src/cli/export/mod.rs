//! `askzico export`: the exact upload files of the current manifest — Vectorize NDJSON
//! (`wrangler vectorize upsert`) or the `wrangler kv bulk put` JSON array of the deploy's KV
//! layout (`deploy::keys`): `<prefix><version>/manifest` and `…/tables`, then the
//! content-addressed `<prefix>t/<h>`, `r/<h>` and `l/<h>`; with `--since <manifest>`, only what
//! that older version lacks. The records come from `deploy::upload`, as the deploy's do.
//! `--dest` is the export's own folder (a listing of what it wrote, and nothing else); an
//! export is written beside it and swapped in whole, so a failed one changes nothing.

use std::path::Path;

use serde_json::{Value, json};

mod stage;

use stage::{claim_dest, say_replaced, staged_export};

use super::{BuildLocation, Failure, Outcome};
use crate::artifacts::Kind;
use crate::artifacts::manifest::Manifest;
use crate::artifacts::store::write_atomic;
use crate::deploy::upload;
use crate::diag::Problem;

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum ExportFormat {
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

#[derive(clap::Args, Debug)]
pub(crate) struct ExportArgs {
    #[command(flatten)]
    pub at: BuildLocation,
    /// `vectorize` (NDJSON for `wrangler vectorize upsert`) or `kv` (JSON for `wrangler kv bulk put`).
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Directory to write into.
    #[arg(long)]
    pub dest: std::path::PathBuf,
    /// KV key prefix (the deploy target's; empty by default).
    #[arg(long, default_value = "")]
    pub prefix: String,
    /// With `--format kv`: write only the pairs the version of this older manifest lacks
    /// (its artifacts must still be in the output directory).
    #[arg(long)]
    pub since: Option<std::path::PathBuf>,
}

pub(crate) fn run(args: ExportArgs) -> Outcome {
    let ExportArgs {
        ref at,
        format,
        ref dest,
        ref prefix,
        ref since,
    } = args;
    let (dest, prefix, since) = (dest.as_path(), prefix.as_str(), since.as_deref());
    let usage = |p: Problem| Failure::usage(p, false);
    let errors = |p: Problem| Failure::errors(p, false);
    if since.is_some() && matches!(format, ExportFormat::Vectorize) {
        let p = Problem::error("usage", "--since applies to `--format kv` only").help(
            "a Vectorize upsert replaces vectors by ID: export every vector, or pass --format kv",
        );
        return Err(usage(p));
    }
    // A `--since` that is not a manifest askzico wrote is a wrong argument: refused before
    // anything else is read or written, and before any file it names is opened.
    let older = since.map(older_manifest).transpose().map_err(usage)?;
    let out = super::verify::out_dir(at, false)?;
    let manifest = super::verify::verified_manifest(&out, at.env.as_deref(), false, "export")?;
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
        return Err(errors(p));
    }
    if let (Some(older), Some(path)) = (&older, since) {
        older_artifacts_verify(&out, older, path).map_err(usage)?;
    }
    let (dest, earlier) = guard_dest(at, format, dest, &out, &manifest)
        .and_then(|()| {
            let (real, earlier) = claim_dest(dest)?;
            if real != dest {
                guard_dest(at, format, &real, &out, &manifest)?;
            }
            Ok((real, earlier))
        })
        .map_err(usage)?;
    let version = manifest.corpus_version.clone();
    // The query settings travel with the version's KV pairs; its records, whose hashes the
    // vectors name, are stored under their normalization.
    let settings = at
        .config()
        .map_err(|p| Failure::usage(p, false))?
        .query_settings()
        .to_json();
    let names = staged_export(
        &dest,
        earlier.as_ref(),
        format,
        &version,
        |stage| match format {
            ExportFormat::Vectorize => vectorize(&out, &manifest, stage, prefix, &settings),
            ExportFormat::Kv => kv(&out, &manifest, stage, prefix, &settings, older.as_ref()),
        },
    )
    .map_err(errors)?;
    say_replaced(&dest, earlier.as_ref(), format, &names);
    for name in names {
        println!("{}", dest.join(name).display());
    }
    Ok(())
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
fn vectorize(
    out: &Path,
    m: &Manifest,
    dest: &Path,
    prefix: &str,
    settings: &str,
) -> Result<Vec<String>, Problem> {
    let records = upload::kv_version(out, m, prefix, settings)?.records;
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
    settings: &str,
    since: Option<&Manifest>,
) -> Result<Vec<String>, Problem> {
    let version = upload::kv_version(out, m, prefix, settings)?;
    let older = match since {
        Some(older) => upload::value_keys(&upload::kv_version(out, older, prefix, settings)?),
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
