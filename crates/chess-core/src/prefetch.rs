//! A hint to the processor: start loading a value's cache line now, because it will be read
//! soon. The book builders' and the statistics table's hash tables count millions of plies
//! a second at random places in hundreds of megabytes; asking for the bucket of the ply a few
//! plies ahead hides most of each cache miss.

/// Starts loading `value`'s cache line into every cache level (no effect where unsupported,
/// and never a fault: a prefetch changes nothing).
///
/// ```
/// let table = vec![0u64; 1 << 16];
/// chess_core::prefetch::prefetch(&table[12_345]);
/// assert_eq!(table[12_345], 0);
/// ```
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: SSE is part of the x86_64 baseline, and a prefetch never faults or changes memory.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
