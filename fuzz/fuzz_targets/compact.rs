//! A chain (built from the bytes, or JSON text), a strategy with fuzzed settings and a
//! deterministic mock summarizer with fuzzed failures -> compact; asserts DESIGN.md's
//! invariants on the result.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| contextfold_fuzz::bodies::compact(data));
