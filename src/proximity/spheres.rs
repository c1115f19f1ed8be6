//! Certified bounding spheres of a k-DOP hierarchy's nodes, for the distance query's lower
//! bounds ([`super::distance`]).
//!
//! Why: a k-DOP's slab gap over `|nᵢ|` bounds the distance of two nodes by their gap along
//! the best of `H` fixed directions; when the true direction of closest approach lies
//! between them it falls short by the cosine of the angle, and for two surfaces facing each
//! other over a distance that is large against the leaves, every leaf pair within that
//! shortfall of the minimum is measured: hundreds of thousands per pose on the bunny at two
//! extents. The distance of two spheres' centres less their radii is rotation invariant
//! and falls short by at most the radii, which are small deep in the trees. The query takes
//! the larger of the two bounds (Larsen, Gottschalk, Lin and Manocha, *Fast Proximity
//! Queries with Swept Sphere Volumes*, 1999, use swept spheres for the same reason).
//!
//! # What is certified
//!
//! For a node with centre `c` (any f64 point: the middle of its triangles' bounding box)
//! and radius `r`, every corner `v` of its triangles, as written, has `|v − c| ≤ r`:
//!
//! - a leaf's `r` is the largest computed `|v − c|` times `1 + 2⁻⁴⁹`, rounded up: each of
//!   the subtraction, the squares, the two additions and the square root is correctly
//!   rounded, so the computed length is within a factor `(1 + u)⁶ < 1 + 2⁻⁴⁹` of the real
//!   one (`u = 2⁻⁵³`; coordinates are 0 or of magnitude `2⁻²⁰⁰` to `2¹⁰⁰`, so no square
//!   underflows below the normal range or overflows);
//! - an internal node's `r` is the largest `|c − c_child|·(1 + 2⁻⁴⁹) + r_child`, rounded up
//!   at each step (the triangle inequality).
//!
//! B's spheres move with the pose as [`crate::pose::Pose::apply`] moves its points:
//! `v' = fl(R·v + t)`. Per coordinate the evaluation `((r₀v₀ + r₁v₁) + r₂v₂) + t` is within
//! `γ₄·(Σ|rⱼvⱼ| + |t|)` of the real value (`γ₄ = 4u/(1 − 4u)`; products of entries at least
//! 2⁻⁶⁰ and coordinates at least 2⁻²⁰⁰ are normal numbers), so `|fl(R·v + t) − (R·v + t)| ≤
//! E = 2⁻⁵⁰·(ρ·L + T)` with `ρ = max |rᵢⱼ|`, `L` the sum over axes of B's largest
//! coordinate magnitude (at least `|v|₁` for every corner and every centre, each centre lying
//! in its box) and `T = max |tᵢ|` (`√3·γ₄ < 8u = 2⁻⁵⁰`). With `σ ≥ ‖R‖₂`, the posed centre
//! `c' = fl(R·c + t)` and a posed corner satisfy `|v' − c'| ≤ ‖R‖₂·|v − c| + 2E ≤ σ·r + 2E`,
//! the posed radius. `σ² ≥ λ_max(RRᵀ)`, which is at most the largest row sum of `|RRᵀ|`
//! (Gershgorin); each computed entry `rᵢ·rⱼ` is within `γ₃·|rᵢ||rⱼ|` of the real one, and
//! `2⁻⁴⁵` covers the three errors of a row for rows of length up to 2 (a pose's rows are
//! orthonormal within 10⁻⁶).
//!
//! The lower bound of two spheres is `|c_a − c'_b|·(1 − 2⁻⁴⁹) − r_a − r'_b` rounded down,
//! or 0: the computed centre distance is within a factor `1 + 2⁻⁴⁹` of the real one.

use super::{add_up, mul_up, sub_down};
use crate::bvh::Bvh;
use crate::pose::Pose;

type P3 = [f64; 3];

