//! The build's lexical shards: a part's postings (`postings`), full renders (`render`) and the
//! patches of a resumed build (`patch`). The stored format itself, and how it is read, is the
//! core's (`askzico_core::lexical`), so the runtime reads exactly what this writes.

mod patch;
mod postings;
mod render;
#[cfg(test)]
mod tests;

pub use askzico_core::lexical::*;
pub(crate) use patch::*;
pub(crate) use postings::*;
pub(crate) use render::*;
