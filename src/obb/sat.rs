//! The OBB overlap test: the 15-axis separating axis test of Gottschalk, Lin and Manocha
//! (as the University of Freiburg's lecture slides *Collision Detection* give it, "OBB
//! Overlapping Test in 3D": A's 3 axes, B's 3 axes, their 9 cross products), with the pose
//! folded in: B's box is posed rigidly (its axes `R·bⱼ` and centre `R·c + t_L`, in A's
//! local frame), nothing is tumbled.
//!
//! In f32 only, every product and sum flushed ([`ftz`]), so that the CPU traversal and the
//! GPU (`shaders/shared/obb.wgsl`, whose functions are the twins of [`obb_posed`] and
//! [`obb_disjoint`]) make the same decisions bit for bit, whether or not a device fuses a
//! product into a sum or flushes subnormals. The pose comes as the GPU has it
//! ([`crate::tumble::pose_f32`]: `r = fl32(R)`, `t = fl32(t_L)`, `t_err ≥ 2·abs_err`).
//!
//! Conservative: "disjoint" is answered only when the *real* boxes that contain A's
//! triangles and B's true (posed, [`crate::frame::LocalPose`]) triangles are disjoint; a
//! rounding error can never separate boxes that touch. The proof is on [`obb_disjoint`].

use super::fit::Obb32;
use super::sat_ops::{COARSE, FLOOR, SLACK_REL, U};
pub use super::sat_ops::{PosedObb, obb_add, obb_dot3, obb_mul};
use crate::bv::slab::ftz;
use crate::frame::LocalPose;
use crate::geom::dot;

/// `t_err` of a pose whose matrix is not a rotation (a hand-made [`crate::Pose`] literal):
/// 2¹¹⁰ makes every posed box wider than any local model (coordinates below 2¹⁰², see
/// [`crate::mesh`]'s range check) and the triangle filter answer "unsure", so nothing is
/// culled and the exact test decides, as the proofs assume a rotation.
pub const NOT_A_ROTATION: f32 = f32::from_bits((127 + 110) << 23);

const TWO_M46: f64 = 1.0 / (1u64 << 46) as f64;

/// What the node tests need of one pose, as the GPU has it.
#[derive(Debug, Clone, Copy)]
pub struct PoseCheck {
    /// The pose from B's local frame into A's, with its error bound.
    pub lp: LocalPose,
    /// `‖RᵀR − I‖₂ ≤ 2⁻⁴⁴` proved from the computed Gram matrix (true of every
    /// [`crate::Pose::new`]).
    pub rotation: bool,
    /// `fl32(R)` (row-major), subnormals flushed.
    pub r: [f32; 9],
    /// `fl32(t_L)`, subnormals flushed.
    pub t: [f32; 3],
    /// `fl32↑(2·abs_err)`, at least `f32::MIN_POSITIVE`; [`NOT_A_ROTATION`] when the
    /// matrix is not a rotation.
    pub t_err: f32,
    /// Whether every entry of `r` is 0 or at least 2⁻⁵¹ in magnitude and every entry of
    /// `t` 0 or at least [`COARSE_T`]: the CPU's posing then needs no flushes
    /// ([`obb_posed_cpu`]).
    pub coarse: bool,
}

impl PoseCheck {
    /// Checks the rotation: the computed `ĝ = fl(rₖ·rₗ)` (columns) errs by at most
    /// `γ₃·1.02 < 4·2⁻⁵³`, so `max|ĝ − δ| ≤ 2⁻⁴⁶` gives every real entry of `RᵀR − I` below
    /// `2⁻⁴⁶ + 2⁻⁵¹`, hence a spectral norm below `3·(2⁻⁴⁶ + 2⁻⁵¹) < 2⁻⁴⁴`. Flushing a
    /// subnormal entry of `r` or `t` moves it by less than 2⁻¹²⁶, which the bounds of
    /// [`obb_posed`] and the triangle filter cover with their absolute floors.
    pub fn new(lp: LocalPose) -> PoseCheck {
        let r = &lp.pose.r;
        let col = |k: usize| [r[0][k], r[1][k], r[2][k]];
        let rotation = (0..3).all(|k| {
            (0..3).all(|l| {
                let g = dot(col(k), col(l)) - if k == l { 1.0 } else { 0.0 };
                g.abs() <= TWO_M46
            })
        });
        let (r32, t32, e) = crate::tumble::pose_f32(&lp);
        let (r, t) = (r32.map(ftz), t32.map(ftz));
        PoseCheck {
            lp,
            rotation,
            coarse: coarse(&r) & t.iter().all(|&x| (x == 0.0) | (x.abs() >= COARSE_T)),
            r,
            t,
            t_err: if rotation {
                e.max(f32::MIN_POSITIVE)
            } else {
                NOT_A_ROTATION
            },
        }
    }
}

