//! CPU twin of the entry point of `shaders/front_prepare.wgsl`: the one-invocation kernel of
//! lazy tumbling that sizes the `tumble_fresh` dispatch.

use super::front::groups;
use crate::gpu::layout::{GpuCounters, OVERFLOW_TABLE};

/// `prepare_tumble` of `shaders/front_prepare.wgsl`: after `tumble_front`, size the
/// `tumble_fresh` dispatch (`args`) by the keys inserted, move their count to `fresh_in`
/// and clear the append. Runs after an overflow too (a full table's inserted nodes are
/// tumbled before they move), but after a full table freezes the batch (`frozen`: the
/// level's `expand` skips its pairs).
pub fn prepare_tumble(counters: &mut GpuCounters, args: &mut [u32; 3]) {
    if counters.overflow & OVERFLOW_TABLE != 0 {
        counters.frozen = 1;
    }
    let n = std::mem::take(&mut counters.n_fresh);
    counters.fresh_in = n;
    let [x, y] = groups(n);
    *args = [x, y, 1];
}
