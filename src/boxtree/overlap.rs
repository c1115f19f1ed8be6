//! The node-pair overlap tests of Zachmann, *Minimal Hierarchical Collision Detection*
//! (2002), section 3.2, as one incremental scheme.
//!
//! A test projects both boxes onto a fixed set of `N` directions `s_j` (fixed per pose) and
//! reports "disjoint" when some pair of intervals is apart. The direction sets:
//! - axis alignment (3.2.1): A's axes `e_x, e_y, e_z` (`N = 3`): B's interval on `e_x` is
//!   the x-range of the axis-aligned box enclosing B in A's frame;
//! - SAT lite (3.2.4): A's and B's axes (`N = 6`): the first test done in both frames;
//! - full SAT (3.2.3): the 15 axes (A's, B's, and the nine `e_a × b^i`);
//! - lookup tables (3.2.2): the axes of 3.2.1, with B's updates `c·(b^i·s_j)` read from a
//!   per-pose table indexed by the node's quantized `c` (`BoxTree::lut_codes`).
//!
//! Incremental (3.2.1, 3.2.3): a child's box differs from its parent's in one side, moved by
//! `c` along one of its tree's axes, so on each direction only one end of the interval
//! moves, by `c` times a per-pose constant (`sa`, `sb` below: 3×N products). The child
//! intervals are computed once per parent pair and passed down (3.3, see `traverse`), and a
//! child pair compares only the interval ends that changed: the others passed at the parent
//! pair already.
//!
//! Frames: both trees' boxes are in their own local coordinates, and the pose is the
//! [`LocalPose`] `p ↦ r·p + t` from B's frame into A's (`t` the local translation).
//!
//! Conservative: B's intervals are exact projections of the *real* map `p ↦ r·p + t` (any
//! f64 `r`, orthonormal or not, since `s·(r p) = Σ_i (s·b^i) p_i`), and any direction is a
//! valid separating axis, so only rounding can make a test wrong. Every comparison carries
//! a margin `m_j = (D_A + D_B + 32) · 2^-48 · K_j + 2·|s_j|₁·abs_err`, where `K_j = |s_j|₁
//! (S_A + |t|∞ + R₁ S_B) + Σ_i |s_j·b^i| S_B + |s_j·t|` bounds every value that enters
//! interval `j` (`S` the largest absolute coordinate of a root box, `R₁` the largest row
//! 1-norm of `r`, `D` the depths). Each level adds at most a few roundings of relative size
//! 2^-53 to such values (the product, the sum, and the difference between `c` and the f64
//! side that [`Aabb::child`] actually computes); the first term allows 32 roundings per
//! level plus 32 levels. The second covers the gap between the real map and the truth the
//! exact test decides on (`Pose::apply` of B's corners as written, less A's origin): at
//! most [`LocalPose::abs_err`] per coordinate, so at most `|s_j|₁·abs_err` along `s_j` for
//! every point of B's triangles (convex combinations of the corners); doubled, it also
//! covers its own rounding. A's intervals on its own axes are exact (the same subtraction
//! as [`Aabb::child`]).

#![allow(clippy::needless_range_loop)] // per-axis arithmetic reads best indexed

use super::node::{Aabb, Node};
use super::{BoxTree, LUT_SIZE};
use crate::frame::LocalPose;
use crate::geom::{cross, dot};
use crate::pose::Pose;

/// Projections of one box onto the `N` directions, plus which ends changed from the parent.
#[derive(Clone, Copy, Debug)]
pub struct Iv<const N: usize> {
    /// Lower end of the interval on each direction.
    pub lo: [f64; N],
    /// Upper end of the interval on each direction.
    pub hi: [f64; N],
    /// Directions whose interval changed (bit j).
    changed: u16,
    /// Of those, the ones whose upper end changed (else the lower end).
    hi_changed: u16,
}

impl<const N: usize> Iv<N> {
    /// The same intervals with nothing changed (a node that is not descended).
    #[inline]
    pub fn settled(mut self) -> Self {
        self.changed = 0;
        self.hi_changed = 0;
        self
    }
}

/// The per-pose constants of a test with `N` directions.
#[derive(Debug, Clone)]
pub struct PoseDirections<const N: usize> {
    /// `s_j · e_a`: the directions in A's frame.
    pub sa: [[f64; 3]; N],
    /// `s_j · b^i`, `b^i` = column i of `r` (B's axes in A's frame).
    pub sb: [[f64; 3]; N],
    /// `s_j · t`.
    pub st: [f64; N],
    /// `m_j`: how far apart two intervals on direction `j` must be to count as disjoint
    /// (the rounding bound of the module docs).
    pub margin: [f64; N],
    /// Per axis of A (of B): the directions with a non-zero `sa` (`sb`) entry.
    nz_a: [u16; 3],
    nz_b: [u16; 3],
}

