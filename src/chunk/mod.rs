//! chunk: bounded, structure-following excerpts of a document's body. Pure.
//!
//! Policy: a section is a heading with the blocks up to the next heading. A heading always starts
//! or sits inside the chunk that holds the start of its section, never at a chunk's end.
//! Consecutive sections are packed up to `max_chars` (Unicode scalar values); a section that
//! does not fit in the current chunk starts a new one; a section over the limit is split at
//! block, then line, then sentence (`. ! ? ؟ ؛ …`), then word boundaries, never inside a word;
//! a code block is split (at lines) only when it alone exceeds the limit. Chunks under
//! `min_chars` merge into a neighbour when the result fits, and otherwise take the end of the
//! chunk before them, from a boundary that leaves both at least `min_chars`. Every chunk is a contiguous,
//! whitespace-trimmed excerpt of the body text.

mod slug;

pub(crate) use slug::AnchorRule;

use crate::extract::{Block, BlockKind, Body};

/// `[chunking]`: the bounds of a chunk, in Unicode scalar values (`config` builds it).
#[derive(Debug, Clone, serde::Serialize)]
pub struct ChunkSettings {
    pub max_chars: usize,
    pub min_chars: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkSpan {
    /// Byte range in the body text.
    pub start: usize,
    pub end: usize,
    /// Headings above the chunk's start: `title › h2 › h3`.
    pub heading_path: Vec<String>,
    /// The explicit ids ([`crate::extract::anchor`]) of the headings on that path and of the
    /// headings inside the chunk, in order, each once.
    pub anchors: Vec<String>,
    /// Where in the chunk's text each section the chunk holds begins (a byte offset from the
    /// chunk's start, the first 0) and the id a link to it takes: that of its nearest heading
    /// with one (written in the source, or given by the library's [`AnchorRule`]), "" when none
    /// has (the page's top). A section whose link is the one before's adds no entry.
    pub section_anchors: Vec<(usize, String)>,
}

#[derive(Debug, Clone)]
struct Section {
    start: usize,
    end: usize,
    blocks: std::ops::Range<usize>,
    path: Vec<String>,
    /// The ids of the path's headings that have one.
    path_anchors: Vec<String>,
    /// The id a link to the section takes: its nearest heading's with one ("" for none).
    link: String,
}

#[derive(Debug, Clone, Copy)]
struct Piece {
    start: usize,
    end: usize,
    chars: usize,
    section: usize,
    section_start: bool,
}

/// The longest heading, in Unicode scalar values, that names its section. A longer one is a
/// paragraph set as a heading (a converted site can mark a whole article `###`): it stays in
/// the evidence, but it is no section's name, neither in the heading path a result shows nor
/// in the search context that weighs titles and headings.
const MAX_HEADING_CHARS: usize = 200;

fn chars(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// Splits a body into chunks; only the ids written in the source link sections.
pub fn chunk(body: &Body, settings: &ChunkSettings) -> Vec<ChunkSpan> {
    chunk_linked(body, settings, AnchorRule::Explicit)
}

/// Splits a body into chunks whose sections link the heading ids `anchors` gives.
pub(crate) fn chunk_linked(
    body: &Body,
    settings: &ChunkSettings,
    anchors: AnchorRule,
) -> Vec<ChunkSpan> {
    let text = body.text.as_str();
    let max = settings.max_chars.max(1);
    let sections = sections(body, anchors);
    let mut pieces = Vec::new();
    for (si, sec) in sections.iter().enumerate() {
        let size = chars(&text[sec.start..sec.end]);
        if size <= max {
            pieces.push(Piece {
                start: sec.start,
                end: sec.end,
                chars: size,
                section: si,
                section_start: true,
            });
            continue;
        }
        let first_piece = pieces.len();
        split_section(text, &body.blocks[sec.blocks.clone()], si, max, &mut pieces);
        if let Some(p) = pieces.get_mut(first_piece) {
            p.section_start = true;
        }
    }
    // Only a small chunk that fits no neighbour needs them: most documents never do.
    let bounds = std::cell::LazyCell::new(|| boundaries(body, &sections, &pieces, max));
    pack(text, &pieces, &sections, max, settings.min_chars, &bounds)
        .into_iter()
        .map(|c| {
            let (s, e) = trim(text, c.start, c.end);
            let sec = &sections[c.section];
            let mut anchors = sec.path_anchors.clone();
            let first = body.blocks.partition_point(|b| b.start < s);
            for b in body.blocks[first..].iter().take_while(|b| b.start < e) {
                if let Some(a) = &b.anchor
                    && matches!(b.kind, BlockKind::Heading(_))
                    && !anchors.contains(a)
                {
                    anchors.push(a.clone());
                }
            }
            let mut section_anchors: Vec<(usize, String)> = Vec::new();
            for sec in sections.iter().filter(|x| x.end > s && x.start < e) {
                if section_anchors
                    .last()
                    .is_none_or(|(_, last)| *last != sec.link)
                {
                    section_anchors.push((sec.start.max(s) - s, sec.link.clone()));
                }
            }
            ChunkSpan {
                start: s,
                end: e,
                heading_path: sec.path.clone(),
                anchors,
                section_anchors,
            }
        })
        .filter(|c| c.end > c.start)
        .collect()
}

/// Pending headings of a section over the limit, waiting for the content they introduce.
#[derive(Clone, Copy)]
struct Carry {
    start: usize,
    end: usize,
    chars: usize,
}

impl Carry {
    /// The headings as a piece of their own.
    fn piece(self, section: usize) -> Piece {
        Piece {
            start: self.start,
            end: self.end,
            chars: self.chars,
            section,
            section_start: false,
        }
    }
}

impl Piece {
    /// `text[start..end]`, a piece of section `section` that does not start it.
    fn new(text: &str, start: usize, end: usize, section: usize) -> Piece {
        Piece {
            start,
            end,
            chars: chars(&text[start..end]),
            section,
            section_start: false,
        }
    }
}

/// Cuts the blocks of section `si`, over the limit, into pieces of at most `max` chars. Its
/// leading headings travel with the first part of the content after them.
fn split_section(text: &str, blocks: &[Block], si: usize, max: usize, pieces: &mut Vec<Piece>) {
    let lead = blocks
        .iter()
        .take_while(|b| matches!(b.kind, BlockKind::Heading(_)))
        .count();
    let mut carry: Option<Carry> = None;
    for (bi, b) in blocks.iter().enumerate() {
        if bi < lead {
            // Headings wait for the content they introduce, but a run of headings alone
            // (a heading-only document) is still bounded.
            let hc = chars(&text[b.start..b.end]);
            if let Some(c) = carry.take_if(|c| c.chars + 2 + hc > max / 2) {
                pieces.push(c.piece(si));
            }
            if hc > max / 2 {
                for (s, e) in split_block(text, b, max, max) {
                    pieces.push(Piece::new(text, s, e, si));
                }
                continue;
            }
            let start = carry.map_or(b.start, |c| c.start);
            carry = Some(Carry {
                start,
                end: b.end,
                chars: chars(&text[start..b.end]),
            });
            continue;
        }
        // Pending headings and the blank line after them take their room in the first part.
        // Only a tiny `max` (under 8) can leave none: then the headings go alone.
        if let Some(c) = carry.take_if(|c| c.chars + 2 >= max) {
            pieces.push(c.piece(si));
        }
        let budget = match carry {
            Some(c) => max - (c.chars + 2),
            None => max,
        };
        let mut parts = split_block(text, b, budget, max);
        if let Some(c) = carry.take()
            && let Some(first) = parts.first_mut()
        {
            first.0 = c.start;
        }
        for (s, e) in parts {
            pieces.push(Piece::new(text, s, e, si));
        }
    }
    if let Some(c) = carry {
        // A document that ends in headings with nothing under them.
        pieces.push(c.piece(si));
    }
}

fn trim(text: &str, s: usize, e: usize) -> (usize, usize) {
    let slice = &text[s..e];
    let lead = slice.len() - slice.trim_start().len();
    let trail = slice.len() - slice.trim_end().len();
    (s + lead, e - trail.min(slice.len() - lead))
}

/// Sections with their heading paths and links; heading-only sections merge into the next
/// section. A level-1 heading links only by an id written in the source: a generated one would
/// link the top of its own page. A block other than a heading that has an id (an item of a JSON
/// record: a verse, an entry) begins a section of its own that links that id, under the same
/// headings.
fn sections(body: &Body, anchors: AnchorRule) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    let mut slugs = slug::Slugger::new(anchors);
    let mut stack: Vec<(u8, String, Option<&str>, Option<String>)> = Vec::new();
    let mut pending: Option<usize> = None; // block index where a heading-only run began
    let blocks = &body.blocks;
    let mut i = 0;
    while i < blocks.len() {
        let b = &blocks[i];
        let begin = i;
        let item = (!matches!(b.kind, BlockKind::Heading(_)))
            .then(|| b.anchor.clone())
            .flatten();
        if let BlockKind::Heading(level) = b.kind {
            while stack.last().is_some_and(|(l, ..)| *l >= level) {
                stack.pop();
            }
            let title = body.block_text(b).replace('\n', " ");
            let link = slugs
                .next(&title, b.anchor.as_deref())
                .filter(|_| level > 1 || b.anchor.is_some());
            stack.push((level, title, b.anchor.as_deref(), link));
        }
        i += 1;
        while i < blocks.len()
            && !matches!(blocks[i].kind, BlockKind::Heading(_))
            && blocks[i].anchor.is_none()
        {
            i += 1;
        }
        let heading_only = matches!(b.kind, BlockKind::Heading(_)) && i == begin + 1;
        if heading_only && i < blocks.len() {
            pending.get_or_insert(begin);
            continue;
        }
        let first = pending.take().unwrap_or(begin);
        out.push(Section {
            start: blocks[first].start,
            end: blocks[i - 1].end,
            blocks: first..i,
            path: stack
                .iter()
                .filter(|(_, t, ..)| chars(t) <= MAX_HEADING_CHARS)
                .map(|(_, t, ..)| t.clone())
                .collect(),
            path_anchors: stack
                .iter()
                .filter_map(|(_, _, a, _)| a.map(str::to_string))
                .collect(),
            link: item.unwrap_or_else(|| {
                stack
                    .iter()
                    .rev()
                    .find_map(|(.., l)| l.clone())
                    .unwrap_or_default()
            }),
        });
    }
    out
}

/// Cuts one block into pieces of at most `budget` chars (the first) and `max` (the rest).
fn split_block(text: &str, b: &Block, budget: usize, max: usize) -> Vec<(usize, usize)> {
    let size = chars(&text[b.start..b.end]);
    if size <= budget {
        return vec![(b.start, b.end)];
    }
    let levels: &[Sep] = if b.kind == BlockKind::Code {
        &[Sep::Line, Sep::Word]
    } else {
        &[Sep::Line, Sep::Sentence, Sep::Word]
    };
    let mut out = Vec::new();
    split_range(text, b.start, b.end, budget, max, levels, &mut out);
    out
}

#[derive(Clone, Copy)]
enum Sep {
    Line,
    Sentence,
    Word,
}

/// Byte offsets just after each separator inside `s` (cut points), relative to `s`.
fn cuts(s: &str, sep: Sep) -> Vec<usize> {
    let mut out = Vec::new();
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next_ws = it.peek().is_some_and(|(_, n)| n.is_whitespace());
        let cut = match sep {
            Sep::Line => c == '\n',
            Sep::Sentence => matches!(c, '.' | '!' | '?' | '؟' | '؛' | '…' | '۔') && next_ws,
            Sep::Word => c.is_whitespace() && !it.peek().is_some_and(|(_, n)| n.is_whitespace()),
        };
        if cut {
            out.push(i + c.len_utf8());
        }
    }
    out
}

