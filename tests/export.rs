//! `askzico export` writes every record of the build: for each format, the exported records equal
//! the manifest's (count and IDs, per kind and library) on a corpus where one library spans
//! several document shards, so several vectors, chunks and lookup files.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::*;
use serde_json::Value;

const CONFIG: &str = "[corpus]\nname = \"shards\"\n\n[[library]]\nid = \"big\"\nroot = \"big\"\ndomains = [\"big\", \"shared\"]\n\n[[library]]\nid = \"small\"\nroot = \"small\"\ndomains = [\"shared\"]\n";
/// Documents in `big`: more than 64 files a shard, so several shards.
const BIG: usize = 150;

/// A document of a few paragraphs; every seventh one long enough for several chunks.
fn page(i: usize) -> String {
    let para =
        format!("هذه فقرة الصفحة رقم {i} عن تاريخ المدينة وأسواقها وناسها، وهي تكفي للفهرسة.");
    let n = if i.is_multiple_of(7) { 150 } else { 3 };
    let mut s = format!("---\ntitle: صفحة {i}\n---\n\n# صفحة {i}\n\n");
    for k in 0..n {
        if k % 30 == 29 {
            s.push_str(&format!("## قسم {k}\n\n"));
        }
        s.push_str(&para);
        s.push_str("\n\n");
    }
    s
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("corpus.toml"), CONFIG).unwrap();
    for (lib, n) in [("big", BIG), ("small", 2)] {
        std::fs::create_dir_all(p.join(lib)).unwrap();
        for i in 0..n {
            std::fs::write(p.join(lib).join(format!("p{i:03}.md")), page(i)).unwrap();
        }
    }
    dir
}

/// Per library (or domain), a set of IDs and a count.
type PerGroup = BTreeMap<String, (BTreeSet<String>, usize)>;

fn add(g: &mut PerGroup, group: &str, id: &str) {
    let e = g.entry(group.to_string()).or_default();
    e.0.insert(id.to_string());
    e.1 += 1;
}

/// The manifest's records of `kind`, per library: the `chunk_id` of each JSONL line, and the
/// `records` counts the manifest declares.
fn manifest_ids(out: &Path, m: &Value, kind: &str) -> PerGroup {
    let mut g = PerGroup::new();
    let mut declared: BTreeMap<String, usize> = BTreeMap::new();
    for a in m["artifacts"].as_array().unwrap() {
        if a["kind"] != kind {
            continue;
        }
        let lib = a["library"].as_str().unwrap();
        *declared.entry(lib.to_string()).or_default() += a["records"].as_u64().unwrap() as usize;
        let text = std::fs::read_to_string(out.join(a["path"].as_str().unwrap())).unwrap();
        for line in text.lines() {
            let r: Value = serde_json::from_str(line).unwrap();
            assert_eq!(r["library"], *lib);
            add(&mut g, lib, r["chunk_id"].as_str().unwrap());
        }
    }
    for (lib, (_, n)) in &g {
        assert_eq!(declared[lib], *n, "{kind} records of {lib}");
    }
    g
}

/// Runs `export`, checks its listing (every file once, every file there) and returns the files.
fn export(p: &Path, format: &str, dest: &Path) -> Vec<std::path::PathBuf> {
    let o = run(bin()
        .current_dir(p)
        .args(["export", "--format", format, "--prefix", "z/", "--dest"])
        .arg(dest));
    assert!(o.status.success(), "{}", stderr(&o));
    let listed: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    let distinct: BTreeSet<&String> = listed.iter().collect();
    assert_eq!(
        distinct.len(),
        listed.len(),
        "a name listed twice: {listed:?}"
    );
    let on_disk: BTreeSet<String> = std::fs::read_dir(dest)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    assert_eq!(
        distinct.into_iter().cloned().collect::<BTreeSet<_>>(),
        on_disk
    );
    listed.into_iter().map(Into::into).collect()
}

