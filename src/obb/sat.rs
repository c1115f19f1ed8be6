//! The OBB overlap test: the 15-axis separating axis test of Gottschalk, Lin and Manocha
//! (`004_d8337bc93db14070.txt`, "OBB Overlapping Test in 3D": A's 3 axes, B's 3 axes, their
//! 9 cross products), with the pose folded in: B's box is posed rigidly (its axes `R·bⱼ`
//! and centre `R·c + t_L`, in A's local frame), nothing is tumbled.
//!
//! In f32 only, every product and sum flushed ([`ftz`]), so that the CPU traversal and the
//! GPU (`shaders/obb.wgsl`, whose functions are the twins of [`obb_posed`] and
//! [`obb_disjoint`]) make the same decisions bit for bit, whether or not a device fuses a
//! product into a sum or flushes subnormals. The pose comes as the GPU has it
//! ([`crate::tumble::pose_f32`]: `r = fl32(R)`, `t = fl32(t_L)`, `t_err ≥ 2·abs_err`).
//!
//! Conservative: "disjoint" is answered only when the *real* boxes that contain A's
//! triangles and B's true (posed, [`crate::frame::LocalPose`]) triangles are disjoint; a
//! rounding error can never separate boxes that touch. The proof is on [`obb_disjoint`].

use super::fit::Obb32;
use crate::bv::slab::ftz;
use crate::frame::LocalPose;
use crate::geom::dot;

/// Unit roundoff of f32, 2⁻²⁴.
pub(super) const U: f32 = 1.0 / 16_777_216.0;
/// 2⁻¹⁴: the slack's factor on the boxes' extents, 4× it on the centres' distance (see
/// [`obb_disjoint`]).
pub(super) const SLACK_REL: f32 = 1.0 / 16_384.0;
/// 2⁻¹⁰⁰: absolute floor covering flushed subnormals (each below 2⁻¹²⁶).
pub(super) const FLOOR: f32 = U * U * U * U / 16.0;
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
    /// Whether every entry of `r` and `t` is 0 or at least 2⁻⁵¹ in magnitude: the CPU's
    /// posing then needs no flushes ([`obb_posed_cpu`]).
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
            coarse: coarse(&r) & coarse(&t),
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

/// B's box at a pose, in A's local frame (WGSL twin: `struct PosedObb`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PosedObb {
    /// The posed axes `fl(r·bⱼ)` (rows, `f[3j + k]`).
    pub f: [f32; 9],
    /// The posed centre `fl(r·c + t)`.
    pub c: [f32; 3],
    /// The half extents plus `t_err` (B's truth within `abs_err` of the posed triangles).
    pub h: [f32; 3],
    /// A bound on the centre's error against the real `R·c + t_L`, plus `t_err`.
    pub e: f32,
}

/// `x·y` flushed. CPU twin of `obb_mul` in `shaders/obb.wgsl`.
#[inline(always)]
pub fn obb_mul(x: f32, y: f32) -> f32 {
    ftz(x * y)
}

/// `x + y` flushed. CPU twin of `obb_add` in `shaders/obb.wgsl`.
#[inline(always)]
pub fn obb_add(x: f32, y: f32) -> f32 {
    ftz(x + y)
}

/// `(x₀y₀ + x₁y₁) + x₂y₂`, every operation flushed. CPU twin of `obb_dot3` in
/// `shaders/obb.wgsl`.
#[inline(always)]
pub fn obb_dot3(x0: f32, x1: f32, x2: f32, y0: f32, y1: f32, y2: f32) -> f32 {
    obb_add(obb_add(obb_mul(x0, y0), obb_mul(x1, y1)), obb_mul(x2, y2))
}

use obb_add as s;
use obb_dot3 as dot3;
use obb_mul as m;

