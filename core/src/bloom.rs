//! The scan's Bloom filter over the addresses waiting in one cycle.
//!
//! A scan cycle walks every slot once and must tell, for each published address, whether
//! some waiter or retired object in the cycle's batch has that address.
//! The filter answers "certainly not" for most slots with two bit tests; a "maybe" falls back
//! to an exact binary search of the batch, so a false positive costs time, never a wrong
//! completion.
//! The filter is built afresh by the scanner for each cycle and never shared.

/// A fixed-size Bloom filter with two hash functions over word-aligned addresses.
#[derive(Debug)]
pub(crate) struct Bloom {
    words: Vec<u64>,
    shift: u32,
}

impl Bloom {
    /// An empty filter of at least `bits` bits (a power of two, at least 64).
    pub(crate) fn new(bits: usize) -> Self {
        let bits = bits.max(64).next_power_of_two();
        Self {
            words: vec![0; bits / 64],
            shift: 64 - bits.trailing_zeros(),
        }
    }

    /// The two bit positions of `addr`: the top bits of two multiplicative hashes.
    fn positions(&self, addr: usize) -> [usize; 2] {
        // Alignment makes the low bits of an address carry no information.
        let key = (addr as u64) >> 3;
        let h1 = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let h2 = (key ^ (key >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        [(h1 >> self.shift) as usize, (h2 >> self.shift) as usize]
    }

    /// Adds `addr`.
    pub(crate) fn insert(&mut self, addr: usize) {
        for bit in self.positions(addr) {
            self.words[bit / 64] |= 1 << (bit % 64);
        }
    }

    /// Whether `addr` may have been added: false means certainly not.
    pub(crate) fn may_contain(&self, addr: usize) -> bool {
        self.positions(addr)
            .iter()
            .all(|&bit| self.words[bit / 64] & (1 << (bit % 64)) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::Bloom;

    #[test]
    fn inserted_addresses_are_always_reported() {
        let mut bloom = Bloom::new(256);
        let addrs: Vec<usize> = (0..64).map(|i| 0x7f00_0000_1000 + i * 48).collect();
        for &a in &addrs {
            bloom.insert(a);
        }
        assert!(addrs.iter().all(|&a| bloom.may_contain(a)));
    }

    #[test]
    fn an_empty_filter_reports_nothing() {
        let bloom = Bloom::new(64);
        assert!(!(0..1000usize).any(|i| bloom.may_contain(i * 8)));
    }

    #[test]
    fn a_sparse_filter_rejects_most_other_addresses() {
        let mut bloom = Bloom::new(1024);
        for i in 0..16usize {
            bloom.insert(0x5555_0000 + i * 64);
        }
        let false_positives = (0..10_000usize)
            .filter(|i| bloom.may_contain(0x9999_0000 + i * 16))
            .count();
        // Two hashes, 16 keys, 1024 bits: about 0.1 % expected; allow ten times that.
        assert!(
            false_positives < 100,
            "{false_positives} false positives in 10000"
        );
    }

    #[test]
    fn sizes_round_up_to_a_power_of_two() {
        assert_eq!(Bloom::new(0).words.len(), 1);
        assert_eq!(Bloom::new(100).words.len(), 2);
        assert_eq!(Bloom::new(1024).words.len(), 16);
    }
}
