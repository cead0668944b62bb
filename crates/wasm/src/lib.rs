//! askzico-wasm: the retrieval core as the Worker runs it (`worker/`), compiled to
//! `wasm32-unknown-unknown` behind a plain C ABI. The Worker owns every read (KV, Vectorize,
//! Workers AI); this crate does all analysis, ranking and excerpts with the code `askzico query`
//! runs, so a deployed version answers as the author's machine does.
//!
//! The ABI: the Worker copies a call's input into memory it got from [`az_alloc`], calls an
//! `az_*` operation with its pointer and length, and reads the result from [`az_out_ptr`] and
//! [`az_out_len`] (UTF-8 JSON). An operation returns 0 on success and 1 when the result is an
//! error (`{"error": {"code", "message", "help"}}`). An input is a sequence of items, each a
//! little-endian `u32` length and that many bytes (`u32::MAX`: no value); the first item is a
//! JSON header, the rest are values as KV returned them. Versions and questions are named by
//! handles, so several questions can be between their steps at once.

mod runtime;

pub use runtime::{Ask, Budget, Failure, MAX_K, MAX_QUESTION_CHARS, Question, Version};

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde::Deserialize;

/// Versions and questions held between calls, and the last result.
#[derive(Default)]
struct State {
    versions: HashMap<u32, Rc<Version>>,
    /// Question handle → its version's handle and the question.
    questions: HashMap<u32, (Rc<Version>, Question)>,
    next: u32,
    out: Vec<u8>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// The items of an input (see the crate docs); `None` when it is not well framed.
pub fn items(input: &[u8]) -> Option<Vec<Option<&str>>> {
    let mut out = Vec::new();
    let mut rest = input;
    while !rest.is_empty() {
        let (len, tail) = rest.split_at_checked(4)?;
        let len = u32::from_le_bytes(len.try_into().ok()?);
        if len == u32::MAX {
            out.push(None);
            rest = tail;
            continue;
        }
        let (item, tail) = tail.split_at_checked(len as usize)?;
        out.push(Some(std::str::from_utf8(item).ok()?));
        rest = tail;
    }
    Some(out)
}

/// Runs `op` over the input at `ptr`, storing its result; 0 on success, 1 on failure.
fn call(
    ptr: *const u8,
    len: usize,
    op: impl FnOnce(&mut State, &[Option<&str>]) -> runtime::Result<String>,
) -> i32 {
    // SAFETY: the Worker passes a region it wrote into memory from `az_alloc`, which stays
    // valid and unchanged for the call.
    let input = unsafe { std::slice::from_raw_parts(ptr, len) };
    STATE.with_borrow_mut(|state| {
        let result = match items(input) {
            Some(items) if !items.is_empty() => op(state, &items),
            _ => Err(runtime::Failure {
                code: "invariant",
                message: "the call's input is not well framed".into(),
                help: String::new(),
            }),
        };
        let (code, out) = match result {
            Ok(out) => (0, out),
            Err(f) => (1, runtime::failure_json(&f)),
        };
        state.out = out.into_bytes();
        code
    })
}

/// The JSON header of a call.
fn header<T: for<'de> Deserialize<'de>>(items: &[Option<&str>]) -> runtime::Result<T> {
    runtime::from_json(items[0].unwrap_or_default())
}

/// The values after the header, each present.
fn values<'i>(items: &[Option<&'i str>]) -> runtime::Result<Vec<&'i str>> {
    items[1..]
        .iter()
        .map(|v| {
            v.ok_or_else(|| runtime::Failure {
                code: "deployed",
                message: "a value the version names is missing from KV".into(),
                help: "deploy the build again (`askzico deploy --target NAME`)".into(),
            })
        })
        .collect()
}

fn unknown(what: &str) -> runtime::Failure {
    runtime::Failure {
        code: "invariant",
        message: format!("no such {what} handle"),
        help: String::new(),
    }
}

/// Memory for an input of `len` bytes.
#[unsafe(no_mangle)]
pub extern "C" fn az_alloc(len: usize) -> *mut u8 {
    let mut v = Vec::<u8>::with_capacity(len.max(1));
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}

/// Frees memory [`az_alloc`] gave for `len` bytes.
///
/// # Safety
/// `ptr` must come from `az_alloc(len)` and not be freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn az_free(ptr: *mut u8, len: usize) {
    // SAFETY: as the caller promises, `ptr` is an allocation of capacity `len.max(1)`.
    drop(unsafe { Vec::from_raw_parts(ptr, 0, len.max(1)) });
}

#[unsafe(no_mangle)]
pub extern "C" fn az_out_ptr() -> *const u8 {
    STATE.with_borrow(|s| s.out.as_ptr())
}

#[unsafe(no_mangle)]
pub extern "C" fn az_out_len() -> usize {
    STATE.with_borrow(|s| s.out.len())
}

