//! One pose's tumbling constants ([`PoseFrame`], uploaded as is to the GPU) and the two
//! ways to tumble a node's k-DOP with them: from its triangles' corners ([`posed_kdop`],
//! the exact method) and from its bounding points ([`tumble_points`], the approximation
//! method of Klosowski et al. 1998, section 4.2), with the f64 reference the tests use.

use super::*;

/// Everything a tumbling kernel needs of one pose, computed once on the host and uploaded
/// as is. WGSL twin: `struct PoseFrame` in `shaders/shared/front.wgsl` (layout test in `gpu::layout`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoseFrame<const H: usize> {
    /// Rotation (row-major) and local translation rounded to f32: the GPU transforms
    /// triangles.
    pub r: [f32; 9],
    pub t: [f32; 3],
    /// Bound on the local pose's own error ([`LocalPose::abs_err`], doubled, rounded up):
    /// the last argument of the triangle filter's `transform_error_bound`.
    pub t_err: f32,
    /// Slab direction `i` rotated into B's frame (`R^T a_i`), rounded to f32.
    pub dir: [[f32; 3]; H],
    /// `a_i·t − margin` rounded down and `a_i·t + margin` rounded up.
    pub off_lo: [f32; H],
    pub off_hi: [f32; H],
    /// The root's exact k-DOP (hill climbing).
    pub root: Kdop<H>,
}

// SAFETY: repr(C), only f32 fields and arrays (4-byte aligned): no padding.
unsafe impl<const H: usize> bytemuck::Zeroable for PoseFrame<H> {}
unsafe impl<const H: usize> bytemuck::Pod for PoseFrame<H> {}

impl<const H: usize> PoseFrame<H> {
    /// The frame of the local pose `lp` for a flying object of local coordinate scale
    /// `scale`.
    pub fn new(lp: &LocalPose, scale: f64, root: Kdop<H>) -> PoseFrame<H> {
        let ax = axes(H);
        let pose = &lp.pose;
        let (r, t, t_err) = pose_f32(lp);
        let mut f = PoseFrame {
            r,
            t,
            t_err,
            dir: [[0.0; 3]; H],
            off_lo: [0.0; H],
            off_hi: [0.0; H],
            root,
        };
        for (i, &axis) in ax.iter().enumerate() {
            f.dir[i] = pose.rotate_inverse(axis.map(f64::from)).map(|c| c as f32);
            let o = project(axis, pose.t);
            let m = TUMBLE_MARGIN_REL * scale + o.abs() * (1.0 / (1u64 << 21) as f64) + lp.abs_err;
            f.off_lo[i] = crate::bv::kdop::round_down(o - m);
            f.off_hi[i] = crate::bv::kdop::round_up(o + m);
        }
        f
    }
}

/// The exact refit's k-DOP of triangles of B (local f32 corners) under a pose frame, in f32
/// only: each corner moved by the triangle filter's `transform_f32` (error at most
/// `transform_error_bound` against `Pose::apply`, less A's origin), bounded by the deforming
/// refit's `slab_bounds_f32`, and widened by twice the transform error times `|axis|₁` (twice:
/// the widening's own rounding stays far below the doubled bound). WGSL twin: `posed_kdop` in
/// `shaders/kdop_tumble.wgsl`; its entry points' twins are in `src/gpu/mirror/kdop_tumble.rs`.
pub fn posed_kdop<const H: usize>(frame: &PoseFrame<H>, tris: &[[[f32; 3]; 3]]) -> Kdop<H> {
    use crate::bv::slab::slab_bounds_f32;
    use crate::tri::filter::{transform_error_bound, transform_f32};
    let ax = axes(H);
    let mut k = Kdop::EMPTY;
    for &p in tris.iter().flatten() {
        let q = transform_f32(&frame.r, &frame.t, p);
        let e = transform_error_bound(p, &frame.t, frame.t_err);
        for (i, &a) in ax.iter().enumerate() {
            let (lo, hi) = slab_bounds_f32(a, q);
            let n1 = (a[0].abs() + a[1].abs() + a[2].abs()) as f32;
            let w = (e * n1) * 2.0;
            k.min[i] = k.min[i].min(lo - w);
            k.max[i] = k.max[i].max(hi + w);
        }
    }
    k
}

/// The approximation method's k-DOP of bounding points (B's frame, f32) under a pose
/// frame. The one formula; the WGSL twin is `tumble_points` in `shaders/kdop_tumble.wgsl`
/// (the `tumble` entry point's twin is in `src/gpu/mirror/kdop_tumble.rs`).
///
/// Per point, all H slabs at once (the directions transposed to x, y and z arrays so the
/// compiler vectorises across slabs), min/max by comparison: each value is the same
/// expression `(d.x·p.x + d.y·p.y) + d.z·p.z` as the kernel's, and a min or max over a set
/// does not round, so the loop order does not change a bit ([`tumble_points_reference`]
/// is the slab-by-slab form; a test compares them bit for bit).
#[inline]
pub fn tumble_points<const H: usize>(frame: &PoseFrame<H>, points: &[[f32; 3]]) -> Kdop<H> {
    let mut dx = [0.0f32; H];
    let mut dy = [0.0f32; H];
    let mut dz = [0.0f32; H];
    for i in 0..H {
        [dx[i], dy[i], dz[i]] = frame.dir[i];
    }
    let mut lo = [f32::INFINITY; H];
    let mut hi = [f32::NEG_INFINITY; H];
    for p in points {
        for i in 0..H {
            let v = (dx[i] * p[0] + dy[i] * p[1]) + dz[i] * p[2];
            lo[i] = if v < lo[i] { v } else { lo[i] };
            hi[i] = if v > hi[i] { v } else { hi[i] };
        }
    }
    let mut k = Kdop::EMPTY;
    for i in 0..H {
        k.min[i] = lo[i] + frame.off_lo[i];
        k.max[i] = hi[i] + frame.off_hi[i];
    }
    k
}

/// [`tumble_points`] written slab by slab like the WGSL kernel (the test oracle).
pub fn tumble_points_reference<const H: usize>(
    frame: &PoseFrame<H>,
    points: &[[f32; 3]],
) -> Kdop<H> {
    let mut k = Kdop::EMPTY;
    for i in 0..H {
        let d = frame.dir[i];
        let mut lo = f32::INFINITY;
        let mut hi = f32::NEG_INFINITY;
        for p in points {
            let v = (d[0] * p[0] + d[1] * p[1]) + d[2] * p[2];
            lo = lo.min(v);
            hi = hi.max(v);
        }
        k.min[i] = lo + frame.off_lo[i];
        k.max[i] = hi + frame.off_hi[i];
    }
    k
}
