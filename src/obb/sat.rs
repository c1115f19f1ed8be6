//! The OBB overlap test: the 15-axis separating axis test of Gottschalk, Lin and Manocha
//! (`004_d8337bc93db14070.txt`, "OBB Overlapping Test in 3D": A's 3 axes, B's 3 axes, their
//! 9 cross products), with the pose folded in: B's box is posed in f64 per node pair (its
//! axes `R·bⱼ` and centre `Pose::apply`-style `R·c + t_L`, in A's local frame), nothing is
//! tumbled. [`PosedObb`] keeps B's posed box for the pose's later tests (Nu counts them).
//!
//! Conservative in floating point: "separated" is answered only when the *real* posed
//! boxes, widened for the truth's rounding, are disjoint; a rounding error can never
//! separate boxes that touch. The proof is on [`disjoint`].

use super::fit::Obb;
use crate::frame::LocalPose;
use crate::geom::{dot, sub};

const TWO_M32: f64 = 1.0 / (1u64 << 32) as f64;
const TWO_M37: f64 = 1.0 / (1u64 << 37) as f64;
const TWO_M46: f64 = 1.0 / (1u64 << 46) as f64;
const TWO_M47: f64 = 1.0 / (1u64 << 47) as f64;

/// What the node tests need of one pose: the local pose, and whether its f64 matrix is a
/// rotation to working precision (`‖RᵀR − I‖₂ ≤ 2⁻⁴⁴`, true of every [`crate::Pose::new`]).
/// A matrix that is not (a hand-made `Pose` literal) makes every test answer "may overlap":
/// the proofs below assume it.
#[derive(Debug, Clone, Copy)]
pub struct PoseCheck {
    /// The pose from B's local frame into A's, with its error bound.
    pub lp: LocalPose,
    /// `‖RᵀR − I‖₂ ≤ 2⁻⁴⁴` proved from the computed Gram matrix.
    pub rotation: bool,
    /// `‖t_L‖∞`.
    t_inf: f64,
}

impl PoseCheck {
    /// Checks the rotation: the computed `ĝ = fl(rₖ·rₗ)` (columns) errs by at most
    /// `γ₃·1.02 < 4·2⁻⁵³`, so `max|ĝ − δ| ≤ 2⁻⁴⁶` gives every real entry of `RᵀR − I` below
    /// `2⁻⁴⁶ + 2⁻⁵¹`, hence a spectral norm below `3·(2⁻⁴⁶ + 2⁻⁵¹) < 2⁻⁴⁴`.
    pub fn new(lp: LocalPose) -> PoseCheck {
        let r = &lp.pose.r;
        let col = |k: usize| [r[0][k], r[1][k], r[2][k]];
        let rotation = (0..3).all(|k| {
            (0..3).all(|l| {
                let g = dot(col(k), col(l)) - if k == l { 1.0 } else { 0.0 };
                g.abs() <= TWO_M46
            })
        });
        let t = lp.pose.t;
        PoseCheck {
            lp,
            rotation,
            t_inf: t[0].abs().max(t[1].abs()).max(t[2].abs()),
        }
    }
}