/// `1 + 2⁻⁴⁹`: covers the relative error of a computed Euclidean length.
const LENGTH_UP: f64 = 1.0 + 1.0 / 562_949_953_421_312.0;
/// `1 − 2⁻⁴⁹`.
const LENGTH_DOWN: f64 = 1.0 - 1.0 / 562_949_953_421_312.0;

/// The computed Euclidean length of `a − b` ([`crate::geom::dist`]: three subtractions,
/// three products, two additions and a square root, each correctly rounded, no FMA).
#[inline]
fn length(a: &P3, b: &P3) -> f64 {
    crate::geom::dist(*a, *b)
}

/// One certified sphere per node of a hierarchy (see the module docs), in node order.
#[derive(Debug, Clone)]
pub struct NodeSpheres {
    /// Centres, as the nodes' coordinates are written (B: before the pose).
    pub centre: Vec<P3>,
    /// Radii: every corner of the node's triangles lies within its radius of its centre.
    pub radius: Vec<f64>,
    /// `L`: the sum over the three axes of the largest coordinate magnitude of a corner.
    pub reach: f64,
}

impl NodeSpheres {
    /// The spheres of `bvh`'s nodes: leaves from their corners, internal nodes from their
    /// children (children come after their parent, so one backward pass suffices).
    pub fn new<const H: usize>(bvh: &Bvh<H>) -> NodeSpheres {
        let n = bvh.nodes.len();
        let mut lo = vec![[f64::INFINITY; 3]; n];
        let mut hi = vec![[f64::NEG_INFINITY; 3]; n];
        let mut centre = vec![[0.0; 3]; n];
        let mut radius = vec![0.0; n];
        let mut big = [0.0f64; 3];
        for i in (0..n).rev() {
            let node = &bvh.nodes[i];
            if node.is_leaf() {
                let range = node.first as usize..(node.first + node.count) as usize;
                for p in range.clone() {
                    for v in bvh.tris.corners_f64(p) {
                        for k in 0..3 {
                            lo[i][k] = lo[i][k].min(v[k]);
                            hi[i][k] = hi[i][k].max(v[k]);
                            big[k] = big[k].max(v[k].abs());
                        }
                    }
                }
                let c = std::array::from_fn(|k| 0.5 * lo[i][k] + 0.5 * hi[i][k]);
                let mut r = 0.0f64;
                for p in range {
                    for v in bvh.tris.corners_f64(p) {
                        r = r.max(length(&v, &c));
                    }
                }
                centre[i] = c;
                radius[i] = mul_up(r, LENGTH_UP);
            } else {
                let (l, m) = (node.first as usize, node.first as usize + 1);
                for k in 0..3 {
                    lo[i][k] = lo[l][k].min(lo[m][k]);
                    hi[i][k] = hi[l][k].max(hi[m][k]);
                }
                let c: P3 = std::array::from_fn(|k| 0.5 * lo[i][k] + 0.5 * hi[i][k]);
                let reach = |j: usize| add_up(mul_up(length(&c, &centre[j]), LENGTH_UP), radius[j]);
                let r = reach(l).max(reach(m));
                centre[i] = c;
                radius[i] = r;
            }
        }
        let reach = add_up(add_up(big[0], big[1]), big[2]);
        NodeSpheres {
            centre,
            radius,
            reach,
        }
    }
}

/// How B's spheres move with one pose: `r' = σ·r + 2E` (module docs).
#[derive(Debug, Clone, Copy)]
pub struct PosedRadius {
    sigma: f64,
    slack: f64,
}

