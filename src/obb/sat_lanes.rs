//! The CPU form of the OBB separating axis test on screened inputs: the decision of
//! `sat::obb_disjoint` (the GPU's), three lanes at a time with glam's `Vec3A` (SSE2 on
//! x86-64, plain scalars elsewhere).
//!
//! Why the decision is the same bit for bit: every lane runs the scalar test's operations
//! on the same operands in the same order (`(x₀y₀ + x₁y₁) + x₂y₂` for every dot product,
//! `a·b − c·d` as `a·b + (−(c·d))`, which IEEE rounds alike), and a multiplication or an
//! addition rounds the same in a lane as alone; Rust never fuses them. Products are formed
//! as `y·x` where the scalar has `x·y`, which is exact commutation. So each compared value
//! equals the scalar's, and the 15 inequalities are visited in another order, which cannot
//! change their disjunction. The rows of `C` are its columns transposed (values moved, not
//! recomputed). Inputs and intermediates are screened as in the scalar test
//! (`sat::obb_disjoint_cpu`'s proof): anything not coarse sends the pair to the flushed
//! test. Tested against the scalar test in `sat`'s tests.

use super::fit::Obb32;
use super::sat_ops::{COARSE, FLOOR, PosedObb, SLACK_REL, U};
use glam::{Mat3A, Vec3A, Vec3Swizzles};

/// Whether every lane is zero or at least 2⁻⁵¹ in magnitude.
#[inline(always)]
fn coarse(v: Vec3A) -> bool {
    (v.cmpeq(Vec3A::ZERO) | v.abs().cmpge(Vec3A::splat(COARSE))).all()
}

/// [`obb_disjoint`]'s decision for a fitted `a` and a screened `b` (the caller has checked
/// that B's numbers are coarse), or `None` where an intermediate is not coarse: the caller
/// then runs the flushed test, [`obb_disjoint`].
///
/// [`obb_disjoint`]: super::sat::obb_disjoint
#[inline(always)]
pub(super) fn disjoint_screened(a: &Obb32, b: &PosedObb) -> Option<bool> {
    let e = &a.e;
    // A's axes by coordinate: lane i holds aᵢ's x (y, z).
    let (ax, ay, az) = (
        Vec3A::new(e[0], e[3], e[6]),
        Vec3A::new(e[1], e[4], e[7]),
        Vec3A::new(e[2], e[5], e[8]),
    );
    let f = &b.f;
    let d = Vec3A::from_array(b.c) - Vec3A::from_array(a.c);
    // tᵢ = aᵢ·d.
    let t = (ax * d.x + ay * d.y) + az * d.z;
    if !(coarse(d) & coarse(t)) {
        return None;
    }
    // Columns of C (lane i: Cᵢⱼ = aᵢ·fⱼ).
    let col = |j: usize| (ax * f[3 * j] + ay * f[3 * j + 1]) + az * f[3 * j + 2];
    let (c0, c1, c2) = (col(0), col(1), col(2));
    if !(coarse(c0) & coarse(c1) & coarse(c2)) {
        return None;
    }
    let ta = t.abs();
    let dn = d.abs().max_element();
    let sa = (a.h[0] + a.h[1]) + a.h[2];
    let sb = (b.h[0] + b.h[1]) + b.h[2];
    // Off the critical path: B's and A's terms need no centre.
    let k = ((8.0 * b.e + SLACK_REL * sb) + SLACK_REL * sa) + FLOOR;
    let slack = Vec3A::splat(k + (4.0 * SLACK_REL) * dn);
    let (ha, hb) = (Vec3A::from_array(a.h), Vec3A::from_array(b.h));
    // A's axes, lane i.
    let rad = ha + ((c0.abs() * hb.x + c1.abs() * hb.y) + c2.abs() * hb.z);
    if ta.cmpgt(rad + slack).any() {
        return Some(true);
    }
    // Rows of C (lane j): the columns transposed, the same values moved.
    let m = Mat3A::from_cols(c0, c1, c2).transpose();
    let r = [m.x_axis, m.y_axis, m.z_axis];
    let ar = [r[0].abs(), r[1].abs(), r[2].abs()];
    // B's axes, lane j.
    let proj = (r[0] * t.x + r[1] * t.y) + r[2] * t.z;
    let rad = ((ar[0] * a.h[0] + ar[1] * a.h[1]) + ar[2] * a.h[2]) + hb;
    if proj.abs().cmpgt(rad + slack).any() {
        return Some(true);
    }
    // The cross products aᵢ × fⱼ, lane j; j + 1 and j + 2 (mod 3) by rotating lanes.
    let t = t.to_array();
    let (hb1, hb2) = (hb.yzx(), hb.zxy());
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let proj = r[i1] * t[i2] - r[i2] * t[i1];
        let rad = (ar[i2] * a.h[i1] + ar[i1] * a.h[i2]) + (hb1 * ar[i].zxy() + hb2 * ar[i].yzx());
        if proj.abs().cmpgt(rad + slack).any() {
            return Some(true);
        }
    }
    Some(false)
}

/// Whether every number of the fitted box `b` that posing reads (axes and centre) is
/// coarse: true of every [`Obb32::from_fit`] box, checked because [`Obb32::new`] builds any.
#[inline(always)]
pub(super) fn coarse_box(b: &Obb32) -> bool {
    let e = &b.e;
    coarse(Vec3A::new(e[0], e[1], e[2]))
        & coarse(Vec3A::new(e[3], e[4], e[5]))
        & coarse(Vec3A::new(e[6], e[7], e[8]))
        & coarse(Vec3A::from_array(b.c))
}

