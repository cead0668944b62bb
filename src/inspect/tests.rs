use super::boilerplate::allowed;
use super::*;

fn rec(lib: &str, doc: &str, i: usize, title: &str, url: &str, text: &str) -> ChunkRecord {
    let mut metadata = serde_json::Map::new();
    metadata.insert("heading_path".into(), serde_json::json!([title]));
    metadata.insert("span".into(), serde_json::json!([0, text.len()]));
    ChunkRecord {
        doc_id: format!("{lib}:{doc}"),
        chunk_id: format!("{lib}:{doc}:{i:03}"),
        library: lib.into(),
        source: format!("{lib}/{doc}.md"),
        title: title.into(),
        url: url.into(),
        chunk_index: i,
        domains: vec!["d".into()],
        text: text.into(),
        anchors: Vec::new(),
        search_text: text.into(),
        metadata,
    }
}

fn cx() -> Context {
    Context {
        min_chars: 10,
        max_chars: 1000,
        libraries: ["lib".to_string()].into(),
        domains: ["d".to_string()].into(),
        mdbook_libraries: BTreeSet::new(),
        settings: InspectSettings::default(),
    }
}

fn counts(rs: &[ChunkRecord]) -> BTreeMap<String, usize> {
    check(rs, &[], &cx())
        .into_iter()
        .map(|c| (c.name, c.count))
        .collect()
}

fn good(n: usize) -> Vec<ChunkRecord> {
    (0..n)
        .map(|i| {
            rec(
                "lib",
                &format!("d{i}"),
                0,
                &format!("عنوان {i}"),
                &format!("/p/{i}"),
                &format!("نص عربي سليم رقم {i} في هذه الصفحة"),
            )
        })
        .collect()
}

#[test]
fn good_records_pass_every_check() {
    let c = counts(&good(6));
    assert!(c.values().all(|n| *n == 0), "{c:?}");
    assert_eq!(c.len(), CHECKS.len());
}

#[test]
fn mojibake_signs() {
    assert!(mojibake("Ø§Ù„ÙƒØªØ§Ø¨").is_some());
    assert!(mojibake("cafÃ© au lait").is_some());
    assert!(mojibake("ط§ظ„ظƒطھط§ط¨").is_some());
    assert!(mojibake("الكتاب المقدس").is_none());
    assert!(mojibake("Ångström and naïve café").is_none());
    assert!(mojibake("ط، ظ").is_none());
    // Words ending in ط before curly quotes and dashes are prose.
    assert!(mojibake("لا يمكننا إنشاء ”تاريخ فقط“ أو ”وقتًا فقط“، فقط—هكذا").is_none());
    assert!(mojibake("ظˆ ط§ظ„ظƒطھط§ط¨").is_some());
}

#[test]
fn escapes_and_markup_outside_code_only() {
    assert!(escaped(&prose("حرف \\u0627 هنا")).is_some());
    assert!(escaped(&prose("قال &quot;نعم&quot;")).is_some());
    assert!(escaped(&prose("&#1575;")).is_some());
    assert!(
        escaped(&prose(
            "الكود `\\u0627` هنا\n```js\nconst a = \"&quot;\";\n```"
        ))
        .is_none()
    );
    assert!(escaped(&prose("R&D و AT&T")).is_none());
    assert!(markup(&prose("::: tip")).is_some());
    assert!(markup(&prose("عنوان {#anchor}")).is_some());
    assert!(markup(&prose("نص <div class=\"x\">")).is_some());
    assert!(markup(&prose("import Foo from './foo'")).is_some());
    assert!(
        markup(&prose(
            "استخدم `<div>` هنا\n```jsx\nimport A from 'a'\n<App />\n```"
        ))
        .is_none()
    );
    assert!(markup(&prose("إذا كان a < b و c > d")).is_none());
    assert!(markup(&prose("الكاتب: {{ site.author }}")).is_some());
    assert!(markup(&prose("{% for p in site.posts %}نص")).is_some());
    assert!(
        markup(&prose(
            "انسخ `cp {{path/to/file}} {{dest}}`\n```\n{% raw %}\n```"
        ))
        .is_none()
    );
    assert!(markup(&prose("كائن {} و {{ }} فارغ")).is_none());
    assert!(markup(&prose("راجع {{ \"/about\" | relative_url }}")).is_some());
    // Vue's interpolations, which a VitePress page shows as values, are not Liquid.
    assert!(markup(&prose("العداد: {{ count }} و {{ item.message }}")).is_none());
}

