//! Contact geometry: the exact intersection set of two closed triangles, as a point, a
//! segment or (coplanar triangles) a convex polygon, with its vertices rounded once to f64.
//!
//! # Definition
//!
//! For closed triangles `A`, `B` (f64 coordinates as written; a zero-area triangle *is* the
//! segment or point it covers, as in [`super::tri_tri_intersect`]) the set `S = A ∩ B` is
//! convex and compact: empty, a point, a segment, or (only for two coplanar proper
//! triangles) a convex polygon. [`contact_geometry_exact`] describes `S` by its extreme
//! points as exact rationals ([`ExactPoint`]); [`contact_geometry`] rounds each coordinate
//! of each of them once, to the nearest f64 ([`round_ratio`], ties to even). Why once from
//! the exact value: a point computed in f64 (a plane crossing, an edge crossing) carries
//! the error of every operation and can land off both triangles by far more than an ulp
//! near grazing angles; rounded once, every emitted coordinate is within half an ulp of a
//! point that lies on both triangles exactly.
//!
//! # Candidates
//!
//! `S` is the convex hull of these *candidates*, all exact rationals with small integer
//! structure (dyadic numerators over a common dyadic denominator):
//!
//! * each vertex of one triangle that lies in the other (exact predicates of [`super`]);
//! * each crossing of two non-parallel edges, one of each triangle, that meet;
//! * each point where an edge of one triangle crosses the plane of the other (a proper
//!   triangle) transversally inside it.
//!
//! Why these suffice (the argument of [`super::distance::common_point`], applied to every
//! extreme point rather than one): let `x` be an extreme point of `S`, and `F ∋ x`, `G ∋ x`
//! the faces of least dimension of the two triangles (a vertex, an edge, or a proper
//! triangle itself), so that `x` is in the relative interior of both. If `aff F ∩ aff G`
//! held a line through `x`, points of `F ∩ G ⊂ S` on both sides of `x` on that line would
//! show `x` not extreme; so `aff F ∩ aff G = {x}`: `F` or `G` is a vertex, or both are
//! edges on non-parallel lines, or one is an edge crossing the other's plane at one point
//! (two faces never meet in a single point). Every candidate lies in `S` and every extreme
//! point is a candidate, so `S` is the candidates' convex hull. It is nonempty exactly when
//! [`super::tri_tri_intersect`] says the triangles meet.
//!
//! # Shape and order (why: one answer per exact input, whatever arithmetic found it)
//!
//! Equal candidates (compared exactly) are merged. One left: a [`Contact::Point`]. All on one
//! line: a [`Contact::Segment`] between the two extreme ones, the lexicographically least
//! `(x, y, z)` first (lexicographic order is monotone along a line: the first coordinate in
//! which the line's direction is nonzero is monotone, the earlier ones constant, as for
//! [`super::Shape`]). Otherwise a [`Contact::Polygon`]: the hull's vertices (no three
//! collinear), starting at the lexicographically least and wound like `A` (counterclockwise
//! seen from where `A`'s normal `(a1 − a0) × (a2 − a0)` points). Rounding may merge distinct
//! exact vertices into equal f64 points; they are kept, so the shape is the exact one.

use super::exact::{Arith, Dyadic, cmp_ratio, round_ratio};
use super::{
    P3, Shape, drop_axis, point_segment, point_triangle, segment_segment, segment_triangle,
};
use std::cmp::Ordering;

#[cfg(test)]
mod tests;

/// An exact rational point `num / den` (each coordinate `num[k] / den`), `den > 0`.
#[derive(Debug, Clone)]
pub struct ExactPoint {
    /// The numerators.
    pub num: [Dyadic; 3],
    /// The common denominator, positive.
    pub den: Dyadic,
}

impl ExactPoint {
    /// `num / den` with the signs normalized so that the denominator is positive; `None`
    /// when `den = 0`.
    pub fn new(num: [Dyadic; 3], den: Dyadic) -> Option<ExactPoint> {
        match den.sign() {
            Some(Ordering::Greater) => Some(ExactPoint { num, den }),
            Some(Ordering::Less) => Some(ExactPoint {
                num: num.map(|x| x.neg()),
                den: den.neg(),
            }),
            _ => None,
        }
    }

