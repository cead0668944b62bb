//! Every input the fuzz targets found crashing or hanging (tests/fuzz_regressions/, the
//! extension names the format) extracts without a panic, keeps the body and chunk invariants,
//! and builds through the binary with diagnostics only (no `panicked at`, exit 0 or 1).

mod common;

use std::path::PathBuf;

use askzico::Config;
use askzico::{BlockKind, Format, extract};
use askzico::{ChunkSettings, chunk};
use common::*;

/// (file, format, library of the sample project that reads that format)
fn cases() -> Vec<(PathBuf, Format, &'static str)> {
    let mut v: Vec<_> = std::fs::read_dir(repo().join("tests/fuzz_regressions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let (f, lib) = match p.extension()?.to_str()? {
                "md" => (Format::Markdown, "articles"),
                "mdx" => (Format::Mdx, "guides"),
                "html" => (Format::Html, "site"),
                "json" => (Format::Json, "seneksar"),
                _ => return None,
            };
            Some((p, f, lib))
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(!v.is_empty(), "no regression inputs found");
    v
}

#[test]
fn fuzz_regressions_extract_and_chunk_with_invariants() {
    let cfg = Config::load(&repo().join("corpus.toml")).unwrap();
    for (path, format, lib) in cases() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let lib = cfg.library(lib).unwrap().compile_settings();
        let ex = extract(
            &name,
            &name,
            &bytes,
            format,
            &lib.extract,
            &askzico::Includes::default(),
        );
        for doc in &ex.docs {
            let body = &doc.body;
            for s in [
                cfg.chunking.clone(),
                ChunkSettings {
                    max_chars: 40,
                    min_chars: 10,
                },
            ] {
                let chunks = chunk(body, &s);
                assert!(
                    !chunks.is_empty(),
                    "{name}: a document with text has no chunk"
                );
                let mut prev = 0;
                for c in &chunks {
                    let t = &body.text[c.start..c.end];
                    assert!(
                        !t.is_empty() && t == t.trim(),
                        "{name}: empty or untrimmed chunk"
                    );
                    assert!(
                        c.start >= prev && body.text[prev..c.start].trim().is_empty(),
                        "{name}: text dropped or overlap"
                    );
                    assert!(
                        t.chars().count() <= s.max_chars,
                        "{name}: chunk over {}",
                        s.max_chars
                    );
                    prev = c.end;
                }
                assert!(
                    body.text[prev..].trim().is_empty(),
                    "{name}: text after the last chunk dropped"
                );
                for b in body
                    .blocks
                    .iter()
                    .filter(|b| matches!(b.kind, BlockKind::Heading(_)))
                {
                    if body.block_text(b).chars().count() * 2 <= s.max_chars {
                        assert_eq!(
                            chunks
                                .iter()
                                .filter(|c| c.start <= b.start && b.end <= c.end)
                                .count(),
                            1,
                            "{name}: heading split"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn fuzz_regressions_build_without_a_panic() {
    let p = sample_project();
    for (path, _, lib) in cases() {
        let dest = p
            .path()
            .join("sources")
            .join(lib)
            .join(path.file_name().unwrap());
        std::fs::copy(&path, dest).unwrap();
    }
    let o = run(bin().current_dir(p.path()).arg("build")); // `run` asserts no `panicked at`
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "exit {:?}: {}",
        o.status.code(),
        stderr(&o)
    );
}

#[test]
fn mdx_that_crashes_the_mdx_parser_is_read_as_markdown_with_a_warning() {
    let cfg = Config::load(&repo().join("corpus.toml")).unwrap();
    let bytes =
        std::fs::read(repo().join("tests/fuzz_regressions/mdx-adjacent-setext-underlines.mdx"))
            .unwrap();
    let lib = cfg.library("guides").unwrap().compile_settings();
    let ex = extract(
        "x.mdx",
        "x.mdx",
        &bytes,
        Format::Mdx,
        &lib.extract,
        &askzico::Includes::default(),
    );
    assert!(
        ex.problems.iter().any(|p| p.code == "mdx-fallback"
            && p.message.contains("markdown-rs bug")
            && !p.is_error()),
        "{:?}",
        ex.problems
    );
    assert_eq!(ex.docs.len(), 1);
}
