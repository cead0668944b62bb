//! HTML is untrusted: it is parsed leniently, and scripts, styles, event handlers, `javascript:`
//! URLs, iframes, forms and embedded objects never reach evidence; the inspection report escapes
//! a payload that arrives through an HTML title.

use super::*;

const HOSTILE_TEMPLATE: &str = r#"<!doctype html><html><head><title>صفحة عدائية</title>
<script>alert("head")</script><style>body{color:red}</style></head>
<body onload="steal()"><main><article><h1>صفحة عدائية</h1>
<p onclick="steal()">نص عربي سليم يجب أن يبقى في الأدلة، وهو طويل بما يكفي ليعد مقالة.</p>
<p>PROSE</p><p>PROSE</p>
<script>document.write("injected")</script>
<noscript>noscript-text</noscript>
<iframe src="https://evil.example/frame">iframe-text</iframe>
<form action="https://evil.example/post"><input name="q" value="form-value"><button>form-button</button><textarea>form-area</textarea><select><option>form-option</option></select></form>
<p><a href="javascript:steal()">رابط</a> و <a href="https://example.org/ok">رابط سليم</a> نهاية.</p>
<object data="x.swf">object-text</object><embed src="x.swf">
<svg><script>svg-script</script><foreignObject>svg-foreign</foreignObject></svg>
<template>template-text</template>
<img src=x onerror="alert(1)">
<p>فقرة أخيرة سليمة.</p>
</article></main></body></html>"#;

fn hostile() -> String {
    HOSTILE_TEMPLATE.replace("PROSE", PROSE)
}

fn no_payload(root: &Path, _: &[Value]) -> Result<(), String> {
    let e = evidence(root);
    for bad in [
        "alert",
        "color:red",
        "steal",
        "injected",
        "noscript-text",
        "iframe-text",
        "form-",
        "javascript",
        "object-text",
        "svg-script",
        "template-text",
        "onerror",
        "evil.example",
    ] {
        if e.contains(bad) {
            return Err(format!("`{bad}` reached evidence:\n{e}"));
        }
    }
    if e.contains("نص عربي سليم") && e.contains("فقرة أخيرة سليمة") {
        Ok(())
    } else {
        Err(format!("the article text is lost:\n{e}"))
    }
}

pub const CASES: &[Case] = &[
    Case::new("scripts, styles, handlers, javascript: URLs, iframes, forms never reach evidence", |p| put(p, "src/hostile.html", hostile()), 0, None).check(no_payload),
    Case::new("malformed HTML is parsed leniently", |p| put(p, "src/broken.html", format!("<html><body><main><article><h1>مكسورة</h1><p>نص عربي في صفحة مكسورة الوسوم </b></i><p>{PROSE} <div>داخل <span>بلا إغلاق <p>{PROSE}")), 0, None)
        .check(|p, _| if evidence(p).contains("نص عربي في صفحة مكسورة") { Ok(()) } else { Err("text lost".into()) }),
    Case::new("a chrome-only page is a warning", |p| put(p, "src/nav.html", "<html><body><nav><a href='/a'>أ</a><a href='/b'>ب</a></nav><footer>حقوق</footer></body></html>"), 0, Some(Diag { level: "warning", file: Some("src/nav.html"), line: None, message: "nothing to index" })),
    Case::new("an XSS payload in an HTML title is escaped by the inspect report", |p| {
        put(p, "src/xss.html", format!("<!doctype html><title>&lt;script&gt;alert(1)&lt;/script&gt;</title><main><article><h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1><p>نص عربي فيه &lt;img src=x onerror=alert(2)&gt; داخل الجملة.</p><p>{PROSE}</p></article></main>"))
    }, 0, None).check(|p, _| {
        let o = run(bin().current_dir(p).args(["inspect", "--no-rebuild", "--html", "report.html"]));
        let h = std::fs::read_to_string(p.join("report.html")).map_err(|e| format!("no report ({e}): {}", stderr(&o)))?;
        if h.contains("<script>alert") || h.contains("<img src=x") { return Err("unescaped payload in the report".into()) }
        if h.contains("&lt;script&gt;alert(1)&lt;/script&gt;") { Ok(()) } else { Err("the escaped title is missing from the report".into()) }
    }),
];

pub(crate) fn hostile_html() {
    run_table(CASES);
}
