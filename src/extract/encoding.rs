//! Source bytes to text, as every extractor reads them: UTF-8 or UTF-16 with a BOM (HTML may
//! declare a legacy charset), line endings made LF and stray BOMs dropped, and the problem that
//! names the encoding a file seems to have when it is none of these. Apart from the extractors,
//! which only ever see the decoded text.

use std::borrow::Cow;

use crate::diag::Problem;

/// Source bytes to text: UTF-8 (a BOM is dropped) or UTF-16 with a BOM; CRLF and lone CR
/// become LF so that offsets and lines agree everywhere, and a stray BOM (U+FEFF) inside the text
/// (left by concatenating files) is dropped. Valid UTF-8 that needs none of this is borrowed,
/// not copied.
pub(crate) fn decode(bytes: &[u8]) -> Result<Cow<'_, str>, Problem> {
    let text = if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        Cow::Borrowed(utf8(rest, 3)?)
    } else if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        Cow::Owned(utf16(bytes)?)
    } else {
        Cow::Borrowed(utf8(bytes, 0)?)
    };
    finish_text(text)
}

/// Whether `bytes` open with gzip's magic number: a compressed response saved as the page.
fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// Whether `decode` read `bytes` as UTF-8 (no UTF-16 BOM) and found them invalid: the one case
/// a legacy charset may explain.
fn not_utf8(bytes: &[u8]) -> bool {
    match bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        Some(rest) => std::str::from_utf8(rest).is_err(),
        None => {
            !bytes.starts_with(&[0xFF, 0xFE])
                && !bytes.starts_with(&[0xFE, 0xFF])
                && std::str::from_utf8(bytes).is_err()
        }
    }
}

/// As `decode`, but HTML that is not UTF-8 may declare its legacy charset (`<meta charset>` or
/// `http-equiv="Content-Type"`), as browsers allow: Windows-1256 Arabic pages are common.
pub(crate) fn decode_html(bytes: &[u8]) -> Result<Cow<'_, str>, Problem> {
    match decode(bytes) {
        Ok(t) => Ok(t),
        Err(p) if not_utf8(bytes) && !is_gzip(bytes) => {
            let Some(label) = sniff_meta_charset(bytes) else {
                return Err(p.help("declare the page's charset with <meta charset=\"windows-1256\"> (or whichever it is), or convert it: `iconv -f WINDOWS-1256 -t UTF-8 page.html > fixed.html`"));
            };
            let Some(enc) = encoding_rs::Encoding::for_label(label.as_bytes()) else {
                return Err(Problem::error(
                    "encoding",
                    format!(
                        "unknown charset `{label}` declared in <meta>, and the file is not UTF-8"
                    ),
                )
                .help("fix the <meta charset>, or convert the file to UTF-8 (e.g. with iconv)"));
            };
            match enc.decode_without_bom_handling_and_without_replacement(bytes) {
                Some(text) => finish_text(Cow::Owned(text.into_owned())),
                None => Err(Problem::error("encoding", format!("the file is neither UTF-8 nor the {} its <meta> declares", enc.name()))
                    .help(format!("convert it to UTF-8 (e.g. `iconv -f {} -t UTF-8`) after checking which encoding it really uses", enc.name()))),
            }
        }
        Err(p) => Err(p),
    }
}

