//! Extraction of whole pages, through the public API; properties of the pure helpers.

use super::chrome::collapsed_len;
use super::*;

proptest::proptest! {
    /// The byte-at-a-time count equals the plain count over chars (the reference below).
    #[test]
    fn collapsed_len_counts_chars(s in "[ \t\n\r\u{0B}\u{0C}\u{85}\u{A0}\u{2009}\u{3000}\u{0}\u{1F}\u{7F}\u{9F}a،ابة\u{64B}\u{6F0}\u{200F}\u{1F642}]{0,40}") {
        let mut len = 0;
        let mut space = false;
        for c in s.chars() {
            if c.is_whitespace() {
                space = true;
            } else if !c.is_control() {
                if space && len > 0 {
                    len += 1;
                }
                space = false;
                len += 1;
            }
        }
        proptest::prop_assert_eq!(collapsed_len(&s), len);
    }
}

// Our own sentences (not taken from any corpus).
const P1: &str = "كتبت هذه الفقرة خصيصا لاختبار أداة الاستخراج، وهي تصف مكتبة صغيرة في حي قديم يزورها الطلاب كل صباح ليقرؤوا الكتب ويتناقشوا مع أمينها الذي يحفظ قصة كل مخطوطة على الرفوف.";
const P2: &str = "وفي المساء تتحول المكتبة إلى مجلس للحديث عن الشعر والتاريخ، فيجلس الكبار والصغار معا حول مصباح واحد، ويقرأ كل واحد منهم صفحة من كتاب اختاره بنفسه ثم يشرح لماذا أحبه.";

fn page(body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"ar\" dir=\"rtl\"><head><meta charset=utf-8>\
             <title>صفحة تجريبية | موقعي</title></head><body>{body}</body></html>"
    )
}

fn doc(html: &str) -> HtmlDoc {
    match extract_html(html) {
        HtmlOutcome::Doc(d) => d,
        HtmlOutcome::Skip(r) => panic!("unexpected Skip({r})"),
    }
}

fn skip(html: &str) -> String {
    match extract_html(html) {
        HtmlOutcome::Skip(r) => r,
        HtmlOutcome::Doc(d) => panic!("unexpected Doc: {d:?}"),
    }
}

fn para(s: &str) -> (BlockKind, String) {
    (BlockKind::Paragraph, s.to_string())
}

#[test]
fn decodes_entities_and_collapses_whitespace() {
    let html = page(&format!(
        "<article><p>قال &quot;أهلا&quot;&nbsp;&nbsp;يا\n\t صديقي: \
             &#1575;&#1604;&#1593;&#1585;&#1576;&#1610;&#1577; &amp; &lt;b&gt; \
             &#x627;&#x644;&#x62E;&#x637;&hellip;</p><p>{P1}</p><p>{P2}</p></article>"
    ));
    let d = doc(&html);
    assert_eq!(
        d.blocks[0],
        para("قال \"أهلا\" يا صديقي: العربية & <b> الخط…")
    );
    assert_eq!(d.blocks[1], para(P1));
    assert_eq!(d.blocks.len(), 3);
}

#[test]
fn removes_nav_header_footer_aside_and_widgets() {
    let html = page(&format!(
        r##"<header class="site-header"><a href="/">شعار الموقع</a>
               <nav><ul><li><a href="/">الرئيسية</a></li><li><a href="/about">من نحن</a></li></ul></nav></header>
               <div class="breadcrumbs"><a href="/">الصفحة الأم</a> › <a href="/blog">المدونة</a></div>
               <main><article>
                 <header class="entry-header"><a class="category" href="/c">تصنيف أول</a><h1>عنوان المقال التجريبي</h1>
                   <div class="post-meta"><time>٢٠٢٤</time> <span>تُقرأ خلال 3 دقائق</span></div></header>
                 <p>{P1}</p>
                 <nav id="TableOfContents"><ol><li><a href="#a">قسم الفهرس</a></li></ol></nav>
                 <div class="toc"><a href="#b">فهرس ثان</a></div>
                 <p>{P2}</p>
                 <div class="share-buttons"><a href="https://example.com/s">شارك على المنصة</a></div>
                 <footer><span class="tags"><a href="/t/1">وسم أول</a></span></footer>
               </article></main>
               <aside class="sidebar"><h3>مقالات ذات صلة</h3><ul><li><a href="/p/2">مقال آخر</a></li></ul></aside>
               <footer class="site-footer"><p>جميع الحقوق محفوظة لموقعي التجريبي منذ سنوات طويلة جدا</p></footer>
               <select name="language"><option>English</option><option>العربية</option></select>
               <div id="dark-mode-toggle"><span>الوضع الداكن</span></div>
               <form class="search-form"><input name="q" placeholder="ابحث هنا"><button>ابحث</button></form>"##
    ));
    let d = doc(&html);
    assert_eq!(
        d.blocks,
        vec![
            (BlockKind::Heading(1), "عنوان المقال التجريبي".to_string()),
            para(P1),
            para(P2)
        ]
    );
    assert_eq!(d.title.as_deref(), Some("عنوان المقال التجريبي"));
    assert_eq!(d.lang.as_deref(), Some("ar"));
    let text = doc_text(&d);
    for chrome in [
        "شعار",
        "الرئيسية",
        "من نحن",
        "المدونة",
        "تصنيف",
        "٢٠٢٤",
        "تُقرأ",
        "الفهرس",
        "فهرس",
        "شارك",
        "وسم",
        "ذات صلة",
        "مقال آخر",
        "الحقوق",
        "English",
        "الوضع الداكن",
        "ابحث",
    ] {
        assert!(
            !text.contains(chrome),
            "chrome {chrome:?} leaked into {text:?}"
        );
    }
}

