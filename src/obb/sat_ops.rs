//! What the scalar OBB test (`sat`) and its lanes (`sat_lanes`) share: the flushed f32
//! operations (twins of `shaders/shared/obb.wgsl`), B's posed box, and the constants of the slack
//! and of the screen. Below both, so that neither reaches into the other for them.

use crate::bv::slab::ftz;

/// Unit roundoff of f32, 2⁻²⁴.
pub(super) const U: f32 = 1.0 / 16_777_216.0;
/// 2⁻¹⁴: the slack's factor on the boxes' extents, 4× it on the centres' distance (see
/// [`obb_disjoint`](super::sat::obb_disjoint)).
pub(super) const SLACK_REL: f32 = 1.0 / 16_384.0;
/// 2⁻¹⁰⁰: absolute floor covering flushed subnormals (each below 2⁻¹²⁶).
pub(super) const FLOOR: f32 = U * U * U * U / 16.0;

/// 2⁻⁵¹: the screen of [`obb_disjoint_cpu`](super::sat::obb_disjoint_cpu).
pub(super) const COARSE: f32 = 1.0 / (1u64 << 51) as f32;

/// B's box at a pose, in A's local frame (WGSL twin: `struct PosedObb`, stored by the GPU
/// in its lazy table: layout test in `gpu::layout`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PosedObb {
    /// The posed axes `fl(r·bⱼ)` (rows, `f[3j + k]`).
    pub f: [f32; 9],
    /// The posed centre `fl(r·c + t)`.
    pub c: [f32; 3],
    /// The half extents plus `t_err` (B's truth within `abs_err` of the posed triangles).
    pub h: [f32; 3],
    /// A bound on the centre's error against the real `R·c + t_L`, plus `t_err`.
    pub e: f32,
}

/// `x·y` flushed. CPU twin of `obb_mul` in `shaders/shared/obb.wgsl`.
#[inline(always)]
pub fn obb_mul(x: f32, y: f32) -> f32 {
    ftz(x * y)
}

/// `x + y` flushed. CPU twin of `obb_add` in `shaders/shared/obb.wgsl`.
#[inline(always)]
pub fn obb_add(x: f32, y: f32) -> f32 {
    ftz(x + y)
}

/// `(x₀y₀ + x₁y₁) + x₂y₂`, every operation flushed. CPU twin of `obb_dot3` in
/// `shaders/shared/obb.wgsl`.
#[inline(always)]
pub fn obb_dot3(x0: f32, x1: f32, x2: f32, y0: f32, y1: f32, y2: f32) -> f32 {
    obb_add(obb_add(obb_mul(x0, y0), obb_mul(x1, y1)), obb_mul(x2, y2))
}
