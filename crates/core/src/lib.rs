//! askzico-core: everything a question needs once a version's bytes are in hand, and the
//! search-text rules a build indexes with, so the build, `askzico query` and a deployed runtime
//! share one implementation.
//!
//! - `text`: distinct types for evidence text and search text; tokens and key orders.
//! - `normalize`: the search-text rules, recall aliases, stems, loanword and glossary keys,
//!   question word classes.
//! - `lexical`: the stored format of the lexical shards and their domain metas.
//! - `tables`: what a version holds for ranking and hydration (chunk facts, lookup records).
//! - `search`: a question in steps a networked store can batch — [`search::Ranker::plan`] names
//!   the term shards, [`search::Ranker::rank`] ranks and names the records, and
//!   [`search::Ranker::answer`] finishes the ranking and builds the hits.
//! - `embed`: the offline `hash` embedder.
//! - `deployed`: a version as Workers KV holds it (keys, key table, query settings, records),
//!   read side, shared by `askzico query --target` and the Worker.
//!
//! No I/O: no files, network, processes, environment, clocks or threads, and no dependency that
//! does any; it builds for `wasm32-unknown-unknown`.

pub mod coptic;
pub mod deployed;
pub mod embed;
mod error;
pub mod fnv;
pub mod lexical;
pub mod normalize;
pub mod search;
pub mod tables;
pub mod text;

pub use error::Error;
