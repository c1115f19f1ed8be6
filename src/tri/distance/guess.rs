//! The closest features of two triangles guessed in plain f64 ([`closest_features`]):
//! which candidate [`super::candidates::fast_bounds`] certifies, and the direction it
//! projects on. Nothing here is taken as an answer: a wrong guess only makes the
//! certification fail, and the caller then evaluates every candidate in intervals.
//!
//! Why not the candidates' own formulas in f64: on the nested spheres, where nearly every
//! leaf pair is measured, `candidate` and `fast_bounds` were 9 % and 9 % of the distance
//! query's samples (`perf`, α = 0.001), most of it the 42-candidate guess; this guess made
//! that query about 6 % faster (`docs/notebook/proximity.md`, "Sitting 6"). The minimum
//! distance of two disjoint triangles is attained between two edges (endpoints included)
//! or between a vertex and the interior of the other's face (the candidates' own case
//! analysis, [`super::candidates::Feature`]), so nine clamped segment–segment problems and
//! six projections find it.

use super::super::P3;
// Arrow up: `geom` sits in tri's own layer; its plain f64 vector helpers read nothing of
// tri, and the guess needs no more than them.
use crate::geom::{cross, dot, sub};

/// The closest points of segments `p1 + s·d1` and `p2 + t·d2`, `s, t ∈ [0, 1]` (Ericson,
/// *Real-Time Collision Detection*, 2005, section 5.1.9): `(s, t, |c1 − c2|²)`.
#[inline]
fn segments(p1: P3, d1: P3, p2: P3, d2: P3) -> (f64, f64, f64) {
    let r = sub(p1, p2);
    let (a, e, f) = (dot(d1, d1), dot(d2, d2), dot(d2, r));
    let (s, t) = if a <= 0.0 && e <= 0.0 {
        (0.0, 0.0)
    } else if a <= 0.0 {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = dot(d1, r);
        if e <= 0.0 {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = dot(d1, d2);
            let denom = a * e - b * b;
            let s = if denom > 0.0 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let t = (b * s + f) / e;
            if t < 0.0 {
                ((-c / a).clamp(0.0, 1.0), 0.0)
            } else if t > 1.0 {
                (((b - c) / a).clamp(0.0, 1.0), 1.0)
            } else {
                (s, t)
            }
        }
    };
    let c1: P3 = std::array::from_fn(|k| p1[k] + d1[k] * s);
    let c2: P3 = std::array::from_fn(|k| p2[k] + d2[k] * t);
    let v = sub(c2, c1);
    (s, t, dot(v, v))
}

/// Vertex `p` over the face of `t` (normal `n = (t₁ − t₀) × (t₂ − t₀)`, `nn = |n|²`): the
/// squared distance to the face's plane when the foot is inside the triangle (the face's
/// candidate's conditions), else `None`.
#[inline]
fn over_face(p: P3, t: &[P3; 3], n: P3, nn: f64) -> Option<f64> {
    if nn.is_nan() || nn <= 0.0 {
        return None;
    }
    let inside = (0..3).all(|j| dot(n, cross(sub(t[(j + 1) % 3], t[j]), sub(p, t[j]))) >= 0.0);
    if !inside {
        return None;
    }
    let h = dot(n, sub(p, t[0]));
    Some(h * h / nn)
}

/// The guessed least candidate (its index in [`super::candidates::Feature::of_index`]'s
/// order) of two disjoint triangles and a direction from `a` towards `b` between its
/// closest points (unnormalized), or `None` when nothing finite was found.
pub(super) fn closest_features(a: &[P3; 3], b: &[P3; 3]) -> Option<(usize, P3)> {
    // Relative to `a₀`: far from the origin the differences of nearby corners are exact
    // (Sterbenz), so the direction is as accurate as near it (the certified lower bound
    // projects on it; its error costs the bound first order).
    let o = a[0];
    let (a, b) = (&a.map(|p| sub(p, o)), &b.map(|p| sub(p, o)));
    let mut best: Option<(f64, usize)> = None;
    let mut offer = |d2: f64, k: usize| {
        if d2.is_finite() && best.is_none_or(|(m, _)| d2 < m) {
            best = Some((d2, k));
        }
    };
    // A feature of a segment at parameter s: vertex i (s = 0), vertex i + 1 (s = 1), or
    // the edge's interior.
    enum End {
        Vertex(usize),
        Edge(usize),
    }
    let end = |i: usize, s: f64| {
        if s <= 0.0 {
            End::Vertex(i)
        } else if s >= 1.0 {
            End::Vertex((i + 1) % 3)
        } else {
            End::Edge(i)
        }
    };
    for i in 0..3 {
        let d1 = sub(a[(i + 1) % 3], a[i]);
        for j in 0..3 {
            let d2 = sub(b[(j + 1) % 3], b[j]);
            let (s, t, dist2) = segments(a[i], d1, b[j], d2);
            let k = match (end(i, s), end(j, t)) {
                (End::Vertex(x), End::Vertex(y)) => 3 * x + y,
                (End::Vertex(x), End::Edge(y)) => 9 + 3 * x + y,
                (End::Edge(x), End::Vertex(y)) => 18 + 3 * x + y,
                (End::Edge(x), End::Edge(y)) => 27 + 3 * x + y,
            };
            offer(dist2, k);
        }
    }
    let normal = |t: &[P3; 3]| cross(sub(t[1], t[0]), sub(t[2], t[0]));
    let (na, nb) = (normal(a), normal(b));
    let (nna, nnb) = (dot(na, na), dot(nb, nb));
    for (i, &p) in a.iter().enumerate() {
        if let Some(d2) = over_face(p, b, nb, nnb) {
            offer(d2, 36 + i);
        }
    }
    for (j, &p) in b.iter().enumerate() {
        if let Some(d2) = over_face(p, a, na, nna) {
            offer(d2, 39 + j);
        }
    }
    best.map(|(_, k)| (k, direction(a, b, k)))
}

/// A direction from `a` towards `b` between candidate `k`'s closest points, from the
/// candidate's own vectors (a difference of corners, an edge, the edges' cross product, a
/// normal), not from the closest points themselves: the points' rounding is relative to
/// the triangles' size, the direction's error would be that over the distance, and the
/// certified lower bound loses it to first order.
fn direction(a: &[P3; 3], b: &[P3; 3], k: usize) -> P3 {
    let scale = |v: P3, s: f64| v.map(|x| x * s);
    // Vertex x of one triangle against the edge from y along d of the other, w = a_x − b_y
    // (or its negation): `d (w·d) − w |d|²`, the foot's offset times |d|².
    let foot = |w: P3, d: P3| sub(scale(d, dot(w, d)), scale(w, dot(d, d)));
    let (x, y) = ((k % 9) / 3, k % 3);
    let edge = |t: &[P3; 3], i: usize| sub(t[(i + 1) % 3], t[i]);
    let normal = |t: &[P3; 3]| cross(sub(t[1], t[0]), sub(t[2], t[0]));
    match k {
        0..9 => sub(b[y], a[x]),
        9..18 => foot(sub(a[x], b[y]), edge(b, y)),
        18..27 => foot(sub(a[x], b[y]), edge(a, x)),
        27..36 => {
            let c = cross(edge(a, x), edge(b, y));
            scale(c, -dot(sub(a[x], b[y]), c))
        }
        36..39 => {
            let n = normal(b);
            scale(n, -dot(n, sub(a[k - 36], b[0])))
        }
        _ => {
            let n = normal(a);
            scale(n, -dot(n, sub(a[0], b[k - 39])))
        }
    }
}
