//! Former home of the per-file compile and of the build request types, kept as re-exports so
//! code that still names `build::…` compiles. New code uses `compile` (pure), `sources`
//! (reading a source, crate-internal) and `engine` (requests, reports, `engine::run`).

pub use crate::compile::{
    PIPELINE_VERSION, compile_file, display_name, duplicate_problems, settings_values,
};
pub use crate::engine::{BuildReport, BuildRequest, BuildStats, run};
