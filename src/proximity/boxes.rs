//! Certified oriented boxes of a k-DOP hierarchy's nodes, for the distance query's lower
//! bounds ([`super::distance`]): the second-order bound.
//!
//! Why: a k-DOP's slab along a fixed direction and a sphere's radius both grow with the
//! *first* power of a patch's width (a tilted flat patch of width `w` is `w·sin θ` thick
//! along a fixed axis, and `w/2` wide to a sphere), so two surfaces facing each other must
//! be descended until the leaves are thinner than the difference between their distance
//! and the minimum: on two wavy sheets 0.1 apart, millions of node pairs per pose. A box
//! along the patch's own principal axes is as thick as the patch's *curvature* makes it,
//! `κw²/8`, so its gap along its normal comes within that of the true distance levels
//! sooner. FCL and Coal get the same from their RSS volumes (Larsen, Gottschalk, Lin and
//! Manocha, *Fast Proximity Queries with Swept Sphere Volumes*, 1999, section 3: the
//! rectangle's thickness is the node's spread along the third principal axis). Our choice:
//! the OBB (Gottschalk, Lin and Manocha, *OBBTree*, 1996), whose separating-axis gaps are
//! cheap and certify simply, with the face axes *combined* ([`box_gap_lower`]), which gives
//! what the RSS's rectangle distance gives for patches side by side across a gap: the
//! hypotenuse, not the larger leg.
//!
//! # What is certified
//!
//! Each node's box is [`Obb::fit`] of its triangles' corners as written (the fit's proof:
//! every real corner, hence every point of the triangles, lies in the generator box `c +
//! Σᵢ sᵢ·aᵢ`, `|sᵢ| ≤ hᵢ`, for the stored numbers exactly, with `|aᵢ·aⱼ − δᵢⱼ| ≤ 2⁻⁴⁰`).
//!
//! B's box moves with the pose ([`PosedBox::new`]): `c' = fl(R·c + t)` and `a'ᵢ =
//! fl(R·aᵢ)`, the evaluation of [`crate::pose::Pose::apply`]. Per coordinate it computes
//! `((r₀x₀ + r₁x₁) + r₂x₂) + t`, within `γ₄·(Σ|rⱼxⱼ| + |t|)` of the real value (`γ₄ =
//! 4u/(1 − 4u)`, `u = 2⁻⁵³`; products of entries at least 2⁻⁶⁰ and coordinates at least
//! 2⁻²⁰⁰ are normal numbers). As a Euclidean length, `|fl(R·x + t) − (R·x + t)| ≤
//! 2⁻⁵⁰·(ρ·‖x‖₁ + T)` with `ρ = max |rᵢⱼ|` and `T = max |tᵢ|` (`√3·γ₄ < 8u = 2⁻⁵⁰`), and
//! without `T` for `fl(R·aᵢ)`. A real point `R·v + t` of B's node is `c' + Σᵢ sᵢa'ᵢ + w`
//! with `|w| ≤ |R·c + t − c'| + Σᵢ hᵢ|R·aᵢ − a'ᵢ|`, and the posed corner the exact tests
//! read, `fl(R·v + t)`, lies within `E = 2⁻⁵⁰·(ρ·L + T)` more, `L` the sum over the axes
//! of B's largest coordinate magnitude ([`NodeBoxes::reach`], at least `‖v‖₁` for every
//! corner). So every point of B's posed triangles (convex combinations of posed corners)
//! lies within `e_B = E + 2⁻⁵⁰·(ρ‖c‖₁ + T) + 2⁻⁵⁰·ρ·Σᵢhᵢ‖aᵢ‖₁` of the generator box
//! `(c', a'ᵢ, hᵢ)`, `e_B` rounded up. Nothing here asks `R` to be orthonormal: a matrix
//! written into [`crate::pose::Pose::r`] as it stands is covered.
//!
//! **One direction.** For `p` in A's box, `z` in B's posed generator box and any direction
//! `L ≠ 0`, with `D = c' − c_A`: `±(z − p)·L ≥ ±D·L − Σᵢ h^Aᵢ|aᵢ·L| − Σᵢ h^Bᵢ|a'ᵢ·L|`, so
//! `|(z − p)·L| ≥ N(L) = |D·L| − Σᵢ h^Aᵢ|aᵢ·L| − Σᵢ h^Bᵢ|a'ᵢ·L|` when that is positive,
//! and (Cauchy–Schwarz) `|z − p| ≥ N(L)/|L|`. A point `q` of B's posed triangles is such a
//! `z` moved by at most `e_B`, so `|q − p| ≥ N(L)/|L| − e_B`. For A's own axis `aⱼ`,
//! `Σᵢ h^Aᵢ|aᵢ·aⱼ| ≤ h^Aⱼ + 2⁻⁴⁰·Σᵢ h^Aᵢ` (the Gram bound) may replace the first sum.
//!
//! **Combined axes.** For three directions `L₀, L₁, L₂` (the rows of `E`), `y = E(z − p)`
//! has `|y|² ≤ λ_max(EEᵀ)·|z − p|²`, and `λ_max(EEᵀ)` is at most the largest row sum of
//! `|EEᵀ|` (Gershgorin). So `|z − p| ≥ √(Σₖ N(Lₖ)₊² / λ)` for any `λ ≥` that row sum: for
//! A's axes `λ = 1 + 3·2⁻⁴⁰`, for B's posed axes the computed row sum plus `2⁻⁴⁸` per row
//! (each computed entry `a'ᵢ·a'ⱼ` errs by at most `γ₃|a'ᵢ||a'ⱼ| ≤ γ₃·m`, `m` the largest
//! computed `|a'ᵢ|²` (exact up to `γ₃` itself), so `2⁻⁴⁸·m` per row covers three).
//!
//! **Rounding.** `D̂ = fl(c' − c_A)` is within `u·|D̂ₖ|·(1 + 2u)` of `D` per coordinate (`u =
//! 2⁻⁵³`); each computed dot product `x·L` is within `γ₃·‖x‖₁‖L‖∞` of the real one; the
//! products by `hᵢ` and the seven-term sum add at most `γ₇` relative to the sum of the
//! terms' magnitudes. All told the computed `N̂` is within `γ₁₂·S < 2⁻⁴⁸·S` of `N(L)`, with
//! `S = (‖D̂‖₁ + K_A + K_B)·‖L‖∞`, `K = Σᵢ hᵢ‖aᵢ‖₁` (`γ₁₂ = 12u/(1 − 12u)`; the extra `2u`
//! of the Gram shortcut's two additions and `D̂`'s `u` are inside it). The margin taken is
//! `fl(fl(S)·2⁻⁴⁶·‖L‖∞)` (`‖L‖∞` bounded above), at least `2⁻⁴⁸·S + 2⁻⁵²·S` whatever its
//! three roundings, and `ĝ = fl(N̂ − margin)` is then below `N(L)`: the subtraction errs by
//! at most `u·|ĝ| ≤ u·S` (`N̂ ≤ |D̂·L|(1 + γ₃) ≤ S(1 + γ₃)`). A combined bound
//! `fl(√(fl(Σ ĝₖ²)·fl(1/λ)))` errs by at most `8u` relative (three squares, two sums, a
//! product or quotient, the square root), and the result `fl(that·(1 − 2⁻⁴⁶) − e_B)` by
//! `u` more of a smaller number, so the factor `1 − 2⁻⁴⁶` covers them. A single direction
//! divides by `|L|↑`, the computed length times `1 + 2⁻⁴⁹` (six correctly rounded
//! operations, `(1 + u)⁶ < 1 + 2⁻⁴⁹`), rounding the safe way ([`certify`]).

