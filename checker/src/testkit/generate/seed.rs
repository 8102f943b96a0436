//! The entry points that draw one sketch from a number ([`from_seed`], for the oracle
//! tests, which replay a program by its seed) or from bytes ([`from_bytes`], for the fuzz
//! targets), through proptest's ChaCha source.

use super::{Config, Fence, Shown, Sketch, SketchStmt, sketch};
use hazmat_litmus::ast::Quantifier;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};

/// Draws a sketch from `bytes` (the fuzzers' input): the bytes are folded into the seed of
/// the ChaCha source proptest draws from.
///
/// Proptest's pass-through source, which would read the bytes themselves, hands half of
/// what is left to every alternative of a `prop_oneof` it does not take, so a few levels
/// down it gives only zeros, on which uniform sampling by rejection never ends (it hung the
/// `check` fuzz target); a seed keeps the draw total, at the price of coarser mutations.
pub fn from_bytes(bytes: &[u8], config: Config) -> Option<Sketch> {
    let mut seed = [0u8; 32];
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ bytes.len() as u64;
    for (i, &b) in bytes.iter().enumerate() {
        // FNV-1a, spread over the seed's 32 bytes.
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        seed[i % 32] ^= (h >> 32) as u8;
    }
    for (i, s) in seed.iter_mut().enumerate() {
        *s ^= (h >> (8 * (i % 8))) as u8;
    }
    draw(seed, config)
}

/// Draws the sketch numbered `seed`: the same seed and configuration give the same sketch.
pub fn from_seed(seed: u64, config: Config) -> Sketch {
    let mut bytes = [0u8; 32];
    // SplitMix64, so that neighbouring seeds give unrelated sources.
    let mut z = seed;
    for chunk in bytes.chunks_mut(8) {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut v = z;
        v = (v ^ (v >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        v = (v ^ (v >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(v ^ (v >> 31)).to_le_bytes());
    }
    // Drawing fails only when `without` rejects every sketch drawn (a local limit of
    // proptest's); a lone fence stands for the sketch then.
    draw(bytes, config).unwrap_or_else(|| Sketch {
        vars: 1,
        init: Vec::new(),
        threads: vec![vec![SketchStmt::Fence(Fence::Mb)]],
        quantifier: Quantifier::Exists,
        condition: Vec::new(),
        filter: Vec::new(),
        shown: Shown::All,
        all_params: true,
    })
}

fn draw(seed: [u8; 32], config: Config) -> Option<Sketch> {
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed);
    let mut runner = TestRunner::new_with_rng(proptest::test_runner::Config::default(), rng);
    sketch(config)
        .new_tree(&mut runner)
        .ok()
        .map(|tree| tree.current())
}
