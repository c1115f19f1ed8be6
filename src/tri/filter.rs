//! The GPU's triangle–triangle test as an f32 *filter* with a rigorous error bound: it answers
//! [`MISS`] or [`HIT`] only when the exact answer ([`super::tri_tri_intersect`] on the f64
//! truth) is certain, and [`UNSURE`] otherwise (those pairs go to the CPU's exact test).
//!
//! This file is the literal Rust twin of `shaders/shared/tri_filter.wgsl` ([`TRI_FILTER_WGSL`]):
//! every function below except the three scalar primitives (`tf_abs`, `tf_max`, `tf_min`)
//! and the public wrapper [`tri_tri_filter`] has the same name, the same statements in the
//! same order and the same text as its WGSL twin (`tests/tri_filter.rs` checks this). A
//! "vector" is `TfV3` (`[f32; 3]` here, `vec3<f32>` there), built with `TfV3(x, y, z)` and
//! read with `v[0]`, so arithmetic is written component by component in a fixed order.
//!
//! # Contract
//!
//! Coordinates are local ([`crate::frame`]): A's relative to A's origin `o_A`, B's to `o_B`.
//! Triangle A has f32 corners `a`, each the f32 rounding of a true local corner (within
//! `2u·‖a‖∞` plus a floor, [`crate::frame::INPUT_REL`]). Triangle B has f32 corners `p`, the
//! same roundings of its true local corners; its truth is `Pose::apply(b) − o_A` (f64
//! `R·b + t` of the corner `b` as written, less A's origin). The GPU has `r32 = fl32(R)`
//! (row-major), `t32 = fl32(t_L)` of the local pose and `e0 = fl32↑(2·abs_err)`
//! ([`crate::frame::LocalPose`]), computes `q = transform_f32(r32, t32, p)`, `eps_q = max`
//! over B's corners of `transform_error_bound(p, t32, e0)`, and calls
//! `tri_tri_filter(a, q, eps_q)`; the filter adds A's rounding to `eps_q` itself, so every
//! corner of either triangle lies within `eps` of its truth.
//!
//! # Error model (u = 2^-24)
//!
//! Every `+ - *` of two f32 is correctly rounded: `fl(x∘y) = (x∘y)(1+δ)`, `|δ| ≤ u` (WGSL
//! requires this for f32). A compiler may fuse `x*y+z` into one rounding: that only sets
//! some `δ` to 0, and every bound below is a `γ_k = k·u/(1-k·u)` bound over *some* order of
//! at most `k` roundings, so it holds fused or not and for any summation order. Subnormals
//! may be flushed to zero (WGSL allows it): that adds an absolute error `≤ 2^-126` per
//! operation, covered by the absolute terms `TF_TINY·(…)` (`2^-110`, 2^16 times more than
//! the counted flush errors) and `TF_EPS_FLOOR` (`2^-100`). Inputs are guarded: any
//! coordinate beyond `2^24` (or NaN), or `eps_q` outside `[0, 2^20]`, gives [`UNSURE`]; then
//! every intermediate stays below `2^110`, so nothing overflows. Each computed bound is
//! itself rounded (at most ~10 roundings, relative `≤ 10u`) and compared with a rounded
//! difference (`u`); the factor `TF_SLACK = 1 + 2^-10` on perturbation terms and the
//! doubled constants (16u where 8u suffices) absorb that.
//!
//! * **Transform** ([`transform_error_bound`]), per coordinate `i`, with `S = Σ_k |r_ik||p_k|
//!   + |t_i| ≤ |p|₁ + ‖t‖∞` (rotation: `|r_ik| ≤ 1 + 2^-50`): rounding `R` and `t_L` to f32
//!   moves the exact value by `≤ u·S`; the f32 evaluation of 3 products and 3 sums errs by
//!   `≤ γ_4·S(1+u)`; `p` is the nearest f32 to the f64 `fl64(b − o_B)`, so within
//!   `u·|p_k|(1+u) + 2⁻⁵³·|p_k|(1+2u)` of the true local corner, which moves `R·p` by at most
//!   `1.01u·|p|₁` (A's corners, for which [`crate::frame::INPUT_REL`]` = 2u` is used, need
//!   no such care); and the truth `Pose::apply(b) − o_A` is within `abs_err` of the real
//!   `R·(b − o_B) + t_L` ([`crate::frame::LocalPose::new`]), covered by `e0 = 2·abs_err`.
//!   The total is at most `6.02u·S + e0`; we return `8u·(|p|₁ + ‖t32‖∞) + 2^-100 + e0`.
//! * **Separating axis** (`tf_separates`), for any f32 vector `n` (however it was computed, it
//!   is taken as exact): with `d_x = fl(x − a0)` and `s_x = fl(n·d_x)`,
//!   `|s_x − n·(x − a0)| ≤ (γ_3 + u(1+u))·Σ|n_k||d_xk| ≤ 4.01u·|n|₁·D` (`D = max ‖d_x‖∞`),
//!   and the truths move a gap `n·b − n·a` by `≤ |n|₁·(eps_q + eps_A) ≤ |n|₁·eps` (`a0`'s own
//!   error shifts both sides alike). So `min_B s − max_A s > |n|₁·(16u·D + eps)·SLACK + η`
//!   (or the mirror) proves a gap along `n`: certain MISS. It is tested as `fl(max(…) −
//!   bound) > 0` (`tf_gap`): a rounded difference of two floats is positive exactly when
//!   the difference is (a flush to zero only turns a MISS into UNSURE).
//! * **Farther than a tolerance** (`tri_tri_farther`, a tolerance query's triangle pairs):
//!   along `n` = the sum of B's corners less the sum of A's (relative to `a0`; any f32
//!   vector, taken as exact), `tf_gap` returns `g = fl(max(bmin − amax, amin − bmax) −
//!   bound)` with `tf_separates`'s bound, which exceeds the error terms above by the factor
//!   `SLACK`: so the true gap along `n` is `G ≥ c(1 − u) − bound/SLACK` for the computed
//!   difference `c`, and `G ≥ g(1 − 2u)` when `g > 0`. The triangles are then at least
//!   `G/|n|₂` apart. With `nn = fl(n·n) ≥ |n|²(1 − 3u) − 3·2⁻¹²⁶` and `nn ≥ 2⁻¹⁰⁰` (so the
//!   flushes cost at most `3·2⁻²⁶` relative), `t2 ≥ e²(1 + 2⁻¹⁸)²` and `S = 1 + 2⁻¹⁶`,
//!   `fl(g·g) > fl(fl(t2·nn)·S)` gives `g²(1 + u) > e²|n|²(1 + 2⁻¹⁸)²·S·(1 − 7u)`, so
//!   `G ≥ g(1 − 2u) > e·|n|₂·(1 + 2⁻¹⁸ + 2⁻¹⁷ − 6u) > e·|n|₂`: farther than `e`. No
//!   overflow: coordinates are below `2^24`, so `|n|₁ < 2^30`, `g < 2^55`, `g² < 2^110`; a
//!   product `t2·nn` that overflows is `+∞` and prunes nothing.
//! * **Orientation** (`tf_orient_sign`), `det[pa−pd; pb−pd; pc−pd] = ad·(bd×cd)`: every
//!   term passes through at most 7 roundings (difference, 2 products, subtraction, product,
//!   2 sums) so `|det − det_exact| ≤ γ_7·perm ≤ 8u·perm` with `perm = |ad|·pcross(|bd|,|cd|)`
//!   (Shewchuk's permanent; his orient3d bound is `7u`), and we use `16u·perm`. If each row
//!   of the truth moves by `‖Δ‖∞ ≤ δ`, expanding the trilinear `x·(y×z)` into its 7 mixed
//!   terms and using `|Δx·(y×z)| ≤ δ·‖y×z‖₁ ≤ δ·‖pcross(|y|,|z|)‖₁`, `‖Δy×z‖₁ ≤ 2δ‖z‖₁`,
//!   `‖Δy×Δz‖₁ ≤ 6δ²` gives `|Δdet| ≤ δ·Σ‖pcross‖₁ + 2δ²·Σ‖row‖₁ + 6δ³`. A sign is
//!   certain when `|det|` exceeds the sum (times SLACK) plus `η = 2^-110·(1+max|row|)²`.
//! * **Certain HIT**: a segment `xy` meets a closed triangle `t0t1t2` if `x`, `y` are
//!   certainly strictly on opposite sides of the triangle's plane and the three
//!   `orient3d(x, y, t_i, t_j)` are certainly nonzero with one sign (the line crosses the
//!   triangle's interior, at a point between `x` and `y`). Edges of a zero-area triangle lie
//!   in the segment or point it is, so this is sound for degenerate triangles too. Row
//!   perturbations: with every corner within `eps = eps_q + 2u·‖a‖∞·SLACK + 2^-100` of its
//!   truth, a row joining two corners moves by at most `2·eps` (edge tests) and a plane
//!   test's rows (a corner of one triangle less a corner of the other) by at most `eps`.
//!
//! # Method
//!
//! 1. Guard (non-finite or huge → [`UNSURE`]).
//! 2. Certain MISS: 23 candidate axes — both face normals, the 9 edge×edge products, and
//!    the 12 in-plane edge normals `n_A×e`, `n_B×e` for edges `e` of A and B (these
//!    separate (nearly) coplanar or degenerate pairs).
//! 3. Certain HIT: each of the 6 edges crossing the other triangle properly.
//! 4. Otherwise [`UNSURE`]: touching, coplanar overlap and degenerate contacts land here.

