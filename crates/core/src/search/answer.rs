//! Step 3's result: the top pages of a ranking, each with its best chunk, its further
//! sections, the excerpts that show the match, the links to their sections and why the page
//! ranked.

use rustc_hash::FxHashMap;

use serde::Serialize;

use super::{QueryWord, Ranked, Ranker, Ranking, Records, Scored, excerpt};
use crate::Error;
use crate::normalize::query_words::WordClass;
use crate::tables::LookupRecord;

/// One result: a page (a document), found by its best chunk, with that chunk's evidence as
/// stored, the excerpt that shows the match, why it ranked, and the page's further matching
/// sections.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    /// The page's rank among pages, from 1.
    pub rank: usize,
    /// The fused score of its best chunk.
    pub score: f64,
    pub chunk_id: String,
    pub doc_id: String,
    pub title: String,
    pub url: String,
    pub source: String,
    pub library: String,
    /// The headings above the best chunk's start (`title › h2 › h3`).
    pub heading_path: Vec<String>,
    /// The page's URL with the anchor of the heading its excerpt lies under, when that heading
    /// (or the nearest above it) has an id; else `url`.
    pub section_url: String,
    /// The best chunk's evidence, unaltered.
    pub text: String,
    /// A window of `text` around the densest match, HTML-escaped, the matched words in
    /// `<mark>` ([`excerpt`]).
    pub excerpt: String,
    pub date_match: bool,
    /// The best chunk's place in the lexical ranking (after the second stage), `None` when that
    /// ranking did not return it.
    pub lexical: Option<RankedBy>,
    /// The best chunk's place in the vector ranking, `None` when that ranking did not return it.
    pub vector: Option<RankedBy>,
    /// Up to [`SECTIONS`] further chunks of the page that matched, best first.
    pub sections: Vec<Section>,
}

/// A chunk's place in one ranking: its rank from 1 and its score there.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RankedBy {
    pub rank: usize,
    pub score: f64,
}

/// A further matching chunk of a result's page.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    pub chunk_id: String,
    pub title: String,
    pub url: String,
    /// The headings above its start.
    pub heading_path: Vec<String>,
    /// The URL of the heading its excerpt lies under (see [`Hit::section_url`]).
    pub section_url: String,
    /// Its fused score.
    pub score: f64,
    pub excerpt: String,
}

/// A question's answer as `askzico query --json` prints it and the Worker's `/search` returns
/// it: one serialization for both, so the same answer is the same bytes.
#[derive(Debug, Clone, Serialize)]
pub struct Answer<'a> {
    pub question: &'a str,
    /// The question's search form (what the lexical ranking matched and the embedder embedded).
    pub search_text: &'a str,
    pub corpus_version: &'a str,
    pub hits: &'a [Hit],
}

/// How many further matching sections a page result carries besides its best chunk.
pub const SECTIONS: usize = 3;

