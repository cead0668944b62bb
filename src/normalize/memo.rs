//! A per-thread memo of the words of recent chunks: for each, its article and light stems
//! ([`aliases::word_stems`]) and the last chunk it was met in. The build's `normalize` stage
//! looks at every word of every chunk: a word met again in the same chunk is skipped (its stems
//! are already in the chunk's set), and a word met in an earlier chunk (a corpus repeats its
//! words) is not stemmed again. One lookup answers both.
//!
//! Direct-mapped: one word per slot, the slot chosen by [`word_hash`](super::rules::word_hash);
//! a word that lost its slot to another is stemmed again (and its stems added again, which the
//! sorted, deduplicated token set absorbs). A slot holds the whole word (up to [`MAX_WORD`]
//! bytes; longer words are never remembered), so stems are always `word_stems`'s own and a word
//! is skipped only when it was met in this chunk: the memo changes no output.

use std::cell::RefCell;

use super::aliases;

/// Slots of the memo (32 bytes each: 512 KiB a thread, within a core's L2 cache). A corpus
/// has tens of thousands of distinct words: with fewer slots, most words of a chunk lost their
/// slot since they were last met and are stemmed again.
const SLOTS: usize = 16 * 1024;

/// The longest word a slot holds, in bytes (twelve Arabic letters).
const MAX_WORD: usize = 24;

/// No stem, in [`Slot::article`] and [`Slot::light`] (a word has at most [`MAX_WORD`] bytes).
const NONE: u8 = u8::MAX;

/// One remembered word: its bytes as [`word_key`], its length, its stems as offsets in the
/// word (the article stem is a suffix of it: its start; the light stem: its start and end;
/// [`NONE`] when there is none), and the number of the last chunk it was met in (0: none).
/// 32 bytes: two slots a cache line.
#[derive(Clone, Copy)]
#[repr(align(32))]
struct Slot {
    key: [u64; 3],
    chunk: u32,
    len: u8,
    article: u8,
    light: [u8; 2],
}

impl Default for Slot {
    fn default() -> Self {
        Slot { key: [0; 3], chunk: 0, len: 0, article: NONE, light: [NONE; 2] }
    }
}

/// The memo of one thread.
pub(super) struct WordMemo {
    slots: Box<[Slot]>,
    /// 64 − log₂ of the number of slots: a hash shifted right by it is a slot.
    shift: u32,
    /// The number of the current chunk (from 1).
    chunk: u32,
}

thread_local! {
    static MEMO: RefCell<WordMemo> = RefCell::new(WordMemo::new());
}

/// Runs `f` with this thread's memo, at the start of a new chunk.
pub(super) fn with_new_chunk<R>(f: impl FnOnce(&mut WordMemo) -> R) -> R {
    MEMO.with_borrow_mut(|memo| {
        memo.next_chunk();
        f(memo)
    })
}

/// The stems of a word: article stem, light stem.
pub(super) type Stems<'w> = (Option<&'w str>, Option<&'w str>);

impl WordMemo {
    pub(super) fn new() -> Self {
        Self::with_slots(SLOTS)
    }

    /// A memo of `slots` slots (a power of two).
    fn with_slots(slots: usize) -> Self {
        WordMemo { slots: vec![Slot::default(); slots].into_boxed_slice(), shift: 64 - slots.trailing_zeros(), chunk: 1 }
    }

    /// A new chunk: no word was met in it yet.
    pub(super) fn next_chunk(&mut self) {
        self.chunk = self.chunk.wrapping_add(1);
        if self.chunk == 0 {
            // After 2³² chunks: forget which chunk each word was met in.
            self.slots.iter_mut().for_each(|s| s.chunk = 0);
            self.chunk = 1;
        }
    }

    /// Loads the slot of the word whose [`word_hash`](super::rules::word_hash) is `hash` ahead
    /// of its [`new_word`](Self::new_word): the memo is larger than the L1 cache, and the next
    /// word's slot is loaded while this word is looked up rather than when its lookup waits.
    #[inline]
    pub(super) fn warm(&self, hash: u64) {
        std::hint::black_box(self.slots[(hash >> self.shift) as usize].chunk);
    }

    /// `None` when the memo remembers `w` (whose [`word_hash`](super::rules::word_hash) is
    /// `hash`) from this chunk; otherwise its [`aliases::word_stems`] (always for a word longer
    /// than [`MAX_WORD`]).
    #[inline]
    pub(super) fn new_word<'w>(&mut self, w: &'w str, hash: u64) -> Option<Stems<'w>> {
        let Some(key) = word_key(w.as_bytes()) else {
            return Some(aliases::word_stems(w));
        };
        let chunk = self.chunk;
        let slot = &mut self.slots[(hash >> self.shift) as usize];
        // Both comparisons made before one branch on each outcome (hard to predict).
        let hit = (slot.len as usize == w.len()) & (slot.key[0] == key[0]) & (slot.key[1] == key[1]) & (slot.key[2] == key[2]);
        if hit & (slot.chunk == chunk) {
            return None;
        }
        if hit {
            slot.chunk = chunk;
            return Some((article_piece(w, slot.article), light_piece(w, slot.light)));
        }
        let (article, light) = aliases::word_stems(w);
        *slot = Slot { key, chunk, len: w.len() as u8, article: article_offset(w, article), light: light_offsets(w, light) };
        Some((article, light))
    }
}