/// `sat::obb_posed`'s value bit for bit, three lanes at a time and unflushed, for a box
/// and a pose whose numbers are coarse (the caller checks `coarse_box` and
/// `PoseCheck::coarse`), with the screen of `sat::screen` on it.
///
/// Why no flush can act: a product of two coarse factors is 0 or at least 2⁻¹⁰², so
/// once rounded a multiple of 2⁻¹²⁵, as is every entry of `t` (0 or at least
/// `sat::COARSE_T` = 2⁻¹⁰², whose ulp is at least 2⁻¹²⁵), and sums of such (the posed axes
/// and centre) are 0 or at least 2⁻¹²⁵ (`sat::obb_disjoint_cpu`'s argument: a rounded sum
/// of multiples of 2⁻¹²⁵ is one); `8u·σ` is 0 or at least 2⁻²¹·2⁻¹⁰² = 2⁻¹²³ (`σ` sums
/// `|c|` and `|t|`), and the extents and the centre's bound are sums of non-negative terms
/// one of which (`t_err`, the floor) is normal. So every value equals the flushed one but for the sign of a zero, which
/// adding `+0` makes `+0` as `ftz` does (`−0 + 0 = +0`, and `x + 0 = x` otherwise). The
/// operations are the scalar's in its order (lane k of axis j is
/// `(r₃ₖ·bⱼ₀ + r₃ₖ₊₁·bⱼ₁) + r₃ₖ₊₂·bⱼ₂`, products commuted, which is exact).
#[inline(always)]
pub(super) fn posed_coarse(b: &Obb32, r: &[f32; 9], t: &[f32; 3], t_err: f32) -> (PosedObb, bool) {
    let (r0, r1, r2) = (
        Vec3A::new(r[0], r[3], r[6]),
        Vec3A::new(r[1], r[4], r[7]),
        Vec3A::new(r[2], r[5], r[8]),
    );
    let e = &b.e;
    let axis = |j: usize| ((r0 * e[3 * j] + r1 * e[3 * j + 1]) + r2 * e[3 * j + 2]) + Vec3A::ZERO;
    let (f0, f1, f2) = (axis(0), axis(1), axis(2));
    let c = (((r0 * b.c[0] + r1 * b.c[1]) + r2 * b.c[2]) + Vec3A::from_array(*t)) + Vec3A::ZERO;
    let sigma =
        ((b.c[0].abs() + b.c[1].abs()) + b.c[2].abs()) + t[0].abs().max(t[1].abs()).max(t[2].abs());
    let err = ((8.0 * U) * sigma + FLOOR) + t_err;
    let h = Vec3A::from_array(b.h) + Vec3A::splat(t_err);
    let screened = coarse(f0) & coarse(f1) & coarse(f2) & coarse(c) & coarse(h);
    (posed_box([f0, f1, f2], c, h, err), screened)
}

/// `sat::ftz` on every lane: a subnormal or a zero becomes `+0`, anything else (NaN too)
/// is kept.
#[inline(always)]
fn ftz3(v: Vec3A) -> Vec3A {
    Vec3A::select(
        v.abs().cmplt(Vec3A::splat(f32::MIN_POSITIVE)),
        Vec3A::ZERO,
        v,
    )
}

/// `sat::obb_posed` bit for bit for any box and pose, three lanes at a time: lane k of
/// every value is the scalar's k-th coordinate by the same operations on the same operands
/// in the same order (products commuted, which is exact), each flushed as the scalar's
/// `obb_mul` and `obb_add` flush it; the scalars (`σ`, the centre's bound) are the
/// scalar's own expressions. For poses with an entry of `r` below 2⁻⁵¹ (a rotation's
/// trigonometric zero, such as −8.7·10⁻¹⁹, in most of the side-by-side's near-miss bunny
/// poses), where [`posed_coarse`] cannot vouch for its sums.
#[inline(always)]
pub(super) fn posed_flushed(b: &Obb32, r: &[f32; 9], t: &[f32; 3], t_err: f32) -> PosedObb {
    use super::sat_ops::{obb_add as s, obb_mul as m};
    let (r0, r1, r2) = (
        Vec3A::new(r[0], r[3], r[6]),
        Vec3A::new(r[1], r[4], r[7]),
        Vec3A::new(r[2], r[5], r[8]),
    );
    let dot = |x: f32, y: f32, z: f32| ftz3(ftz3(ftz3(r0 * x) + ftz3(r1 * y)) + ftz3(r2 * z));
    let e = &b.e;
    let (f0, f1, f2) = (
        dot(e[0], e[1], e[2]),
        dot(e[3], e[4], e[5]),
        dot(e[6], e[7], e[8]),
    );
    let c = ftz3(dot(b.c[0], b.c[1], b.c[2]) + Vec3A::from_array(*t));
    let sigma = s(
        s(s(b.c[0].abs(), b.c[1].abs()), b.c[2].abs()),
        t[0].abs().max(t[1].abs()).max(t[2].abs()),
    );
    let err = s(s(m(8.0 * U, sigma), FLOOR), t_err);
    let h = ftz3(Vec3A::from_array(b.h) + Vec3A::splat(t_err));
    posed_box([f0, f1, f2], c, h, err)
}

/// The posed box from its lanes: axis `j` (lane `k` its `k`-th coordinate), centre,
/// extents, and the centre's bound.
#[inline(always)]
fn posed_box(axes: [Vec3A; 3], c: Vec3A, h: Vec3A, e: f32) -> PosedObb {
    let mut f = [0.0f32; 9];
    for (j, a) in axes.iter().enumerate() {
        f[3 * j..3 * j + 3].copy_from_slice(&a.to_array());
    }
    PosedObb {
        f,
        c: c.to_array(),
        h: h.to_array(),
        e,
    }
}
