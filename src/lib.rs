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

pub mod artifacts;
pub mod chunk;
pub mod cli;
pub mod compile;
pub mod config;
mod db;
mod deploy;
pub mod diag;
pub mod discover;
mod embed;
pub mod engine;
mod eval;
pub mod extract;
pub mod fsio;
mod http;
mod identity;
mod inspect;
mod knobs;
mod paths;
mod retrieve;
mod sources;
mod template;
mod term;
pub mod timings;
mod walk;
mod watch;

// The pure core's modules, under the names the rest of the crate has always used.
pub use askzico_core::{coptic, fnv, normalize, text};

// What the benchmarks, the fuzz targets and the tests use of the private modules.
pub use deploy::upload::kv_version;
pub use embed::HashEmbedder;
