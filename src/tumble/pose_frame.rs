//! One pose's tumbling constants ([`PoseFrame`], uploaded as is to the GPU) and the two
//! ways to tumble a node's k-DOP with them: from its triangles' corners ([`posed_kdop`],
//! the exact method) and from its bounding points ([`tumble_points`], the approximation
//! method of Klosowski et al. 1998, section 4.2), with the f64 reference the tests use.

use super::*;
// Arrow up: a per-pose tolerance grows the tumbled k-DOPs by the tolerance query's own slab
// margins and directed roundings (their proofs are `proximity`'s), reused rather than
// restated; those read nothing above the tumbling.
use crate::proximity::{f32_up, mul_up, slab_margins};

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
    /// A per-pose tolerance's widening of the three coordinate slabs, rounded down (0
    /// otherwise): [`PoseFrame::widened`].
    pub eps_w: f32,
    /// The threshold of the combined coordinate gaps of a per-pose tolerance
    /// ([`kdop_gap_prunes`]); `+∞` otherwise, which prunes nothing.
    pub eps_t2: f32,
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
            eps_w: 0.0,
            eps_t2: f32::INFINITY,
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

    /// The frame whose every tumbled k-DOP (and root) is grown by `eps` in every slab's
    /// Euclidean units: the k-DOP of B's points within `eps` of B, for a tolerance query
    /// whose `eps` is the pose's own (the GPU's distance query,
    /// [`crate::gpu::collide::GpuScene::within_each`]). A's k-DOP overlaps the grown one in
    /// every slab when some point of A's node lies within `eps` of some point of B's.
    ///
    /// Proof. Slab `i` measures `aᵢ·x`; two points `eps` apart differ there by at most
    /// `eps·|aᵢ|₂ ≤ mᵢ` ([`crate::proximity::slab_margins`], rounded up). Both offsets and
    /// the root move outward by `wᵢ = mᵢ·(1 + 2⁻²⁰)`: the subtraction in f64 is stepped down
    /// one ulp (a rounded difference errs by under one), then rounded down to f32 (up for
    /// the upper side). The extra `mᵢ·2⁻²⁰ ≥ 16u·mᵢ` (u = 2⁻²⁴) covers what the larger
    /// offset adds to the rounding of the kernels' one f32 sum `lo + off_lo` (at most
    /// `u·|lo + off_lo|`; [`PoseFrame::new`]'s margin covers the `|lo|` and `|o|` parts).
    /// `eps = 0` returns the frame as it is.
    ///
    /// It also arms the combined test of the coordinate slabs ([`kdop_gap_prunes`]): `eps_w`
    /// is the smallest widening of the slabs x, y and z rounded down, and `eps_t2` an f32 at
    /// least `(eps·(1 + 2⁻¹⁸) + 2⁻¹²⁰)²` (see there).
    pub fn widened(mut self, eps: f64) -> PoseFrame<H> {
        if eps == 0.0 {
            return self;
        }
        let m = slab_margins::<H>(eps);
        let grow = 1.0 + 1.0 / (1u64 << 20) as f64;
        let down = |x: f32, w: f64| crate::bv::kdop::round_down((x as f64 - w).next_down());
        let up = |x: f32, w: f64| crate::bv::kdop::round_up((x as f64 + w).next_up());
        for (i, &mi) in m.iter().enumerate() {
            let w = mul_up(mi, grow);
            self.off_lo[i] = down(self.off_lo[i], w);
            self.off_hi[i] = up(self.off_hi[i], w);
            self.root.min[i] = down(self.root.min[i], w);
            self.root.max[i] = up(self.root.max[i], w);
        }
        // The coordinate slabs are the first three, of unit axes (`bv::axes`).
        let w = m[..3].iter().fold(f64::INFINITY, |a, &b| a.min(b));
        self.eps_w = crate::bv::kdop::round_down(w);
        self.eps_t2 = tolerance_t2(eps);
        self
    }
}

/// The threshold `t2` of a tolerance `eps` ([`kdop_gap_prunes`] and the triangle test
/// `tri_tri_farther` of `shaders/shared/tri_filter.wgsl` compare squares with it): an f32
/// at least `(eps·(1 + 2⁻¹⁸) + 2⁻¹²⁰)²`, every step rounded up.
pub fn tolerance_t2(eps: f64) -> f32 {
    let e = mul_up(eps, 1.0 + 1.0 / (1u64 << 18) as f64);
    let e = (e + 2f64.powi(-120)).next_up();
    f32_up(mul_up(e, e))
}

/// Whether a per-pose tolerance prunes the node pair of A's k-DOP `a` and B's tumbled `b`
/// (grown by [`PoseFrame::widened`]) by the gaps along x, y and z *combined*: every point of
/// A's node and every point of B's are more than the pose's `eps` apart. The slab test
/// alone keeps a pair whose gap along each axis is at most `eps` (a pair `eps` off along x
/// and along y is `√2·eps` apart); the distance query's front shrinks by the difference.
/// `frame.eps_t2 = +∞` (no per-pose tolerance) prunes nothing. WGSL twin: `kdop_gap_prunes`
/// in `shaders/shared/kdop.wgsl`, operation for operation.
///
/// Computed in f32: `yᵢ = max(fl(b.minᵢ − a.maxᵢ), fl(a.minᵢ − b.maxᵢ))` (one rounding of
/// the exact `xᵢ`: rounding is monotone), `zᵢ = max(fl(yᵢ + w), 0)`, `s = fl(fl(fl(z₀²) +
/// fl(z₁²)) + fl(z₂²))`; prune when `s > t2`.
///
/// Proof (u = 2⁻²⁴, each operation correctly rounded; a flushed subnormal errs by at most
/// 2⁻¹²⁶ absolutely). The widened slab `i` (unit axis) lies at least `w` outside B's points
/// ([`PoseFrame::widened`]: it moved out by `mᵢ(1 + 2⁻²⁰) ≥ w`, its own rounding covered),
/// so along axis `i` every point of B is at least `rᵢ = xᵢ + w` from every point of A on
/// the side `xᵢ` measures, and for any two points `|p − q|² ≥ Σ max(rᵢ, 0)²`. From the two
/// roundings, `rᵢ ≥ zᵢ − 4u·zᵢ − 2u·w − 2⁻¹²³`, so `‖r⁺‖ ≥ (1 − 4u)‖z⁺‖ − √3(2u·w + 2⁻¹²³)`
/// (the triangle inequality). Rounding the sum of squares up at most three times (a flush
/// or an overflow to `+∞` only errs low, resp. means `‖z⁺‖² ≥ 2¹²⁷`), `‖z⁺‖² ≥ s/(1 + u)³ >
/// t2/(1 + u)³`. With `w ≤ 2·eps` and `t2 ≥ (eps(1 + 2⁻¹⁸) + 2⁻¹²⁰)²`, `(1 − 4u)·√t2/(1 +
/// u)^1.5 − √3(4u·eps + 2⁻¹²³) > eps`, since `2⁻¹⁸ = 64u` exceeds the `14u` these lose: so
/// `‖r⁺‖ > eps`, and no pair of points of the two nodes is within `eps`.
#[inline]
pub fn kdop_gap_prunes<const H: usize>(a: &Kdop<H>, b: &Kdop<H>, w: f32, t2: f32) -> bool {
    let mut s = 0.0f32;
    for i in 0..3 {
        let y = (b.min[i] - a.max[i]).max(a.min[i] - b.max[i]);
        let z = (y + w).max(0.0);
        s += z * z;
    }
    s > t2
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
