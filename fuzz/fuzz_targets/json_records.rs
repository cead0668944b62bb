//! Any bytes as a Json source of the `seneksar` library: extraction and the per-file core
//! never panic, and every document's body and chunks keep their invariants.
#![no_main]

mod common;

use askzico::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    common::check_file("seneksar", "records.json", Format::Json, data);
});
