//! FNV-1a 64: the hash that places a term in its lexical shard (part of the artifact format, so
//! a change changes artifacts) and that the hash embedder's features use. One copy, so the two
//! never drift.

/// The FNV-1a 64 offset basis: the hash of no bytes.
pub const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// The FNV-1a 64 prime.
pub const PRIME: u64 = 0x0000_0100_0000_01b3;

/// One step: the hash `h` of some bytes extended by the byte `b`.
#[inline]
pub fn step(h: u64, b: u8) -> u64 {
    (h ^ b as u64).wrapping_mul(PRIME)
}

/// The FNV-1a 64 hash of `bytes`.
pub fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(OFFSET, |h, &b| step(h, b))
}

#[cfg(test)]
mod tests {
    /// The published FNV-1a 64 test vectors.
    #[test]
    fn known_values() {
        assert_eq!(super::hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(super::hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(super::hash(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
