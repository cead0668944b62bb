//! Snapshot tests (insta) of extraction and chunking on the repo's own `sources/` — never on the
//! shared corpora. A change to what the extractor emits or where chunks fall shows up here as a
//! reviewable diff (`cargo insta review`); CI never accepts snapshots by itself.

mod common;

use std::fmt::Write;

use askzico::Config;
use askzico::chunk;
use askzico::discover;
use askzico::{BlockKind, extract};
use common::repo;

#[test]
fn extraction_and_chunking_of_every_sample_source() {
    let cfg = Config::load(&repo().join("corpus.toml")).expect("the repo config loads");
    let libs: Vec<_> = cfg.libraries.iter().collect();
    let (files, _) = discover(&cfg, &libs, &cfg.out_dir);
    assert!(files.len() >= 12);
    for f in &files {
        let lib = &cfg.libraries[f.library];
        let ex = extract(
            &f.rel,
            &f.rel,
            &std::fs::read(&f.path).unwrap(),
            f.format,
            &lib.compile_settings().extract,
            &askzico::Includes::default(),
        );
        let mut snap = String::new();
        for p in &ex.problems {
            writeln!(snap, "problem: {}", p.headline()).unwrap();
        }
        for doc in &ex.docs {
            writeln!(
                snap,
                "== document {}",
                doc.record_slug
                    .as_deref()
                    .or(doc.slug_override.as_deref())
                    .unwrap_or("(file slug)")
            )
            .unwrap();
            writeln!(snap, "title: {}", doc.title.as_deref().unwrap_or("")).unwrap();
            if !doc.metadata.is_empty() {
                writeln!(
                    snap,
                    "metadata: {}",
                    serde_json::Value::Object(doc.metadata.clone())
                )
                .unwrap();
            }
            writeln!(snap, "blocks:").unwrap();
            for b in &doc.body.blocks {
                let kind = match b.kind {
                    BlockKind::Heading(l) => format!("h{l}"),
                    other => format!("{other:?}").to_lowercase(),
                };
                let text: String = doc.body.block_text(b).chars().take(60).collect();
                writeln!(
                    snap,
                    "  {kind:<9} {:>5}..{:<5} {}",
                    b.start,
                    b.end,
                    text.replace('\n', "⏎")
                )
                .unwrap();
            }
            for c in chunk(&doc.body, &cfg.chunking) {
                let text = &doc.body.text[c.start..c.end];
                writeln!(
                    snap,
                    "-- chunk {}..{} ({} chars) [{}]",
                    c.start,
                    c.end,
                    text.chars().count(),
                    c.heading_path.join(" › ")
                )
                .unwrap();
                writeln!(snap, "{text}").unwrap();
            }
        }
        let name = format!("{}__{}", lib.id, f.rel.replace(['/', '.'], "_"));
        insta::assert_snapshot!(name, snap);
    }
}
