//! Slab primitives shared by every k-DOP stage, twins of `shaders/shared/kdop.wgsl` (indexed under
//! their WGSL names in `src/gpu/mirror/kdop.rs`): the flush to zero and the conservative f32 bounds of one corner's projection on a slab
//! direction. The refit (`bvh::refit`), tumbling, the dual hierarchy and the GPU all build
//! their k-DOPs from [`slab_bounds_f32`], so CPU and GPU bounds agree bit for bit.

use super::axes;
use super::kdop::Kdop;

/// `2^-21 = 8u` with `u = 2^-24` the unit roundoff of f32: the relative half-width of a slab
/// (about `3u` covers the f32 arithmetic, [`crate::frame::INPUT_REL`]` = 2u` the rounding of
/// the local corner itself to f32).
pub const SLAB_REL_MARGIN: f32 = f32::from_bits((127 - 21) << 23);
/// Absolute floor of the half-width: covers every flush of a subnormal to zero (each moves a
/// value by < 2^-126) and keeps `lo < hi`, so zeros and their signs never reach the bounds.
pub const SLAB_ABS_MARGIN: f32 = f32::from_bits((127 - 100) << 23);
/// Inputs are scaled by 1/4 so no intermediate can overflow; the bounds are scaled back.
const SCALE: f32 = 0.25;

/// Flush to zero: subnormals (and -0) become +0 (WGSL twin: `ftz` in `shaders/shared/kdop.wgsl`). GPUs may flush subnormal inputs and results
/// or keep them; flushing explicitly after every operation makes both modes give the CPU's
/// bits. Each flush moves a value by less than 2^-126 (covered by `SLAB_ABS_MARGIN`).
#[inline]
pub fn ftz(x: f32) -> f32 {
    if x.abs() < f32::MIN_POSITIVE { 0.0 } else { x }
}

/// Bounds `[lo, hi]` of the projection `axis · p` of an f32 point on a slab direction, in f32
/// only, containing the exact real projection of `p` and of every point within
/// [`crate::frame::INPUT_REL`]` = 2u` (relative, per coordinate) of it: `p` may be the f32
/// rounding of a local coordinate ([`crate::frame`]), and the real corner is what counts. The
/// WGSL twin is `slab_bounds` in `shaders/shared/kdop.wgsl`; the two must stay operation for
/// operation identical.
///
/// With `X = ftz(p.x · (axis.x/4))` (likewise `Y`, `Z`; the products are exact: the factor is
/// 0 or ±1/4),
/// `v = ftz(ftz(X + Y) + Z)`, `m = ftz(ftz(|X| + |Y|) + |Z|)`, `d = max(m · 2^-21, 2^-100)`:
/// `lo = min(4 · ftz(v − d), f32::MAX)`, `hi = max(4 · ftz(v + d), −f32::MAX)`.
///
/// Why `[lo, hi]` contains the exact `axis · p / 4 = P` (then scaled by 4, exactly):
/// * no multiplication but by 0, ±1/4, 2^-21 and 4, all exact in the normal range, and
///   additions in a fixed order, so there is nothing to reassociate, factor or fuse
///   (`m · 2^-21` is exact, so it gives the same bits fused into an FMA or not; the `max`
///   stops fusion anyway);
/// * the two roundings of the sum err by at most `u·(|X|+|Y|) + u·(|X|+|Y|+|Z|)(1+u) ≤
///   2u·M(1+u)` with `u = 2^-24`, `M = |X|+|Y|+|Z| ≤ m(1+u)²`; the final `v ∓ d` rounds by at
///   most half an ulp, `u·(|v| + d)`, so the total stays below `3u·m + O(u²m)`; the real
///   corner lies within `2u·|p_k|(1 + u)` of `p` per coordinate, which moves the projection
///   by at most `2u·m(1 + u)²`; the factor `2^-21 = 8u` covers the `5u·m + O(u²m)` with a
///   margin of about `3u·m`;
/// * the flushes (at most six, each `< 2^-126`) are covered by `u·m` when `8u·m ≥ 2^-100`,
///   and by the floor `2^-100` otherwise (`5u·m < 2^-100·5/8` then; the input bound's own
///   absolute part, below `10^-44`, is one of the flushes' size);
/// * the scale by 1/4 keeps every intermediate `≤ 3/4 · f32::MAX(1 + 5u)`, so nothing
///   overflows, no infinity meets another, and there is no NaN; only the final `· 4` may
///   overflow, to `+inf` for `hi` (correct: the projection exceeds `f32::MAX`) or `-inf` for
///   `lo`; the clamps turn the wrong-direction overflows into `±f32::MAX`, still bounds.
///
/// The width is at most `2^-19·m + 2^-98` plus an ulp: a few ulps of the largest term.
#[inline]
pub fn slab_bounds_f32(axis: [i8; 3], p: [f32; 3]) -> (f32, f32) {
    let s = axis.map(|a| f32::from(a) * SCALE);
    let x = ftz(p[0] * s[0]);
    let y = ftz(p[1] * s[1]);
    let z = ftz(p[2] * s[2]);
    let v = ftz(ftz(x + y) + z);
    let m = ftz(ftz(x.abs() + y.abs()) + z.abs());
    let d = (m * SLAB_REL_MARGIN).max(SLAB_ABS_MARGIN);
    let lo = (ftz(v - d) * 4.0).min(f32::MAX);
    let hi = (ftz(v + d) * 4.0).max(-f32::MAX);
    (lo, hi)
}