/// Whether A's box `a` (A's local frame) and B's box `b` (B's local frame) posed by
/// `pc` are certainly disjoint, counting the truth's deviation from the local pose.
///
/// Proof (`u = 2⁻⁵³`). *Ideal boxes.* Let `E` be a matrix of stored axes (rows) with
/// `EEᵀ = I + Δ`, `Q` its orthogonal polar factor: `‖E − Q‖₂ = maxᵢ|σᵢ − 1| ≤ maxᵢ|σᵢ² − 1| =
/// ‖Δ‖₂`. For A, `‖Δ‖₂ ≤ 3·AXES_TOLERANCE < 2⁻³⁸`. B's posed axes are the real rows
/// `fⱼ = R·bⱼ` of `F = E_B Rᵀ`, `FFᵀ = E_B E_Bᵀ + E_B(RᵀR − I)E_Bᵀ`, so `‖Δ_F‖₂ ≤ 3·2⁻⁴⁰ +
/// 1.01·2⁻⁴⁴ < 2⁻³⁸` ([`PoseCheck`]). A point `c + Eᵀs` (`|sᵢ| ≤ hᵢ`) equals `c + Qᵀs'` with
/// `s' = s + Q(E − Q)ᵀs`, `|s'ᵢ| ≤ hᵢ + 2⁻³⁸Σh`. B's truth is within `e = abs_err` per
/// coordinate (`√3e` in length) of the real posed box ([`LocalPose`]). So A lies in the
/// orthonormal box `A* = (c_A, Q_A, a*)`, `a* = h_A + 2⁻³⁸Σh_A`, and B's truth in `B* =
/// (R·c_B + t_L, Q_F, b*)` with `b* ≤ ĥ_B + 2⁻³⁷Σĥ_B`, where `ĥ_B = fl(h_B + 2e)` (its
/// rounding, `u·h_B`, is inside the 2⁻³⁷ term).
///
/// *The exact test of the ideal boxes* is Gottschalk's 15 inequalities on `C* = Q_A Q_Fᵀ`,
/// `T* = Q_A(R·c_B + t_L − c_A)` and `a*`, `b*`: each "|lin(T*, C*)| > rad(a*, b*, |C*|)"
/// proves a separating axis (orthonormal frames: the formulas are exact). *Computed
/// inputs.* `Ĉᵢⱼ = fl(aᵢ·fl(R·bⱼ))`: the product errs by `γ₃·1.01·√3·1.01 ≤ 6u` per
/// coordinate, the dot product by `γ₃·1.02 < 4u`, and `|aᵢ·fⱼ − qᵢ·q'ⱼ| ≤ 2·2⁻³⁸·1.01`, so
/// `|Ĉ − C*| ≤ εC = 2⁻³⁶`. `T̂ᵢ = fl(aᵢ·d̂)`, `d̂ = fl(ĉ' − c_A)`, `ĉ' = Pose::apply`
/// arithmetic of `c_B`: `|ĉ' − (R·c_B + t_L)| ≤ 7u(3.03‖c_B‖∞ + ‖t_L‖∞) < 2⁻⁴⁸(‖c_B‖∞ +
/// ‖t_L‖∞)` per coordinate, the subtraction adds `u|d̂|`, the dot product `γ₃‖aᵢ‖₁‖d̂‖∞ <
/// 6u‖d̂‖∞`, the axes `‖aᵢ − qᵢ‖‖d̂‖₂ ≤ 2⁻³⁸√3‖d̂‖∞`: `|T̂ − T*| ≤ εT = 2⁻³⁷‖d̂‖∞ +
/// 2⁻⁴⁷(‖c_B‖∞ + ‖t_L‖∞)`. *Per inequality* (`|C*| ≤ 1`, at most two `T·C` products on the
/// left, four `h·|C|` terms on the right, each `|Ĉ| ≤ 1 + εC`): the left side on computed
/// inputs is within `2εT + εC‖T̂‖₁` of the ideal one, the right side within the sum of
/// `εC(Σh_A + Σĥ_B)`, `3·2⁻³⁸Σh_A` and `3·2⁻³⁷Σĥ_B` (the widenings `a* − h_A`, `b* − ĥ_B`
/// times at most three `|C*| ≤ 1`); together below `2εT + 2⁻³⁴(‖T̂‖₁ + Σh_A + Σĥ_B)`. Evaluating
/// both sides and the slack rounds a dozen operations on terms bounded by `2.1(‖T̂‖₁ + Σh_A +
/// Σĥ_B)`: below `2⁻⁴⁵` of that. Underflowing products add below `2⁻¹⁰⁶⁰` in all. So the
/// slack `S = 2εT + 2⁻³²(‖T̂‖₁ + Σh_A + Σĥ_B) + f64::MIN_POSITIVE` (computed; its own
/// rounding is a few `u` relative) exceeds every error, and "left > right + S" in floating
/// point implies the ideal inequality: A* and B* are disjoint, hence A's triangles and B's
/// true triangles. Touching boxes have an ideal left side equal to the right side on every
/// axis, so they are never separated. NaN anywhere compares false: "may overlap".
#[inline]
pub fn disjoint(a: &Obb, b: &Obb, pc: &PoseCheck) -> bool {
    disjoint_posed(a, &PosedObb::new(b, pc), pc)
}

