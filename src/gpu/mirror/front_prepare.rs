//! CPU twins of the entry points of `shaders/front_prepare.wgsl`: the one-invocation kernels
//! between levels that size the next indirect dispatch and hand the counters over.

use crate::gpu::layout::{GpuCounters, OVERFLOW_TABLE};
use crate::gpu::shader::{DISPATCH_X, WORKGROUP_SIZE};

/// `groups` of `shaders/front_prepare.wgsl`: the 2-D grid for `n` invocations (0 for none;
/// the host's own sizing in `gpu::collide` dispatches at least one group).
fn groups(n: u32) -> [u32; 2] {
    // u32 arithmetic as in WGSL (wrapping; counts stay far below the wrap).
    let g = n.wrapping_add(WORKGROUP_SIZE - 1) / WORKGROUP_SIZE;
    if g <= DISPATCH_X {
        [g, 1]
    } else {
        [DISPATCH_X, g.wrapping_add(DISPATCH_X - 1) / DISPATCH_X]
    }
}

/// `prepare_tri` of `shaders/front_prepare.wgsl`: after `expand`, size the `tri_test`
/// dispatch (`args[3..6]`) by the leaf pairs stored, and record the largest leaf count.
/// After an overflow: no triangle tests (`args[3] = 0`), no counter changed.
pub fn prepare_tri(counters: &mut GpuCounters, args: &mut [u32; 9]) {
    if counters.overflow != 0 {
        args[3] = 0;
        return;
    }
    counters.contact_mark = counters.n_contact;
    counters.unsure_mark = counters.n_unsure;
    let n = counters.n_leaf.min(counters.cap_leaf);
    counters.max_leaf = counters.max_leaf.max(counters.n_leaf);
    let [x, y] = groups(n);
    args[3..6].copy_from_slice(&[x, y, 1]);
}

/// `prepare_next` of `shaders/front_prepare.wgsl`: after `tri_test`, the output front becomes
/// the next input (`n_in`, `args[0..3]`), the level's input size goes to `level_sizes`, and
/// the appends restart.
/// After an overflow: no next level (`args[0] = 0`), no counter changed.
pub fn prepare_next(counters: &mut GpuCounters, args: &mut [u32; 9], level_sizes: &mut [u32]) {
    if counters.overflow != 0 {
        args[0] = 0;
        return;
    }
    counters.resumed = 0;
    let produced = counters.n_out;
    counters.max_front = counters.max_front.max(produced);
    let level = counters.level;
    if let Some(s) = level_sizes.get_mut(level as usize) {
        *s = counters.n_in;
    }
    counters.level = level.wrapping_add(1);
    let n = produced.min(counters.cap_front);
    counters.n_in = n;
    counters.n_out = 0;
    counters.n_leaf = 0;
    let [x, y] = groups(n);
    args[0..3].copy_from_slice(&[x, y, 1]);
}

/// `prepare_tumble` of `shaders/front_prepare.wgsl`: after `tumble_front`, size the
/// `tumble_fresh` dispatch (`args[6..9]`) by the keys inserted, move their count to
/// `fresh_in` and clear the append. Runs after an overflow too (a full table's inserted
/// nodes are tumbled before they move), but after a full table sizes the level's `expand`
/// (`args[0]`) to nothing.
pub fn prepare_tumble(counters: &mut GpuCounters, args: &mut [u32; 9]) {
    if counters.overflow & OVERFLOW_TABLE != 0 {
        args[0] = 0;
    }
    let n = std::mem::take(&mut counters.n_fresh);
    counters.fresh_in = n;
    let [x, y] = groups(n);
    args[6..9].copy_from_slice(&[x, y, 1]);
}
