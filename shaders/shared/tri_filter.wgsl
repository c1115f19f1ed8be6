// tri_filter.wgsl — the GPU's triangle–triangle test as an f32 FILTER with a rigorous error
// bound: MISS (0) or HIT (1) only when the exact answer (meshcollide::tri::tri_tri_intersect on
// the f64 truth) is certain, UNSURE (2) otherwise; UNSURE pairs are resolved on the CPU.
//
// Written to be concatenated textually with a kernel's source: no bindings, no entry points.
// Public functions: transform_f32, transform_error_bound, tri_tri_filter, tri_tri_farther;
// every other name starts with tf_ / TF_ / TfV3.
//
// Literal twin of src/tri/filter.rs (same functions, same statements, same order); the
// error-bound derivation is in that file's module documentation. Usage per B corner p:
//   q = transform_f32(r32, t32, p); eps = transform_error_bound(p, t32, frame.t_err);
// then tri_tri_filter(a0, a1, a2, q0, q1, q2, max(eps0, max(eps1, eps2))).

alias TfV3 = vec3<f32>;

const TF_MISS: u32 = 0u;
const TF_HIT: u32 = 1u;
const TF_UNSURE: u32 = 2u;

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

fn tf_abs(x: f32) -> f32 {
    return abs(x);
}

fn tf_max(x: f32, y: f32) -> f32 {
    return max(x, y);
}

fn tf_min(x: f32, y: f32) -> f32 {
    return min(x, y);
}

fn tf_sub(a: TfV3, b: TfV3) -> TfV3 {
    return TfV3(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

fn tf_abs3(a: TfV3) -> TfV3 {
    return TfV3(tf_abs(a[0]), tf_abs(a[1]), tf_abs(a[2]));
}

fn tf_cross(a: TfV3, b: TfV3) -> TfV3 {
    return TfV3(
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    );
}

// The cross product's permanent: every product with a plus sign (for |a|, |b|).
fn tf_pcross(a: TfV3, b: TfV3) -> TfV3 {
    return TfV3(
        a[1] * b[2] + a[2] * b[1],
        a[2] * b[0] + a[0] * b[2],
        a[0] * b[1] + a[1] * b[0],
    );
}

fn tf_dot(a: TfV3, b: TfV3) -> f32 {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

fn tf_norm1(a: TfV3) -> f32 {
    return tf_abs(a[0]) + tf_abs(a[1]) + tf_abs(a[2]);
}

fn tf_norm_max(a: TfV3) -> f32 {
    return tf_max(tf_max(tf_abs(a[0]), tf_abs(a[1])), tf_abs(a[2]));
}

// False for NaN (every comparison with NaN is false) and for |coordinate| > 2^24.
fn tf_in_range(a: TfV3) -> bool {
    return tf_abs(a[0]) <= TF_LIMIT && tf_abs(a[1]) <= TF_LIMIT && tf_abs(a[2]) <= TF_LIMIT;
}

// `r·p + t` in f32 (`r` row-major), in this fixed order: the GPU's transform of B's corner.
// CPU twin: src/gpu/mirror/tri_filter.rs::transform_f32
fn transform_f32(r: array<f32, 9>, t: TfV3, p: TfV3) -> TfV3 {
    let x = r[0] * p[0] + r[1] * p[1] + r[2] * p[2] + t[0];
    let y = r[3] * p[0] + r[4] * p[1] + r[5] * p[2] + t[1];
    let z = r[6] * p[0] + r[7] * p[1] + r[8] * p[2] + t[2];
    return TfV3(x, y, z);
}

// A bound on `max_i |transform_f32(fl32(R), t, p)_i − (Pose::apply(b) − o_A)_i|` for a
// rotation `R`, `t = fl32(t_L)` of the local pose, `p` the local f32 corner of `b` and `e0`
// twice the local pose's `abs_err`, fused multiply-adds or not (derivation in the module docs).
// CPU twin: src/gpu/mirror/tri_filter.rs::transform_error_bound
fn transform_error_bound(p: TfV3, t: TfV3, e0: f32) -> f32 {
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

// The filter (twin of the Rust tri_tri_filter_corners): MISS or HIT only if that is the exact
// answer for every A whose corners lie within 2u·|a_i|∞ + 2^-100 (max-norm) of (a0, a1, a2)
// and every B whose corners lie within eps_q of (q0, q1, q2); UNSURE otherwise.
// CPU twin: src/gpu/mirror/tri_filter.rs::tri_tri_filter
fn tri_tri_filter(
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

// True only if the TRUE triangles are more than `e` apart, given `t2 >= e^2` (an f32 at
// least e^2): A's corners within 2u·|a_i|∞ + 2^-100 of (a0, a1, a2) and B's within eps_q of
// (q0, q1, q2), as tri_tri_filter takes them. Their certified gap along the direction
// between the centroids (proof in src/tri/filter.rs, "Farther than a tolerance").
// CPU twin: src/gpu/mirror/tri_filter.rs::tri_tri_farther
fn tri_tri_farther(
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