#[test]
fn generator_syntax_outside_code_and_in_an_mdbook_library_anywhere() {
    for bad in [
        "انظر [[ملاحظة|الملاحظة]]",
        "صورة ![[a.png]]",
        "{{#include ../listings/a.rs}}",
        "الحالة:: مسودة",
        "- المؤلف:: أحمد",
        "::: tip",
        "!!! note \"عنوان\"",
        "??? tip",
        "> [!NOTE]",
        "[!warning] انتبه",
        "{% include x.html %}",
    ] {
        assert!(generator_syntax(&prose(bad)).is_some(), "{bad}");
    }
    for good in [
        "{% if x %}\n```\nنص",
        "رائع!!! جدا",
        "الساعة 10:30 و std::vector",
        "مصفوفة `[[1, 2]]` في الشيفرة",
        "```\n{% raw %}\n```",
        "قائمة [1] و[2]",
    ] {
        assert!(generator_syntax(&prose(good)).is_none(), "{good}");
    }
    // In code, a directive is the mdBook library's only.
    let code = "```rust\n{{#include a.rs}}\n```";
    let rs = vec![rec("lib", "a", 0, "a", "/a", code)];
    assert_eq!(counts(&rs)["generator-syntax"], 0);
    let mut c = cx();
    c.mdbook_libraries.insert("lib".into());
    let hit = check(&rs, &[], &c)
        .into_iter()
        .find(|r| r.name == "generator-syntax")
        .unwrap();
    assert_eq!(hit.count, 1);
}

#[test]
fn each_check_fires_on_a_bad_record() {
    let mut rs = good(5);
    rs.push(rec("lib", "moj", 0, "م", "/m", "Ø§Ù„ÙƒØªØ§Ø¨ Ø§Ù„ÙƒØªØ§Ø¨"));
    rs.push(rec("lib", "esc", 0, "e", "/e", "قال &quot;نعم&quot;"));
    rs.push(rec("lib", "rep", 0, "r", "/r", "نص \u{FFFD} مكسور"));
    rs.push(rec("lib", "num", 0, "n", "/n", "123 456 — 789"));
    rs.push(rec("lib", "tag", 0, "t", "/t", "نص <span>هنا</span>"));
    rs.push(rec("lib", "wiki", 0, "w", "/w", "انظر [[ملاحظة]] هنا"));
    rs.push(rec("lib", "two", 0, "two", "/two", "قصير"));
    rs.push(rec(
        "lib",
        "two",
        1,
        "two",
        "/two",
        "نص أطول من الحد الأدنى بكثير",
    ));
    rs.push(rec("lib", "long", 0, "l", "/l", &"ب".repeat(1001)));
    rs.push(rec(
        "lib",
        "cut",
        0,
        "القسم",
        "/c",
        "نص طويل بما يكفي هنا\nالقسم",
    ));
    rs.push(rec("lib", "untitled", 0, "", "/u", "نص بلا عنوان هنا"));
    rs.push(rec("lib", "dup1", 0, "مكرر", "/x1", "نص أول للعنوان"));
    rs.push(rec("lib", "dup2", 0, "مكرر", "/x2", "نص ثان للعنوان"));
    rs.push(rec("lib", "badurl", 0, "b", "page.html", "رابط نسبي خاطئ"));
    rs.push(rec("lib", "same1", 0, "s1", "/same", "رابط مكرر أول"));
    rs.push(rec("lib", "same2", 0, "s2", "/same", "رابط مكرر ثان"));
    rs.push(rec("other", "x", 0, "o", "/o", "مكتبة غير معروفة"));
    let mut d = rec("lib", "dom", 0, "dm", "/dm", "مجال غير معروف");
    d.domains = vec!["nowhere".into()];
    rs.push(d);
    rs.push(rec("lib", &"a".repeat(70), 0, "id", "/id", "معرف طويل جدا"));
    rs.push(rec(
        "lib",
        "common/c~2B~2B",
        0,
        "صفحة محولة",
        "/mapped",
        "معرف محول من اسم ملف",
    ));
    let c = counts(&rs);
    for (name, _) in CHECKS {
        if *name == "boilerplate" || *name == "coverage" {
            continue;
        }
        assert!(c[*name] >= 1, "{name} did not fire: {c:?}");
    }
    assert_eq!(
        c["too-short"], 1,
        "a short chunk that is its whole document is fine"
    );
    assert_eq!(c["duplicate-title"], 1, "one title repeated");
    assert_eq!(c["repeated-url"], 2);
}

