//! CPU twins of `shaders/shared/dual.wgsl`, the library piece of the dual k-DOP–sphere node test
//! (no entry point), each under its WGSL name. The code lives in [`crate::dual::sphere`] and
//! `crate::dual::slabs` (the CPU traversal runs the same functions, so the CPU and the GPU
//! make the same decisions); these are thin wrappers.

use crate::bv::Kdop;
use crate::dual::slabs::{
    inv_norms, minkowski_order, overlaps_in_order, symmetrize_f32, table_order,
};
use crate::dual::sphere::disjoint_f32;

/// `struct Sphere` of `shaders/shared/dual.wgsl` (layout test in `gpu::layout`).
pub use crate::dual::Sphere;

/// `sphere_posed` of `shaders/shared/dual.wgsl`: [`Sphere::posed_f32`].
#[inline]
pub fn sphere_posed(s: &Sphere, r: &[f32; 9], t: &[f32; 3], t_err: f32) -> Sphere {
    s.posed_f32(r, t, t_err)
}

/// `sphere_disjoint` of `shaders/shared/dual.wgsl`: [`disjoint_f32`].
#[inline]
pub fn sphere_disjoint(a: &Sphere, b: &Sphere) -> bool {
    disjoint_f32(a, b)
}

/// `kdop_symmetrize` of `shaders/shared/dual.wgsl`: `symmetrize_f32`.
#[inline]
pub fn kdop_symmetrize<const H: usize>(k: &Kdop<H>) -> Kdop<H> {
    symmetrize_f32(k)
}

/// `kdop_overlaps_dual` of `shaders/shared/dual.wgsl`: whether `a` and `b` overlap and how many
/// slabs were tested (WGSL returns `vec2<u32>(overlap, tests)`), in the Minkowski order
/// when `per_pair` (`minkowski_order`, the same stable order as WGSL's insertion sort),
/// else in table order.
#[inline]
pub fn kdop_overlaps_dual<const H: usize>(a: &Kdop<H>, b: &Kdop<H>, per_pair: bool) -> (bool, u32) {
    let order = if per_pair {
        minkowski_order(a, b, &inv_norms::<H>())
    } else {
        table_order::<H>()
    };
    overlaps_in_order(a, b, &order)
}
