//! `askzico-bench` on a tiny generated corpus (from ../shared/corpora, read at test time; skips
//! with a printed reason where they are absent): the report has every field, for every kind of
//! run. No timing is asserted (machines are noisy).

mod common;

use common::*;

fn bench_reports_cold_noop_and_edit_runs_with_stage_times() {
    let Some(corpora) = shared_corpora("bench_reports_cold_noop_and_edit_runs_with_stage_times")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = run(bin()
        .args([
            "builds",
            "--docs",
            "20",
            "--runs",
            "1",
            "--json",
            "--corpora",
        ])
        .arg(&corpora)
        .arg("--dir")
        .arg(dir.path()));
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
            assert_eq!(
                v["min"], v["median"],
                "one run: min = median = max ({kind}.{field})"
            );
            assert_eq!(v["max"], v["median"], "{kind}.{field}");
        }
        let stages: Vec<&str> = s["stages_ms"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            stages,
            [
                "read",
                "extract",
                "chunk",
                "normalize",
                "embed",
                "index",
                "serialize",
                "hash",
                "write",
                "cache"
            ],
            "{kind}"
        );
    }
    // What each kind of build did, from the builds' own --stats-json lines.
    assert_eq!(z["cold"]["docs_extracted"]["median"], 20.0);
    assert!(
        z["cold"]["stages_ms"]["extract"]["median"]
            .as_f64()
            .unwrap()
            > 0.0,
        "the cold build extracted, so it timed extraction"
    );
    assert_eq!(
        z["noop"]["docs_extracted"]["median"], 0.0,
        "a no-op rebuild extracts nothing"
    );
    assert_eq!(
        z["noop"]["files_written"]["median"], 0.0,
        "a no-op rebuild writes nothing"
    );
    assert_eq!(
        z["edit"]["docs_extracted"]["median"], 1.0,
        "a one-file edit extracts one document"
    );
    // The edited source is restored, and the generated corpus is kept for the next run.
    let corpus = dir.path().join("corpus-20-seed1");
    assert!(corpus.join(".complete").is_file());
    let again = tempfile::tempdir().unwrap();
    askzico_generate(&corpora, again.path());
    assert_eq!(
        out_tree(&corpus.join("sources")),
        out_tree(&again.path().join("sources")),
        "the edited file is restored"
    );
}