/// The k-DOP of triangles' corners by [`slab_bounds_f32`]: per slab the min of `lo` and the
/// max of `hi`. No corners: [`Kdop::EMPTY`]. (The GPU refit's CPU twin and the refit's
/// tests use it; the library alone does not.)
#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
pub fn kdop_of_corners<const H: usize>(corners: &[[[f32; 3]; 3]]) -> Kdop<H> {
    let ax = axes(H);
    let mut k = Kdop::EMPTY;
    for p in corners.iter().flatten() {
        for (i, &a) in ax.iter().enumerate() {
            let (lo, hi) = slab_bounds_f32(a, *p);
            k.min[i] = k.min[i].min(lo);
            k.max[i] = k.max[i].max(hi);
        }
    }
    k
}

/// The k-DOP of one point by [`slab_bounds_f32`]. A k-DOP of corners is the merge (min/max,
/// which does not round) of its corners' point k-DOPs, so computing each shared vertex's
/// once and merging gives [`kdop_of_corners`]'s very bits at a sixth of the slab bounds on a
/// closed mesh (each vertex in about six triangles).
pub fn kdop_of_point<const H: usize>(p: [f32; 3]) -> Kdop<H> {
    let ax = axes(H);
    let mut k = Kdop::EMPTY;
    for (i, &a) in ax.iter().enumerate() {
        let (lo, hi) = slab_bounds_f32(a, p);
        k.min[i] = lo;
        k.max[i] = hi;
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Sign of `axis · p − bound`, exactly: the four terms are summed as a non-overlapping
    /// f64 expansion (Shewchuk's grow-expansion with two-sum), whose most significant nonzero
    /// component carries the sign.
    fn exact_cmp(axis: [i8; 3], p: [f32; 3], bound: f32) -> std::cmp::Ordering {
        let terms: Vec<f64> = (0..3)
            .map(|k| f64::from(axis[k]) * f64::from(p[k]))
            .collect();
        let two_sum = |a: f64, b: f64| {
            let s = a + b;
            let bb = s - a;
            (s, (a - (s - bb)) + (b - bb))
        };
        let mut e: Vec<f64> = Vec::new();
        for t in terms.into_iter().chain([-f64::from(bound)]) {
            let mut q = t;
            let mut out = Vec::new();
            for &x in &e {
                let (s, err) = two_sum(q, x);
                if err != 0.0 {
                    out.push(err);
                }
                q = s;
            }
            out.push(q);
            e = out;
        }
        // The most significant nonzero component (last) decides the sign.
        let sign = e.iter().rev().find(|&&x| x != 0.0).copied().unwrap_or(0.0);
        sign.partial_cmp(&0.0).unwrap()
    }

    fn check(axis: [i8; 3], p: [f32; 3]) {
        use std::cmp::Ordering::*;
        let (lo, hi) = slab_bounds_f32(axis, p);
        assert!(lo < hi, "{axis:?} {p:?}: [{lo}, {hi}]");
        assert!(lo.is_finite() || lo == f32::NEG_INFINITY, "{lo}");
        assert!(hi.is_finite() || hi == f32::INFINITY, "{hi}");
        if lo.is_finite() {
            assert_ne!(exact_cmp(axis, p, lo), Less, "lo {axis:?} {p:?}: {lo}");
        }
        if hi.is_finite() {
            assert_ne!(exact_cmp(axis, p, hi), Greater, "hi {axis:?} {p:?}: {hi}");
        }
        // Tightness: a few ulps of the largest term (or the absolute floor).
        let m = p.iter().map(|c| c.abs()).fold(0.0f32, f32::max);
        if hi.is_finite() && lo.is_finite() {
            let w = f64::from(hi) - f64::from(lo);
            assert!(
                w <= 3.0 * f64::from(m) * 2f64.powi(-19) + 2f64.powi(-96),
                "{axis:?} {p:?}: width {w}"
            );
        }
    }

    #[test]
    fn slab_bounds_contain_the_exact_projection() {
        let mut rng = Rng::new(7);
        let all_axes: Vec<[i8; 3]> = crate::bv::axes(13).to_vec();
        let special = [
            0.0f32,
            -0.0,
            1.0,
            1e8,
            -1e8,
            1e8 + 8.0,
            16_777_217.0,
            1e-40,
            -1e-45,
            f32::MIN_POSITIVE,
            f32::MAX,
            -f32::MAX,
            f32::MAX / 3.0,
            1e30,
            1e-30,
            0.1,
            -0.3,
            f32::EPSILON,
        ];
        for &axis in &all_axes {
            for &a in &special {
                for &b in &special {
                    for &c in &special {
                        check(axis, [a, b, c]);
                    }
                }
            }
            // Cancellation: 1e8 + 1 - 1e8 and friends.
            check(axis, [1e8, 1.0, -1e8]);
            check(axis, [1e8, -1e8, 1.0]);
            check(axis, [1.0, 1e8, -1e8]);
            for _ in 0..20_000 {
                let e = |rng: &mut Rng| {
                    let mag = 2f64.powf(rng.range(-140.0, 127.5));
                    let s = if rng.below(2) == 0 { 1.0 } else { -1.0 };
                    (s * mag) as f32
                };
                check(axis, [e(&mut rng), e(&mut rng), e(&mut rng)]);
                let u = |rng: &mut Rng| rng.range(-10.0, 10.0) as f32;
                check(axis, [u(&mut rng), u(&mut rng), u(&mut rng)]);
                // Near-cancelling pair plus a small third term.
                let a = u(&mut rng) * 1e6;
                check(axis, [a, -a.next_up(), u(&mut rng) * 1e-3]);
            }
        }
    }
}
