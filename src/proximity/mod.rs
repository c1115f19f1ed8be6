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
//! ([`crate::SelfCollider::collide_within`]) its one hierarchy against itself.
//!
//! On the GPU ([`crate::Collider::collide_stream_gpu`], the k-DOP trees and `auto`'s
//! kdop18 tree) the expansion runs the CPU's own f32 slab test [`kdops_within`] (the same
//! node pairs, the same Nv), and every triangle pair of the leaf pairs comes back to the
//! host, which decides it with [`tri_tri_within`] (the same pairs, the same Np). The dual
//! hierarchy and the OBB and sphere trees run tolerance queries on the CPU only, as do
//! self-collision and frames.

pub mod boxes;
pub mod distance;
pub mod triangle_gap;

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

/// The margins of [`kdops_within`] in f32, shared by the CPU and the GPU (`kdop_within`
/// of `shaders/shared/kdop.wgsl`, from `Counters::margins`): `Mᵢ = max(f32_up(mᵢ·(1 + 2⁻²³)
/// rounded up), 2⁻¹²⁶)` with `mᵢ` of [`slab_margins`], so `Mᵢ ≥ ε·|nᵢ|·(1 + 2⁻²³)` and `Mᵢ` is
/// a normal f32 (never 0 or subnormal). `Mᵢ = +∞` when `ε·|nᵢ|` exceeds f32's range (then no
/// slab rejects).
pub fn slab_margins_f32<const H: usize>(eps: f64) -> [f32; H] {
    slab_margins::<H>(eps)
        .map(|m| f32_up(mul_up(m, 1.0 + f32::EPSILON as f64)).max(f32::MIN_POSITIVE))
}

/// The k-DOP slab test grown by `ε`: false only when the k-DOPs `a` and `b` are farther
/// than `ε` apart, given `m = slab_margins_f32(ε)`. Touching within `ε` counts (closed
/// sets). The GPU's expansion runs this very test (`kdop_within` in
/// `shaders/shared/kdop.wgsl`, operation for operation), so both keep the same node pairs:
/// Nv is the same on both.
///
/// The test rejects slab `i` when `r = fl₃₂(a.minᵢ − b.maxᵢ) > Mᵢ` (or the same with `a` and
/// `b` swapped): one f32 subtraction, one comparison.
///
/// Proof that a rejection is right. `Mᵢ ≥ 2⁻¹²⁶`, so `r > Mᵢ` makes `r` a positive normal
/// f32 (or `+∞`). Rounding is monotone, so the real difference `D` is positive and not
/// below f32's normal range (`D < 2⁻¹²⁶` would round to at most `2⁻¹²⁶`). Round to nearest
/// then gives `r ≤ D·(1 + 2⁻²⁴)` (round toward zero `r ≤ D`; `r = +∞` means `D` above
/// `f32::MAX`, above any finite `Mᵢ`), so `D ≥ r/(1 + 2⁻²⁴) > Mᵢ/(1 + 2⁻²⁴) ≥ ε·|nᵢ|`.
/// Every point `p` of `a` has `nᵢ·p ≥ a.minᵢ` and every point `q` of `b` has `nᵢ·q ≤
/// b.maxᵢ` (the volumes contain their triangles' real points, local frames being
/// translations), so `nᵢ·(p − q) ≥ D > ε·|nᵢ|` and `|p − q| > ε` by Cauchy–Schwarz. NaN
/// differences (infinite bounds) never reject.
///
/// Why the GPU decides the same: WGSL's f32 subtraction is correctly rounded (Vulkan's
/// precision rules; the tumbled bounds already rely on it, `crate::bv::slab`); a device
/// may flush subnormal results to zero, but a subnormal `r` is below `Mᵢ ≥ 2⁻¹²⁶` flushed
/// or not, so the comparison's answer is the same; the bounds themselves are never
/// subnormal (`bv::slab::slab_bounds_f32` flushes and scales by 4).
///
/// With `ε = 0` this test is not run: the ordinary query runs ([`Tolerance::is_zero`]).
#[inline(always)]
#[allow(clippy::needless_range_loop)] // four arrays indexed together
pub fn kdops_within<const H: usize>(a: &Kdop<H>, b: &Kdop<H>, m: &[f32; H]) -> bool {
    for i in 0..H {
        if a.min[i] - b.max[i] > m[i] || b.min[i] - a.max[i] > m[i] {
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
    /// margin allows: two 6-DOPs (boxes) `ε` apart along x are within `ε`; the last gap
    /// kept is `M = slab_margins_f32(ε)`, a few f32 steps above `ε`, and one f32 step
    /// farther apart they are not (at the edge of the proof, both ways).
    #[test]
    fn slab_margins_and_the_grown_test_at_the_edge() {
        let m = slab_margins::<13>(0.1);
        let m32 = slab_margins_f32::<13>(0.1);
        for (i, ax) in crate::bv::axes(13).iter().enumerate() {
            let n =
                ((ax[0] as f64).powi(2) + (ax[1] as f64).powi(2) + (ax[2] as f64).powi(2)).sqrt();
            assert!(m[i] >= 0.1 * n && m[i] <= 0.1 * n * (1.0 + 1e-14), "{i}");
            let r = m32[i] as f64 / (0.1 * n);
            assert!(
                r >= 1.0 + 2f64.powi(-23) && r <= 1.0 + 2f64.powi(-21),
                "{i}: {r}"
            );
        }
        let unit = |lo: f32| Kdop::<3> {
            min: [lo, 0.0, 0.0],
            max: [lo + 1.0, 1.0, 1.0],
        };
        for eps in [0.5f64, 0.1, 3e-5, 1e-30] {
            let m = slab_margins_f32::<3>(eps);
            // A = [0, 1]; B starts at 1 + ε (rounded down to f32): within ε.
            let mut at_eps = (1.0 + eps) as f32;
            if at_eps as f64 > 1.0 + eps {
                at_eps = at_eps.next_down();
            }
            assert!(kdops_within(&unit(0.0), &unit(at_eps), &m), "{eps}");
            assert!(kdops_within(&unit(at_eps), &unit(0.0), &m), "{eps}");
            // The last start kept: the gap fl(lo − 1) is at most M.
            let mut lo = at_eps;
            while lo.next_up() - 1.0 <= m[0] {
                lo = lo.next_up();
            }
            assert!(kdops_within(&unit(0.0), &unit(lo), &m), "{eps}");
            assert!(kdops_within(&unit(lo), &unit(0.0), &m), "{eps}");
            assert!(((lo - 1.0) as f64) <= eps * (1.0 + 2f64.powi(-20)) + 2f64.powi(-23));
            // One f32 step farther the gap exceeds M: rejected.
            let next = lo.next_up();
            assert!(!kdops_within(&unit(0.0), &unit(next), &m), "{eps}");
            assert!(!kdops_within(&unit(next), &unit(0.0), &m), "{eps}");
        }
        // Tiny ε: the margin is 2⁻¹²⁶, no subnormal decides anything.
        assert_eq!(slab_margins_f32::<3>(1e-300), [f32::MIN_POSITIVE; 3]);
        // Beyond f32's range no slab rejects.
        let huge = slab_margins_f32::<3>(1e300);
        assert!(huge[0].is_infinite());
        assert!(kdops_within(&unit(0.0), &unit(f32::MAX), &huge));
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
