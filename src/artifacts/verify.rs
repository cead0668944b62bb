//! verify: re-hashes every artifact a manifest names and checks the build's invariants — every
//! vector ID and lexical posting hydratable from lookup, lookup keys = chunk IDs, counts as the
//! manifest says, IDs unique, ASCII and at most 64 bytes. One problem per violation.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::lexical::{ChunkRef, LexMeta, LexShard};
use super::manifest::{Manifest, corpus_version, fingerprint};
use super::store::is_safe_artifact_path;
use super::{ChunkRecord, Kind, LookupRecord, vectors};
use crate::diag::Problem;
use crate::identity::MAX_ID_BYTES;

/// Checks a build; an empty result means it holds.
pub fn verify(out: &Path, m: &Manifest) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut err = |file: &str, msg: String, help: &str| {
        problems.push(
            Problem::error("verify", msg)
                .in_file(file.to_string())
                .help(help.to_string()),
        );
    };
    if fingerprint(&m.settings) != m.fingerprint() {
        err(
            "manifest",
            "settings fingerprint does not match the settings values".into(),
            "rebuild; never edit manifests by hand",
        );
    }
    if corpus_version(m.fingerprint(), &m.artifacts) != m.corpus_version {
        err(
            "manifest",
            format!(
                "corpus_version {} does not match its artifacts and settings",
                m.corpus_version
            ),
            "rebuild; never edit manifests by hand",
        );
    }

    let mut contents: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut paths = BTreeSet::new();
    for (i, a) in m.artifacts.iter().enumerate() {
        if !paths.insert(&a.path) {
            err(&a.path, "named twice in the manifest".into(), "rebuild");
        }
        if !is_safe_artifact_path(&a.path) {
            err(
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
                err(
                    &a.path,
                    format!("larger than the manifest's {} bytes", a.bytes),
                    "the file was changed after the build: rebuild",
                );
                continue;
            }
            Err(e) => {
                err(
                    &a.path,
                    format!("{} artifact missing or unreadable: {e}", a.kind.as_str()),
                    "rebuild with `askzico build`; do not delete files a manifest names (use `askzico gc`)",
                );
                continue;
            }
        };
        if bytes.len() as u64 != a.bytes {
            err(
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
            err(
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

    let mut chunk_ids: BTreeSet<String> = BTreeSet::new();
    let mut lookup_ids: BTreeSet<String> = BTreeSet::new();
    let mut per_lib: BTreeMap<String, (BTreeSet<String>, usize)> = BTreeMap::new();
    let mut domain_chunks: BTreeMap<String, usize> = BTreeMap::new();
    let mut vector_ids: Vec<(String, String)> = Vec::new();
    // Per lexical shard: its path, domain and every chunk its postings name.
    let mut lexical_refs: Vec<(String, String, BTreeSet<ChunkRef>)> = Vec::new();
    let mut lex_meta: BTreeMap<String, LexMeta> = BTreeMap::new();
    let mut lex_shards: BTreeMap<String, usize> = BTreeMap::new();
    let dims = m
        .settings
        .get("embedder")
        .and_then(|e| e.get("dims"))
        .and_then(|d| d.as_u64())
        .unwrap_or(0) as usize;

    for (i, bytes) in &contents {
        let a = &m.artifacts[*i];
        let path = a.path.as_str();
        let mut count = 0usize;
        match a.kind {
            Kind::Chunks | Kind::Lookup => {
                let Ok(text) = std::str::from_utf8(bytes) else {
                    err(path, "not UTF-8".into(), "rebuild");
                    continue;
                };
                for (ln, line) in text.lines().enumerate() {
                    count += 1;
                    if a.kind == Kind::Chunks {
                        match serde_json::from_str::<ChunkRecord>(line) {
                            Ok(r) => {
                                check_id(&r.chunk_id, path, ln + 1, &mut err);
                                if !r.chunk_id.starts_with(&format!("{}:", r.doc_id)) {
                                    err(
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
                                    *domain_chunks.entry(d.clone()).or_default() += 1;
                                }
                                let e = per_lib.entry(r.library.clone()).or_default();
                                e.0.insert(r.doc_id.clone());
                                e.1 += 1;
                                if !chunk_ids.insert(r.chunk_id.clone()) {
                                    err(
                                        path,
                                        format!(
                                            "line {}: duplicate chunk_id {}",
                                            ln + 1,
                                            r.chunk_id
                                        ),
                                        "IDs must be unique in a build: rebuild",
                                    );
                                }
                            }
                            Err(e) => err(
                                path,
                                format!("line {}: not a chunk record: {e}", ln + 1),
                                "rebuild",
                            ),
                        }
                    } else {
                        match serde_json::from_str::<LookupRecord>(line) {
                            Ok(r) => {
                                if !lookup_ids.insert(r.chunk_id.clone()) {
                                    err(
                                        path,
                                        format!(
                                            "line {}: duplicate lookup key {}",
                                            ln + 1,
                                            r.chunk_id
                                        ),
                                        "rebuild",
                                    );
                                }
                            }
                            Err(e) => err(
                                path,
                                format!("line {}: not a lookup record: {e}", ln + 1),
                                "rebuild",
                            ),
                        }
                    }
                }
            }
            Kind::Vectors => match vectors::decode(bytes) {
                Ok((d, recs)) => {
                    if d != dims {
                        err(
                            path,
                            format!("vectors have {d} dimensions, the settings say {dims}"),
                            "rebuild",
                        );
                    }
                    count = recs.len();
                    vector_ids.extend(recs.into_iter().map(|r| (r.id, path.to_string())));
                }
                Err(e) => err(path, format!("malformed vectors file: {e}"), "rebuild"),
            },
            Kind::Lexical => {
                let domain = a.domain.clone().unwrap_or_default();
                if path.contains("/meta.") {
                    match serde_json::from_slice::<LexMeta>(bytes) {
                        Ok(meta) => {
                            count = meta.chunks;
                            lex_meta.insert(domain, meta);
                        }
                        Err(e) => err(path, format!("malformed lexical meta: {e}"), "rebuild"),
                    }
                } else {
                    match serde_json::from_slice::<LexShard>(bytes) {
                        Ok(shard) => {
                            count = shard.terms.len();
                            *lex_shards.entry(domain.clone()).or_default() += 1;
                            let mut refs = BTreeSet::new();
                            for (f, term, postings) in shard.all() {
                                match postings {
                                    Ok(ps) => refs.extend(ps.iter().map(|p| p.chunk)),
                                    Err(e) => {
                                        err(path, format!("field {f}, term {term}: {e}"), "rebuild")
                                    }
                                }
                            }
                            lexical_refs.push((path.to_string(), domain.clone(), refs));
                        }
                        Err(e) => err(path, format!("malformed lexical shard: {e}"), "rebuild"),
                    }
                }
            }
        }
        if count != a.records {
            err(
                path,
                format!("holds {count} records, the manifest says {}", a.records),
                "rebuild",
            );
        }
    }

    for id in chunk_ids.difference(&lookup_ids) {
        err(
            "lookup",
            format!("chunk {id} has no lookup record: it cannot be hydrated"),
            "rebuild; a chunk without its lookup record is an invariant failure",
        );
    }
    for id in lookup_ids.difference(&chunk_ids) {
        err(
            "lookup",
            format!("lookup record {id} has no chunk record"),
            "rebuild",
        );
    }
    let mut seen_vectors = BTreeSet::new();
    for (id, path) in &vector_ids {
        if !lookup_ids.contains(id) {
            err(
                path,
                format!("vector ID {id} cannot be hydrated from lookup in this version"),
                "rebuild; vectors and lookup must come from one build",
            );
        }
        if !seen_vectors.insert(id) {
            err(path, format!("duplicate vector ID {id}"), "rebuild");
        }
    }
    if seen_vectors.len() != chunk_ids.len() {
        err(
            "vectors",
            format!(
                "{} vectors for {} chunks",
                seen_vectors.len(),
                chunk_ids.len()
            ),
            "rebuild",
        );
    }
    let mut reported = BTreeSet::new();
    for (path, domain, refs) in &lexical_refs {
        let Some(meta) = lex_meta.get(domain) else {
            err(
                path,
                format!("lexical domain `{domain}` has no meta"),
                "rebuild; a domain's shards and meta must come from one build",
            );
            continue;
        };
        for c in refs {
            match meta.chunk_id(*c) {
                Some(id) => {
                    if !lookup_ids.contains(&id) && reported.insert(id.clone()) {
                        err(
                            path,
                            format!("lexical posting {id} cannot be hydrated from lookup"),
                            "rebuild; shards and lookup must come from one build",
                        );
                    }
                }
                None => err(
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
    for (domain, meta) in &lex_meta {
        if lex_shards.get(domain).copied().unwrap_or(0) != meta.shards {
            err(
                domain,
                format!(
                    "lexical domain `{domain}` has {} shards, its meta says {}",
                    lex_shards.get(domain).copied().unwrap_or(0),
                    meta.shards
                ),
                "rebuild",
            );
        }
        if !meta.docs.is_sorted_by(|a, b| a.0 < b.0) {
            err(
                domain,
                format!("the document table of lexical domain `{domain}` is not sorted by slot"),
                "rebuild",
            );
        }
        let chunks: usize = meta.docs.iter().map(|d| d.2.len()).sum();
        let total: u64 = meta.docs.iter().flat_map(|d| &d.2).map(|l| *l as u64).sum();
        if chunks != meta.chunks || total != meta.total_len {
            err(
                domain,
                format!(
                    "lexical meta of `{domain}` lists {chunks} lengths summing to {total}, it says {} chunks and {} tokens",
                    meta.chunks, meta.total_len
                ),
                "rebuild",
            );
        }
        if !meta.docs.windows(2).all(|w| w[0].0 < w[1].0) {
            err(
                domain,
                format!("lexical meta of `{domain}`: its documents are not sorted and unique"),
                "rebuild",
            );
        }
        for (_, doc, lens) in &meta.docs {
            for index in 0..lens.len() {
                let id = format!("{doc}:{index:0w$}", w = meta.width);
                if !chunk_ids.contains(&id) && reported.insert(id.clone()) {
                    err(
                        domain,
                        format!(
                            "lexical meta of `{domain}` lists chunk {id}, which no chunk record has"
                        ),
                        "rebuild",
                    );
                }
            }
        }
        if domain_chunks.get(domain).copied().unwrap_or(0) != meta.chunks {
            err(
                domain,
                format!(
                    "lexical domain `{domain}` indexes {} chunks, the chunk records have {}",
                    meta.chunks,
                    domain_chunks.get(domain).copied().unwrap_or(0)
                ),
                "rebuild",
            );
        }
    }
    for lib in &m.libraries {
        let (docs, chunks) = per_lib
            .get(&lib.id)
            .map(|(d, c)| (d.len(), *c))
            .unwrap_or((0, 0));
        if docs != lib.docs || chunks != lib.chunks {
            err(
                &lib.id,
                format!(
                    "library `{}`: manifest says {} docs / {} chunks, the chunk records have {docs} / {chunks}",
                    lib.id, lib.docs, lib.chunks
                ),
                "rebuild",
            );
        }
    }
    problems
}

fn check_id(id: &str, path: &str, line: usize, err: &mut impl FnMut(&str, String, &str)) {
    if id.len() > MAX_ID_BYTES {
        err(
            path,
            format!(
                "line {line}: chunk_id {id} is {} bytes, over {MAX_ID_BYTES}",
                id.len()
            ),
            "shorten the slug (frontmatter `id` or the records id template)",
        );
    }
    if !id.is_ascii() {
        err(
            path,
            format!("line {line}: chunk_id {id} is not ASCII"),
            "rebuild",
        );
    }
}