fn split_range(
    text: &str,
    start: usize,
    end: usize,
    budget: usize,
    max: usize,
    levels: &[Sep],
    out: &mut Vec<(usize, usize)>,
) {
    let budget_now = |out: &Vec<(usize, usize)>| if out.is_empty() { budget } else { max };
    if chars(&text[start..end]) <= budget_now(out) {
        out.push((start, end));
        return;
    }
    let Some((&sep, rest)) = levels.split_first() else {
        // A single word longer than the limit: cut between grapheme clusters, so a letter keeps
        // its marks and an emoji sequence stays whole.
        let mut s = start;
        while s < end {
            let e = cluster_cut(&text[s..end], budget_now(out)) + s;
            out.push((s, e));
            s = e;
        }
        return;
    };
    let mut segs = Vec::new();
    let mut prev = start;
    for c in cuts(&text[start..end], sep) {
        segs.push((prev, start + c));
        prev = start + c;
    }
    segs.push((prev, end));
    let mut cur: Option<(usize, usize, usize)> = None; // start, end, chars
    for (s, e) in segs {
        let n = chars(&text[s..e]);
        if let Some((cs, ce, cn)) = cur {
            if cn + n <= budget_now(out) {
                cur = Some((cs, e, cn + n));
                continue;
            }
            out.push((cs, ce));
            cur = None;
        }
        if n <= budget_now(out) {
            cur = Some((s, e, n));
        } else {
            split_range(text, s, e, budget, max, rest, out);
        }
    }
    if let Some((cs, ce, _)) = cur {
        out.push((cs, ce));
    }
}

