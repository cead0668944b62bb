//! retrieve: a question over one version — a build's files, or through a [`VersionStore`] a
//! deployed version — asked through the core's steps (`askzico_core::search`): plan, read the
//! term shards it names, embed the question and read the nearest vectors, rank, read the
//! records it names, answer. The ranking is the core's; this module only reads, in one call of
//! the store per step, and embeds with the configured provider.

mod index;
pub(crate) mod local;

pub(crate) use askzico_core::search::{
    Hit, Mode, Plan, Ranked, Ranker, Ranking, Records, RetrievalSettings, ShardKey, Shards,
};
pub(crate) use askzico_core::tables::{ChunkInfo, Tables, chunk_date, date_of};

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::artifacts::LookupRecord;
use crate::artifacts::manifest::Manifest;
use crate::diag::Problem;
use askzico_core::lexical::ShardData;

/// What a question searches: these domains, libraries and documents whose filterable fields
/// have these values (each empty: all).
#[derive(Debug, Clone, Default)]
pub(crate) struct Filters {
    pub(crate) domains: Vec<String>,
    pub(crate) libraries: Vec<String>,
    /// `KEY=VALUE`: for each key, one of its values.
    pub(crate) fields: Vec<(String, String)>,
}

impl Filters {
    /// Only domains.
    pub(crate) fn domains(domains: &[String]) -> Filters {
        Filters {
            domains: domains.to_vec(),
            ..Filters::default()
        }
    }
}

/// `--mode` on the command line: which rankings a search uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    Fused,
    Lexical,
    Vector,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Fused => Mode::Fused,
            ModeArg::Lexical => Mode::Lexical,
            ModeArg::Vector => Mode::Vector,
        }
    }
}

/// The settings a query reads, borrowed from the corpus's (`Config::search_settings`): the
/// core's ranking settings and the embedding provider that embeds the question.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SearchSettings<'a> {
    pub(crate) ranking: askzico_core::search::Settings<'a>,
    pub(crate) embedding: &'a crate::embed::EmbedSettings,
}

/// Where a [`Searcher`] reads what it does not hold: a domain's lexical term shards, the vectors
/// nearest a question, and a hit's lookup record. A build's output directory
/// ([`Searcher::open`]) or a deployed version in Workers KV and Vectorize (`deploy::live`): the
/// ranking is the same code over either.
pub(crate) trait VersionStore {
    /// Term shard `shard` of `domain`'s lexical index.
    fn lex_shard(&self, domain: &str, shard: usize) -> Result<ShardData, Problem>;
    /// The term shards a plan names, each read once (a store may read several in one request).
    fn lex_shards(&self, keys: &[ShardKey]) -> Result<Shards, Problem> {
        keys.iter()
            .map(|(d, k)| Ok(((d.clone(), *k), self.lex_shard(d, *k)?)))
            .collect()
    }
    /// The `k` chunks nearest the question's embedding `q` among those `keep` accepts, with a
    /// score above 0, best first (score, then chunk ID).
    fn nearest(&self, q: &[f32], keep: &dyn Fn(&str) -> bool, k: usize)
    -> Result<Ranking, Problem>;
    /// The lookup records of retrieved chunks, in `ids` order, each read once (a store may read
    /// several in one request); `None` for a chunk the version has no record of.
    fn records(&self, ids: &[&str]) -> Result<Vec<Option<LookupRecord>>, Problem>;
    /// For a searcher that holds only the rows of the tables a question needs (a build read
    /// through its query index): each domain's lexical meta with the rows of its document
    /// table that `slots` names; `None` from a store that holds no such index.
    fn metas(
        &self,
        _slots: &BTreeMap<String, BTreeSet<u32>>,
    ) -> Result<Option<BTreeMap<String, crate::artifacts::lexical::LexMeta>>, Problem> {
        Ok(None)
    }
    /// The facts of the chunks `ids` the version has, for such a searcher.
    fn facts(&self, _ids: &[&str]) -> Result<BTreeMap<String, ChunkInfo>, Problem> {
        Ok(BTreeMap::new())
    }
}

/// One version, loaded for querying: the core's ranker over its tables, and the store of the
/// rest.
pub(crate) struct Searcher<'a> {
    pub manifest: Manifest,
    ranker: Ranker<'a>,
    embedding: &'a crate::embed::EmbedSettings,
    store: Box<dyn VersionStore + 'a>,
    /// Set when the searcher holds only a question's rows of the tables (`open_indexed`).
    rows: Option<Rows>,
}