#[test]
fn script_style_and_hostile_markup_never_reach_the_output() {
    let html = page(&format!(
        r##"<article><h1>عنوان آمن</h1>
               <script>document.write("كلمةمخفية1")</script>
               <style>.x {{ content: "كلمةمخفية2" }}</style>
               <noscript><p>كلمةمخفية3</p></noscript>
               <template><p>كلمةمخفية4</p></template>
               <svg><title>كلمةمخفية5</title><script>alert("كلمةمخفية6")</script><foreignObject><script>x="</svg><p>كلمةمخفية7</p>"</script></foreignObject></svg>
               <p>{P1} <a href="javascript:alert('كلمةمخفية8')">رابط مريب</a> <a href=" JaVa&#x09;script:void(0)">كلمةمخفية9</a>
                  javascript:alert(1) <img src=x onerror="alert('كلمةمخفية10')" alt="كلمةمخفية11"></p>
               <iframe src="https://example.com/">كلمةمخفية12</iframe>
               <p onmouseover="alert('كلمةمخفية13')">{P2}</p>
               <SCRIPT type="text/javascript">var s = "</scr" + "ipt>"; var t = "كلمةمخفية14";</SCRIPT>
               <script><!--<script>var u = "كلمةمخفية15";</script>--></script>
               <pre>vbscript:msgbox(1) نص برمجي</pre>
               <button onclick="steal()">كلمةمخفية16</button>
               <textarea>كلمةمخفية17</textarea><xmp>كلمةمخفية18</xmp>
               <div hidden>كلمةمخفية19</div><div style="display: none">كلمةمخفية20</div><span aria-hidden="true">كلمةمخفية21</span>
               </article>"##
    ));
    let d = doc(&html);
    let text = doc_text(&d);
    for bad in [
        "كلمةمخفية",
        "alert",
        "javascript",
        "vbscript",
        "document.write",
        "content:",
        "onerror",
        "steal",
    ] {
        assert!(
            !text.to_lowercase().contains(bad),
            "{bad:?} leaked into {text:?}"
        );
    }
    assert!(text.contains(P1) && text.contains(P2));
    assert!(text.contains("نص برمجي"));
    // an <a> pointing to javascript: is a UI control: its text goes too
    assert!(!text.contains("رابط مريب"));
}

/// A script URL hidden behind Unicode whitespace (an em space, a no-break space inside the
/// scheme) is still a script URL: the link and its text go.
#[test]
fn script_links_behind_unicode_spaces_are_dropped() {
    let html = page(&format!(
        "<article><p>{P1} <a href=\"&#x2003;javascript:alert(1)\">رابط مريب</a> \
         <a href=\"java&#xA0;script:alert(2)\">رابط آخر</a></p><p>{P2}</p></article>"
    ));
    let text = doc_text(&doc(&html));
    assert!(text.contains(P1) && text.contains(P2), "{text}");
    assert!(
        !text.contains("رابط مريب") && !text.contains("رابط آخر"),
        "{text}"
    );
}

#[test]
fn event_handler_attributes_are_not_text() {
    let html = page(&format!(
        r##"<article><div onclick="alert('كلمةمخفية')" onmouseover="steal(document.cookie)">{P1}</div>
               <div>{P2}</div></article>"##
    ));
    let d = doc(&html);
    assert_eq!(d.blocks, vec![para(P1), para(P2)]);
}

