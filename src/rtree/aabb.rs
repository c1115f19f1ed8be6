//! Axis-aligned boxes in f64 and Figueiredo's "cover bounding volume update" (*An R-Tree
//! Collision Detection Algorithm for Polygonal Models*, 2009: the box of a box's eight
//! corners after a rigid map), rounded outward so no contact is lost.

pub use crate::bv::Aabb;
use crate::frame::LocalPose;
use crate::pose::Pose;

/// The R-tree's boxes in local frames (the shared box is [`crate::bv::Aabb`]).
impl Aabb {
    /// The box, in the local frame of `origin`, of the real points `x − origin` for the
    /// corners `x` of a triangle given in global f64: the exact box of the corners, its
    /// sides less the origin, widened by `2⁻⁵¹` of their magnitude plus `2⁻¹⁰²²`.
    ///
    /// Proof: a side `d = fl(x − o)` is within `2⁻⁵³·|d|` of the real `x − o`. The product
    /// `|d|·2⁻⁵¹` is exact when normal and within `2⁻¹⁰⁷⁵` otherwise (the `2⁻¹⁰²²` covers
    /// that); the sum with `2⁻¹⁰²²` and the final subtraction round by at most `2⁻⁵³` of
    /// their results (each below `(1 + 2⁻⁵⁰)·|d| + 2⁻¹⁰²¹`). So the side moves outward by
    /// more than `(2⁻⁵¹ − 2⁻⁵² − 2⁻¹⁰⁰)·|d| > 2⁻⁵³·|d|`, past the real value. Branch-free:
    /// it runs once per candidate triangle per pose (`next_down` cost 4 % of a query).
    #[inline]
    pub fn of_triangle_local(t: &[[f64; 3]; 3], origin: &[f64; 3]) -> Aabb {
        const REL: f64 = 1.0 / (1u64 << 51) as f64;
        let mut b = Aabb::of_triangle(t);
        for (k, &o) in origin.iter().enumerate() {
            let (lo, hi) = (b.lo[k] - o, b.hi[k] - o);
            b.lo[k] = lo - (lo.abs() * REL + f64::MIN_POSITIVE);
            b.hi[k] = hi + (hi.abs() * REL + f64::MIN_POSITIVE);
        }
        b
    }
}

/// B's frame from A's: `R^T (x − t)`, the inverse of [`Pose::apply`] when `R` is a
/// rotation.
#[inline]
pub fn inverse_apply(pose: &Pose, x: [f64; 3]) -> [f64; 3] {
    pose.rotate_inverse([0, 1, 2].map(|k| x[k] - pose.t[k]))
}

/// Whether `R·Rᵀ` is the identity within 1e-12 per entry, so that `Rᵀ` is `R`'s inverse
/// to well within [`margin`]. Poses from [`Pose::new`] always are; a hand-built `Pose` with
/// another matrix makes the query skip the filter in B's frame (still exact, only slower).
pub fn is_rotation(pose: &Pose) -> bool {
    let r = &pose.r;
    (0..3).all(|i| {
        (0..3).all(|j| {
            let d: f64 = (0..3).map(|k| r[i][k] * r[j][k]).sum();
            (d - if i == j { 1.0 } else { 0.0 }).abs() <= 1e-12
        })
    })
}