use super::{add_up, mul_up, sub_down};
use crate::bvh::Bvh;
use crate::geom::{cross, dot, sub};
// Arrow up: the node boxes are the OBB hierarchy's own fit (`Obb::fit`'s containment
// proof, the moments merged bottom-up), reused rather than restated; the fit reads
// nothing of the OBB scenes above it.
use crate::obb::fit::{self, Obb};
use crate::pose::Pose;
use rayon::prelude::*;

type P3 = [f64; 3];

/// `2⁻⁵⁰`: the pose's rounding per unit of `ρ‖x‖₁ + T` (module docs).
const TWO_M50: f64 = 1.0 / 1_125_899_906_842_624.0;
/// `2⁻⁴⁶`: the margin of a computed gap per unit of `S` (module docs, "Rounding").
const TWO_M46: f64 = 1.0 / 70_368_744_177_664.0;
/// `2⁻⁴⁶·(1 + 2⁻⁴⁰)`: the same for one of A's axes, `‖aⱼ‖∞ ≤ |aⱼ| ≤ 1 + 2⁻⁴¹`.
const MARGIN_A: f64 = TWO_M46 * (1.0 + 1.0 / 1_099_511_627_776.0);
/// `2⁻⁴⁸`: the rounding of a row of B's computed Gram matrix per unit of its largest
/// diagonal entry (module docs).
const TWO_M48: f64 = 1.0 / 281_474_976_710_656.0;
/// `2⁻⁴⁰`: the Gram tolerance of a fitted box's axes ([`crate::obb::fit::AXES_TOLERANCE`]).
const TWO_M40: f64 = fit::AXES_TOLERANCE;
/// `1/(1 + 3·2⁻⁴⁰)` rounded down: `1/λ` for A's axes.
const INV_LAMBDA_A: f64 = 1.0 - 4.0 / 1_099_511_627_776.0;
/// `1 − 2⁻⁴⁶`: covers the roundings of a combined bound (module docs, "Rounding").
const COMBINED_DOWN: f64 = 1.0 - TWO_M46;
/// `1 + 2⁻⁴⁹`: covers the relative error of a computed Euclidean length.
const LENGTH_UP: f64 = 1.0 + 1.0 / 562_949_953_421_312.0;

