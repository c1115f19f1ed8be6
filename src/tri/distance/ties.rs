//! Ordering two triangle pairs' exact distances without exact arithmetic when one pair's
//! closest features lie in the other pair's triangles.
//!
//! # Why
//!
//! On a mesh the closest features of two surfaces are shared: a closest vertex belongs to
//! about six triangles, an edge to two, so the distance query meets up to ~36 triangle
//! pairs at exactly the same distance, and must order them exactly (the witness is the
//! first in `(distance, tri_a, tri_b)` order). Certified bounds never separate equal
//! values, so each of those comparisons used to evaluate both pairs in exact arithmetic
//! (about 30 a pose on the bunny, 46 % of the query's time).
//!
//! # The rule
//!
//! Let feature `F` of the pair `(A, B)` attain its distance `V > 0`: `x* ∈ F_A`, `y* ∈
//! F_B` with `|y* − x*| = V`, and let `v` be a positive multiple of `y* − x*` computed from
//! `F`'s corners alone ([`direction`]; it is orthogonal to the affine hulls of `F_A` and
//! `F_B`). Let another pair `(A', B')` have every corner of `F_A` among `A'`'s corners and
//! every corner of `F_B` among `B'`'s (coordinates compared as numbers). Then:
//!
//! - `x* ∈ A'` and `y* ∈ B'` (convex hulls), so `dist(A', B') ≤ V`;
//! - if `v·(a − x*) ≤ 0` for every corner `a` of `A'` and `v·(b − y*) ≥ 0` for every corner
//!   `b` of `B'`, then for all `a ∈ A'`, `b ∈ B'` (linear in each, so true on the hulls),
//!   `|b − a| ≥ v̂·(b − a) = v̂·(b − y*) + v̂·(y* − x*) + v̂·(x* − a) ≥ V`: **equal**;
//! - if one of them fails strictly, moving `x*` a little towards that `a` (or `y*` towards
//!   that `b`) inside the triangle shortens `y* − x*` (the derivative of `|y* − x_t|²` is
//!   `−2 (y* − x*)·(a − x*) < 0`): **less**.
//!
//! `v·(z − x*) = v·(z − f)` for any corner `f` of `F_A` (both lie in `F_A`'s affine hull,
//! to which `v` is orthogonal), and it is exactly 0 for a corner of `A'` that is a corner of
//! `F_A`, which is therefore not tested (an interval would straddle 0). The other signs are
//! decided in intervals ([`Iv`]) and, if any is undecided, exactly ([`Dyadic`]).

use super::super::P3;
use super::super::exact::{Arith, Dyadic, Iv};
use super::candidates::{Feature, V, cross, dot, norm2, vsub};
use std::cmp::Ordering;

/// Up to three corners (one side of a feature pair: a vertex, an edge or a face).
#[derive(Clone, Copy)]
struct Corners {
    p: [P3; 3],
    n: usize,
}

impl Corners {
    fn vertex(t: &[P3; 3], i: usize) -> Corners {
        Corners { p: [t[i]; 3], n: 1 }
    }

    fn edge(t: &[P3; 3], i: usize) -> Corners {
        Corners {
            p: [t[i], t[(i + 1) % 3], t[i]],
            n: 2,
        }
    }

    fn face(t: &[P3; 3]) -> Corners {
        Corners { p: *t, n: 3 }
    }

    fn points(&self) -> &[P3] {
        &self.p[..self.n]
    }

    /// The corners in the arithmetic `N`, all three slots (the unused ones repeat a corner;
    /// callers slice `[..n]`): no allocation on the distance query's leaf loop.
    fn lift<N: Arith>(&self) -> [V<N>; 3] {
        self.p.map(|p| p.map(N::from_f64))
    }
}

/// The corners of feature `f` of the pair `(a, b)`, side by side; `None` for
/// [`Feature::Intersect`].
fn sides(f: Feature, a: &[P3; 3], b: &[P3; 3]) -> Option<(Corners, Corners)> {
    Some(match f {
        Feature::Intersect => return None,
        Feature::VertexVertex { a: i, b: j } => (Corners::vertex(a, i), Corners::vertex(b, j)),
        Feature::VertexEdge { a: i, b: j } => (Corners::vertex(a, i), Corners::edge(b, j)),
        Feature::EdgeVertex { a: i, b: j } => (Corners::edge(a, i), Corners::vertex(b, j)),
        Feature::EdgeEdge { a: i, b: j } => (Corners::edge(a, i), Corners::edge(b, j)),
        Feature::VertexFace { a: i } => (Corners::vertex(a, i), Corners::face(b)),
        Feature::FaceVertex { b: j } => (Corners::face(a), Corners::vertex(b, j)),
    })
}

fn scale<N: Arith>(v: &V<N>, s: &N) -> V<N> {
    [v[0].mul(s), v[1].mul(s), v[2].mul(s)]
}

