//! identify: `doc_id` = `<library>:<slug>` from source identity, `chunk_id` = `doc_id:NNN`.
//! IDs are ASCII, at most 64 bytes (the Vectorize vector-ID limit) and unique within a build;
//! the types can only be built here, through the checks. Also the names a user gives that become
//! one file-name component (`component`), and a path segment's ordering prefix (`strip_order`).

mod translit;

use std::fmt;

use serde::Serialize;

pub(crate) use translit::{arabic_spelling, is_transliterated};

/// The Vectorize vector-ID limit, which every chunk ID must meet.
pub(crate) const MAX_ID_BYTES: usize = 64;

// Deserialize exists only for the compile cache, which holds IDs this module built.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct DocId(String);

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct ChunkId(String);

impl DocId {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl ChunkId {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for DocId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for ChunkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The slug of a file: its path relative to the library root, extension dropped, a trailing
/// `/index` dropped.
pub(crate) fn file_slug(rel: &str) -> String {
    let no_ext = match rel.rsplit_once('.') {
        Some((stem, ext)) if !ext.contains('/') && !stem.is_empty() && !stem.ends_with('/') => stem,
        _ => rel,
    };
    no_ext.strip_suffix("/index").unwrap_or(no_ext).to_string()
}

/// Why a slug cannot make an ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SlugError {
    Empty,
    BadChar(char),
    /// A path segment that is empty, `.` or `..` (`a//b`, `/x`, `./x`, `a/../b`): such an ID
    /// would look like a path and could be read as one by whatever stores it.
    BadSegment(String),
}

impl fmt::Display for SlugError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SlugError::Empty => f.write_str("the slug is empty"),
            SlugError::BadChar(c) => write!(
                f,
                "the slug contains `{c}` (U+{:04X}); IDs allow ASCII letters, digits, `-`, `_`, `.`, `/`",
                *c as u32
            ),
            SlugError::BadSegment(seg) => write!(
                f,
                "the slug has a `{seg}` path segment; `/`-separated parts must be non-empty and not `.` or `..`"
            ),
        }
    }
}

pub(crate) fn check_slug(slug: &str) -> Result<(), SlugError> {
    if slug.is_empty() {
        return Err(SlugError::Empty);
    }
    if let Some(c) = slug
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/')))
    {
        return Err(SlugError::BadChar(c));
    }
    match slug
        .split('/')
        .find(|seg| seg.is_empty() || *seg == "." || *seg == "..")
    {
        Some(seg) => Err(SlugError::BadSegment(seg.to_string())),
        None => Ok(()),
    }
}

/// A doc ID from a library id and a checked slug.
#[cfg(test)]
pub(crate) fn doc_id(library: &str, slug: &str) -> Result<DocId, SlugError> {
    check_slug(slug)?;
    Ok(DocId(format!("{library}:{slug}")))
}

/// The character that marks a mapped slug: valid slugs never contain it, so a mapped ID can never
/// equal a valid slug's, and an ID holds it exactly when it was mapped. `~` is unreserved in URLs
/// and KV keys, so mapped IDs need no further quoting anywhere they go.
pub(crate) const ESCAPE: char = '~';

/// What a shortened slug ends with: the marker and 16 hex digits (64 bits) of the whole slug's
/// blake3. `h` is not a hex digit, so it never reads as a byte escape.
const HASH_MARK: &str = "~h";
const HASH_HEX: usize = 16;

/// How a library makes IDs of slugs that are not IDs as they are (`[[library]] slugs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SlugStyle {
    /// Each byte outside the ID alphabet escaped as `~XX`: exact, and what every ID was before
    /// the key existed.
    #[default]
    Escape,
    /// Spelled in ASCII (`notes/مسألة` → `notes/msalh~t…`) with a hash of the name: readable.
    Transliterate,
}

/// How a source's slug became the slug part of its ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SlugForm {
    /// A valid slug that fits: the ID is `<library>:<slug>`, as always.
    Same,
    /// Put in NFC, each byte outside the ID alphabet (and each `.`/`..`/empty path segment)
    /// escaped as `~XX`: injective, and readable enough to recognise the source.
    Escaped,
    /// Too long for 64-byte chunk IDs: a prefix (cut at a `/` where there is one) plus `~h` and
    /// a hash of the whole slug.
    Shortened,
    /// Spelled in ASCII, with `~t` and a hash of the whole slug (`SlugStyle::Transliterate`).
    Transliterated,
}

