//! Exact triangle–triangle intersection for closed triangles.
//!
//! # Method
//!
//! Every decision is the exact sign of one of Shewchuk's adaptive predicates
//! ([`robust::orient3d`], [`robust::orient2d`] on an axis-plane projection). No quantity is
//! ever constructed (no intersection points, no normals), so nothing is rounded.
//!
//! 1. Each triangle is classified as a [`Shape`]: a proper triangle (non-collinear), a
//!    segment (collinear, not all equal) or a point. A zero-area triangle *is* the segment
//!    or point it covers, so it is tested as such.
//! 2. Two proper triangles: if all vertices of one lie strictly on one side of the other's
//!    plane they are disjoint. Otherwise they intersect iff an edge of one meets the other
//!    ([`segment_triangle`]); see [`proper_proper`] for why this is complete.
//! 3. Segments and points use closed segment–triangle, segment–segment, point–triangle,
//!    point–segment and point–point tests. Coplanar configurations are decided in 2D, in an
//!    axis-plane projection that is injective on the common plane (an axis whose projected
//!    exact `orient2d` is nonzero), so the 2D answer is the 3D answer.
//!
//! # Epsilon policy
//!
//! There is **no epsilon**. The inputs are taken as exact f64 values and every predicate
//! sign is exact, so touching counts as intersecting and a gap of one ulp counts as
//! disjoint. Results are symmetric in the two triangles and invariant under permuting the
//! vertices of either, because each decision is a geometric fact about the exact inputs.
//!
//! Exactness assumes the predicates' internal products neither overflow nor underflow.
//! A sufficient condition: every nonzero coordinate has magnitude in `[2^-256, 2^256]`
//! (coordinates are then multiples of `2^-308`, so every exact product of three
//! differences is a multiple of `2^-924` and below `2^780`, far from both limits). Every
//! finite `f32` value (a multiple of `2^-149` below `2^128`) satisfies the same argument,
//! so [`tri_tri_intersect_f32`] is exact for all finite inputs. Outside that range an f64
//! result may be wrong, but the functions never panic.

use robust::{Coord, Coord3D, orient2d, orient3d};

pub mod contact;
pub mod distance;
pub mod exact;
pub mod filter;
pub mod oracle;

/// A point in 3D.
pub type P3 = [f64; 3];

crate::isa_variants! {
/// Exact test whether two closed triangles intersect (touching counts; zero-area
/// triangles are treated as the segment or point they are).
///
/// The six plane orientations are computed once and reused: they reject pairs with one
/// triangle strictly on one side of the other's plane, and, when each triangle has a vertex
/// off the other's plane, they prove both triangles proper (a nonzero `orient3d(a0, a1,
/// a2, ·)` needs non-collinear `a`) and not coplanar, so two more orientations decide
/// (`intervals_meet`). Every other pair (a triangle
/// with all of the other's vertices on its plane: coplanar or degenerate) takes the general
/// path, [`tri_tri_general`]. The decisions are the same signs either way.
/// Compiled for x86-64-v3 too ([`crate::isa`]).
pub fn tri_tri_intersect[](a: &[P3; 3], b: &[P3; 3]) -> bool {
    let db = plane_signs(a, b);
    if strictly_one_sign(&db) {
        return false;
    }
    let da = plane_signs(b, a);
    if strictly_one_sign(&da) {
        return false;
    }
    if db == [0.0; 3] || da == [0.0; 3] {
        return tri_tri_general(a, b);
    }
    intervals_meet(a, &da, b, &db)
}
}

/// [`tri_tri_intersect`] by shape: each triangle classified ([`Shape::of`]), then the test
/// for that pair of shapes. Used for coplanar and degenerate pairs, and as the reference
/// the plane-sign fast path is tested against.
pub fn tri_tri_general(a: &[P3; 3], b: &[P3; 3]) -> bool {
    match (Shape::of(a), Shape::of(b)) {
        (Shape::Tri(a), Shape::Tri(b)) => proper_proper(&a, &b),
        (Shape::Tri(t), Shape::Seg(p, q)) | (Shape::Seg(p, q), Shape::Tri(t)) => {
            segment_triangle(&p, &q, &t)
        }
        (Shape::Tri(t), Shape::Point(p)) | (Shape::Point(p), Shape::Tri(t)) => {
            point_triangle(&p, &t)
        }
        (Shape::Seg(p, q), Shape::Seg(r, s)) => segment_segment(&p, &q, &r, &s),
        (Shape::Seg(p, q), Shape::Point(r)) | (Shape::Point(r), Shape::Seg(p, q)) => {
            point_segment(&r, &p, &q)
        }
        (Shape::Point(p), Shape::Point(q)) => p == q,
    }
}

