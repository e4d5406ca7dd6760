//! Giving wasm memory back. A wasm instance's memory only grows: after a very large call
//! it keeps hundreds of MiB for good. Once the instance is past [`RELEASE_ABOVE_BYTES`]
//! and has been idle a while (no call for a second: pkg/src/api.js), the package's JS
//! layer calls [`release_if_large`], which schedules a fresh instance (the same mechanism
//! as the panic reset); the next call gets it, and the old memory is the garbage
//! collector's. Not at once: growing memory again costs about 2 ms a MiB, which calls
//! coming back to back would pay every time. Objects of the old instance (`History`'s session)
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

/// Whether this instance holds more than [`RELEASE_ABOVE_BYTES`].
#[wasm_bindgen(js_name = __isLarge, skip_typescript)]
pub fn is_large() -> bool {
    memory_bytes() > RELEASE_ABOVE_BYTES
}

/// Schedules a fresh instance when this one holds more than [`RELEASE_ABOVE_BYTES`];
/// whether it did. Only the JS layer calls it, and only with no call in flight.
#[wasm_bindgen(js_name = __releaseIfLarge, skip_typescript)]
pub fn release_if_large() -> bool {
    let large = is_large();
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
