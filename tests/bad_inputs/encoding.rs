//! Encodings and line endings: UTF-8 errors with their byte offset, BOMs, UTF-16 with and
//! without a BOM, legacy Arabic HTML, NUL bytes, CR line endings.

use super::*;

fn utf16(text: &str, le: bool, bom: bool) -> Vec<u8> {
    let mut out = Vec::new();
    if bom {
        out.extend(if le { [0xFF, 0xFE] } else { [0xFE, 0xFF] });
    }
    for u in text.encode_utf16() {
        out.extend(if le { u.to_le_bytes() } else { u.to_be_bytes() });
    }
    out
}

/// Windows-1256 bytes of `مرحبا بالعالم` (م ر ح ب ا space ب ا ل ع ا ل م).
const CP1256_ARABIC: &[u8] = &[
    0xE3, 0xD1, 0xCD, 0xC8, 0xC7, 0x20, 0xC8, 0xC7, 0xE1, 0xDA, 0xC7, 0xE1, 0xE3,
];

fn cp1256_page(meta: &str) -> Vec<u8> {
    let mut v = format!("<!doctype html><html><head>{meta}<title>t</title></head><body><main><article><h1>عنوان</h1><p>").into_bytes();
    // The heading above is UTF-8 only in the template; rewrite it as plain ASCII first.
    v = String::from_utf8(v)
        .unwrap()
        .replace("عنوان", "Title")
        .into_bytes();
    for _ in 0..20 {
        v.extend_from_slice(CP1256_ARABIC);
        v.push(b' ');
    }
    v.extend_from_slice(b"</p></article></main></body></html>");
    v
}

fn has(root: &Path, needle: &str) -> Result<(), String> {
    let e = evidence(root);
    if e.contains(needle) {
        Ok(())
    } else {
        Err(format!("evidence lacks {needle:?}:\n{e}"))
    }
}

fn clean_text(root: &Path) -> Result<(), String> {
    let e = evidence(root);
    if e.contains('\r') || e.contains('\u{feff}') {
        Err(format!("CR or BOM in evidence: {e:?}"))
    } else {
        Ok(())
    }
}