/// Why no ID can be made at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MapError {
    /// The slug is empty: nothing identifies the source.
    Empty,
    /// The library id leaves no room for even a shortened slug.
    LibraryTooLong { room: usize },
}

impl fmt::Display for MapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MapError::Empty => f.write_str("the slug is empty"),
            MapError::LibraryTooLong { room } => write!(
                f,
                "the library id leaves {room} bytes of the {MAX_ID_BYTES}-byte chunk ID for the slug, \
                 too few for even a shortened one"
            ),
        }
    }
}

/// How many digits a chunk index takes in a document of `chunks` chunks (at least `width`).
pub(crate) fn index_digits(chunks: usize, width: usize) -> usize {
    let mut n = chunks.saturating_sub(1);
    let mut digits = 1;
    while n >= 10 {
        n /= 10;
        digits += 1;
    }
    digits.max(width)
}

/// The doc ID of a source whose slug is `slug`, mapped so that a file name never blocks a build
/// (DESIGN §4). A valid slug whose chunk IDs fit (`digits`: the document's own index digits)
/// maps to itself, so no existing ID changes. Any other slug is put in NFC and escaped; if that
/// does not fit with `reserve` index digits (the most a document may need, so a mapped ID does
/// not move when a document grows), it is shortened. With `SlugStyle::Transliterate`, a slug
/// that is not valid is spelled in ASCII instead (`translit::transliterate`). A pure function of
/// its arguments.
pub(crate) fn map_doc_id(
    library: &str,
    slug: &str,
    digits: usize,
    reserve: usize,
    style: SlugStyle,
) -> Result<(DocId, SlugForm), MapError> {
    if slug.is_empty() {
        return Err(MapError::Empty);
    }
    let fixed = library.len() + 2; // `<library>:` and the `:` before the index
    if check_slug(slug).is_ok() && fixed + slug.len() + digits <= MAX_ID_BYTES {
        return Ok((DocId(format!("{library}:{slug}")), SlugForm::Same));
    }
    let room = MAX_ID_BYTES.saturating_sub(fixed + reserve);
    if style == SlugStyle::Transliterate && check_slug(slug).is_err() {
        let spelled =
            translit::transliterate(slug, room).ok_or(MapError::LibraryTooLong { room })?;
        return Ok((
            DocId(format!("{library}:{spelled}")),
            SlugForm::Transliterated,
        ));
    }
    let escaped = if check_slug(slug).is_ok() {
        slug.to_string()
    } else {
        escape_slug(slug)
    };
    if escaped.len() <= room && escaped != slug {
        return Ok((DocId(format!("{library}:{escaped}")), SlugForm::Escaped));
    }
    let short = shorten(&escaped, slug, room).ok_or(MapError::LibraryTooLong { room })?;
    Ok((DocId(format!("{library}:{short}")), SlugForm::Shortened))
}

/// The NFC slug with each byte outside the ID alphabet escaped as `~XX` (`~` itself included),
/// each `.` and `..` segment escaped whole, and each `/` that would leave an empty segment
/// escaped too. Replacing every `~XX` by its byte gives the NFC slug back: the map is injective.
fn escape_slug(slug: &str) -> String {
    use std::fmt::Write;
    use unicode_normalization::UnicodeNormalization;
    let nfc: String = slug.nfc().collect();
    let mut out = String::with_capacity(nfc.len() * 2);
    for (i, seg) in nfc.split('/').enumerate() {
        if i > 0 {
            let after_segment = !out.is_empty() && !out.ends_with('/');
            out.push_str(if after_segment && !seg.is_empty() {
                "/"
            } else {
                "~2F"
            });
        }
        match seg {
            "." => out.push_str("~2E"),
            ".." => out.push_str("~2E~2E"),
            _ => {
                for c in seg.chars() {
                    if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                        out.push(c);
                    } else {
                        for b in c.to_string().bytes() {
                            let _ = write!(out, "~{b:02X}");
                        }
                    }
                }
            }
        }
    }
    out
}

