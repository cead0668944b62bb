//! verify: re-hashes every artifact a manifest names and checks the build's invariants — every
//! vector ID and lexical posting hydratable from lookup, lookup keys = chunk IDs, counts as the
//! manifest says, IDs unique, ASCII and at most 64 bytes. One problem per violation.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::lexical::{ChunkRef, LexMeta, LexShard};
use super::manifest::{ArtifactEntry, Manifest, corpus_version, fingerprint};
use super::store::is_safe_artifact_path;
use super::{ChunkRecord, Kind, LookupRecord, vectors};
use crate::diag::Problem;
use crate::identity::MAX_ID_BYTES;

/// Checks a build; an empty result means it holds.
pub(crate) fn verify(out: &Path, m: &Manifest) -> Vec<Problem> {
    let mut errs = Errors(Vec::new());
    check_manifest(m, &mut errs);
    let contents = read_artifacts(out, m, &mut errs);
    let found = parse_artifacts(m, &contents, &mut errs);
    check_hydration(&found, &mut errs);
    check_lexical(&found, &mut errs);
    check_libraries(m, &found, &mut errs);
    errs.0
}

/// The problems found so far, each a `verify` error naming its file.
struct Errors(Vec<Problem>);

impl Errors {
    fn err(&mut self, file: &str, msg: String, help: &str) {
        self.0.push(
            Problem::error("verify", msg)
                .in_file(file.to_string())
                .help(help.to_string()),
        );
    }
}

/// Chunks and documents of one library, as its chunk records give them.
#[derive(Default)]
struct LibraryCount {
    docs: BTreeSet<String>,
    chunks: usize,
}

/// A lexical shard's path, its domain and every chunk its postings name.
struct ShardRefs {
    path: String,
    domain: String,
    refs: BTreeSet<ChunkRef>,
}

/// What the artifacts of a build hold, as the cross-checks need it.
#[derive(Default)]
struct Found {
    chunk_ids: BTreeSet<String>,
    lookup_ids: BTreeSet<String>,
    per_lib: BTreeMap<String, LibraryCount>,
    domain_chunks: BTreeMap<String, usize>,
    /// Every vector ID with the path of its file.
    vector_ids: Vec<(String, String)>,
    lexical_refs: Vec<ShardRefs>,
    lex_meta: BTreeMap<String, LexMeta>,
    lex_shards: BTreeMap<String, usize>,
}

/// The manifest agrees with itself: its fingerprint and corpus version.
fn check_manifest(m: &Manifest, errs: &mut Errors) {
    if fingerprint(&m.settings) != m.fingerprint() {
        errs.err(
            "manifest",
            "settings fingerprint does not match the settings values".into(),
            "rebuild; never edit manifests by hand",
        );
    }
    if corpus_version(m.fingerprint(), &m.artifacts) != m.corpus_version {
        errs.err(
            "manifest",
            format!(
                "corpus_version {} does not match its artifacts and settings",
                m.corpus_version
            ),
            "rebuild; never edit manifests by hand",
        );
    }
}

/// Every artifact read (no further than its recorded size) and re-hashed; those that match
/// their manifest entry, by entry index.
fn read_artifacts(out: &Path, m: &Manifest, errs: &mut Errors) -> Vec<(usize, Vec<u8>)> {
    let mut contents: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut paths = BTreeSet::new();
    for (i, a) in m.artifacts.iter().enumerate() {
        if !paths.insert(&a.path) {
            errs.err(&a.path, "named twice in the manifest".into(), "rebuild");
        }
        if !is_safe_artifact_path(&a.path) {
            errs.err(
                &a.path,
                "artifact path escapes the output directory".into(),
                "rebuild; never edit manifests by hand",
            );
            continue;
        }
        // Read no further than the recorded size: a larger file is reported, not loaded.
        let bytes = match crate::fsio::read_capped(&out.join(&a.path), a.bytes) {
            Ok(b) => b,
            Err(crate::fsio::ReadError::TooLarge { .. }) => {
                errs.err(
                    &a.path,
                    format!("larger than the manifest's {} bytes", a.bytes),
                    "the file was changed after the build: rebuild",
                );
                continue;
            }
            Err(e) => {
                errs.err(
                    &a.path,
                    format!("{} artifact missing or unreadable: {e}", a.kind.as_str()),
                    "rebuild with `askzico build`; do not delete files a manifest names (use `askzico gc`)",
                );
                continue;
            }
        };
        if bytes.len() as u64 != a.bytes {
            errs.err(
                &a.path,
                format!(
                    "size {} differs from the manifest's {}",
                    bytes.len(),
                    a.bytes
                ),
                "the file was changed after the build: rebuild",
            );
            continue;
        }
        let hash = blake3::hash(&bytes).to_hex().to_string();
        if hash != a.blake3 {
            errs.err(
                &a.path,
                format!(
                    "blake3 {} differs from the manifest's {}",
                    &hash[..16],
                    &a.blake3[..16.min(a.blake3.len())]
                ),
                "the file was changed after the build: rebuild",
            );
            continue;
        }
        contents.push((i, bytes));
    }
    contents
}