/// 2⁻⁵¹: the screen of [`obb_disjoint_cpu`].
pub(super) const COARSE: f32 = 1.0 / (1u64 << 51) as f32;

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
/// CPU twin of `obb_posed` in `shaders/obb.wgsl`.
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
/// CPU twin of `obb_disjoint` in `shaders/obb.wgsl`.
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
#[inline]
pub fn obb_disjoint_cpu(a: &Obb32, b: &ScreenedObb) -> bool {
    debug_assert!(
        coarse(&a.c) & coarse(&a.e) & coarse(&a.h),
        "{a:?} is not a fitted box"
    );
    if b.coarse() {
        super::sat_lanes::disjoint_screened(a, &b.signed)
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
/// box, and every pose but those with an entry below 2⁻⁵¹), lanes without flushes
/// (`sat_lanes::posed_coarse`, whose doc proves that the flushes cannot act there).
#[inline]
pub fn obb_posed_cpu(b: &Obb32, pc: &PoseCheck) -> ScreenedObb {
    if pc.coarse && super::sat_lanes::coarse_box(b) {
        let (posed, coarse) = super::sat_lanes::posed_coarse(b, &pc.r, &pc.t, pc.t_err);
        ScreenedObb::new(posed, coarse)
    } else {
        screen(obb_posed(b, &pc.r, &pc.t, pc.t_err))
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
mod tests {
    use super::*;
    use crate::Pose;

    const ID: [f32; 9] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

    fn unit_box(c: [f32; 3]) -> Obb32 {
        Obb32::new(c, ID, [1.0; 3])
    }

    fn check(pose: &Pose) -> PoseCheck {
        PoseCheck::new(LocalPose::exact(pose))
    }

    fn disjoint(a: &Obb32, b: &Obb32, pc: &PoseCheck) -> bool {
        obb_disjoint(a, &obb_posed(b, &pc.r, &pc.t, pc.t_err))
    }

    #[test]
    fn touching_boxes_are_never_separated_and_a_gap_is_found() {
        for off in [0.0f32, 1e6, 1e15] {
            // Face to face at x = off + 1 (both centres shifted by `off`).
            let a = unit_box([off, 0.0, 0.0]);
            let touching = unit_box([off + 2.0, 0.5, -0.25]);
            assert!(!disjoint(&a, &touching, &check(&Pose::IDENTITY)), "{off}");
            // Turned 90° about z (an exact matrix) in place, still touching.
            let q = Pose::new([1.0, 0.0, 0.0, 1.0], [off as f64 + 2.0, 0.5, -0.25]);
            assert!(!disjoint(&a, &unit_box([0.0; 3]), &check(&q)), "{off}");
            let gap = (off + 2.0) * (1.0 + 1e-3) + 1e-3;
            let apart = unit_box([gap, 0.0, 0.0]);
            assert!(disjoint(&a, &apart, &check(&Pose::IDENTITY)), "{off}");
        }
        // B turned 45° about z: its corner on A's face x = 1 (up to the rounding of √2).
        let s = std::f32::consts::FRAC_1_SQRT_2;
        let a = unit_box([0.0; 3]);
        let b = Obb32::new([0.0; 3], [s, s, 0.0, -s, s, 0.0, 0.0, 0.0, 1.0], [1.0; 3]);
        let p = Pose::translation([1.0 + std::f64::consts::SQRT_2, 0.0, 0.0]);
        assert!(!disjoint(&a, &b, &check(&p)));
        let p = Pose::translation([1.0 + std::f64::consts::SQRT_2 + 1e-3, 0.0, 0.0]);
        assert!(disjoint(&a, &b, &check(&p)));
    }

    /// Boxes that touch in real arithmetic, at translations far from the origin where the
    /// f32 rounding of the translation moves B's centre away by half an f32 step (2²⁵ at
    /// 10¹⁵): the centre's error term keeps them together (zeroing `e` makes this fail).
    #[test]
    fn the_pose_rounding_far_from_the_origin_never_separates() {
        for off in [1e9f64, 3.3e9 + 0.37, 1e15 + 0.5] {
            let ac = off as f32;
            let half_step = (ac.next_up() - ac) / 2.0;
            let a = unit_box([ac, 0.0, 0.0]);
            let b = Obb32::new([0.0; 3], ID, [half_step, 1.0, 1.0]);
            // B's face at ac + 1, on A's: touching.
            let t = ac as f64 + 1.0 + half_step as f64;
            assert!(t as f32 as f64 > t, "{off}: the rounding moves B away");
            let pc = check(&Pose::translation([t, 0.0, 0.0]));
            assert!(!disjoint(&a, &b, &pc), "{off}");
            // One whole step further than touching is separated.
            let far = ac as f64 + 1.0 + 1e3 * (half_step as f64) * 16.0;
            assert!(
                disjoint(&a, &b, &check(&Pose::translation([far, 0.0, 0.0]))),
                "{off}"
            );
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

    /// The 8 corners of the parallelepiped `{x : |eᵢ·(x − c)| ≤ hᵢ}` (f64; `E⁻¹` by the
    /// adjugate), and its edge directions (the columns of `E⁻¹`).
    fn corners(b: &Obb32) -> (Vec<[f64; 3]>, [[f64; 3]; 3]) {
        let e = b.as_f64().axes;
        let cr = crate::geom::cross;
        let det = crate::geom::dot(e[0], cr(e[1], e[2]));
        // Columns of E⁻¹: (e₁×e₂, e₂×e₀, e₀×e₁)/det.
        let cols = [cr(e[1], e[2]), cr(e[2], e[0]), cr(e[0], e[1])].map(|v| v.map(|x| x / det));
        let mut out = Vec::new();
        for n in 0..8 {
            let s: [f64; 3] = std::array::from_fn(|i| {
                if n >> i & 1 == 1 {
                    b.h[i] as f64
                } else {
                    -(b.h[i] as f64)
                }
            });
            out.push(std::array::from_fn(|k| {
                b.c[k] as f64 + (0..3).map(|i| cols[i][k] * s[i]).sum::<f64>()
            }));
        }
        (out, cols)
    }

    /// The largest gap between the two corner sets along the 15 candidate axes (positive:
    /// separated), in f64: the oracle of the edge test below.
    fn gap(
        a: &[[f64; 3]],
        ea: &[[f64; 3]; 3],
        na: &[[f64; 3]; 3],
        b: &[[f64; 3]],
        eb: &[[f64; 3]; 3],
        nb: &[[f64; 3]; 3],
    ) -> f64 {
        let mut axes: Vec<[f64; 3]> = na.iter().chain(nb).copied().collect();
        for x in ea {
            for y in eb {
                axes.push(crate::geom::cross(*x, *y));
            }
        }
        let mut best = f64::NEG_INFINITY;
        for l in axes {
            let n = crate::geom::dot(l, l).sqrt();
            if n < 1e-12 {
                continue;
            }
            let proj = |p: &[[f64; 3]]| {
                p.iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                        let v = crate::geom::dot(l, *x) / n;
                        (lo.min(v), hi.max(v))
                    })
            };
            let ((alo, ahi), (blo, bhi)) = (proj(a), proj(b));
            best = best.max((blo - ahi).max(alo - bhi));
        }
        best
    }

    /// Random turned boxes (f32 axes of random rotations, extents 0.1–10) slid towards
    /// each other along a random direction: at the touching distance (found by bisection on
    /// an f64 corner-based separating axis oracle) less 10⁻⁹ of it they overlap, and the test
    /// never separates them; 1% beyond it, it does. A bare f32 test (slack zeroed) separates
    /// some of them; either term of the slack alone covers these (touching centres are about
    /// a box size apart, so the centre term is of the relative term's order here): the proof
    /// needs both, the far-from-origin test above needs the centre term.
    #[test]
    fn turned_boxes_at_the_touching_distance_are_never_separated() {
        let mut rng = crate::rng::Rng::new(31);
        let turned = |rng: &mut crate::rng::Rng| {
            let p = Pose::new(rng.unit_quaternion(), [0.0; 3]);
            let e: [f32; 9] = std::array::from_fn(|n| p.r[n % 3][n / 3] as f32);
            let h = [0; 3].map(|_| rng.range(0.1, 10.0) as f32);
            Obb32::new([0; 3].map(|_| rng.range(-1.0, 1.0) as f32), e, h)
        };
        let mut near = 0;
        for case in 0..400 {
            let (a, b) = (turned(&mut rng), turned(&mut rng));
            let rot = Pose::new(rng.unit_quaternion(), [0.0; 3]);
            let v = {
                let d = [0; 3].map(|_| rng.range(-1.0, 1.0));
                let n = crate::geom::dot(d, d).sqrt();
                d.map(|x| x / n)
            };
            // t₀ puts B's centre on A's; B moves along v.
            let rc = rot.apply(b.c.map(f64::from));
            let t0: [f64; 3] = std::array::from_fn(|k| a.c[k] as f64 - rc[k]);
            let pose_at = |s: f64| Pose {
                t: std::array::from_fn(|k| t0[k] + s * v[k]),
                ..rot
            };
            let (ca, ea) = corners(&a);
            let (cb, eb) = corners(&b);
            let na = a.as_f64().axes;
            let nb0 = b.as_f64().axes;
            let oracle = |s: f64| {
                let p = pose_at(s);
                let cbp: Vec<[f64; 3]> = cb.iter().map(|x| p.apply(*x)).collect();
                let rv = |x: [f64; 3]| rot.apply(x);
                gap(&ca, &ea, &na, &cbp, &eb.map(rv), &nb0.map(rv))
            };
            let (mut lo, mut hi) = (0.0, 100.0);
            assert!(oracle(lo) < 0.0 && oracle(hi) > 0.0);
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if oracle(mid) > 0.0 {
                    hi = mid
                } else {
                    lo = mid
                }
            }
            let touch = lo * (1.0 - 1e-9);
            assert!(oracle(touch) <= 0.0);
            let pc = check(&pose_at(touch));
            assert!(!disjoint(&a, &b, &pc), "case {case}: separated at {touch}");
            let pc = check(&pose_at(lo * 1.01 + 1e-3));
            near += disjoint(&a, &b, &pc) as u32;
        }
        assert!(near >= 390, "1% apart separated in {near} of 400 cases");
    }

    /// At the flip of the flushed test's decision, where the deciding inequality is a tie
    /// up to rounding, the CPU path (three lanes at a time, `sat_lanes`) decides alike on
    /// both sides: a different order of any rounded operation shows here. B slides along a
    /// random direction and the flip is bisected to adjacent f64 translations.
    #[test]
    fn the_cpu_path_decides_as_the_flushed_test_at_the_flip() {
        let mut rng = crate::rng::Rng::new(7);
        let mut flips = 0;
        for case in 0..3_000 {
            let mut v = |lo: f64, hi: f64| rng.range(lo, hi);
            let q = [v(-1.0, 1.0), v(-1.0, 1.0), v(-1.0, 1.0), v(-1.0, 1.0)];
            let dir = [v(-1.0, 1.0), v(-1.0, 1.0), v(-1.0, 1.0)];
            let bx = |v: &mut dyn FnMut(f64, f64) -> f64| {
                let axes = Pose::new(
                    [v(-1.0, 1.0), v(-1.0, 1.0), v(-1.0, 1.0), v(-1.0, 1.0)],
                    [0.0; 3],
                );
                let e: [f32; 9] = std::array::from_fn(|k| {
                    let mut u = [0.0; 3];
                    u[k / 3] = 1.0;
                    axes.apply(u)[k % 3] as f32
                });
                Obb32::new(
                    [0; 3].map(|_| v(-1.0, 1.0) as f32),
                    e,
                    [0; 3].map(|_| v(0.01, 1.0) as f32),
                )
            };
            let a = bx(&mut v);
            let b = bx(&mut v);
            let posed = |s: f64| {
                let pose = Pose::new(q, dir.map(|x| x * s));
                let pc = check(&pose);
                obb_posed(&b, &pc.r, &pc.t, pc.t_err)
            };
            let (mut lo, mut hi) = (0.0f64, 8.0f64);
            if obb_disjoint(&a, &posed(lo)) || !obb_disjoint(&a, &posed(hi)) {
                continue;
            }
            while hi - lo > hi * 1e-15 {
                let mid = 0.5 * (lo + hi);
                if obb_disjoint(&a, &posed(mid)) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            for s in [lo, hi] {
                let p = posed(s);
                assert!(screen(p).coarse(), "case {case}");
                assert_eq!(
                    obb_disjoint_cpu(&a, &screen(p)),
                    obb_disjoint(&a, &p),
                    "case {case} at {s}"
                );
            }
            flips += 1;
        }
        assert!(flips > 1_000, "{flips} flips found");
    }

    /// The CPU's unflushed path decides exactly as the flushed twin of the GPU, on random
    /// boxes and on boxes whose values (axes, centres, extents, poses) reach down to 10⁻³⁰,
    /// where products are subnormal and the screen sends the test to the flushed path. (A
    /// decision that the flushes would change needs a tie at the scale of 2⁻¹⁰⁰, which
    /// random boxes do not reach: the screen's correctness rests on the proof on
    /// [`obb_disjoint_cpu`]; this checks the plumbing of both paths.)
    #[test]
    fn the_cpu_path_decides_as_the_flushed_test() {
        let mut rng = crate::rng::Rng::new(41);
        let (mut fast, mut agree_disjoint) = (0, 0);
        for case in 0..20_000 {
            let tiny = case % 3 == 0;
            let mut val = |lo: f64, hi: f64| {
                let v = rng.range(lo, hi);
                if tiny && rng.below(3) == 0 {
                    (v * 1e-30) as f32
                } else {
                    v as f32
                }
            };
            let bx = |val: &mut dyn FnMut(f64, f64) -> f32| {
                let e: [f32; 9] = std::array::from_fn(|_| val(-1.0, 1.0));
                Obb32::new(
                    [0; 3].map(|_| val(-2.0, 2.0)),
                    e,
                    [0; 3].map(|_| val(0.0, 1.0)),
                )
            };
            // A is a fitted box: its numbers are coarse (tiny ones stored as 0).
            let a = bx(&mut val);
            let flush = |x: f32| if x.abs() < COARSE { 0.0 } else { x };
            let a = Obb32::new(a.c.map(flush), a.e.map(flush), a.h.map(|h| h.max(COARSE)));
            let b = bx(&mut val);
            let pose = Pose::new(
                [
                    val(-1.0, 1.0),
                    val(-1.0, 1.0),
                    val(-1.0, 1.0),
                    val(-1.0, 1.0),
                ]
                .map(f64::from),
                [0; 3].map(|_| val(-3.0, 3.0) as f64),
            );
            let pc = check(&pose);
            let posed = obb_posed(&b, &pc.r, &pc.t, pc.t_err);
            let want = obb_disjoint(&a, &posed);
            assert_eq!(obb_disjoint_cpu(&a, &screen(posed)), want, "case {case}");
            fast += screen(posed).coarse() as u32;
            agree_disjoint += want as u32;
        }
        assert!(
            fast > 10_000 && agree_disjoint > 1000,
            "{fast} {agree_disjoint}"
        );
    }

    /// The bits of a screened box: every field, the sign of each zero included.
    fn bits(s: &ScreenedObb) -> Vec<u32> {
        let p = s.posed();
        let mut v: Vec<u32> =
            p.f.iter()
                .chain(&p.c)
                .chain(&p.h)
                .map(|x| x.to_bits())
                .collect();
        v.push(p.e.to_bits());
        v.push(s.coarse() as u32);
        v
    }

    /// The CPU's posing ([`obb_posed_cpu`]) is the flushed posing of the GPU, screened, bit
    /// for bit (zeros' signs included): on random boxes and poses, on boxes and poses with
    /// entries down to 10⁻³⁰ (the flushed fallback), and on signed permutations (exact
    /// zeros, negative zeros in the box, quarter turns), where unflushed products give −0
    /// that the flushed twin turns to +0.
    #[test]
    fn the_cpu_posing_is_the_flushed_posing_bit_for_bit() {
        let mut rng = crate::rng::Rng::new(43);
        let mut fast = [0; 3];
        for case in 0..30_000 {
            let kind = case % 3;
            let mut val = |lo: f64, hi: f64| {
                let v = rng.range(lo, hi);
                if kind == 1 && rng.below(3) == 0 {
                    (v * 1e-30) as f32
                } else {
                    v as f32
                }
            };
            let (b, pose) = if kind == 2 {
                // A signed permutation box (−0 where a coordinate is 0) and a quarter-turn pose.
                let perm = [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1]][case % 4];
                let mut e = [-0.0f32; 9];
                for (i, &k) in perm.iter().enumerate() {
                    e[3 * i + k] = if val(-1.0, 1.0) < 0.0 { -1.0 } else { 1.0 };
                }
                let c = [0; 3].map(|_| {
                    if val(0.0, 1.0) < 0.5 {
                        -0.0
                    } else {
                        val(-2.0, 2.0)
                    }
                });
                let q = [
                    [1.0, 0.0, 0.0, 0.0],
                    [0.0, 1.0, 0.0, 0.0],
                    [1.0, 1.0, 0.0, 0.0],
                    [1.0, 0.0, -1.0, 0.0],
                ][(case / 4) % 4];
                let t = [0; 3].map(|_| {
                    if val(0.0, 1.0) < 0.5 {
                        0.0
                    } else {
                        val(-3.0, 3.0) as f64
                    }
                });
                (
                    Obb32::new(c, e, [0; 3].map(|_| val(0.0, 1.0))),
                    Pose::new(q, t),
                )
            } else {
                let e: [f32; 9] = std::array::from_fn(|_| val(-1.0, 1.0));
                let b = Obb32::new(
                    [0; 3].map(|_| val(-2.0, 2.0)),
                    e,
                    [0; 3].map(|_| val(0.0, 1.0)),
                );
                let q = [0; 4].map(|_| val(-1.0, 1.0) as f64);
                (b, Pose::new(q, [0; 3].map(|_| val(-3.0, 3.0) as f64)))
            };
            let pc = check(&pose);
            let want = screen(obb_posed(&b, &pc.r, &pc.t, pc.t_err));
            let got = obb_posed_cpu(&b, &pc);
            assert_eq!(bits(&got), bits(&want), "case {case}: {b:?} {pose:?}");
            fast[kind] += (pc.coarse && super::super::sat_lanes::coarse_box(&b)) as u32;
        }
        // Random: the fast path; tiny: mostly the flushed one; the permutations: both
        // (rounding leaves entries near 2⁻⁵² in some quarter turns' matrices).
        assert!(
            fast[0] > 9_900 && fast[1] < 2_000 && (1_000..9_000).contains(&fast[2]),
            "{fast:?}"
        );
    }
}
