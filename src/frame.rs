//! Local frames: how the f32 stages see f64 models anywhere in space.
//!
//! The truth is f64: A's vertices as written, and B's vertices moved by [`Pose::apply`]
//! (`R·p + t` evaluated in f64 in one fixed order). The approximate stages (bounding
//! volumes, tumbling, the GPU's f32 triangle filter) work in f32, which near `x = 10⁶` has a
//! resolution of 0.06: there they would be useless, or wrong. So each hierarchy works in
//! coordinates relative to its own [`Frame`] origin (the centre of its bounding box), where
//! f32 is as fine as the model's own size allows; the pose between the two local frames is a
//! [`LocalPose`]. Every approximate stage then adds two error terms to what it already
//! covered near the origin, both proved here and used by every stage:
//!
//! * **Input rounding.** A local f32 coordinate is `fl32(fl64(p − o))`: within
//!   [`INPUT_REL`]`·|x|` of the real `p − o`, where `x` is the f32 value (two roundings, of
//!   relative size 2⁻⁵³ and 2⁻²⁴, bounded together by 2⁻²³ with room for the ratio between
//!   `|x|` and `|p − o|`), plus [`INPUT_ABS`] for results in f32's subnormal range.
//! * **Pose error.** [`LocalPose::abs_err`] bounds, per coordinate, the distance between the
//!   truth `Pose::apply(b) − o_A` and the real `R·(b − o_B) + t_L` with `t_L = R·o_B + t −
//!   o_A`, where `R` is the pose's f64 matrix and `t_L` is computed in f64 (the local pose
//!   the approximate stages use); see [`LocalPose::new`] for the proof.
//!
//! Near the origin both terms are far below the margins the stages already had; far from
//! it they are what keeps the culling conservative. The exact test never sees local
//! coordinates: it reads the f64 values as written.

use crate::pose::Pose;

/// Relative bound of the rounding of a local coordinate to f32 (see the module docs):
/// `|fl32(fl64(p − o)) − (p − o)| ≤ INPUT_REL·|fl32(…)| + INPUT_ABS`.
pub const INPUT_REL: f64 = 1.0 / (1u64 << 23) as f64;
/// Absolute part of the same bound: results below f32's normal range round to multiples
/// of 2⁻¹⁴⁹.
pub const INPUT_ABS: f64 = 1e-44;

/// Outward f32 bounds `[lo, hi]` of points given in local f64 coordinates `x = fl64(p − o)`
/// ([`Frame::local_f64`]), containing the *real* `p − o` of every point.
///
/// Proof: `x` is the f64 nearest to the real `v = p − o`, so `|v − x| ≤ 2⁻⁵³·|x|`.
/// [`crate::bv::kdop::round_down`] returns the largest f32 `f ≤ x` moved one more f32 step down; that step
/// is at least `2⁻²⁴·|f| ≥ 2⁻²⁵·|x|` for normal f32 values, and `2⁻¹⁴⁹` when `f` is zero
/// or subnormal (then `2⁻⁵³·|x| < 2⁻¹⁷⁸`), so the bound lies at least `2⁻⁵³·|x|` below `x`,
/// hence below `v`; [`crate::bv::kdop::round_up`] mirrors it. (Mesh coordinates are at most 2¹⁰⁰, so local
/// ones stay far inside f32's range.)
pub fn local_bounds_f32(points: impl IntoIterator<Item = [f64; 3]>) -> [[f32; 3]; 2] {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in points {
        for (k, &c) in p.iter().enumerate() {
            lo[k] = lo[k].min(c);
            hi[k] = hi[k].max(c);
        }
    }
    [
        lo.map(crate::bv::kdop::round_down),
        hi.map(crate::bv::kdop::round_up),
    ]
}

/// Whether the real value `v` whose nearest f64 is `x` certainly lies in `[lo, hi]`: `v`
/// is nearer to `x` than to either neighbour, so `x.next_down() < v < x.next_up()`. For
/// validators: a box built by [`local_bounds_f32`] keeps a whole f32 step (2²⁹ f64 steps)
/// of room, so the check never fails on a correct tree.
#[inline]
pub fn real_within(x: f64, lo: f64, hi: f64) -> bool {
    lo <= x.next_down() && x.next_up() <= hi
}

/// A model's local frame: its origin and what the error bounds need of its coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// Subtracted from every vertex before the f32 stages (the centre of the bounding box).
    pub origin: [f64; 3],
    /// Largest `‖p‖₁` of any vertex `p` as written (global coordinates).
    pub l1_max: f64,
}

impl Default for Frame {
    fn default() -> Self {
        Frame {
            origin: [0.0; 3],
            l1_max: 0.0,
        }
    }
}