fn norm1(v: &P3) -> f64 {
    add_up(add_up(v[0].abs(), v[1].abs()), v[2].abs())
}

fn norm_inf(v: &P3) -> f64 {
    v[0].abs().max(v[1].abs()).max(v[2].abs())
}

/// `K = Σᵢ hᵢ‖aᵢ‖₁`, rounded up.
fn spread(axes: &[P3; 3], h: &[f64; 3]) -> f64 {
    (0..3).fold(0.0, |k, i| add_up(k, mul_up(h[i], norm1(&axes[i]))))
}

/// Four f64 lanes: three used, the fourth carrying a field beside them (what it holds is
/// said where it is stored; the box test never reads a computed fourth lane). Why: the
/// test's vectors along three axes are one AVX register (two SSE2 ones on the baseline), and
/// every lane is the scalar operation on the same operands in the same order (products as
/// `geom::dot` forms them, up to exact commutation), so each value equals the scalar
/// evaluation the module docs bound: the proofs read the numbers, not how they are laid out.
type F4 = [f64; 4];

#[inline(always)]
fn splat(x: f64) -> F4 {
    [x; 4]
}

#[inline(always)]
fn add4(a: F4, b: F4) -> F4 {
    std::array::from_fn(|k| a[k] + b[k])
}

#[inline(always)]
fn sub4(a: F4, b: F4) -> F4 {
    std::array::from_fn(|k| a[k] - b[k])
}

#[inline(always)]
fn mul4(a: F4, b: F4) -> F4 {
    std::array::from_fn(|k| a[k] * b[k])
}

#[inline(always)]
fn abs4(a: F4) -> F4 {
    a.map(f64::abs)
}

/// Lane `i`: `(m₀ᵢx₀ + m₁ᵢx₁) + m₂ᵢx₂`, the dot product of row `i` of the matrix whose
/// columns are `m` with `x`, summed as [`dot`] sums.
#[inline(always)]
fn lin3(m: &[F4; 3], x: P3) -> F4 {
    add4(
        add4(mul4(m[0], splat(x[0])), mul4(m[1], splat(x[1]))),
        mul4(m[2], splat(x[2])),
    )
}

/// Row `i` of the matrix whose columns are `m` (lanes moved, not computed).
#[inline(always)]
fn row(m: &[F4; 3], i: usize) -> P3 {
    [m[0][i], m[1][i], m[2][i]]
}

/// `Σ gⱼ²` over the positive `gⱼ` of the three lanes, summed in lane order.
#[inline(always)]
fn sum_sq_positive(g: F4) -> f64 {
    let sq = g.map(|x| if x > 0.0 { x * x } else { 0.0 });
    (sq[0] + sq[1]) + sq[2]
}

