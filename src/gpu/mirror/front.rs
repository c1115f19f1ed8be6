//! CPU twins of `shaders/shared/front.wgsl`, the library piece of the batch pipeline's shared structs
//! (no entry point): the structs are re-exported under their Rust names (layout tests in
//! `gpu::layout`), the one function is here under its WGSL name.

use crate::gpu::shader::{DISPATCH_X, WORKGROUP_SIZE};

/// `struct FrontPair` and `struct Counters` (here [`GpuCounters`]: atomics as plain u32).
pub use crate::gpu::layout::{FrontPair, GpuCounters, NO_SLOT};
/// `struct PoseFrame` (computed on the host, [`PoseFrame::new`]).
pub use crate::tumble::PoseFrame;

/// `linear_index` of `shaders/shared/front.wgsl`: the invocation's index in a 2-D grid of at most
/// `DISPATCH_X` workgroups per row. The entry-point twins loop over these indices directly.
#[inline]
pub fn linear_index(gid: [u32; 3]) -> u32 {
    gid[1]
        .wrapping_mul(DISPATCH_X * WORKGROUP_SIZE)
        .wrapping_add(gid[0])
}
