//! Random choice without a random-number crate: callers pass any source of uniformly
//! distributed `u64`s (with `rand`: `|| rng.random()`), so no `rand` version is imposed.

/// A uniform index below `n` from a uniform `u64` `r` (multiply-shift; the bias is below
/// 2^-32 for any `n` below 2^32).
///
/// ```
/// use chess_core::choice::below;
/// assert_eq!(below(10, 0), 0);
/// assert_eq!(below(10, u64::MAX), 9);
/// ```
#[inline]
pub fn below(n: u64, r: u64) -> u64 {
    ((u128::from(r) * u128::from(n)) >> 64) as u64
}

/// The index of an item chosen with probability proportional to its weight, drawing one
/// `u64` from `random`; `None` when every weight is 0 (or there are none).
///
/// ```
/// use chess_core::choice::weighted_index;
/// assert_eq!(weighted_index([0, 5, 0], || 12345), Some(1));
/// assert_eq!(weighted_index([0, 0], || 1), None);
/// ```
pub fn weighted_index<I>(weights: I, mut random: impl FnMut() -> u64) -> Option<usize>
where
    I: IntoIterator<Item = u64>,
    I::IntoIter: Clone,
{
    let weights = weights.into_iter();
    let total: u64 = weights.clone().fold(0u64, u64::saturating_add);
    if total == 0 {
        return None;
    }
    let mut x = below(total, random());
    for (i, w) in weights.enumerate() {
        if x < w {
            return Some(i);
        }
        x -= w;
    }
    None
}