/// Each artifact parsed, its records counted against the manifest, and what it holds collected.
fn parse_artifacts(m: &Manifest, contents: &[(usize, Vec<u8>)], errs: &mut Errors) -> Found {
    let mut found = Found::default();
    let dims = m
        .settings
        .get("embedder")
        .and_then(|e| e.get("dims"))
        .and_then(|d| d.as_u64())
        .unwrap_or(0) as usize;
    for (i, bytes) in contents {
        let a = &m.artifacts[*i];
        let path = a.path.as_str();
        let mut count = 0usize;
        match a.kind {
            Kind::Chunks | Kind::Lookup => match parse_records(a, bytes, &mut found, errs) {
                Some(n) => count = n,
                None => continue,
            },
            Kind::Vectors => match vectors::decode(bytes) {
                Ok((d, recs)) => {
                    if d != dims {
                        errs.err(
                            path,
                            format!("vectors have {d} dimensions, the settings say {dims}"),
                            "rebuild",
                        );
                    }
                    count = recs.len();
                    found
                        .vector_ids
                        .extend(recs.into_iter().map(|r| (r.id, path.to_string())));
                }
                Err(e) => errs.err(path, format!("malformed vectors file: {e}"), "rebuild"),
            },
            Kind::Lexical => count = parse_lexical(a, bytes, &mut found, errs),
        }
        if count != a.records {
            errs.err(
                path,
                format!("holds {count} records, the manifest says {}", a.records),
                "rebuild",
            );
        }
    }
    found
}

/// The records of a chunks or lookup file, collected; their count, or `None` when the file is
/// not text.
fn parse_records(
    a: &ArtifactEntry,
    bytes: &[u8],
    found: &mut Found,
    errs: &mut Errors,
) -> Option<usize> {
    let path = a.path.as_str();
    let Ok(text) = std::str::from_utf8(bytes) else {
        errs.err(path, "not UTF-8".into(), "rebuild");
        return None;
    };
    let mut count = 0;
    for (ln, line) in text.lines().enumerate() {
        count += 1;
        if a.kind == Kind::Chunks {
            match serde_json::from_str::<ChunkRecord>(line) {
                Ok(r) => {
                    check_id(&r.chunk_id, path, ln + 1, errs);
                    if !r.chunk_id.starts_with(&format!("{}:", r.doc_id)) {
                        errs.err(
                            path,
                            format!(
                                "line {}: chunk_id {} is not under doc_id {}",
                                ln + 1,
                                r.chunk_id,
                                r.doc_id
                            ),
                            "rebuild",
                        );
                    }
                    for d in &r.domains {
                        *found.domain_chunks.entry(d.clone()).or_default() += 1;
                    }
                    let e = found.per_lib.entry(r.library.clone()).or_default();
                    e.docs.insert(r.doc_id.clone());
                    e.chunks += 1;
                    if !found.chunk_ids.insert(r.chunk_id.clone()) {
                        errs.err(
                            path,
                            format!("line {}: duplicate chunk_id {}", ln + 1, r.chunk_id),
                            "IDs must be unique in a build: rebuild",
                        );
                    }
                }
                Err(e) => errs.err(
                    path,
                    format!("line {}: not a chunk record: {e}", ln + 1),
                    "rebuild",
                ),
            }
        } else {
            match serde_json::from_str::<LookupRecord>(line) {
                Ok(r) => {
                    if !found.lookup_ids.insert(r.chunk_id.clone()) {
                        errs.err(
                            path,
                            format!("line {}: duplicate lookup key {}", ln + 1, r.chunk_id),
                            "rebuild",
                        );
                    }
                }
                Err(e) => errs.err(
                    path,
                    format!("line {}: not a lookup record: {e}", ln + 1),
                    "rebuild",
                ),
            }
        }
    }
    Some(count)
}