/// A prefix of `escaped` plus the hash of the whole `slug`, in at most `room` bytes: cut after
/// the last `/` that fits (a segment boundary) when that keeps at least half the room, else
/// anywhere but inside a `~XX` escape.
fn shorten(escaped: &str, slug: &str, room: usize) -> Option<String> {
    use unicode_normalization::UnicodeNormalization;
    let keep = room.checked_sub(HASH_MARK.len() + HASH_HEX)?;
    let window = &escaped.as_bytes()[..keep.min(escaped.len())];
    // A segment boundary, unless it would throw away more than half of the room.
    let cut = match window.iter().rposition(|&b| b == b'/') {
        Some(p) if p > 0 && 2 * (p + 1) >= window.len() => p + 1,
        _ => {
            let mut cut = window.len();
            if let Some(t) = window[cut.saturating_sub(2)..]
                .iter()
                .rposition(|&b| b == b'~')
            {
                cut = cut.saturating_sub(2) + t;
            }
            cut
        }
    };
    let nfc: String = slug.nfc().collect();
    let hash = blake3::hash(nfc.as_bytes()).to_hex();
    // Escaped slugs are ASCII, so any byte offset is a char boundary.
    Some(format!(
        "{}{HASH_MARK}{}",
        &escaped[..cut],
        &hash[..HASH_HEX]
    ))
}

/// Whether an ID was mapped (escaped or shortened) rather than taken as its slug.
pub(crate) fn is_mapped(id: &str) -> bool {
    id.contains(ESCAPE)
}

/// The ID of the chunk at `index` of a document, zero-padded to `width` digits.
pub(crate) fn chunk_id(doc: &DocId, index: usize, width: usize) -> ChunkId {
    ChunkId(format!("{}:{:0width$}", doc.0, index, width = width))
}

/// The longest chunk ID a document with `chunks` chunks gets.
#[cfg(test)]
pub(crate) fn longest_chunk_id_len(doc: &DocId, chunks: usize, width: usize) -> usize {
    doc.0.len() + 1 + index_digits(chunks, width)
}

/// `01-intro` → `intro`, `2 - part` → `part`, `03.setup` → `setup`: leading digits, then
/// separators (`-`, `_`, `.`, spaces), then a name. A segment of digits only (`2024`) or with
/// nothing after its separators is kept as it is.
pub(crate) fn strip_order(seg: &str) -> &str {
    let rest = seg.trim_start_matches(|c: char| c.is_ascii_digit());
    if rest.len() == seg.len() {
        return seg;
    }
    let name = rest.trim_start_matches(['-', '_', '.', ' ']);
    if name.len() == rest.len() || name.is_empty() {
        return seg;
    }
    name
}

/// What `component` accepts, as messages say it.
pub(crate) const NAME_RULE: &str = "1 to 64 ASCII letters, digits, `-`, `_` or `.`, starting with a letter, digit or `_` and not ending with `.`";

const MAX_NAME: usize = 64;

/// Device names Windows reserves (any case, before the first `.`): such a file cannot be made there.
const RESERVED: [&str; 22] = [
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
];

/// A user-given name as one file-name component, or what is wrong with it.
///
/// Allowed: 1 to 64 bytes, each an ASCII letter, digit, `-`, `_` or `.`; the first a letter,
/// digit or `_` (never `.`, `..`, a hidden file, or a word a command line reads as an option); the last
/// not `.`; and not a device name Windows reserves (`con`, `nul`, `com1`… before the first `.`).
/// Everything else is refused — empty, `/` and `\`, NUL and other control characters, spaces,
/// any non-ASCII character — so a name means the same single file on every system and can
/// never reach another directory.
pub(crate) fn component(name: &str) -> Result<&str, NameError> {
    let first = name.chars().next();
    let fault = if name.is_empty() {
        NameFault::Empty
    } else if name == "." || name == ".." {
        NameFault::Directory
    } else if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        match c {
            '/' | '\\' => NameFault::Separator(c),
            c if c.is_control() => NameFault::Control(c),
            ' ' => NameFault::Space,
            c => NameFault::Char(c),
        }
    } else if name.len() > MAX_NAME {
        NameFault::TooLong(name.len())
    } else if !first.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
        NameFault::Start(first.unwrap_or(' '))
    } else if name.ends_with('.') {
        NameFault::EndsWithDot
    } else if RESERVED.contains(
        &name
            .split('.')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase()
            .as_str(),
    ) {
        NameFault::Reserved
    } else {
        return Ok(name);
    };
    Err(NameError {
        name: name.to_string(),
        fault,
    })
}

