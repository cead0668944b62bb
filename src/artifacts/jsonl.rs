//! The chunk and lookup JSON lines of a shard, written straight into one buffer each: the
//! same bytes `serde_json::to_writer` gives for the record structs (compact, fields in
//! declaration order, metadata in insertion order, serde_json's string escapes), without a
//! metadata map cloned per chunk. Each string is escaped once: a chunk's text and metadata
//! are copied from its chunk record into its lookup record, and a document's fields and
//! metadata entries are escaped once for all its chunks. The tests compare with serde_json.

use serde_json::{Map, Value};

use super::{BuiltChunk, BuiltDoc};

/// Writes `s` as a JSON string: `"`, `\` and control characters escaped as serde_json does
/// (`\b \t \n \f \r`, else `\u00XX` in lowercase hex), everything else copied as is.
pub(super) fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut copied = 0;
    let mut i = 0;
    // A block at a time while none needs an escape (the usual case); the flag is an OR over
    // the block, which the compiler turns into vector compares.
    while i + BLOCK <= bytes.len() {
        let block: &[u8; BLOCK] = bytes[i..i + BLOCK].try_into().expect("one block");
        if block.iter().fold(false, |any, &b| {
            any | (b < 0x20) | (b == b'"') | (b == b'\\')
        }) {
            for (j, &b) in block.iter().enumerate() {
                if let Some(esc) = escape(b) {
                    out.extend_from_slice(&bytes[copied..i + j]);
                    out.extend_from_slice(&esc);
                    copied = i + j + 1;
                }
            }
        }
        i += BLOCK;
    }
    for (j, &b) in bytes.iter().enumerate().skip(i) {
        if let Some(esc) = escape(b) {
            out.extend_from_slice(&bytes[copied..j]);
            out.extend_from_slice(&esc);
            copied = j + 1;
        }
    }
    out.extend_from_slice(&bytes[copied..]);
    out.push(b'"');
}

/// Bytes scanned at a time for a byte to escape.
const BLOCK: usize = 32;

/// serde_json's escape of one byte, padded to a fixed width; `None` when copied as is.
#[inline]
fn escape(b: u8) -> Option<EscapeBytes> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = |c: u8| EscapeBytes {
        bytes: [b'\\', c, 0, 0, 0, 0],
        len: 2,
    };
    match b {
        b'"' => Some(short(b'"')),
        b'\\' => Some(short(b'\\')),
        0x08 => Some(short(b'b')),
        0x09 => Some(short(b't')),
        0x0A => Some(short(b'n')),
        0x0C => Some(short(b'f')),
        0x0D => Some(short(b'r')),
        0x00..0x20 => Some(EscapeBytes {
            bytes: [
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(b >> 4) as usize],
                HEX[(b & 0xF) as usize],
            ],
            len: 6,
        }),
        _ => None,
    }
}

struct EscapeBytes {
    bytes: [u8; 6],
    len: usize,
}

impl std::ops::Deref for EscapeBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Writes a decimal number as serde_json does.
fn write_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

fn write_json(out: &mut Vec<u8>, v: &impl serde::Serialize) {
    serde_json::to_writer(&mut *out, v).expect("JSON values serialize");
}

/// One entry of a chunk's metadata: the document's own, serialized once as `"key":value`, or
/// where the chunk's `heading_path` and `span` go (`BuiltDoc::chunk_metadata` inserts them:
/// in place of a document key of that name, else appended in that order).
enum MetaEntry {
    Fixed(Vec<u8>),
    HeadingPath,
    Span,
}

/// What a document's chunks share, escaped once.
struct DocParts {
    doc_id: Vec<u8>,
    library: Vec<u8>,
    source: Vec<u8>,
    title: Vec<u8>,
    url: Vec<u8>,
    domains: Vec<u8>,
    metadata: Vec<MetaEntry>,
}

impl DocParts {
    fn new(d: &BuiltDoc) -> Self {
        let str_json = |s: &str| {
            let mut v = Vec::with_capacity(s.len() + 2);
            write_str(&mut v, s);
            v
        };
        let mut domains = vec![b'['];
        for (i, dom) in d.domains.iter().enumerate() {
            if i > 0 {
                domains.push(b',');
            }
            write_str(&mut domains, dom);
        }
        domains.push(b']');
        DocParts {
            doc_id: str_json(d.doc_id.as_str()),
            library: str_json(&d.library),
            source: str_json(&d.source),
            title: str_json(&d.title),
            url: str_json(&d.url),
            domains,
            metadata: meta_entries(&d.metadata),
        }
    }
}

