//! Chunking invariants on every document of the shared corpora, through the library API so the
//! extracted document text is at hand: chunks are contiguous excerpts, bounded, never empty,
//! and every heading starts or lies inside exactly one chunk, never as its last line.

mod common;

use askzico::Config;
use askzico::chunk;
use askzico::discover;
use askzico::{BlockKind, extract};
use common::*;

fn chunk_invariants_hold_on_every_shared_document() {
    if shared_corpora("chunk_invariants_hold_on_every_shared_document").is_none() {
        return;
    }
    let cfg =
        Config::load(&repo().join("examples/shared-corpora/corpus.toml")).expect("config loads");
    let libs: Vec<_> = cfg.libraries.iter().collect();
    let (files, _) = discover(&cfg, &libs, &cfg.out_dir);
    let (max, min) = (cfg.chunking.max_chars, cfg.chunking.min_chars);
    let mut docs = 0;
    let mut small = Vec::new();
    for f in &files {
        let lib = &cfg.libraries[f.library];
        let bytes = std::fs::read(&f.path).unwrap();
        let ex = extract(
            &f.rel,
            &f.rel,
            &bytes,
            f.format,
            &lib.compile_settings().extract,
            &askzico::Includes::default(),
        );
        for doc in ex.docs {
            docs += 1;
            let body = &doc.body;
            let chunks = chunk(body, &cfg.chunking);
            let name = format!("{}/{}", lib.id, f.rel);
            assert!(
                !chunks.is_empty(),
                "{name}: a document with text has no chunk"
            );
            let mut prev_end = 0;
            for c in &chunks {
                let text = &body.text[c.start..c.end];
                assert!(!text.trim().is_empty(), "{name}: empty chunk");
                assert_eq!(text, text.trim(), "{name}: chunk not trimmed");
                assert!(
                    c.start >= prev_end,
                    "{name}: chunks overlap or go backwards"
                );
                assert!(
                    body.text[prev_end..c.start].trim().is_empty(),
                    "{name}: text between chunks was dropped"
                );
                prev_end = c.end;
                let n = text.chars().count();
                assert!(n <= max, "{name}: chunk of {n} chars over {max}");
                if n < min && chunks.len() > 1 {
                    small.push(format!("{name}: {n} chars"));
                }
            }
            assert!(
                body.text[prev_end..].trim().is_empty(),
                "{name}: text after the last chunk was dropped"
            );
            for b in body
                .blocks
                .iter()
                .filter(|b| matches!(b.kind, BlockKind::Heading(_)))
            {
                let holders: Vec<_> = chunks
                    .iter()
                    .filter(|c| c.start <= b.start && b.end <= c.end)
                    .collect();
                assert_eq!(
                    holders.len(),
                    1,
                    "{name}: heading `{}` is in {} chunks",
                    &body.text[b.start..b.end],
                    holders.len()
                );
                let last_block = body.blocks.last().map(|l| l.end) == Some(b.end);
                assert!(
                    holders[0].end != b.end || last_block,
                    "{name}: heading `{}` is its chunk's last line",
                    &body.text[b.start..b.end]
                );
            }
        }
    }
    assert!(docs > 1000, "only {docs} documents");
    assert!(
        small.is_empty(),
        "chunks under {min} chars that are not whole documents:\n{}",
        small.join("\n")
    );
}

/// A run of at least `n` Arabic letters and spaces from a source line, to look for in evidence.
fn arabic_run(line: &str, n: usize) -> Option<String> {
    let mut best = String::new();
    let mut cur = String::new();
    for c in line.chars() {
        if ('\u{0621}'..='\u{064A}').contains(&c) || c == ' ' {
            cur.push(c);
        } else {
            if cur.trim().chars().count() > best.trim().chars().count() {
                best = cur.clone();
            }
            cur.clear();
        }
    }
    if cur.trim().chars().count() > best.trim().chars().count() {
        best = cur;
    }
    let best = best.trim().to_string();
    (best.chars().count() >= n).then_some(best)
}