/// Error factor of [`plane_signs`]' filter: `9·2^-53` (the proof needs `8·2^-53·(1 + 2^-49)`).
const PLANE_FILTER: f64 = 9.0 * f64::EPSILON / 2.0;

/// Numbers with the exact signs of `orient3d(t0, t1, t2, p_i)` for the three points `p`,
/// the triangle's edge cross product shared by the three (`robust::orient3d` recomputes it
/// each time); a sign the filter cannot certify is the exact [`robust::orient3d`].
///
/// `orient3d(t0, t1, t2, p) = −det[U; V; W]` with the exact differences `U = t1 − t0`,
/// `V = t2 − t0`, `W = p − t0`. We evaluate `s = w·(u × v)` from the rounded differences
/// `u, v, w`. Each of the six terms `±W_i U_j V_k` of the determinant reaches `s` through
/// at most 8 roundings (three differences, the product `u_j v_k`, the cross product's
/// subtraction, the product by `w_i`, two sums), each a factor `1 + δ` with `|δ| ≤ ε =
/// 2^-53` (a difference of doubles is exact when it is subnormal, and within the module's
/// coordinate range no product underflows or overflows), so `|s − det| ≤ γ_8·P` with
/// `P = Σ|W_i U_j V_k|` and `γ_8 = 8ε/(1 − 8ε)`. The permanent `p̃` is evaluated from the
/// same rounded products with absolute values; each of its terms is the exact one times at
/// most 8 factors `≥ 1 − ε`, so `P ≤ p̃/(1 − ε)^8`. With `fl(9ε·p̃) ≥ 9ε(1 − ε)·p̃ >
/// γ_8·p̃/(1 − ε)^8`, `|s| > fl(9ε·p̃)` proves `sign det = sign s` (and `p̃ = 0` forces
/// `s = 0`, so the exact predicate runs). This is the structure of Shewchuk's orient3d
/// error bound (stage A, "Adaptive Precision Floating-Point Arithmetic and Fast Robust
/// Geometric Predicates", 1997, section 4.3), expanded along `w` instead of a column.
#[inline(always)]
fn plane_signs(t: &[P3; 3], p: &[P3; 3]) -> [f64; 3] {
    let o = &t[0];
    let u = [t[1][0] - o[0], t[1][1] - o[1], t[1][2] - o[2]];
    let v = [t[2][0] - o[0], t[2][1] - o[1], t[2][2] - o[2]];
    let (yz, zy) = (u[1] * v[2], u[2] * v[1]);
    let (zx, xz) = (u[2] * v[0], u[0] * v[2]);
    let (xy, yx) = (u[0] * v[1], u[1] * v[0]);
    let n = [yz - zy, zx - xz, xy - yx];
    let pn = [
        yz.abs() + zy.abs(),
        zx.abs() + xz.abs(),
        xy.abs() + yx.abs(),
    ];
    // Spelled out, not `p.map(..)`: the array's `map` stayed out of line, so the
    // triangle test's x86-64-v3 variant ran its hottest part in the baseline's code.
    let sign = |q: &P3| {
        let w = [q[0] - o[0], q[1] - o[1], q[2] - o[2]];
        let s = w[0] * n[0] + w[1] * n[1] + w[2] * n[2];
        let perm = w[0].abs() * pn[0] + w[1].abs() * pn[1] + w[2].abs() * pn[2];
        if s.abs() > PLANE_FILTER * perm {
            -s
        } else {
            o3(&t[0], &t[1], &t[2], q)
        }
    };
    [sign(&p[0]), sign(&p[1]), sign(&p[2])]
}

/// All three strictly positive or all three strictly negative.
#[inline]
fn strictly_one_sign(s: &[f64; 3]) -> bool {
    (s[0] > 0.0 && s[1] > 0.0 && s[2] > 0.0) || (s[0] < 0.0 && s[1] < 0.0 && s[2] < 0.0)
}