/// B's box at a pose, in A's local frame: what [`disjoint`] computes of B alone, kept so
/// that a B node tested against many A nodes is posed once per pose (the same f64 values
/// either way, so the proof on [`disjoint`] covers [`disjoint_posed`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct PosedObb {
    /// B's posed axes `fl(R·bⱼ)` (rows).
    pub f: [[f64; 3]; 3],
    /// B's posed centre, `Pose::apply` arithmetic of the local pose.
    pub c: [f64; 3],
    /// B's half extents plus `2·abs_err` (`ĥ_B`).
    pub h: [f64; 3],
    /// `‖c_B‖∞` of the unposed centre (the slack's `εT`).
    pub c_inf: f64,
}

impl PosedObb {
    /// Poses B's box `b` by `pc`.
    #[inline]
    pub fn new(b: &Obb, pc: &PoseCheck) -> PosedObb {
        let pose = &pc.lp.pose;
        let r = &pose.r;
        let rot = |v: [f64; 3]| [dot(r[0], v), dot(r[1], v), dot(r[2], v)];
        let e2 = 2.0 * pc.lp.abs_err;
        PosedObb {
            f: [rot(b.axes[0]), rot(b.axes[1]), rot(b.axes[2])],
            c: pose.apply(b.c),
            h: b.h.map(|h| h + e2),
            c_inf: b.c[0].abs().max(b.c[1].abs()).max(b.c[2].abs()),
        }
    }
}

