//! A hint to the memory system: load a value's cache line before it is read. Breadth-first
//! levels know their next pairs in advance, so a pose whose hierarchies are not in cache
//! (the first pose after a build, a single query) waits for memory once per batch of pairs
//! instead of once per pair. A hint only: it never changes a result, and on targets
//! without one it does nothing.

/// How many pairs ahead a level loop asks for its nodes (about one memory latency's worth
/// of node tests at 15–30 ns each).
pub(crate) const AHEAD: usize = 16;

/// Asks for the cache lines of `value` (its first and last byte, so a value straddling two
/// lines gets both).
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = value as *const T as *const i8;
        // SAFETY: a prefetch never faults and reads nothing the program sees; `p` and
        // `p + size - 1` lie within the referenced value.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.add(std::mem::size_of::<T>().max(1) - 1));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