/// Two proper, non-coplanar triangles that each meet the other's plane, given the plane
/// signs `da[i] = orient3d(b0, b1, b2, a_i)` and `db[i] = orient3d(a0, a1, a2, b_i)`: they
/// intersect iff two more orientations are `≤ 0` (Guigue and Devillers, "Fast and Robust
/// Triangle-Triangle Overlap Test Using Orientation Predicates", J. Graphics Tools 8(1),
/// 2003, section 3).
///
/// Why: `A ∩ B` lies on the line `L` where the planes meet, and equals `I_A ∩ I_B` with
/// `I_A = A ∩ plane(B)`, `I_B = B ∩ plane(A)`, closed intervals of `L`. Each triangle is
/// rotated so that its first vertex `p` is alone on one closed side of the other's plane
/// ([`pivot`]), and the other triangle's last two vertices are swapped when that side is
/// the negative one, so that, in coordinates where `plane(A) = {z = 0}` and `plane(B) =
/// {y = 0}` with `p1` at `y ≥ 0` and `p2` at `z ≥ 0`, `I_A = [j, i]` with `i` on edge
/// `p1q1` and `j` on `p1r1`, and `I_B = [k, l]` with `k` on `p2q2` and `l` on `p2r2`. Then
/// `sign orient3d(p1, q1, p2, q2) = sign(k − i)` (the plane through `p1`, `q1`, `p2` meets
/// `plane(B)` in the line through `i` and `p2`, and `q2` is on the side of `k`) and
/// `sign orient3d(p1, r1, r2, p2) = sign(j − l)`, so the intervals meet iff both are
/// `≤ 0`. The common sign factor is constant over the connected set of normalized
/// configurations (an orientation vanishes only where its order changes) and is fixed by
/// one example; a pivot on the other plane (`p` on it, its two neighbours strictly off) is
/// the limit of that set with the same signs. `tests/tri_tri.rs` checks this path against
/// the integer oracle on grids where zeros are common.
#[inline]
fn intervals_meet(a: &[P3; 3], da: &[f64; 3], b: &[P3; 3], db: &[f64; 3]) -> bool {
    let (ia, fa) = pivot(da);
    let (ib, fb) = pivot(db);
    let (p1, mut q1, mut r1) = (&a[ia], &a[(ia + 1) % 3], &a[(ia + 2) % 3]);
    let (p2, mut q2, mut r2) = (&b[ib], &b[(ib + 1) % 3], &b[(ib + 2) % 3]);
    if !fa {
        std::mem::swap(&mut q2, &mut r2);
    }
    if !fb {
        std::mem::swap(&mut q1, &mut r1);
    }
    o3_inline(p1, q1, p2, q2) <= 0.0 && o3_inline(p1, r1, r2, p2) <= 0.0
}

/// For plane signs `d` that are neither all zero nor all strictly one sign: a vertex `p`
/// and whether its side is the positive one (`f`), such that `±d[p] ≥ 0` and `±d` of the
/// other two `≤ 0` (sign `+` when `f`), with `d[p] ≠ 0` unless the other two are strictly
/// on one side (the triangle touches the plane only at `p`).
fn pivot(d: &[f64; 3]) -> (usize, bool) {
    for i in 0..3 {
        let (o1, o2) = (d[(i + 1) % 3], d[(i + 2) % 3]);
        if d[i] > 0.0 && o1 <= 0.0 && o2 <= 0.0 {
            return (i, true);
        }
        if d[i] < 0.0 && o1 >= 0.0 && o2 >= 0.0 {
            return (i, false);
        }
    }
    // Signs (0, +, +) or (0, −, −) in some rotation: the zero vertex, the others' side
    // made the non-positive one.
    let i = d.iter().position(|&x| x == 0.0).unwrap_or(0);
    (i, d[(i + 1) % 3] < 0.0)
}

/// [`tri_tri_intersect`] on `f32` input; widening `f32 → f64` is exact, so this is exact too.
pub fn tri_tri_intersect_f32(a: &[[f32; 3]; 3], b: &[[f32; 3]; 3]) -> bool {
    let widen = |t: &[[f32; 3]; 3]| t.map(|v| v.map(f64::from));
    tri_tri_intersect(&widen(a), &widen(b))
}

