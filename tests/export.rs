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

/// The listing an export leaves beside its files.
const LISTING: &str = ".askzico-export.json";

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
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with(LISTING))
        .map(|p| p.display().to_string())
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
        let f = f.unwrap().path();
        if f.ends_with(LISTING) {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
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
        if let Some(h) = ["r/", "l/", "t/", "d/", "s/"]
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

/// Every file of `dir` (none when it is missing) with its bytes, by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

fn build(p: &Path) {
    let o = run(bin().current_dir(p).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
}

fn export_to(p: &Path, format: &str, dest: &Path) -> std::process::Output {
    run(bin()
        .current_dir(p)
        .args(["export", "--format", format, "--dest"])
        .arg(dest))
}

/// An export into a folder of an earlier one leaves exactly this build's upload files of that
/// format: the earlier export's files this build does not have (a library gone) are removed,
/// since `wrangler` would upload them too, and said; the other format's files stay.
#[test]
fn an_export_removes_the_earlier_exports_leftover_files_and_keeps_the_other_format() {
    let p = project();
    let dest = p.path().join("upload");
    let ok = |format: &str| {
        let o = export_to(p.path(), format, &dest);
        assert!(o.status.success(), "{}", stderr(&o));
        stderr(&o)
    };
    let names = || -> BTreeSet<String> { files(&dest).into_keys().collect() };
    build(p.path());
    ok("vectorize");
    ok("kv");
    assert!(names().contains("vectors.small.ndjson"), "{:?}", names());
    let kv_before = std::fs::read(dest.join("kv.json")).unwrap();
    // The library `small` leaves the build.
    let cfg = CONFIG
        .split("\n[[library]]\nid = \"small\"")
        .next()
        .unwrap();
    std::fs::write(p.path().join("corpus.toml"), cfg).unwrap();
    build(p.path());
    let err = ok("vectorize");
    assert!(
        err.contains("replaced the earlier vectorize export of version"),
        "{err}"
    );
    assert!(
        err.contains("removed ") && err.contains("vectors.small.ndjson"),
        "{err}"
    );
    let after = names();
    assert!(!after.contains("vectors.small.ndjson"), "{after:?}");
    assert!(after.contains("vectors.big.ndjson"), "{after:?}");
    assert_eq!(
        std::fs::read(dest.join("kv.json")).unwrap(),
        kv_before,
        "a vectorize export changed the kv files"
    );
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
}

/// A file in `--dest` that no export wrote is never overwritten or removed, whatever its name
/// and content: the export is refused, naming the file and the way out, and nothing changes.
#[test]
fn an_export_leaves_hand_written_files_in_dest_alone() {
    let p = project();
    build(p.path());
    // A hand-written bulk file where the export would write its own.
    let mine = p.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("kv.json"), "[{\"key\":\"mine\",\"value\":\"x\"}]").unwrap();
    let before = files(&mine);
    let o = export_to(p.path(), "kv", &mine);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("kv.json, which no askzico export wrote"), "{e}");
    assert!(e.contains("pass --dest a new or empty folder"), "{e}");
    assert_eq!(files(&mine), before);
    // Beside an earlier export: a part the export would remove, a file under its names.
    let dest = p.path().join("upload");
    for format in ["kv", "vectorize"] {
        let o = export_to(p.path(), format, &dest);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    for (name, text) in [
        ("kv.003.json", "[{\"key\":\"k\",\"value\":\"v\"}]"),
        (
            "vectors.mine.ndjson",
            "{\"id\":\"a\",\"values\":[1],\"metadata\":{}}\n",
        ),
    ] {
        std::fs::write(dest.join(name), text).unwrap();
        let before = files(&dest);
        for format in ["kv", "vectorize"] {
            let o = export_to(p.path(), format, &dest);
            assert_eq!(o.status.code(), Some(2), "{format}: {}", stderr(&o));
            assert!(stderr(&o).contains(name), "{format}: {}", stderr(&o));
            assert_eq!(files(&dest), before, "{format} changed --dest");
        }
        std::fs::remove_file(dest.join(name)).unwrap();
    }
    // A listed name replaced by a link is not the export's file any more.
    let elsewhere = p.path().join("elsewhere.json");
    std::fs::write(&elsewhere, "[]").unwrap();
    std::fs::remove_file(dest.join("kv.json")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, dest.join("kv.json")).unwrap();
    let o = export_to(p.path(), "kv", &dest);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("kv.json") && e.contains("link"), "{e}");
    assert_eq!(std::fs::read(&elsewhere).unwrap(), b"[]");
}

/// An export is written beside `--dest` and put in its place whole: one that fails midway (a
/// full disk) leaves the earlier export exactly as it was and nothing beside it.
#[test]
fn a_failed_export_leaves_the_earlier_one_as_it_was() {
    common::test_hooks();
    let p = project();
    build(p.path());
    let dest = p.path().join("upload");
    let o = export_to(p.path(), "vectorize", &dest);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = files(&dest);
    assert!(
        before.len() >= 3,
        "two libraries and the listing: {before:?}"
    );
    let f = p.path().join("big/p001.md");
    let text = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, format!("{text}فقرة جديدة عن الميناء القديم.\n")).unwrap();
    std::fs::write(p.path().join("small/p000.md"), page(500)).unwrap();
    build(p.path());
    let o = run(bin()
        .current_dir(p.path())
        .env("ASKZICO_FAIL_AFTER_WRITES", "1")
        .args(["export", "--format", "vectorize", "--dest"])
        .arg(&dest));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("injected write failure"),
        "{}",
        stderr(&o)
    );
    assert_eq!(files(&dest), before, "a failed export changed --dest");
    let beside: Vec<String> = std::fs::read_dir(p.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("upload."))
        .collect();
    assert!(beside.is_empty(), "left beside --dest: {beside:?}");
    let o = export_to(p.path(), "vectorize", &dest);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("replaced the earlier vectorize export of version"),
        "{}",
        stderr(&o)
    );
    assert_ne!(files(&dest), before);
}