impl Ranker<'_> {
    /// Step 3: the top `k` pages, each hydrated from `records` (which must hold what
    /// [`Scored::needs`]`(Some(k))` named) with its best chunk and its further sections. An
    /// unhydratable ID is an invariant failure.
    pub fn answer(
        &self,
        mut scored: Scored,
        records: &Records,
        k: usize,
    ) -> Result<Vec<Hit>, Error> {
        let (ranked, lex) = self.reranked(&mut scored, records);
        let marker = self.marker(&scored.plan.words);
        let size = self.cfg.retrieval.excerpt_words;
        let mut seen = FxHashMap::default();
        let mut hits = Vec::new();
        for (i, page) in self.pages(&ranked, k).into_iter().enumerate() {
            let (id, score, date_match) = &ranked[page[0]];
            let rec = self.record(records, id)?;
            let info = self.tables.chunks.get(id);
            let mut sections = Vec::with_capacity(page.len() - 1);
            for &j in &page[1..] {
                let (sid, sscore, _) = &ranked[j];
                let srec = self.record(records, sid)?;
                let shown = excerpt::excerpt(&srec.text, &marker, size, &mut seen);
                sections.push(Section {
                    chunk_id: sid.clone(),
                    title: srec.title.clone(),
                    url: srec.url.clone(),
                    heading_path: heading_path(srec),
                    section_url: section_url(&srec.url, &srec.anchors, shown.at),
                    score: *sscore,
                    excerpt: shown.html,
                });
            }
            let shown = excerpt::excerpt(&rec.text, &marker, size, &mut seen);
            hits.push(Hit {
                rank: i + 1,
                score: *score,
                chunk_id: id.clone(),
                doc_id: info.map(|c| c.doc_id.clone()).unwrap_or_default(),
                title: rec.title.clone(),
                url: rec.url.clone(),
                source: info.map(|c| c.source.clone()).unwrap_or_default(),
                library: rec.library.clone(),
                heading_path: heading_path(rec),
                section_url: section_url(&rec.url, &rec.anchors, shown.at),
                text: rec.text.clone(),
                excerpt: shown.html,
                date_match: *date_match,
                lexical: ranked_by(&lex, id),
                vector: ranked_by(&scored.vec, id),
                sections,
            });
        }
        Ok(hits)
    }

    /// The record of retrieved chunk `id`; its absence is an invariant failure.
    fn record<'r>(&self, records: &'r Records, id: &str) -> Result<&'r LookupRecord, Error> {
        records.get(id).and_then(Option::as_deref).ok_or_else(|| {
            Error::invariant(
                format!(
                    "chunk {id} was retrieved but cannot be hydrated in version {}",
                    self.tables.corpus_version
                ),
                "the lexical/vector artifacts and the lookup records come from different builds: rebuild and run `askzico verify`",
            )
        })
    }

    /// What an excerpt marks: the question's topic words (all its words when it has none).
    fn marker<'w>(&'w self, words: &'w [QueryWord]) -> excerpt::Marker<'w> {
        let topic: Vec<&QueryWord> = words
            .iter()
            .filter(|w| self.classes.class(&w.token) == WordClass::Content)
            .collect();
        let marked = if topic.is_empty() {
            words.iter().collect()
        } else {
            topic
        };
        excerpt::Marker::new(
            &marked,
            self.cfg.normalize,
            crate::normalize::WordExtras::new(self.cfg.aliases, self.cfg.article_stems),
        )
    }

    /// The first `k` pages of a ranking, in the order of their best chunks: each the indexes in
    /// `ranked` of its best chunk and of up to [`SECTIONS`] further chunks of it, best first.
    pub fn pages(&self, ranked: &Ranked, k: usize) -> Vec<Vec<usize>> {
        let mut pages: Vec<Vec<usize>> = Vec::new();
        let mut at: FxHashMap<&str, usize> = FxHashMap::default();
        for (i, (id, _, _)) in ranked.iter().enumerate() {
            match at.get(self.page_of(id)) {
                Some(&p) if pages[p].len() <= SECTIONS => pages[p].push(i),
                Some(_) => {}
                None if pages.len() < k => {
                    at.insert(self.page_of(id), pages.len());
                    pages.push(vec![i]);
                }
                None => {}
            }
        }
        pages
    }

    /// The page a chunk belongs to: its document, named by the tables or, for a chunk they do
    /// not hold (a store that holds only a question's rows), by its ID: a document's ID and
    /// `:` and its index.
    pub(super) fn page_of<'s>(&'s self, id: &'s str) -> &'s str {
        self.tables.chunks.get(id).map_or_else(
            || id.rsplit_once(':').map_or(id, |(doc, _)| doc),
            |c| c.doc_id.as_str(),
        )
    }
}

/// The URL of the section of a chunk that holds byte `at` of its text: `url` with the id of
/// the last of `anchors` that begins at or before `at` as its fragment (percent-encoded UTF-8,
/// replacing a fragment `url` has); `url` itself when that section links to no heading.
pub fn section_url(url: &str, anchors: &[(usize, String)], at: usize) -> String {
    let id = anchors
        .iter()
        .take_while(|(start, _)| *start <= at)
        .last()
        .map_or("", |(_, id)| id.as_str());
    if id.is_empty() {
        return url.to_string();
    }
    let base = url.split_once('#').map_or(url, |(base, _)| base);
    let mut out = String::with_capacity(base.len() + 1 + id.len() * 3);
    out.push_str(base);
    out.push('#');
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The headings above a record's chunk (its metadata's `heading_path`).
fn heading_path(rec: &LookupRecord) -> Vec<String> {
    rec.metadata
        .get("heading_path")
        .and_then(|v| v.as_array())
        .map(|hs| {
            hs.iter()
                .filter_map(|h| h.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Where chunk `id` stands in `ranking`, if it is there.
fn ranked_by(ranking: &Ranking, id: &str) -> Option<RankedBy> {
    ranking.iter().position(|(c, _)| c == id).map(|i| RankedBy {
        rank: i + 1,
        score: ranking[i].1,
    })
}
