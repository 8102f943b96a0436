//! A tiny per-thread pseudo-random generator for delays and choices.
//!
//! The harness needs cheap, seedable randomness on every reader iteration and nothing
//! cryptographic, so it uses a 64-bit xorshift with a multiplicative output step instead of
//! a dependency; each thread derives its own stream from the run's seed and its index.

/// A xorshift64* generator.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator for thread `stream` of a run seeded with `seed`.
    pub(crate) fn new(seed: u64, stream: u64) -> Self {
        // A splitmix64 step spreads nearby seeds and streams apart; the state is never zero.
        let mut z = seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Self(z | 1)
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n`; `n` must not be zero.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True once in `n` calls on average; `n` of zero or one is always true.
    pub(crate) fn one_in(&mut self, n: u64) -> bool {
        n <= 1 || self.below(n) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn streams_differ_and_repeat() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(7, 0).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut x = Rng::new(7, 0);
        let mut y = Rng::new(7, 1);
        assert_ne!(x.next_u64(), y.next_u64());
        assert!((0..1000).all(|_| x.below(10) < 10));
    }
}
