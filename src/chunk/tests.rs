use super::*;

fn settings(max: usize, min: usize) -> ChunkSettings {
    ChunkSettings {
        max_chars: max,
        min_chars: min,
    }
}

fn body(parts: &[(BlockKind, &str)]) -> Body {
    let mut b = Body::default();
    for (k, t) in parts {
        b.push(*k, t);
    }
    b
}

#[test]
fn a_word_over_the_limit_is_cut_between_grapheme_clusters() {
    for word in [
        "بِسْمِ".repeat(300),
        "👨\u{200d}👩\u{200d}👧\u{200d}👦".repeat(300),
    ] {
        let b = body(&[(BlockKind::Paragraph, &word)]);
        // 499 chars: 83 words of 6 and one letter, 71 families of 7 and two chars.
        let c = chunk(&b, &settings(499, 100));
        assert!(c.len() > 2);
        let mut joined = String::new();
        for x in &c {
            let t = &b.text[x.start..x.end];
            assert!(chars(t) <= 499, "{}", chars(t));
            let first = t.chars().next().unwrap();
            assert!(
                !matches!(first, '\u{64b}'..='\u{652}' | '\u{200d}'),
                "a chunk starts inside a cluster: {first:?}"
            );
            assert!(!t.ends_with('\u{200d}'), "a chunk ends on a joiner");
            joined.push_str(t);
        }
        assert_eq!(joined, word);
    }
}

/// A chunk's anchors: the ids of the headings above its start, then of those inside it.
#[test]
fn a_chunk_carries_the_anchors_of_its_path_and_its_headings() {
    let mut b = Body::default();
    b.push_heading(1, "الأداء", Some("performance"));
    b.push(BlockKind::Paragraph, &"تمهيد ".repeat(30));
    b.push_heading(2, "تحسينات عامة", Some("general-optimizations"));
    b.push(BlockKind::Paragraph, &"نص ".repeat(30));
    b.push_heading(3, "القوائم الكبيرة", Some("virtualize-large-lists"));
    b.push(BlockKind::Paragraph, &"قائمة ".repeat(30));
    b.push_heading(3, "بلا معرف", None);
    b.push(BlockKind::Paragraph, &"كلام ".repeat(30));
    let c = chunk(&b, &settings(400, 50));
    assert_eq!(c.len(), 2, "{c:?}");
    assert_eq!(c[0].heading_path, ["الأداء"]);
    assert_eq!(c[0].anchors, ["performance", "general-optimizations"]);
    // The second starts under the h3 and holds a heading without an id.
    assert_eq!(c[1].heading_path.last().unwrap(), "القوائم الكبيرة");
    assert_eq!(
        c[1].anchors,
        [
            "performance",
            "general-optimizations",
            "virtualize-large-lists"
        ]
    );
    // Each section links to its nearest heading with an id, from where it starts in the
    // chunk's text: the h3 without one links to the h2 above it.
    for ch in &c {
        let text = &b.text[ch.start..ch.end];
        let at = |heading: &str| text.find(heading).unwrap();
        if ch.start == c[0].start {
            assert_eq!(
                ch.section_anchors,
                [
                    (0, "performance".to_string()),
                    (at("تحسينات عامة"), "general-optimizations".to_string())
                ]
            );
        } else {
            assert_eq!(
                ch.section_anchors,
                [
                    (0, "virtualize-large-lists".to_string()),
                    (at("بلا معرف"), "general-optimizations".to_string())
                ]
            );
        }
    }
}

#[test]
fn small_document_is_one_chunk() {
    let b = body(&[
        (BlockKind::Heading(1), "عنوان"),
        (BlockKind::Paragraph, "فقرة قصيرة."),
    ]);
    let c = chunk(&b, &settings(7000, 200));
    assert_eq!(c.len(), 1);
    assert_eq!(&b.text[c[0].start..c[0].end], b.text);
    assert_eq!(c[0].heading_path, vec!["عنوان"]);
}

#[test]
fn a_paragraph_set_as_a_heading_names_no_section() {
    // A converted page marks a whole paragraph `###`: it stays in the text, not in the path.
    let long = "جملة طويلة من مقال كامل ".repeat(10); // 240 chars
    let b = body(&[
        (BlockKind::Heading(1), "عنوان"),
        (BlockKind::Heading(3), long.trim()),
        (BlockKind::Paragraph, "فقرة قصيرة."),
    ]);
    let c = chunk(&b, &settings(7000, 10));
    assert_eq!(c.len(), 1);
    assert!(b.text[c[0].start..c[0].end].contains(long.trim()));
    assert_eq!(c[0].heading_path, vec!["عنوان"]);
}