impl Frame {
    /// The frame of a set of points: origin at the centre of their bounding box. An empty
    /// set gives the global frame.
    pub fn of_points<'a>(points: impl IntoIterator<Item = &'a [f64; 3]>) -> Frame {
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        let mut l1_max = 0.0f64;
        for p in points {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
            l1_max = l1_max.max(p[0].abs() + p[1].abs() + p[2].abs());
        }
        if lo[0] > hi[0] {
            return Frame::default();
        }
        // Halves first: no overflow for any finite coordinates.
        let origin = std::array::from_fn(|k| lo[k] * 0.5 + hi[k] * 0.5);
        Frame {
            origin,
            // ‖p‖₁ was rounded up to 2 ulps low; one relative 2⁻⁵⁰ covers it.
            l1_max: l1_max * (1.0 + f64::EPSILON * 4.0),
        }
    }

    /// `p − origin` in f64 (one rounding: within 2⁻⁵³ relative of the real difference).
    #[inline]
    pub fn local_f64(&self, p: [f64; 3]) -> [f64; 3] {
        [
            p[0] - self.origin[0],
            p[1] - self.origin[1],
            p[2] - self.origin[2],
        ]
    }

    /// `p − origin` rounded to f32: the coordinates the f32 stages and the GPU use.
    #[inline]
    pub fn local_f32(&self, p: [f64; 3]) -> [f32; 3] {
        self.local_f64(p).map(|c| c as f32)
    }

    /// `‖origin‖∞`.
    pub fn origin_max(&self) -> f64 {
        self.origin.iter().fold(0.0f64, |m, c| m.max(c.abs()))
    }

    /// `‖origin‖₁`.
    pub fn origin_l1(&self) -> f64 {
        self.origin.iter().map(|c| c.abs()).sum()
    }
}

/// The pose between two local frames: B-local points map into A-local coordinates by
/// `p ↦ R·p + t_L` ([`LocalPose::pose`], the same f64 `R`), up to [`LocalPose::abs_err`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocalPose {
    /// `R` of the global pose and `t_L = R·o_B + t − o_A` (computed in f64).
    pub pose: Pose,
    /// Bound, per coordinate, on `|Pose::apply(b) − o_A − (R·(b − o_B) + t_L)|` over every
    /// vertex `b` of B (reals on the right: `b − o_B` and `R·(…)` exact).
    pub abs_err: f64,
}

impl LocalPose {
    /// The local pose of `pose` from B's frame `fly` into A's frame `env`.
    ///
    /// Proof of [`LocalPose::abs_err`] (`ε = 2⁻⁵³`, `γ_n = nε/(1−nε)`): per coordinate,
    /// `Pose::apply` evaluates three products and three sums, so it errs from the real
    /// `R·b + t` by at most `γ₄·(Σ_k|r_k||b_k| + |t|) ≤ γ₄·((1+2⁻⁵⁰)‖b‖₁ + ‖t‖∞)` (rows of
    /// `R` have entries of magnitude at most `1 + 2⁻⁵⁰`); the f64 `t_L` below (three
    /// products, two sums for `R·o_B`, then `+ t`, `− o_A`) errs from the real one by at most
    /// `γ₅·((1+2⁻⁵⁰)‖o_B‖₁ + ‖t‖∞ + ‖o_A‖∞)`. The real identity `R·b + t − o_A = R·(b − o_B) +
    /// (R·o_B + t − o_A)` joins them: the total is below `9ε·(1+2⁻⁴⁹)·(‖b‖₁ + ‖o_B‖₁ +
    /// 2‖t‖∞ + ‖o_A‖∞)`, and we take `2⁻⁴⁹ = 16ε` times that sum (with `‖b‖₁ ≤`
    /// [`Frame::l1_max`]), which also covers the few roundings of computing the bound.
    pub fn new(pose: &Pose, env: &Frame, fly: &Frame) -> LocalPose {
        let r = &pose.r;
        let o = &fly.origin;
        let t_l: [f64; 3] = std::array::from_fn(|i| {
            (r[i][0] * o[0] + r[i][1] * o[1] + r[i][2] * o[2]) + pose.t[i] - env.origin[i]
        });
        let t_max = pose.t.iter().fold(0.0f64, |m, c| m.max(c.abs()));
        let sum = fly.l1_max + fly.origin_l1() + 2.0 * t_max + env.origin_max();
        LocalPose {
            pose: Pose {
                q: pose.q,
                t: t_l,
                r: pose.r,
            },
            abs_err: sum * (1.0 / (1u64 << 49) as f64),
        }
    }

    /// The identity between two frames of one global frame (`o_A = o_B = 0`): for callers
    /// that already work in local coordinates.
    pub fn exact(pose: &Pose) -> LocalPose {
        LocalPose {
            pose: *pose,
            abs_err: 0.0,
        }
    }
}