/// A bench stopped during its edit runs leaves the edited source and the saved original behind;
/// the next bench puts the original back before it measures anything.
fn bench_restores_a_source_left_edited_by_a_stopped_bench() {
    let Some(corpora) = shared_corpora("bench_restores_a_source_left_edited_by_a_stopped_bench")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = || {
        run(bin()
            .args([
                "builds",
                "--docs",
                "20",
                "--runs",
                "1",
                "--json",
                "--corpora",
            ])
            .arg(&corpora)
            .arg("--dir")
            .arg(dir.path()))
    };
    assert!(bench().status.success());
    let corpus = dir.path().join("corpus-20-seed1");
    assert!(
        !corpus.join("edited-source.orig").exists(),
        "a finished bench keeps no saved original"
    );
    let pristine = out_tree(&corpus.join("sources"));
    // What a bench killed between an edit and its restore leaves.
    let mut md: Vec<_> = std::fs::read_dir(corpus.join("sources/md"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    md.sort();
    let original = std::fs::read(&md[0]).unwrap();
    std::fs::write(corpus.join("edited-source.orig"), &original).unwrap();
    std::fs::write(
        &md[0],
        [
            original.as_slice(),
            "\n\nجملة تركها قياس متوقف.\n".as_bytes(),
        ]
        .concat(),
    )
    .unwrap();
    let out = bench();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("restoring"), "{}", stderr(&out));
    assert_eq!(
        out_tree(&corpus.join("sources")),
        pristine,
        "the edited source is back to the generated bytes"
    );
    assert!(!corpus.join("edited-source.orig").exists());
}

/// A corpus kept from an older generator is made again before it is measured: a bench of
/// today's binary never times yesterday's documents under today's name.
fn bench_regenerates_a_corpus_an_older_generator_made() {
    let Some(corpora) = shared_corpora("bench_regenerates_a_corpus_an_older_generator_made") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = || {
        run(bin()
            .args([
                "builds",
                "--docs",
                "20",
                "--runs",
                "1",
                "--json",
                "--corpora",
            ])
            .arg(&corpora)
            .arg("--dir")
            .arg(dir.path()))
    };
    assert!(bench().status.success());
    let corpus = dir.path().join("corpus-20-seed1");
    let marker = std::fs::read_to_string(corpus.join(".complete")).unwrap();
    assert!(
        marker.starts_with("generator "),
        "the marker names the generator version: {marker:?}"
    );
    let pristine = out_tree(&corpus.join("sources"));
    // What an older generator left: other documents, marked complete by an older version.
    std::fs::write(corpus.join(".complete"), b"").unwrap();
    std::fs::write(
        corpus.join("sources/md/stale.md"),
        "# قديم\n\nوثيقة من مولد أقدم.\n",
    )
    .unwrap();
    let out = bench();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("generating the corpus"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        out_tree(&corpus.join("sources")),
        pristine,
        "today's generator's documents, and only those"
    );
    assert_eq!(
        std::fs::read_to_string(corpus.join(".complete")).unwrap(),
        marker
    );
    // Kept when current: the next bench does not generate again.
    let out = bench();
    assert!(
        !stderr(&out).contains("generating the corpus"),
        "{}",
        stderr(&out)
    );
}

/// `bench --micro` on a small generated corpus: every component on every set of documents,
/// single-threaded, with sizes that add up. No timing is asserted.
fn bench_micro_reports_every_component_per_set() {
    let Some(corpora) = shared_corpora("bench_micro_reports_every_component_per_set") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    askzico_generate(&corpora, dir.path());
    let out = run(bin()
        .args(["micro", "--runs", "2", "--json", "--config"])
        .arg(dir.path().join("corpus.toml")));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("| all | 20 |"),
        "the table goes to stderr with --json: {}",
        stderr(&out)
    );
    let r: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(r["runs"], 2);
    assert_eq!(r["threads"], 1);
    let sets = r["sets"].as_array().unwrap();
    let all = sets.last().unwrap();
    assert_eq!(all["set"], "all");
    assert_eq!(all["docs"], 20, "every generated document is extracted");
    let parts: u64 = sets[..sets.len() - 1]
        .iter()
        .map(|s| s["docs"].as_u64().unwrap())
        .sum();
    assert_eq!(parts, 20, "the other sets split the documents");
    assert!(
        all["chunk_bytes"].as_u64().unwrap() > 0
            && all["chunk_bytes"].as_u64() <= all["body_bytes"].as_u64()
    );
    for set in sets {
        let names: Vec<&str> = set["measures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["component"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "chunk",
                "normalize (build)",
                "search_text",
                "conservative",
                "stem",
                "word_extras",
                "stem_key"
            ],
            "{}",
            set["set"]
        );
        for m in set["measures"].as_array().unwrap() {
            for field in ["mb_per_s", "wall_mb_per_s", "ms"] {
                let v = &m[field];
                assert!(
                    v["median"].as_f64().unwrap() > 0.0,
                    "{}.{}: {v}",
                    m["component"],
                    field
                );
                assert!(
                    v["min"].as_f64() <= v["median"].as_f64()
                        && v["median"].as_f64() <= v["max"].as_f64()
                );
            }
        }
    }
}

