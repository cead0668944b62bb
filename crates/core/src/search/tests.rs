use super::*;
use proptest::prelude::*;

#[test]
fn a_word_counts_its_best_expansion_plus_a_tie_fraction_of_the_rest() {
    let parts = [1.0, 3.0, 2.0];
    assert!((word_score(&parts, 1.0) - 6.0).abs() < 1e-12);
    assert!((word_score(&parts, 0.0) - 3.0).abs() < 1e-12);
    assert!((word_score(&parts, 0.5) - 4.5).abs() < 1e-12);
    assert_eq!(word_score(&[], 0.5), 0.0);
    // Ten weak expansions of one word do not outweigh one strong match when tie is 0.
    assert!(word_score(&[0.5; 10], 0.0) < word_score(&[2.0], 0.0));
}

fn ranker(retrieval: &RetrievalSettings, tables: Tables) -> Ranker<'_> {
    let normalize: &'static crate::normalize::Rules = Box::leak(Box::default());
    let aliases: &'static crate::normalize::aliases::AliasTable = Box::leak(Box::default());
    let glossary: &'static crate::normalize::glossary::Glossary = Box::leak(Box::default());
    Ranker::new(
        Settings {
            retrieval,
            normalize,
            aliases,
            article_stems: false,
            glossary,
        },
        tables,
    )
}

/// Tables of chunks `c00`…`c59`, chunk `i` on page `d{i % pages}`.
fn paged(pages: usize) -> Tables {
    let chunks = (0..60)
        .map(|i| {
            let id = format!("c{i:02}");
            let info = crate::tables::ChunkInfo {
                chunk_id: id.clone(),
                doc_id: format!("d{}", i % pages),
                url: String::new(),
                source: String::new(),
                library: String::new(),
                domains: Vec::new(),
                date: None,
                fields: Vec::new(),
            };
            (id, info)
        })
        .collect();
    Tables {
        chunks,
        ..Tables::default()
    }
}

proptest! {
    /// Whatever order the second stage gives its candidates, every chunk the top `k` pages of
    /// the fused ranking show (best chunks and sections) is among the records
    /// `needs(Some(k))` names, so one bulk read serves the answer.
    #[test]
    fn the_records_named_for_k_results_cover_every_reordering_of_the_second_stage(
        pages in 1usize..12,
        lex_n in 0usize..40,
        vec_ids in proptest::collection::vec(0usize..60, 0..30),
        rerank_depth in 0usize..30,
        depth in 1usize..25,
        k in 1usize..12,
        shuffle in proptest::collection::vec(any::<u32>(), 40),
        vector_weight in prop_oneof![Just(0.0), Just(0.02), Just(1.0)],
    ) {
        let retrieval = RetrievalSettings {
            depth,
            rerank_depth,
            vector_weight,
            ..RetrievalSettings::default()
        };
        let r = ranker(&retrieval, paged(pages));
        let lex: Ranking = (0..lex_n).map(|i| (format!("c{i:02}"), 100.0 - i as f64)).collect();
        let mut vec: Ranking = Vec::new();
        for (i, v) in vec_ids.iter().enumerate() {
            let id = format!("c{v:02}");
            if !vec.iter().any(|(x, _)| *x == id) {
                vec.push((id, 1.0 - i as f64 / 100.0));
            }
        }
        let plan = r.plan("", &[], Mode::Fused);
        let mut scored = r.rank(plan, &Shards::new(), vec).unwrap();
        scored.lex = lex;
        scored.rerank = retrieval.rerank_depth.min(scored.lex.len());
        let need = scored.needs(&r, Some(k));
        // Any reordering of the candidates the second stage reads.
        let mut reordered = scored.lex.clone();
        let head = &mut reordered[..scored.rerank];
        let mut keyed: Vec<(u32, (String, f64))> =
            head.iter().cloned().zip(&shuffle).map(|(x, s)| (*s, x)).collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.0.cmp(&b.1.0)));
        for (slot, (_, x)) in head.iter_mut().zip(keyed) {
            *slot = x;
        }
        let top = r.fuse(&scored, &reordered);
        let shown = r.pages(&top, k);
        prop_assert!(shown.len() <= k);
        let docs: BTreeSet<&str> = shown.iter().map(|p| r.page_of(&top[p[0]].0)).collect();
        prop_assert_eq!(docs.len(), shown.len(), "a page is shown twice");
        for page in &shown {
            prop_assert!(page.len() <= 1 + SECTIONS);
            for &i in page {
                let id = &top[i].0;
                prop_assert!(need.contains(id), "{id} is shown in the top {k} pages but not named: {need:?}");
            }
        }
        // Without a second stage nothing moves: the records named are the top k pages' chunks,
        // no more.
        if scored.rerank == 0 {
            let mut want: Vec<String> =
                shown.iter().flatten().map(|&i| top[i].0.clone()).collect();
            want.sort();
            prop_assert_eq!(&need, &want);
        }
    }
}

#[test]
fn a_section_url_links_the_heading_the_match_lies_under() {
    let anchors = vec![
        (0, String::new()),
        (40, "declaring-methods".to_string()),
        (90, "الدوال".to_string()),
    ];
    let page = "https://vue.test/guide/reactivity";
    assert_eq!(section_url(page, &anchors, 10), page);
    assert_eq!(
        section_url(page, &anchors, 40),
        "https://vue.test/guide/reactivity#declaring-methods"
    );
    assert_eq!(
        section_url(&format!("{page}#old"), &anchors, 95),
        "https://vue.test/guide/reactivity#%D8%A7%D9%84%D8%AF%D9%88%D8%A7%D9%84"
    );
    assert_eq!(
        section_url(&format!("{page}#old"), &anchors, 0),
        format!("{page}#old")
    );
    assert_eq!(section_url(page, &[], 1000), page);
}