/// Where to cut `s` to keep at most `limit` chars: after the last whole grapheme cluster that
/// fits (a cluster longer than the limit on its own is cut at the limit); `s.len()` when all of
/// it fits. Never 0 for a non-empty `s` and a limit above 0.
fn cluster_cut(s: &str, limit: usize) -> usize {
    use unicode_segmentation::UnicodeSegmentation;
    let mut cut = 0;
    let mut n = 0;
    for (i, g) in s.grapheme_indices(true) {
        let len = g.chars().count();
        if n + len > limit {
            break;
        }
        n += len;
        cut = i + g.len();
    }
    if cut == 0 {
        cut = s
            .char_indices()
            .nth(limit.max(1))
            .map_or(s.len(), |(i, _)| i);
    }
    cut
}

/// A chunk as packing builds it: its range, its size in chars and the section it starts in.
#[derive(Clone, Copy)]
struct Packed {
    start: usize,
    end: usize,
    chars: usize,
    section: usize,
}

/// Greedy packing of pieces into chunks.
fn pack(
    text: &str,
    pieces: &[Piece],
    sections: &[Section],
    max: usize,
    min: usize,
    bounds: &std::cell::LazyCell<Vec<(usize, usize)>, impl FnOnce() -> Vec<(usize, usize)>>,
) -> Vec<Packed> {
    let mut chunks: Vec<Packed> = Vec::new();
    let mut cur: Option<Packed> = None;
    for p in pieces {
        if let Some(c) = cur {
            let gap = chars(&text[c.end..p.start]);
            let with_piece = c.chars + gap + p.chars;
            let section_fits = if p.section_start {
                let sec = &sections[p.section];
                c.chars + gap + chars(&text[p.start..sec.end]) <= max
            } else {
                true
            };
            if with_piece <= max && (section_fits || c.chars < min) {
                cur = Some(Packed {
                    end: p.end,
                    chars: with_piece,
                    ..c
                });
                continue;
            }
            chunks.push(c);
        }
        cur = Some(Packed {
            start: p.start,
            end: p.end,
            chars: p.chars,
            section: p.section,
        });
    }
    if let Some(c) = cur {
        chunks.push(c);
    }
    merge_small(text, &mut chunks, max, min, bounds);
    chunks
}

