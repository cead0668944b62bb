//! Arbitrary bodies (blocks of any kind and text, as extractors push them) and chunk settings:
//! the chunker never panics and keeps its invariants.
#![no_main]

mod common;

use askzico::ChunkSettings;
use askzico::{BlockKind, Body};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (u16, u16, Vec<(u8, String)>)| {
    let (max, min, blocks) = input;
    let mut body = Body::default();
    for (k, t) in &blocks {
        let kind = match k % 8 {
            0 => BlockKind::Paragraph,
            1 => BlockKind::List,
            2 => BlockKind::Quote,
            3 => BlockKind::Code,
            4 => BlockKind::Table,
            _ => BlockKind::Heading(1 + (k / 8) % 6),
        };
        body.push(kind, t);
    }
    common::check_body(&body);
    let s = ChunkSettings { max_chars: usize::from(max % 2048), min_chars: usize::from(min % 1024) };
    let chunks = askzico::chunk(&body, &s);
    common::check_chunks(&body, &chunks, &s);
});
