//! Chunking invariants on every document of the shared corpora, through the library API so the
//! extracted document text is at hand: chunks are contiguous excerpts, bounded, never empty,
//! and every heading starts or lies inside exactly one chunk, never as its last line.

mod common;

use askzico::chunk::chunk;
use askzico::config::Config;
use askzico::discover::discover;
use askzico::extract::{BlockKind, extract};
use common::*;

#[test]
fn chunk_invariants_hold_on_every_shared_document() {
    if shared_corpora("chunk_invariants_hold_on_every_shared_document").is_none() {
        return;
    }
    let cfg = Config::load(&repo().join("examples/shared-corpora/corpus.toml")).expect("config loads");
    let libs: Vec<_> = cfg.libraries.iter().collect();
    let (files, _) = discover(&cfg, &libs, &cfg.out_dir);
    let (max, min) = (cfg.chunking.max_chars, cfg.chunking.min_chars);
    let mut docs = 0;
    let mut small = Vec::new();
    for f in &files {
        let lib = &cfg.libraries[f.library];
        let bytes = std::fs::read(&f.path).unwrap();
        let ex = extract(&f.rel, &bytes, f.format, lib);
        for doc in ex.docs {
            docs += 1;
            let body = &doc.body;
            let chunks = chunk(body, &cfg.chunking);
            let name = format!("{}/{}", lib.id, f.rel);
            assert!(!chunks.is_empty(), "{name}: a document with text has no chunk");
            let mut prev_end = 0;
            for c in &chunks {
                let text = &body.text[c.start..c.end];
                assert!(!text.trim().is_empty(), "{name}: empty chunk");
                assert_eq!(text, text.trim(), "{name}: chunk not trimmed");
                assert!(c.start >= prev_end, "{name}: chunks overlap or go backwards");
                assert!(body.text[prev_end..c.start].trim().is_empty(), "{name}: text between chunks was dropped");
                prev_end = c.end;
                let n = text.chars().count();
                assert!(n <= max, "{name}: chunk of {n} chars over {max}");
                if n < min && chunks.len() > 1 {
                    small.push(format!("{name}: {n} chars"));
                }
            }
            assert!(body.text[prev_end..].trim().is_empty(), "{name}: text after the last chunk was dropped");
            for b in body.blocks.iter().filter(|b| matches!(b.kind, BlockKind::Heading(_))) {
                let holders: Vec<_> = chunks.iter().filter(|c| c.start <= b.start && b.end <= c.end).collect();
                assert_eq!(holders.len(), 1, "{name}: heading `{}` is in {} chunks", &body.text[b.start..b.end], holders.len());
                let last_block = body.blocks.last().map(|l| l.end) == Some(b.end);
                assert!(holders[0].end != b.end || last_block, "{name}: heading `{}` is its chunk's last line", &body.text[b.start..b.end]);
            }
        }
    }
    assert!(docs > 1000, "only {docs} documents");
    assert!(small.is_empty(), "chunks under {min} chars that are not whole documents:\n{}", small.join("\n"));
}
