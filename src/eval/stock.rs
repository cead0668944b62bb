//! The stock baseline every `eval` scores beside askzico, pinned so that a figure means the same
//! on every site: BM25 (k1 = 1.2, b = 0.75) over each chunk's `title` + newline + `search_text`,
//! Unicode word tokens (UAX #29), lowercased, words over 40 characters dropped, each stemmed by
//! the Snowball Arabic stemmer; a document is ranked by its best chunk. It is what a team gets
//! from a stock search engine over askzico's normalization, so a user sees on their own site
//! whether askzico's retrieval beats the obvious alternative.

use std::collections::HashMap;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_segmentation::UnicodeSegmentation;

pub(crate) const K1: f64 = 1.2;
pub(crate) const B: f64 = 0.75;
/// Longer words are dropped, as stock analyzers drop them.
pub(crate) const MAX_WORD_CHARS: usize = 40;

/// One chunk as the baseline indexes it.
pub(crate) struct StockChunk<'a> {
    pub doc_id: &'a str,
    pub title: &'a str,
    pub search_text: &'a str,
    pub domains: &'a [String],
}

/// The stock analyzer: word tokens, lowercased, long words dropped, Snowball Arabic stems.
pub(crate) struct Analyzer {
    stemmer: Stemmer,
}

impl Default for Analyzer {
    fn default() -> Self {
        Analyzer {
            stemmer: Stemmer::create(Algorithm::Arabic),
        }
    }
}

impl Analyzer {
    pub(crate) fn tokens(&self, text: &str) -> Vec<String> {
        text.unicode_words()
            .map(str::to_lowercase)
            .filter(|w| w.chars().count() <= MAX_WORD_CHARS)
            .map(|w| self.stemmer.stem(&w).into_owned())
            .filter(|w| !w.is_empty())
            .collect()
    }
}

struct Posting {
    chunk: u32,
    tf: u32,
}

/// A BM25 index over every chunk of a build.
pub(crate) struct StockIndex {
    analyzer: Analyzer,
    /// Per chunk: its document, its domains and its length in tokens.
    doc_of: Vec<String>,
    domains_of: Vec<Vec<String>>,
    lens: Vec<u32>,
    avg_len: f64,
    postings: HashMap<String, Vec<Posting>>,
}

impl StockIndex {
    pub(crate) fn build<'a>(chunks: impl IntoIterator<Item = StockChunk<'a>>) -> StockIndex {
        let analyzer = Analyzer::default();
        let mut index = StockIndex {
            analyzer: Analyzer::default(),
            doc_of: Vec::new(),
            domains_of: Vec::new(),
            lens: Vec::new(),
            avg_len: 0.0,
            postings: HashMap::new(),
        };
        for c in chunks {
            let id = index.doc_of.len() as u32;
            let tokens = analyzer.tokens(&format!("{}\n{}", c.title, c.search_text));
            let mut tf: HashMap<String, u32> = HashMap::new();
            for t in &tokens {
                *tf.entry(t.clone()).or_default() += 1;
            }
            for (term, n) in tf {
                index
                    .postings
                    .entry(term)
                    .or_default()
                    .push(Posting { chunk: id, tf: n });
            }
            index.doc_of.push(c.doc_id.to_string());
            index.domains_of.push(c.domains.to_vec());
            index.lens.push(tokens.len() as u32);
        }
        let n = index.lens.len().max(1) as f64;
        index.avg_len = index.lens.iter().map(|&l| l as f64).sum::<f64>() / n;
        index
    }

    /// Documents for a question already in its search form, best first (each by its best
    /// chunk), at most `limit`; only chunks of one of `domains` when any are given.
    pub(crate) fn rank(
        &self,
        question: &str,
        domains: &[String],
        limit: usize,
    ) -> Vec<(String, f64)> {
        let mut terms = self.analyzer.tokens(question);
        terms.sort();
        terms.dedup();
        let n = self.lens.len() as f64;
        let mut scores: HashMap<u32, f64> = HashMap::new();
        for t in &terms {
            let Some(list) = self.postings.get(t) else {
                continue;
            };
            let df = list.len() as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for p in list {
                let len = self.lens[p.chunk as usize] as f64;
                let tf = p.tf as f64;
                let norm = K1 * (1.0 - B + B * len / self.avg_len.max(f64::MIN_POSITIVE));
                *scores.entry(p.chunk).or_default() += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        let mut best: HashMap<&str, f64> = HashMap::new();
        for (chunk, score) in scores {
            let c = chunk as usize;
            if !domains.is_empty() && !self.domains_of[c].iter().any(|d| domains.contains(d)) {
                continue;
            }
            let e = best.entry(self.doc_of[c].as_str()).or_insert(f64::MIN);
            *e = e.max(score);
        }
        let mut ranked: Vec<(String, f64)> =
            best.into_iter().map(|(d, s)| (d.to_string(), s)).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        ranked.truncate(limit);
        ranked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk<'a>(doc_id: &'a str, title: &'a str, text: &'a str) -> StockChunk<'a> {
        StockChunk {
            doc_id,
            title,
            search_text: text,
            domains: &[],
        }
    }

    #[test]
    fn the_analyzer_is_the_stock_one() {
        let a = Analyzer::default();
        // Lowercased Latin, Arabic stemmed by Snowball (the definite article and plural go).
        assert_eq!(a.tokens("Docker"), vec!["docker"]);
        let stem = a.tokens("المكتبات");
        assert_eq!(stem.len(), 1);
        assert_ne!(stem[0], "المكتبات");
        assert_eq!(a.tokens(&"ب".repeat(41)), Vec::<String>::new());
        assert_eq!(a.tokens(&"ب".repeat(40)).len(), 1);
    }

    #[test]
    fn bm25_ranks_documents_by_their_best_chunk() {
        let domains = ["x".to_string()];
        let idx = StockIndex::build([
            chunk("a", "ضغط الملفات", "اداة tar لضغط الملفات وفك ضغطها"),
            chunk("b", "الشبكة", "اداة ping لفحص الشبكة"),
            chunk("b", "الشبكة", "اداة curl لتحميل الملفات من الشبكة"),
            StockChunk {
                doc_id: "c",
                title: "ضغط",
                search_text: "ضغط ضغط ضغط الملفات",
                domains: &domains,
            },
        ]);
        let r = idx.rank("كيف افك ضغط ملف tar", &[], 10);
        assert_eq!(r[0].0, "a", "{r:?}");
        // A document appears once, at its best chunk.
        let r = idx.rank("الشبكة", &[], 10);
        assert_eq!(r.iter().filter(|(d, _)| d == "b").count(), 1);
        // Domains filter chunks.
        let r = idx.rank("ضغط", &domains, 10);
        assert_eq!(
            r.iter().map(|(d, _)| d.as_str()).collect::<Vec<_>>(),
            vec!["c"]
        );
        assert!(idx.rank("كلمة غائبة", &[], 10).is_empty());
    }
}