#[test]
fn redirect_stubs_are_skipped() {
    let stub = r##"<!DOCTYPE html><html lang="en-us"><head><title>https://example.org/ar/</title>
            <meta name="robots" content="noindex"><meta charset="utf-8">
            <meta http-equiv="refresh" content="0; url=/ar/"></head></html>"##;
    assert_eq!(skip(stub), "redirect stub to /ar/");
    let upper = r##"<META HTTP-EQUIV="Refresh" CONTENT="2;URL='https://example.org/new/'">"##;
    assert_eq!(skip(upper), "redirect stub to https://example.org/new/");
    let js = r##"<meta http-equiv="refresh" content="0;url=javascript:alert(1)">"##;
    assert!(!skip(js).contains("javascript"));
    // an auto-reload (no target) on a real article is not a redirect
    let reload = format!(
        r##"<meta http-equiv="refresh" content="300"><article><p>{P1}</p><p>{P2}</p></article>"##
    );
    assert_eq!(doc(&reload).blocks.len(), 2);
    // a tiny page with just a "moved" link
    let tiny = page(r##"<p>انتقلت الصفحة إلى <a href="/new">هنا</a></p>"##);
    assert!(
        skip(&tiny).starts_with("no main content found"),
        "{}",
        skip(&tiny)
    );
}

#[test]
fn listing_pages_are_skipped() {
    let mut cards = String::new();
    for i in 1..=4 {
        cards.push_str(&format!(
            r##"<article><a href="/p/{i}"><h2>عنوان المنشور رقم {i}</h2></a><time>منذ يومين</time>
                   <p>مقتطف قصير من المنشور يشرح فكرته</p></article>"##
        ));
    }
    let r = skip(&page(&format!("<main><h1>المنشورات</h1>{cards}</main>")));
    assert!(r.starts_with("listing page"), "{r}");

    let mut links = String::new();
    for i in 1..=20 {
        links.push_str(&format!(
            r##"<li><a href="/p/{i}">مقال في التاريخ الإسلامي رقم {i}</a></li>"##
        ));
    }
    let r = skip(&page(&format!(
        "<main><h1>تصنيف: تاريخ</h1><ul>{links}</ul></main>"
    )));
    assert!(r.starts_with("listing page: only links"), "{r}");
    // same without any semantic container
    let r = skip(&page(&format!(
        "<div><h2>الأرشيف</h2><ul>{links}</ul></div>"
    )));
    assert!(
        r.starts_with("listing page") || r.starts_with("no main content"),
        "{r}"
    );
}

#[test]
fn not_found_and_search_pages_are_skipped() {
    let nf = r##"<html><head><title>الصفحة غير موجودة</title></head><body><main>
            <h1>خطأ 404</h1><p>عذرا، لم نجد ما تبحث عنه.</p></main></body></html>"##;
    assert!(skip(nf).contains("404"));
    let search = page(
        r##"<main><form action="/search"><input type="search" name="q"></form><div class="results"></div></main>"##,
    );
    assert!(
        skip(&search).starts_with("search page"),
        "{}",
        skip(&search)
    );
}

#[test]
fn short_real_articles_are_kept_and_too_short_ones_skipped() {
    let d = doc(&page(&format!(
        "<article><h1>خبر قصير</h1><p>{P1} {P2}</p></article>"
    )));
    assert_eq!(d.blocks.len(), 2);
    let short =
        page("<article><h1>خبر قصير جدا</h1><p>جملة واحدة فقط لا تكفي لتكون مقالا.</p></article>");
    assert!(skip(&short).contains("chars of prose"));
}

#[test]
fn maps_headings_lists_quotes_code_and_tables() {
    let html = page(&format!(
        r##"<article>
            <h1>العنوان الأول</h1><h2>عنوان فرعي</h2><h3>عنوان ثالث</h3><h4>رابع</h4><h5>خامس</h5><h6>سادس</h6>
            <p>{P1}</p>
            <ul><li>عنصر أول</li><li>عنصر <b>ثان</b><ul><li>عنصر متداخل</li></ul></li></ul>
            <ol start="3"><li>الخطوة الأولى</li><li><p>الخطوة</p><p>الثانية</p></li></ol>
            <blockquote><p>قال الحكيم:</p><p>العلم   نور</p></blockquote>
            <pre><code>fn main() {{
    println!("مرحبا");
}}</code></pre>
            <pre>
  سطر بمسافة بادئة</pre>
            <table><thead><tr><th>الاسم</th><th>العمر</th></tr></thead>
              <tbody><tr><td>علي</td><td>٣٠</td></tr><tr><td><a href="/f">فاطمة</a></td><td>٢٥</td></tr></tbody></table>
            <p>{P2}</p>
            <dl><dt>مصطلح</dt><dd>تعريفه</dd></dl>
            </article>"##
    ));
    let d = doc(&html);
    let expected: Vec<(BlockKind, String)> = vec![
        (BlockKind::Heading(1), "العنوان الأول".into()),
        (BlockKind::Heading(2), "عنوان فرعي".into()),
        (BlockKind::Heading(3), "عنوان ثالث".into()),
        (BlockKind::Heading(4), "رابع".into()),
        (BlockKind::Heading(5), "خامس".into()),
        (BlockKind::Heading(6), "سادس".into()),
        para(P1),
        (
            BlockKind::List,
            "- عنصر أول\n- عنصر ثان\n- عنصر متداخل".into(),
        ),
        (BlockKind::List, "3. الخطوة الأولى\n4. الخطوة الثانية".into()),
        (BlockKind::Quote, "قال الحكيم: العلم نور".into()),
        (
            BlockKind::Code,
            "fn main() {\n    println!(\"مرحبا\");\n}".into(),
        ),
        (BlockKind::Code, "  سطر بمسافة بادئة".into()),
        (
            BlockKind::Table,
            "الاسم | العمر\nعلي | ٣٠\nفاطمة | ٢٥".into(),
        ),
        para(P2),
        (BlockKind::List, "- مصطلح\n- تعريفه".into()),
    ];
    assert_eq!(d.blocks, expected);
    assert_eq!(d.title.as_deref(), Some("العنوان الأول"));
    // determinism
    assert_eq!(extract_html(&html), extract_html(&html));
}

#[test]
fn no_markdown_syntax_is_produced() {
    let html = page(&format!(
        r##"<article><h2>عنوان <a class="anchor" href="#x">#</a></h2><p><strong>{P1}</strong> <em>مائل</em>
               <a href="https://example.com/">رابط</a> <img src="a.png" alt="صورة"></p><p>{P2}</p></article>"##
    ));
    let d = doc(&html);
    assert_eq!(d.blocks[0], (BlockKind::Heading(2), "عنوان".to_string()));
    let text = doc_text(&d);
    assert!(text.contains("مائل رابط"));
    for md in ["#", "**", "](", "![", "__", "صورة", "https://"] {
        assert!(!text.contains(md), "{md:?} in {text:?}");
    }
}

#[test]
fn title_falls_back_to_title_tag_without_site_suffix() {
    let html = format!(
        r##"<html><head><title>مقال عن الخط العربي | موقعي</title></head>
               <body><article><p>{P1}</p><p>{P2}</p></article></body></html>"##
    );
    assert_eq!(doc(&html).title.as_deref(), Some("مقال عن الخط العربي"));
    let html = format!(
        r##"<html><head><title>تاريخ المخطوطات - مدونة الخطاطين العرب الكبرى للفنون والآداب</title>
               <meta property="og:site_name" content="مدونة الخطاطين العرب الكبرى للفنون والآداب"></head>
               <body><article><p>{P1}</p><p>{P2}</p></article></body></html>"##
    );
    assert_eq!(doc(&html).title.as_deref(), Some("تاريخ المخطوطات"));
    let html = format!("<body><div><p>{P1}</p><p>{P2}</p></div></body>");
    assert_eq!(doc(&html).title, None);
    let html = format!(
        "<title>javascript:alert(1) عنوان</title><article><p>{P1}</p><p>{P2}</p></article>"
    );
    assert_eq!(doc(&html).title.as_deref(), Some("عنوان"));
}

#[test]
fn lang_is_the_nearest_declared_one() {
    let html = format!(
        r##"<html lang="en"><body><article lang="fa"><p>{P1}</p><p>{P2}</p></article></body></html>"##
    );
    assert_eq!(doc(&html).lang.as_deref(), Some("fa"));
    let html = format!(
        r##"<html lang="en-us"><body><article><p>{P1}</p><p>{P2}</p></article></body></html>"##
    );
    let d = doc(&html);
    assert_eq!(d.lang.as_deref(), Some("en-us"));
    assert_eq!(arabic_script_majority(&d), Some("ar"));
}

#[test]
fn a_single_br_keeps_its_line_and_two_end_the_paragraph() {
    // Our own verses: a poem's lines and an address's lines stay lines in the evidence.
    let html = page(&format!(
        "<article><p>{P1}</p><p>على شاطئ البحر نمشي معا<br>\n  ونحكي الحكايات حتى المسا<br/>ونرجع للدار قبل الظلام</p>\
         <p>شارع المكتبة، رقم ١٢<br> <br>{P2}</p></article>"
    ));
    let d = doc(&html);
    assert_eq!(
        d.blocks,
        vec![
            para(P1),
            para("على شاطئ البحر نمشي معا\nونحكي الحكايات حتى المسا\nونرجع للدار قبل الظلام"),
            para("شارع المكتبة، رقم ١٢"),
            para(P2),
        ]
    );
}

#[test]
fn pages_without_semantic_containers_use_scoring() {
    // old-style layout table, menu cell without class names, <br><br> paragraphs
    let html = format!(
        r##"<html><body><table width="100%"><tr>
               <td><a href="/">الرئيسية</a><br><a href="/a">الأخبار</a><br><a href="/b">المقالات</a><br><a href="/c">اتصل بنا</a></td>
               <td><h1>عنوان في جدول</h1><div class="text">{P1}<br><br>{P2}</div></td></tr></table>
               <div><a href="/x">سياسة الخصوصية</a> | <a href="/y">الشروط</a></div></body></html>"##
    );
    let d = doc(&html);
    assert_eq!(
        d.blocks,
        vec![
            (BlockKind::Heading(1), "عنوان في جدول".to_string()),
            para(P1),
            para(P2)
        ]
    );
    assert_eq!(d.title.as_deref(), Some("عنوان في جدول"));
    let text = doc_text(&d);
    assert!(!text.contains("الأخبار") && !text.contains("الخصوصية"));
}

#[test]
fn content_wrappers_with_chrome_like_classes_survive() {
    // WordPress puts tag-/category- classes on the article itself
    let html = page(&format!(
        r##"<article class="post-12 post type-post category-news tag-history"><h1>عنوان</h1><p>{P1}</p><p>{P2}</p></article>"##
    ));
    assert_eq!(doc(&html).blocks.len(), 3);
    // ASP.NET WebForms wraps the whole page in a <form>
    let html = page(&format!(
        r##"<form id="aspnetForm" action="page.aspx"><div class="entry-content has-social-share"><p>{P1}</p><p>{P2}</p></div></form>"##
    ));
    assert_eq!(doc(&html).blocks, vec![para(P1), para(P2)]);
}

#[test]
fn reading_time_lines_are_dropped() {
    let html = page(&format!(
        "<article><p>تُقرأ خلال 5 دقائق</p><p>{P1}</p><p>5 min read</p><p>{P2}</p></article>"
    ));
    assert_eq!(doc(&html).blocks, vec![para(P1), para(P2)]);
}

#[test]
fn degenerate_inputs_do_not_panic() {
    let inputs = [
        "",
        " ",
        "\n\t",
        "<",
        ">",
        "<<<>>>",
        "</",
        "</>",
        "<!--",
        "<!-- x",
        "<![CDATA[",
        "<!doctype",
        "&",
        "&#",
        "&#x;",
        "&#xFFFFFFFF;",
        "&#0;",
        "&#xD800;",
        "\u{0}\u{0}",
        "<a href=",
        "<div class=\"",
        "<p>نص<p>",
        "<table><td>x",
        "<svg><p>نص</svg>",
        "<math><mi><script>x</script></mi>",
        "<plaintext><p>نص",
        "<title>",
        "<textarea>",
        "<script>",
        "<style>",
        "<noscript>",
        "</p></p></br>",
        "<select><option><optgroup>",
        "<frameset><frame>",
        "\u{feff}<p>x</p>",
        "<ul><li><ol><li>",
    ];
    for s in inputs {
        let a = extract_html(s);
        assert_eq!(a, extract_html(s), "nondeterministic on {s:?}");
    }
    assert_eq!(extract_html(""), HtmlOutcome::Skip("empty document".into()));
}

#[test]
fn random_tag_soup_does_not_panic() {
    const PIECES: &[&str] = &[
        "<div>",
        "</div>",
        "<p>",
        "</p>",
        "<li>",
        "<ul>",
        "</ul>",
        "<ol start=x>",
        "<table>",
        "<tr>",
        "<td>",
        "</td>",
        "<pre>",
        "</pre>",
        "<h2>",
        "</h2>",
        "<a href='javascript:x'>",
        "<a href=/x>",
        "</a>",
        "<b>",
        "</b>",
        "<i class=a>",
        "<svg>",
        "</svg>",
        "<math>",
        "<foreignObject>",
        "<script>",
        "</script>",
        "<style>",
        "<br>",
        "<br/>",
        "</br>",
        "<hr>",
        "<!--",
        "-->",
        "<nav>",
        "</nav>",
        "<article>",
        "</article>",
        "<main>",
        "<header>",
        "</header>",
        "<blockquote>",
        "<dl><dt>",
        "<dd>",
        "نص عربي",
        " ",
        "&amp;",
        "&nbsp;",
        "&#1575;",
        "<",
        ">",
        "\"",
        "'",
        "=",
        "<title>",
        "</title>",
        "<meta http-equiv=refresh content='0;url=/x'>",
        "<template>",
        "</template>",
        "<select>",
        "<option>",
        "<textarea>",
        "</textarea>",
        "<plaintext>",
        "<p hidden>",
        "<div style='display:none'>",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..300 {
        let mut s = String::new();
        let len = (seed % 200) as usize;
        for _ in 0..len {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            s.push_str(PIECES[(seed % PIECES.len() as u64) as usize]);
        }
        let a = extract_html(&s);
        assert_eq!(a, extract_html(&s));
    }
}

#[test]
fn highlighted_code_keeps_comments_tags_and_drops_line_numbers() {
    let html = page(&format!(
        r##"<article><p>{P1}</p>
            <pre class="language-js"><code class="language-js"><span class="token comment">// تعليق مهم</span>
<span class="token tag">&lt;div class="meta"&gt;</span> <span class="hljs-meta">#include</span></code></pre>
            <div class="highlight"><div class="chroma"><table class="lntable"><tr><td class="lntd">
            <pre tabindex="0" class="chroma"><code><span class="lnt">1
</span><span class="lnt">2
</span></code></pre></td><td class="lntd">
            <pre tabindex="0" class="chroma"><code class="language-go" data-lang="go"><span class="line"><span class="cl"><span class="kd">func</span> main() {{
</span></span><span class="line"><span class="cl">}}
</span></span></code></pre></td></tr></table></div></div>
            <p>{P2}</p></article>"##
    ));
    let d = doc(&html);
    assert_eq!(
        d.blocks,
        vec![
            para(P1),
            (
                BlockKind::Code,
                "// تعليق مهم\n<div class=\"meta\"> #include".into()
            ),
            (BlockKind::Code, "func main() {\n}".into()),
            para(P2),
        ]
    );
}

#[test]
fn utility_classes_do_not_look_like_chrome() {
    let html = page(&format!(
        r##"<main class="overflow-hidden"><div class="print:text-black md:hidden lang-ar"><p>{P1}</p></div>
               <p class="text-lg">{P2}</p></main>"##
    ));
    assert_eq!(doc(&html).blocks, vec![para(P1), para(P2)]);
}

#[test]
fn common_static_site_layouts() {
    // VitePress-like
    let vitepress = format!(
        r##"<div id="app"><header class="VPNav"><a href="/">وثائق</a><div class="VPNavBarSearch"><button>بحث</button></div></header>
            <aside class="VPSidebar"><nav><a href="/guide">مقدمة الدليل</a></nav></aside>
            <div class="VPContent"><div class="VPDoc"><div class="aside"><div class="VPDocAsideOutline"><div class="outline-title">في هذه الصفحة</div></div></div>
            <div class="content"><main class="main"><div class="vp-doc _ar_guide"><div>
            <h1 id="intro">مقدمة <a class="header-anchor" href="#intro" aria-label="Permalink">&#8203;</a></h1>
            <p>{P1}</p><div class="tip custom-block"><p class="custom-block-title">نصيحة</p><p>{P2}</p></div>
            </div></div></main>
            <footer class="VPDocFooter"><div class="edit-info"><a href="https://example.com/edit">عدل هذه الصفحة</a></div>
            <nav class="prev-next"><a href="/a">الصفحة السابقة</a></nav></footer></div></div></div></div>"##
    );
    let d = doc(&page(&vitepress));
    assert_eq!(
        d.blocks,
        vec![
            (BlockKind::Heading(1), "مقدمة".into()),
            para(P1),
            para("نصيحة"),
            para(P2)
        ]
    );
    // Docusaurus-like
    let docusaurus = format!(
        r##"<nav class="navbar"><a class="navbar__brand" href="/">المشروع</a></nav>
            <div class="main-wrapper"><aside class="theme-doc-sidebar-container"><a href="/x">رابط جانبي</a></aside>
            <main class="docMainContainer"><div class="row"><div class="col docItemCol">
            <nav class="theme-doc-breadcrumbs" aria-label="Breadcrumbs"><a href="/">الصفحة الأم</a></nav>
            <article><div class="theme-doc-markdown markdown"><header><h1>عنوان الوثيقة</h1></header>
            <p>{P1}</p><h2 class="anchor" id="a">قسم<a href="#a" class="hash-link">&#8203;</a></h2><p>{P2}</p></div>
            <footer class="theme-doc-footer"><a href="/edit">تعديل</a></footer></article>
            <nav class="pagination-nav"><a href="/next">التالي</a></nav></div>
            <div class="col col--3"><div class="tableOfContents_bqdL thin-scrollbar theme-doc-toc-desktop"><ul><li><a href="#a">قسم</a></li></ul></div></div>
            </div></main></div><footer class="footer"><div>حقوق النشر لأصحابها</div></footer>"##
    );
    let d = doc(&page(&docusaurus));
    assert_eq!(
        d.blocks,
        vec![
            (BlockKind::Heading(1), "عنوان الوثيقة".into()),
            para(P1),
            (BlockKind::Heading(2), "قسم".into()),
            para(P2),
        ]
    );
    // Astro Starlight-like, with custom elements
    let starlight = format!(
        r##"<div class="page"><header class="header"><a class="site-title" href="/">بناء الأشياء</a><site-search><button>ابحث</button></site-search></header>
            <nav class="sidebar" aria-label="Main"><a href="/ar/intro">المقدمة</a></nav>
            <div class="main-frame"><div class="lg:sl-flex"><aside class="right-sidebar-container"><starlight-toc><h2>في هذه الصفحة</h2></starlight-toc></aside>
            <div class="main-pane"><main data-pagefind-body lang="ar" dir="rtl"><mobile-starlight-toc><details><summary>في هذه الصفحة</summary></details></mobile-starlight-toc>
            <div class="content-panel"><div class="sl-container"><h1 id="_top">الجزء الأول</h1></div></div>
            <div class="content-panel"><div class="sl-container"><div class="sl-markdown-content"><p>{P1}</p><p>{P2}</p></div>
            <footer class="sl-flex"><div class="meta"><a href="/edit">عدّل الصفحة</a></div><div class="pagination-links"><a href="/next">التالي</a></div></footer>
            </div></div></main></div></div></div></div>"##
    );
    let d = doc(&format!(
        "<html lang=\"en\"><body>{starlight}</body></html>"
    ));
    assert_eq!(
        d.blocks,
        vec![
            (BlockKind::Heading(1), "الجزء الأول".into()),
            para(P1),
            para(P2)
        ]
    );
    assert_eq!(d.lang.as_deref(), Some("ar"));
}

#[test]
fn a_lone_card_article_does_not_hide_the_real_content() {
    let html = page(&format!(
        r##"<article><a href="/x"><h3>بطاقة مقال آخر</h3></a></article>
               <div id="content"><p>{P1}</p><p>{P2}</p></div>"##
    ));
    assert_eq!(doc(&html).blocks, vec![para(P1), para(P2)]);
}

#[test]
fn script_url_stripping_keeps_code_indentation() {
    let html = page(&format!(
        "<article><p>{P1}</p><pre>if (x) {{\n    go(\"javascript:alert(1)\");\n        y();\n}}</pre><p>{P2}</p></article>"
    ));
    let d = doc(&html);
    assert_eq!(
        d.blocks[1],
        (
            BlockKind::Code,
            "if (x) {\n    go(\"\n        y();\n}".to_string()
        )
    );
}

fn nested(open: &str, close: &str, n: usize, inner: &str) -> String {
    let mut s = String::with_capacity((open.len() + close.len()) * n + inner.len());
    for _ in 0..n {
        s.push_str(open);
    }
    s.push_str(inner);
    for _ in 0..n {
        s.push_str(close);
    }
    s
}

#[test]
fn deep_nesting_100k_divs_does_not_panic() {
    let inner = format!("<p>{P1}</p><p>{P2}</p>");
    let start = std::time::Instant::now();
    let d = doc(&nested("<div>", "</div>", 100_000, &inner));
    assert_eq!(d.blocks, vec![para(P1), para(P2)]);
    // unclosed
    let d = doc(&nested("<div>", "", 100_000, &inner));
    assert_eq!(d.blocks, vec![para(P1), para(P2)]);
    assert!(
        start.elapsed().as_secs() < 60,
        "too slow: {:?}",
        start.elapsed()
    );
}

#[test]
fn deep_nesting_of_other_shapes_does_not_panic() {
    let inner = format!("{P1} {P2}");
    let shapes: &[(&str, &str)] = &[
        ("<span>", "</span>"),
        ("<b class=x>", ""),
        ("<div/>", ""),
        ("<p>", ""),
        ("<ul><li>", "</li></ul>"),
        ("<ol><li>", ""),
        ("<blockquote>", "</blockquote>"),
        ("<table><tr><td>", "</td></tr></table>"),
        ("<a href=/x>", "</a>"),
        ("<h2>", ""),
        ("<pre>", "</pre>"),
        ("<article>", "</article>"),
        ("<header>", ""),
        ("<svg>", ""),
        ("<dl><dd>", ""),
        ("<section><main>", ""),
        ("<font><center>", ""),
    ];
    // 30,000 levels: far past MAX_DEPTH (the 100k case is covered above)
    for (open, close) in shapes {
        let html = nested(open, close, 30_000, &inner);
        let a = extract_html(&html);
        if let HtmlOutcome::Doc(d) = &a {
            assert!(doc_text(d).contains("مصباح واحد"), "{open}: text lost");
        }
    }
}

#[test]
fn a_short_page_that_opens_with_a_heading_and_links_nowhere_is_a_document() {
    // a procedure's checklist: well under MIN_PROSE_CHARS, all of it content
    let steps = r##"<div class="container"><h3>استخراج شهادة الميلاد</h3><ol>
        <li>بطاقة الرقم القومي لأحد الوالدين</li><li>ملء الاستمارة من مكتب الصحة</li>
        <li>دفع الرسوم المقررة</li></ol></div>"##;
    let d = doc(&page(steps));
    assert_eq!(
        d.blocks[0],
        (BlockKind::Heading(3), "استخراج شهادة الميلاد".to_string())
    );
    assert!(doc_text(&d).contains("دفع الرسوم المقررة"));
    // the same lines with a link among them, or without the heading, stay below the bar
    let linked = steps.replace(
        "دفع الرسوم المقررة",
        r##"<a href="/fees">دفع الرسوم المقررة</a>"##,
    );
    assert!(
        skip(&page(&linked)).contains("chars of prose"),
        "{}",
        skip(&page(&linked))
    );
    let untitled = steps.replace("<h3>استخراج شهادة الميلاد</h3>", "");
    assert!(skip(&page(&untitled)).contains("chars of prose"));
    // too little even for a titled page
    let bare = page("<div><h2>شكرا لك</h2><p>وصلتنا رسالتك.</p></div>");
    assert!(
        skip(&bare).starts_with("no main content found"),
        "{}",
        skip(&bare)
    );
}

#[test]
fn a_short_page_keeps_the_heading_its_scored_part_would_miss() {
    // an office's card: the readability score picks the address block, beside the heading
    let card = r##"<div class="container"><div class="title"><h2>مكتب السجل المدني بالمعادي</h2>
        <p class="subtitle">من هنا تعرف مكان المكتب ومواعيد العمل فيه.</p></div>
        <div class="row"><div class="details">
          <div class="where"><p class="label">العنوان</p><p class="value">شارع النصر، المعادي الجديدة، القاهرة</p></div>
          <div class="when"><p class="label">مواعيد العمل</p><p class="value">من الأحد إلى الخميس، من التاسعة حتى الثانية</p></div>
        </div></div></div>"##;
    let d = doc(&page(card));
    assert_eq!(
        d.blocks[0],
        (
            BlockKind::Heading(2),
            "مكتب السجل المدني بالمعادي".to_string()
        )
    );
    let text = doc_text(&d);
    assert!(
        text.contains("شارع النصر") && text.contains("من الأحد إلى الخميس"),
        "{text}"
    );
    // a page that links somewhere outside its chrome is not read whole
    let linked = card.replace("شارع النصر", r##"<a href="/map">شارع النصر</a>"##);
    assert!(skip(&page(&linked)).contains("chars of prose"));
}

#[test]
fn related_post_cards_beside_an_unmarked_article_are_not_a_listing() {
    let mut cards = String::new();
    for i in 1..=3 {
        cards.push_str(&format!(
            r##"<article class="card"><a href="/p/{i}"><h3>مقال مقترح رقم {i}</h3></a>
                   <p>مقتطف قصير من المقال المقترح يشرح فكرته في سطر</p></article>"##
        ));
    }
    let html = page(&format!(
        r##"<main><div class="post"><h1>عنوان المقال</h1><div class="body"><p>{P1}</p><p>{P2}</p></div></div>
            <section class="more"><h2>اقرأ أيضا</h2><div class="grid">{cards}</div></section></main>"##
    ));
    let d = doc(&html);
    let text = doc_text(&d);
    assert!(text.contains(P1) && text.contains(P2), "{text}");
    assert!(!text.contains("مقال مقترح"), "{text}");
    // cards that are the page's whole content are still a listing
    let r = skip(&page(&format!("<main><h1>المقالات</h1>{cards}</main>")));
    assert!(r.starts_with("listing page"), "{r}");
}

#[test]
fn a_sections_id_is_its_headings_slug_not_chrome() {
    // Sphinx and Pandoc name each section after its heading: "next steps", "license", "share"
    let html = page(&format!(
        r##"<div itemprop="articleBody"><h1>دليل الأدوات</h1><p>{P1}</p>
            <section id="next-steps"><h2>الخطوات التالية</h2><p>{P2}</p></section>
            <div class="section" id="license-and-sharing"><h2>الترخيص</h2><p>نص الترخيص الكامل هنا.</p></div>
            <div id="share-buttons"><a href="/s">شارك</a></div></div>"##
    ));
    let text = doc_text(&doc(&html));
    assert!(
        text.contains("الخطوات التالية") && text.contains(P2),
        "{text}"
    );
    assert!(text.contains("نص الترخيص الكامل"), "{text}");
    // a plain element's id still marks chrome
    assert!(!text.contains("شارك"), "{text}");
}

#[test]
fn elementor_blocks_are_content_unless_their_type_is_chrome() {
    let block = |kind: &str, inner: &str| {
        format!(
            r##"<div class="elementor-element elementor-element-5a1 bdt-icon-type-icon elementor-widget elementor-widget-{kind}">
                <div class="elementor-widget-container">{inner}</div></div>"##
        )
    };
    let html = page(&format!(
        r##"<article class="page"><div class="entry-content"><div class="elementor elementor-39">{}{}{}{}</div></div></article>"##,
        block("heading", "<h2>من نحن</h2>"),
        block("text-editor", &format!("<p>{P1}</p>")),
        block("icon-box", &format!("<p>{P2}</p>")),
        block(
            "nav-menu",
            r##"<ul><li><a href="/">الرئيسية</a></li><li><a href="/c">اتصل بنا</a></li></ul>"##
        ),
    ));
    let text = doc_text(&doc(&html));
    assert!(
        text.contains("من نحن") && text.contains(P1) && text.contains(P2),
        "{text}"
    );
    assert!(!text.contains("اتصل بنا"), "{text}");
}

#[test]
fn feeds_and_server_error_pages_are_not_documents() {
    let rss = r##"<?xml version="1.0" encoding="UTF-8"?><?xml-stylesheet href="s.xsl"?>
        <rss version="2.0"><channel><title>التعليقات على: مقال</title>
        <description>وصف الموقع</description></channel></rss>"##;
    assert_eq!(skip(rss), "an RSS or Atom feed, not a page");
    let atom = r##"<feed xmlns="http://www.w3.org/2005/Atom"><title>مدونة</title></feed>"##;
    assert_eq!(skip(atom), "an RSS or Atom feed, not a page");
    let forbidden = r##"<html><head><title>403</title></head><body><h1>403</h1>
        <h2>Forbidden</h2><p>Access to this resource on the server is denied!</p></body></html>"##;
    assert!(
        skip(forbidden).starts_with("a server's error page"),
        "{}",
        skip(forbidden)
    );
    // a page about the number 403 is not an error page
    assert!(!super::page::is_http_error("4030 كيلومترا"));
    assert!(super::page::is_http_error("500 Internal Server Error"));
}