/// The outward margin of every cover update between the local frames of the local pose
/// `lp` (`p ↦ R·p + t` from B's frame into A's): `1e-9 · S + 2·abs_err`, with `S` the
/// largest coordinate magnitude of the two (local) boxes and of `t`.
///
/// Why it suffices: a contact point `y` (real, global) is a convex combination of A's
/// corners, whose real local values A's boxes hold, and of B's corners as [`Pose::apply`]
/// moves them, which lie within [`LocalPose::abs_err`] per coordinate of `R·z + t` for the
/// real local corners `z` of B; so `y − o_A = R·z + t + δ` with `z` in B's boxes and
/// `|δ|∞ ≤ abs_err`. The forward cover must hold `R·z + t + δ`: the f64 error of the map
/// on the box corners (the image of a box is the hull of its corners' images) is below
/// `1e-15 · S`, plus `abs_err` for `δ`. The inverse cover must hold `z = R⁻¹(y − o_A − δ −
/// t)` for `y − o_A` in A's box: `Rᵀ` moves `δ` by at most `|Rᵀ|₁·abs_err < 2·abs_err`, and
/// the f64 error of the inverse map and of `Rᵀ` standing for `R⁻¹` (≤ 1e-12 per entry of
/// `R·Rᵀ − I`, [`is_rotation`]) stay below `2e-11 · S`.
pub fn margin(ra: &Aabb, rb: &Aabb, lp: &LocalPose) -> f64 {
    let s = ra
        .magnitude()
        .max(rb.magnitude())
        .max(lp.pose.t.iter().fold(0.0_f64, |m, x| m.max(x.abs())));
    1e-9 * s + 2.0 * lp.abs_err + f64::MIN_POSITIVE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_is_closed_and_intersection_is_common_part() {
        let a = Aabb {
            lo: [0.0; 3],
            hi: [1.0; 3],
        };
        let b = Aabb {
            lo: [1.0, 0.5, 0.5],
            hi: [2.0; 3],
        };
        assert!(a.overlaps(&b));
        let c = a.intersect(&b);
        assert_eq!(c.lo, [1.0, 0.5, 0.5]);
        assert_eq!(c.hi, [1.0; 3]);
        assert!(!c.is_empty());
        let far = Aabb {
            lo: [1.5; 3],
            hi: [2.0; 3],
        };
        assert!(!a.overlaps(&far));
        assert!(a.intersect(&far).is_empty());
    }

    #[test]
    fn local_triangle_box_holds_the_real_local_corners() {
        let mut rng = crate::rng::Rng::new(9);
        for case in 0..20000 {
            let s = [1.0, 1e6, 1e7][case % 3];
            let o: [f64; 3] = std::array::from_fn(|_| rng.range(-s, s));
            let t: [[f64; 3]; 3] =
                std::array::from_fn(|_| std::array::from_fn(|k| o[k] + rng.range(-1e-3, 1e-3)));
            let b = Aabb::of_triangle_local(&t, &o);
            for p in t {
                for k in 0..3 {
                    // p − o exactly, as d + e (two-sum), against the sides exactly.
                    let d = p[k] - o[k];
                    let bp = d - p[k];
                    let e = (p[k] - (d - bp)) + (-o[k] - bp);
                    assert!(b.lo[k] < d || (b.lo[k] == d && e >= 0.0), "{p:?} {o:?}");
                    assert!(d < b.hi[k] || (d == b.hi[k] && e <= 0.0), "{p:?} {o:?}");
                }
            }
        }
    }

    #[test]
    fn cover_holds_every_mapped_point() {
        let mut rng = crate::rng::Rng::new(7);
        for _ in 0..200 {
            let pose = Pose::new(rng.unit_quaternion(), [0; 3].map(|_| rng.range(-3.0, 3.0)));
            assert!(is_rotation(&pose));
            let b = Aabb {
                lo: [0; 3].map(|_| rng.range(-2.0, 0.0)),
                hi: [0; 3].map(|_| rng.range(0.0, 2.0)),
            };
            let c = b.cover(0.0, |p| pose.apply(p));
            let back = c.cover(margin(&b, &c, &LocalPose::exact(&pose)), |p| {
                inverse_apply(&pose, p)
            });
            for _ in 0..50 {
                let p = [0, 1, 2].map(|k| rng.range(b.lo[k], b.hi[k]));
                let q = pose.apply(p);
                assert!(c.widen(1e-12).overlaps(&Aabb { lo: q, hi: q }));
                assert!(back.overlaps(&Aabb { lo: p, hi: p }));
            }
        }
    }
}