/// `--since` takes only a manifest askzico wrote: a format it does not know, a path out of
/// `out/`, a version that does not match its artifacts, or files changed since are refused
/// before anything is written.
#[test]
fn export_since_refuses_a_manifest_askzico_did_not_write() {
    let p = project();
    build(p.path());
    let m: Value = manifest(&p.path().join("out"));
    let edit = |name: &str, f: &dyn Fn(&mut Value)| {
        let mut v = m.clone();
        f(&mut v);
        std::fs::write(p.path().join(name), serde_json::to_vec(&v).unwrap()).unwrap();
    };
    edit("v99.json", &|v| v["askzico_manifest"] = 99.into());
    edit("escape.json", &|v| {
        v["artifacts"][0]["path"] = "../../../../etc/passwd".into()
    });
    edit("forged.json", &|v| {
        v["corpus_version"] = "0".repeat(32).into()
    });
    edit("blank.json", &|v| v["settings"]["fingerprint"] = "x".into());
    for (name, want) in [
        ("v99.json", "its format is 99"),
        (
            "escape.json",
            "`../../../../etc/passwd`, which leaves the output directory",
        ),
        ("forged.json", "does not match its artifacts and settings"),
        ("blank.json", "do not match their fingerprint"),
    ] {
        let dest = p.path().join(format!("dest-{name}"));
        let o = run(bin()
            .current_dir(p.path())
            .args(["export", "--format", "kv", "--since", name, "--dest"])
            .arg(&dest));
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains("is not a manifest askzico wrote"), "{name}: {e}");
        assert!(e.contains(want), "{name}: {e}");
        assert!(!dest.exists(), "{name}: --dest written");
    }
    // A manifest that is askzico's, over a file changed since that the current build does
    // not name.
    std::fs::copy(
        p.path().join("out/manifest.json"),
        p.path().join("old.json"),
    )
    .unwrap();
    let f = p.path().join("big/p001.md");
    let text = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, format!("{text}فقرة جديدة عن الميناء القديم.\n")).unwrap();
    build(p.path());
    let now = manifest(&p.path().join("out"));
    let paths = |m: &Value| -> BTreeSet<String> {
        m["artifacts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["kind"] == "lookup")
            .map(|a| a["path"].as_str().unwrap().to_string())
            .collect()
    };
    let gone = paths(&m).difference(&paths(&now)).next().cloned().unwrap();
    let file = p.path().join("out").join(&gone);
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[10] ^= 1;
    std::fs::remove_file(&file).unwrap();
    std::fs::write(&file, &bytes).unwrap();
    let o = run(bin().current_dir(p.path()).args([
        "export", "--format", "kv", "--since", "old.json", "--dest", "d",
    ]));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("names {gone}, which is missing from")),
        "{}",
        stderr(&o)
    );
    assert!(!p.path().join("d").exists());
}

/// The query settings of a default config, as a deploy stores them.
fn default_settings() -> String {
    use askzico_core::deployed::{EmbedderSpec, QuerySettings, SETTINGS_FORMAT};
    QuerySettings {
        format: SETTINGS_FORMAT,
        retrieval: Default::default(),
        normalize: Default::default(),
        aliases: Vec::new(),
        article_stems: true,
        glossary: Vec::new(),
        embedding: EmbedderSpec {
            provider: "hash".into(),
            dims: 256,
            model: None,
        },
        native_words: askzico::normalize::native_words::SOURCE.into(),
    }
    .to_json()
}

/// An export reads the version its manifest named when it started: when a newer build and
/// `askzico gc --keep 0` remove that version's files under it, it says the build changed and to
/// run it again, and an export of a version whose files are merely missing says to build again.
#[test]
fn an_export_whose_build_is_collected_under_it_says_the_build_changed() {
    let p = sample_project();
    let out = p.path().join("out");
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    let started = askzico::read_manifest(&out, None).unwrap();
    let faq = p.path().join("sources/articles/faq.md");
    let text = std::fs::read_to_string(&faq).unwrap();
    std::fs::write(&faq, format!("{text}\n\nفقرة جديدة عن جمع المخلفات.\n")).unwrap();
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    let gc = run(bin().current_dir(p.path()).args(["gc", "--keep", "0"]));
    assert!(gc.status.success(), "{}", stderr(&gc));
    let e = askzico::kv_version(&out, &started, "", &default_settings()).unwrap_err();
    assert_eq!(e.code, "changed", "{}", e.message);
    assert!(
        e.message
            .contains("the build changed while this command read it"),
        "{}",
        e.message
    );

    // The version in place, with one of its chunk files deleted by hand: a damaged build.
    let now = askzico::read_manifest(&out, None).unwrap();
    let chunks = now
        .artifacts_of(askzico::ArtifactKind::Chunks)
        .next()
        .unwrap();
    std::fs::remove_file(out.join(&chunks.path)).unwrap();
    let e = askzico::kv_version(&out, &now, "", &default_settings()).unwrap_err();
    assert_eq!(e.code, "load", "{}", e.message);
    assert!(
        e.help
            .as_deref()
            .unwrap_or_default()
            .contains("askzico build"),
        "{:?}",
        e.help
    );
}
