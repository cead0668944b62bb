//! The variant words of a text: from the edits the variant pass made, or, when that pass
//! saw characters outside ASCII and Arabic, by comparing the words of both forms.

use rustc_hash::FxHashSet;

use super::pass::VariantEdit;
use super::tokens;

/// The primary form from the variant form and the variant pass's edits.
pub(super) fn undo_variants(var: &str, edits: &[VariantEdit]) -> String {
    let mut out = String::with_capacity(var.len());
    let mut from = 0;
    for e in edits {
        out.push_str(&var[from..e.at]);
        if e.was_waw {
            out.push('\u{0648}');
        }
        from = e.at + 2; // ا and ي are two bytes
    }
    out.push_str(&var[from..]);
    out
}

/// [`variant_words`] from the edits: the words of the variant form that hold an edit are the
/// ones that differ from the primary form, so only they (and, when there are any, a scan of
/// the primary words for membership) are looked at, not every word of both forms.
pub(super) fn edited_words(primary: &str, var: &str, edits: &[VariantEdit]) -> Vec<String> {
    let vb = var.as_bytes();
    // Distinct edited words, in text order.
    let mut cands: Vec<&str> = Vec::new();
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    let mut word_end = 0; // the end of the last edited word
    for e in edits {
        if e.at < word_end {
            continue; // another edit of the same word
        }
        let start = vb[..e.at]
            .iter()
            .rposition(|&b| b == b' ')
            .map_or(0, |p| p + 1);
        word_end = vb[e.at..]
            .iter()
            .position(|&b| b == b' ')
            .map_or(vb.len(), |p| e.at + p);
        let w = &var[start..word_end];
        if seen.insert(w) {
            cands.push(w);
        }
    }
    // Drop the candidates that are also a word of the primary form. A primary word is looked
    // up only when its bit in a filter of the candidates' hashes is set.
    let mut filter = [0u64; 64];
    for w in &cands {
        let h = (word_hash(w) >> 52) as usize;
        filter[h >> 6] |= 1 << (h & 63);
    }
    let mut in_primary: FxHashSet<&str> = FxHashSet::default();
    for w in tokens(primary) {
        let h = (word_hash(w) >> 52) as usize;
        if filter[h >> 6] & (1 << (h & 63)) != 0 && seen.contains(w) {
            in_primary.insert(w);
        }
    }
    cands
        .into_iter()
        .filter(|w| !in_primary.contains(w))
        .map(str::to_string)
        .collect()
}

/// A cheap hash of a word for filters and direct-mapped caches (use the high bits): a
/// multiplicative hash of its length and its first and last four bytes.
#[inline]
pub(crate) fn word_hash(w: &str) -> u64 {
    let b = w.as_bytes();
    // The first and last four bytes (overlapping in a short word), or the bytes of a shorter one.
    let key = match (b.first_chunk::<4>(), b.last_chunk::<4>()) {
        (Some(head), Some(tail)) => {
            ((u32::from_le_bytes(*head) as u64) << 32) | u32::from_le_bytes(*tail) as u64
        }
        _ => b.iter().fold(0u64, |k, &x| (k << 8) | x as u64),
    };
    (key ^ b.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

pub(super) fn variant_words(primary: &str, var: String) -> Vec<String> {
    let p: Vec<&str> = tokens(primary).collect();
    let v: Vec<&str> = tokens(&var).collect();
    let mut res: Vec<String> = Vec::new();
    if p.len() == v.len() {
        let primary_words: FxHashSet<&str> = p.iter().copied().collect();
        let mut seen: FxHashSet<&str> = FxHashSet::default();
        for (a, b) in p.iter().zip(v.iter()) {
            if a != b && !primary_words.contains(b) && seen.insert(b) {
                res.push((*b).to_string());
            }
        }
    } else if var != primary {
        // Not expected (variant rules never add or remove spaces); keep the whole form.
        res.push(var);
    }
    res
}