impl PosedRadius {
    /// `σ` and `2E` for `pose` and B's spheres.
    pub fn new(pose: &Pose, b: &NodeSpheres) -> PosedRadius {
        let r = &pose.r;
        let mut rows = 0.0f64;
        for i in 0..3 {
            let mut s = 0.0f64;
            for j in 0..3 {
                let g = r[i][0] * r[j][0] + r[i][1] * r[j][1] + r[i][2] * r[j][2];
                s = add_up(s, g.abs());
            }
            rows = rows.max(s);
        }
        let sigma = mul_up(add_up(rows, 1.0 / 35_184_372_088_832.0).sqrt(), LENGTH_UP);
        let rho = r.iter().flatten().fold(0.0f64, |m, e| m.max(e.abs()));
        let t = pose.t.iter().fold(0.0f64, |m, e| m.max(e.abs()));
        let e = mul_up(
            add_up(mul_up(rho, b.reach), t),
            1.0 / 1_125_899_906_842_624.0,
        );
        PosedRadius {
            sigma,
            slack: add_up(e, e),
        }
    }

    /// The radius of a sphere of radius `r` of B after the pose.
    #[inline]
    pub fn radius(&self, r: f64) -> f64 {
        add_up(mul_up(self.sigma, r), self.slack)
    }
}

/// A lower bound of the distance between any point of the sphere `(ca, ra)` and any point
/// of `(cb, rb)` (B's already posed), 0 when they may overlap.
#[inline]
pub fn sphere_gap_lower(ca: &P3, ra: f64, cb: &P3, rb: f64) -> f64 {
    let d = length(ca, cb) * LENGTH_DOWN;
    sub_down(d.next_down(), add_up(ra, rb)).max(0.0)
}