/// [`disjoint`] with B's box already posed ([`PosedObb::new`] at the same `pc`).
#[inline]
pub fn disjoint_posed(a: &Obb, b: &PosedObb, pc: &PoseCheck) -> bool {
    if !pc.rotation {
        return false;
    }
    let f = &b.f;
    let d = sub(b.c, a.c);
    let t: [f64; 3] = std::array::from_fn(|i| dot(a.axes[i], d));
    let c: [[f64; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| dot(a.axes[i], f[j])));
    let ac = c.map(|row| row.map(f64::abs));
    let ha = a.h;
    let hb = b.h;
    let inf = |v: [f64; 3]| v[0].abs().max(v[1].abs()).max(v[2].abs());
    let eps_t = TWO_M37 * inf(d) + TWO_M47 * (b.c_inf + pc.t_inf);
    let sum = |v: [f64; 3]| v[0] + v[1] + v[2];
    let slack = 2.0 * eps_t
        + TWO_M32 * (t[0].abs() + t[1].abs() + t[2].abs() + sum(ha) + sum(hb))
        + f64::MIN_POSITIVE;
    // A's axes.
    for i in 0..3 {
        let rad = ha[i] + (hb[0] * ac[i][0] + hb[1] * ac[i][1] + hb[2] * ac[i][2]);
        if t[i].abs() > rad + slack {
            return true;
        }
    }
    // B's axes.
    for j in 0..3 {
        let proj = t[0] * c[0][j] + t[1] * c[1][j] + t[2] * c[2][j];
        let rad = (ha[0] * ac[0][j] + ha[1] * ac[1][j] + ha[2] * ac[2][j]) + hb[j];
        if proj.abs() > rad + slack {
            return true;
        }
    }
    // The nine cross products aᵢ × fⱼ.
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let proj = t[i2] * c[i1][j] - t[i1] * c[i2][j];
            let rad = (ha[i1] * ac[i2][j] + ha[i2] * ac[i1][j])
                + (hb[j1] * ac[i][j2] + hb[j2] * ac[i][j1]);
            if proj.abs() > rad + slack {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Pose;

    const ID: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

    fn unit_box(c: [f64; 3]) -> Obb {
        Obb {
            c,
            axes: ID,
            h: [1.0; 3],
        }
    }

    fn check(pose: &Pose) -> PoseCheck {
        PoseCheck::new(LocalPose::exact(pose))
    }

    #[test]
    fn touching_boxes_are_never_separated_and_a_gap_is_found() {
        let a = unit_box([0.0; 3]);
        for off in [0.0, 1e6, 1e15] {
            // Face to face, at x = 1 + off (both centres shifted by `off`).
            let a = Obb {
                c: [off, 0.0, 0.0],
                ..a
            };
            let touching = unit_box([off + 2.0, 0.5, -0.25]);
            assert!(!disjoint(&a, &touching, &check(&Pose::IDENTITY)), "{off}");
            // Turned 90° about z (an exact matrix) in place, still touching.
            let q = Pose::new([1.0, 0.0, 0.0, 1.0], [off + 2.0, 0.5, -0.25]);
            assert!(!disjoint(&a, &unit_box([0.0; 3]), &check(&q)), "{off}");
            let gap = (off + 2.0) * (1.0 + 1e-9) + 1e-9;
            let apart = unit_box([gap, 0.0, 0.0]);
            assert!(disjoint(&a, &apart, &check(&Pose::IDENTITY)), "{off}");
        }
        // B turned 45° about z: its corner on A's face x = 1 (up to the rounding of √2).
        let s = std::f64::consts::FRAC_1_SQRT_2;
        let b = Obb {
            c: [0.0; 3],
            axes: [[s, s, 0.0], [-s, s, 0.0], [0.0, 0.0, 1.0]],
            h: [1.0; 3],
        };
        let p = Pose::translation([1.0 + std::f64::consts::SQRT_2, 0.0, 0.0]);
        assert!(!disjoint(&a, &b, &check(&p)));
        let p = Pose::translation([1.0 + std::f64::consts::SQRT_2 + 1e-6, 0.0, 0.0]);
        assert!(disjoint(&a, &b, &check(&p)));
    }

    /// Boxes that touch (in fact overlap by 10⁻¹⁶) once the pose is applied in real
    /// arithmetic, while `Pose::apply`'s rounding of B's centre at 10¹⁵ moves it 0.025 away:
    /// without the `‖t‖` term of the slack the test would separate them. Near the origin
    /// the same boxes are exact and touch.
    #[test]
    fn the_pose_rounding_far_from_the_origin_never_separates() {
        for off in [0.0, 1e6, 1e15, 1e15 + 0.5] {
            let a = Obb {
                c: [off, 0.0, 0.0],
                axes: ID,
                h: [1.0; 3],
            };
            // Real touching needs h = 1 + 0.1 (B's centre 0.1 past the translation).
            let b = Obb {
                c: [0.1, 0.0, 0.0],
                axes: ID,
                h: [1.1, 1.0, 1.0],
            };
            let p = Pose::translation([off + 2.0, 0.0, 0.0]);
            assert!(!disjoint(&a, &b, &check(&p)), "{off}");
            // Turned a quarter about x (exact matrix) and shifted in y and z: still touching.
            let q = Pose::new([1.0, 1.0, 0.0, 0.0], [off + 2.0, 2.0, -1.0]);
            let b2 = Obb {
                h: [1.1, 1.0, 1.0],
                ..b
            };
            assert!(!disjoint(&a, &b2, &check(&q)), "{off}");
        }
    }

    #[test]
    fn a_non_rotation_never_separates() {
        let mut p = Pose::translation([10.0, 0.0, 0.0]);
        p.r[0][0] = 2.0;
        let a = unit_box([0.0; 3]);
        assert!(!disjoint(&a, &a, &check(&p)));
        assert!(disjoint(
            &a,
            &a,
            &check(&Pose::translation([10.0, 0.0, 0.0]))
        ));
    }
}