/// Direction `j` of the 15 (the first `N` are used): `e_0..e_2`, `b^0..b^2`, then
/// `e_a × b^i` for a = 0..3, i = 0..3 (exact: only signs and copies).
fn direction(r: &[[f64; 3]; 3], j: usize) -> [f64; 3] {
    let col = |i: usize| [r[0][i], r[1][i], r[2][i]];
    match j {
        0..3 => std::array::from_fn(|k| (k == j) as u8 as f64),
        3..6 => col(j - 3),
        _ => {
            let (a, b) = ((j - 6) / 3, col((j - 6) % 3));
            match a {
                0 => [0.0, -b[2], b[1]],
                1 => [b[2], 0.0, -b[0]],
                _ => [-b[1], b[0], 0.0],
            }
        }
    }
}

impl<const N: usize> PoseDirections<N> {
    /// The constants for the local pose `lp` (B's frame into A's, see
    /// [`LocalPose::new`]), given both trees' local root boxes and depths.
    pub fn new(lp: &LocalPose, a: (&Aabb, u32), b: (&Aabb, u32)) -> PoseDirections<N> {
        let pose = &lp.pose;
        let r = &pose.r;
        let s: [[f64; 3]; N] = std::array::from_fn(|j| direction(r, j));
        let col = |i: usize| [r[0][i], r[1][i], r[2][i]];
        let sb: [[f64; 3]; N] = std::array::from_fn(|j| std::array::from_fn(|i| dot(s[j], col(i))));
        let st: [f64; N] = std::array::from_fn(|j| dot(s[j], pose.t));
        let (sa_max, sb_max) = (a.0.magnitude(), b.0.magnitude());
        let t_max = pose.t.iter().fold(0.0, |m: f64, x| m.max(x.abs()));
        let r1 = r
            .iter()
            .map(|row| row.iter().map(|x| x.abs()).sum::<f64>())
            .fold(0.0, f64::max);
        let levels = (a.1 + b.1 + 32) as f64;
        let margin = std::array::from_fn(|j| {
            let s1: f64 = s[j].iter().map(|x| x.abs()).sum();
            let g1: f64 = sb[j].iter().map(|x| x.abs()).sum();
            let k = s1 * (sa_max + t_max + r1 * sb_max) + g1 * sb_max + st[j].abs();
            levels * 2f64.powi(-48) * k + 2.0 * s1 * lp.abs_err + 1e-300
        });
        let mask = |tab: &[[f64; 3]; N], i: usize| {
            (0..N)
                .filter(|&j| tab[j][i] != 0.0)
                .fold(0u16, |m, j| m | 1 << j)
        };
        PoseDirections {
            sa: s,
            sb,
            st,
            margin,
            nz_a: std::array::from_fn(|i| mask(&s, i)),
            nz_b: std::array::from_fn(|i| mask(&sb, i)),
        }
    }

    /// A's root box projected (A's box is axis-aligned in A's frame).
    pub fn root_a(&self, bx: &Aabb) -> Iv<N> {
        let mut lo = [0.0; N];
        let mut hi = [0.0; N];
        for j in 0..N {
            for k in 0..3 {
                let (x, y) = (self.sa[j][k] * bx.lo[k], self.sa[j][k] * bx.hi[k]);
                lo[j] += x.min(y);
                hi[j] += x.max(y);
            }
        }
        Iv {
            lo,
            hi,
            changed: 0,
            hi_changed: 0,
        }
    }

    /// B's root box (in B's frame) projected after the pose.
    pub fn root_b(&self, bx: &Aabb) -> Iv<N> {
        let mut lo = [0.0; N];
        let mut hi = [0.0; N];
        for j in 0..N {
            for k in 0..3 {
                let (x, y) = (self.sb[j][k] * bx.lo[k], self.sb[j][k] * bx.hi[k]);
                lo[j] += x.min(y);
                hi[j] += x.max(y);
            }
            lo[j] += self.st[j];
            hi[j] += self.st[j];
        }
        Iv {
            lo,
            hi,
            changed: 0,
            hi_changed: 0,
        }
    }

    /// A child of A (node-specific work, 3.3).
    #[inline]
    pub fn child_a(&self, p: &Iv<N>, n: Node) -> Iv<N> {
        let (a, c) = (n.axis(), n.c as f64);
        shift(p, self.nz_a[a], n.is_upper(), |j| c * self.sa[j][a])
    }