#[test]
fn a_line_repeated_inside_page_bodies_is_content_and_at_their_edges_chrome() {
    let formula = "ونسجد له ونمجده ونباركه الآن وكل أوان";
    let body = |i: usize, at_top: bool| {
        let mut lines: Vec<String> = (0..12)
            .map(|j| format!("سطر من متن الفصل {i} رقم {j} يختلف عن غيره"))
            .collect();
        lines.insert(if at_top { 1 } else { 6 }, formula.to_string());
        lines.join("\n")
    };
    for (at_top, flagged) in [(false, 0), (true, 1)] {
        let rs: Vec<ChunkRecord> = (0..6)
            .map(|i| {
                rec(
                    "lib",
                    &format!("d{i}"),
                    0,
                    &format!("t{i}"),
                    &format!("/p{i}"),
                    &body(i, at_top),
                )
            })
            .collect();
        let res = check(&rs, &[], &cx());
        let b = res.iter().find(|c| c.name == "boilerplate").unwrap();
        assert_eq!(b.count, flagged, "at the top: {at_top}: {b:?}");
    }
    // The same line closing each page's last chunk is chrome too (a "next page" block).
    let rs: Vec<ChunkRecord> = (0..6)
        .flat_map(|i| {
            let first = rec(
                "lib",
                &format!("d{i}"),
                0,
                "t",
                "/p",
                &format!("بداية الصفحة {i} بكلام طويل يكفي"),
            );
            let mut text = body(i, false).replace(formula, "سطر آخر مختلف في كل صفحة");
            text.push_str(&format!("\n{formula}"));
            let second = rec("lib", &format!("d{i}"), 1, "t", "/p", &text);
            [first, second]
        })
        .collect();
    let b = check(&rs, &[], &cx())
        .into_iter()
        .find(|c| c.name == "boilerplate")
        .unwrap();
    assert_eq!(b.count, 1, "{b:?}");
}

#[test]
fn boilerplate_needs_share_and_count_and_honours_the_allowlist() {
    let nav = "الرئيسية | المقالات | من نحن | اتصل بنا";
    let mut rs: Vec<ChunkRecord> = (0..5)
        .map(|i| {
            rec(
                "lib",
                &format!("d{i}"),
                0,
                &format!("t{i}"),
                &format!("/p{i}"),
                &format!("{nav}\nنص مختلف رقم {i}"),
            )
        })
        .collect();
    rs.extend(good(10).into_iter().map(|mut r| {
        r.doc_id = format!("{}x", r.doc_id);
        r.chunk_id = format!("{}x", r.chunk_id);
        r.title = format!("{}x", r.title);
        r.url = format!("{}x", r.url);
        r
    }));
    let res = check(&rs, &[], &cx());
    let b = res.iter().find(|c| c.name == "boilerplate").unwrap();
    assert_eq!(b.count, 1, "{b:?}");
    assert!(b.examples[0].excerpt.contains("الرئيسية"));
    let mut c = cx();
    c.settings.allow.insert("lib".into(), vec![nav.into()]);
    assert_eq!(
        check(&rs, &[], &c)
            .iter()
            .find(|c| c.name == "boilerplate")
            .unwrap()
            .count,
        0
    );
    c.settings.allow.clear();
    c.settings.boilerplate_percent = 50.0;
    assert_eq!(
        check(&rs, &[], &c)
            .iter()
            .find(|c| c.name == "boilerplate")
            .unwrap()
            .count,
        0,
        "5 of 15 is under 50%"
    );
    c.settings.boilerplate_percent = 20.0;
    c.settings.boilerplate_min_chunks = 6;
    assert_eq!(
        check(&rs, &[], &c)
            .iter()
            .find(|c| c.name == "boilerplate")
            .unwrap()
            .count,
        0
    );
}