    /// The exact point `p`.
    pub fn from_f64(p: &P3) -> ExactPoint {
        ExactPoint {
            num: p.map(Dyadic::from_f64),
            den: Dyadic::from_f64(1.0),
        }
    }

    /// Each coordinate rounded once to the nearest f64 (ties to even).
    pub fn rounded(&self) -> P3 {
        [0, 1, 2].map(|k| round_ratio(&self.num[k], &self.den))
    }

    /// Exactly the same point.
    pub fn same(&self, o: &ExactPoint) -> bool {
        (0..3).all(|k| cmp_ratio(&self.num[k], &self.den, &o.num[k], &o.den) == Ordering::Equal)
    }

    /// Exact lexicographic order of `(x, y, z)`.
    pub fn cmp_lex(&self, o: &ExactPoint) -> Ordering {
        (0..3)
            .map(|k| cmp_ratio(&self.num[k], &self.den, &o.num[k], &o.den))
            .find(|c| *c != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    }

    /// A positive multiple of `o − self`: `o.num·den − num·o.den` (over `den·o.den > 0`).
    fn to(&self, o: &ExactPoint) -> [Dyadic; 3] {
        [0, 1, 2].map(|k| o.num[k].mul(&self.den).sub(&self.num[k].mul(&o.den)))
    }
}

/// The intersection set of two closed triangles (module documentation): its extreme points,
/// exact ([`ExactPoint`]) or rounded once to f64 ([`P3`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Contact<P = P3> {
    /// The triangles touch in one point.
    Point(P),
    /// The intersection is a segment: its endpoints, the lexicographically least first.
    Segment(P, P),
    /// Coplanar triangles overlap in a convex polygon: its vertices (at least three, no
    /// three collinear), from the lexicographically least, wound like triangle `A`.
    Polygon(Vec<P>),
}

impl<P: Clone> Contact<P> {
    /// The rows of `segments.csv`: a point as `(p, p)`, a segment as its endpoints, a
    /// polygon as its edges `(v_i, v_{i+1})`, the last closing back to the first.
    pub fn edges(&self) -> Vec<(P, P)> {
        match self {
            Contact::Point(p) => vec![(p.clone(), p.clone())],
            Contact::Segment(p, q) => vec![(p.clone(), q.clone())],
            Contact::Polygon(v) => (0..v.len())
                .map(|i| (v[i].clone(), v[(i + 1) % v.len()].clone()))
                .collect(),
        }
    }

    /// The same shape with every point mapped by `f`.
    pub fn map<Q>(&self, f: impl Fn(&P) -> Q) -> Contact<Q> {
        match self {
            Contact::Point(p) => Contact::Point(f(p)),
            Contact::Segment(p, q) => Contact::Segment(f(p), f(q)),
            Contact::Polygon(v) => Contact::Polygon(v.iter().map(f).collect()),
        }
    }
}

/// The intersection set of two closed triangles with its points rounded once to f64
/// ([`contact_geometry_exact`], each coordinate [`ExactPoint::rounded`]); `None` exactly
/// when they do not intersect ([`super::tri_tri_intersect`]).
pub fn contact_geometry(a: &[P3; 3], b: &[P3; 3]) -> Option<Contact> {
    contact_geometry_exact(a, b).map(|c| c.map(ExactPoint::rounded))
}

/// The exact intersection set of two closed triangles (module documentation); `None`
/// exactly when they do not intersect ([`super::tri_tri_intersect`], tried first: the
/// candidates are built only for meeting triangles).
pub fn contact_geometry_exact(a: &[P3; 3], b: &[P3; 3]) -> Option<Contact<ExactPoint>> {
    if !super::tri_tri_intersect(a, b) {
        return None;
    }
    let mut points: Vec<ExactPoint> = Vec::new();
    for p in candidates(a, b) {
        if !points.iter().any(|q| q.same(&p)) {
            points.push(p);
        }
    }
    shape_of(a, points)
}