/// A user-given name that cannot be one file-name component (`component`): the name and what
/// is wrong with it; the message ends with the rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name:?} {fault}: a name here must be {rule}", rule = NAME_RULE)]
pub struct NameError {
    pub name: String,
    pub fault: NameFault,
}

/// What makes a name unfit to be a file-name component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NameFault {
    #[error("is empty")]
    Empty,
    #[error("names a directory, not a file")]
    Directory,
    #[error("holds `{0}`, a path separator")]
    Separator(char),
    #[error("holds the control character U+{:04X}", *.0 as u32)]
    Control(char),
    #[error("holds a space")]
    Space,
    #[error("holds `{0}`")]
    Char(char),
    #[error("is {0} bytes long")]
    TooLong(usize),
    #[error("starts with `{0}`")]
    Start(char),
    #[error("ends with `.`")]
    EndsWithDot,
    #[error("is a device name Windows reserves")]
    Reserved,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(
            file_slug("learn/your-first-component.md"),
            "learn/your-first-component"
        );
        assert_eq!(file_slug("post/v1/index.md"), "post/v1");
        assert_eq!(file_slug("index.md"), "index");
        assert_eq!(file_slug("chapters/112.json"), "chapters/112");
        assert!(check_slug("a/b-c_d.e").is_ok());
        assert_eq!(check_slug("عربي"), Err(SlugError::BadChar('ع')));
        assert_eq!(check_slug("a b"), Err(SlugError::BadChar(' ')));
        for bad in ["..", ".", "a/../b", "./x", "/x", "x/", "a//b"] {
            assert!(
                matches!(check_slug(bad), Err(SlugError::BadSegment(_))),
                "{bad}"
            );
        }
        assert!(check_slug("a/.hidden/b..c").is_ok());
    }

    #[test]
    fn chunk_ids_are_padded() {
        let d = doc_id("seneksar", "3-15-1").unwrap();
        assert_eq!(chunk_id(&d, 0, 3).as_str(), "seneksar:3-15-1:000");
        assert_eq!(chunk_id(&d, 1234, 3).as_str(), "seneksar:3-15-1:1234");
        assert_eq!(longest_chunk_id_len(&d, 3, 3), "seneksar:3-15-1:000".len());
    }

    #[test]
    fn transliterated_only_when_not_an_id_as_it_is() {
        let t = |slug: &str| {
            map_doc_id("notes", slug, 3, 4, SlugStyle::Transliterate)
                .map(|(id, form)| (id.0, form))
                .unwrap()
        };
        assert_eq!(
            t("guide/intro"),
            ("notes:guide/intro".into(), SlugForm::Same)
        );
        let (id, form) = t("ملاحظات/الصلاة");
        assert_eq!(form, SlugForm::Transliterated);
        assert!(id.starts_with("notes:mlahzat/alslah~t"), "{id}");
        assert!(is_mapped(&id) && is_transliterated(&id));
        // Escaped and shortened IDs never read as transliterated.
        let (escaped, _) = mapped("notes", "الصلاة");
        assert!(!is_transliterated(&escaped));
        assert!(!is_transliterated(&mapped("notes", &"a".repeat(80)).0));
        // A valid slug that is too long is shortened as with escapes.
        assert_eq!(t(&"a".repeat(80)).1, SlugForm::Shortened);
        let (long, _) = t(&"ملاحظة طويلة ".repeat(10));
        assert!(long.len() + 1 + 4 <= MAX_ID_BYTES, "{long}");
    }

    fn mapped(library: &str, slug: &str) -> (String, SlugForm) {
        let (id, form) = map_doc_id(library, slug, 3, 4, SlugStyle::Escape).unwrap();
        (id.as_str().to_string(), form)
    }

    #[test]
    fn valid_slugs_map_to_themselves() {
        for slug in [
            "common/tar",
            "learn/your-first-component",
            "a/.hidden/b..c",
            "3-15-1",
        ] {
            assert_eq!(mapped("lib", slug), (format!("lib:{slug}"), SlugForm::Same));
        }
        // Exactly at the limit with the document's own digits: unchanged, as before mapping.
        let slug = "x".repeat(MAX_ID_BYTES - "lib::000".len());
        assert_eq!(mapped("lib", &slug).1, SlugForm::Same);
    }

    #[test]
    fn command_names_are_escaped_injectively() {
        assert_eq!(mapped("tldr", "common/c++").0, "tldr:common/c~2B~2B");
        assert_eq!(mapped("tldr", "common/$").0, "tldr:common/~24");
        assert_eq!(mapped("tldr", "common/%").0, "tldr:common/~25");
        assert_eq!(mapped("tldr", "common/((").0, "tldr:common/~28~28");
        // `..md` has the slug `.`: a dot segment is escaped, never kept as a path step.
        assert_eq!(mapped("tldr", "common/.").0, "tldr:common/~2E");
        assert_eq!(mapped("tldr", "common/..").0, "tldr:common/~2E~2E");
        assert_eq!(mapped("t", "a//b").0, "t:a~2F/b");
        assert_eq!(mapped("t", "/x").0, "t:~2Fx");
        assert_eq!(mapped("t", "x/").0, "t:x~2F");
        // `~` itself is escaped, so no escaped slug can be forged by a file name.
        assert_eq!(mapped("t", "~2B").0, "t:~7E2B");
        assert_ne!(mapped("t", "~2B").0, mapped("t", "+").0);
        // Arabic names, byte by byte; NFC first, so a decomposed name (macOS) maps the same.
        assert_eq!(mapped("t", "د").0, "t:~D8~AF");
        assert_eq!(mapped("t", "e\u{301}"), mapped("t", "\u{e9}"));
    }

    #[test]
    fn the_escape_decodes_back() {
        fn decode(s: &str) -> String {
            let b = s.as_bytes();
            let mut out = Vec::new();
            let mut i = 0;
            while i < b.len() {
                if b[i] == b'~' {
                    out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
                    i += 3;
                } else {
                    out.push(b[i]);
                    i += 1;
                }
            }
            String::from_utf8(out).unwrap()
        }
        for slug in [
            "c++",
            "a//b",
            "/",
            "..",
            "a/./b",
            "مقدمة/درس 1",
            "~",
            "x~y/~7E",
        ] {
            let e = escape_slug(slug);
            assert_eq!(decode(&e), slug, "{e}");
            assert!(
                e.split('/')
                    .all(|seg| !seg.is_empty() && seg != "." && seg != "..")
            );
            assert!(
                e.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_./~".contains(&b))
            );
        }
    }

    #[test]
    fn long_slugs_keep_a_prefix_and_a_hash_of_the_whole() {
        let slug = "2-part/03-chapter/07-topic/4-exercise-name-that-is-long/solution";
        let (id, form) = mapped("javascript-info", slug);
        assert_eq!(form, SlugForm::Shortened);
        assert!(id.len() + ":0000".len() <= MAX_ID_BYTES, "{id}");
        assert!(id.starts_with("javascript-info:2-part/03-chapter/"), "{id}");
        // A boundary that would keep less than half the room is not worth the loss.
        let (tight, _) = mapped(
            "javascript-tutorial-ar-j",
            "1-js/02-first-steps/08-operators/solution",
        );
        assert!(
            tight.starts_with("javascript-tutorial-ar-j:1-js/02-first-st~h"),
            "{tight}"
        );
        assert!(is_mapped(&id));
        // The hash is of the whole slug: a sibling with the same prefix gets another ID.
        let other = slug.replace("solution", "task");
        assert_ne!(mapped("javascript-info", &other).0, id);
        // Deterministic, and never cut inside a `~XX` escape.
        assert_eq!(mapped("javascript-info", slug).0, id);
        for n in 40..70 {
            let s = "+".repeat(n);
            let (id, form) = mapped("lib", &s);
            assert_eq!(form, SlugForm::Shortened);
            let body = id.strip_prefix("lib:").unwrap();
            let head = body.split("~h").next().unwrap();
            assert!(
                head.len() % 3 == 0 && head.chars().step_by(3).all(|c| c == '~'),
                "{id}"
            );
        }
        assert_eq!(
            map_doc_id(&"l".repeat(50), "a b c d e", 3, 4, SlugStyle::Escape),
            Err(MapError::LibraryTooLong { room: 8 })
        );
        assert_eq!(
            map_doc_id("l", "", 3, 4, SlugStyle::Escape),
            Err(MapError::Empty)
        );
    }
}