/// A lexical meta or shard, collected; its count of records (chunks, or terms).
fn parse_lexical(a: &ArtifactEntry, bytes: &[u8], found: &mut Found, errs: &mut Errors) -> usize {
    let path = a.path.as_str();
    let mut count = 0;
    let domain = a.domain.clone().unwrap_or_default();
    if path.contains("/meta.") {
        match serde_json::from_slice::<LexMeta>(bytes) {
            Ok(meta) => {
                count = meta.chunks;
                found.lex_meta.insert(domain, meta);
            }
            Err(e) => errs.err(path, format!("malformed lexical meta: {e}"), "rebuild"),
        }
    } else {
        match serde_json::from_slice::<LexShard>(bytes) {
            Ok(shard) => {
                count = shard.terms.len();
                *found.lex_shards.entry(domain.clone()).or_default() += 1;
                let mut refs = BTreeSet::new();
                for (f, term, postings) in shard.all() {
                    match postings {
                        Ok(ps) => refs.extend(ps.iter().map(|p| p.chunk)),
                        Err(e) => errs.err(path, format!("field {f}, term {term}: {e}"), "rebuild"),
                    }
                }
                found.lexical_refs.push(ShardRefs {
                    path: path.to_string(),
                    domain: domain.clone(),
                    refs,
                });
            }
            Err(e) => errs.err(path, format!("malformed lexical shard: {e}"), "rebuild"),
        }
    }
    count
}

/// Every chunk, vector and lookup record names the same chunks, once each.
fn check_hydration(found: &Found, errs: &mut Errors) {
    for id in found.chunk_ids.difference(&found.lookup_ids) {
        errs.err(
            "lookup",
            format!("chunk {id} has no lookup record: it cannot be hydrated"),
            "rebuild; a chunk without its lookup record is an invariant failure",
        );
    }
    for id in found.lookup_ids.difference(&found.chunk_ids) {
        errs.err(
            "lookup",
            format!("lookup record {id} has no chunk record"),
            "rebuild",
        );
    }
    let mut seen_vectors = BTreeSet::new();
    for (id, path) in &found.vector_ids {
        if !found.lookup_ids.contains(id) {
            errs.err(
                path,
                format!("vector ID {id} cannot be hydrated from lookup in this version"),
                "rebuild; vectors and lookup must come from one build",
            );
        }
        if !seen_vectors.insert(id) {
            errs.err(path, format!("duplicate vector ID {id}"), "rebuild");
        }
    }
    if seen_vectors.len() != found.chunk_ids.len() {
        errs.err(
            "vectors",
            format!(
                "{} vectors for {} chunks",
                seen_vectors.len(),
                found.chunk_ids.len()
            ),
            "rebuild",
        );
    }
}

/// Every lexical posting names a chunk its domain's meta lists and lookup can hydrate; each
/// domain's meta agrees with its shards and the chunk records.
fn check_lexical(found: &Found, errs: &mut Errors) {
    // Chunk IDs already reported, so each is named once.
    let mut reported = BTreeSet::new();
    check_postings(found, errs, &mut reported);
    for (domain, meta) in &found.lex_meta {
        check_meta(domain, meta, found, errs, &mut reported);
    }
}

