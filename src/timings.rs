//! timings: opt-in time per build stage, for `askzico-bench builds`. Set
//! `ASKZICO_STAGE_TIMES=1` and `build` prints one JSON line on stderr at exit: nanoseconds per
//! stage.
//!
//! A stage is timed by a guard (`let _t = timings::start(Stage::Chunk);`). Guards nest: an inner
//! stage pauses the outer one on its thread, so each nanosecond counts for exactly one stage
//! (a hash inside a render counts as `hash`, not `serialize`). Figures are thread-time: elapsed
//! time summed over every thread that ran the stage (blocked time included), so with parallel
//! work they exceed the wall time. Disabled (the default), a guard costs one cached load and a
//! branch: no clock is read.

use std::cell::Cell;
use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The stages of a build, in pipeline order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Reading source files.
    Read,
    /// Parsing a source into documents (Markdown, MDX, HTML, JSON).
    Extract,
    /// Splitting bodies into chunk spans.
    Chunk,
    /// Search text, variants, aliases, stems and context tokens.
    Normalize,
    /// Inline (hash) embedding.
    Embed,
    /// Lexical postings and their dealing into term shards.
    Index,
    /// Rendering artifact bytes (JSON lines, JSON, vectors).
    Serialize,
    /// blake3 of artifacts, sources (build stamp) and compile-cache keys.
    Hash,
    /// Writing files under `out/` (artifacts, manifest, caches).
    Write,
    /// The compile cache: reading packs, decoding and encoding entries.
    Cache,
}

pub const STAGES: [Stage; 10] = [
    Stage::Read,
    Stage::Extract,
    Stage::Chunk,
    Stage::Normalize,
    Stage::Embed,
    Stage::Index,
    Stage::Serialize,
    Stage::Hash,
    Stage::Write,
    Stage::Cache,
];

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Read => "read",
            Stage::Extract => "extract",
            Stage::Chunk => "chunk",
            Stage::Normalize => "normalize",
            Stage::Embed => "embed",
            Stage::Index => "index",
            Stage::Serialize => "serialize",
            Stage::Hash => "hash",
            Stage::Write => "write",
            Stage::Cache => "cache",
        }
    }
}

/// The environment variable that turns timing on.
pub const ENV: &str = crate::knobs::STAGE_TIMES;

static ENABLED: LazyLock<bool> = LazyLock::new(|| crate::knobs::switch(ENV) == Some(true));
static TOTALS: [AtomicU64; STAGES.len()] = [const { AtomicU64::new(0) }; STAGES.len()];

thread_local! {
    /// The stage running on this thread and since when it is counted.
    static CURRENT: Cell<Option<(Stage, Instant)>> = const { Cell::new(None) };
}

pub(crate) fn enabled() -> bool {
    *ENABLED
}

fn add(stage: Stage, since: Instant, now: Instant) {
    TOTALS[stage as usize].fetch_add(
        now.duration_since(since).as_nanos() as u64,
        Ordering::Relaxed,
    );
}

/// Times `stage` until the guard drops.
#[must_use = "the stage is timed until the guard drops"]
pub(crate) fn start(stage: Stage) -> Guard {
    if !enabled() {
        return Guard {
            parent: None,
            on: false,
        };
    }
    let now = Instant::now();
    let parent = CURRENT.with(|c| c.replace(Some((stage, now))));
    if let Some((s, since)) = parent {
        add(s, since, now);
    }
    Guard {
        parent: parent.map(|(s, _)| s),
        on: true,
    }
}

/// `f`, timed as `stage`.
pub(crate) fn timed<T>(stage: Stage, f: impl FnOnce() -> T) -> T {
    let _t = start(stage);
    f()
}

/// blake3 of `bytes`, timed as `hash`.
pub(crate) fn blake3(bytes: &[u8]) -> blake3::Hash {
    timed(Stage::Hash, || blake3::hash(bytes))
}

pub(crate) struct Guard {
    parent: Option<Stage>,
    on: bool,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if !self.on {
            return;
        }
        let now = Instant::now();
        let parent = self.parent.map(|s| (s, now));
        if let Some((s, since)) = CURRENT.with(|c| c.replace(parent)) {
            add(s, since, now);
        }
    }
}

/// Nanoseconds per stage so far, in `STAGES` order.
pub(crate) fn totals() -> Vec<(&'static str, u64)> {
    STAGES
        .iter()
        .map(|s| (s.name(), TOTALS[*s as usize].load(Ordering::Relaxed)))
        .collect()
}

/// The JSON line `build` prints on stderr when timing is on: `{"stage_ns": {"read": …, …}}`.
pub(crate) fn json_line() -> String {
    let m: serde_json::Map<String, serde_json::Value> = totals()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.into()))
        .collect();
    serde_json::json!({ "stage_ns": m }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stage_is_listed_once_in_order() {
        for (i, s) in STAGES.iter().enumerate() {
            assert_eq!(*s as usize, i, "{}", s.name());
        }
        let line: serde_json::Value = serde_json::from_str(&json_line()).unwrap();
        let names: Vec<&str> = line["stage_ns"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(names, STAGES.iter().map(|s| s.name()).collect::<Vec<_>>());
    }
}