fn meta_entries(m: &Map<String, Value>) -> Vec<MetaEntry> {
    let mut entries: Vec<MetaEntry> = m
        .iter()
        .map(|(k, v)| match k.as_str() {
            "heading_path" => MetaEntry::HeadingPath,
            "span" => MetaEntry::Span,
            _ => {
                let mut e = Vec::new();
                write_str(&mut e, k);
                e.push(b':');
                write_json(&mut e, v);
                MetaEntry::Fixed(e)
            }
        })
        .collect();
    if !m.contains_key("heading_path") {
        entries.push(MetaEntry::HeadingPath);
    }
    if !m.contains_key("span") {
        entries.push(MetaEntry::Span);
    }
    entries
}

fn write_metadata(out: &mut Vec<u8>, entries: &[MetaEntry], c: &BuiltChunk) {
    out.push(b'{');
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match e {
            MetaEntry::Fixed(bytes) => out.extend_from_slice(bytes),
            MetaEntry::HeadingPath => {
                out.extend_from_slice(b"\"heading_path\":[");
                for (j, h) in c.heading_path.iter().enumerate() {
                    if j > 0 {
                        out.push(b',');
                    }
                    write_str(out, h);
                }
                out.push(b']');
            }
            MetaEntry::Span => {
                out.extend_from_slice(b"\"span\":[");
                write_u64(out, c.span.0 as u64);
                out.push(b',');
                write_u64(out, c.span.1 as u64);
                out.push(b']');
            }
        }
    }
    out.push(b'}');
}

/// A chunk's section anchors as `[[offset,"id"],…]`.
fn write_anchors(out: &mut Vec<u8>, anchors: &[(usize, String)]) {
    out.push(b'[');
    for (i, (at, id)) in anchors.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'[');
        write_u64(out, *at as u64);
        out.push(b',');
        write_str(out, id);
        out.push(b']');
    }
    out.push(b']');
}

/// The chunks and lookup JSON lines of `docs`, with their record count.
pub(super) fn chunks_and_lookup(docs: &[&BuiltDoc]) -> (Vec<u8>, Vec<u8>, usize) {
    let (chunks_len, lookup_len, n) = estimates(docs);
    let mut chunks = Vec::with_capacity(chunks_len);
    let mut lookup = Vec::with_capacity(lookup_len);
    for d in docs {
        let p = DocParts::new(d);
        for c in &d.chunks {
            chunk_line(&mut chunks, &mut lookup, &p, c);
        }
    }
    (chunks, lookup, n)
}

/// About how long both files of these documents are (text is most of both, search text only
/// of chunks; plus a margin per record), and how many records they hold.
pub(super) fn estimates(docs: &[&BuiltDoc]) -> (usize, usize, usize) {
    let (mut text, mut search, mut n) = (0, 0, 0);
    for c in docs.iter().flat_map(|d| &d.chunks) {
        text += c.text.as_str().len();
        search += c.search_text.as_str().len();
        n += 1;
    }
    (text + search + n * 512, text + n * 384, n)
}

/// `chunks_and_lookup` written to `chunks` and `lookup` as it is made, a few megabytes at a
/// time, for files too large to hold (`Spill`).
pub(super) fn chunks_and_lookup_into(
    docs: &[&BuiltDoc],
    chunks: &mut impl std::io::Write,
    lookup: &mut impl std::io::Write,
) -> std::io::Result<()> {
    const PIECE: usize = 4 << 20;
    let (mut c_buf, mut l_buf) = (Vec::with_capacity(PIECE * 2), Vec::with_capacity(PIECE * 2));
    for d in docs {
        let p = DocParts::new(d);
        for c in &d.chunks {
            chunk_line(&mut c_buf, &mut l_buf, &p, c);
        }
        if c_buf.len() >= PIECE {
            chunks.write_all(&c_buf)?;
            c_buf.clear();
        }
        if l_buf.len() >= PIECE {
            lookup.write_all(&l_buf)?;
            l_buf.clear();
        }
    }
    chunks.write_all(&c_buf)?;
    lookup.write_all(&l_buf)
}

/// Where `write` put its bytes in `out`.
fn written(out: &mut Vec<u8>, write: impl FnOnce(&mut Vec<u8>)) -> std::ops::Range<usize> {
    let at = out.len();
    write(out);
    at..out.len()
}