#[derive(Deserialize)]
struct VersionHeader {
    prefix: String,
    version: String,
    /// Bytes of term shards the version may keep between questions.
    #[serde(default)]
    shard_bytes: usize,
    /// Bytes of lookup records the version may keep between questions.
    #[serde(default)]
    record_bytes: usize,
}

/// The keys to read to open a version: header `{prefix, version}`, then its key table.
#[unsafe(no_mangle)]
pub extern "C" fn az_needed(ptr: *const u8, len: usize) -> i32 {
    call(ptr, len, |_, items| {
        let h: VersionHeader = header(items)?;
        let table = values(items)?.first().copied().unwrap_or_default();
        Ok(runtime::to_json(&Version::needed(
            &h.prefix, &h.version, table,
        )?))
    })
}

/// Opens a version: header `{prefix, version, shard_bytes, record_bytes}`, its key table, then the values of
/// [`az_needed`]'s keys in order. The result: `{handle, corpus_version, embedding, top_k}`.
#[unsafe(no_mangle)]
pub extern "C" fn az_open(ptr: *const u8, len: usize) -> i32 {
    call(ptr, len, |state, items| {
        let h: VersionHeader = header(items)?;
        let vals = values(items)?;
        let (table, rest) = vals.split_first().ok_or_else(|| unknown("key table"))?;
        let budget = Budget {
            shards: h.shard_bytes,
            records: h.record_bytes,
        };
        let v = Version::open(&h.prefix, &h.version, table, rest, budget)?;
        let mut opened = serde_json::to_value(v.opened()).expect("serializes");
        state.next += 1;
        let handle = state.next;
        opened["handle"] = handle.into();
        state.versions.insert(handle, Rc::new(v));
        Ok(opened.to_string())
    })
}

/// Drops a version; questions between their steps keep it until they finish.
#[unsafe(no_mangle)]
pub extern "C" fn az_close(handle: u32) {
    STATE.with_borrow_mut(|s| {
        s.versions.remove(&handle);
    })
}

/// The most questions held between their steps.
const HELD_QUESTIONS: usize = 256;

#[derive(Deserialize)]
struct PlanHeader {
    version: u32,
    ask: Ask,
}

/// Step 1: header `{version, ask}`. The result: `{question, shards, embed, vector?}`, where
/// `shards` are the term shards to read: those the version does not hold already.
#[unsafe(no_mangle)]
pub extern "C" fn az_plan(ptr: *const u8, len: usize) -> i32 {
    call(ptr, len, |state, items| {
        let h: PlanHeader = header(items)?;
        let v = state
            .versions
            .get(&h.version)
            .ok_or_else(|| unknown("version"))?;
        let (q, planned) = v.plan(h.ask)?;
        // A request cancelled between steps never finishes its question: the oldest go.
        while state.questions.len() >= HELD_QUESTIONS {
            let Some(&oldest) = state.questions.keys().min() else {
                break;
            };
            state.questions.remove(&oldest);
        }
        let mut out = serde_json::to_value(planned).expect("serializes");
        state.next += 1;
        out["question"] = state.next.into();
        state.questions.insert(state.next, (Rc::clone(v), q));
        Ok(out.to_string())
    })
}

#[derive(Deserialize)]
struct RankHeader {
    question: u32,
    /// The vector index's matches; absent when it was not asked or failed.
    matches: Option<Vec<(String, f64)>>,
}

/// Step 2: header `{question, matches}`, then the shards step 1 asked for, in order. The
/// result: `{records, stale}`, `records` the keys of the lookup records the answer needs that
/// the version does not hold.
#[unsafe(no_mangle)]
pub extern "C" fn az_rank(ptr: *const u8, len: usize) -> i32 {
    call(ptr, len, |state, items| {
        let h: RankHeader = header(items)?;
        let shards = values(items)?;
        let (v, q) = state
            .questions
            .get_mut(&h.question)
            .ok_or_else(|| unknown("question"))?;
        Ok(runtime::to_json(&v.rank(q, &shards, h.matches)?))
    })
}

#[derive(Deserialize)]
struct AnswerHeader {
    question: u32,
}

/// Step 3: header `{question}`, then the records step 2 asked for, in order (a missing one as
/// no value). The result: the answer (`askzico query --json`'s bytes). The question is done.
#[unsafe(no_mangle)]
pub extern "C" fn az_answer(ptr: *const u8, len: usize) -> i32 {
    call(ptr, len, |state, items| {
        let h: AnswerHeader = header(items)?;
        let (v, mut q) = state
            .questions
            .remove(&h.question)
            .ok_or_else(|| unknown("question"))?;
        v.answer(&mut q, &items[1..])
    })
}

/// Drops a question that will not be finished (its request failed between steps).
#[unsafe(no_mangle)]
pub extern "C" fn az_drop(question: u32) {
    STATE.with_borrow_mut(|s| {
        s.questions.remove(&question);
    })
}
