use super::snippet::MESSAGE_MAX;
use super::*;

fn render(p: &Problem) -> String {
    let mut s = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_width(10_000)
        .render_report(&mut s, p)
        .unwrap();
    s
}

/// A value the message quotes and a source line the snippet shows reach the terminal with
/// their control characters as text: `\u{…}` in words, a control picture in the snippet,
/// the label still under the span.
#[test]
fn control_characters_are_shown_not_sent() {
    let text = "a = 1\ntitle = \"\u{1b}[2J\u{1b}]0;x\u{7}\" bad\r\nz = 2\r\n";
    let at = text.find("bad").unwrap();
    let p = Problem::error("t", "title \u{1b}[2J is bad")
        .in_file("f.toml")
        .help("no \u{1b}]0;title\u{7} here")
        .with_span(&Arc::from(text), at..at + 3, "this \u{1b}[2J");
    let out = render(&p);
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    assert!(out.contains("title \\u{1b}[2J is bad"), "{out}");
    assert!(out.contains("no \\u{1b}]0;title\\u{7} here"), "{out}");
    assert!(out.contains("this \\u{1b}[2J"), "{out}");
    assert!(out.contains("\"␛[2J␛]0;x␇\" bad"), "{out}");
    assert!(!out.contains('␍'), "the CR of a CRLF stays: {out}");
    // The label points at `bad`: its column under the picture line is that of `bad`.
    let line = out.lines().find(|l| l.contains("␛[2J")).unwrap();
    let mark = out
        .lines()
        .skip_while(|l| !l.contains("␛[2J"))
        .nth(1)
        .unwrap();
    let col = |s: &str, i: usize| s[..i].chars().count();
    let under = mark.find(['─', '┬']).unwrap();
    assert_eq!(
        col(line, line.find("bad").unwrap()),
        col(mark, under),
        "{out}"
    );
}

fn problem(text: &str, span: std::ops::Range<usize>) -> Problem {
    Problem::error("t", "bad")
        .in_file("f.toml")
        .with_span(&Arc::from(text), span, "here")
}

/// A warning read back from a stamp renders as it did, code frame included, whether its
/// frame held the whole file or an excerpt of long lines.
#[test]
fn a_stored_warning_renders_as_the_original() {
    let warn = |text: &str, span: std::ops::Range<usize>| {
        Problem::warning("t", "odd")
            .in_file("f.md")
            .help("fix it")
            .with_span(&Arc::from(text), span, "here")
    };
    let long = format!("a\nb = \"{}\" oops\nc\n", "ت".repeat(5000));
    let at = long.find("oops").unwrap();
    let text = "l1\nl2\nl3 bad\nl4\nl5\nl6\n";
    let cases = [
        warn(text, 9..12),
        warn(text, 0..2),
        warn(text, 15..18),
        warn(&long, at..at + 4),
        Problem::warning("t", "no frame").in_file("g.md").at_line(3),
        Problem::note("draft", "a draft").in_file("d.md"),
    ];
    for p in cases {
        let json = serde_json::to_string(&p.to_stored().unwrap()).unwrap();
        let back = Problem::from_stored(serde_json::from_str(&json).unwrap());
        assert_eq!(render(&back), render(&p));
        assert_eq!(back.headline(), p.headline());
        assert_eq!(back.to_json(), p.to_json());
        assert_eq!(back.level, p.level);
    }
    assert!(Problem::error("t", "bad").to_stored().is_none());
    // A hand-edited stamp: a span outside its text, or inside a letter, loses the frame.
    let mut w = warn(text, 9..12).to_stored().unwrap();
    for span in [(1000, 5), (usize::MAX, 2), (1, 1)] {
        let mut f = w.frame.clone().unwrap();
        f.text = if span == (1, 1) { "ت".into() } else { f.text };
        f.span = span;
        w.frame = Some(f);
        let back = Problem::from_stored(w.clone());
        assert!(back.span.is_none() && render(&back).contains("odd"));
    }
}

