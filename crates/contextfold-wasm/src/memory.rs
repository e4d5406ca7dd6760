//! Giving wasm memory back. A wasm instance's memory only grows: after a very large call
//! it keeps hundreds of MiB for good. The package's JS layer calls [`release_if_large`]
//! whenever no call is in flight; past [`RELEASE_ABOVE_BYTES`] it schedules a fresh
//! instance (the same mechanism as the panic reset), which the next call gets, and the old
//! memory is the garbage collector's. Objects of the old instance (`History`'s session)
//! then throw, and their owners let them go.

use wasm_bindgen::prelude::wasm_bindgen;

/// Memory above which an idle instance is replaced: far above what ordinary chains need
/// (a few MiB), so only calls on chains of several MB pay the new instance (a few ms).
pub const RELEASE_ABOVE_BYTES: usize = 64 << 20;

/// The instance's memory in bytes.
pub fn memory_bytes() -> usize {
    #[cfg(target_arch = "wasm32")]
    {
        core::arch::wasm32::memory_size(0).saturating_mul(65_536)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0
    }
}

/// Schedules a fresh instance when this one holds more than [`RELEASE_ABOVE_BYTES`];
/// whether it did. Only the JS layer calls it, and only with no call in flight.
#[wasm_bindgen(js_name = __releaseIfLarge, skip_typescript)]
pub fn release_if_large() -> bool {
    let large = memory_bytes() > RELEASE_ABOVE_BYTES;
    if large {
        wasm_bindgen::handler::schedule_reinit();
    }
    large
}

/// The instance's memory in bytes (the instance the call runs in: a scheduled fresh one
/// replaces the old before this runs). For tests and benchmarks.
#[wasm_bindgen(js_name = __wasmMemoryBytes, skip_typescript)]
pub fn wasm_memory_bytes() -> usize {
    memory_bytes()
}