/// What a searcher over a build's query index keeps besides its store: the question word
/// classes of its settings, and the version's tables read whole, once, for the questions that
/// need every chunk's facts.
struct Rows {
    classes: askzico_core::normalize::query_words::WordClasses,
    out: PathBuf,
    whole: OnceCell<Tables>,
}

impl From<askzico_core::Error> for Problem {
    fn from(e: askzico_core::Error) -> Problem {
        Problem::error(e.code, e.message).help(e.help)
    }
}

impl<'a> Searcher<'a> {
    /// The build in `out` that `manifest` names, read from its files.
    pub(crate) fn open(
        cfg: SearchSettings<'a>,
        out: &Path,
        manifest: Manifest,
    ) -> Result<Self, Problem> {
        let ((chunks, lex_meta), store) = local::open(out, &manifest)?;
        Ok(Searcher::new(
            cfg,
            manifest,
            chunks,
            lex_meta,
            Box::new(store),
        ))
    }

    /// The build in `out` that `manifest` names, read through its query index (made by this
    /// first query of the version): a question reads its terms' shards, the index rows they
    /// name and the records it returns, not every chunk's facts. A question that filters by
    /// library or field, names a date, or filters a vector search reads the tables whole. The
    /// same answers as [`Searcher::open`]; that, where the index cannot be made or read.
    pub(crate) fn open_indexed(
        cfg: SearchSettings<'a>,
        out: &Path,
        manifest: Manifest,
    ) -> Result<Self, Problem> {
        let Some((metas, store)) = local::open_indexed(out, &manifest)? else {
            let ((chunks, lex_meta), store) = local::read_whole(out, &manifest)?;
            return Ok(Searcher::new(
                cfg,
                manifest,
                chunks,
                lex_meta,
                Box::new(store),
            ));
        };
        let mut s = Searcher::new(cfg, manifest, BTreeMap::new(), metas, Box::new(store));
        s.rows = Some(Rows {
            classes: Ranker::classes(&cfg.ranking),
            out: out.to_path_buf(),
            whole: OnceCell::new(),
        });
        Ok(s)
    }

    /// A version from its chunks, its domains' lexical metas and the store of the rest.
    pub(crate) fn new(
        cfg: SearchSettings<'a>,
        manifest: Manifest,
        chunks: std::collections::BTreeMap<String, ChunkInfo>,
        lex_meta: std::collections::BTreeMap<String, crate::artifacts::lexical::LexMeta>,
        store: Box<dyn VersionStore + 'a>,
    ) -> Self {
        let tables = Tables {
            corpus_version: manifest.corpus_version.clone(),
            chunks,
            lex_meta,
        };
        Searcher {
            manifest,
            ranker: Ranker::new(cfg.ranking, tables),
            embedding: cfg.embedding,
            store,
            rows: None,
        }
    }

