//! The cargo-fuzz target bodies (fuzz/src/bodies.rs) on a few thousand seeded random
//! inputs, on the stable toolchain: CI exercises what the fuzzers check without nightly.
//! Inputs: the seed chains of fuzz/seeds/parse mutated byte-wise, random bytes, and
//! random recipes for the compact target's chain builder. `FUZZ_SMOKE_SEED` replays
//! another seed; `FUZZ_SMOKE_CASES` changes the number of cases.

#[path = "../../../fuzz/src/bodies.rs"]
#[allow(dead_code)]
mod bodies;

use std::path::PathBuf;

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn seeds() -> Vec<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/parse");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    let seeds: Vec<Vec<u8>> = files.iter().filter_map(|f| std::fs::read(f).ok()).collect();
    assert!(!seeds.is_empty(), "no seed chains in {}", dir.display());
    seeds
}

/// One byte-level mutation, as a fuzzer would make: flip, insert, delete, duplicate a
/// slice, or splice in a JSON token.
fn mutate(rng: &mut Rng, input: &mut Vec<u8>) {
    const TOKENS: [&[u8]; 12] = [
        b"null",
        b"{}",
        b"[]",
        b"\"\"",
        b"0",
        b"-1e999",
        b"\"\\ud800\"",
        b"\"tool\"",
        b"\"call_1\"",
        b",",
        b"\"role\"",
        b"\"__proto__\"",
    ];
    let len = input.len();
    match rng.below(5) {
        0 if len > 0 => {
            let at = rng.below(len);
            if let Some(b) = input.get_mut(at) {
                *b ^= 1 << rng.below(8);
            }
        }
        1 => {
            let at = rng.below(len + 1);
            input.insert(at, rng.next() as u8);
        }
        2 if len > 0 => {
            let at = rng.below(len);
            let end = (at + 1 + rng.below(16)).min(len);
            input.drain(at..end);
        }
        3 if len > 0 => {
            let at = rng.below(len);
            let end = (at + 1 + rng.below(64)).min(len);
            let slice = input.get(at..end).map(<[u8]>::to_vec).unwrap_or_default();
            let to = rng.below(len + 1);
            input.splice(to..to, slice);
        }
        _ => {
            let token = TOKENS.get(rng.below(TOKENS.len())).copied().unwrap_or(b"null");
            let at = rng.below(len + 1);
            input.splice(at..at, token.iter().copied());
        }
    }
}

#[test]
fn parse_target_on_mutated_chains_and_random_bytes() {
    let seed = env_number("FUZZ_SMOKE_SEED", 0x5eed_0001);
    let cases = env_number("FUZZ_SMOKE_CASES", 3000);
    let mut rng = Rng(seed | 1);
    let seeds = seeds();
    for s in &seeds {
        bodies::parse(s);
    }
    let mut parsed = 0usize;
    for _ in 0..cases {
        let input = if rng.below(5) == 0 {
            let len = rng.below(256);
            rng.bytes(len)
        } else {
            let mut input = seeds.get(rng.below(seeds.len())).cloned().unwrap_or_default();
            for _ in 0..1 + rng.below(2) {
                mutate(&mut rng, &mut input);
            }
            input
        };
        if std::str::from_utf8(&input).ok().and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok()).is_some() {
            parsed += 1;
        }
        bodies::parse(&input);
    }
    // The mutations keep a share of inputs readable JSON, so the readers get work.
    assert!(parsed * 20 >= cases as usize, "only {parsed} of {cases} inputs were JSON");
}

#[test]
fn compact_target_on_random_recipes() {
    let seed = env_number("FUZZ_SMOKE_SEED", 0x5eed_0002);
    let cases = env_number("FUZZ_SMOKE_CASES", 3000) / 2;
    let mut rng = Rng(seed | 1);
    let seeds = seeds();
    for _ in 0..cases {
        let mut input = {
            let len = 16 + rng.below(512);
            rng.bytes(len)
        };
        // One in eight inputs takes the JSON path: a (mutated) seed chain after the header.
        if let Some(first) = input.first_mut() {
            if rng.below(8) == 0 {
                *first = 0;
                input.truncate(bodies::JSON_HEADER);
                let mut chain = seeds.get(rng.below(seeds.len())).cloned().unwrap_or_default();
                if rng.below(2) == 0 {
                    mutate(&mut rng, &mut chain);
                }
                input.extend(chain);
            } else if *first % 8 == 0 {
                *first = 1;
            }
        }
        bodies::compact(&input);
    }
}