    /// A child of B.
    #[inline]
    pub fn child_b(&self, p: &Iv<N>, n: Node) -> Iv<N> {
        let (i, c) = (n.axis(), n.c as f64);
        shift(p, self.nz_b[i], n.is_upper(), |j| c * self.sb[j][i])
    }

    /// A child of B with its shift read from the lookup table (3.2.2).
    #[inline]
    pub fn child_b_lut(&self, p: &Iv<N>, n: Node, code: u16, lut: &[f64]) -> Iv<N> {
        let base = n.axis() * N * LUT_SIZE + code as usize;
        shift(p, self.nz_b[n.axis()], n.is_upper(), |j| {
            lut[base + j * LUT_SIZE]
        })
    }

    /// The lookup tables of 3.2.2 for B: `lut[(i·N + j)·LUT_SIZE + q] = q·step_i·(s_j·b^i)`.
    pub fn fill_lut(&self, fly: &BoxTree, lut: &mut Vec<f64>) {
        let step = super::build::lut_step(&fly.root);
        lut.clear();
        for i in 0..3 {
            for j in 0..N {
                lut.extend((0..LUT_SIZE).map(|q| (q as f64 * step[i]) * self.sb[j][i]));
            }
        }
    }

    /// Every direction compared (the root pair).
    #[inline]
    pub fn overlap_full(&self, a: &Iv<N>, b: &Iv<N>) -> bool {
        (0..N).all(|j| !(a.hi[j] + self.margin[j] < b.lo[j] || b.hi[j] + self.margin[j] < a.lo[j]))
    }

    /// Only the comparisons involving a changed end; valid when the parents' intervals
    /// passed (which is how the traversal calls it).
    #[inline]
    pub fn overlap_changed(&self, a: &Iv<N>, b: &Iv<N>) -> bool {
        let mut c1 = a.hi_changed | (b.changed & !b.hi_changed);
        while c1 != 0 {
            let j = c1.trailing_zeros() as usize;
            c1 &= c1 - 1;
            if a.hi[j] + self.margin[j] < b.lo[j] {
                return false;
            }
        }
        let mut c2 = (a.changed & !a.hi_changed) | b.hi_changed;
        while c2 != 0 {
            let j = c2.trailing_zeros() as usize;
            c2 &= c2 - 1;
            if b.hi[j] + self.margin[j] < a.lo[j] {
                return false;
            }
        }
        true
    }
}

/// Moves one end of each interval in `mask` by `d(j)`: a lower box loses `c` at its upper
/// side (3.2.1: `h -= c·b_x` if `b_x > 0`, else `l -= c·b_x`), an upper box at its lower side.
#[inline(always)]
fn shift<const N: usize>(p: &Iv<N>, mask: u16, upper: bool, d: impl Fn(usize) -> f64) -> Iv<N> {
    let mut o = *p;
    o.changed = mask;
    o.hi_changed = 0;
    let mut m = mask;
    while m != 0 {
        let j = m.trailing_zeros() as usize;
        m &= m - 1;
        let v = d(j);
        if upper {
            if v > 0.0 {
                o.lo[j] += v;
            } else {
                o.hi[j] += v;
                o.hi_changed |= 1 << j;
            }
        } else if v > 0.0 {
            o.hi[j] -= v;
            o.hi_changed |= 1 << j;
        } else {
            o.lo[j] -= v;
        }
    }
    o
}

