//! Proximity: the tolerance query (every pair of triangles within a distance `ε`) and the
//! distance query ([`distance`]), decided exactly like the intersection query.
//!
//! The University of Freiburg's lecture *Collision Detection* lists the queries a
//! collision system answers: intersection, proximity and penetration depth. A tolerance
//! query is the intersection query with two changes, both kept conservative:
//!
//! 1. **Every volume of A grows by `ε`.** If two triangles are within `ε`, some point of
//!    A's triangle lies within `ε` of a point of B's, so A's volume grown by the ball of
//!    radius `ε` (its Minkowski sum) meets B's volume. Each hierarchy grows its own
//!    volume by at least that ball, rounding outward, with the proof beside it:
//!    k-DOP slabs by `ε·|nᵢ|` ([`kdops_within`]), OBB half extents by `ε·|aᵢ|`
//!    ([`crate::obb::Volume::widened`]), sphere radii by `ε`, the pose-level box
//!    pretest's box by `ε` ([`crate::kdop::pretest::BoxPretest::widened`]).
//! 2. **The leaf test is [`tri_tri_within`]**: `dist(a, b) ≤ ε` decided exactly on the f64
//!    coordinates as posed ([`crate::tri::distance`]).
//!
//! With `ε = 0` every grown volume is the volume itself and `tri_tri_within` is
//! `tri_tri_intersect`, but the ordinary query is what runs ([`Tolerance::is_zero`]), so
//! `--tolerance 0` is byte for byte the ordinary query, counters included.
//!
//! Hierarchies: the k-DOPs and `auto` (its kdop18 tree answers tolerance queries), the
//! dual k-DOP–sphere hierarchy (spheres and slabs), the OBB and sphere trees. The boxtree
//! and the R-tree do not grow theirs yet: there a tolerance query tests every triangle
//! pair (`within_every_pair`), and the command line refuses them. Deforming meshes
//! (`crate::deform`) grow their refitted k-DOPs the same way, and self-collision
//! ([`crate::SelfCollider::collide_within`]) its one hierarchy against itself. The GPU path
//! does not run tolerance queries yet ([`crate::Collider::collide_stream_gpu`] refuses
//! them).

pub mod distance;
pub mod spheres;

use crate::bv::Kdop;
use crate::tri::P3;

pub use crate::scene::Tolerance;

/// Whether two closed triangles are within `eps` of each other, exactly
/// ([`crate::tri::distance::tri_tri_within`]).
#[inline]
pub fn tri_tri_within(a: &[P3; 3], b: &[P3; 3], eps: f64) -> bool {
    crate::tri::distance::tri_tri_within(a, b, eps)
}

/// An upper bound of the real product `x·y` for finite `x, y ≥ 0`.
///
/// Proof: round to nearest returns `r = fl(x·y)`, one of the two floating-point numbers
/// around the real product, so the real product lies in `[next_down(r), next_up(r)]` (for
/// a finite `r`; an infinite `r` is an upper bound already).
#[inline]
pub(crate) fn mul_up(x: f64, y: f64) -> f64 {
    (x * y).next_up()
}

/// An upper bound of the real sum `x + y` (the argument of [`mul_up`]).
#[inline]
pub(crate) fn add_up(x: f64, y: f64) -> f64 {
    (x + y).next_up()
}

/// A lower bound of the real difference `x − y` (the argument of [`mul_up`]).
#[inline]
pub(crate) fn sub_down(x: f64, y: f64) -> f64 {
    (x - y).next_down()
}

/// The smallest f32 at least `x` (infinite above f32's range).
#[inline]
pub(crate) fn f32_up(x: f64) -> f32 {
    let f = x as f32;
    if (f as f64) < x { f.next_up() } else { f }
}