/// A node's box with what the bound reads beside it, laid out by coordinate for the lanes
/// of [`box_gap_lower`] (136 bytes, as the box and its two numbers were by axis).
#[derive(Debug, Clone, Copy)]
pub struct NodeBox {
    /// `m[k] = [a₀ₖ, a₁ₖ, a₂ₖ, cₖ]`: the axes' `k`-th coordinates (lane `i`: axis `i`) and
    /// the centre's.
    m: [F4; 3],
    /// `[h₀, h₁, h₂, K]`: the half extents and `K = Σᵢ hᵢ‖aᵢ‖₁`, rounded up.
    hk: F4,
    /// `Σᵢ hᵢ`, rounded up (the Gram shortcut's term, and the descent rule's size).
    pub size: f64,
}

impl NodeBox {
    /// The box `obb` (a fit's: the module docs' "What is certified").
    pub fn new(obb: &Obb) -> NodeBox {
        let (a, c, h) = (&obb.axes, &obb.c, &obb.h);
        NodeBox {
            m: std::array::from_fn(|k| [a[0][k], a[1][k], a[2][k], c[k]]),
            hk: [h[0], h[1], h[2], spread(a, h)],
            size: add_up(add_up(h[0], h[1]), h[2]),
        }
    }

    /// The box.
    pub fn obb(&self) -> Obb {
        Obb {
            c: self.centre(),
            axes: std::array::from_fn(|i| row(&self.m, i)),
            h: [self.hk[0], self.hk[1], self.hk[2]],
        }
    }

    #[inline(always)]
    fn centre(&self) -> P3 {
        row(&self.m, 3)
    }

    /// `K = Σᵢ hᵢ‖aᵢ‖₁`, rounded up.
    #[inline(always)]
    fn spread(&self) -> f64 {
        self.hk[3]
    }
}

/// One certified box per node of a hierarchy, in node order (corners as written: B's
/// before the pose).
#[derive(Debug, Clone)]
pub struct NodeBoxes {
    /// The boxes.
    pub nodes: Vec<NodeBox>,
    /// `L`: the sum over the three axes of the largest coordinate magnitude of a corner.
    pub reach: f64,
}

impl NodeBoxes {
    /// The boxes of `bvh`'s nodes: axes from the area-weighted moments merged bottom-up
    /// (`crate::obb::fit::node_moments`, one pass over the triangles), centre and proved
    /// extents from each node's own corners, as the OBB hierarchy fits them.
    pub fn new<const H: usize>(bvh: &Bvh<H>) -> NodeBoxes {
        let corners: Vec<[P3; 3]> = (0..bvh.tris.len())
            .into_par_iter()
            .map(|p| bvh.tris.corners_f64(p))
            .collect();
        let mut big = [0.0f64; 3];
        for v in corners.iter().flatten() {
            for k in 0..3 {
                big[k] = big[k].max(v[k].abs());
            }
        }
        let ranges = bvh.node_ranges();
        let moments = fit::node_moments(bvh, &ranges, &corners);
        let nodes = ranges
            .par_iter()
            .zip(&moments)
            .map(|(&(s, e), m)| {
                let tris = &corners[s as usize..e as usize];
                let obb = if tris.is_empty() {
                    // A tree without triangles: never read (the query returns first).
                    Obb {
                        c: [0.0; 3],
                        axes: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                        h: [0.0; 3],
                    }
                } else {
                    let axes = fit::checked(fit::node_axes(m, tris));
                    let c = Obb::centre(&axes, tris);
                    Obb {
                        c,
                        axes,
                        h: Obb::extents(&axes, c, tris),
                    }
                };
                NodeBox::new(&obb)
            })
            .collect();
        NodeBoxes {
            nodes,
            reach: add_up(add_up(big[0], big[1]), big[2]),
        }
    }

    /// The axis-aligned box around the root's oriented box (what
    /// [`crate::pose::step_reach`] measures a step by; a guide, not a bound).
    pub fn root_box(&self) -> ([f64; 3], [f64; 3]) {
        let Some(o) = self.nodes.first().map(NodeBox::obb) else {
            return ([0.0; 3], [0.0; 3]);
        };
        let r: [f64; 3] =
            std::array::from_fn(|k| (0..3).map(|i| o.h[i] * o.axes[i][k].abs()).sum());
        (
            std::array::from_fn(|k| o.c[k] - r[k]),
            std::array::from_fn(|k| o.c[k] + r[k]),
        )
    }
}