/// One chunk's record in both files (the field order of `ChunkRecord` and `LookupRecord`);
/// the lookup record copies the escaped ID, text and metadata from the chunk record.
fn chunk_line(chunks: &mut Vec<u8>, lookup: &mut Vec<u8>, p: &DocParts, c: &BuiltChunk) {
    let field = |out: &mut Vec<u8>, name: &[u8], json: &[u8]| {
        out.extend_from_slice(name);
        out.extend_from_slice(json);
    };
    field(chunks, b"{\"doc_id\":", &p.doc_id);
    chunks.extend_from_slice(b",\"chunk_id\":");
    let id = written(chunks, |o| write_str(o, c.chunk_id.as_str()));
    field(chunks, b",\"library\":", &p.library);
    field(chunks, b",\"source\":", &p.source);
    field(chunks, b",\"title\":", &p.title);
    field(chunks, b",\"url\":", &p.url);
    chunks.extend_from_slice(b",\"chunk_index\":");
    write_u64(chunks, c.index as u64);
    field(chunks, b",\"domains\":", &p.domains);
    chunks.extend_from_slice(b",\"text\":");
    let text = written(chunks, |o| write_str(o, c.text.as_str()));
    chunks.extend_from_slice(b",\"anchors\":");
    let anchors = written(chunks, |o| write_anchors(o, &c.anchors));
    chunks.extend_from_slice(b",\"search_text\":");
    write_str(chunks, c.search_text.as_str());
    chunks.extend_from_slice(b",\"metadata\":");
    let meta = written(chunks, |o| write_metadata(o, &p.metadata, c));
    chunks.extend_from_slice(b"}\n");

    field(lookup, b"{\"chunk_id\":", &chunks[id]);
    field(lookup, b",\"title\":", &p.title);
    field(lookup, b",\"url\":", &p.url);
    field(lookup, b",\"text\":", &chunks[text]);
    field(lookup, b",\"anchors\":", &chunks[anchors]);
    field(lookup, b",\"domains\":", &p.domains);
    field(lookup, b",\"library\":", &p.library);
    field(lookup, b",\"metadata\":", &chunks[meta]);
    lookup.extend_from_slice(b"}\n");
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::identity::{ChunkId, DocId, chunk_id, doc_id};
    use crate::text::{SearchText, Text, Tokens};
    use proptest::prelude::*;
    use serde::Serialize;
    use serde_json::json;

    fn str_json(s: &str) -> Vec<u8> {
        let mut out = Vec::new();
        write_str(&mut out, s);
        out
    }

    #[test]
    fn strings_escape_as_serde_json() {
        // Every ASCII byte, alone and at each position of a block and across a block edge.
        for b in 0u8..0x80 {
            let c = (b as char).to_string();
            for pad in [0usize, 1, 7, 31, 32, 33, 63] {
                let s = format!("{}{c}ب{c}", "ا".repeat(pad / 2) + &"x".repeat(pad % 2));
                assert_eq!(str_json(&s), serde_json::to_vec(&s).unwrap(), "{s:?}");
            }
        }
        for s in [
            "",
            "\"",
            "\\\\\"\"",
            "سطر\nسطر\r\n\t\u{7f}\u{1f}\u{0}",
            "🙂 e\u{301} \u{2028}\u{2029}",
        ] {
            assert_eq!(str_json(s), serde_json::to_vec(s).unwrap(), "{s:?}");
        }
    }

    proptest! {
        #[test]
        fn any_string_escapes_as_serde_json(s in any::<String>(), t in "[\\x00-\\x7f\u{600}-\u{6ff}]{0,80}") {
            prop_assert_eq!(str_json(&s), serde_json::to_vec(&s).unwrap());
            prop_assert_eq!(str_json(&t), serde_json::to_vec(&t).unwrap());
        }
    }

    /// The records as they were rendered before: serde over structs, with the chunk metadata
    /// a clone of the document's plus `heading_path` and `span` inserted.
    #[derive(Serialize)]
    struct ChunkRecordOut<'a> {
        doc_id: &'a DocId,
        chunk_id: &'a ChunkId,
        library: &'a str,
        source: &'a str,
        title: &'a str,
        url: &'a str,
        chunk_index: usize,
        domains: &'a [String],
        text: &'a Text,
        anchors: &'a [(usize, String)],
        search_text: &'a SearchText,
        metadata: Map<String, Value>,
    }

    #[derive(Serialize)]
    struct LookupOut<'a> {
        chunk_id: &'a ChunkId,
        title: &'a str,
        url: &'a str,
        text: &'a Text,
        anchors: &'a [(usize, String)],
        domains: &'a [String],
        library: &'a str,
        metadata: Map<String, Value>,
    }

    fn oracle(docs: &[&BuiltDoc]) -> (Vec<u8>, Vec<u8>) {
        let (mut chunks, mut lookup) = (Vec::new(), Vec::new());
        for d in docs {
            for c in &d.chunks {
                let mut metadata = d.metadata.clone();
                metadata.insert("heading_path".into(), Value::from(c.heading_path.clone()));
                metadata.insert(
                    "span".into(),
                    Value::from(vec![c.span.0 as u64, c.span.1 as u64]),
                );
                let row = ChunkRecordOut {
                    doc_id: &d.doc_id,
                    chunk_id: &c.chunk_id,
                    library: &d.library,
                    source: &d.source,
                    title: &d.title,
                    url: &d.url,
                    chunk_index: c.index,
                    domains: &d.domains,
                    text: &c.text,
                    anchors: &c.anchors,
                    search_text: &c.search_text,
                    metadata: metadata.clone(),
                };
                serde_json::to_writer(&mut chunks, &row).unwrap();
                chunks.push(b'\n');
                let row = LookupOut {
                    chunk_id: &c.chunk_id,
                    title: &d.title,
                    url: &d.url,
                    text: &c.text,
                    anchors: &c.anchors,
                    domains: &d.domains,
                    library: &d.library,
                    metadata,
                };
                serde_json::to_writer(&mut lookup, &row).unwrap();
                lookup.push(b'\n');
            }
        }
        (chunks, lookup)
    }

    pub(in crate::artifacts) fn doc(slug: &str, metadata: Value, texts: &[&str]) -> BuiltDoc {
        let id = doc_id("lib", slug).unwrap();
        let chunks = texts
            .iter()
            .enumerate()
            .map(|(i, t)| BuiltChunk {
                chunk_id: chunk_id(&id, i, 3),
                index: i,
                text: Text::new(*t),
                search_text: search_text_of(t.replace('\n', " ")),
                extra_tokens: Tokens::default(),
                context_tokens: Tokens::default(),
                heading_path: vec!["عنوان \"أول\"".into(), format!("قسم\t{i}")],
                anchors: vec![(0, String::new()), (i, format!("قسم-\"{i}\""))],
                span: (i * 100, i * 100 + t.len()),
                vector: vec![0.5, -0.25],
            })
            .collect();
        BuiltDoc {
            doc_id: id,
            library: "lib".into(),
            source: format!("lib/{slug}.md"),
            title: "عيد \\ الميلاد \"المجيد\"".into(),
            url: format!("/lib/{slug}?a=1&b=\"2\""),
            domains: vec!["faith".into(), "سنكسار".into()],
            metadata: metadata.as_object().unwrap().clone(),
            chunks,
        }
    }

    #[test]
    fn records_match_serde_rendering() {
        let docs = [
            doc(
                "plain",
                json!({}),
                &["نص أول\n\nفقرة ثانية", "نص \"مقتبس\" \\ \u{1}"],
            ),
            doc(
                "meta",
                json!({"date": "2024-01-07", "n": 3, "x": 1.5e-7, "neg": -12, "big": 18446744073709551615u64, "nested": {"b": [1, null, true], "a": "س"}, "مفتاح\n": "قيمة"}),
                &["واحد"],
            ),
            // Keys the chunk overrides keep their place; the other is appended.
            doc(
                "override",
                json!({"span": "old", "z": 1, "a": 2}),
                &["اثنان", "ثلاثة"],
            ),
            doc(
                "both",
                json!({"heading_path": ["x"], "k": false, "span": [0, 0]}),
                &["أربعة"],
            ),
            doc("empty", json!({"k": "v"}), &[]),
        ];
        let refs: Vec<&BuiltDoc> = docs.iter().collect();
        let (chunks, lookup, n) = chunks_and_lookup(&refs);
        let (want_chunks, want_lookup) = oracle(&refs);
        assert_eq!(
            String::from_utf8(chunks).unwrap(),
            String::from_utf8(want_chunks).unwrap()
        );
        assert_eq!(
            String::from_utf8(lookup).unwrap(),
            String::from_utf8(want_lookup).unwrap()
        );
        assert_eq!(n, 6);
        // The records read back as the read-side types.
        let (chunks, lookup, _) = chunks_and_lookup(&refs);
        for line in chunks.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            serde_json::from_slice::<crate::artifacts::ChunkRecord>(line).unwrap();
        }
        for line in lookup.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            serde_json::from_slice::<crate::artifacts::LookupRecord>(line).unwrap();
        }
    }

    /// A search text as given (the compile cache's way of reading one back).
    fn search_text_of(s: impl Into<String>) -> SearchText {
        serde_json::from_value(serde_json::Value::String(s.into())).unwrap()
    }
}