/// What a (possibly degenerate) triangle covers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// Non-collinear vertices.
    Tri([P3; 3]),
    /// Collinear, not all equal: the two extreme vertices, lexicographically ordered.
    Seg(P3, P3),
    /// All three vertices equal.
    Point(P3),
}

impl Shape {
    /// Classify exactly. Collinear points are ordered along their line monotonically in
    /// lexicographic `(x, y, z)` order (the first coordinate in which the line's direction
    /// is nonzero is monotone along it, the earlier ones are constant), so the lexicographic
    /// extremes are the segment's endpoints.
    pub fn of(t: &[P3; 3]) -> Shape {
        if drop_axis(&t[0], &t[1], &t[2]).is_some() {
            return Shape::Tri(*t);
        }
        let mut lo = t[0];
        let mut hi = t[0];
        for p in &t[1..] {
            if lex_lt(p, &lo) {
                lo = *p;
            }
            if lex_lt(&hi, p) {
                hi = *p;
            }
        }
        if lo == hi {
            Shape::Point(lo)
        } else {
            Shape::Seg(lo, hi)
        }
    }
}

/// Two proper triangles. Exact sign-based plane rejection first, then edge tests.
///
/// Completeness of the edge tests: `A ∩ B` is compact and convex, so if nonempty it has an
/// extreme point `x`. If `x` were in the relative interior of both triangles, a small disc
/// around `x` in `plane(A) ∩ plane(B)` (a line, or the common plane) would lie in `A ∩ B`,
/// and `x` would not be extreme. So `x` lies on an edge of one triangle and inside the
/// other: some edge of A meets B or some edge of B meets A. (Coplanar case: the vertices of
/// the overlap polygon are vertices in the other triangle or edge–edge crossings.)
pub fn proper_proper(a: &[P3; 3], b: &[P3; 3]) -> bool {
    if strictly_one_side(a, b) || strictly_one_side(b, a) {
        return false;
    }
    edges_meet(a, b) || edges_meet(b, a)
}

/// All vertices of `b` strictly on the same side of the plane of proper triangle `a`.
fn strictly_one_side(a: &[P3; 3], b: &[P3; 3]) -> bool {
    let s = b.map(|p| o3(&a[0], &a[1], &a[2], &p));
    s.iter().all(|&x| x > 0.0) || s.iter().all(|&x| x < 0.0)
}

/// Some edge of `a` meets proper triangle `t`.
fn edges_meet(a: &[P3; 3], t: &[P3; 3]) -> bool {
    (0..3).any(|i| segment_triangle(&a[i], &a[(i + 1) % 3], t))
}

/// Closed segment `pq` (may be degenerate, `p == q`) against closed proper triangle `t`.
pub fn segment_triangle(p: &P3, q: &P3, t: &[P3; 3]) -> bool {
    let s = o3(&t[0], &t[1], &t[2], p);
    let u = o3(&t[0], &t[1], &t[2], q);
    segment_triangle_signed(p, q, s, u, t)
}

/// [`segment_triangle`] with `s = orient3d(t0, t1, t2, p)` and `u = orient3d(t0, t1, t2,
/// q)` given.
fn segment_triangle_signed(p: &P3, q: &P3, s: f64, u: f64, t: &[P3; 3]) -> bool {
    if (s > 0.0 && u > 0.0) || (s < 0.0 && u < 0.0) {
        return false;
    }
    if s == 0.0 && u == 0.0 {
        // Segment lies in the triangle's plane: decide in an injective projection.
        let Some(k) = drop_axis(&t[0], &t[1], &t[2]) else {
            return false; // unreachable for a proper triangle
        };
        let tt = t.map(|v| proj(&v, k));
        return segment_triangle_2d(proj(p, k), proj(q, k), &tt);
    }
    // The segment crosses (or touches) the plane at exactly one point X. The line pq is
    // transversal, and sign orient3d(p, q, ti, tj) = sign(d·n) · (side of X w.r.t. edge
    // ti→tj in the plane) with one common factor sign(d·n) ≠ 0, so X is in the closed
    // triangle iff the three signs never strictly disagree (the third is skipped when the
    // first two already do).
    let e0 = o3(p, q, &t[0], &t[1]);
    let e1 = o3(p, q, &t[1], &t[2]);
    if (e0 > 0.0 && e1 < 0.0) || (e0 < 0.0 && e1 > 0.0) {
        return false;
    }
    let e2 = o3(p, q, &t[2], &t[0]);
    same_closed_sign(&[e0, e1, e2])
}