/// A lower bound of the distance between two triangles (corners as written, B's posed):
/// their gap along the direction `u` from A's centroid to B's, `(min_j u·b_j − max_i
/// u·a_i)/|u|`, rounded down; 0 or less when it proves nothing. Any `u` gives a bound
/// (`u·(q − p) ≤ |u||q − p|` for `p ∈ a`, `q ∈ b`, by Cauchy–Schwarz, and the extreme
/// projections of a triangle are at its corners); the centroids' direction makes it tight
/// for small triangles far apart, where the spheres' bound is short by both radii.
///
/// Rounding: each computed `u·v` is within `γ₃·Σₖ|uₖvₖ| < 2⁻⁵⁰·Σₖ|uₖvₖ|` of the real value
/// (three products, two additions, correctly rounded, no underflow within the supported
/// coordinate range), so each corner's projection is moved by that much the safe way
/// before the difference is taken, the difference is rounded down and the quotient by
/// `|u|`'s computed length times `1 + 2⁻⁴⁹` (an upper bound, module docs) rounded down.
#[inline]
pub fn projected_gap_lower(a: &[P3; 3], b: &[P3; 3]) -> f64 {
    let third = |t: &[P3; 3], k: usize| (t[0][k] + t[1][k] + t[2][k]) / 3.0;
    let u: P3 = std::array::from_fn(|k| third(b, k) - third(a, k));
    let au = u.map(f64::abs);
    const ERR: f64 = 1.0 / 1_125_899_906_842_624.0; // 2⁻⁵⁰
    let proj = |v: &P3| {
        let d = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
        let e = (au[0] * v[0].abs() + au[1] * v[1].abs() + au[2] * v[2].abs()) * ERR;
        (d, e.next_up())
    };
    let mut hi_a = f64::NEG_INFINITY;
    for v in a {
        let (d, e) = proj(v);
        hi_a = hi_a.max(add_up(d, e));
    }
    let mut lo_b = f64::INFINITY;
    for v in b {
        let (d, e) = proj(v);
        lo_b = lo_b.min(sub_down(d, e));
    }
    let gap = sub_down(lo_b, hi_a);
    if gap <= 0.0 {
        return 0.0;
    }
    let len = mul_up(length(&u, &[0.0; 3]), LENGTH_UP);
    (gap / len).next_down()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bvh::BuildOptions;
    use crate::rng::Rng;

    /// Every corner of every node's triangles is inside its sphere, before and after
    /// poses (quaternions and matrices at the edge of the orthonormality tolerance), far
    /// from the origin too; and the gap bound never exceeds a corner pair's distance.
    #[test]
    fn spheres_hold_their_corners_before_and_after_poses() {
        let mut rng = Rng::new(7);
        for offset in [0.0, 1e7, -3.5e5] {
            let mesh = crate::mesh::generate::random_soup(11, 300, 2.0, 0.5)
                .map_positions(|p| [p[0] + offset, p[1] - offset, p[2]]);
            let bvh = Bvh::<9>::build(&mesh, &BuildOptions::default());
            let s = NodeSpheres::new(&bvh);
            let mut poses =
                crate::pose::tumbling_poses(12, [offset, 0.0, 0.0], [1e3, -offset, 5.0]);
            for _ in 0..8 {
                let q = [
                    rng.f64() - 0.5,
                    rng.f64() - 0.5,
                    rng.f64() - 0.5,
                    rng.f64() - 0.5,
                ];
                poses.push(Pose::new(q, [rng.f64() * 1e4, offset, -offset]));
            }
            // Matrices as a caller may write them into the public fields: a rotation with
            // rows 1e-6 too long, a shear, and a reflection. σ follows each.
            let s6 = 1.0 + 1e-6;
            for r in [
                [[s6, 0.0, 0.0], [0.0, 0.0, s6], [0.0, -s6, 0.0]],
                [[1.0, 0.001, 0.0], [0.0, 1.0, 0.0], [0.002, 0.0, 1.0]],
                [[-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            ] {
                poses.push(Pose {
                    q: [1.0, 0.0, 0.0, 0.0],
                    t: [offset, 3.0, -offset],
                    r,
                });
            }
            for pose in &poses {
                let pr = PosedRadius::new(pose, &s);
                for i in 0..bvh.nodes.len() {
                    let c = pose.apply(s.centre[i]);
                    let r = pr.radius(s.radius[i]);
                    let mut stack = vec![i];
                    while let Some(j) = stack.pop() {
                        let nj = &bvh.nodes[j];
                        if nj.is_leaf() {
                            for p in nj.first..nj.first + nj.count {
                                for v in bvh.tris.corners_f64(p as usize) {
                                    assert!(length(&v, &s.centre[i]) <= s.radius[i]);
                                    assert!(length(&pose.apply(v), &c) <= r, "node {i}");
                                }
                            }
                        } else {
                            stack.extend([nj.first as usize, nj.first as usize + 1]);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn gap_bound_is_below_the_distance_of_the_spheres() {
        let a = [0.0, 0.0, 0.0];
        let b = [3.0, 4.0, 0.0];
        let g = sphere_gap_lower(&a, 1.0, &b, 1.5);
        assert!(g < 2.5 && g > 2.5 - 1e-12, "{g}");
        assert_eq!(sphere_gap_lower(&a, 3.0, &b, 2.0), 0.0);
        assert_eq!(sphere_gap_lower(&a, 0.0, &a, 0.0), 0.0);
    }

    /// The projected gap never exceeds the exact distance (the rational oracle of
    /// `tri::distance`), on random pairs near and far from the origin, and it is close to
    /// it for small triangles far apart.
    #[test]
    fn projected_gap_is_a_lower_bound() {
        let mut rng = Rng::new(3);
        let mut tight = 0;
        for i in 0..4000 {
            let off = [0.0, 1e7, -2.5e3][i % 3];
            let scale = [1.0, 0.01, 1e-4][i / 3 % 3];
            let far = rng.f64() * 4.0;
            let mut tri = |shift: f64| -> [P3; 3] {
                std::array::from_fn(|_| {
                    [
                        off + shift + scale * (rng.f64() - 0.5),
                        off + scale * (rng.f64() - 0.5),
                        scale * (rng.f64() - 0.5),
                    ]
                })
            };
            let a = tri(0.0);
            let b = tri(far * scale);
            let g = projected_gap_lower(&a, &b);
            let d = crate::tri::distance::tri_tri_distance(&a, &b);
            assert!(g <= d.lower(), "{a:?} {b:?}: {g} > {}", d.lower());
            if g > 0.5 * d.lower() {
                tight += 1;
            }
        }
        assert!(tight > 100, "{tight}");
    }
}