/// Test oracle: whether the boxes `a` (A's frame) and `b` (B's frame, placed by `pose`)
/// certainly intersect: on each of the complete set of candidate axes for a box and a
/// parallelepiped (A's face normals, B's face normals `b^j × b^k`, and `e_a × b^i`) the
/// intervals overlap by more than a bound on the f64 error, so by the separating axis
/// theorem no plane separates them.
pub fn certainly_overlap(a: &Aabb, b: &Aabb, pose: &Pose) -> bool {
    let r = &pose.r;
    let col = |i: usize| [r[0][i], r[1][i], r[2][i]];
    let mut axes: Vec<[f64; 3]> = (0..3).map(|j| direction(r, j)).collect();
    axes.extend((0..3).map(|i| cross(col((i + 1) % 3), col((i + 2) % 3))));
    axes.extend((6..15).map(|j| direction(r, j)));
    let corners_b: Vec<[f64; 3]> = (0..8)
        .map(|m| {
            let p = std::array::from_fn(|k| if m >> k & 1 == 1 { b.hi[k] } else { b.lo[k] });
            pose.apply(p)
        })
        .collect();
    let scale = a.magnitude() + b.magnitude() * 2.0 + pose.t.iter().map(|x| x.abs()).sum::<f64>();
    axes.iter().all(|s| {
        let mut la = 0.0;
        let mut ha = 0.0;
        for k in 0..3 {
            let (x, y) = (s[k] * a.lo[k], s[k] * a.hi[k]);
            la += x.min(y);
            ha += x.max(y);
        }
        let proj = corners_b.iter().map(|c| dot(*s, *c));
        let lb = proj.clone().fold(f64::INFINITY, f64::min);
        let hb = proj.fold(f64::NEG_INFINITY, f64::max);
        let tol = 1e-9 * scale * s.iter().map(|x| x.abs()).sum::<f64>();
        ha - lb > tol && hb - la > tol
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn verdicts(a: &Aabb, b: &Aabb, pose: &Pose) -> [bool; 3] {
        let lp = LocalPose::exact(pose);
        let f3 = PoseDirections::<3>::new(&lp, (a, 1), (b, 1));
        let f6 = PoseDirections::<6>::new(&lp, (a, 1), (b, 1));
        let f15 = PoseDirections::<15>::new(&lp, (a, 1), (b, 1));
        [
            f3.overlap_full(&f3.root_a(a), &f3.root_b(b)),
            f6.overlap_full(&f6.root_a(a), &f6.root_b(b)),
            f15.overlap_full(&f15.root_a(a), &f15.root_b(b)),
        ]
    }

    fn random_box(rng: &mut Rng) -> Aabb {
        let lo: [f64; 3] = std::array::from_fn(|_| rng.range(-1.0, 1.0) as f32 as f64);
        let hi = std::array::from_fn(|k| {
            if rng.below(8) == 0 {
                lo[k]
            } else {
                (lo[k] + rng.range(0.0, 1.5)) as f32 as f64
            }
        });
        Aabb { lo, hi }
    }

    #[test]
    fn single_boxes_never_culled_when_they_overlap() {
        let mut rng = Rng::new(11);
        let (mut sure, mut culled) = (0, [0; 3]);
        for i in 0..20000 {
            let (a, b) = (random_box(&mut rng), random_box(&mut rng));
            let q = if i % 4 == 0 {
                [
                    [1.0, 0.0, 0.0, 0.0],
                    [0.5f64.sqrt(), 0.0, 0.0, 0.5f64.sqrt()],
                ][i % 8 / 4]
            } else {
                rng.unit_quaternion()
            };
            // B's centre lands near A's centre.
            let rot = Pose::new(q, [0.0; 3]);
            let cb = rot.apply(std::array::from_fn(|k| (b.lo[k] + b.hi[k]) / 2.0));
            let t =
                std::array::from_fn(|k| (a.lo[k] + a.hi[k]) / 2.0 - cb[k] + rng.range(-1.0, 1.0));
            let pose = Pose::new(q, t);
            let v = verdicts(&a, &b, &pose);
            if certainly_overlap(&a, &b, &pose) {
                sure += 1;
                assert!(v.iter().all(|&x| x), "{a:?} {b:?} {pose:?}: {v:?}");
            }
            for k in 0..3 {
                culled[k] += !v[k] as usize;
            }
            // More axes, fewer false positives: SAT ⊆ SAT lite ⊆ align in "overlap".
            assert!(v[2] <= v[1] && v[1] <= v[0], "{v:?}");
        }
        assert!(
            sure > 3000 && culled.iter().all(|&c| c > 3000),
            "{sure} {culled:?}"
        );
    }

    #[test]
    fn exactly_touching_boxes_overlap() {
        // A quarter turn about z with an exact matrix: B = [0,1]³ lands on [1,2]×[0,1]×[0,1]
        // (face), [1,2]×[1,2]×[0,1] (edge), [1,2]×[1,2]×[1,2] (corner).
        let unit = Aabb {
            lo: [0.0; 3],
            hi: [1.0; 3],
        };
        let r = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
        for (t, away) in [
            ([2.0, 0.0, 0.0], [1e-6, 0.0, 0.0]),
            ([2.0, 1.0, 0.0], [0.0, 1e-6, 0.0]),
            ([2.0, 1.0, 1.0], [0.0, 0.0, 1e-6]),
            ([1.0, -1.0, -1.0], [0.0, -1e-6, 0.0]),
        ] {
            let pose = Pose {
                q: [0.5f64.sqrt(), 0.0, 0.0, 0.5f64.sqrt()],
                t,
                r,
            };
            assert_eq!(verdicts(&unit, &unit, &pose), [true; 3], "{t:?}");
            let apart = Pose {
                t: std::array::from_fn(|k| t[k] + away[k]),
                ..pose
            };
            assert_eq!(verdicts(&unit, &unit, &apart), [false; 3], "{t:?}");
        }
    }
}