use obb_add as s;
use obb_dot3 as dot3;
use obb_mul as m;

/// 2⁻¹⁰²: a translation entry at least this large (or 0) keeps the CPU's posing unflushed.
/// Its ulp is then at least 2⁻¹²⁵, so it is a multiple of 2⁻¹²⁵ as every rounded product of
/// two coarse factors is (`sat_lanes::posed_coarse`'s proof); 2⁻⁵¹ there too sent poses
/// whose translation held a residue such as −4.3·10⁻¹⁹ (a trigonometric zero) to the
/// flushed posing: with the rotations' residues, 84 % of the side-by-side's near-miss bunny
/// posings.
pub const COARSE_T: f32 = 1.0 / (1u128 << 102) as f32;

/// Whether every value is zero or at least 2⁻⁵¹ in magnitude.
#[inline(always)]
fn coarse(xs: &[f32]) -> bool {
    xs.iter()
        .fold(true, |ok, &x| ok & ((x == 0.0) | (x.abs() >= COARSE)))
}

/// Poses B's box `b` by the f32 pose `(r, t, t_err)` ([`PoseCheck`]).
///
/// The centre's bound `e = fl(fl(8u·σ) + 2⁻¹⁰⁰) + t_err` with `σ = ‖c‖₁ + ‖t‖∞`: against
/// the real `R·c + t_L`, rounding `R` and `t_L` to f32 moves the value by at most `u·S`
/// (`S = Σₖ|Rᵢₖ||cₖ| + |t_Lᵢ| ≤ 1.0001σ` for a rotation), the three products and three sums
/// by `γ₄·S(1+u)`, so by `5.02u·S` in all; the computed `8u·σ` (a product by a power of
/// two, exact) exceeds that after `σ`'s own three roundings; flushes add below `6·2⁻¹²⁶`,
/// under the floor. `t_err` is not needed for the centre; it is there so that
/// [`NOT_A_ROTATION`] reaches the slack of every axis.
/// CPU twin of `obb_posed` in `shaders/shared/obb.wgsl`.
#[inline]
pub fn obb_posed(b: &Obb32, r: &[f32; 9], t: &[f32; 3], t_err: f32) -> PosedObb {
    let mut f = [0.0f32; 9];
    for j in 0..3 {
        for k in 0..3 {
            f[3 * j + k] = dot3(
                r[3 * k],
                r[3 * k + 1],
                r[3 * k + 2],
                b.e[3 * j],
                b.e[3 * j + 1],
                b.e[3 * j + 2],
            );
        }
    }
    let mut c = [0.0f32; 3];
    for k in 0..3 {
        c[k] = s(
            dot3(r[3 * k], r[3 * k + 1], r[3 * k + 2], b.c[0], b.c[1], b.c[2]),
            t[k],
        );
    }
    let sigma = s(
        s(s(b.c[0].abs(), b.c[1].abs()), b.c[2].abs()),
        t[0].abs().max(t[1].abs()).max(t[2].abs()),
    );
    let e = s(s(m(8.0 * U, sigma), FLOOR), t_err);
    PosedObb {
        f,
        c,
        h: [s(b.h[0], t_err), s(b.h[1], t_err), s(b.h[2], t_err)],
        e,
    }
}