#[test]
fn every_export_format_holds_every_record_of_a_library_split_in_shards() {
    let dir = project();
    let p = dir.path();
    let o = run(bin().current_dir(p).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let out = p.join("out");
    let m = manifest(&out);
    let version = m["corpus_version"].as_str().unwrap();
    let of = |kind: &str, lib: &str| {
        m["artifacts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["kind"] == kind && a["library"] == lib)
            .count()
    };
    for kind in ["vectors", "chunks", "lookup"] {
        assert!(
            of(kind, "big") >= 2,
            "the corpus must split `big` into several {kind} files"
        );
    }
    let chunks = manifest_ids(&out, &m, "chunks");
    let lookup = manifest_ids(&out, &m, "lookup");
    assert_eq!(chunks, lookup);
    assert!(chunks["big"].1 > BIG, "some documents have several chunks");
    let vector_records = |lib: &str| -> usize {
        m["artifacts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["kind"] == "vectors" && a["library"] == lib)
            .map(|a| a["records"].as_u64().unwrap() as usize)
            .sum()
    };

    // Vectorize: one vector per chunk of each library, in the files named after it.
    let dest = tempfile::tempdir().unwrap();
    let mut vectors = PerGroup::new();
    for f in export(p, "vectorize", dest.path()) {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let lib = v["metadata"]["library"].as_str().unwrap();
            assert!(
                name.starts_with(&format!("vectors.{lib}.")),
                "a vector of {lib} in {name}"
            );
            assert_eq!(v["metadata"]["corpus_version"], version);
            add(&mut vectors, lib, v["id"].as_str().unwrap());
        }
    }
    assert_eq!(vectors, chunks, "vectorize export against the chunks");
    for (lib, (_, n)) in &vectors {
        assert_eq!(*n, vector_records(lib), "vectors of {lib}");
    }

    // KV: every lookup record under its chunk key, every lexical file under its domain, the
    // manifest, and key pages naming every chunk.
    let dest = tempfile::tempdir().unwrap();
    let mut kv: BTreeMap<String, String> = BTreeMap::new();
    for f in export(p, "kv", dest.path()) {
        let pairs: Vec<Value> = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
        for pair in pairs {
            let key = pair["key"].as_str().unwrap().to_string();
            let value = pair["value"].as_str().unwrap().to_string();
            assert!(kv.insert(key.clone(), value).is_none(), "{key} twice");
        }
    }
    let base = format!("z/{version}/");
    let (mut records, mut lex, mut paged) = (PerGroup::new(), PerGroup::new(), Vec::new());
    let mut manifests = 0;
    for (key, value) in &kv {
        let rest = key
            .strip_prefix(&base)
            .expect("every key under the version");
        if let Some(id) = rest.strip_prefix("chunk/") {
            let r: Value = serde_json::from_str(value).unwrap();
            add(&mut records, r["library"].as_str().unwrap(), id);
        } else if let Some(l) = rest.strip_prefix("lex/") {
            let (domain, name) = l.split_once('/').unwrap();
            add(&mut lex, domain, name);
        } else if rest.starts_with("keys/") {
            paged.extend(serde_json::from_str::<Vec<String>>(value).unwrap());
        } else {
            assert_eq!(rest, "manifest");
            manifests += 1;
        }
    }
    assert_eq!(records, lookup, "kv export against the lookup records");
    assert_eq!(manifests, 1);
    let all: BTreeSet<String> = lookup.values().flat_map(|(ids, _)| ids.clone()).collect();
    assert_eq!(paged.len(), all.len());
    assert_eq!(paged.into_iter().collect::<BTreeSet<_>>(), all);
    let mut lexical: BTreeMap<String, usize> = BTreeMap::new();
    for a in m["artifacts"].as_array().unwrap() {
        if a["kind"] == "lexical" {
            *lexical
                .entry(a["domain"].as_str().unwrap().to_string())
                .or_default() += 1;
        }
    }
    let exported: BTreeMap<String, usize> = lex.iter().map(|(d, (_, n))| (d.clone(), *n)).collect();
    assert_eq!(exported, lexical, "lexical files per domain");
    assert!(lexical.contains_key("big") && lexical.contains_key("shared"));
}
