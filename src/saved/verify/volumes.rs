//! Every node's k-DOP is finite and contains its triangles (a leaf) or its children (an
//! internal node).
//!
//! A leaf is checked against the k-DOP a build computes from its corners,
//! `Kdop::from_points` (which contains the real local corners: its proof), without building
//! that k-DOP: `from_points` rounds each f64 extent outward to f32 with `round_down` /
//! `round_up`, and for an f32 `m` and an f64 `x`, `m ≤ round_down(x)` ⟺ `next_up(m) ≤ x`:
//! `round_down(x)` is one ulp below `g`, the largest f32 not above `x`, so
//! `m ≤ round_down(x)` ⟺ `m < g` ⟺ `next_up(m) ≤ g` ⟺ `next_up(m) ≤ x` (`next_up(m)` is an
//! f32, and `g` the largest f32 up to `x`). Mirrored, `M ≥ round_up(x)` ⟺
//! `next_down(M) ≥ x`. So [`leaf_slab_outside`] decides exactly what
//! `stored.contains(&Kdop::from_points(corners))` decides (a unit test compares them), at a
//! third of the cost: the rounding was two thirds of it (measured on a load of the dragon:
//! `docs/notebook/moved-from-module-docs.md`).

use super::{Violation, first_failure};
use crate::bv::Kdop;
use crate::bv::axes::axes_f64;
use crate::bvh::Bvh;
use crate::saved::invariants as inv;
use rayon::prelude::*;

/// Checks every volume of a tree that passed `tree`: finite with min ≤ max
/// ([`inv::FINITE_VOLUMES`]), a leaf's containing its triangles
/// ([`inv::CONTAINS_TRIANGLES`]), an internal node's its children's
/// ([`inv::CONTAINS_CHILDREN`]). The proofs are in the parent module's docs.
pub(in crate::saved) fn volumes<const H: usize>(bvh: &Bvh<H>) -> Result<(), Violation> {
    let nodes = &bvh.nodes;
    let check = |i: usize| -> Result<(), Violation> {
        let node = &nodes[i];
        let bv = &node.bv;
        if let Some(s) = (0..H)
            .find(|&s| !(bv.min[s].is_finite() && bv.max[s].is_finite() && bv.min[s] <= bv.max[s]))
        {
            return Err(Violation::at(
                inv::FINITE_VOLUMES,
                i,
                format!("slab {s} is [{}, {}]", bv.min[s], bv.max[s]),
            ));
        }
        if node.is_leaf() {
            let r = node.first as usize..(node.first + node.count) as usize;
            let corners = || r.clone().flat_map(|p| bvh.tris.corners_local_f64(p));
            if let Some(s) = leaf_slab_outside(bv, corners()) {
                let tight = Kdop::<H>::from_points(corners());
                return Err(Violation::at(
                    inv::CONTAINS_TRIANGLES,
                    i,
                    format!(
                        "slab {s} is [{}, {}], its triangles (positions {}..{}) need [{}, {}]",
                        bv.min[s], bv.max[s], r.start, r.end, tight.min[s], tight.max[s]
                    ),
                ));
            }
        } else {
            let c = node.first as usize;
            let children = nodes[c].bv.merge(&nodes[c + 1].bv);
            if let Some(s) = slab_outside(bv, &children) {
                return Err(Violation::at(
                    inv::CONTAINS_CHILDREN,
                    i,
                    format!(
                        "slab {s} is [{}, {}], its children {c} and {} reach [{}, {}]",
                        bv.min[s],
                        bv.max[s],
                        c + 1,
                        children.min[s],
                        children.max[s]
                    ),
                ));
            }
        }
        Ok(())
    };
    first_failure((0..nodes.len()).into_par_iter().map(check))
}

/// The first slab of `inner` that `outer` does not contain (f32 comparisons, exact).
fn slab_outside<const H: usize>(outer: &Kdop<H>, inner: &Kdop<H>) -> Option<usize> {
    (0..H).find(|&s| !(outer.min[s] <= inner.min[s] && inner.max[s] <= outer.max[s]))
}

/// The first slab where `stored` does not contain `Kdop::from_points(corners)`, decided on
/// `from_points`'s own f64 extents (the same widening, the same sums) without rounding them
/// to f32 (the equivalence is in the module docs).
fn leaf_slab_outside<const H: usize>(
    stored: &Kdop<H>,
    corners: impl IntoIterator<Item = [f64; 3]>,
) -> Option<usize> {
    // `Kdop::from_points`'s widening, `fl(‖p‖₁·2⁻⁵¹)·(1 + 2⁻⁵⁰)`.
    const REL: f64 = 1.0 / (1u64 << 51) as f64 * (1.0 + 1.0 / (1u64 << 50) as f64);
    let ax = axes_f64::<H>();
    let mut lo = [f64::INFINITY; H];
    let mut hi = [f64::NEG_INFINITY; H];
    for p in corners {
        let e = (p[0].abs() + p[1].abs() + p[2].abs()) * REL;
        for i in 0..H {
            let d = ax[i][0] * p[0] + ax[i][1] * p[1] + ax[i][2] * p[2];
            lo[i] = lo[i].min(d - e);
            hi[i] = hi[i].max(d + e);
        }
    }
    (0..H).find(|&i| {
        !(stored.min[i].next_up() as f64 <= lo[i] && stored.max[i].next_down() as f64 >= hi[i])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// [`leaf_slab_outside`] decides what `contains(&Kdop::from_points(..))` decides, on the
    /// tight k-DOP itself and on every slab moved by one or two ulps either way, for
    /// triangles near the origin, far from it, tiny, flat and with zero coordinates.
    fn agrees<const H: usize>() {
        let mut rng = Rng::new(36);
        let scales = [1.0, 1e-7, 3e5, 1e12];
        for case in 0..600 {
            let s = scales[case % scales.len()];
            let c = [0, 1, 2].map(|_| rng.range(-s, s));
            let mut tri: Vec<[f64; 3]> = (0..3 * (1 + case % 3))
                .map(|_| [0, 1, 2].map(|k| c[k] + rng.range(-s, s) * 1e-3))
                .collect();
            if case % 5 == 0 {
                for p in &mut tri {
                    p[2] = 0.0; // flat, on a coordinate plane
                }
            }
            let tight = Kdop::<H>::from_points(tri.iter().copied());
            assert_eq!(leaf_slab_outside(&tight, tri.iter().copied()), None);
            for i in 0..H {
                for step in [
                    f32::next_up,
                    f32::next_down,
                    |x: f32| x.next_up().next_up(),
                    |x: f32| x.next_down().next_down(),
                ] {
                    for side in [false, true] {
                        let mut k = tight;
                        if side {
                            k.max[i] = step(k.max[i]);
                        } else {
                            k.min[i] = step(k.min[i]);
                        }
                        let want = (0..H)
                            .find(|&j| !(k.min[j] <= tight.min[j] && tight.max[j] <= k.max[j]));
                        assert_eq!(leaf_slab_outside(&k, tri.iter().copied()), want, "{case}");
                    }
                }
            }
        }
    }

    #[test]
    fn leaf_check_equals_containing_from_points() {
        agrees::<3>();
        agrees::<7>();
        agrees::<9>();
        agrees::<13>();
    }
}