/// The margins of the k-DOP slab test at tolerance `eps`: `mᵢ ≥ ε·|nᵢ|·(1 + 2⁻⁵²)` for the
/// integer slab directions `nᵢ` (`crate::bv::axes`), used by [`kdops_within`].
///
/// `|nᵢ| ≤ N = next_up(√(nᵢ·nᵢ))` (the square root is correctly rounded, `nᵢ·nᵢ` is a small
/// exact integer); then two upward products (`mul_up`).
pub fn slab_margins<const H: usize>(eps: f64) -> [f64; H] {
    let axes = crate::bv::axes(H);
    std::array::from_fn(|i| {
        let n2: i32 = axes[i].iter().map(|&c| c as i32 * c as i32).sum();
        let norm = (n2 as f64).sqrt().next_up();
        mul_up(mul_up(eps, norm), 1.0 + f64::EPSILON)
    })
}

/// The k-DOP slab test grown by `ε`: false only when the k-DOPs `a` and `b` are farther
/// than `ε` apart, given `m = slab_margins(ε)`. Touching within `ε` counts (closed sets).
///
/// Proof. The test rejects when `d = fl(a.minᵢ − b.maxᵢ) > mᵢ` (or the same with `a` and
/// `b` swapped), the difference taken in f64 of the f32 bounds. Then `d > 0`, so the real
/// difference `D` is positive (rounding keeps the sign) and `D ≥ d/(1 + 2⁻⁵³)` (a rounded
/// difference is within `2⁻⁵³·|D|` of `D`, exact when it is subnormal), so `D > mᵢ/(1 +
/// 2⁻⁵³) ≥ ε·|nᵢ|`. Every point `p` of `a` has `nᵢ·p ≥ a.minᵢ` and every point `q` of `b`
/// has `nᵢ·q ≤ b.maxᵢ` (the volumes contain their triangles' real points, local frames
/// being translations), so `nᵢ·(p − q) ≥ D > ε·|nᵢ|` and `|p − q| > ε` by Cauchy–Schwarz.
/// NaN differences (infinite bounds) never reject. With `ε = 0`, `m = 0` and the test is
/// [`Kdop::overlaps`]: `fl(x − y) > 0` exactly when `x > y`.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // four arrays indexed together
pub fn kdops_within<const H: usize>(a: &Kdop<H>, b: &Kdop<H>, m: &[f64; H]) -> bool {
    for i in 0..H {
        if a.min[i] as f64 - b.max[i] as f64 > m[i] || b.min[i] as f64 - a.max[i] as f64 > m[i] {
            return false;
        }
    }
    true
}

/// A tolerance query on a hierarchy without grown volumes (the boxtree and the R-tree,
/// whose traversals are their papers' own): every triangle pair tested by
/// [`tri_tri_within`], Np counted, in the hierarchies' triangle order and reported in file
/// numbering. Correct, and as slow as brute force: the command line refuses these two
/// hierarchies for `--tolerance` and names the ones that grow their volumes.
#[allow(clippy::too_many_arguments)]
pub(crate) fn within_every_pair(
    a: &crate::ordered::OrderedTriangles,
    a_index: &[u32],
    b: &crate::ordered::OrderedTriangles,
    b_index: &[u32],
    pose: &crate::pose::Pose,
    mode: crate::scene::Mode,
    eps: f64,
    out: &mut Vec<(u32, u32)>,
) -> crate::scene::Counters {
    let tb: Vec<[P3; 3]> = (0..b_index.len())
        .map(|j| b.corners_f64(j).map(|p| pose.apply(p)))
        .collect();
    let mut c = crate::scene::Counters::default();
    for (i, &ia) in a_index.iter().enumerate() {
        let ta = a.corners_f64(i);
        for (j, t) in tb.iter().enumerate() {
            c.tri_tests += 1;
            if tri_tri_within(&ta, t, eps) {
                out.push((ia, b_index[j]));
                if mode == crate::scene::Mode::First {
                    return c;
                }
            }
        }
    }
    c
}