/// Closed point `p` in closed proper triangle `t`.
pub fn point_triangle(p: &P3, t: &[P3; 3]) -> bool {
    if o3(&t[0], &t[1], &t[2], p) != 0.0 {
        return false;
    }
    let Some(k) = drop_axis(&t[0], &t[1], &t[2]) else {
        return false; // unreachable for a proper triangle
    };
    point_in_triangle_2d(proj(p, k), &t.map(|v| proj(&v, k)))
}

/// Closed segments `pq` and `rs` in 3D, both non-degenerate (`p != q`, `r != s`).
pub fn segment_segment(p: &P3, q: &P3, r: &P3, s: &P3) -> bool {
    if o3(p, q, r, s) != 0.0 {
        return false; // skew lines
    }
    // Coplanar. Since p != q, if r and s are both on line pq all four are collinear.
    let k = drop_axis(p, q, r).or_else(|| drop_axis(p, q, s));
    match k {
        Some(k) => segment_segment_2d(proj(p, k), proj(q, k), proj(r, k), proj(s, k)),
        None => {
            // Collinear: lexicographic order is a linear order along the common line.
            let (a0, a1) = lex_sorted(p, q);
            let (b0, b1) = lex_sorted(r, s);
            lex_le(a0, b1) && lex_le(b0, a1)
        }
    }
}

/// Closed point `r` on closed segment `pq` (any `p`, `q`).
pub fn point_segment(r: &P3, p: &P3, q: &P3) -> bool {
    if drop_axis(p, q, r).is_some() {
        return false; // not collinear
    }
    let (lo, hi) = lex_sorted(p, q);
    lex_le(lo, r) && lex_le(r, hi)
}

// ---------------------------------------------------------------------------------------
// 2D helpers (closed sets, exact). `orient2d` sign conventions cancel because every test
// asks only whether signs agree.

/// Closed point in closed triangle `t` with non-collinear vertices (either orientation).
pub fn point_in_triangle_2d(p: Coord<f64>, t: &[Coord<f64>; 3]) -> bool {
    same_closed_sign(&[
        orient2d(t[0], t[1], p),
        orient2d(t[1], t[2], p),
        orient2d(t[2], t[0], p),
    ])
}

/// Closed segments `pq` and `rs` (either may be degenerate), including collinear overlap.
pub fn segment_segment_2d(p: Coord<f64>, q: Coord<f64>, r: Coord<f64>, s: Coord<f64>) -> bool {
    let d1 = orient2d(r, s, p);
    let d2 = orient2d(r, s, q);
    let d3 = orient2d(p, q, r);
    let d4 = orient2d(p, q, s);
    let opposite = |x: f64, y: f64| (x > 0.0 && y < 0.0) || (x < 0.0 && y > 0.0);
    if opposite(d1, d2) && opposite(d3, d4) {
        return true; // proper crossing
    }
    // Otherwise they meet only if an endpoint lies on the other segment.
    (d1 == 0.0 && in_box_2d(p, r, s))
        || (d2 == 0.0 && in_box_2d(q, r, s))
        || (d3 == 0.0 && in_box_2d(r, p, q))
        || (d4 == 0.0 && in_box_2d(s, p, q))
}

/// Closed segment `pq` (may be degenerate) against closed non-collinear triangle `t`: an
/// endpoint is inside, or the segment enters through the boundary and so meets an edge.
pub fn segment_triangle_2d(p: Coord<f64>, q: Coord<f64>, t: &[Coord<f64>; 3]) -> bool {
    point_in_triangle_2d(p, t)
        || point_in_triangle_2d(q, t)
        || (0..3).any(|i| segment_segment_2d(p, q, t[i], t[(i + 1) % 3]))
}

/// For `p` collinear with `a`, `b`: `p` in the bounding box of `ab` iff `p` on segment `ab`.
fn in_box_2d(p: Coord<f64>, a: Coord<f64>, b: Coord<f64>) -> bool {
    a.x.min(b.x) <= p.x && p.x <= a.x.max(b.x) && a.y.min(b.y) <= p.y && p.y <= a.y.max(b.y)
}

