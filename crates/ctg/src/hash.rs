//! The CTG position hash and the page-directory walk: Unix ndbm in disguise.
//!
//! [`gen_hash`] is ndbm's hash over the encoded position (header byte included). The `.cto` is
//! ndbm's page directory indexed by split-tree node number and the `.ctb` holds ndbm's split
//! bitmap (bit `c` set = node `c` was split; LSB-first within each byte). A position lives in
//! the page of the first node `c = (h & n) + n`, `n = 0, 1, 3, 7, …`, whose bit is clear.
//! Readers that do not use the bitmap walk every candidate from `lower` up to the first
//! `c ≥ upper` ([`candidate_nodes`], as the chessfmt format notes describes).

/// ndbm's hash table, as CTG uses it.
const TABLE: [u32; 64] = [
    0x3100d2bf, 0x3118e3de, 0x34ab1372, 0x2807a847, 0x1633f566, 0x2143b359, 0x26d56488, 0x3b9e6f59,
    0x37755656, 0x3089ca7b, 0x18e92d85, 0x0cd0e9d8, 0x1a9e3b54, 0x3eaa902f, 0x0d9bfaae, 0x2f32b45b,
    0x31ed6102, 0x3d3c8398, 0x146660e3, 0x0f8d4b76, 0x02c77a5f, 0x146c8799, 0x1c47f51f, 0x249f8f36,
    0x24772043, 0x1fbc1e4d, 0x1e86b3fa, 0x37df36a6, 0x16ed30e4, 0x02c3148e, 0x216e5929, 0x0636b34e,
    0x317f9f56, 0x15f09d70, 0x131026fb, 0x38c784b1, 0x29ac3305, 0x2b485dc5, 0x3c049ddc, 0x35a9fbcd,
    0x31d5373b, 0x2b246799, 0x0a2923d3, 0x08a96e9d, 0x30031a9f, 0x08f525b5, 0x33611c06, 0x2409db98,
    0x0ca4feb2, 0x1000b71e, 0x30566e32, 0x39447d31, 0x194e3752, 0x08233a95, 0x0f38fe36, 0x29c7cd57,
    0x0f7b3a39, 0x328e8a16, 0x1e7d1388, 0x0fba78f5, 0x274c7e7c, 0x1e8be65c, 0x2fa0b0bb, 0x1eb6c371,
];

/// The 32-bit hash of an encoded position (header byte included), with 32-bit wrap-around.
///
/// ```
/// // The start position (encoding-vectors.csv, first row).
/// let start = [0x56, 0xb6, 0x0f, 0x79, 0x60, 0xf3, 0xa6, 0x0f, 0x58, 0xb0, 0x78, 0xe0, 0xc1,
///              0xe1, 0xa6, 0x0f, 0x59, 0x60, 0xf3, 0xb6, 0x0f, 0x7f];
/// assert_eq!(ctg::hash::gen_hash(&start), 0xeb7e_d3d7);
/// ```
pub fn gen_hash(bytes: &[u8]) -> u32 {
    let mut hash = 0u32;
    let mut tmp = 0u32;
    for &b in bytes {
        let b = u32::from(b);
        tmp = tmp.wrapping_add(((0x0f - (b & 0x0f)) << 2) + 1);
        hash = hash.wrapping_add(TABLE[(tmp & 0x3f) as usize]);
        tmp = tmp.wrapping_add(((0xf0 - (b & 0xf0)) >> 2) + 1);
        hash = hash.wrapping_add(TABLE[(tmp & 0x3f) as usize]);
    }
    hash
}

/// The largest mask of the walk: node numbers stay below 2³².
pub const MAX_MASK: u32 = 0x7fff_ffff;

/// The `.cto` entries a lookup of `hash` searches, in order: for `n = 0, 1, 3, 7, …` the node
/// `c = (hash & n) + n`, skipped while `c < lower`, ending after the first `c ≥ upper`.
/// Starting at `n = 0` is what makes one-page books (lower = upper = 0) work.
///
/// ```
/// // A one-page book probes only entry 0.
/// assert_eq!(ctg::hash::candidate_nodes(0xdead_beef, 0, 0).collect::<Vec<_>>(), [0]);
/// // Perfect2021's bounds: at most three entries.
/// assert!(ctg::hash::candidate_nodes(0xdead_beef, 1904, 4048).count() <= 3);
/// ```
pub fn candidate_nodes(hash: u32, lower: u32, upper: u32) -> impl Iterator<Item = u32> {
    let mut n = Some(0u32);
    std::iter::from_fn(move || {
        loop {
            let mask = n?;
            let c = (hash & mask) + mask;
            n = if mask < MAX_MASK {
                Some(mask * 2 + 1)
            } else {
                None
            };
            if c < lower {
                continue;
            }
            if c >= upper {
                n = None;
            }
            return Some(c);
        }
    })
}

/// The leaf node of `hash` in a split tree given by `is_split` (ndbm's own walk: the first
/// node on the path whose split bit is clear).
pub fn leaf_node(hash: u32, is_split: impl Fn(u32) -> bool) -> u32 {
    let mut mask = 0u32;
    loop {
        let c = (hash & mask) + mask;
        if mask >= MAX_MASK || !is_split(c) {
            return c;
        }
        mask = mask * 2 + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_is_bounded_and_starts_at_zero() {
        let all: Vec<u32> = candidate_nodes(0xffff_ffff, 0, u32::MAX).collect();
        assert_eq!(all.len(), 32);
        assert_eq!(all[0], 0);
        assert_eq!(*all.last().unwrap(), 0xffff_fffe);
        // Lower above upper (a hostile .ctb): still finite.
        assert!(candidate_nodes(7, u32::MAX, 0).count() <= 32);
        let c: Vec<u32> = candidate_nodes(0b101, 2, 7).collect();
        // n=0 → 0 (skip), n=1 → 2, n=3 → 4, n=7 → 12 ≥ 7: stop.
        assert_eq!(c, [2, 4, 12]);
    }

    #[test]
    fn leaf_follows_split_bits() {
        // Node 0 split, node 1 (hash bit 0 clear) split, others leaves.
        let split = |c: u32| c == 0 || c == 1;
        assert_eq!(leaf_node(0b110, split), 5); // n=3: (6&3)+3 = 5
        assert_eq!(leaf_node(0b111, split), 2); // n=1: (7&1)+1 = 2
    }
}
