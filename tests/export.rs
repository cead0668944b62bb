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

    // KV: the version's manifest and key table; per domain a record table naming every chunk's
    // record; every lookup record and lexical file under the hash of its bytes.
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
    assert!(kv.contains_key(&format!("z/{version}/manifest")));
    let tables: Value = serde_json::from_str(&kv[&format!("z/{version}/tables")]).unwrap();
    let mut chunk_records: BTreeMap<String, String> = BTreeMap::new();
    for h in tables["records"].as_object().unwrap().values() {
        let t: BTreeMap<String, String> =
            serde_json::from_str(&kv[&format!("z/t/{}", h.as_str().unwrap())]).unwrap();
        chunk_records.extend(t);
    }
    let mut records = PerGroup::new();
    for (id, h) in &chunk_records {
        let r: Value = serde_json::from_str(&kv[&format!("z/r/{h}")]).unwrap();
        add(&mut records, r["library"].as_str().unwrap(), id);
    }
    assert_eq!(records, lookup, "kv export against the lookup records");
    let mut lex = PerGroup::new();
    for (domain, l) in tables["lexical"].as_object().unwrap() {
        let meta = l["meta"].as_str().unwrap();
        assert!(kv.contains_key(&format!("z/l/{meta}")));
        add(&mut lex, domain, "meta");
        for (k, h) in l["shards"].as_array().unwrap().iter().enumerate() {
            assert!(kv.contains_key(&format!("z/l/{}", h.as_str().unwrap())));
            add(&mut lex, domain, &k.to_string());
        }
    }
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

/// The `{"key", "value"}` pairs of an export `--format kv` into a fresh directory.
fn kv_export(dir: &Path, extra: &[&str]) -> BTreeMap<String, String> {
    let dest = tempfile::tempdir().unwrap();
    let o = run(bin()
        .current_dir(dir)
        .args(["export", "--format", "kv", "--dest"])
        .arg(dest.path())
        .args(extra));
    assert!(o.status.success(), "{}", stderr(&o));
    let mut pairs = BTreeMap::new();
    for f in std::fs::read_dir(dest.path()).unwrap() {
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
        for p in serde_json::from_str::<Vec<Value>>(&text).unwrap() {
            pairs.insert(
                p["key"].as_str().unwrap().to_string(),
                p["value"].as_str().unwrap().to_string(),
            );
        }
    }
    pairs
}

/// `export --format kv` writes the content-addressed layout (each value under the hash of its
/// bytes); `--since <older manifest>` writes only the new version's own keys and the values the
/// older version lacks.
#[test]
fn a_kv_export_since_an_older_manifest_holds_only_what_it_lacks() {
    let p = project();
    let o = run(bin().current_dir(p.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let old = kv_export(p.path(), &[]);
    let v1 = manifest(&p.path().join("out"))["corpus_version"]
        .as_str()
        .unwrap()
        .to_string();
    for (k, v) in &old {
        if let Some(h) = ["r/", "l/", "t/", "d/"]
            .iter()
            .find_map(|x| k.strip_prefix(x))
        {
            assert_eq!(h, &blake3::hash(v.as_bytes()).to_hex()[..32], "{k}");
        } else {
            assert!(
                k == &format!("{v1}/manifest") || k == &format!("{v1}/tables"),
                "{k}"
            );
        }
    }
    let saved = p.path().join("v1-manifest.json");
    std::fs::copy(p.path().join("out/manifest.json"), &saved).unwrap();
    // One paragraph more in one page.
    let f = p.path().join("big/p001.md");
    let text = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, format!("{text}فقرة جديدة عن الميناء القديم.\n")).unwrap();
    let o = run(bin().current_dir(p.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let all = kv_export(p.path(), &[]);
    let since = kv_export(p.path(), &["--since", saved.to_str().unwrap()]);
    let want: BTreeMap<String, String> = all
        .iter()
        .filter(|(k, _)| !old.contains_key(*k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    assert_eq!(since, want);
    assert!(
        since.len() < 20 && all.len() > 150,
        "{} of {} pairs",
        since.len(),
        all.len()
    );
}

/// An export into a directory of an earlier one leaves exactly this build's upload files of that
/// format: the earlier export's files this build does not have (a library gone, a split into
/// fewer parts) are removed, since `wrangler` would upload them too; files askzico did not make,
/// and the other format's files, stay.
#[test]
fn an_export_removes_the_earlier_exports_leftover_files_and_nothing_else() {
    let p = project();
    let dest = p.path().join("upload");
    let build = |p: &Path| {
        let o = run(bin().current_dir(p).arg("build"));
        assert!(o.status.success(), "{}", stderr(&o));
    };
    let export_to = |format: &str| {
        let o = run(bin()
            .current_dir(p.path())
            .args(["export", "--format", format, "--dest"])
            .arg(&dest));
        assert!(o.status.success(), "{}", stderr(&o));
        stderr(&o)
    };
    let names = || -> BTreeSet<String> {
        std::fs::read_dir(&dest)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    build(p.path());
    export_to("vectorize");
    export_to("kv");
    assert!(names().contains("vectors.small.ndjson"), "{:?}", names());
    // A part of an earlier, larger split; a note of the user's under an export-like name.
    std::fs::write(
        dest.join("kv.001.json"),
        "[{\"key\":\"k\",\"value\":\"v\"}]",
    )
    .unwrap();
    std::fs::write(dest.join("vectors.notes.ndjson"), "my own notes\n").unwrap();
    // The library `small` leaves the build.
    let cfg = CONFIG
        .split("\n[[library]]\nid = \"small\"")
        .next()
        .unwrap();
    std::fs::write(p.path().join("corpus.toml"), cfg).unwrap();
    build(p.path());
    let err = export_to("vectorize");
    assert!(err.contains("vectors.small.ndjson"), "{err}");
    let after = names();
    assert!(!after.contains("vectors.small.ndjson"), "{after:?}");
    assert!(after.contains("vectors.big.ndjson"), "{after:?}");
    assert!(
        after.contains("vectors.notes.ndjson"),
        "a foreign file was removed: {after:?}"
    );
    assert!(
        after.contains("kv.001.json"),
        "a vectorize export touched kv files: {after:?}"
    );
    export_to("kv");
    let after = names();
    assert!(!after.contains("kv.001.json"), "{after:?}");
    // `--since` is a KV notion: refused with vectors, not ignored.
    let o = run(bin()
        .current_dir(p.path())
        .args([
            "export",
            "--format",
            "vectorize",
            "--since",
            "out/manifest.json",
            "--dest",
        ])
        .arg(&dest));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--since applies to `--format kv` only"),
        "{}",
        stderr(&o)
    );
    assert!(after.contains("kv.json"), "{after:?}");
    assert!(after.contains("vectors.notes.ndjson"), "{after:?}");
}
