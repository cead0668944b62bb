//! `askzico inspect` driven like a user: crafted bad sources make each check fire, the repo's
//! sample corpus passes, the HTML report (escaped, a summary first, Arabic labels, code left
//! to right, laid out in Chromium at 1400 and 360 px), determinism and `--against`.

mod common;

use std::path::Path;

use common::*;

const NAV: &str = "الرئيسية | المقالات | من نحن | اتصل بنا";
const PROSE: &str = "هذه فقرة عربية سليمة تتحدث عن تاريخ المدينة القديمة وأسواقها وأهلها، وتصف الحياة اليومية فيها بتفصيل يكفي لمقطع كامل من النص المقروء.";

fn project(files: &[(&str, String)], inspect: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let toml = format!(
        "[corpus]\nname = \"t\"\nout = \"out\"\n\n[[library]]\nid = \"docs\"\nroot = \"src\"\ninclude = [\"**/*.md\"]\ndomains = [\"web\"]\nurl = \"/docs/{{slug}}\"\n{inspect}"
    );
    std::fs::write(dir.path().join("corpus.toml"), toml).unwrap();
    for (name, body) in files {
        let p = dir.path().join("src").join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    }
    dir
}

fn doc(title: &str, body: &str) -> String {
    format!("---\ntitle: \"{title}\"\n---\n\n{body}\n")
}

fn build(dir: &Path) {
    let o = run(bin()
        .args(["build", "--config"])
        .arg(dir.join("corpus.toml")));
    assert!(o.status.success(), "build failed:\n{}", stderr(&o));
}

fn inspect(dir: &Path, extra: &[&str]) -> std::process::Output {
    run(bin()
        .args(["inspect", "--config"])
        .arg(dir.join("corpus.toml"))
        .args(extra))
}

fn checks(o: &std::process::Output) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(&stdout(o))
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", stdout(o)));
    v
}

fn count(v: &serde_json::Value, name: &str) -> u64 {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name}"))["count"]
        .as_u64()
        .unwrap()
}