/// Whether A's box `a` and B's box posed by [`obb_posed`] are certainly disjoint.
///
/// Proof (`u = 2⁻²⁴`; every stored number is an f32, taken as exact). *The real boxes.* A's
/// triangles lie in `P_A = {x : |aᵢ·(x − c_A)| ≤ h_Aᵢ}` ([`Obb32::from_fit`]), where the rows
/// `aᵢ` of `E` satisfy `|EEᵀ − I|ᵢⱼ ≤ 2⁻²⁰`, so `‖EEᵀ − I‖₂ ≤ δ = 3·2⁻²⁰` and the orthogonal
/// polar factor `Q` of `E` has `‖E − Q‖₂ ≤ δ`. A point `x = c + E⁻¹s` (`|sᵢ| ≤ hᵢ`) is
/// `c + Qᵀs'` with `|s'ᵢ − sᵢ| ≤ ‖(QE⁻¹ − I)s‖ ≤ 1.01δΣh`: `P_A` lies in the orthonormal
/// box `A* = (c_A, Q, h_A + 1.01δΣh_A)`. B's real local triangles lie in `P_B` likewise;
/// the real map `M(y) = R·y + t_L` sends `P_B` to `{z : |bⱼ·R⁻¹(z − M(c_B))| ≤ h_Bⱼ}`,
/// whose rows `R⁻ᵀbⱼ` have a Gram matrix within `δ_F = δ + 2⁻⁴³` of `I` ([`PoseCheck`]);
/// B's truth is within `abs_err` per coordinate (`√3·abs_err ≤ t_err` in length) of
/// `M(P_B)`. So B's truth lies in `B* = (M(c_B), Q_F, ĥ_B(1+u) + 1.01δ_FΣĥ_B(1+u))` with
/// `ĥ_B = fl(h_B + t_err)`. The 15 inequalities of Gottschalk on the orthonormal `A*`, `B*`
/// (`T* = Q(M(c_B) − c_A)`, `C* = Q Q_Fᵀ`) are exact: one that holds separates them.
///
/// *Computed inputs.* `f̂ⱼ = fl(r·bⱼ)` is within `(u + 3.01u)‖bⱼ‖₁ ≤ 7u` of `R·bⱼ` per
/// coordinate (`‖bⱼ‖₁ ≤ 1.74`). `Ĉᵢⱼ = fl(aᵢ·f̂ⱼ)` errs from `aᵢ·f̂ⱼ` by `3.03u`, from
/// `aᵢ·R bⱼ` by `12.2u` more, and `|aᵢ·R bⱼ − C*ᵢⱼ| ≤ δ + δ_F + 2⁻⁴³ ≤ 96.2u`: `εC = 2⁻¹⁷`
/// (`= 128u`) bounds `|Ĉ − C*|`. `d̂ = fl(ĉ' − c_A)` with `|ĉ' − M(c_B)| ≤ e`
/// ([`obb_posed`]); `T̂ᵢ = fl(aᵢ·d̂)` errs from `aᵢ·d̂` by `5.3u·‖d̂‖∞`, from `aᵢ·d`
/// (`d = M(c_B) − c_A`) by `1.74(u‖d̂‖∞ + e)` more, and `|aᵢ·d − T*ᵢ| ≤ δ√3‖d‖∞`:
/// `εT = 2⁻¹⁷‖d̂‖∞ + 2e` bounds `|T̂ − T*|`.
///
/// *Per inequality.* A left side of at most three `T·C` products moves by at most
/// `2.01εT + 131u·‖T̂‖₁` (`Σᵢ|Ĉᵢⱼ| ≤ 1.74`; a cross axis has two products), so by less
/// than `4.1e + 2⁻¹⁵‖d̂‖∞ + 2⁻¹⁷‖T̂‖₁`. A right side moves by the widenings `A* − P_A`,
/// `B* − ĥ_B` times `|C*| ≤ 1 + εC`, and by `εC` per `h·|C|` term, at most
/// `280u(Σh_A + Σĥ_B)`; evaluating it rounds at most 5 operations, `5u` of the same. The
/// computed slack `(((8e + 2⁻¹⁴Σĥ_B) + 2⁻¹⁴Σh_A) + 2⁻¹⁰⁰) + 2⁻¹²‖d̂‖∞` (products by
/// powers of two exact; eight roundings of positive terms, the sums' own included)
/// exceeds each term of their sum: `8e` against `4.1e`; `2⁻¹²‖d̂‖∞` against `2⁻¹⁵‖d̂‖∞ +
/// 2⁻¹⁷‖T̂‖₁ ≤ 1.15·2⁻¹⁴‖d̂‖∞` (`|T̂ᵢ| ≤ ‖aᵢ‖₁‖d̂‖∞(1 + 4u) ≤ 1.733‖d̂‖∞`), 3.4× room;
/// `2⁻¹⁴(Σh_A + Σĥ_B)` against `285u` of the same, 3.5× room. The room absorbs the
/// rounding of `rad + slack` and of the slack itself; flushes (each under 2⁻¹²⁶, a few
/// dozen, a flushed slack term standing for a requirement below 2⁻¹²⁶) stay under the
/// floor. (The slack reads `‖d̂‖∞` rather than `‖T̂‖₁`, which earlier forms summed: B's and
/// A's terms then need no centre, and the CPU's test reaches its first comparison
/// sooner.) Nothing overflows: local coordinates stay below 2¹⁰², every term below 2¹¹⁴
/// even at [`NOT_A_ROTATION`]. So `|left| > fl(rad + slack)` implies the ideal
/// inequality: A* and B* are disjoint, hence A's triangles and B's true triangles.
/// Touching boxes satisfy no ideal inequality strictly, so they are never separated.
/// CPU twin of `obb_disjoint` in `shaders/shared/obb.wgsl`.
#[inline]
pub fn obb_disjoint(a: &Obb32, b: &PosedObb) -> bool {
    disjoint_flushed(a, b)
}