/// Where a chunk may begin, in order, with the section it begins in: every piece's start,
/// every block's start but one right after a heading (a heading never ends a chunk), and inside
/// a block over `max` the places it may be cut (lines and sentences; words when it has none).
fn boundaries(
    body: &Body,
    sections: &[Section],
    pieces: &[Piece],
    max: usize,
) -> Vec<(usize, usize)> {
    let text = body.text.as_str();
    let mut out: Vec<(usize, usize)> = pieces.iter().map(|p| (p.start, p.section)).collect();
    for (si, sec) in sections.iter().enumerate() {
        for bi in sec.blocks.clone() {
            let b = &body.blocks[bi];
            let after_heading = bi > 0 && matches!(body.blocks[bi - 1].kind, BlockKind::Heading(_));
            if !after_heading {
                out.push((b.start, si));
            }
            if matches!(b.kind, BlockKind::Heading(_)) || b.end - b.start <= max {
                continue;
            }
            let inner = &text[b.start..b.end];
            let levels: &[Sep] = if b.kind == BlockKind::Code {
                &[Sep::Line]
            } else {
                &[Sep::Line, Sep::Sentence]
            };
            let mut at: Vec<usize> = levels.iter().flat_map(|&sep| cuts(inner, sep)).collect();
            if at.is_empty() {
                at = cuts(inner, Sep::Word);
            }
            out.extend(
                at.into_iter()
                    .filter(|&c| c < inner.len())
                    .map(|c| (b.start + c, si)),
            );
        }
    }
    out.sort_unstable();
    out.dedup_by_key(|b| b.0);
    out
}

