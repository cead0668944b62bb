//! askzico: compiles curated Arabic site content into citation-ready RAG artifacts.
//!
//! The CLI crate (see ARCHITECTURE.md): pure pipeline stages (`extract`, `chunk`, `identity`,
//! `compile`) over the core crate's normalization (`askzico_core`), wrapped by I/O edges:
//! `config` and `discover` read, `engine` drives the incremental build, `artifacts` writes,
//! `retrieve` and `deploy` read a version for questions, `cli` renders.

// `diag::Problem` (a miette diagnostic with its source text, span and help) is the error of
// every fallible step. Errors are the cold path: boxing each one would add an allocation and
// an indirection at every `?` for no gain, so its size is accepted.
#![allow(clippy::result_large_err)]
#![warn(unreachable_pub)]

mod artifacts;
mod chunk;
mod cli;
mod compile;
mod config;
mod db;
mod deploy;
mod diag;
mod discover;
mod embed;
mod engine;
mod eval;
mod extract;
mod fsio;
mod http;
mod identity;
mod inspect;
mod knobs;
mod paths;
mod retrieve;
mod sources;
mod template;
mod term;
mod timings;
mod walk;
mod watch;

// The pure core's modules, under the names the rest of the crate has always used.
pub use askzico_core::{coptic, fnv, normalize, text};

// The binary's whole program: parse the command line, run the command, return the exit code.
pub use cli::run;

// What the benchmark crate, the fuzz targets and the tests use; everything else is private.
pub use artifacts::Kind as ArtifactKind;
pub use artifacts::lexical::{LexShard, shard_of};
pub use artifacts::manifest::{ArtifactEntry, corpus_version};
pub use artifacts::marker::{first_foreign_entry, real_dirs_under};
pub use artifacts::store::{read_manifest, write_atomic};
pub use chunk::{ChunkSettings, ChunkSpan, chunk};
pub use cli::report;
pub use compile::compile_file;
pub use config::Config;
pub use config::keys::{Key, KeyKind, keys as config_keys};
pub use deploy::upload::kv_version;
pub use diag::{Problem, Problems};
pub use discover::discover;
pub use embed::HashEmbedder;
pub use engine::{BuildReport, BuildRequest, Engine};
pub use extract::html::readable::{HtmlOutcome, arabic_script_majority, doc_text, extract_html};
pub use extract::{BlockKind, Body, Document, Format, Includes, decode_entities, extract};
pub use fsio::{ReadError, cap, read_capped, read_capped_string};
pub use timings::{ENV as TIMINGS_ENV, STAGES as TIMING_STAGES};
