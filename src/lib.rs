//! askzico: compiles curated Arabic site content into citation-ready RAG artifacts.
//!
//! The pipeline (see ARCHITECTURE.md) is a pure core — `extract`, `chunk`, `identity`,
//! `normalize`, `embed`, `artifacts::render` — wrapped by thin I/O edges: `config` and
//! `discover` read, `artifacts::store` writes, `cli` drives.

pub mod artifacts;
pub mod bench;
pub mod build;
pub mod chunk;
pub mod cli;
pub mod config;
pub mod db;
pub mod deploy;
pub mod diag;
pub mod discover;
pub mod embed;
pub mod engine;
pub mod extract;
pub mod identity;
pub mod inspect;
pub mod normalize;
pub mod retrieve;
pub mod eval;
pub mod text;
pub mod timings;
pub mod watch;