/// The bytes of a word of at most [`MAX_WORD`] bytes as three numbers, read as overlapping
/// fixed-size pieces: for words of one length, equal keys mean equal words.
fn word_key(b: &[u8]) -> Option<[u64; 3]> {
    let le8 = |at: usize| b.get(at..at + 8).and_then(|c| c.first_chunk::<8>()).map_or(0, |c| u64::from_le_bytes(*c));
    let le4 = |at: usize| b.get(at..at.wrapping_add(4)).and_then(|c| c.first_chunk::<4>()).map_or(0, |c| u32::from_le_bytes(*c) as u64);
    let byte = |at: usize| b.get(at).map_or(0, |&x| x as u64);
    let n = b.len();
    // Two shapes, each without a branch on the length within it (word lengths are hard to
    // predict): up to seven bytes, the first and last four (4–7 bytes) and the first, middle
    // and last byte (1–3 bytes); eight bytes or more, three overlapping eight-byte pieces.
    if n < 8 {
        return Some([le4(0) | (le4(n.wrapping_sub(4)) << 32), byte(0) | (byte(n / 2) << 8) | (byte(n.wrapping_sub(1)) << 16), 0]);
    }
    (n <= MAX_WORD).then(|| [le8(0), le8((n - 8) / 2), le8(n - 8)])
}

/// Where the article stem `s` of `w` (a suffix of it) starts in it, or [`NONE`].
fn article_offset(w: &str, s: Option<&str>) -> u8 {
    s.map_or(NONE, |s| (s.as_ptr().addr() - w.as_ptr().addr()) as u8)
}

/// Where the light stem `s` of `w` (a slice of it) starts and ends in it, or [`NONE`]s.
fn light_offsets(w: &str, s: Option<&str>) -> [u8; 2] {
    s.map_or([NONE; 2], |s| {
        let start = s.as_ptr().addr() - w.as_ptr().addr();
        [start as u8, (start + s.len()) as u8]
    })
}

/// The article stem at the offset [`article_offset`] gave.
fn article_piece(w: &str, start: u8) -> Option<&str> {
    if start == NONE { None } else { w.get(start as usize..) }
}

/// The light stem at the offsets [`light_offsets`] gave.
fn light_piece(w: &str, [start, end]: [u8; 2]) -> Option<&str> {
    if start == NONE { None } else { w.get(start as usize..end as usize) }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::normalize::rules;

    /// Words of the letters the affixes are made of (so that stems are common and words of one
    /// length meet in a slot), of every length up to past `MAX_WORD`, with the odd Latin letter.
    fn words() -> impl Strategy<Value = Vec<String>> {
        let ch = prop_oneof![
            6 => prop::sample::select(vec!['ا', 'ل', 'ب', 'و', 'ك', 'ف', 'ت', 'ن', 'ه', 'ي']),
            1 => (0x0621u32..0x064B).prop_map(|u| char::from_u32(u).unwrap_or('ا')),
            1 => Just('a'),
        ];
        prop::collection::vec(prop::collection::vec(ch, 0..15).prop_map(|v| v.into_iter().collect::<String>()), 0..300)
    }

    /// Two slots a cache line.
    #[test]
    fn a_slot_is_32_bytes() {
        assert_eq!(std::mem::size_of::<Slot>(), 32);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
        ))]

        /// The memo gives the stemmer's stems, and skips a word only when it was met earlier in
        /// the same chunk: chunks of repeated words, in a full memo and in one of two slots
        /// (where words keep taking each other's slot).
        #[test]
        fn memo_as_the_stemmer(chunks in prop::collection::vec(words(), 1..6), two_slots in any::<bool>()) {
            let mut memo = if two_slots { WordMemo::with_slots(2) } else { WordMemo::new() };
            for ws in &chunks {
                memo.next_chunk();
                let mut met = std::collections::HashSet::new();
                for w in ws.iter().chain(ws.iter()) {
                    match memo.new_word(w, rules::word_hash(w)) {
                        Some(stems) => prop_assert_eq!(stems, aliases::word_stems(w), "{}", w),
                        None => prop_assert!(w.len() <= MAX_WORD && met.contains(w), "{} skipped", w),
                    }
                    met.insert(w.clone());
                }
            }
        }

        /// Words of one length (odd and even, short and long) have equal keys only when they
        /// are equal.
        #[test]
        fn word_keys_tell_words_apart(a in "[ابa]{0,20}", b in "[ابa]{0,20}") {
            let (ka, kb) = (word_key(a.as_bytes()), word_key(b.as_bytes()));
            prop_assert_eq!(ka.is_some(), a.len() <= MAX_WORD);
            if a.len() == b.len() && ka.is_some() {
                prop_assert_eq!(ka == kb, a == b);
            }
        }
    }
}
