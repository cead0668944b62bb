//! guard: runs a third-party parser that can panic on malformed input (an upstream bug, not
//! ours) and turns the panic into `None`, without the panic message reaching stderr, so the
//! caller can fall back and report a diagnostic instead.
//!
//! The process-wide panic hook is wrapped once: it stays silent only on a thread that is inside
//! `quietly`, and defers to the previous hook everywhere else, so every other panic is reported
//! as the previous hook would report it.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`; a panic inside it yields `None` and prints nothing.
pub(crate) fn quietly<T>(f: impl FnOnce() -> T) -> Option<T> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            QUIET.with(|q| q.set(self.0));
        }
    }
    let _restore = Restore(QUIET.with(|q| q.replace(true)));
    // The closure only reads its input; nothing it touches is observed after a panic.
    panic::catch_unwind(AssertUnwindSafe(f)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_none_and_the_flag_is_restored() {
        assert_eq!(quietly(|| 7), Some(7));
        assert_eq!(quietly(|| -> u8 { panic!("upstream bug") }), None);
        assert!(!QUIET.with(Cell::get));
    }
}