/// [`obb_disjoint`]'s decision, bit for bit, at about a third of its cost on a CPU: without
/// the flushes where no value can be subnormal, and three lanes at a time (`sat_lanes`,
/// whose doc says why the lanes round alike).
///
/// Proof that the flushes change nothing when the screen passes. Call an f32 *coarse* when
/// it is 0 or at least 2⁻⁵¹ in magnitude; a nonzero coarse value is a multiple of 2⁻⁷⁴. The
/// screen checks that the inputs (A's centre, axes and extents, B's posed axes, centre and
/// extents), the centre differences `d`, and `T̂`, `Ĉ` are coarse. Every product of two
/// coarse factors is 0 or at least 2⁻¹⁰², so once rounded a multiple of 2⁻¹²⁵, and every
/// sum of such is 0 or at least 2⁻¹²⁵: normal. `d` is a difference of coarse inputs and
/// exact or normal; `T̂` and `Ĉ` are sums of products of coarse values; once they are
/// screened too, every later product and sum is of the same kind (`ĥ·|Ĉ|`, `T̂·Ĉ`), and the
/// slack's terms are normal (`e ≥ 2⁻¹⁰⁰` from [`obb_posed`], `8e`, and `2⁻¹⁴Σĥ_B`,
/// `2⁻¹⁴Σh_A`, `2⁻¹²‖d̂‖∞`, each of a value 0 or at least 2⁻⁵¹). So no value the flushed
/// test computes is subnormal, `ftz` is the identity on each, and the two decide alike.
/// Otherwise the flushed test runs.
/// `a` must be a fitted box ([`Obb32::from_fit`] stores only coarse numbers; checked in
/// debug builds), `b` B's posed box with [`screen`]'s verdict on it (computed once per pose
/// and node).
#[inline(always)]
pub fn obb_disjoint_cpu(a: &Obb32, b: &ScreenedObb) -> bool {
    debug_assert!(
        coarse(&a.c) & coarse(&a.e) & coarse(&a.h),
        "{a:?} is not a fitted box"
    );
    if b.coarse() {
        super::sat_lanes::disjoint_screened(a, &b.signed)
            .unwrap_or_else(|| obb_disjoint(a, &b.signed))
    } else {
        obb_disjoint(a, &b.posed())
    }
}

/// B's posed box and whether its numbers are 0 or at least 2⁻⁵¹ (the input screen of
/// [`obb_disjoint_cpu`] for B, done once per pose and node), in one cache line: the verdict
/// is the sign of the centre's bound `e`, which is positive (`e ≥ t_err > 0`,
/// [`obb_posed`]), stored negated when the screen fails.
#[repr(C, align(64))]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ScreenedObb {
    signed: PosedObb,
}

impl ScreenedObb {
    /// `posed` with the screen's verdict.
    #[inline(always)]
    pub fn new(posed: PosedObb, coarse: bool) -> ScreenedObb {
        let mut signed = posed;
        if !coarse {
            signed.e = -signed.e;
        }
        ScreenedObb { signed }
    }

