use super::*;

#[test]
fn median_min_max() {
    assert_eq!(Summary::of(&[]), None);
    assert_eq!(
        Summary::of(&[3.0]),
        Some(Summary {
            median: 3.0,
            min: 3.0,
            max: 3.0
        })
    );
    assert_eq!(
        Summary::of(&[5.0, 1.0, 3.0]),
        Some(Summary {
            median: 3.0,
            min: 1.0,
            max: 5.0
        })
    );
    assert_eq!(
        Summary::of(&[4.0, 1.0, 2.0, 10.0]),
        Some(Summary {
            median: 3.0,
            min: 1.0,
            max: 10.0
        })
    );
}

#[test]
fn formatting() {
    assert_eq!(
        fmt(
            &Summary {
                median: 1234.4,
                min: 1000.2,
                max: 1500.9
            },
            " ms"
        ),
        "1234 ms [1000–1501]"
    );
    assert_eq!(
        fmt(
            &Summary {
                median: 12.34,
                min: 12.31,
                max: 12.349
            },
            " MB"
        ),
        "12.3 MB"
    );
    assert_eq!(
        fmt(
            &Summary {
                median: 9.96,
                min: 9.9,
                max: 150.0
            },
            ""
        ),
        "10.0 [9.9–150]"
    );
}

fn run(wall: f64, rss: f64, read_ms: f64) -> Run {
    Run {
        wall_ms: wall,
        user_ms: wall,
        sys_ms: 10.0,
        max_rss_mb: rss,
        stages_ms: vec![("read".into(), read_ms)],
        stats: serde_json::json!({"files_read": 20, "docs_extracted": 20, "shards_written": 7}),
    }
}

#[test]
fn series_and_table() {
    let runs = [
        run(1000.0, 300.0, 50.0),
        run(3000.0, 310.0, 70.0),
        run(2000.0, 305.0, 60.0),
    ];
    let s = Series::of(&runs, 10_000_000).unwrap();
    assert_eq!(
        s.wall_ms,
        Summary {
            median: 2000.0,
            min: 1000.0,
            max: 3000.0
        }
    );
    assert_eq!(s.cpu_ms.median, 2010.0);
    assert_eq!(
        s.mb_per_s,
        Summary {
            median: 5.0,
            min: 10.0 / 3.0,
            max: 10.0
        }
    );
    assert_eq!(s.stages_ms["read"]["median"], 60.0);
    assert!(
        !s.stages_ms.contains_key("write"),
        "a stage no run reported is left out"
    );
    let report = Report {
        cpus: 2,
        note: NOTE,
        sizes: vec![SizeReport {
            docs: 20,
            seed: 1,
            files: 20,
            source_bytes: 10_000_000,
            load_average_before: "1.00 2.00 3.00".into(),
            load_average_after: "1.50 2.00 3.00".into(),
            cold: s.clone(),
            noop: s.clone(),
            edit: s,
            watch: WatchSeries {
                saves: 3,
                ms: Summary {
                    median: 80.0,
                    min: 60.0,
                    max: 120.0,
                },
                files_written: Summary {
                    median: 9.0,
                    min: 5.0,
                    max: 12.0,
                },
                bytes_written_mb: Summary {
                    median: 8.0,
                    min: 7.5,
                    max: 9.0,
                },
            },
        }],
    };
    let t = render_table(&report);
    assert!(t.contains("20 docs (20 files, 10.0 MB of source, seed 1); 2 cpus; load average 1.00 2.00 3.00 before"), "{t}");
    assert!(t.contains("| cold build (3 runs) | 2000 ms [1000–3000] | 2010 ms [1010–3010] | 305 MB [300–310] | 5.0 [3.3–10.0] | 20 | 20 | 7 |"), "{t}");
    assert!(t.contains("| read | 60.0 [50.0–70.0] |"), "{t}");
    assert!(t.contains("| `build --watch`, edit → new manifest (3 saves) | 80.0 ms [60.0–120] | | | | 1 | 1 | 9.0 [5.0–12.0] (8.0 MB [7.5–9.0] written) |"), "{t}");
    assert!(Series::of(&[], 1).is_none());
}
