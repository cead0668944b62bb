//! identify: `doc_id` = `<library>:<slug>` from source identity, `chunk_id` = `doc_id:NNN`.
//! IDs are ASCII, at most 64 bytes (the Vectorize vector-ID limit) and unique within a build;
//! the types can only be built here, through the checks.

use std::fmt;

use serde::Serialize;

/// The Vectorize vector-ID limit, which every chunk ID must meet.
pub const MAX_ID_BYTES: usize = 64;

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
pub fn file_slug(rel: &str) -> String {
    let no_ext = match rel.rsplit_once('.') {
        Some((stem, ext)) if !ext.contains('/') && !stem.is_empty() && !stem.ends_with('/') => stem,
        _ => rel,
    };
    no_ext.strip_suffix("/index").unwrap_or(no_ext).to_string()
}

/// Why a slug cannot make an ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlugError {
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

pub fn check_slug(slug: &str) -> Result<(), SlugError> {
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
pub fn doc_id(library: &str, slug: &str) -> Result<DocId, SlugError> {
    check_slug(slug)?;
    Ok(DocId(format!("{library}:{slug}")))
}

/// The ID of the chunk at `index` of a document, zero-padded to `width` digits.
pub fn chunk_id(doc: &DocId, index: usize, width: usize) -> ChunkId {
    ChunkId(format!("{}:{:0width$}", doc.0, index, width = width))
}

/// The longest chunk ID a document with `chunks` chunks gets.
pub fn longest_chunk_id_len(doc: &DocId, chunks: usize, width: usize) -> usize {
    let digits = chunks.saturating_sub(1).to_string().len().max(width);
    doc.0.len() + 1 + digits
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
}
