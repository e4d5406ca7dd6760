//! Hash maps and sets keyed by the engine's own short keys (call ids, tool names, words).
//!
//! std's SipHash was a third of building a chain's tool pairs (a lookup per call id) and
//! showed in the masking and the offline summary; foldhash, already among the
//! dependencies (`serde_json`'s `preserve_order` brings it), is several times faster on
//! short keys. Neither resists crafted collisions in wasm, where std's keys are fixed too.

pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
pub(crate) type HashSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;