/// How one pose moves B's boxes: `ρ`, `T` and `E` (module docs).
#[derive(Debug, Clone, Copy)]
pub struct BoxPose {
    rho: f64,
    t: f64,
    e: f64,
}

impl BoxPose {
    /// For `pose` and B's corners' reach `L` ([`NodeBoxes::reach`]).
    pub fn new(pose: &Pose, reach: f64) -> BoxPose {
        let rho = pose.r.iter().flatten().fold(0.0f64, |m, e| m.max(e.abs()));
        let t = pose.t.iter().fold(0.0f64, |m, e| m.max(e.abs()));
        BoxPose {
            rho,
            t,
            e: mul_up(add_up(mul_up(rho, reach), t), TWO_M50),
        }
    }
}

/// B's box after a pose, in A's frame, with the slack `e_B` and what the combined bound
/// along its axes reads (module docs), laid out by coordinate as [`NodeBox`] is.
#[derive(Debug, Clone, Copy, Default, bytemuck::Zeroable)]
pub struct PosedBox {
    /// `m[k] = [a'₀ₖ, a'₁ₖ, a'₂ₖ, c'ₖ]`: the posed axes' `k`-th coordinates and the posed
    /// centre's.
    m: [F4; 3],
    /// `[h₀, h₁, h₂, K']`: the half extents and `K` of the posed axes.
    hk: F4,
    /// `[o₀, o₁, o₂, 1/λ]`: `oⱼ = Σᵢ hᵢ|a'ᵢ·a'ⱼ|`, the box's own reach along its axis `j`;
    /// `λ ≥ λ_max(E'E'ᵀ)` for the posed axes `E'` (rows), by Gershgorin, `1/λ` rounded down.
    own: F4,
    /// `[2⁻⁴⁶‖a'₀‖∞, 2⁻⁴⁶‖a'₁‖∞, 2⁻⁴⁶‖a'₂‖∞, e_B]`: the margin of a gap along `a'ⱼ` per unit
    /// of `S`, and the slack.
    margin: F4,
}

impl PosedBox {
    /// B's box `b` moved by `pose` (`bp` its [`BoxPose`]).
    #[inline(always)]
    pub fn new(b: &NodeBox, pose: &Pose, bp: &BoxPose) -> PosedBox {
        let r = &pose.r;
        let rot = |a: &P3| -> P3 {
            std::array::from_fn(|i| r[i][0] * a[0] + r[i][1] * a[1] + r[i][2] * a[2])
        };
        let o = b.obb();
        let axes = o.axes.map(|a| rot(&a));
        let e_c = mul_up(add_up(mul_up(bp.rho, norm1(&o.c)), bp.t), TWO_M50);
        let e_a = mul_up(mul_up(bp.rho, b.spread()), TWO_M50);
        let gram: [[f64; 3]; 3] =
            std::array::from_fn(|i| std::array::from_fn(|j| dot(axes[i], axes[j]).abs()));
        let own: [f64; 3] = std::array::from_fn(|j| {
            o.h[0] * gram[0][j] + o.h[1] * gram[1][j] + o.h[2] * gram[2][j]
        });
        let m = gram[0][0].max(gram[1][1]).max(gram[2][2]);
        let lambda = (0..3)
            .map(|j| (0..3).fold(mul_up(m, TWO_M48), |acc, i| add_up(acc, gram[i][j])))
            .fold(0.0f64, f64::max);
        let c = pose.apply(o.c);
        let margin = axes.map(|a| norm_inf(&a) * TWO_M46);
        let slack = add_up(add_up(bp.e, e_c), e_a);
        PosedBox {
            m: std::array::from_fn(|k| [axes[0][k], axes[1][k], axes[2][k], c[k]]),
            hk: [o.h[0], o.h[1], o.h[2], spread(&axes, &o.h)],
            own: [own[0], own[1], own[2], (1.0 / lambda).next_down()],
            margin: [margin[0], margin[1], margin[2], slack],
        }
    }