    /// Whether every number of the posed box but `e` is coarse.
    #[inline(always)]
    pub fn coarse(&self) -> bool {
        self.signed.e > 0.0
    }

    /// The posed box.
    #[inline(always)]
    pub fn posed(&self) -> PosedObb {
        let mut posed = self.signed;
        posed.e = posed.e.abs();
        posed
    }
}

/// B's box `b` posed by `pc` and screened: `screen(obb_posed(b, …))` bit for bit, at
/// about a fifth of its cost when the box and the pose are coarse (every [`Obb32::from_fit`]
/// box, and every pose whose rotation has no entry below 2⁻⁵¹ and whose translation none
/// below [`COARSE_T`]), lanes without flushes (`sat_lanes::posed_coarse`, whose doc proves
/// that the flushes cannot act there); otherwise lanes with every flush
/// (`sat_lanes::posed_flushed`).
#[inline(always)]
pub fn obb_posed_cpu(b: &Obb32, pc: &PoseCheck) -> ScreenedObb {
    if pc.coarse && super::sat_lanes::coarse_box(b) {
        let (posed, coarse) = super::sat_lanes::posed_coarse(b, &pc.r, &pc.t, pc.t_err);
        ScreenedObb::new(posed, coarse)
    } else {
        screen(super::sat_lanes::posed_flushed(b, &pc.r, &pc.t, pc.t_err))
    }
}

/// `posed` with its screen.
#[inline]
pub fn screen(posed: PosedObb) -> ScreenedObb {
    ScreenedObb::new(
        posed,
        coarse(&posed.f) & coarse(&posed.c) & coarse(&posed.h),
    )
}

/// The 15 inequalities, every operation flushed (the GPU's arithmetic).
#[inline(always)]
fn disjoint_flushed(a: &Obb32, b: &PosedObb) -> bool {
    let ae = &a.e;
    let d = [s(b.c[0], -a.c[0]), s(b.c[1], -a.c[1]), s(b.c[2], -a.c[2])];
    let mut t = [0.0f32; 3];
    let mut cm = [0.0f32; 9];
    let mut ac = [0.0f32; 9];
    for i in 0..3 {
        t[i] = dot3(ae[3 * i], ae[3 * i + 1], ae[3 * i + 2], d[0], d[1], d[2]);
        for j in 0..3 {
            let c = dot3(
                ae[3 * i],
                ae[3 * i + 1],
                ae[3 * i + 2],
                b.f[3 * j],
                b.f[3 * j + 1],
                b.f[3 * j + 2],
            );
            cm[3 * i + j] = c;
            ac[3 * i + j] = c.abs();
        }
    }
    let dn = d[0].abs().max(d[1].abs()).max(d[2].abs());
    let sa = s(s(a.h[0], a.h[1]), a.h[2]);
    let sb = s(s(b.h[0], b.h[1]), b.h[2]);
    let k = s(s(s(m(8.0, b.e), m(SLACK_REL, sb)), m(SLACK_REL, sa)), FLOOR);
    let slack = s(k, m(4.0 * SLACK_REL, dn));
    let ha = &a.h;
    let hb = &b.h;
    // A's axes.
    for i in 0..3 {
        let rad = s(
            ha[i],
            dot3(hb[0], hb[1], hb[2], ac[3 * i], ac[3 * i + 1], ac[3 * i + 2]),
        );
        if t[i].abs() > s(rad, slack) {
            return true;
        }
    }
    // B's axes.
    for j in 0..3 {
        let proj = dot3(t[0], t[1], t[2], cm[j], cm[3 + j], cm[6 + j]);
        let rad = s(
            dot3(ha[0], ha[1], ha[2], ac[j], ac[3 + j], ac[6 + j]),
            hb[j],
        );
        if proj.abs() > s(rad, slack) {
            return true;
        }
    }
    // The nine cross products aᵢ × fⱼ.
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let proj = s(m(t[i2], cm[3 * i1 + j]), -m(t[i1], cm[3 * i2 + j]));
            let rad = s(
                s(m(ha[i1], ac[3 * i2 + j]), m(ha[i2], ac[3 * i1 + j])),
                s(m(hb[j1], ac[3 * i + j2]), m(hb[j2], ac[3 * i + j1])),
            );
            if proj.abs() > s(rad, slack) {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests;
