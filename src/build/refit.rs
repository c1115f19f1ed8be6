//! Refit of a hierarchy to a deformed mesh ("BVHs for deformable objects", bottom-up update,
//! `004_d8337bc93db14070.txt`): the tree structure is kept, the leaf k-DOPs are recomputed
//! from the new corners and every internal node becomes the slab-wise union of its children.
//!
//! The CPU refit is the reference of the GPU refit (`gpu::refit`, `shaders/kdop_refit.wgsl`)
//! and must agree with it bit for bit. That is arranged by construction rather than by
//! tolerance: the only rounded operations are one fixed formula, [`slab_bounds_f32`], written
//! in f32 with fixed-order additions and no products a compiler could refactor, and the
//! merges are min/max (exact, order-free).

use super::Bvh;
use crate::bv::{Kdop, axes};

/// `2^-21 = 8u` with `u = 2^-24` the unit roundoff of f32: the relative half-width of a slab
/// (about `3u` covers the f32 arithmetic, [`crate::frame::INPUT_REL`]` = 2u` the rounding of
/// the local corner itself to f32).
pub const SLAB_REL_MARGIN: f32 = f32::from_bits((127 - 21) << 23);
/// Absolute floor of the half-width: covers every flush of a subnormal to zero (each moves a
/// value by < 2^-126) and keeps `lo < hi`, so zeros and their signs never reach the bounds.
pub const SLAB_ABS_MARGIN: f32 = f32::from_bits((127 - 100) << 23);
/// Inputs are scaled by 1/4 so no intermediate can overflow; the bounds are scaled back.
const SCALE: f32 = 0.25;

/// Flush to zero: subnormals (and -0) become +0. GPUs may flush subnormal inputs and results
/// or keep them; flushing explicitly after every operation makes both modes give the CPU's
/// bits. Each flush moves a value by less than 2^-126 (covered by [`SLAB_ABS_MARGIN`]).
#[inline]
pub fn ftz(x: f32) -> f32 {
    if x.abs() < f32::MIN_POSITIVE { 0.0 } else { x }
}

/// Bounds `[lo, hi]` of the projection `axis · p` of an f32 point on a slab direction, in f32
/// only, containing the exact real projection of `p` and of every point within
/// [`crate::frame::INPUT_REL`]` = 2u` (relative, per coordinate) of it: `p` may be the f32
/// rounding of a local coordinate ([`crate::frame`]), and the real corner is what counts. The WGSL twin is `slab_bounds` in
/// `shaders/kdop_refit.wgsl`; the two must stay operation for operation identical.
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
/// max of `hi`. No corners: [`Kdop::EMPTY`].
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

impl<const H: usize> Bvh<H> {
    /// Refits the hierarchy to new vertex positions of the same mesh (same triangle list, mesh
    /// numbering): takes the new f64 positions, recomputes each leaf's k-DOP from the local
    /// f32 corners ([`kdop_of_corners`], in the frame chosen at build time) and then every
    /// internal node bottom-up as the union of its two children. Structure, `tri_index`,
    /// the frame's origin and `depth` are unchanged, so the tree may fit worse than a
    /// rebuild after a large deformation, but it stays correct (`validate` holds).
    ///
    /// Errors ([`crate::Error::InvalidOption`]) if the triangle count differs from the one at
    /// build time, a triangle names a missing vertex, or a coordinate is not finite or not
    /// in the supported range ([`crate::mesh::in_supported_range`]); the hierarchy is left
    /// untouched then.
    pub fn refit(
        &mut self,
        positions: &[[f64; 3]],
        triangles: &[[u32; 3]],
    ) -> Result<(), crate::Error> {
        let bad = |m: String| Err(crate::Error::InvalidOption(format!("refit: {m}")));
        if triangles.len() != self.tri_index.len() {
            return bad(format!(
                "the hierarchy was built over {} triangles, the deformed mesh has {}",
                self.tri_index.len(),
                triangles.len()
            ));
        }
        if let Some((i, t)) = triangles
            .iter()
            .enumerate()
            .find(|(_, t)| t.iter().any(|&v| v as usize >= positions.len()))
        {
            return bad(format!(
                "triangle {i} names vertices {t:?}, but there are {} positions",
                positions.len()
            ));
        }
        if let Some(i) = positions
            .iter()
            .position(|p| !p.iter().all(|c| c.is_finite()))
        {
            return bad(format!("vertex {i} has a NaN or infinite coordinate"));
        }
        if let Some(i) = positions
            .iter()
            .position(|p| !p.iter().all(|&c| crate::mesh::in_supported_range(c)))
        {
            return bad(format!(
                "vertex {i} has a coordinate outside the range the exact predicates support \
                 (0, or a magnitude from 2^-200 to 2^100)"
            ));
        }
        if let Some((p, _)) = self.tri_index.iter().enumerate().find(|&(p, &t)| {
            let c = &self.tris.corners[p];
            let v = &self.tris.vertex_map;
            triangles[t as usize] != [v[c[0] as usize], v[c[1] as usize], v[c[2] as usize]]
        }) {
            return bad(format!(
                "triangle {} names other vertices than at build time",
                self.tri_index[p]
            ));
        }
        self.tris.set_positions(positions);
        // Children are stored after their parents, so reverse index order is bottom-up.
        let mut corners = Vec::new();
        for i in (0..self.nodes.len()).rev() {
            let n = self.nodes[i];
            let (a, b) = (n.first as usize, n.first as usize + n.count as usize);
            self.nodes[i].bv = if n.is_leaf() {
                corners.clear();
                corners.extend((a..b).map(|p| self.tris.corners_f32(p)));
                kdop_of_corners(&corners)
            } else {
                self.nodes[a].bv.merge(&self.nodes[a + 1].bv)
            };
        }
        Ok(())
    }

    /// Node indices per depth (`levels()[0] == [0]`, the root), each level in index order.
    pub fn levels(&self) -> Vec<Vec<u32>> {
        let mut levels = vec![vec![0u32]];
        loop {
            let next: Vec<u32> = levels
                .last()
                .into_iter()
                .flatten()
                .filter(|&&i| !self.nodes[i as usize].is_leaf())
                .flat_map(|&i| {
                    let c = self.nodes[i as usize].first;
                    [c, c + 1]
                })
                .collect();
            if next.is_empty() {
                return levels;
            }
            levels.push(next);
        }
    }
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

    #[test]
    fn refit_of_the_same_mesh_validates_and_checks_counts() {
        let mesh = crate::build::tests::random_mesh(3, 200);
        let mut b = Bvh::<9>::build(&mesh, &Default::default());
        b.refit(&mesh.positions, &mesh.triangles).unwrap();
        b.validate().unwrap();
        assert!(b.refit(&mesh.positions, &mesh.triangles[1..]).is_err());
        let mut bad = mesh.triangles.clone();
        bad[5][1] = mesh.positions.len() as u32;
        assert!(b.refit(&mesh.positions, &bad).is_err());
        let mut nan = mesh.positions.clone();
        nan[0][2] = f64::NAN;
        assert!(b.refit(&nan, &mesh.triangles).is_err());
        let levels = b.levels();
        assert_eq!(levels.len() as u32, b.depth);
        assert_eq!(levels.iter().map(Vec::len).sum::<usize>(), b.nodes.len());
    }
}