    #[inline(always)]
    fn centre(&self) -> P3 {
        row(&self.m, 3)
    }

    /// `e_B`.
    #[inline(always)]
    fn slack(&self) -> f64 {
        self.margin[3]
    }

    /// `K` of the posed axes.
    #[inline(always)]
    fn spread(&self) -> f64 {
        self.hk[3]
    }

    /// `1/λ` of the posed axes (rounded down).
    #[inline(always)]
    fn inv_lambda(&self) -> f64 {
        self.own[3]
    }
}

/// A lower bound of the distance between any point of A's node `a` and any point of B's
/// posed node `b`, 0 when nothing separates them: the larger of
///
/// - the gaps along A's three axes combined (module docs, "Combined axes": two patches
///   side by side across a gap are bounded by the hypotenuse, not the larger leg), and the
///   same along B's three axes;
/// - the single most separating of the nine cross products `aᵢ × a'ⱼ` of the separating
///   axis test (Gottschalk, Lin and Manocha, 1996, section 4) and the centres' direction,
///   estimated in plain f64 in A's frame (`tᵢ = D·aᵢ`, `Cᵢⱼ = aᵢ·a'ⱼ`, both boxes taken as
///   orthonormal) and certified ([`certify`]) only if it beats the combined bound: any
///   direction gives a bound, so the choice needs no proof. Skipped when the combined
///   bound already exceeds `cap`, the most the caller can use.
///
/// Computed three axes at a time (`F4`'s lanes: the same numbers as one axis at a time,
/// tested against that evaluation bit for bit), and inlined into its callers, so that it
/// runs in their instruction set ([`crate::isa`]). Measured (2026-11-29, `distance
/// --threads 1`, one core; `docs/notebook/proximity.md`, "Sitting 6"): the bunny at 3
/// extents 154 → 131 ms for its 500 poses, the nested spheres at α = 0.1 1,658 → 1,430
/// ms, the wavy grids 0.1 apart 453 → 375 ms; node pairs unchanged.
#[inline(always)]
pub fn box_gap_lower(a: &NodeBox, b: &PosedBox, cap: f64) -> f64 {
    let d = sub(b.centre(), a.centre());
    // Lane j: tⱼ = aⱼ·D. C by columns (lane i of `ccol[k]`: aᵢ·a'ₖ) and by rows (lane j of
    // `crow[i]`: aᵢ·a'ⱼ): the same numbers twice, each the scalar dot product.
    let t = lin3(&a.m, d);
    let ccol: [F4; 3] = std::array::from_fn(|k| lin3(&a.m, row(&b.m, k)));
    let crow: [F4; 3] = std::array::from_fn(|i| lin3(&b.m, row(&a.m, i)));
    let (acol, arow) = (ccol.map(abs4), crow.map(abs4));
    let (ha, hb) = (a.hk, b.hk);
    let s = (d[0].abs() + d[1].abs() + d[2].abs()) + a.spread() + b.spread();
    // A's axes: |tⱼ| − (hⱼ + 2⁻⁴⁰Σh) − Σₖ h'ₖ|Cⱼₖ| − margin.
    let reach_b = add4(
        add4(mul4(splat(hb[0]), acol[0]), mul4(splat(hb[1]), acol[1])),
        mul4(splat(hb[2]), acol[2]),
    );
    let g = sub4(
        sub4(sub4(abs4(t), add4(ha, splat(TWO_M40 * a.size))), reach_b),
        splat(s * MARGIN_A),
    );
    let sum_a = sum_sq_positive(g) * INV_LAMBDA_A;
    // B's axes: |t'ⱼ| − oⱼ − Σᵢ hᵢ|Cᵢⱼ| − S·margin'ⱼ.
    let tb = lin3(&b.m, d);
    let reach_a = add4(
        add4(mul4(splat(ha[0]), arow[0]), mul4(splat(ha[1]), arow[1])),
        mul4(splat(ha[2]), arow[2]),
    );
    let g = sub4(
        sub4(sub4(abs4(tb), b.own), reach_a),
        mul4(splat(s), b.margin),
    );
    // The larger of the two combined bounds: one square root (`√max = max √`, both
    // correctly rounded and monotone) and one branch.
    let est = sum_a.max(sum_sq_positive(g) * b.inv_lambda()).sqrt();
    let combined = (est * COMBINED_DOWN - b.slack()).max(0.0);
    if combined > cap {
        return combined;
    }
    // The cross products aᵢ × a'ⱼ, lane j of row i, as distances `n/√l2`: the most
    // separating is certified. Lanes compare against `est` first; only when some beats it
    // are the nine visited in order (the scalar selection, the same choice).
    let hb1 = [hb[1], hb[2], hb[0], 0.0];
    let hb2 = [hb[2], hb[0], hb[1], 0.0];
    let (mut n9, mut l9) = ([[0.0; 4]; 3], [[0.0; 4]; 3]);
    let e2 = est * est;
    let mut any = false;
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let r = arow[i];
        let (r1, r2) = ([r[1], r[2], r[0], 0.0], [r[2], r[0], r[1], 0.0]);
        let n = sub4(
            sub4(
                abs4(sub4(
                    mul4(splat(t[i2]), crow[i1]),
                    mul4(splat(t[i1]), crow[i2]),
                )),
                add4(mul4(splat(ha[i1]), arow[i2]), mul4(splat(ha[i2]), arow[i1])),
            ),
            add4(mul4(hb1, r2), mul4(hb2, r1)),
        );
        let l2 = sub4(splat(1.0), mul4(crow[i], crow[i]));
        for j in 0..3 {
            // `&`, not `&&`: three compares and no branch per lane.
            any |= (n[j] > 0.0) & (l2[j] > 1e-9) & (n[j] * n[j] > e2 * l2[j]);
        }
        (n9[i], l9[i]) = (n, l2);
    }
    let mut best = (est, usize::MAX);
    if any {
        for k in 0..9 {
            let (n, l2) = (n9[k / 3][k % 3], l9[k / 3][k % 3]);
            if n > 0.0 && l2 > 1e-9 && n * n > best.0 * best.0 * l2 {
                best = (n / l2.sqrt(), k);
            }
        }
    }
    let dd = dot(d, d);
    if dd > 0.0 {
        let n = dd
            - (ha[0] * t[0].abs() + ha[1] * t[1].abs() + ha[2] * t[2].abs())
            - (hb[0] * tb[0].abs() + hb[1] * tb[1].abs() + hb[2] * tb[2].abs());
        if n > 0.0 && n * n > best.0 * best.0 * dd {
            best = (n / dd.sqrt(), 9);
        }
    }
    let l = match best.1 {
        k @ 0..9 => cross(row(&a.m, k / 3), row(&b.m, k % 3)),
        9 => d,
        _ => return combined,
    };
    certify(a, b, &d, &l).max(combined)
}