fn react_components_keep_their_prose_and_code_blocks_stay_whole() {
    let Some(corpora) =
        shared_corpora("react_components_keep_their_prose_and_code_blocks_stay_whole")
    else {
        return;
    };
    let cfg = Config::load(&repo().join("examples/shared-corpora/corpus.toml")).unwrap();
    let lib = cfg.library("react-ar").unwrap();
    let path = corpora.join("react-dev-ar/src/content/learn/your-first-component.md");
    let src = std::fs::read_to_string(&path).unwrap();
    let ex = extract(
        "learn/your-first-component.md",
        "learn/your-first-component.md",
        src.as_bytes(),
        askzico::Format::Mdx,
        &lib.compile_settings().extract,
        &askzico::Includes::default(),
    );
    assert!(
        ex.problems.iter().all(|p| !p.is_error()),
        "{:?}",
        ex.problems
    );
    let doc = &ex.docs[0];
    let chunks = chunk(&doc.body, &cfg.chunking);
    for tag in ["Intro", "Pitfall", "DeepDive"] {
        let open = format!("<{tag}>");
        let close = format!("</{tag}>");
        let start = src
            .find(&open)
            .unwrap_or_else(|| panic!("no <{tag}> in the source"));
        let inner = &src[start + open.len()..start + src[start..].find(&close).unwrap()];
        let mut checked = 0;
        for line in inner.lines().filter(|l| !l.trim_start().starts_with("```")) {
            if let Some(run) = arabic_run(line, 15) {
                assert!(
                    doc.body.text.contains(&run),
                    "prose inside <{tag}> lost: {run}"
                );
                checked += 1;
            }
        }
        assert!(checked > 0, "no prose found inside <{tag}>");
    }
    // Every fenced code block of the source is one block of evidence, inside a single chunk.
    let mut blocks = 0;
    let mut lines = src.lines();
    while let Some(l) = lines.next() {
        if l.trim_start().starts_with("```") {
            let code: Vec<&str> = lines
                .by_ref()
                .take_while(|x| !x.trim_start().starts_with("```"))
                .collect();
            let code = code.join("\n");
            if code.trim().is_empty() {
                continue;
            }
            blocks += 1;
            assert!(
                chunks
                    .iter()
                    .any(|c| doc.body.text[c.start..c.end].contains(code.trim())),
                "code block lost:\n{code}"
            );
        }
    }
    assert!(blocks >= 3, "only {blocks} code blocks found");
    // By offset: each code block of the evidence lies inside exactly one chunk.
    for b in doc
        .body
        .blocks
        .iter()
        .filter(|b| b.kind == askzico::BlockKind::Code)
    {
        let holders = chunks
            .iter()
            .filter(|c| c.start <= b.start && b.end <= c.end)
            .count();
        assert_eq!(
            holders, 1,
            "code block at {}..{} split across chunks",
            b.start, b.end
        );
    }
}

fn eis1600_article_chunks_hold_the_body_and_no_chrome() {
    let Some(corpora) = shared_corpora("eis1600_article_chunks_hold_the_body_and_no_chrome") else {
        return;
    };
    let cfg = Config::load(&repo().join("examples/shared-corpora/corpus.toml")).unwrap();
    let lib = cfg.library("eis1600").unwrap();
    let src = std::fs::read_to_string(
        corpora.join("eis1600-html-ar/docs/ar/p/description-of-the-project/index.html"),
    )
    .unwrap();
    let ex = extract(
        "p/description-of-the-project/index.html",
        "p/description-of-the-project/index.html",
        src.as_bytes(),
        askzico::Format::Html,
        &lib.compile_settings().extract,
        &askzico::Includes::default(),
    );
    let doc = &ex.docs[0];
    let text: String = chunk(&doc.body, &cfg.chunking)
        .iter()
        .map(|c| &doc.body.text[c.start..c.end])
        .collect::<Vec<_>>()
        .join("\n");
    for chrome in [
        "الوضع الداكن",
        "تُقرأ خلال",
        "English",
        "Deutsch",
        "Русский",
        "فارسى",
    ] {
        assert!(
            !text.contains(chrome),
            "chrome {chrome} leaked into a chunk"
        );
    }
    // The body paragraphs: every long Arabic run inside the article's <p>s is in the chunks.
    let article = &src[src.find("<section class=\"article-content\">").unwrap()..];
    let article = &article[..article.find("</section>").unwrap()];
    let mut found = 0;
    for p in article.split("<p>").skip(1) {
        let p = p.split("</p>").next().unwrap_or("");
        if let Some(run) = arabic_run(p, 30) {
            assert!(text.contains(&run), "body paragraph missing: {run}");
            found += 1;
        }
    }
    assert!(found >= 1);
}

fn main() -> std::process::ExitCode {
    use common::harness::test;
    common::harness::run(vec![
        test(
            "chunk_invariants_hold_on_every_shared_document",
            chunk_invariants_hold_on_every_shared_document,
        )
        .needs(common::harness::shared_corpora),
        test(
            "react_components_keep_their_prose_and_code_blocks_stay_whole",
            react_components_keep_their_prose_and_code_blocks_stay_whole,
        )
        .needs(common::harness::shared_corpora),
        test(
            "eis1600_article_chunks_hold_the_body_and_no_chrome",
            eis1600_article_chunks_hold_the_body_and_no_chrome,
        )
        .needs(common::harness::shared_corpora),
    ])
}
