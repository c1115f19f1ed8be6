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

/// A node's box with what the bound reads beside it (one cache line and a bit).
#[derive(Debug, Clone, Copy)]
pub struct NodeBox {
    /// The box.
    pub obb: Obb,
    /// `K = Σᵢ hᵢ‖aᵢ‖₁`, rounded up.
    pub spread: f64,
    /// `Σᵢ hᵢ`, rounded up (the Gram shortcut's term, and the descent rule's size).
    pub size: f64,
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
                NodeBox {
                    spread: spread(&obb.axes, &obb.h),
                    size: add_up(add_up(obb.h[0], obb.h[1]), obb.h[2]),
                    obb,
                }
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
        let Some(o) = self.nodes.first().map(|n| &n.obb) else {
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
/// along its axes reads (module docs).
#[derive(Debug, Clone, Copy, Default, bytemuck::Zeroable)]
pub struct PosedBox {
    c: P3,
    axes: [P3; 3],
    h: [f64; 3],
    /// `K` of the posed axes.
    spread: f64,
    /// `Σᵢ hᵢ|a'ᵢ·a'ⱼ|` for each `j`: the box's own reach along its axis `j`.
    own: [f64; 3],
    /// `2⁻⁴⁶·‖a'ⱼ‖∞`: the margin of a gap along `a'ⱼ` per unit of `S`.
    margin: [f64; 3],
    /// `1/λ`, `λ ≥ λ_max(E'E'ᵀ)` for the posed axes `E'` (rows), by Gershgorin, rounded
    /// down.
    inv_lambda: f64,
    /// `e_B`.
    slack: f64,
}

impl PosedBox {
    /// B's box `b` moved by `pose` (`bp` its [`BoxPose`]).
    pub fn new(b: &NodeBox, pose: &Pose, bp: &BoxPose) -> PosedBox {
        let r = &pose.r;
        let rot = |a: &P3| -> P3 {
            std::array::from_fn(|i| r[i][0] * a[0] + r[i][1] * a[1] + r[i][2] * a[2])
        };
        let o = &b.obb;
        let axes = o.axes.map(|a| rot(&a));
        let e_c = mul_up(add_up(mul_up(bp.rho, norm1(&o.c)), bp.t), TWO_M50);
        let e_a = mul_up(mul_up(bp.rho, b.spread), TWO_M50);
        let gram: [[f64; 3]; 3] =
            std::array::from_fn(|i| std::array::from_fn(|j| dot(axes[i], axes[j]).abs()));
        let own = std::array::from_fn(|j| {
            o.h[0] * gram[0][j] + o.h[1] * gram[1][j] + o.h[2] * gram[2][j]
        });
        let m = gram[0][0].max(gram[1][1]).max(gram[2][2]);
        let lambda = (0..3)
            .map(|j| (0..3).fold(mul_up(m, TWO_M48), |acc, i| add_up(acc, gram[i][j])))
            .fold(0.0f64, f64::max);
        PosedBox {
            c: pose.apply(o.c),
            own,
            margin: axes.map(|a| norm_inf(&a) * TWO_M46),
            inv_lambda: (1.0 / lambda).next_down(),
            axes,
            h: o.h,
            spread: spread(&axes, &o.h),
            slack: add_up(add_up(bp.e, e_c), e_a),
        }
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
#[inline]
pub fn box_gap_lower(a: &NodeBox, b: &PosedBox, cap: f64) -> f64 {
    let (oa, d) = (&a.obb, sub(b.c, a.obb.c));
    let t = oa.axes.map(|x| dot(x, d));
    // c[i][j] = aᵢ·a'ⱼ, and its magnitudes.
    let c: [[f64; 3]; 3] =
        std::array::from_fn(|i| std::array::from_fn(|j| dot(oa.axes[i], b.axes[j])));
    let ac = c.map(|r| r.map(f64::abs));
    let (ha, hb) = (&oa.h, &b.h);
    let s = (d[0].abs() + d[1].abs() + d[2].abs()) + a.spread + b.spread;
    let margin_a = s * MARGIN_A;
    let mut sum_a = 0.0f64;
    for j in 0..3 {
        let g = t[j].abs()
            - (ha[j] + TWO_M40 * a.size)
            - (hb[0] * ac[j][0] + hb[1] * ac[j][1] + hb[2] * ac[j][2])
            - margin_a;
        if g > 0.0 {
            sum_a += g * g;
        }
    }
    let est_a = (sum_a * INV_LAMBDA_A).sqrt();
    let combined_a = (est_a * COMBINED_DOWN - b.slack).max(0.0);
    if combined_a > cap {
        return combined_a;
    }
    let tb = b.axes.map(|x| dot(x, d));
    let mut sum_b = 0.0f64;
    for j in 0..3 {
        let g = tb[j].abs()
            - b.own[j]
            - (ha[0] * ac[0][j] + ha[1] * ac[1][j] + ha[2] * ac[2][j])
            - s * b.margin[j];
        if g > 0.0 {
            sum_b += g * g;
        }
    }
    let est = est_a.max((sum_b * b.inv_lambda).sqrt());
    let combined = (est * COMBINED_DOWN - b.slack).max(0.0);
    if combined > cap {
        return combined;
    }
    let dd = dot(d, d);
    // The cross products and the centres' direction: the best estimate, as a distance.
    let mut best = (est, usize::MAX);
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let n = (t[i2] * c[i1][j] - t[i1] * c[i2][j]).abs()
                - (ha[i1] * ac[i2][j] + ha[i2] * ac[i1][j])
                - (hb[j1] * ac[i][j2] + hb[j2] * ac[i][j1]);
            let l2 = 1.0 - c[i][j] * c[i][j];
            if n > 0.0 && l2 > 1e-9 && n * n > best.0 * best.0 * l2 {
                best = (n / l2.sqrt(), 3 * i + j);
            }
        }
    }
    if dd > 0.0 {
        let n = dd
            - (ha[0] * t[0].abs() + ha[1] * t[1].abs() + ha[2] * t[2].abs())
            - (hb[0] * tb[0].abs() + hb[1] * tb[1].abs() + hb[2] * tb[2].abs());
        if n > 0.0 && n * n > best.0 * best.0 * dd {
            best = (n / dd.sqrt(), 9);
        }
    }
    let l = match best.1 {
        k @ 0..9 => cross(oa.axes[k / 3], b.axes[k % 3]),
        9 => d,
        _ => return combined,
    };
    certify(a, b, &d, &l).max(combined)
}

/// The certified gap along `l` (module docs, "One direction" and "Rounding"): `ĝ/|L|↑ − e_B`
/// rounded down, with `ĝ = N̂ − margin`, `N̂ = |D̂·L| − Σᵢ h^Aᵢ|aᵢ·L| − Σᵢ h^Bᵢ|a'ᵢ·L|`
/// computed in f64; 0 when it proves nothing.
#[inline]
pub fn certify(a: &NodeBox, b: &PosedBox, d: &P3, l: &P3) -> f64 {
    let oa = &a.obb;
    let ra = oa.h[0] * dot(oa.axes[0], *l).abs()
        + oa.h[1] * dot(oa.axes[1], *l).abs()
        + oa.h[2] * dot(oa.axes[2], *l).abs();
    let rb = b.h[0] * dot(b.axes[0], *l).abs()
        + b.h[1] * dot(b.axes[1], *l).abs()
        + b.h[2] * dot(b.axes[2], *l).abs();
    let s = (d[0].abs() + d[1].abs() + d[2].abs()) + a.spread + b.spread;
    let g = dot(*d, *l).abs() - ra - rb - s * TWO_M46 * norm_inf(l);
    if g <= 0.0 || g.is_nan() {
        return 0.0;
    }
    let len = mul_up(dot(*l, *l).sqrt(), LENGTH_UP);
    sub_down((g / len).next_down(), b.slack).max(0.0)
}

#[cfg(test)]
mod tests;