impl crate::bv::Aabb {
    /// Whether the real point that the local f64 `x` rounds certainly lies inside
    /// ([`real_within`] per coordinate; for validators).
    pub fn contains_real(&self, x: [f64; 3]) -> bool {
        (0..3).all(|k| real_within(x[k], self.lo[k], self.hi[k]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Knuth's two-sum: `a + b = s + e` exactly.
    fn two_sum(a: f64, b: f64) -> (f64, f64) {
        let s = a + b;
        let bp = s - a;
        (s, (a - (s - bp)) + (b - bp))
    }

    /// A sum of products and terms in compensated arithmetic (Ogita, Rump and Oishi's Dot2:
    /// two-product by FMA, two-sum): its error is below `ε·|result| + γ_n²·Σ|terms|`, many
    /// orders of magnitude below the bounds tested, so it stands in for exact arithmetic.
    fn dot2(products: &[(f64, f64)], terms: &[f64]) -> f64 {
        let (mut s, mut c) = (0.0f64, 0.0f64);
        for &(x, y) in products {
            let h = x * y;
            let l = x.mul_add(y, -h);
            let (t, e) = two_sum(s, h);
            s = t;
            c += e + l;
        }
        for &x in terms {
            let (t, e) = two_sum(s, x);
            s = t;
            c += e;
        }
        s + c
    }

    #[test]
    fn abs_err_bounds_the_local_pose_far_from_the_origin() {
        let mut rng = Rng::new(11);
        for case in 0..4000 {
            let scale = [1.0, 1e3, 1e6, 1e7, 1e9][case % 5];
            let oa: [f64; 3] = std::array::from_fn(|_| rng.range(-scale, scale));
            let ob: [f64; 3] = std::array::from_fn(|_| rng.range(-scale, scale));
            let b: [f64; 3] = std::array::from_fn(|k| ob[k] + rng.range(-1.0, 1.0));
            let q: [f64; 4] = std::array::from_fn(|_| rng.range(-1.0, 1.0));
            let t: [f64; 3] = std::array::from_fn(|_| rng.range(-scale, scale) * 2.0);
            let pose = Pose::new(q, t);
            let env = Frame {
                origin: oa,
                l1_max: 0.0,
            };
            let fly = Frame {
                origin: ob,
                l1_max: Frame::of_points([&b]).l1_max,
            };
            let lp = LocalPose::new(&pose, &env, &fly);
            let truth = pose.apply(b);
            // b − o_B exactly, as d + e.
            let (d, e): (Vec<f64>, Vec<f64>) = (0..3).map(|k| two_sum(b[k], -ob[k])).unzip();
            for i in 0..3 {
                let r = pose.r[i];
                // truth − o_A − (R·(b − o_B) + t_L), evaluated (nearly) exactly.
                let gap = dot2(
                    &[
                        (r[0], -d[0]),
                        (r[1], -d[1]),
                        (r[2], -d[2]),
                        (r[0], -e[0]),
                        (r[1], -e[1]),
                        (r[2], -e[2]),
                    ],
                    &[truth[i], -oa[i], -lp.pose.t[i]],
                );
                assert!(
                    gap.abs() <= lp.abs_err,
                    "case {case} coordinate {i}: {gap:e} > {:e}",
                    lp.abs_err
                );
            }
        }
    }

    #[test]
    fn local_f32_error_is_within_the_input_bound() {
        let mut rng = Rng::new(5);
        for _ in 0..20000 {
            let s = [1e-3, 1.0, 1e6, 1e7][rng.below(4) as usize];
            let o: [f64; 3] = std::array::from_fn(|_| rng.range(-s, s));
            let p: [f64; 3] = std::array::from_fn(|k| o[k] + rng.range(-1.0, 1.0) * 1e-3);
            let f = Frame {
                origin: o,
                l1_max: 0.0,
            };
            let x = f.local_f32(p);
            for k in 0..3 {
                // p − o exactly, as hi + lo.
                let (hi, lo) = two_sum(p[k], -o[k]);
                let err = ((x[k] as f64 - hi) - lo).abs();
                assert!(err <= INPUT_REL * (x[k] as f64).abs() + INPUT_ABS);
            }
        }
    }

    /// Whether `bound ≤ hi + lo` for a two-sum pair (`|lo| ≤ ½ ulp(hi)`), exactly.
    fn below(bound: f64, (hi, lo): (f64, f64)) -> bool {
        bound < hi || (bound == hi && lo >= 0.0)
    }

    #[test]
    fn local_bounds_hold_the_real_local_corners() {
        let mut rng = Rng::new(3);
        for case in 0..20000 {
            let s = [0.0, 1.0, 1e6, 1e7, 1e12][case % 5];
            let o: [f64; 3] = std::array::from_fn(|_| rng.range(-s, s));
            let size = [1e-3, 1.0, 1e-12][case % 3];
            let pts: [[f64; 3]; 3] = std::array::from_fn(|_| {
                std::array::from_fn(|k| o[k] + rng.range(-size, size) * rng.below(2) as f64)
            });
            let [lo, hi] = local_bounds_f32(pts.map(|p| std::array::from_fn(|k| p[k] - o[k])));
            for p in pts {
                for k in 0..3 {
                    let v = two_sum(p[k], -o[k]);
                    assert!(below(lo[k] as f64, v), "{p:?} {o:?} {lo:?}");
                    assert!(below(-(hi[k] as f64), (-v.0, -v.1)), "{p:?} {o:?} {hi:?}");
                    let x = p[k] - o[k];
                    assert!(real_within(x, lo[k] as f64, hi[k] as f64));
                }
            }
        }
    }
}
