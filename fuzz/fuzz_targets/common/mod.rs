//! What every fuzz target shares: the repo's own `corpus.toml` (its libraries give each format
//! a real mapping), and the checks of the extractor and chunker invariants.
#![allow(dead_code)]

use std::path::Path;
use std::sync::LazyLock;

use askzico::compile_file;
use askzico::{ChunkSettings, ChunkSpan, chunk};
use askzico::Config;
use askzico::HashEmbedder;
use askzico::{Body, BlockKind, Format, Includes, extract};

/// The sample project's config (its library roots must exist: they are the repo's `sources/`).
pub static CONFIG: LazyLock<Config> = LazyLock::new(|| {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus.toml");
    Config::load(&path).unwrap_or_else(|e| panic!("the repo's corpus.toml must load: {e:?}"))
});

static HASH: LazyLock<HashEmbedder> = LazyLock::new(|| HashEmbedder::new(CONFIG.embedding.dims));

/// Chunk settings every extracted document is cut with: the config's, and small ones that
/// force splitting at blocks, lines, sentences, words and inside words.
pub fn settings() -> Vec<ChunkSettings> {
    vec![
        CONFIG.chunking.clone(),
        ChunkSettings { max_chars: 300, min_chars: 100 },
        ChunkSettings { max_chars: 40, min_chars: 10 },
        ChunkSettings { max_chars: 3, min_chars: 0 },
    ]
}

/// One source file through extraction (asserting the body and chunk invariants of every
/// document) and through the whole per-file core (`compile_file`: identity, normalization,
/// inline embedding), which must not panic either.
pub fn check_file(library: &str, rel: &str, format: Format, bytes: &[u8]) {
    let cfg = &*CONFIG;
    let lib = cfg.library(library).expect("library in corpus.toml").compile_settings();
    let ex = extract(rel, rel, bytes, format, &lib.extract, &Includes::default());
    for doc in &ex.docs {
        check_body(&doc.body);
        for s in settings() {
            check_chunks(&doc.body, &chunk(&doc.body, &s), &s);
        }
    }
    let _ = compile_file(
        &cfg.compile_settings(),
        &lib,
        rel,
        bytes,
        format,
        &Includes::default(),
        Some(&HASH),
    );
}

/// A body's blocks are ordered, non-overlapping, non-empty ranges on char boundaries.
pub fn check_body(body: &Body) {
    let mut prev = 0;
    for b in &body.blocks {
        assert!(b.start >= prev && b.start < b.end && b.end <= body.text.len(), "bad block range {b:?}");
        assert!(body.text.is_char_boundary(b.start) && body.text.is_char_boundary(b.end), "block off a char boundary {b:?}");
        assert!(!body.block_text(b).trim().is_empty(), "empty block {b:?}");
        prev = b.end;
    }
    assert!(body.text[prev..].trim().is_empty(), "text after the last block");
}

/// The chunk invariants (as in tests/chunking.rs): every chunk a non-empty, trimmed,
/// contiguous excerpt of the body text, at most `max_chars` long, in order, nothing but
/// whitespace between or around them; a body with text has a chunk; a heading that fits in
/// half a chunk lies inside exactly one chunk.
pub fn check_chunks(body: &Body, chunks: &[ChunkSpan], s: &ChunkSettings) {
    let text = body.text.as_str();
    let max = s.max_chars.max(1);
    if !text.trim().is_empty() {
        assert!(!chunks.is_empty(), "a body with text has no chunk");
    }
    let mut prev_end = 0;
    for c in chunks {
        assert!(c.start >= prev_end && c.start < c.end && c.end <= text.len(), "chunk {c:?} overlaps, goes backwards or is empty");
        assert!(text.is_char_boundary(c.start) && text.is_char_boundary(c.end), "chunk {c:?} off a char boundary");
        let t = &text[c.start..c.end];
        assert!(!t.trim().is_empty(), "empty chunk {c:?}");
        assert_eq!(t, t.trim(), "chunk not trimmed");
        assert!(text[prev_end..c.start].trim().is_empty(), "text dropped between chunks: {:?}", &text[prev_end..c.start]);
        let n = t.chars().count();
        assert!(n <= max, "chunk of {n} chars over {max}");
        prev_end = c.end;
    }
    assert!(text[prev_end..].trim().is_empty(), "text after the last chunk dropped");
    for b in body.blocks.iter().filter(|b| matches!(b.kind, BlockKind::Heading(_))) {
        if body.block_text(b).chars().count() * 2 > max {
            continue; // a long heading is itself split
        }
        let holders = chunks.iter().filter(|c| c.start <= b.start && b.end <= c.end).count();
        assert_eq!(holders, 1, "heading {:?} lies in {holders} chunks (max {max})", body.block_text(b));
    }
}