/// The candidates of the module documentation, unmerged.
fn candidates(a: &[P3; 3], b: &[P3; 3]) -> Vec<ExactPoint> {
    let (sa, sb) = (Shape::of(a), Shape::of(b));
    let inside = |p: &P3, s: &Shape| match s {
        Shape::Tri(t) => point_triangle(p, t),
        Shape::Seg(q, r) => point_segment(p, q, r),
        Shape::Point(q) => p == q,
    };
    let mut out: Vec<ExactPoint> = a
        .iter()
        .filter(|p| inside(p, &sb))
        .chain(b.iter().filter(|p| inside(p, &sa)))
        .map(ExactPoint::from_f64)
        .collect();
    for i in 0..3 {
        for j in 0..3 {
            let (p, q) = (&a[i], &a[(i + 1) % 3]);
            let (r, s) = (&b[j], &b[(j + 1) % 3]);
            if p != q && r != s {
                out.extend(edge_edge(p, q, r, s));
            }
        }
    }
    for (edges, other) in [(a, &sb), (b, &sa)] {
        if let Shape::Tri(t) = other {
            for i in 0..3 {
                out.extend(edge_face(&edges[i], &edges[(i + 1) % 3], t));
            }
        }
    }
    out
}

/// The crossing of segments `pq` and `rs` (both of positive length) when their lines are
/// not parallel and the segments meet: on `p + s·d1`, `s = ((r − p) × d2)·c / |c|²` with
/// `c = d1 × d2 ≠ 0` (cross `s·d1 − t·d2 = r − p` with `d2`), so the point is
/// `(p·|c|² + (((r − p) × d2)·c)·d1) / |c|²`.
fn edge_edge(p: &P3, q: &P3, r: &P3, s: &P3) -> Option<ExactPoint> {
    // The predicate first (a skew pair, the common case, costs one orientation); the
    // construction only for segments that meet.
    if !segment_segment(p, q, r, s) {
        return None;
    }
    let (p0, q0) = (lift(p), lift(r));
    let (d1, d2) = (vsub(&lift(q), &p0), vsub(&lift(s), &q0));
    let c = cross(&d1, &d2);
    let cc = dot(&c, &c);
    if cc.sign() == Some(Ordering::Equal) {
        return None;
    }
    let sn = dot(&cross(&vsub(&q0, &p0), &d2), &c);
    ExactPoint::new([0, 1, 2].map(|k| p0[k].mul(&cc).add(&sn.mul(&d1[k]))), cc)
}

/// Where segment `pq` crosses the plane of proper triangle `t` at one point inside `t`:
/// with `o_x = n·(x − t0)`, `n = (t1 − t0) × (t2 − t0)`, the point `(o_p·q − o_q·p) / (o_p −
/// o_q)` for `o_p ≠ o_q` (a segment in the plane, or of zero length, has none: its points in
/// `t` are covered by the vertex and edge–edge candidates).
fn edge_face(p: &P3, q: &P3, t: &[P3; 3]) -> Option<ExactPoint> {
    if p == q || !segment_triangle(p, q, t) {
        return None;
    }
    let (pp, qq, tt) = (lift(p), lift(q), t.map(|v| lift(&v)));
    let n = cross(&vsub(&tt[1], &tt[0]), &vsub(&tt[2], &tt[0]));
    let (op, oq) = (dot(&n, &vsub(&pp, &tt[0])), dot(&n, &vsub(&qq, &tt[0])));
    ExactPoint::new(
        [0, 1, 2].map(|k| qq[k].mul(&op).sub(&pp[k].mul(&oq))),
        op.sub(&oq),
    )
}