fn bad_sources_fire_their_checks_and_exit_1() {
    let mut files: Vec<(&str, String)> = vec![
        ("a.md", doc("أ", &format!("{NAV}\n\nأ {PROSE}"))),
        ("b.md", doc("ب", &format!("{NAV}\n\nب {PROSE}"))),
        ("c.md", doc("ج", &format!("{NAV}\n\nج {PROSE}"))),
        ("d.md", doc("د", &format!("{NAV}\n\nد {PROSE}"))),
        ("e.md", doc("هـ", &format!("{NAV}\n\nهـ {PROSE}"))),
    ];
    files.push((
        "moj.md",
        doc("مشوه", "Ø§Ù„ÙƒØªØ§Ø¨ Ø§Ù„Ù…Ù‚Ø¯Ø³ ÙÙŠ Ø§Ù„Ù…ÙƒØªØ¨Ø©"),
    ));
    files.push((
        "esc.md",
        doc(
            "مهرب",
            &format!("و {PROSE}\n\nحرف \\u0627 في النص بدل الألف"),
        ),
    ));
    files.push(("dup1.md", doc("عنوان مكرر", &format!("ز {PROSE}"))));
    files.push(("dup2.md", doc("عنوان مكرر", &format!("ح {PROSE}"))));
    let dir = project(&files, "\n[inspect]\nmax = { duplicate-title = 0 }\n");
    build(dir.path());
    let o = inspect(dir.path(), &["--no-rebuild"]);
    assert_eq!(o.status.code(), Some(1), "{}\n{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    for name in [
        "mojibake",
        "escaped-prose",
        "boilerplate",
        "duplicate-title",
    ] {
        assert!(
            text.lines().any(|l| l.contains(name) && l.contains("FAIL")),
            "{name} not failing:\n{text}"
        );
    }
    assert!(text.contains("inspect: FAILED"));
    let v = checks(&inspect(
        dir.path(),
        &["--no-rebuild", "--json", "--sample", "0"],
    ));
    assert_eq!(count(&v, "boilerplate"), 1);
    assert!(count(&v, "mojibake") >= 1 && count(&v, "escaped-prose") >= 1);
    for name in [
        "replacement-char",
        "markup",
        "bad-url",
        "repeated-url",
        "long-id",
        "coverage",
        "unknown-domain",
    ] {
        assert_eq!(count(&v, name), 0, "{name} fired on good records");
    }
    let b = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "boilerplate")
        .unwrap();
    assert!(
        b["examples"][0]["excerpt"]
            .as_str()
            .unwrap()
            .contains("الرئيسية")
    );
    assert_eq!(v["ok"], false);

    // The allowlist accepts the line; thresholds lift the others.
    let toml = std::fs::read_to_string(dir.path().join("corpus.toml")).unwrap().replace(
        "max = { duplicate-title = 0 }",
        &format!("max = {{ mojibake = 1, escaped-prose = 1, duplicate-title = 1 }}\n[inspect.allow]\ndocs = [\"{NAV}\"]"),
    );
    std::fs::write(dir.path().join("corpus.toml"), toml).unwrap();
    let o = inspect(dir.path(), &["--no-rebuild", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(count(&checks(&o), "boilerplate"), 0);
}

fn sample_corpus_passes_with_a_deterministic_rebuild() {
    let dir = sample_project();
    build(dir.path());
    let o = inspect(dir.path(), &["--json", "--seed", "3"]);
    assert_eq!(o.status.code(), Some(0), "{}\n{}", stdout(&o), stderr(&o));
    let v = checks(&o);
    assert_eq!(v["checks"].as_array().unwrap().len(), 19);
    assert_eq!(v["determinism"]["equal"], true, "{}", v["determinism"]);
    assert_eq!(v["determinism"]["built"], v["corpus_version"]);
    let sample = v["sample"].as_array().unwrap();
    for lib in ["articles", "guides", "site", "seneksar"] {
        let n = sample.iter().filter(|s| s["library"] == lib).count();
        assert!((1..=5).contains(&n), "{lib}: {n}");
    }
    assert!(
        sample
            .iter()
            .all(|s| s["span"].is_array() && s["search_text"].is_string())
    );
    // Same seed, same sample.
    let again = checks(&inspect(
        dir.path(),
        &["--json", "--seed", "3", "--no-rebuild"],
    ));
    assert_eq!(again["sample"], v["sample"]);
    assert!(again["determinism"].is_null());
    // The human output names every check and the verdict.
    let text = stdout(&inspect(dir.path(), &["--no-rebuild", "--sample", "1"]));
    assert!(
        text.contains("── search_text")
            && text.contains("inspect: ok")
            && text.contains("coverage")
    );
    // The libraries are the build's, not the sample's.
    assert_eq!(v["libraries"], 4);
    let text = stdout(&inspect(dir.path(), &["--no-rebuild", "--sample", "0"]));
    assert!(text.contains("chunks, 4 libraries"), "{text}");
}

fn html_report_escapes_an_xss_payload() {
    let title = "<script>alert(1)</script>";
    let body = format!("{PROSE}\n\nنص فيه `\"><img src=x onerror=alert(1)>` داخل الجملة.");
    let dir = project(&[("x.md", doc(title, &body))], "");
    build(dir.path());
    let html = dir.path().join("report.html");
    let o = inspect(
        dir.path(),
        &["--no-rebuild", "--html", html.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let h = std::fs::read_to_string(&html).unwrap();
    assert!(h.starts_with("<!DOCTYPE html>") && h.contains("<html lang=\"ar\" dir=\"rtl\">"));
    assert!(
        h.contains("\"Noto Naskh Arabic\"")
            && h.contains("overflow-wrap:anywhere")
            && h.contains("white-space:pre-wrap")
    );
    assert!(
        !h.contains("<script") && !h.contains("<img"),
        "unescaped payload in the report"
    );
    assert!(h.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(h.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"));
    assert!(
        !h.contains("<link") && !h.contains("src=\"http") && !h.contains("@import"),
        "the report fetches nothing"
    );
}

fn against_shows_the_edited_document_as_changed() {
    let files: Vec<(&str, String)> = vec![
        ("one.md", doc("واحد", PROSE)),
        ("two.md", doc("اثنان", &format!("{PROSE} اثنان"))),
    ];
    let dir = project(&files, "");
    build(dir.path());
    let v1 = manifest(&dir.path().join("out"))["corpus_version"]
        .as_str()
        .unwrap()
        .to_string();
    std::fs::write(
        dir.path().join("src/two.md"),
        doc(
            "اثنان",
            "فقرة جديدة تماما كتبت بعد البناء الأول لتغيير النص.",
        ),
    )
    .unwrap();
    build(dir.path());
    let old = dir.path().join(format!("out/versions/{v1}.json"));
    let o = inspect(
        dir.path(),
        &["--no-rebuild", "--json", "--against", old.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = checks(&o);
    assert_eq!(v["diff"]["from"], v1.as_str());
    let lib = &v["diff"]["libraries"]["docs"];
    assert_eq!(lib["docs_changed"], serde_json::json!(["docs:two"]));
    assert_eq!(lib["chunks_changed"], serde_json::json!(["docs:two:000"]));
    assert_eq!(lib["docs_added"], serde_json::json!([]));
    let text = stdout(&inspect(
        dir.path(),
        &[
            "--no-rebuild",
            "--sample",
            "0",
            "--against",
            old.to_str().unwrap(),
        ],
    ));
    assert!(text.contains("docs changed: docs:two"), "{text}");
    // A stale build is reported by the determinism rebuild.
    std::fs::write(
        dir.path().join("src/one.md"),
        doc("واحد", "تعديل بعد البناء الأخير."),
    )
    .unwrap();
    let o = inspect(dir.path(), &["--json", "--sample", "0"]);
    assert_eq!(o.status.code(), Some(1));
    let d = &checks(&o)["determinism"];
    assert_eq!(d["equal"], false);
    assert!(d["note"].as_str().unwrap().contains("changed since"), "{d}");
}

fn inspect_config_is_validated() {
    let dir = project(
        &[("x.md", doc("س", PROSE))],
        "\n[inspect]\nmax = { mojibak = 0 }\n[inspect.allow]\nnope = [\"x\"]\n",
    );
    let o = inspect(dir.path(), &["--no-rebuild"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("unknown inspect check `mojibak`") && e.contains("unknown library `nope`"),
        "{e}"
    );
    let dir = project(
        &[("x.md", doc("س", PROSE))],
        "\n[inspect]\nboilerplate_percent = 0\ncolour = 1\n",
    );
    let o = inspect(dir.path(), &["--no-rebuild"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

fn shared_corpora_inspect_clean() {
    let Some(_) = shared_corpora("shared_corpora_inspect_clean") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let config = repo().join("examples/shared-corpora/corpus.toml");
    let o = run(bin()
        .args(["build", "--config"])
        .arg(&config)
        .arg("--out")
        .arg(&out));
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(bin()
        .args(["inspect", "--no-rebuild", "--json", "--config"])
        .arg(&config)
        .arg("--out")
        .arg(&out));
    let v = checks(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        serde_json::to_string_pretty(&v["checks"]).unwrap()
    );
    assert_eq!(
        v["checks"].as_array().unwrap().len(),
        19,
        "every check listed"
    );
    let b = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "boilerplate")
        .unwrap();
    assert!(
        b["examples"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| !e["chunk_id"].as_str().unwrap().starts_with("eis1600:")),
        "eis1600 chrome leaked: {b}"
    );
}

/// A report whose `mojibake` check fails over a document with a code block.
fn failing_report_project() -> tempfile::TempDir {
    project(
        &[
            (
                "moj.md",
                doc("مشوه", "Ø§Ù„ÙƒØªØ§Ø¨ Ø§Ù„Ù…Ù‚Ø¯Ø³ ÙÙŠ Ø§Ù„Ù…ÙƒØªØ¨Ø©"),
            ),
            (
                "code.md",
                doc(
                    "تطبيق Vue",
                    &format!(
                        "{PROSE}\n\n```vue\nconst app = createApp({{}})\n```\n\nثم نستدعي `app.mount('#app')` في الصفحة."
                    ),
                ),
            ),
        ],
        "",
    )
}

fn html_report_opens_with_a_summary_in_arabic_with_code_left_to_right() {
    let dir = failing_report_project();
    build(dir.path());
    let html = dir.path().join("report.html");
    let o = inspect(
        dir.path(),
        &["--no-rebuild", "--html", html.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("wrote the report to {}", html.display())),
        "{}",
        stderr(&o)
    );
    assert!(!stdout(&o).contains("wrote the report"));
    let h = std::fs::read_to_string(&html).unwrap();

    // The summary comes first, before every other section, and names the failing check first.
    let summary = h.find("<section id=\"summary\"").expect("a summary");
    let first_h2 = h.find("<h2").unwrap();
    assert!(summary < first_h2, "the summary is not first");
    assert!(!h[..summary].contains("<section"));
    let end = summary + h[summary..].find("</section>").unwrap();
    let s = &h[summary..end];
    let first_row = &s[s.find("<tr class=").unwrap()..];
    let first_row = &first_row[..first_row.find("</tr>").unwrap()];
    assert!(
        first_row.starts_with("<tr class=\"fail\">")
            && first_row.contains("ترميز مشوَّه")
            && first_row.contains("<code class=\"key\" dir=\"ltr\">mojibake</code>"),
        "{first_row}"
    );
    assert!(s.contains("الخلاصة") && s.contains("1 فحص") && s.contains("docs:moj:000"));

    // Code from the evidence stays left to right, escaped.
    assert!(
        h.contains(
            "<code class=\"block\" dir=\"ltr\">```vue\nconst app = createApp({})\n```</code>"
        ),
        "{h}"
    );
    assert!(h.contains("<code dir=\"ltr\">`app.mount(&#39;#app&#39;)`</code>"));
    assert!(h.contains("<span class=\"id\" dir=\"ltr\">docs:code:000</span>"));

    // Arabic labels, with the English key beside each; an Arabic title; counts that agree.
    for (name, key) in [
        ("ترميز مشوَّه", "mojibake"),
        ("رموز مهرَّبة في النص", "escaped-prose"),
        ("التغطية والسلامة", "coverage"),
    ] {
        assert!(h.contains(name), "no Arabic label for {key}");
        assert!(h.contains(&format!("<code class=\"key\" dir=\"ltr\">{key}</code>")));
    }
    assert!(
        !h.contains("UTF-8 read as Latin-1"),
        "an English description"
    );
    assert!(h.contains("<title>تقرير فحص \u{2068}t\u{2069}</title>"));
    assert!(h.contains("<h1>تقرير فحص <bdi>t</bdi></h1>"));
    assert!(h.contains("2 مقطعان") && h.contains("1 مكتبة") && h.contains("18 فحصًا"));
    assert!(!h.contains("فحص المدونة"));

    // `--json` keeps stdout pure JSON; the path goes to stderr.
    let o = inspect(
        dir.path(),
        &["--no-rebuild", "--json", "--html", html.to_str().unwrap()],
    );
    assert_eq!(checks(&o)["ok"], false);
    assert!(stderr(&o).contains("wrote the report to"), "{}", stderr(&o));
}

/// Headless Chromium opens no window narrower than this: a narrower layout is a frame of that
/// width inside a page of this one.
const MIN_WINDOW: u32 = 500;

/// A page holding `report` in a frame `width` px wide (drawn `scale` times larger), for the
/// widths Chromium's window cannot take.
fn framed(report: &Path, width: u32, height: u32, scale: u32) -> std::path::PathBuf {
    let page = report.with_file_name(format!("frame-{width}-{scale}.html"));
    let name = report.file_name().unwrap().to_str().unwrap();
    std::fs::write(
        &page,
        format!(
            "<!DOCTYPE html><html><body style=\"margin:0\"><iframe src=\"{name}\" style=\"width:{width}px;height:{height}px;border:0;display:block;transform:scale({scale});transform-origin:0 0\"></iframe><script>addEventListener('message',e=>document.body.setAttribute('data-probe',e.data))</script></body></html>"
        ),
    )
    .unwrap();
    page
}

/// The report as Chromium lays it out at `width` px: its direction, whether the page scrolls
/// sideways, the viewport's width, and the words broken inside (IDs, URLs and code may break
/// anywhere).
fn probe_layout(browser: &str, flags: &[String], report: &Path, width: u32) -> Vec<String> {
    let probe = report.with_file_name(format!("probe-{width}.html"));
    let script = r#"<script>addEventListener('load',()=>{const d=document.documentElement;const broken=[];const w=document.createTreeWalker(document.body,NodeFilter.SHOW_TEXT);for(let n;(n=w.nextNode());){if(n.parentElement.closest('.id,code,bdi'))continue;const re=/\S+/g;let m;while((m=re.exec(n.data))){const r=document.createRange();r.setStart(n,m.index);r.setEnd(n,m.index+m[0].length);const rs=[...r.getClientRects()].filter(x=>x.width>0);if(rs.length<2)continue;const tops=rs.map(x=>x.top),h=Math.max(...rs.map(x=>x.height));if(Math.max(...tops)-Math.min(...tops)>h/2)broken.push(m[0])}}const v=[getComputedStyle(d).direction,d.scrollWidth,d.clientWidth,innerWidth,broken.length,broken.slice(0,5).join('|')].join(' ');document.body.setAttribute('data-probe',v);if(parent!==window)parent.postMessage(v,'*')})</script>"#;
    let html = std::fs::read_to_string(report).unwrap();
    std::fs::write(&probe, html.replace("</body>", &format!("{script}</body>"))).unwrap();
    let page = if width < MIN_WINDOW {
        framed(&probe, width, 1000, 1)
    } else {
        probe
    };
    let out = std::process::Command::new(browser)
        .args(flags)
        .arg(format!("--window-size={},1000", width.max(MIN_WINDOW)))
        .args(["--virtual-time-budget=3000", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    dom.split("data-probe=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| {
            panic!(
                "the probe did not run at {width} px:\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        })
        .split(' ')
        .map(str::to_string)
        .collect()
}

/// The headless Chromium on the PATH, if any.
fn browser() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            std::process::Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// A need: Chromium, for the report's screenshots.
fn chromium() -> Option<String> {
    browser()
        .is_none()
        .then(|| "Chromium is not installed here (.ci/run installs Debian's chromium)".to_string())
}

fn html_report_screenshot_in_headless_chromium() {
    use std::io::Write;
    let browser = browser().expect("the harness runs this test only with Chromium");
    // The sample project and a failing document with code, so the shots show a failure.
    let p = sample_project();
    std::fs::write(
        p.path().join("sources/articles/broken.md"),
        doc(
            "صفحة فيها شيفرة",
            &format!(
                "{PROSE}\n\n```vue\nconst app = createApp({{ data() {{ return {{ message: 'https://example.org/a/very/long/path/that/does/not/break/by/itself' }} }} }})\n```\n\nØ§Ù„ÙƒØªØ§Ø¨ Ø§Ù„Ù…Ù‚Ø¯Ø³ ÙÙŠ Ø§Ù„Ù…ÙƒØªØ¨Ø©"
            ),
        ),
    )
    .unwrap();
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    let html = p.path().join("report.html");
    let o = run(bin().current_dir(p.path()).args([
        "inspect",
        "--no-rebuild",
        "--html",
        html.to_str().unwrap(),
    ]));
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let flags = |profile: &Path| -> Vec<String> {
        [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("--user-data-dir={}", profile.display())])
        .collect()
    };
    let artifacts = repo().join("target/ci-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    for width in [1400, 360] {
        // A probe copy of the report measures the layout the way a reader's browser lays it out.
        let profile = tempfile::tempdir().unwrap();
        let probe = probe_layout(browser, &flags(profile.path()), &html, width);
        assert_eq!(probe[0], "rtl", "the report is not laid out right to left");
        let n = |i: usize| -> u32 { probe[i].parse().unwrap() };
        assert_eq!(
            n(3),
            width,
            "Chromium did not lay the page out {width} px wide"
        );
        assert!(
            n(1) <= n(2),
            "horizontal scrolling at {width} px: {} > {}",
            n(1),
            n(2)
        );
        assert_eq!(
            n(4),
            0,
            "words broken inside at {width} px: {}",
            probe[5..].join(" ")
        );
        // And a screenshot a reviewer can look at: a real, non-trivial PNG of that layout (a
        // phone's, below Chromium's narrowest window, drawn twice as large as phones do).
        let scale = if width < MIN_WINDOW { 2 } else { 1 };
        let page = if scale > 1 {
            framed(&html, width, 1600 / scale, scale)
        } else {
            html.clone()
        };
        let png = artifacts.join(format!("inspect-report-{width}.png"));
        let _ = std::fs::remove_file(&png);
        let profile = tempfile::tempdir().unwrap();
        let st = std::process::Command::new(browser)
            .args(flags(profile.path()))
            .arg(format!("--window-size={},1600", width * scale))
            .arg(format!("--screenshot={}", png.display()))
            .arg(format!("file://{}", page.display()))
            .output()
            .unwrap();
        let bytes = std::fs::read(&png)
            .unwrap_or_else(|_| panic!("no screenshot:\n{}", String::from_utf8_lossy(&st.stderr)));
        assert_eq!(&bytes[1..4], b"PNG");
        assert_eq!(
            u32::from_be_bytes(bytes[16..20].try_into().unwrap()),
            width * scale
        );
        assert!(
            bytes.len() > 20_000,
            "the screenshot looks blank ({} bytes)",
            bytes.len()
        );
        // Straight to the real stdout, which the test harness does not capture.
        std::io::stdout()
            .write_all(
                format!(
                    "screenshot of the report at {width} px: {}\n",
                    png.display()
                )
                .as_bytes(),
            )
            .unwrap();
    }
}

/// Whether `s` holds a terminal control sequence a source smuggled in: a screen clear or an
/// OSC (window title) sequence, a bell, or a right-to-left override.
fn raw_control(s: &str) -> bool {
    s.contains("\u{1b}[2J")
        || s.contains("\u{1b}]0;")
        || s.contains('\u{7}')
        || s.contains('\u{202e}')
}

/// A title holding ESC `[2J`, an OSC sequence and a right-to-left override reaches no terminal
/// raw: `show`, `inspect`'s sample, a local `query`, and a diagnostic quoting a value or a
/// source line show them as text.
fn control_characters_from_sources_never_reach_the_terminal() {
    let title = "\\e[2Jصفحة\\e]0;pwned\\a\\u202Eمقلوب";
    let dir = project(&[("a.md", doc(title, PROSE))], "");
    build(dir.path());
    let cfg = dir.path().join("corpus.toml");
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("show", vec!["show", "docs:a"]),
        ("inspect", vec!["inspect", "--no-rebuild", "--sample", "1"]),
        ("query", vec!["query", "تاريخ المدينة القديمة"]),
        (
            "a diagnostic quoting a value",
            vec!["show", "\u{1b}[2J\u{1b}]0;x\u{7}"],
        ),
    ];
    for (what, args) in cases {
        let (cmd, rest) = args.split_first().unwrap();
        let o = run(bin().arg(cmd).arg("--config").arg(&cfg).args(rest));
        let (out, err) = (stdout(&o), stderr(&o));
        assert!(
            !raw_control(&out),
            "{what} printed raw control characters:\n{out:?}"
        );
        assert!(
            !raw_control(&err),
            "{what} printed raw control characters:\n{err:?}"
        );
        if what == "a diagnostic quoting a value" {
            assert!(err.contains("\\u{1b}[2J"), "{what}: {err}");
        } else {
            assert!(o.status.success(), "{what}: {err}");
            assert!(out.contains("صفحة"), "{what} shows the title: {out}");
        }
        if what == "show" {
            // Kept in the title as the source wrote it, and shown as text.
            assert!(out.contains("\\u{202e}مقلوب"), "{what}: {out}");
        }
    }
    // A source line a diagnostic quotes: its control characters shown as control pictures.
    let bad = project(
        &[(
            "b.md",
            "---\ntitle: [\u{1b}[2J\u{1b}]0;x\u{7}\n---\n\nنص.\n".to_string(),
        )],
        "",
    );
    let o = run(bin()
        .args(["build", "--config"])
        .arg(bad.path().join("corpus.toml")));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!raw_control(&stderr(&o)), "{:?}", stderr(&o));
    assert!(stderr(&o).contains("b.md"), "{}", stderr(&o));
}

fn main() -> std::process::ExitCode {
    use common::harness::test;
    common::harness::run(vec![
        test(
            "bad_sources_fire_their_checks_and_exit_1",
            bad_sources_fire_their_checks_and_exit_1,
        ),
        test(
            "sample_corpus_passes_with_a_deterministic_rebuild",
            sample_corpus_passes_with_a_deterministic_rebuild,
        ),
        test(
            "html_report_escapes_an_xss_payload",
            html_report_escapes_an_xss_payload,
        ),
        test(
            "against_shows_the_edited_document_as_changed",
            against_shows_the_edited_document_as_changed,
        ),
        test("inspect_config_is_validated", inspect_config_is_validated),
        test("shared_corpora_inspect_clean", shared_corpora_inspect_clean)
            .needs(common::harness::shared_corpora),
        test(
            "html_report_opens_with_a_summary_in_arabic_with_code_left_to_right",
            html_report_opens_with_a_summary_in_arabic_with_code_left_to_right,
        ),
        test(
            "html_report_screenshot_in_headless_chromium",
            html_report_screenshot_in_headless_chromium,
        )
        .needs(chromium),
        test(
            "control_characters_from_sources_never_reach_the_terminal",
            control_characters_from_sources_never_reach_the_terminal,
        ),
    ])
}