pub const CASES: &[Case] = &[
    Case::new("invalid UTF-8 names its byte offset and line", |p| put(p, "src/bad.md", b"# t\n\nabc\xff\n"), 1, err("src/bad.md", Some(3), "invalid UTF-8 at byte offset 8")),
    Case::new("invalid UTF-8 after a BOM counts the BOM", |p| put(p, "src/bad.md", b"\xEF\xBB\xBF# t\n\xC3("), 1, err("src/bad.md", Some(2), "invalid UTF-8 at byte offset 7")),
    Case::new("overlong UTF-8 encoding of NUL", |p| put(p, "src/bad.md", b"# t\n\n\xC0\x80"), 1, err("src/bad.md", Some(3), "invalid UTF-8 at byte offset 5")),
    Case::new("Latin-1 bytes suggest the encodings to convert from", |p| put(p, "src/bad.md", b"# caf\xe9\n"), 1, err("src/bad.md", Some(1), "invalid UTF-8 at byte offset 5")),
    Case::new("UTF-16LE with a BOM is decoded", |p| put(p, "src/u16.md", utf16("# عنوان\n\nنص عربي من ملف UTF-16.\n", true, true)), 0, None)
        .check(|p, _| has(p, "نص عربي من ملف")),
    Case::new("UTF-16BE with a BOM is decoded", |p| put(p, "src/u16.md", utf16("# عنوان\n\nنص عربي كبير الطرف.\n", false, true)), 0, None)
        .check(|p, _| has(p, "نص عربي كبير الطرف")),
    Case::new("Arabic UTF-16LE without a BOM gets the UTF-16LE hint", |p| put(p, "src/u16.md", utf16("# عنوان\n\nنص عربي بلا علامة ترتيب.\n", true, false)), 1, err("src/u16.md", Some(1), "looks like UTF-16LE without a BOM")),
    Case::new("Arabic UTF-16BE without a BOM gets the UTF-16BE hint", |p| put(p, "src/u16.md", utf16("# عنوان\n\nنص عربي.\n", false, false)), 1, err("src/u16.md", Some(1), "looks like UTF-16BE without a BOM")),
    Case::new("ASCII UTF-16LE without a BOM gets the hint", |p| put(p, "src/u16.md", utf16("# Title\n\nPlain text.\n", true, false)), 1, err("src/u16.md", Some(1), "UTF-16LE without a BOM")),
    Case::new("UTF-16 with an unpaired surrogate", |p| put(p, "src/u16.md", [0xFF, 0xFE, 0x23, 0x00, 0x00, 0xD8, 0x41, 0x00]), 1, err("src/u16.md", None, "unpaired surrogate")),
    Case::new("a UTF-8 BOM before frontmatter is dropped", |p| put(p, "src/bom.md", "\u{feff}---\ntitle: بعلامة\n---\n\nنص بعد العلامة.\n"), 0, None)
        .check(|p, _| if records(p).iter().any(|r| r["title"] == "بعلامة") { clean_text(p) } else { Err("the frontmatter title was lost".into()) }),
    Case::new("a BOM in the middle of the text is dropped", |p| put(p, "src/mid.md", "# عنوان\n\nنص\u{feff}عربي متصل.\n"), 0, None)
        .check(|p, _| has(p, "نصعربي متصل").and_then(|_| clean_text(p))),
    Case::new("CRLF line endings, frontmatter included", |p| put(p, "src/crlf.md", "---\r\ntitle: سطور\r\n---\r\n\r\n# سطور\r\n\r\nفقرة أولى.\r\n\r\nفقرة ثانية.\r\n"), 0, None)
        .check(|p, _| has(p, "فقرة أولى.\n\nفقرة ثانية.").and_then(|_| clean_text(p))),
    Case::new("lone CR line endings", |p| put(p, "src/cr.md", "# سطور\r\rفقرة أولى.\r\rفقرة ثانية.\r"), 0, None).check(|p, _| has(p, "فقرة أولى.\n\nفقرة ثانية.").and_then(|_| clean_text(p))),
    Case::new("a NUL byte names its offset and line", |p| put(p, "src/nul.md", b"# t\n\nab\0c\n"), 1, err("src/nul.md", Some(3), "NUL byte at byte offset 7")),
    Case::new("Windows-1256 HTML with <meta charset> is decoded", |p| put(p, "src/legacy.html", cp1256_page("<meta charset=\"windows-1256\">")), 0, None).check(|p, _| has(p, "مرحبا بالعالم")),
    Case::new("Windows-1256 HTML with http-equiv is decoded", |p| put(p, "src/legacy.html", cp1256_page("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1256\">")), 0, None)
        .check(|p, _| has(p, "مرحبا بالعالم")),
    Case::new("Windows-1256 HTML without a declaration says how to convert", |p| put(p, "src/legacy.html", cp1256_page("")), 1, err("src/legacy.html", Some(1), "invalid UTF-8"))
        .check(|_, d| if d.iter().any(|d| d["help"].as_str().is_some_and(|h| h.contains("iconv -f WINDOWS-1256"))) { Ok(()) } else { Err("no iconv help".into()) }),
    Case::new("HTML declaring an unknown charset", |p| put(p, "src/legacy.html", cp1256_page("<meta charset=\"x-bogus-8\">")), 1, err("src/legacy.html", None, "unknown charset `x-bogus-8`")),
    Case::new("Windows-1256 in Markdown is an error, not mojibake", |p| put(p, "src/legacy.md", [b"# t\n\n".as_slice(), CP1256_ARABIC].concat()), 1, err("src/legacy.md", Some(3), "invalid UTF-8 at byte offset 5")),
    Case::new("RTL and bidi controls neither crash nor reach search_text", |p| put(p, "src/bidi.md", "# عنوان\n\nنص \u{202e}معكوس\u{202c} و\u{2067}معزول\u{2069} و\u{200f}علامة.\n"), 0, None).check(|p, _| {
        let recs = records(p);
        let r = recs.iter().find(|r| r["text"].as_str().unwrap().contains("معكوس")).ok_or("the text is lost")?;
        let search = r["search_text"].as_str().unwrap();
        if search.chars().any(|c| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')) { Err(format!("bidi controls in search_text: {search:?}")) } else { Ok(()) }
    }),
];

pub(crate) fn encodings() {
    run_table(CASES);
}
