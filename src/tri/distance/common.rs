//! One common point of two intersecting triangles, exactly: the witness points of a
//! distance of 0 ([`super::TriDistance::points`]).

use super::super::exact::{Arith, Dyadic};
use super::super::{P3, Shape, point_segment, point_triangle, segment_segment, segment_triangle};
use super::candidates::*;
use std::cmp::Ordering;

/// An exact common point of two intersecting closed triangles, as `(num, den)` (the point
/// is `num / den`), or `None` if they do not intersect.
///
/// Tried in a fixed order: a vertex of `a` in `b`, a vertex of `b` in `a`, a crossing of two
/// non-parallel edges, an edge of one crossing the plane of the other (proper) triangle
/// transversally inside it. **Complete**: `a ∩ b` is convex and compact, so it has an
/// extreme point `x`; let `F ∋ x`, `G ∋ x` be the faces of least dimension of the two
/// triangles (vertices, edges, or a proper triangle itself). If `aff F ∩ aff G` contained a
/// line through `x`, points of `F ∩ G` on both sides of `x` on it would show `x` not extreme,
/// so `aff F ∩ aff G = {x}`. So either `F` or `G` is a vertex (the first two cases), or both
/// are edges on non-parallel intersecting lines (the third: the lines cross at `x`), or one
/// is an edge and the other a face whose plane its line crosses at one point (the fourth;
/// two faces cannot meet in a single point). Each construction is exact: crossing of
/// `p0 + s·d1` and `q0 + t·d2`, `s = ((q0 − p0) × d2)·c / |c|²` with `c = d1 × d2 ≠ 0`
/// (cross `s·d1 − t·d2 = q0 − p0` with `d2`); segment `pq` through the plane `n·(x − t0) =
/// 0`, `x = (o_p·q − o_q·p) / (o_p − o_q)` with `o_x = n·(x − t0)` and `o_p ≠ o_q`.
pub fn common_point(a: &[P3; 3], b: &[P3; 3]) -> Option<([Dyadic; 3], Dyadic)> {
    let (sa, sb) = (Shape::of(a), Shape::of(b));
    let lift = |p: &P3| p.map(Dyadic::from_f64);
    let one = Dyadic::from_f64(1.0);
    let inside = |p: &P3, s: &Shape| match s {
        Shape::Tri(t) => point_triangle(p, t),
        Shape::Seg(q, r) => point_segment(p, q, r),
        Shape::Point(q) => p == q,
    };
    if let Some(p) = a.iter().find(|p| inside(p, &sb)) {
        return Some((lift(p), one));
    }
    if let Some(p) = b.iter().find(|p| inside(p, &sa)) {
        return Some((lift(p), one));
    }
    for i in 0..3 {
        for j in 0..3 {
            let (p, q, r, s) = (&a[i], &a[(i + 1) % 3], &b[j], &b[(j + 1) % 3]);
            if p == q || r == s {
                continue;
            }
            let (p0, q0) = (lift(p), lift(r));
            let (d1, d2) = (vsub(&lift(q), &p0), vsub(&lift(s), &q0));
            let c = cross(&d1, &d2);
            let cc = norm2(&c);
            if cc.sign() == Some(Ordering::Equal) || !segment_segment(p, q, r, s) {
                continue;
            }
            let sn = dot(&cross(&vsub(&q0, &p0), &d2), &c);
            let num = [0, 1, 2].map(|k| p0[k].mul(&cc).add(&sn.mul(&d1[k])));
            return Some((num, cc));
        }
    }
    let edge_face = |p: &P3, q: &P3, t: &[P3; 3]| {
        if !segment_triangle(p, q, t) {
            return None;
        }
        let (pp, qq, tt) = (lift(p), lift(q), t.map(|v| lift(&v)));
        let n = cross(&vsub(&tt[1], &tt[0]), &vsub(&tt[2], &tt[0]));
        let (op, oq) = (dot(&n, &vsub(&pp, &tt[0])), dot(&n, &vsub(&qq, &tt[0])));
        let den = op.sub(&oq);
        if den.sign() == Some(Ordering::Equal) {
            return None;
        }
        Some(([0, 1, 2].map(|k| qq[k].mul(&op).sub(&pp[k].mul(&oq))), den))
    };
    if let Shape::Tri(t) = sb {
        for i in 0..3 {
            if let Some(x) = edge_face(&a[i], &a[(i + 1) % 3], &t) {
                return Some(x);
            }
        }
    }
    if let Shape::Tri(t) = sa {
        for j in 0..3 {
            if let Some(x) = edge_face(&b[j], &b[(j + 1) % 3], &t) {
                return Some(x);
            }
        }
    }
    None
}