// Kept literally parallel to WGSL, which has explicit `return`s, no ranges and no structs to
// bundle arguments in.
#![allow(
    clippy::needless_return,
    clippy::too_many_arguments,
    clippy::manual_range_contains
)]

/// The WGSL twin of this module, to be concatenated textually with a kernel's source.
pub const TRI_FILTER_WGSL: &str = include_str!("../../shaders/shared/tri_filter.wgsl");

/// Certainly disjoint.
pub const MISS: u32 = 0;
/// Certainly intersecting (closed triangles).
pub const HIT: u32 = 1;
/// Not decided in f32: resolve with the exact test.
pub const UNSURE: u32 = 2;

const TF_MISS: u32 = MISS;
const TF_HIT: u32 = HIT;
const TF_UNSURE: u32 = UNSURE;

/// `vec3<f32>` in WGSL.
pub type TfV3 = [f32; 3];

/// The `vec3<f32>` constructor of WGSL.
#[allow(non_snake_case)]
#[inline(always)]
const fn TfV3(x: f32, y: f32, z: f32) -> TfV3 {
    [x, y, z]
}

// Unit roundoff of f32, 2^-24.
const TF_U: f32 = 1.0 / 16777216.0;
// 2^-110: absolute term covering flushed subnormals in the filter.
const TF_TINY: f32 = TF_U * TF_U * TF_U * TF_U / 16384.0;
// 2^-100: absolute term covering flushed subnormals in the transform.
const TF_EPS_FLOOR: f32 = TF_U * TF_U * TF_U * TF_U / 16.0;
// Covers the rounding of the bounds themselves and of the compared differences.
const TF_SLACK: f32 = 1.0 + 1.0 / 1024.0;
// Largest accepted |coordinate| (2^24) and eps_q (2^20).
const TF_LIMIT: f32 = 16777216.0;
const TF_EPS_LIMIT: f32 = 1048576.0;