#[test]
fn thresholds_and_coverage() {
    let mut c = cx();
    let p = Problem::error("verify", "chunk x has no lookup record");
    let res = check(&good(3), std::slice::from_ref(&p), &c);
    let cov = res.iter().find(|r| r.name == "coverage").unwrap();
    assert_eq!((cov.count, cov.ok), (1, false));
    c.settings.max.insert("coverage".into(), 1);
    assert!(check(&good(3), &[p], &c).iter().all(|r| r.ok));
    assert_eq!(default_max("too-short", 10, 250), 3);
    assert_eq!(default_max("duplicate-title", 1000, 5000), 10);
    assert_eq!(default_max("mojibake", 1000, 5000), 0);
    assert!(allowed(
        "ارحمنا يا الله",
        "ارحمنا يا الله ثم ارحمنا. يا من في كل وقت"
    ));
    assert!(allowed(
        "الآن وكل أوان وإلى دهر الداهرين آمين",
        "الآن وكل أوان"
    ));
    assert!(!allowed("الآن وكل أوان", "من نحن الآن وكل أوان"));
}

#[test]
fn sample_is_stratified_and_seeded() {
    let mut rs = good(20);
    rs.extend((0..3).map(|i| rec("small", &format!("s{i}"), 0, "s", "/s", "نص")));
    let a = sample(&rs, 5, 7);
    assert_eq!(a.iter().filter(|s| s.library == "lib").count(), 5);
    assert_eq!(a.iter().filter(|s| s.library == "small").count(), 3);
    assert_eq!(a, sample(&rs, 5, 7));
    assert_ne!(a, sample(&rs, 5, 8));
    let long = vec![rec("lib", "x", 0, "t", "/x", &"ب".repeat(2000))];
    assert!(sample(&long, 1, 0)[0].text.chars().count() < 700);
}

#[test]
fn diff_reports_added_removed_changed_and_shifted() {
    let old = vec![
        rec("lib", "a", 0, "a", "/a", "أول"),
        rec("lib", "a", 1, "a", "/a", "ثان"),
        rec("lib", "b", 0, "b", "/b", "باء"),
        rec("lib", "c", 0, "c", "/c", "جيم"),
    ];
    let new = vec![
        rec("lib", "a", 0, "a", "/a", "جديد"),
        rec("lib", "a", 1, "a", "/a", "أول"),
        rec("lib", "a", 2, "a", "/a", "ثان"),
        rec("lib", "b", 0, "b", "/b", "باء"),
        rec("lib", "d", 0, "d", "/d", "دال"),
    ];
    let d = diff(&old, &new, "v1", "v2");
    let l = &d.libraries["lib"];
    assert_eq!(l.docs_added, ["lib:d"]);
    assert_eq!(l.docs_removed, ["lib:c"]);
    assert_eq!(l.docs_changed, ["lib:a"]);
    assert_eq!(l.chunks_added, ["lib:a:002", "lib:d:000"]);
    assert_eq!(l.chunks_removed, ["lib:c:000"]);
    assert_eq!(l.chunks_changed, ["lib:a:000", "lib:a:001"]);
    assert_eq!(
        l.shifted,
        [
            ("lib:a:000".to_string(), "lib:a:001".to_string()),
            ("lib:a:001".to_string(), "lib:a:002".to_string())
        ]
    );
    assert!(diff(&old, &old, "v1", "v1").libraries.is_empty());
}

#[test]
fn html_escapes_everything_shown() {
    assert_eq!(
        html::escape(r#"<script>alert(1)</script>"><img src=x onerror=alert(1)>'&"#),
        "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&#39;&amp;"
    );
    let xss = r#"<script>alert(1)</script>"><img src=x onerror=alert(1)>"#;
    let mut r = rec("lib", "x", 0, xss, "/x", &format!("نص {xss}"));
    r.chunk_id = format!("lib:x:{xss}");
    let checks = check(std::slice::from_ref(&r), &[], &cx());
    let rep = Report {
        corpus: xss.into(),
        corpus_version: "v".into(),
        environment: xss.into(),
        chunks: 1,
        libraries: 1,
        ok: false,
        checks,
        determinism: None,
        warnings: Some(vec![WarningGroup {
            code: "askzico::no-title".into(),
            count: 1,
            instances: vec![serde_json::json!({"file": xss, "line": 1, "message": xss})],
        }]),
        sample: sample(std::slice::from_ref(&r), 1, 0),
        diff: Some(diff(&[], std::slice::from_ref(&r), "a", "b")),
        loanword_keys: Default::default(),
    };
    let h = html::render(&rep);
    assert!(!h.contains("<script"), "{h}");
    assert!(!h.contains("<img"));
    assert!(h.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(h.contains("<html lang=\"ar\" dir=\"rtl\">"));
    assert!(!h.contains("http://") && !h.contains("https://") && !h.contains("<link"));
}