/// The charset label a page declares in its first 4 KiB: `<meta charset=X>` or
/// `<meta http-equiv="Content-Type" content="text/html; charset=X">`.
fn sniff_meta_charset(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(4096)];
    let lower: Vec<u8> = head.iter().map(u8::to_ascii_lowercase).collect();
    let mut from = 0;
    while let Some(at) = find(&lower[from..], b"<meta") {
        let start = from + at;
        let end = find(&lower[start..], b">").map_or(lower.len(), |e| start + e);
        let tag = &lower[start..end];
        if let Some(c) = find(tag, b"charset") {
            let rest = &tag[c + "charset".len()..];
            let rest = rest
                .iter()
                .skip_while(|b| b.is_ascii_whitespace())
                .copied()
                .collect::<Vec<u8>>();
            if let Some(v) = rest.strip_prefix(b"=") {
                let label: String = v
                    .iter()
                    .skip_while(|b| b.is_ascii_whitespace() || **b == b'"' || **b == b'\'')
                    .take_while(|b| {
                        b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.')
                    })
                    .map(|&b| b as char)
                    .collect();
                if !label.is_empty() {
                    return Some(label);
                }
            }
        }
        from = end.max(start + 1);
    }
    None
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn utf16(bytes: &[u8]) -> Result<String, Problem> {
    let le = bytes[0] == 0xFF;
    let units = bytes[2..].chunks(2).map(|c| {
        let pair = [c[0], *c.get(1).unwrap_or(&0)];
        if le {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    });
    char::decode_utf16(units)
        .collect::<Result<String, _>>()
        .map_err(|e| {
            Problem::error(
                "encoding",
                format!(
                    "invalid UTF-16: unpaired surrogate {:#06x}",
                    e.unpaired_surrogate()
                ),
            )
            .help("re-save the file as UTF-8")
        })
}

/// Checks and line endings shared by every decoding.
fn finish_text(text: Cow<'_, str>) -> Result<Cow<'_, str>, Problem> {
    // One pass finds whether any of NUL, CR or a BOM's lead byte occurs (most texts have none).
    if memchr::memchr3(0, b'\r', 0xEF, text.as_bytes()).is_none() {
        return Ok(text);
    }
    if let Some(pos) = text.find('\0') {
        let (message, help) = match utf16_without_bom(text.as_bytes()) {
            Some(order) => (
                format!(
                    "NUL bytes between characters (the first at byte offset {pos}): this looks like {order} without a BOM"
                ),
                format!(
                    "re-save the file as UTF-8 (it looks like {order} without a BOM; e.g. `iconv -f {order} -t UTF-8`)"
                ),
            ),
            None => (
                format!("NUL byte at byte offset {pos}: this is not a text file"),
                "remove the file from the library or exclude it with a glob".to_string(),
            ),
        };
        return Err(Problem::error("encoding", message)
            .at_line(crate::diag::line_of(&text, pos))
            .help(help));
    }
    let text = if text.contains('\u{feff}') {
        Cow::Owned(text.replace('\u{feff}', ""))
    } else {
        text
    };
    if text.contains('\r') {
        Ok(Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n")))
    } else {
        Ok(text)
    }
}

/// `UTF-16LE`/`UTF-16BE` when the bytes look like UTF-16 without a BOM: in the first 4 KiB,
/// nearly every high byte of a code unit is 0x00 (ASCII) or 0x06 (Arabic), with NULs among them.
fn utf16_without_bom(bytes: &[u8]) -> Option<&'static str> {
    let head = &bytes[..bytes.len().min(4096)];
    if head.len() < 4 {
        return None;
    }
    let share = |offset: usize| {
        let high: Vec<u8> = head.iter().skip(offset).step_by(2).copied().collect();
        let nul = high.iter().filter(|&&b| b == 0).count();
        let plausible = high.iter().filter(|&&b| b == 0 || b == 0x06).count();
        (nul > 0 && plausible * 10 >= high.len() * 9, plausible)
    };
    let ((le, le_score), (be, be_score)) = (share(1), share(0));
    if le && (!be || le_score >= be_score) {
        Some("UTF-16LE")
    } else if be {
        Some("UTF-16BE")
    } else {
        None
    }
}

fn utf8(bytes: &[u8], offset: usize) -> Result<&str, Problem> {
    // Arabic text is mostly 2-byte sequences, where the standard library's check runs at about
    // 1 GB/s (~0.15 s of a 10k-document build); `simdutf8` checks 16–32 bytes at a time. Its
    // `basic` check says only whether the bytes are valid: the standard one locates the error.
    if let Ok(s) = simdutf8::basic::from_utf8(bytes) {
        return Ok(s);
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) => {
            let at = e.valid_up_to();
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            if offset == 0 && is_gzip(bytes) {
                // A site mirror that saved the server's compressed response as the page.
                return Err(Problem::error(
                    "encoding",
                    "the file is gzip-compressed, not text".to_string(),
                )
                .at_line(1)
                .help("decompress it (e.g. `mv page.html page.html.gz && gunzip page.html.gz`), or leave it out in a .ignore file"));
            }
            let hint = match utf16_without_bom(bytes) {
                Some(order) => format!("this looks like {order} without a BOM: re-save it as UTF-8"),
                None => "re-save the file as UTF-8 (it may be Windows-1256 or Latin-1; e.g. `iconv -f WINDOWS-1256 -t UTF-8`)".to_string(),
            };
            Err(Problem::error(
                "encoding",
                format!("invalid UTF-8 at byte offset {}", at + offset),
            )
            .at_line(line)
            .help(hint))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(s: &str, le: bool) -> Vec<u8> {
        s.encode_utf16()
            .flat_map(|u| if le { u.to_le_bytes() } else { u.to_be_bytes() })
            .collect()
    }

    #[test]
    fn a_gzip_compressed_page_is_named_with_how_to_decompress_it() {
        let e = decode(&[0x1f, 0x8b, 0x08, 0x00, 0xa7, 0xd2, 0xff, 0x00]).unwrap_err();
        assert!(e.message.contains("gzip-compressed"), "{}", e.message);
        assert!(e.help.as_deref().unwrap_or("").contains("gunzip"));
        let e = decode_html(&[0x1f, 0x8b, 0x08, 0x00, 0xa7, 0xd2, 0xff, 0x00]).unwrap_err();
        assert!(e.help.as_deref().unwrap_or("").contains("gunzip"), "{e:?}");
    }

    #[test]
    fn utf16_without_a_bom_is_named() {
        let e = decode(&utf16("# عنوان\n\nنص عربي.\n", true)).unwrap_err();
        assert!(
            e.message.contains("UTF-16LE without a BOM"),
            "{}",
            e.message
        );
        let e = decode(&utf16("# عنوان\n\nنص عربي.\n", false)).unwrap_err();
        assert!(
            e.message.contains("UTF-16BE without a BOM"),
            "{}",
            e.message
        );
        let e = decode(b"# t\n\nab\0c\n").unwrap_err();
        assert!(
            e.message.contains("NUL byte at byte offset 7"),
            "{}",
            e.message
        );
    }

    #[test]
    fn legacy_html_charsets_are_sniffed() {
        assert_eq!(
            sniff_meta_charset(b"<HTML><Meta Charset = 'Windows-1256'>").as_deref(),
            Some("windows-1256")
        );
        assert_eq!(
            sniff_meta_charset(
                b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1256\">"
            )
            .as_deref(),
            Some("windows-1256")
        );
        assert_eq!(
            sniff_meta_charset(b"<meta name=\"x\"><p>charset=utf-8</p>"),
            None
        );
        let page = [
            b"<meta charset=\"windows-1256\"><p>".as_slice(),
            &[0xE3, 0xD1, 0xCD, 0xC8, 0xC7],
            b"</p>",
        ]
        .concat();
        assert!(decode_html(&page).unwrap().contains("مرحبا"));
        assert!(
            decode(&page).is_err(),
            "only HTML may declare a legacy charset"
        );
    }

    #[test]
    fn stray_boms_and_carriage_returns_go() {
        assert_eq!(
            decode("\u{feff}a\u{feff}b\r\nc\rd".as_bytes()).unwrap(),
            "ab\nc\nd"
        );
    }
}