fn bench_micro_usage_errors() {
    let out = run(bin().args(["micro", "--runs", "0"]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = run(bin().args(["builds", "--config", "corpus.toml"]));
    assert_eq!(
        out.status.code(),
        Some(2),
        "--config is micro's: {}",
        stderr(&out)
    );
    let dir = tempfile::tempdir().unwrap();
    let out = run(bin()
        .args(["micro", "--config"])
        .arg(dir.path().join("missing.toml")));
    assert_eq!(
        out.status.code(),
        Some(2),
        "a config error: {}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("missing.toml"),
        "names the config: {}",
        stderr(&out)
    );
}

fn askzico_generate(corpora: &std::path::Path, dest: &std::path::Path) {
    let out = run(bin()
        .args(["corpus", "--docs", "20", "--seed", "1", "--corpora"])
        .arg(corpora)
        .arg("--dest")
        .arg(dest));
    assert!(out.status.success(), "{}", stderr(&out));
}

fn out_tree(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path()
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

fn bench_refuses_zero_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(bin()
        .args(["builds", "--docs", "20", "--runs", "0", "--dir"])
        .arg(dir.path()));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--runs"), "{}", stderr(&out));
}

/// The generator writes only into a new or empty folder, or one it made: a folder holding a
/// file it did not write, or one it made whose `sources` is a link, is refused (exit 2), named,
/// and left as it was.
fn corpus_refuses_a_folder_it_did_not_make_and_a_linked_one() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("mine")).unwrap();
    std::fs::write(p.join("mine/corpus.toml"), "mine").unwrap();
    let corpus = |dest: &str| {
        run(bin().current_dir(p).args([
            "corpus",
            "--docs",
            "2",
            "--corpora",
            "nowhere",
            "--dest",
            dest,
        ]))
    };
    // The message as one line (the terminal rendering wraps it).
    let said = |out: &std::process::Output| {
        stderr(out)
            .replace('│', " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let out = corpus("mine");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        said(&out).contains("--dest mine: mine/corpus.toml was not written by the generator"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(p.join("mine/corpus.toml")).unwrap(),
        "mine"
    );

    std::fs::create_dir_all(p.join("gen")).unwrap();
    std::fs::write(
        p.join("gen/.askzico-bench-corpus"),
        "askzico bench corpus\n\nEverything here was written by `askzico-bench corpus` and is made again by it.\n",
    )
    .unwrap();
    std::fs::create_dir_all(p.join("elsewhere")).unwrap();
    std::os::unix::fs::symlink("../elsewhere", p.join("gen/sources")).unwrap();
    let out = corpus("gen");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        said(&out).contains("gen/sources is not a real folder (a symbolic link or a file)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_dir(p.join("elsewhere")).unwrap().count(), 0);
}

/// `corpus --records` writes files of 10,000 records and the mapping that reads them: askzico
/// builds one document per record, under the record's ID.
fn corpus_records_build_one_document_per_record() {
    let Some(corpora) = shared_corpora("corpus_records_build_one_document_per_record") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("gen");
    let out = run(bin()
        .args(["corpus", "--records", "10005", "--corpora"])
        .arg(&corpora)
        .arg("--dest")
        .arg(&dest));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("10005 records"),
        "{}",
        stdout(&out)
    );
    let files = std::fs::read_dir(dest.join("sources/records"))
        .unwrap()
        .count();
    assert_eq!(files, 2, "files of 10,000 records");
    let askzico =
        std::path::Path::new(env!("CARGO_BIN_EXE_askzico-bench")).with_file_name("askzico");
    let mut build = assert_cmd::Command::new(askzico);
    let out = run(build
        .args(["build", "--json", "--config"])
        .arg(dest.join("corpus.toml"))
        .arg("--out")
        .arg(dest.join("out")));
    assert!(out.status.success(), "{}", stderr(&out));
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dest.join("out/manifest.json")).unwrap()).unwrap();
    assert_eq!(
        manifest["libraries"][0]["docs"], 10005,
        "{}",
        manifest["libraries"]
    );
}

fn main() -> std::process::ExitCode {
    use common::harness::test;
    common::harness::run(vec![
        test(
            "bench_reports_cold_noop_and_edit_runs_with_stage_times",
            bench_reports_cold_noop_and_edit_runs_with_stage_times,
        )
        .needs(common::harness::shared_corpora),
        test(
            "bench_restores_a_source_left_edited_by_a_stopped_bench",
            bench_restores_a_source_left_edited_by_a_stopped_bench,
        )
        .needs(common::harness::shared_corpora),
        test(
            "bench_regenerates_a_corpus_an_older_generator_made",
            bench_regenerates_a_corpus_an_older_generator_made,
        )
        .needs(common::harness::shared_corpora),
        test(
            "bench_micro_reports_every_component_per_set",
            bench_micro_reports_every_component_per_set,
        )
        .needs(common::harness::shared_corpora),
        test("bench_micro_usage_errors", bench_micro_usage_errors),
        test("bench_refuses_zero_runs", bench_refuses_zero_runs),
        test(
            "corpus_records_build_one_document_per_record",
            corpus_records_build_one_document_per_record,
        )
        .needs(common::harness::shared_corpora),
        test(
            "corpus_refuses_a_folder_it_did_not_make_and_a_linked_one",
            corpus_refuses_a_folder_it_did_not_make_and_a_linked_one,
        ),
    ])
}
