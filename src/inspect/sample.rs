//! The seeded stratified sample `inspect` prints: the same chunks on every machine.

use std::collections::BTreeMap;

use serde::Serialize;

use super::heading_path;
use crate::artifacts::ChunkRecord;

/// SplitMix64: a small, seedable, portable generator (same sample on every machine).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct SampleItem {
    pub library: String,
    pub chunk_id: String,
    pub title: String,
    pub url: String,
    pub span: Option<(u64, u64)>,
    pub chars: usize,
    pub heading_path: Vec<String>,
    /// The evidence, trimmed to ~600 characters.
    pub text: String,
    pub search_text: String,
}

fn trim_chars(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut out: String = s.chars().take(n).collect();
    out.push_str(" …");
    out
}

/// `per_library` chunks of every library, drawn without replacement; the draw of a library
/// depends only on the seed, the library id and its records (sorted by chunk_id).
pub(crate) fn sample(records: &[ChunkRecord], per_library: usize, seed: u64) -> Vec<SampleItem> {
    let mut by_lib: BTreeMap<&str, Vec<&ChunkRecord>> = BTreeMap::new();
    for r in records {
        by_lib.entry(&r.library).or_default().push(r);
    }
    let mut out = Vec::new();
    for (lib, mut rs) in by_lib {
        rs.sort_by(|a, b| a.chunk_id.cmp(&b.chunk_id));
        let mut rng = Rng(seed
            ^ u64::from_le_bytes(
                blake3::hash(lib.as_bytes()).as_bytes()[..8]
                    .try_into()
                    .expect("8 bytes"),
            ));
        let n = per_library.min(rs.len());
        for i in 0..n {
            let j = i + rng.below(rs.len() - i);
            rs.swap(i, j);
        }
        let mut picked: Vec<&ChunkRecord> = rs[..n].to_vec();
        picked.sort_by(|a, b| a.chunk_id.cmp(&b.chunk_id));
        for r in picked {
            let span = r
                .metadata
                .get("span")
                .and_then(|s| s.as_array())
                .and_then(|a| Some((a.first()?.as_u64()?, a.get(1)?.as_u64()?)));
            out.push(SampleItem {
                library: r.library.clone(),
                chunk_id: r.chunk_id.clone(),
                title: r.title.clone(),
                url: r.url.clone(),
                span,
                chars: r.text.chars().count(),
                heading_path: heading_path(r),
                text: trim_chars(&r.text, 600),
                search_text: trim_chars(&r.search_text, 600),
            });
        }
    }
    out
}