#[inline(always)]
fn tf_abs(x: f32) -> f32 {
    return x.abs();
}

#[inline(always)]
fn tf_max(x: f32, y: f32) -> f32 {
    return x.max(y);
}

#[inline(always)]
fn tf_min(x: f32, y: f32) -> f32 {
    return x.min(y);
}

#[inline(always)]
fn tf_sub(a: TfV3, b: TfV3) -> TfV3 {
    return TfV3(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

#[inline(always)]
fn tf_abs3(a: TfV3) -> TfV3 {
    return TfV3(tf_abs(a[0]), tf_abs(a[1]), tf_abs(a[2]));
}

#[inline(always)]
fn tf_cross(a: TfV3, b: TfV3) -> TfV3 {
    return TfV3(
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    );
}

// The cross product's permanent: every product with a plus sign (for |a|, |b|).
#[inline(always)]
fn tf_pcross(a: TfV3, b: TfV3) -> TfV3 {
    return TfV3(
        a[1] * b[2] + a[2] * b[1],
        a[2] * b[0] + a[0] * b[2],
        a[0] * b[1] + a[1] * b[0],
    );
}

#[inline(always)]
fn tf_dot(a: TfV3, b: TfV3) -> f32 {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

#[inline(always)]
fn tf_norm1(a: TfV3) -> f32 {
    return tf_abs(a[0]) + tf_abs(a[1]) + tf_abs(a[2]);
}

#[inline(always)]
fn tf_norm_max(a: TfV3) -> f32 {
    return tf_max(tf_max(tf_abs(a[0]), tf_abs(a[1])), tf_abs(a[2]));
}

// False for NaN (every comparison with NaN is false) and for |coordinate| > 2^24.
#[inline(always)]
fn tf_in_range(a: TfV3) -> bool {
    return tf_abs(a[0]) <= TF_LIMIT && tf_abs(a[1]) <= TF_LIMIT && tf_abs(a[2]) <= TF_LIMIT;
}

/// `r·p + t` in f32 (`r` row-major), in this fixed order: the GPU's transform of B's corner.
pub fn transform_f32(r: &[f32; 9], t: &[f32; 3], p: [f32; 3]) -> [f32; 3] {
    let x = r[0] * p[0] + r[1] * p[1] + r[2] * p[2] + t[0];
    let y = r[3] * p[0] + r[4] * p[1] + r[5] * p[2] + t[1];
    let z = r[6] * p[0] + r[7] * p[1] + r[8] * p[2] + t[2];
    return TfV3(x, y, z);
}

/// A bound on `max_i |transform_f32(fl32(R), t, p)_i − (Pose::apply(b) − o_A)_i|` for a
/// rotation `R`, `t = fl32(t_L)` of the local pose, `p` the local f32 corner of `b` and `e0`
/// twice the local pose's `abs_err`, fused multiply-adds or not (derivation in the module
/// docs).
pub fn transform_error_bound(p: [f32; 3], &t: &[f32; 3], e0: f32) -> f32 {
    let s = tf_norm1(p) + tf_norm_max(t);
    return 8.0 * TF_U * s + TF_EPS_FLOOR + e0;
}

// Sign of orient3d(pa, pb, pc, pd) = det[pa - pd; pb - pd; pc - pd] of the TRUE points when
// it is certain (+1 or -1), else 0. `delta` bounds the max-norm distance between each row
// (pa - pd, pb - pd, pc - pd) of the given points and the same row of the true points.
fn tf_orient_sign(pa: TfV3, pb: TfV3, pc: TfV3, pd: TfV3, delta: f32) -> i32 {
    let ad = tf_sub(pa, pd);
    let bd = tf_sub(pb, pd);
    let cd = tf_sub(pc, pd);
    let det = tf_dot(ad, tf_cross(bd, cd));
    let aa = tf_abs3(ad);
    let ab = tf_abs3(bd);
    let ac = tf_abs3(cd);
    let pbc = tf_pcross(ab, ac);
    let perm = tf_dot(aa, pbc);
    let s1 = tf_norm1(pbc) + tf_norm1(tf_pcross(ac, aa)) + tf_norm1(tf_pcross(aa, ab));
    let s2 = tf_norm1(aa) + tf_norm1(ab) + tf_norm1(ac);
    let sens = delta * s1 + 2.0 * delta * delta * s2 + 6.0 * delta * delta * delta;
    let m = tf_max(tf_max(tf_norm_max(ad), tf_norm_max(bd)), tf_norm_max(cd));
    let bound = (16.0 * TF_U * perm + sens) * TF_SLACK + TF_TINY * (1.0 + m) * (1.0 + m);
    if det > bound {
        return 1;
    }
    if det < -bound {
        return -1;
    }
    return 0;
}

// True if axis `n` certainly separates A (corners a0 + da_i) from the TRUE B (within eps_q of
// a0 + db_j). `w = (16u·dmax + eps_q)·SLACK`, `dmax` = the largest |coordinate| of the d's.
fn tf_separates(
    n: TfV3,
    da0: TfV3,
    da1: TfV3,
    da2: TfV3,
    db0: TfV3,
    db1: TfV3,
    db2: TfV3,
    w: f32,
    dmax: f32,
) -> bool {
    return tf_gap(n, da0, da1, da2, db0, db1, db2, w, dmax) > 0.0;
}

// The gap of A and B along `n` less the bound of its errors (`w`, `dmax` as tf_separates
// takes them): positive only if `n` separates the TRUE triangles, and then at most (1 + 2u)
// times their gap along `n` (a length times |n|).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn tf_gap(
    n: TfV3,
    da0: TfV3,
    da1: TfV3,
    da2: TfV3,
    db0: TfV3,
    db1: TfV3,
    db2: TfV3,
    w: f32,
    dmax: f32,
) -> f32 {
    let sa0 = tf_dot(n, da0);
    let sa1 = tf_dot(n, da1);
    let sa2 = tf_dot(n, da2);
    let sb0 = tf_dot(n, db0);
    let sb1 = tf_dot(n, db1);
    let sb2 = tf_dot(n, db2);
    let amin = tf_min(tf_min(sa0, sa1), sa2);
    let amax = tf_max(tf_max(sa0, sa1), sa2);
    let bmin = tf_min(tf_min(sb0, sb1), sb2);
    let bmax = tf_max(tf_max(sb0, sb1), sb2);
    let n1 = tf_norm1(n);
    let bound = n1 * w + TF_TINY * (1.0 + n1 + dmax);
    return tf_max(bmin - amax, amin - bmax) - bound;
}

// True if segment xy certainly meets the closed triangle t0t1t2 properly: x and y strictly
// on opposite sides of its plane (signs sx, sy from tf_orient_sign) and the line xy through
// its interior. `delta` bounds the row perturbation of orient3d(x, y, t_i, t_j).
fn tf_edge_through(
    x: TfV3,
    y: TfV3,
    sx: i32,
    sy: i32,
    t0: TfV3,
    t1: TfV3,
    t2: TfV3,
    delta: f32,
) -> bool {
    if sx * sy != -1 {
        return false;
    }
    let l0 = tf_orient_sign(x, y, t0, t1, delta);
    let l1 = tf_orient_sign(x, y, t1, t2, delta);
    let l2 = tf_orient_sign(x, y, t2, t0, delta);
    return l0 != 0 && l0 == l1 && l1 == l2;
}

/// The filter: [`MISS`] or [`HIT`] only if that is the exact answer for every A whose corners
/// lie within `2u·‖a_i‖∞ + 2^-100` (max-norm) of `a` and every B whose corners lie within
/// `eps_q` of `q`; [`UNSURE`] otherwise.
pub fn tri_tri_filter(a: &[[f32; 3]; 3], q: &[[f32; 3]; 3], eps_q: f32) -> u32 {
    return tri_tri_filter_corners(a[0], a[1], a[2], q[0], q[1], q[2], eps_q);
}

/// [`tri_tri_filter`] with the corners as separate arguments: the twin of WGSL's
/// `tri_tri_filter(a0, a1, a2, q0, q1, q2, eps_q)`.
pub fn tri_tri_filter_corners(
    a0: TfV3,
    a1: TfV3,
    a2: TfV3,
    q0: TfV3,
    q1: TfV3,
    q2: TfV3,
    eps_q: f32,
) -> u32 {
    // 1. Guard: NaN, infinities, huge coordinates or a bad eps_q.
    let ok = tf_in_range(a0)
        && tf_in_range(a1)
        && tf_in_range(a2)
        && tf_in_range(q0)
        && tf_in_range(q1)
        && tf_in_range(q2);
    // A's corners are f32 roundings of the true ones (within 2u of each coordinate, plus
    // the floor); with B's eps_q, every corner of either triangle is within eps of its truth.
    let amax = tf_max(tf_max(tf_norm_max(a0), tf_norm_max(a1)), tf_norm_max(a2));
    let eps = eps_q + (2.0 * TF_U * amax + TF_EPS_FLOOR) * TF_SLACK;
    if !(ok && eps_q >= 0.0 && eps <= TF_EPS_LIMIT) {
        return TF_UNSURE;
    }
    // 2. Certain MISS: a separating axis, with coordinates relative to a0.
    let da0 = tf_sub(a0, a0);
    let da1 = tf_sub(a1, a0);
    let da2 = tf_sub(a2, a0);
    let db0 = tf_sub(q0, a0);
    let db1 = tf_sub(q1, a0);
    let db2 = tf_sub(q2, a0);
    let dmax = tf_max(
        tf_max(tf_norm_max(da1), tf_norm_max(da2)),
        tf_max(tf_max(tf_norm_max(db0), tf_norm_max(db1)), tf_norm_max(db2)),
    );
    let w = (16.0 * TF_U * dmax + eps) * TF_SLACK;
    let ea0 = tf_sub(a1, a0);
    let ea1 = tf_sub(a2, a1);
    let ea2 = tf_sub(a0, a2);
    let eb0 = tf_sub(q1, q0);
    let eb1 = tf_sub(q2, q1);
    let eb2 = tf_sub(q0, q2);
    let na = tf_cross(ea0, ea1);
    let nb = tf_cross(eb0, eb1);
    if tf_separates(na, da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(nb, da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(ea0, eb0), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(ea0, eb1), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(ea0, eb2), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(ea1, eb0), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(ea1, eb1), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(ea1, eb2), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(ea2, eb0), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(ea2, eb1), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(ea2, eb2), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(na, ea0), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(na, ea1), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(na, ea2), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(nb, eb0), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(nb, eb1), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(nb, eb2), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(nb, ea0), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(nb, ea1), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(nb, ea2), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(na, eb0), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(na, eb1), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    if tf_separates(tf_cross(na, eb2), da0, da1, da2, db0, db1, db2, w, dmax) {
        return TF_MISS;
    }
    // 3. Certain HIT: an edge of one triangle properly through the other.
    let e2 = 2.0 * eps;
    let sb0 = tf_orient_sign(a0, a1, a2, q0, eps);
    let sb1 = tf_orient_sign(a0, a1, a2, q1, eps);
    let sb2 = tf_orient_sign(a0, a1, a2, q2, eps);
    if tf_edge_through(q0, q1, sb0, sb1, a0, a1, a2, e2) {
        return TF_HIT;
    }
    if tf_edge_through(q1, q2, sb1, sb2, a0, a1, a2, e2) {
        return TF_HIT;
    }
    if tf_edge_through(q2, q0, sb2, sb0, a0, a1, a2, e2) {
        return TF_HIT;
    }
    let sa0 = tf_orient_sign(q0, q1, q2, a0, eps);
    let sa1 = tf_orient_sign(q0, q1, q2, a1, eps);
    let sa2 = tf_orient_sign(q0, q1, q2, a2, eps);
    if tf_edge_through(a0, a1, sa0, sa1, q0, q1, q2, e2) {
        return TF_HIT;
    }
    if tf_edge_through(a1, a2, sa1, sa2, q0, q1, q2, e2) {
        return TF_HIT;
    }
    if tf_edge_through(a2, a0, sa2, sa0, q0, q1, q2, e2) {
        return TF_HIT;
    }
    // 4. Touching, coplanar, degenerate or too close to call.
    return TF_UNSURE;
}

/// True only if the TRUE triangles are more than `e` apart, given `t2 >= e^2` (an f32 at
/// least e^2): A's corners within 2u·|a_i|∞ + 2^-100 of (a0, a1, a2) and B's within eps_q of
/// (q0, q1, q2), as tri_tri_filter takes them. Their certified gap along the direction
/// between the centroids (proof in src/tri/filter.rs, "Farther than a tolerance").
#[allow(clippy::too_many_arguments)]
pub fn tri_tri_farther(
    a0: TfV3,
    a1: TfV3,
    a2: TfV3,
    q0: TfV3,
    q1: TfV3,
    q2: TfV3,
    eps_q: f32,
    t2: f32,
) -> bool {
    let ok = tf_in_range(a0)
        && tf_in_range(a1)
        && tf_in_range(a2)
        && tf_in_range(q0)
        && tf_in_range(q1)
        && tf_in_range(q2);
    let amax = tf_max(tf_max(tf_norm_max(a0), tf_norm_max(a1)), tf_norm_max(a2));
    let eps = eps_q + (2.0 * TF_U * amax + TF_EPS_FLOOR) * TF_SLACK;
    if !(ok && eps_q >= 0.0 && eps <= TF_EPS_LIMIT) {
        return false;
    }
    let da0 = tf_sub(a0, a0);
    let da1 = tf_sub(a1, a0);
    let da2 = tf_sub(a2, a0);
    let db0 = tf_sub(q0, a0);
    let db1 = tf_sub(q1, a0);
    let db2 = tf_sub(q2, a0);
    let dmax = tf_max(
        tf_max(tf_norm_max(da1), tf_norm_max(da2)),
        tf_max(tf_max(tf_norm_max(db0), tf_norm_max(db1)), tf_norm_max(db2)),
    );
    let w = (16.0 * TF_U * dmax + eps) * TF_SLACK;
    let n = TfV3(
        db0[0] + db1[0] + db2[0] - da1[0] - da2[0],
        db0[1] + db1[1] + db2[1] - da1[1] - da2[1],
        db0[2] + db1[2] + db2[2] - da1[2] - da2[2],
    );
    let nn = tf_dot(n, n);
    let g = tf_gap(n, da0, da1, da2, db0, db1, db2, w, dmax);
    return nn >= TF_EPS_FLOOR && g > 0.0 && g * g > t2 * nn * (1.0 + 1.0 / 65536.0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_the_intended_powers_of_two() {
        assert_eq!(TF_U, 2f32.powi(-24));
        assert_eq!(TF_TINY, 2f32.powi(-110));
        assert_eq!(TF_EPS_FLOOR, 2f32.powi(-100));
        assert_eq!(TF_LIMIT, 2f32.powi(24));
        assert_eq!(TF_EPS_LIMIT, 2f32.powi(20));
        assert_eq!(TF_SLACK, 1.0 + 2f32.powi(-10));
    }

    #[test]
    fn plain_cases() {
        let a = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let eps = 1e-6;
        // Piercing A's interior.
        let b = [[0.2, 0.2, -1.0], [0.3, 0.2, 1.0], [0.2, 0.3, 1.0]];
        assert_eq!(tri_tri_filter(&a, &b, eps), HIT);
        assert_eq!(tri_tri_filter(&b, &a, eps), HIT);
        // Far above.
        let c = b.map(|p| [p[0], p[1], p[2] + 5.0]);
        assert_eq!(tri_tri_filter(&a, &c, eps), MISS);
        assert_eq!(tri_tri_filter(&c, &a, eps), MISS);
        // Coplanar, separated in the plane (only an in-plane axis separates).
        let d = a.map(|p| [p[0] + 2.0, p[1] + 2.0, p[2]]);
        assert_eq!(tri_tri_filter(&a, &d, eps), MISS);
        // Touching at a vertex: undecidable in f32.
        let e = [[0.2, 0.2, 0.0], [0.3, 0.2, 1.0], [0.2, 0.3, 1.0]];
        assert_eq!(tri_tri_filter(&a, &e, eps), UNSURE);
        // Coplanar overlap.
        assert_eq!(tri_tri_filter(&a, &a, eps), UNSURE);
    }

    #[test]
    fn guards() {
        let a = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let b = [[0.2, 0.2, -1.0], [0.3, 0.2, 1.0], [0.2, 0.3, 1.0]];
        for bad in [f32::NAN, f32::INFINITY, -f32::INFINITY, 1e30, -3e7] {
            let mut c = b;
            c[1][2] = bad;
            assert_eq!(tri_tri_filter(&a, &c, 1e-6), UNSURE);
            assert_eq!(tri_tri_filter(&c, &a, 1e-6), UNSURE);
        }
        for bad_eps in [f32::NAN, -1.0, f32::INFINITY, 1e7] {
            assert_eq!(tri_tri_filter(&a, &b, bad_eps), UNSURE);
        }
    }

    #[test]
    fn transform_bound_covers_identity_and_translation() {
        let r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        let t = [0.1f32, -2.5, 1e3];
        let p = [0.3f32, 0.7, -0.9];
        let q = transform_f32(&r, &t, p);
        let e = transform_error_bound(p, &t, 0.0);
        for k in 0..3 {
            let exact = p[k] as f64 + t[k] as f64;
            assert!((q[k] as f64 - exact).abs() <= e as f64);
        }
        assert!(e > 0.0 && e < 1e-3);
    }
}