/// Every pair of triangles within `eps` at `pose`, by testing all pairs: the tolerance
/// query's oracle (as [`crate::scene::brute_force`] is the intersection query's).
pub fn brute_force_within(
    a: &crate::mesh::Mesh,
    b: &crate::mesh::Mesh,
    pose: &crate::pose::Pose,
    eps: f64,
) -> Vec<(u32, u32)> {
    use rayon::prelude::*;
    let tb: Vec<[P3; 3]> = (0..b.triangle_count())
        .map(|j| b.triangle(j).map(|p| pose.apply(p)))
        .collect();
    let mut pairs: Vec<(u32, u32)> = (0..a.triangle_count())
        .into_par_iter()
        .flat_map_iter(|i| {
            let ta = a.triangle(i);
            let tb = &tb;
            (0..tb.len()).filter_map(move |j| {
                tri_tri_within(&ta, &tb[j], eps).then_some((i as u32, j as u32))
            })
        })
        .collect();
    pairs.sort_unstable();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_refuses_what_is_not_a_distance() {
        for bad in [-1.0, -1e-300, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let e = Tolerance::new(bad, "--tolerance").unwrap_err().to_string();
            assert!(e.contains("--tolerance"), "{e}");
        }
        assert!(Tolerance::new(-0.0, "x").unwrap().is_zero());
        assert_eq!(Tolerance::new(0.25, "x").unwrap().get(), 0.25);
    }

    /// The margins bound `ε·|n|` from above, and the slab test rejects exactly what the
    /// margin allows: two 6-DOPs (boxes) `ε` apart along x are within `ε`, and one f32
    /// step farther apart they are not (at the edge of the proof, both ways).
    #[test]
    fn slab_margins_and_the_grown_test_at_the_edge() {
        let m = slab_margins::<13>(0.1);
        for (i, ax) in crate::bv::axes(13).iter().enumerate() {
            let n =
                ((ax[0] as f64).powi(2) + (ax[1] as f64).powi(2) + (ax[2] as f64).powi(2)).sqrt();
            assert!(m[i] >= 0.1 * n && m[i] <= 0.1 * n * (1.0 + 1e-14), "{i}");
        }
        let unit = |lo: f32| Kdop::<3> {
            min: [lo, 0.0, 0.0],
            max: [lo + 1.0, 1.0, 1.0],
        };
        let eps = 0.5f64;
        let m = slab_margins::<3>(eps);
        // A = [0, 1]; B starts at 1.5: the gap is exactly ε.
        assert!(kdops_within(&unit(0.0), &unit(1.5), &m));
        assert!(kdops_within(&unit(1.5), &unit(0.0), &m));
        // One f32 step farther the gap exceeds ε (by 2⁻²³, far above the margin's
        // rounding allowance): rejected.
        let next = 1.5f32.next_up();
        assert!(!kdops_within(&unit(0.0), &unit(next), &m));
        assert!(!kdops_within(&unit(next), &unit(0.0), &m));
        // ε = 0 is the ordinary test, touching included.
        let z = slab_margins::<3>(0.0);
        assert!(kdops_within(&unit(0.0), &unit(1.0), &z));
        assert!(!kdops_within(&unit(0.0), &unit(1.0f32.next_up()), &z));
        assert_eq!(
            kdops_within(&unit(0.0), &unit(1.0f32.next_up()), &z),
            unit(0.0).overlaps(&unit(1.0f32.next_up()))
        );
    }

    #[test]
    fn rounding_helpers_bound_the_real_values() {
        // 0.1 · 3 is not representable: the upward product is above the real one, whose
        // exact value lies between fl(0.1·3) and its neighbour.
        let p = mul_up(0.1, 3.0);
        assert!(p > 0.1 * 3.0 || p == (0.1f64 * 3.0).next_up());
        assert!(add_up(1.0, 1e-30) > 1.0);
        assert!(sub_down(1.0, 1e-30) < 1.0);
        assert_eq!(f32_up(1.0), 1.0);
        assert!(f32_up(1.0 + 1e-12) > 1.0);
        assert!((f32_up(0.1) as f64) >= 0.1);
    }
}