/// Short lines are shown from the file itself, as they always were.
#[test]
fn short_lines_are_shown_whole() {
    let text = "a = 1\nb = oops\nc = 3\n";
    let p = problem(text, 10..14);
    assert!(matches!(
        p.source.as_deref().map(NamedSource::inner),
        Some(Snippet::Whole(_))
    ));
    let r = render(&p);
    assert!(r.contains("[f.toml:2:5]"), "{r}");
    for line in ["1 │ a = 1", "2 │ b = oops", "3 │ c = 3"] {
        assert!(r.contains(line), "{r}");
    }
}

/// A 5 MB line is cut to a window around the span; line, column and context are the file's.
#[test]
fn a_long_line_is_cut_around_the_span() {
    let long = "ت".repeat(1_000_000);
    let text = format!(
        "a = 1\nb = \"{long}\" oops tail{}\nc = 3\n",
        "x".repeat(1000)
    );
    let at = text.find("oops").unwrap();
    let p = problem(&text, at..at + 4);
    assert_eq!(p.line, Some(2));
    let r = render(&p);
    assert!(r.len() < 2000, "{} bytes:\n{r}", r.len());
    assert!(r.contains(&format!("[f.toml:2:{}]", at - 6 + 1)), "{r}");
    assert!(r.contains("1 │ a = 1") && r.contains("3 │ c = 3"), "{r}");
    let line2 = r.lines().find(|l| l.contains("2 │")).unwrap();
    assert!(
        line2.contains("…تت") && line2.contains("\" oops tail"),
        "{line2}"
    );
    assert!(line2.ends_with("x…"), "{line2}");
    // The label is under `oops`, at its place in the cut line.
    let marker = r.lines().find(|l| l.contains('┬')).unwrap();
    assert!(marker.ends_with("──┬─"), "{r}");
    let col = |l: &str, pat: &str| l[..l.find(pat).unwrap()].chars().count();
    assert_eq!(col(marker, "──┬─"), col(line2, "oops"), "{r}");
}

/// Long context lines are cut as well, and a span at the start of a line keeps its start.
#[test]
fn long_context_lines_are_cut() {
    let text = format!("{}\nbad\n{}\n", "y".repeat(100_000), "z".repeat(100_000));
    let at = text.find("bad").unwrap();
    let r = render(&problem(&text, at..at + 3));
    assert!(r.len() < 2000, "{} bytes:\n{r}", r.len());
    assert!(r.contains("[f.toml:2:1]"), "{r}");
    assert!(r.contains("2 │ bad"), "{r}");
    assert!(r.contains("yyy…") && r.contains("zzz…"), "{r}");
}

/// A span over many lines is shown by its first; one over a long line ends at its window.
#[test]
fn long_spans_are_clipped() {
    let text: String = (0..10_000).map(|i| format!("k{i} = {i}\n")).collect();
    let r = render(&problem(&text, 0..text.len()));
    assert!(r.lines().count() < 20, "{r}");
    assert!(r.contains("1 │ k0 = 0"), "{r}");
    let text = format!("v = \"{}\"\n", "ب".repeat(1_000_000));
    let r = render(&problem(&text, 4..text.len() - 1));
    assert!(r.len() < 2000, "{} bytes:\n{r}", r.len());
    assert!(r.contains("[f.toml:1:5]"), "{r}");
}

/// Spans cut inside a character, empty texts and spans past the end never panic.
#[test]
fn odd_spans_are_safe() {
    let long = format!("{}\n", "ع".repeat(10_000));
    for (text, span) in [
        (long.as_str(), 1..3),
        (long.as_str(), 5001..5001),
        (long.as_str(), 0..usize::MAX),
        (long.as_str(), 20_001..20_001),
        ("", 0..0),
        ("x", 5..9),
    ] {
        render(&problem(text, span));
    }
}