/// A positive multiple of `y* − x*`, the difference of the closest points of the feature
/// pair with corners `pa`, `pb`, given that the feature attains the distance (its
/// candidate's conditions hold: the parent module's list), from the corners alone:
///
/// - vertex `p`, vertex `q`: `q − p`;
/// - vertex `p`, edge `q₀q₁` (`d = q₁ − q₀`, `w = p − q₀`): `d(w·d) − w|d|² = |d|²(y* − x*)`;
/// - edge `p₀p₁`, vertex `q` (`d = p₁ − p₀`, `u = q − p₀`): `u|d|² − d(u·d) = |d|²(y* − x*)`;
/// - two edges (`c = d₁ × d₂`): `c (c·(q₀ − p₀)) = |c|²(y* − x*)` (`y* − x* = λc` and
///   `c·(y* − x*) = c·(q₀ − p₀)`, the edges' directions being orthogonal to `c`);
/// - vertex `p`, face `q₀q₁q₂` (`n = (q₁ − q₀) × (q₂ − q₀)`): `n (n·(q₀ − p)) = |n|²(y* −
///   x*)`; face `p₀p₁p₂`, vertex `q`: `n (n·(q − p₀))`.
///
/// Each is unchanged by the order in which the corners are listed (an edge's direction or a
/// normal's sign enter twice), so pairs that share a feature get the same direction.
fn direction<N: Arith>(pa: &[V<N>], pb: &[V<N>]) -> V<N> {
    match (pa.len(), pb.len()) {
        (1, 1) => vsub(&pb[0], &pa[0]),
        (1, 2) => {
            let (d, w) = (vsub(&pb[1], &pb[0]), vsub(&pa[0], &pb[0]));
            vsub(&scale(&d, &dot(&w, &d)), &scale(&w, &norm2(&d)))
        }
        (2, 1) => {
            let (d, u) = (vsub(&pa[1], &pa[0]), vsub(&pb[0], &pa[0]));
            vsub(&scale(&u, &norm2(&d)), &scale(&d, &dot(&u, &d)))
        }
        (2, 2) => {
            let c = cross(&vsub(&pa[1], &pa[0]), &vsub(&pb[1], &pb[0]));
            let h = dot(&c, &vsub(&pb[0], &pa[0]));
            scale(&c, &h)
        }
        (1, 3) => {
            let n = cross(&vsub(&pb[1], &pb[0]), &vsub(&pb[2], &pb[0]));
            let h = dot(&n, &vsub(&pb[0], &pa[0]));
            scale(&n, &h)
        }
        _ => {
            let n = cross(&vsub(&pa[1], &pa[0]), &vsub(&pa[2], &pa[0]));
            let h = dot(&n, &vsub(&pb[0], &pa[0]));
            scale(&n, &h)
        }
    }
}

/// The corners of `t` that are not among `f`'s, or `None` when some corner of `f` is not a
/// corner of `t`.
fn others(f: &Corners, t: &[P3; 3]) -> Option<([P3; 3], usize)> {
    if !f.points().iter().all(|p| t.contains(p)) {
        return None;
    }
    let mut out = ([[0.0; 3]; 3], 0);
    for c in t {
        if !f.points().contains(c) {
            out.0[out.1] = *c;
            out.1 += 1;
        }
    }
    Some(out)
}

/// The module's signs in the arithmetic `N`: `Some(Less)` when one certainly fails,
/// `Some(Equal)` when all certainly hold, `None` when undecided.
fn verdict<N: Arith>(fa: &Corners, fb: &Corners, oa: &[P3], ob: &[P3]) -> Option<Ordering> {
    let (pa, pb) = (fa.lift::<N>(), fb.lift::<N>());
    let (pa, pb) = (&pa[..fa.n], &pb[..fb.n]);
    let v = direction(pa, pb);
    let side = |z: &P3, base: &V<N>| dot(&v, &vsub(&z.map(N::from_f64), base)).sign();
    let mut undecided = false;
    for a in oa {
        match side(a, &pa[0]) {
            Some(Ordering::Greater) => return Some(Ordering::Less),
            None => undecided = true,
            _ => {}
        }
    }
    for b in ob {
        match side(b, &pb[0]) {
            Some(Ordering::Less) => return Some(Ordering::Less),
            None => undecided = true,
            _ => {}
        }
    }
    (!undecided).then_some(Ordering::Equal)
}

/// How the exact distance of `(a2, b2)` compares with that of `(a, b)`, given that feature
/// `f` of `(a, b)` attains a distance above 0, when `f`'s corners are corners of `a2` and
/// `b2` (module docs): `Less` or `Equal`; `None` when they are not.
pub(super) fn cmp_sharing(
    f: Feature,
    (a, b): (&[P3; 3], &[P3; 3]),
    (a2, b2): (&[P3; 3], &[P3; 3]),
) -> Option<Ordering> {
    let (fa, fb) = sides(f, a, b)?;
    let (oa, na) = others(&fa, a2)?;
    let (ob, nb) = others(&fb, b2)?;
    let (oa, ob) = (&oa[..na], &ob[..nb]);
    verdict::<Iv>(&fa, &fb, oa, ob).or_else(|| verdict::<Dyadic>(&fa, &fb, oa, ob))
}

#[cfg(test)]
mod tests;
