//! Exports for `run.mjs`: build the mixed sequence and a booted 1 GiB zone, then run the
//! sequence on it ([`buddyscope::bench`]); the caller times `run` alone.

use std::cell::RefCell;

use buddyscope::{
    bench::{mixed_engine, mixed_sequence, run_mixed_engine, MixedStep},
    mm::Engine,
};

thread_local! {
    static SEQ: RefCell<Vec<MixedStep>> = const { RefCell::new(Vec::new()) };
    static ENGINE: RefCell<Option<Engine>> = const { RefCell::new(None) };
}

/// Generates `n` steps and boots a zone, recording (`record` ≠ 0) or not.
#[no_mangle]
pub extern "C" fn prepare(n: u32, record: u32) {
    SEQ.with(|s| *s.borrow_mut() = mixed_sequence(n as usize));
    ENGINE.with(|e| *e.borrow_mut() = Some(mixed_engine(record != 0)));
}

/// Runs the prepared sequence; returns the live allocations at the end (and drops nothing: the
/// trace stays until the next `prepare`).
#[no_mangle]
pub extern "C" fn run() -> u32 {
    SEQ.with(|s| {
        ENGINE.with(|e| {
            let mut e = e.borrow_mut();
            run_mixed_engine(e.as_mut().expect("prepared"), &s.borrow()) as u32
        })
    })
}

/// Events recorded by the last run.
#[no_mangle]
pub extern "C" fn events() -> u32 {
    ENGINE.with(|e| e.borrow().as_ref().map_or(0, |e| e.log.events.len() as u32))
}