/// The certified gap along `l` (module docs, "One direction" and "Rounding"): `ĝ/|L|↑ − e_B`
/// rounded down, with `ĝ = N̂ − margin`, `N̂ = |D̂·L| − Σᵢ h^Aᵢ|aᵢ·L| − Σᵢ h^Bᵢ|a'ᵢ·L|`
/// computed in f64; 0 when it proves nothing.
#[inline(always)]
pub fn certify(a: &NodeBox, b: &PosedBox, d: &P3, l: &P3) -> f64 {
    // Lane i: |aᵢ·L|, |a'ᵢ·L|.
    let (va, vb) = (abs4(lin3(&a.m, *l)), abs4(lin3(&b.m, *l)));
    let ra = a.hk[0] * va[0] + a.hk[1] * va[1] + a.hk[2] * va[2];
    let rb = b.hk[0] * vb[0] + b.hk[1] * vb[1] + b.hk[2] * vb[2];
    let s = (d[0].abs() + d[1].abs() + d[2].abs()) + a.spread() + b.spread();
    let g = dot(*d, *l).abs() - ra - rb - s * TWO_M46 * norm_inf(l);
    if g <= 0.0 || g.is_nan() {
        return 0.0;
    }
    let len = mul_up(dot(*l, *l).sqrt(), LENGTH_UP);
    sub_down((g / len).next_down(), b.slack()).max(0.0)
}

#[cfg(test)]
mod tests;