/// One line per kind, the most frequent first; a kind seen once shows its headline; a file
/// with several warnings of a kind is named once; folders every file shares are dropped.
/// Listing a kind's files is linear in its warnings: counted in comparisons, 20k files
/// (each warned twice) cost a few per warning, not one per pair of files.
#[test]
fn distinct_files_are_found_in_linear_work() {
    use std::cell::Cell;
    thread_local!(static EQ_CALLS: Cell<usize> = const { Cell::new(0) });
    #[derive(Clone, Copy)]
    struct File(usize);
    impl std::hash::Hash for File {
        fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
            self.0.hash(h);
        }
    }
    impl PartialEq for File {
        fn eq(&self, o: &Self) -> bool {
            EQ_CALLS.with(|c| c.set(c.get() + 1));
            self.0 == o.0
        }
    }
    impl Eq for File {}
    let n = 20_000;
    let files = super::first_seen((0..2 * n).map(|i| File(i % n)));
    assert_eq!(files.len(), n);
    assert!(files.iter().enumerate().all(|(i, f)| f.0 == i));
    let calls = EQ_CALLS.with(Cell::get);
    assert!(calls <= 4 * n, "{calls} comparisons for {} warnings", 2 * n);
}

#[test]
fn warnings_are_summarised_one_line_per_kind() {
    let mut ps = Problems::default();
    for i in 0..5 {
        ps.push(Problem::warning("empty", "nothing").in_file(format!("site/docs/e{i}.md")));
    }
    for _ in 0..2 {
        ps.push(Problem::warning("no-title", "no title").in_file("site/docs/r.json"));
    }
    ps.push(Problem::warning("mdx-fallback", "read as Markdown").in_file("site/docs/x.mdx"));
    ps.push(Problem::error("frontmatter", "bad").in_file("site/docs/bad.md"));
    assert_eq!(
        ps.warning_summary(),
        [
            "⚠ askzico::empty: 5 warnings, e.g. e0.md, e1.md, e2.md, …",
            "⚠ askzico::no-title: 2 warnings in 1 file, e.g. r.json",
            "⚠ askzico::mdx-fallback: site/docs/x.mdx: read as Markdown",
            "  (one line per kind of warning: `--verbose` prints each in full; `--json` and \
             `askzico inspect` list every one)",
        ]
    );
    assert!(
        Problems(vec![Problem::error("e", "x")])
            .warning_summary()
            .is_empty()
    );
    // Files that shorten alike are named once each as shown.
    let mut ps = Problems::default();
    for dir in ["aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc"] {
        for sub in ["one", "two"] {
            ps.push(
                Problem::warning("empty", "nothing")
                    .in_file(format!("site/{dir}/{sub}/archive/index.html")),
            );
        }
    }
    ps.push(Problem::warning("empty", "nothing").in_file("site/x.md"));
    assert_eq!(
        ps.warning_summary()[0],
        "⚠ askzico::empty: 7 warnings, e.g. …/one/archive/index.html, …/two/archive/index.html, x.md, …"
    );
}

#[test]
fn example_files_keep_their_last_segments() {
    assert_eq!(short_file("a.md"), "a.md");
    assert_eq!(short_file("docs/ar/404.html"), "docs/ar/404.html");
    assert_eq!(
        short_file("eis1600-html-ar/docs/ar/categories/general/page/1/index.html"),
        "…/general/page/1/index.html"
    );
    let long = format!("dir/{}.md", "x".repeat(50));
    assert_eq!(short_file(&long), format!("…/{}.md", "x".repeat(50)));
    assert_eq!(common_dir(["a/b/c.md", "a/b/d/e.md"].into_iter()), 4);
    assert_eq!(common_dir(["a/bc/x.md", "a/bd/y.md"].into_iter()), 2);
    assert_eq!(common_dir(["x.md", "a/y.md"].into_iter()), 0);
    // أ and ا share their first byte: the shared part ends at a character, then at its `/`
    assert_eq!(
        common_dir(["category/أهمية/index.html", "category/الأعمال/index.html"].into_iter()),
        "category/".len()
    );
}

#[test]
fn a_huge_message_is_cut() {
    let p = Problem::error("t", format!("unknown key `{}`", "k".repeat(5_000_000)));
    assert!(p.message.len() <= MESSAGE_MAX + 40, "{}", p.message.len());
    assert!(p.message.starts_with("unknown key `kkk") && p.message.ends_with("kkk`"));
    assert!(p.message.contains("… (4934478 bytes cut) …"));
    // Long lists stay whole.
    let list = vec!["src/a-long-source-name.md"; 1000].join(", ");
    assert_eq!(Problem::error("t", list.clone()).message, list);
}