    /// The ranking's settings.
    pub(crate) fn settings(&self) -> &askzico_core::search::Settings<'a> {
        self.ranker.settings()
    }

    /// Each chunk's facts (no evidence text).
    pub(crate) fn chunks(&self) -> &std::collections::BTreeMap<String, ChunkInfo> {
        &self.ranker.tables.chunks
    }

    /// Ranked chunk IDs with scores, and whether each chunk's date is one the question names.
    pub(crate) fn rank(
        &self,
        question: &str,
        domains: &[String],
        mode: Mode,
    ) -> Result<Ranked, Problem> {
        let plan = self.plan(question, &Filters::domains(domains), mode);
        let scored = self.scored(&self.ranker, plan, None)?;
        let records = self.read_records(&scored.needs(&self.ranker, None))?;
        Ok(self.ranker.finish(scored, &records))
    }

    /// The first `k` pages of a ranking ([`Ranker::pages`]): indexes in `ranked`, each page's
    /// best chunk first.
    pub(crate) fn pages(&self, ranked: &Ranked, k: usize) -> Vec<Vec<usize>> {
        self.ranker.pages(ranked, k)
    }

    /// The top `k` pages that pass `filters`, hydrated from lookup. An unhydratable ID is an
    /// invariant failure.
    pub(crate) fn search(
        &self,
        question: &str,
        filters: &Filters,
        k: usize,
        mode: Mode,
    ) -> Result<Vec<Hit>, Problem> {
        let plan = self.plan(question, filters, mode);
        let Some(rows) = &self.rows else {
            return self.answer(&self.ranker, plan, None, k);
        };
        let cfg = *self.ranker.settings();
        let dated = !askzico_core::search::dates::dates_in(question).is_empty();
        if plan.narrows() || (plan.embedding_input().is_some() && plan.filters()) || dated {
            let tables = self.whole(rows)?;
            return self.answer(
                &Ranker::borrowing(cfg, tables, &rows.classes),
                plan,
                None,
                k,
            );
        }
        // Only the rows this question reads: the documents its terms' postings name, then the
        // facts of the chunks it shows.
        let shards = self.store.lex_shards(plan.shards())?;
        let slots = self.ranker.slots(&plan, &shards)?;
        let Some(lex_meta) = self.store.metas(&slots)? else {
            return self.answer(&self.ranker, plan, Some(shards), k);
        };
        let mut tables = Tables {
            corpus_version: self.manifest.corpus_version.clone(),
            chunks: BTreeMap::new(),
            lex_meta,
        };
        let ranker = Ranker::borrowing(cfg, &tables, &rows.classes);
        let scored = self.scored(&ranker, plan, Some(shards))?;
        let needs = scored.needs(&ranker, Some(k));
        let records = self.read_records(&needs)?;
        let ids: Vec<&str> = needs.iter().map(String::as_str).collect();
        tables.chunks = self.store.facts(&ids)?;
        let ranker = Ranker::borrowing(cfg, &tables, &rows.classes);
        Ok(ranker.answer(scored, &records, k)?)
    }

    /// The version's tables read whole, once.
    fn whole<'r>(&self, rows: &'r Rows) -> Result<&'r Tables, Problem> {
        if let Some(t) = rows.whole.get() {
            return Ok(t);
        }
        let ((chunks, lex_meta), _) = local::read_whole(&rows.out, &self.manifest)?;
        Ok(rows.whole.get_or_init(|| Tables {
            corpus_version: self.manifest.corpus_version.clone(),
            chunks,
            lex_meta,
        }))
    }

    /// The top `k` pages of `plan` by `ranker`, hydrated from lookup.
    fn answer(
        &self,
        ranker: &Ranker<'_>,
        plan: Plan,
        shards: Option<Shards>,
        k: usize,
    ) -> Result<Vec<Hit>, Problem> {
        let scored = self.scored(ranker, plan, shards)?;
        let records = self.read_records(&scored.needs(ranker, Some(k)))?;
        Ok(ranker.answer(scored, &records, k)?)
    }

    /// The question analysed under `filters`.
    fn plan(&self, question: &str, filters: &Filters, mode: Mode) -> Plan {
        self.ranker
            .plan(question, &filters.domains, mode)
            .in_libraries(&filters.libraries)
            .with_fields(&filters.fields)
    }

    /// `plan` with its shards read (unless given), its embedding's nearest vectors read, and
    /// ranked by `ranker`.
    fn scored(
        &self,
        ranker: &Ranker<'_>,
        plan: Plan,
        shards: Option<Shards>,
    ) -> Result<askzico_core::search::Scored, Problem> {
        let shards = match shards {
            Some(s) => s,
            None => self.store.lex_shards(plan.shards())?,
        };
        let vector = match plan.embedding_input() {
            Some(text) => {
                let q = self.embed(text.as_str())?;
                let keep = ranker.keeps(&plan);
                self.store
                    .nearest(&q, &keep, ranker.settings().retrieval.depth)?
            }
            None => Vec::new(),
        };
        Ok(ranker.rank(plan, &shards, vector)?)
    }

    /// The question's search text embedded by the configured provider.
    fn embed(&self, search: &str) -> Result<Vec<f32>, Problem> {
        if let Some(h) = crate::embed::inline_hash(self.embedding) {
            return Ok(h.embed(search));
        }
        let fail = |e: crate::embed::EmbedError| {
            Problem::error(
                "embed",
                format!("embedding the question failed: {}", e.message),
            )
            .help(e.help)
        };
        Ok(crate::embed::provider(self.embedding)
            .and_then(|p| p.embed_batch(&[search]))
            .map_err(fail)?
            .pop()
            .unwrap_or_default())
    }

    /// The records of `ids`, in one call of the store.
    fn read_records(&self, ids: &[String]) -> Result<Records, Problem> {
        if ids.is_empty() {
            return Ok(Records::new());
        }
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let got = self.store.records(&refs)?;
        Ok(ids
            .iter()
            .cloned()
            .zip(got.into_iter().map(|r| r.map(std::sync::Arc::new)))
            .collect())
    }
}