/// Every lexical posting names a chunk its domain's meta lists and lookup can hydrate.
fn check_postings(found: &Found, errs: &mut Errors, reported: &mut BTreeSet<String>) {
    for ShardRefs { path, domain, refs } in &found.lexical_refs {
        let Some(meta) = found.lex_meta.get(domain) else {
            errs.err(
                path,
                format!("lexical domain `{domain}` has no meta"),
                "rebuild; a domain's shards and meta must come from one build",
            );
            continue;
        };
        for c in refs {
            match meta.chunk_id(*c) {
                Some(id) => {
                    if !found.lookup_ids.contains(&id) && reported.insert(id.clone()) {
                        errs.err(
                            path,
                            format!("lexical posting {id} cannot be hydrated from lookup"),
                            "rebuild; shards and lookup must come from one build",
                        );
                    }
                }
                None => errs.err(
                    path,
                    format!(
                        "a posting names chunk {} of document #{}, which the meta of domain `{domain}` does not list",
                        c.index, c.ord
                    ),
                    "rebuild; a domain's shards and meta must come from one build",
                ),
            }
        }
    }
}

/// A domain's meta agrees with its shards and the chunk records: its shard count, its
/// document table (sorted by slot, unique, with the chunks and tokens it says) and every chunk
/// it lists.
fn check_meta(
    domain: &str,
    meta: &LexMeta,
    found: &Found,
    errs: &mut Errors,
    reported: &mut BTreeSet<String>,
) {
    if found.lex_shards.get(domain).copied().unwrap_or(0) != meta.shards {
        errs.err(
            domain,
            format!(
                "lexical domain `{domain}` has {} shards, its meta says {}",
                found.lex_shards.get(domain).copied().unwrap_or(0),
                meta.shards
            ),
            "rebuild",
        );
    }
    if !meta.docs.is_sorted_by(|a, b| a.0 < b.0) {
        errs.err(
            domain,
            format!("the document table of lexical domain `{domain}` is not sorted by slot"),
            "rebuild",
        );
    }
    let chunks: usize = meta.docs.iter().map(|d| d.2.len()).sum();
    let total: u64 = meta.docs.iter().flat_map(|d| &d.2).map(|l| *l as u64).sum();
    if chunks != meta.chunks || total != meta.total_len {
        errs.err(
            domain,
            format!(
                "lexical meta of `{domain}` lists {chunks} lengths summing to {total}, it says {} chunks and {} tokens",
                meta.chunks, meta.total_len
            ),
            "rebuild",
        );
    }
    if !meta.docs.windows(2).all(|w| w[0].0 < w[1].0) {
        errs.err(
            domain,
            format!("lexical meta of `{domain}`: its documents are not sorted and unique"),
            "rebuild",
        );
    }
    for (_, doc, lens) in &meta.docs {
        for index in 0..lens.len() {
            let id = format!("{doc}:{index:0w$}", w = meta.width);
            if !found.chunk_ids.contains(&id) && reported.insert(id.clone()) {
                errs.err(
                    domain,
                    format!(
                        "lexical meta of `{domain}` lists chunk {id}, which no chunk record has"
                    ),
                    "rebuild",
                );
            }
        }
    }
    if found.domain_chunks.get(domain).copied().unwrap_or(0) != meta.chunks {
        errs.err(
            domain,
            format!(
                "lexical domain `{domain}` indexes {} chunks, the chunk records have {}",
                meta.chunks,
                found.domain_chunks.get(domain).copied().unwrap_or(0)
            ),
            "rebuild",
        );
    }
}

/// The manifest's per-library counts are those of the chunk records.
fn check_libraries(m: &Manifest, found: &Found, errs: &mut Errors) {
    for lib in &m.libraries {
        let (docs, chunks) = found
            .per_lib
            .get(&lib.id)
            .map(|c| (c.docs.len(), c.chunks))
            .unwrap_or((0, 0));
        if docs != lib.docs || chunks != lib.chunks {
            errs.err(
                &lib.id,
                format!(
                    "library `{}`: manifest says {} docs / {} chunks, the chunk records have {docs} / {chunks}",
                    lib.id, lib.docs, lib.chunks
                ),
                "rebuild",
            );
        }
    }
}

fn check_id(id: &str, path: &str, line: usize, errs: &mut Errors) {
    if id.len() > MAX_ID_BYTES {
        errs.err(
            path,
            format!(
                "line {line}: chunk_id {id} is {} bytes, over {MAX_ID_BYTES}",
                id.len()
            ),
            "shorten the slug (frontmatter `id` or the records id template)",
        );
    }
    if !id.is_ascii() {
        errs.err(
            path,
            format!("line {line}: chunk_id {id} is not ASCII"),
            "rebuild",
        );
    }
}
