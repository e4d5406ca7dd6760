//! JSON text -> every format reader -> strict and repair AST parsing -> validate and
//! repair for every provider -> writers. Panics on a crash or a broken invariant.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| contextfold_fuzz::bodies::parse(data));