// ---------------------------------------------------------------------------------------
// Primitives.

/// [`o3`] with its first stage inline: Shewchuk's orient3d filter (stage A, the bound
/// `(7 + 56ε)ε` times the permanent; "Adaptive Precision Floating-Point Arithmetic and Fast
/// Robust Geometric Predicates", 1997, section 4.3), the same expression in the same order
/// as `robust::orient3d`'s first step, so the same value when it certifies the sign;
/// otherwise the whole predicate. Out of line, the call was a tenth of a query where half
/// the pairs tested intersect (nested 2k spheres turned, α = 0.001;
/// `docs/notebook/cpu-speed-2-lanes-isa-node-order-batches.md`, "Batches of distinct
/// poses"), and ran in the baseline's code under the x86-64-v3 variant.
#[inline(always)]
fn o3_inline(a: &P3, b: &P3, c: &P3, d: &P3) -> f64 {
    const O3D_ERRBOUND_A: f64 = (7.0 + 56.0 * EPS) * EPS;
    const EPS: f64 = f64::EPSILON / 2.0;
    let (adx, bdx, cdx) = (a[0] - d[0], b[0] - d[0], c[0] - d[0]);
    let (ady, bdy, cdy) = (a[1] - d[1], b[1] - d[1], c[1] - d[1]);
    let (adz, bdz, cdz) = (a[2] - d[2], b[2] - d[2], c[2] - d[2]);
    let (bdxcdy, cdxbdy) = (bdx * cdy, cdx * bdy);
    let (cdxady, adxcdy) = (cdx * ady, adx * cdy);
    let (adxbdy, bdxady) = (adx * bdy, bdx * ady);
    let det = adz * (bdxcdy - cdxbdy) + bdz * (cdxady - adxcdy) + cdz * (adxbdy - bdxady);
    let permanent = (bdxcdy.abs() + cdxbdy.abs()) * adz.abs()
        + (cdxady.abs() + adxcdy.abs()) * bdz.abs()
        + (adxbdy.abs() + bdxady.abs()) * cdz.abs();
    let errbound = O3D_ERRBOUND_A * permanent;
    if det > errbound || -det > errbound {
        return det;
    }
    o3(a, b, c, d)
}

fn o3(a: &P3, b: &P3, c: &P3, d: &P3) -> f64 {
    let c3 = |p: &P3| Coord3D {
        x: p[0],
        y: p[1],
        z: p[2],
    };
    orient3d(c3(a), c3(b), c3(c), c3(d))
}

/// Projection dropping axis `k`, keeping the other two in cyclic order, so that
/// `orient2d` of the projected triangle is the `k` component of its normal (up to a
/// positive factor and the predicate's fixed sign convention).
pub fn proj(p: &P3, k: usize) -> Coord<f64> {
    Coord {
        x: p[(k + 1) % 3],
        y: p[(k + 2) % 3],
    }
}

/// An axis whose projection is injective on the plane of `a, b, c` (the nonzero normal
/// component of largest magnitude), or `None` iff the points are exactly collinear.
pub fn drop_axis(a: &P3, b: &P3, c: &P3) -> Option<usize> {
    let mut best = None;
    let mut best_mag = 0.0;
    for k in 0..3 {
        let m = orient2d(proj(a, k), proj(b, k), proj(c, k)).abs();
        if m > best_mag {
            best_mag = m;
            best = Some(k);
        }
    }
    best
}

/// All values `>= 0` or all `<= 0`.
fn same_closed_sign(v: &[f64; 3]) -> bool {
    v.iter().all(|&x| x >= 0.0) || v.iter().all(|&x| x <= 0.0)
}

fn lex_lt(a: &P3, b: &P3) -> bool {
    a[0] < b[0] || (a[0] == b[0] && (a[1] < b[1] || (a[1] == b[1] && a[2] < b[2])))
}

fn lex_le(a: &P3, b: &P3) -> bool {
    !lex_lt(b, a)
}

fn lex_sorted<'a>(a: &'a P3, b: &'a P3) -> (&'a P3, &'a P3) {
    if lex_lt(b, a) { (b, a) } else { (a, b) }
}

#[cfg(test)]
mod tests;
