//! `askzico bench` on a tiny generated corpus (from ../shared/corpora, read at test time; skips
//! with a printed reason where they are absent): the report has every field, for every kind of
//! run. No timing is asserted (machines are noisy).

mod common;

use common::*;

#[test]
fn bench_reports_cold_noop_and_edit_runs_with_stage_times() {
    let Some(corpora) = shared_corpora("bench_reports_cold_noop_and_edit_runs_with_stage_times") else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = run(bin().args(["bench", "--docs", "20", "--runs", "1", "--json", "--corpora"]).arg(&corpora).arg("--dir").arg(dir.path()));
    assert!(out.status.success(), "{}", stderr(&out));
    let r: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(r["cpus"].as_u64().unwrap() >= 1);
    let sizes = r["sizes"].as_array().unwrap();
    assert_eq!(sizes.len(), 1);
    let z = &sizes[0];
    assert_eq!(z["docs"], 20);
    assert_eq!(z["files"], 20, "one file per generated document");
    assert!(z["source_bytes"].as_u64().unwrap() > 0);
    for kind in ["cold", "noop", "edit"] {
        let s = &z[kind];
        assert_eq!(s["runs"], 1, "{kind}");
        for field in ["wall_ms", "cpu_ms", "max_rss_mb", "mb_per_s"] {
            let v = &s[field];
            assert!(v["median"].as_f64().unwrap() > 0.0, "{kind}.{field}: {v}");
            assert_eq!(v["min"], v["median"], "one run: min = median = max ({kind}.{field})");
            assert_eq!(v["max"], v["median"], "{kind}.{field}");
        }
        let stages: Vec<&str> = s["stages_ms"].as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(stages, ["read", "extract", "chunk", "normalize", "embed", "index", "serialize", "hash", "write", "cache"], "{kind}");
    }
    // What each kind of build did, from the builds' own --stats-json lines.
    assert_eq!(z["cold"]["docs_extracted"]["median"], 20.0);
    assert!(z["cold"]["stages_ms"]["extract"]["median"].as_f64().unwrap() > 0.0, "the cold build extracted, so it timed extraction");
    assert_eq!(z["noop"]["docs_extracted"]["median"], 0.0, "a no-op rebuild extracts nothing");
    assert_eq!(z["noop"]["files_written"]["median"], 0.0, "a no-op rebuild writes nothing");
    assert_eq!(z["edit"]["docs_extracted"]["median"], 1.0, "a one-file edit extracts one document");
    // The edited source is restored, and the generated corpus is kept for the next run.
    let corpus = dir.path().join("corpus-20-seed1");
    assert!(corpus.join(".complete").is_file());
    let again = tempfile::tempdir().unwrap();
    askzico_generate(&corpora, again.path());
    assert_eq!(out_tree(&corpus.join("sources")), out_tree(&again.path().join("sources")), "the edited file is restored");
}

fn askzico_generate(corpora: &std::path::Path, dest: &std::path::Path) {
    let out = run(bin().args(["bench-corpus", "--docs", "20", "--seed", "1", "--corpora"]).arg(corpora).arg("--dest").arg(dest));
    assert!(out.status.success(), "{}", stderr(&out));
}

fn out_tree(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().strip_prefix(dir).unwrap().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect();
    v.sort();
    v
}

#[test]
fn bench_refuses_zero_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(bin().args(["bench", "--docs", "20", "--runs", "0", "--dir"]).arg(dir.path()));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--runs"), "{}", stderr(&out));
}