/// Point, segment or polygon of the distinct candidates `pts` (module documentation).
fn shape_of(a: &[P3; 3], mut pts: Vec<ExactPoint>) -> Option<Contact<ExactPoint>> {
    if pts.len() <= 1 {
        return pts.pop().map(Contact::Point);
    }
    // All on the line through the first two (distinct) points?
    let d = pts[0].to(&pts[1]);
    let collinear = pts[2..].iter().all(|p| {
        cross(&d, &pts[0].to(p))
            .iter()
            .all(|x| x.sign() == Some(Ordering::Equal))
    });
    if collinear {
        let lo = pts.iter().min_by(|p, q| p.cmp_lex(q))?.clone();
        let hi = pts.iter().max_by(|p, q| p.cmp_lex(q))?.clone();
        return Some(Contact::Segment(lo, hi));
    }
    // Three non-collinear points in A ∩ B: A and B are coplanar proper triangles, so the
    // projection dropping A's axis `k` is injective on their plane.
    let k = drop_axis(&a[0], &a[1], &a[2])?;
    let mut hull = hull_2d(pts, k);
    let [a0, a1, a2] = a.map(|p| ExactPoint::from_f64(&p));
    let wind = orient_2d(&a0, &a1, &a2, k);
    if wind == Ordering::Less {
        hull.reverse();
    }
    let first = (0..hull.len()).min_by(|&i, &j| hull[i].cmp_lex(&hull[j]))?;
    hull.rotate_left(first);
    Some(Contact::Polygon(hull))
}

/// The sign of the orientation of `p, q, r` projected by dropping axis `k` (coordinates
/// `(k + 1, k + 2)`, cyclic, so that it is the sign of the `k` component of the normal
/// `(q − p) × (r − p)`): `det [[X, Y, d]]` over the numerators and denominators, the
/// orientation times `d_p·d_q·d_r > 0`.
fn orient_2d(p: &ExactPoint, q: &ExactPoint, r: &ExactPoint, k: usize) -> Ordering {
    let (i, j) = ((k + 1) % 3, (k + 2) % 3);
    let row = |x: &ExactPoint| [x.num[i].clone(), x.num[j].clone(), x.den.clone()];
    let (u, v, w) = (row(p), row(q), row(r));
    let det = u[0]
        .mul(&v[1].mul(&w[2]).sub(&v[2].mul(&w[1])))
        .sub(&u[1].mul(&v[0].mul(&w[2]).sub(&v[2].mul(&w[0]))))
        .add(&u[2].mul(&v[0].mul(&w[1]).sub(&v[1].mul(&w[0]))));
    det.sign().unwrap_or(Ordering::Equal)
}

/// The convex hull's vertices, counterclockwise in the projection dropping axis `k`
/// (Andrew's monotone chain on the exact projected points, lexicographic `(u, v)` order;
/// only strict left turns are kept, so no three vertices are collinear).
fn hull_2d(mut pts: Vec<ExactPoint>, k: usize) -> Vec<ExactPoint> {
    let (i, j) = ((k + 1) % 3, (k + 2) % 3);
    pts.sort_by(|p, q| {
        cmp_ratio(&p.num[i], &p.den, &q.num[i], &q.den)
            .then_with(|| cmp_ratio(&p.num[j], &p.den, &q.num[j], &q.den))
    });
    let chain = |order: &mut dyn Iterator<Item = &ExactPoint>| {
        let mut h: Vec<ExactPoint> = Vec::new();
        for p in order {
            while h.len() >= 2
                && orient_2d(&h[h.len() - 2], &h[h.len() - 1], p, k) != Ordering::Greater
            {
                h.pop();
            }
            h.push(p.clone());
        }
        h.pop(); // the next chain's first point
        h
    };
    let mut lower = chain(&mut pts.iter());
    let upper = chain(&mut pts.iter().rev());
    lower.extend(upper);
    lower
}

fn lift(p: &P3) -> [Dyadic; 3] {
    p.map(Dyadic::from_f64)
}

fn vsub(a: &[Dyadic; 3], b: &[Dyadic; 3]) -> [Dyadic; 3] {
    [0, 1, 2].map(|k| a[k].sub(&b[k]))
}

fn dot(a: &[Dyadic; 3], b: &[Dyadic; 3]) -> Dyadic {
    a[0].mul(&b[0]).add(&a[1].mul(&b[1])).add(&a[2].mul(&b[2]))
}

fn cross(a: &[Dyadic; 3], b: &[Dyadic; 3]) -> [Dyadic; 3] {
    [
        a[1].mul(&b[2]).sub(&a[2].mul(&b[1])),
        a[2].mul(&b[0]).sub(&a[0].mul(&b[2])),
        a[0].mul(&b[1]).sub(&a[1].mul(&b[0])),
    ]
}