#[test]
fn sections_split_at_headings_and_heading_travels_with_content() {
    let para = "كلمة ".repeat(150); // 750 chars
    let b = body(&[
        (BlockKind::Heading(1), "عنوان"),
        (BlockKind::Paragraph, &para),
        (BlockKind::Heading(2), "القسم الأول"),
        (BlockKind::Paragraph, &para),
        (BlockKind::Heading(2), "القسم الثاني"),
        (BlockKind::Paragraph, &para),
    ]);
    let c = chunk(&b, &settings(1400, 100));
    assert_eq!(c.len(), 3);
    assert!(b.text[c[1].start..].starts_with("القسم الأول"));
    assert!(b.text[c[2].start..].starts_with("القسم الثاني"));
    assert_eq!(c[2].heading_path, vec!["عنوان", "القسم الثاني"]);
    for x in &c {
        assert!(chars(&b.text[x.start..x.end]) <= 1400);
    }
}

#[test]
fn oversized_paragraph_splits_at_sentences_never_inside_words() {
    let sentence = "هذه جملة عربية طويلة نسبيا تنتهي بنقطة. ";
    let para = sentence.repeat(60);
    let b = body(&[
        (BlockKind::Heading(2), "قسم"),
        (BlockKind::Paragraph, &para),
    ]);
    let c = chunk(&b, &settings(500, 100));
    assert!(c.len() > 4);
    assert!(b.text[c[0].start..].starts_with("قسم"));
    for x in &c {
        let t = &b.text[x.start..x.end];
        assert!(chars(t) <= 500, "{}", chars(t));
        assert!(t.ends_with('.'), "{t}");
    }
}

#[test]
fn a_small_tail_takes_from_the_chunk_before_when_it_cannot_merge() {
    // A section of paragraphs that fills one chunk and leaves a 65-character tail, and a
    // last section too small to stand alone after a full chunk.
    let para = "كلمة ".repeat(40); // 200 chars
    let tail = "ج".repeat(65);
    let mut parts = vec![(BlockKind::Heading(2), "قسم")];
    parts.extend(std::iter::repeat_n(
        (BlockKind::Paragraph, para.as_str()),
        5,
    ));
    parts.push((BlockKind::Paragraph, tail.as_str()));
    let b = body(&parts);
    let c = chunk(&b, &settings(1000, 150));
    assert_eq!(c.len(), 2);
    for x in &c {
        let n = chars(&b.text[x.start..x.end]);
        assert!((150..=1000).contains(&n), "{n}");
    }
    assert!(b.text[c[0].start..].starts_with("قسم"));
    assert_eq!(c[1].heading_path, vec!["قسم"]);
    assert_eq!(c[1].end, b.text.len());
    // A sentence-split paragraph: the tail takes whole sentences.
    let sentence = "هذه جملة عربية طويلة نسبيا تنتهي بنقطة. ";
    let para = format!("{}{}", sentence.repeat(12), "ذيل.");
    let b = body(&[(BlockKind::Paragraph, para.as_str())]);
    let c = chunk(&b, &settings(480, 100));
    for x in &c {
        let t = &b.text[x.start..x.end];
        assert!((100..=480).contains(&chars(t)), "{}", chars(t));
        assert!(t.ends_with('.'), "{t}");
    }
}

#[test]
fn code_block_is_not_split_when_it_fits() {
    let code = format!("```js\n{}```", "let x = 1;\n".repeat(40));
    let b = body(&[
        (BlockKind::Paragraph, &"نص ".repeat(100)),
        (BlockKind::Code, &code),
    ]);
    let c = chunk(&b, &settings(500, 50));
    assert!(
        c.iter()
            .any(|x| &b.text[x.start..x.end] == code.trim_matches('\n'))
    );
}

#[test]
fn heading_only_documents_stay_bounded() {
    let mut b = Body::default();
    for i in 0..3000 {
        b.push(
            BlockKind::Heading(1 + (i % 3) as u8),
            &format!("عنوان رقم {i}"),
        );
    }
    b.push(BlockKind::Heading(2), &"ح".repeat(20_000));
    for c in chunk(&b, &settings(1000, 100)) {
        assert!(chars(&b.text[c.start..c.end]) <= 1000);
    }
}

/// Found by the `chunk` fuzz target: with a tiny `max`, a heading carried into the first
/// part of the next block made a chunk over the limit (and a budget of 0 could never end).
#[test]
fn a_carried_heading_never_pushes_a_chunk_over_a_tiny_max() {
    let b = body(&[
        (BlockKind::Heading(2), "ab"),
        (BlockKind::Paragraph, "cdefgh ijk"),
    ]);
    for max in 1..12 {
        let c = chunk(&b, &settings(max, 0));
        assert!(!c.is_empty());
        for x in &c {
            assert!(
                chars(&b.text[x.start..x.end]) <= max,
                "max {max}: {:?}",
                &b.text[x.start..x.end]
            );
        }
    }
}

#[test]
fn heading_is_never_last() {
    let para = "كلمة ".repeat(90);
    let b = body(&[
        (BlockKind::Paragraph, &para),
        (BlockKind::Heading(2), "فارغ"),
        (BlockKind::Heading(3), "فرعي"),
        (BlockKind::Paragraph, &para),
    ]);
    for max in [460, 500, 900, 1000] {
        for x in chunk(&b, &settings(max, 10)) {
            let t = &b.text[x.start..x.end];
            assert!(
                !t.ends_with("فارغ") && !t.ends_with("فرعي"),
                "max {max}: {t}"
            );
        }
    }
}
