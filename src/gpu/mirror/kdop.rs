//! CPU twins of `shaders/shared/kdop.wgsl`, a library piece concatenated into every kernel (no entry
//! point): the k-DOP structs and the slab primitives, each under its WGSL name. The code lives
//! in [`crate::bv::kdop`] and `crate::bv::slab`; these are re-exports and thin wrappers, so
//! a WGSL function's twin is found by its name here.

use crate::bv::slab::slab_bounds_f32;

/// `struct Kdop` and `struct KdopNode` of `shaders/shared/kdop.wgsl` (layout test in `gpu::layout`).
pub use crate::bv::{Kdop, KdopNode};

/// `ftz` of `shaders/shared/kdop.wgsl`: [`crate::bv::slab::ftz`].
pub use crate::bv::slab::ftz;

/// `kdop_merge` of `shaders/shared/kdop.wgsl`: [`Kdop::merge`] (slab-wise min and max, exact).
#[inline]
pub fn kdop_merge<const H: usize>(a: &Kdop<H>, b: &Kdop<H>) -> Kdop<H> {
    a.merge(b)
}

/// `kdop_overlaps` of `shaders/shared/kdop.wgsl`: [`Kdop::overlaps`] (slabs in table order).
#[inline]
pub fn kdop_overlaps<const H: usize>(a: &Kdop<H>, b: &Kdop<H>) -> bool {
    a.overlaps(b)
}

/// `kdop_within` of `shaders/shared/kdop.wgsl`: [`crate::proximity::kdops_within`] (the
/// slabs grown by the f32 margins).
#[inline]
pub fn kdop_within<const H: usize>(a: &Kdop<H>, b: &Kdop<H>, m: &[f32; H]) -> bool {
    crate::proximity::kdops_within(a, b, m)
}

/// `kdop_gap_prunes` of `shaders/shared/kdop.wgsl`: [`crate::tumble::kdop_gap_prunes`] (a
/// per-pose tolerance's coordinate gaps combined; the proof is there).
#[inline]
pub fn kdop_gap_prunes<const H: usize>(a: &Kdop<H>, b: &Kdop<H>, w: f32, t2: f32) -> bool {
    crate::tumble::kdop_gap_prunes(a, b, w, t2)
}

/// `kdop_size` of `shaders/shared/kdop.wgsl`: [`Kdop::size`] (sum of the slab widths).
#[inline]
pub fn kdop_size<const H: usize>(k: &Kdop<H>) -> f32 {
    k.size()
}

/// `slab_bounds` of `shaders/shared/kdop.wgsl`: `slab_bounds_f32`. WGSL takes the axis as the
/// `vec3<f32>` of `AXES` (small integers, exact in f32) and returns `vec2(lo, hi)`.
#[inline]
pub fn slab_bounds(axis: [i8; 3], p: [f32; 3]) -> (f32, f32) {
    slab_bounds_f32(axis, p)
}