/// Merges chunks under `min` into a neighbour (the previous one first) when the result fits;
/// when neither fits, moves the boundary with the previous chunk back to the latest place a
/// chunk may begin (`bounds`) that leaves both at least `min` and within `max`.
fn merge_small(
    text: &str,
    chunks: &mut Vec<Packed>,
    max: usize,
    min: usize,
    bounds: &std::cell::LazyCell<Vec<(usize, usize)>, impl FnOnce() -> Vec<(usize, usize)>>,
) {
    let mut i = 0;
    while chunks.len() > 1 && i < chunks.len() {
        let c = chunks[i];
        if c.chars >= min {
            i += 1;
            continue;
        }
        if i > 0 {
            let prev = chunks[i - 1];
            let merged = prev.chars + chars(&text[prev.end..c.start]) + c.chars;
            if merged <= max {
                chunks[i - 1] = Packed {
                    end: c.end,
                    chars: merged,
                    ..prev
                };
                chunks.remove(i);
                continue;
            }
        }
        if i + 1 < chunks.len() {
            let next = chunks[i + 1];
            let merged = c.chars + chars(&text[c.end..next.start]) + next.chars;
            if merged <= max {
                chunks[i] = Packed {
                    end: next.end,
                    chars: merged,
                    ..c
                };
                chunks.remove(i + 1);
                continue;
            }
        }
        if i > 0
            && let Some((prev, small)) = rebalance(text, chunks[i - 1], c, max, min, bounds)
        {
            chunks[i - 1] = prev;
            chunks[i] = small;
        }
        i += 1;
    }
}

/// `prev` and the small chunk `c` after it with their boundary moved back to the latest
/// place a chunk may begin that leaves both at least `min` and within `max`, if there is one.
fn rebalance(
    text: &str,
    prev: Packed,
    c: Packed,
    max: usize,
    min: usize,
    bounds: &[(usize, usize)],
) -> Option<(Packed, Packed)> {
    let first = bounds.partition_point(|b| b.0 <= prev.start);
    let last = bounds.partition_point(|b| b.0 < prev.end);
    for &(at, section) in bounds[first..last].iter().rev() {
        let tail = chars(&text[at..c.end]);
        if tail > max {
            return None;
        }
        let head = chars(&text[prev.start..at]);
        if tail >= min && head >= min && !text[prev.start..at].trim().is_empty() {
            let prev = Packed {
                end: at,
                chars: head,
                ..prev
            };
            let small = Packed {
                start: at,
                end: c.end,
                chars: tail,
                section,
            };
            return Some((prev, small));
        }
    }
    None
}

#[cfg(test)]
mod tests;
