//! The self-collision decision for one triangle pair of the same mesh
//! (`docs/FORMATS.md`, "Self-collision"), exact on the f64 corners.
//!
//! # The rule
//!
//! Let `S` be the distinct vertex **indices** the two triangles share and `H` the convex hull
//! of their positions. The pair is reported iff the closed triangles `A`, `B` have a common
//! point outside `H`. Positions never merge indices: an unwelded copy of a vertex (same
//! position, another index) is another vertex.
//!
//! * `S = ∅`: `H` is empty, so the rule is plain intersection, [`tri_tri_intersect`].
//! * `|S| = 3`: both triangles have the same three indices, so `A = B = H` and nothing lies
//!   outside `H`: never reported (FORMATS names one or two shared indices; this is the same
//!   rule, applied to the duplicate faces it leaves open).
//! * `|S| = 1` ([`share_vertex`]) and `|S| = 2` ([`share_edge`]) below, each with its proof.
//!
//! `H ⊆ A ∩ B` always (shared vertices are corners of both, and both are convex), so the
//! question is only whether `A ∩ B` is larger than `H`.
//!
//! # Exactness
//!
//! Every decision is the sign of Shewchuk's exact `orient3d`/`orient2d`
//! ([`crate::tri`]'s primitives) or an exact comparison of f64 values (lexicographic order
//! along a line); nothing is constructed, so nothing is rounded. Degenerate triangles
//! (repeated indices, collinear or coincident corners) are handled as the segments or points
//! they are, by the same arguments, which use only convexity.

use crate::tri::{P3, drop_axis, point_segment, proj, segment_triangle, tri_tri_intersect};
use robust::{Coord3D, orient2d, orient3d};

/// Whether triangles with vertex indices `ia`, `ib` and corners `a`, `b` (`a[k]` the position
/// of `ia[k]`) are reported by the self-collision rule (module docs). Symmetric in the two
/// triangles and invariant under permuting the corners of either.
pub fn self_pair_intersects(ia: [u32; 3], a: &[P3; 3], ib: [u32; 3], b: &[P3; 3]) -> bool {
    let mut shared = [0u32; 3];
    let mut n = 0;
    for &x in &ia {
        if ib.contains(&x) && !shared[..n].contains(&x) {
            shared[n] = x;
            n += 1;
        }
    }
    match n {
        0 => tri_tri_intersect(a, b),
        1 => {
            let (v, a1, a2) = split_vertex(ia, a, shared[0]);
            let (_, b1, b2) = split_vertex(ib, b, shared[0]);
            share_vertex(&v, &a1, &a2, &b1, &b2)
        }
        2 => {
            let (s, t) = (shared[0], shared[1]);
            let (p, q) = (position(ia, a, s), position(ia, a, t));
            match (third(ia, a, s, t), third(ib, b, s, t)) {
                (Some(r), Some(r2)) => share_edge(&p, &q, &r, &r2),
                // A triangle whose corners are all shared is `conv{P, Q} = H`: nothing of
                // it lies outside H.
                _ => false,
            }
        }
        _ => false,
    }
}

/// The position of index `s` in triangle `(i, t)` (present by the caller's choice).
fn position(i: [u32; 3], t: &[P3; 3], s: u32) -> P3 {
    t[i.iter().position(|&x| x == s).unwrap_or(0)]
}

/// The shared corner `v` (index `s`) and the positions of the other two slots (one
/// occurrence of `s` removed; a repeated `s` stays as `v`).
fn split_vertex(i: [u32; 3], t: &[P3; 3], s: u32) -> (P3, P3, P3) {
    let k = i.iter().position(|&x| x == s).unwrap_or(0);
    (t[k], t[(k + 1) % 3], t[(k + 2) % 3])
}

/// The position of a corner whose index is neither `s` nor `t`, if any.
fn third(i: [u32; 3], t: &[P3; 3], s: u32, u: u32) -> Option<P3> {
    (0..3).find(|&k| i[k] != s && i[k] != u).map(|k| t[k])
}

/// One shared index at position `v`: `A = conv{v, a1, a2}`, `B = conv{v, b1, b2}`, `H = {v}`.
/// Reported iff `A ∩ B ≠ {v}`.
///
/// Lemma: `A ∩ B ≠ {v}` iff `[a1, a2] ∩ B` or `[b1, b2] ∩ A` has a point other than `v`.
/// (⇐) such a point is in `A ∩ B`. (⇒) take `x ≠ v` in `A ∩ B` and follow the ray from `v`
/// through `x`: it leaves `A` at `v + t_A·(x − v)` and `B` at `v + t_B·(x − v)` (both
/// compact, `t ≥ 1`); say `t_A ≤ t_B`, so `y = v + t_A·(x − v)` is in `A ∩ B`, `y ≠ v`.
/// Write `y = λ0·v + λ1·a1 + λ2·a2` (convex): if `λ1 + λ2 < 1`, the point
/// `(λ1·a1 + λ2·a2)/(λ1 + λ2)` of `A` lies on the same ray beyond `y`, against `t_A`'s
/// maximality; so `λ0 = 0` and `y ∈ [a1, a2]`.
///
/// Each side is `beyond` (below). For two proper triangles `v ∉ [a1, a2]` and the test is the plain
/// segment–triangle intersection, the common case.
pub fn share_vertex(v: &P3, a1: &P3, a2: &P3, b1: &P3, b2: &P3) -> bool {
    beyond(v, a1, a2, b1, b2) || beyond(v, b1, b2, a1, a2)
}

/// Whether `[p, q] ∩ conv{v, b1, b2}` has a point other than `v`.
///
/// If `v ∉ [p, q]` this is plain intersection. Otherwise `[p, q] = [v, p] ∪ [v, q]`, and
/// `[v, p]` (with `p ≠ v`) meets the convex `B ∋ v` beyond `v` iff `p − v` is a feasible
/// direction of `B` at `v`, i.e. lies in `cone{b1 − v, b2 − v}` ([`in_cone`]): if
/// `v + t·(p − v) ∈ B` for some `t > 0`, then `p − v` is in the cone; conversely `p − v =
/// λ·(x − v)` with `x ∈ B`, `λ > 0` gives `v + min(1, 1/λ)·(p − v) ∈ B`.
fn beyond(v: &P3, p: &P3, q: &P3, b1: &P3, b2: &P3) -> bool {
    if point_segment(v, p, q) {
        (p != v && in_cone(v, b1, b2, p)) || (q != v && in_cone(v, b1, b2, q))
    } else {
        let b = [*v, *b1, *b2];
        match drop_axis(v, b1, b2) {
            Some(_) => segment_triangle(p, q, &b),
            None => tri_tri_intersect(&[*p, *q, *q], &b),
        }
    }
}

/// Whether `p − v` (`p ≠ v`) lies in `cone{b1 − v, b2 − v}`.
///
/// * `v, b1, b2` not collinear: the cone is a wedge of their plane. `p` must be in the plane,
///   and writing `p − v = α·(b1 − v) + β·(b2 − v)` (unique), `orient2d(v, b1, p)` has the
///   sign of `β·orient2d(v, b1, b2)` and `orient2d(v, b2, p)` that of
///   `α·orient2d(v, b2, b1)`, in a projection injective on the plane ([`drop_axis`]); the
///   cone is `α, β ≥ 0`.
/// * collinear: the cone is the union of the rays from `v` through the `bi ≠ v` (a line if
///   they point opposite ways, `{0}` if both equal `v`); `p` is on such a ray iff it is on
///   its line and on the same side of `v`, which lexicographic order along the line decides
///   (it is monotone along any line).
fn in_cone(v: &P3, b1: &P3, b2: &P3, p: &P3) -> bool {
    match drop_axis(v, b1, b2) {
        Some(k) => {
            if o3(v, b1, b2, p) != 0.0 {
                return false;
            }
            let (v2, c1, c2, p2) = (proj(v, k), proj(b1, k), proj(b2, k), proj(p, k));
            let s12 = orient2d(v2, c1, c2);
            let agrees = |x: f64, y: f64| x == 0.0 || (x > 0.0) == (y > 0.0);
            agrees(orient2d(v2, c1, p2), s12) && agrees(orient2d(v2, c2, p2), -s12)
        }
        None => on_ray(v, b1, p) || on_ray(v, b2, p),
    }
}

/// `p ≠ v` lies on the ray from `v` through `b` (`b ≠ v` required).
fn on_ray(v: &P3, b: &P3, p: &P3) -> bool {
    b != v && drop_axis(v, b, p).is_none() && lex_lt(v, b) == lex_lt(v, p)
}

/// Two shared indices at positions `p`, `q`, third corners `r` (of A) and `r2` (of B), each
/// of an index outside the shared pair. `H = [p, q]`. Reported iff `A ∩ B ⊄ [p, q]`:
///
/// * `p = q` (two indices, one position): `A = [p, r]`, `B = [p, r2]`, `H = {p}`; two
///   segments from a common end overlap beyond it iff both are nondegenerate, collinear and
///   on the same side of `p`.
/// * both proper: if their planes differ they meet in the line `pq`, which meets each
///   triangle in its edge `[p, q]`, so `A ∩ B = H`. If coplanar, with `r`, `r2` on opposite
///   sides of the line, each triangle lies in its closed half-plane and again `A ∩ B = H`;
///   on the same side, near the middle of `[p, q]` both contain the same half-disc, whose
///   points off the line are outside `H`: reported.
/// * one proper, the other (collinear) on the line `pq`: the line meets the proper one in
///   `[p, q]`, so `A ∩ B ⊆ H`.
/// * both on the line `pq`: `A ∩ B` reaches beyond an end of `[p, q]` iff both `r` and `r2`
///   lie beyond that same end (lexicographic order along the line).
pub fn share_edge(p: &P3, q: &P3, r: &P3, r2: &P3) -> bool {
    if p == q {
        return r != p && r2 != p && drop_axis(p, r, r2).is_none() && lex_lt(p, r) == lex_lt(p, r2);
    }
    match (drop_axis(p, q, r), drop_axis(p, q, r2)) {
        (Some(k), Some(_)) => {
            if o3(p, q, r, r2) != 0.0 {
                return false;
            }
            let (p2, q2) = (proj(p, k), proj(q, k));
            let sa = orient2d(p2, q2, proj(r, k));
            let sb = orient2d(p2, q2, proj(r2, k));
            (sa > 0.0 && sb > 0.0) || (sa < 0.0 && sb < 0.0)
        }
        (None, None) => {
            let (lo, hi) = if lex_lt(q, p) { (q, p) } else { (p, q) };
            (lex_lt(hi, r) && lex_lt(hi, r2)) || (lex_lt(r, lo) && lex_lt(r2, lo))
        }
        _ => false,
    }
}

fn o3(a: &P3, b: &P3, c: &P3, d: &P3) -> f64 {
    let c3 = |p: &P3| Coord3D {
        x: p[0],
        y: p[1],
        z: p[2],
    };
    orient3d(c3(a), c3(b), c3(c), c3(d))
}

fn lex_lt(a: &P3, b: &P3) -> bool {
    a[0] < b[0] || (a[0] == b[0] && (a[1] < b[1] || (a[1] == b[1] && a[2] < b[2])))
}

#[cfg(test)]
mod tests {
    use super::*;

    const O: P3 = [0.0, 0.0, 0.0];
    const X: P3 = [1.0, 0.0, 0.0];
    const Y: P3 = [0.0, 1.0, 0.0];

    #[test]
    fn edge_neighbours() {
        // Flat, opposite sides: a square's two halves.
        assert!(!share_edge(&X, &Y, &O, &[1.0, 1.0, 0.0]));
        // Folded flat onto each other (same side): reported.
        assert!(share_edge(&X, &Y, &O, &[0.2, 0.2, 0.0]));
        // A hinge at any angle but flat: not reported.
        assert!(!share_edge(&X, &Y, &O, &[0.2, 0.2, 1e-300]));
        // Collinear, beyond the same end.
        assert!(share_edge(&O, &X, &[2.0, 0.0, 0.0], &[3.0, 0.0, 0.0]));
        assert!(!share_edge(&O, &X, &[2.0, 0.0, 0.0], &[-3.0, 0.0, 0.0]));
        assert!(!share_edge(&O, &X, &[0.5, 0.0, 0.0], &[3.0, 0.0, 0.0]));
    }

    #[test]
    fn vertex_neighbours() {
        // Fan around the origin, apart.
        assert!(!share_vertex(
            &O,
            &X,
            &Y,
            &[-1.0, 0.0, 0.0],
            &[0.0, -1.0, 0.0]
        ));
        // Coplanar overlap around the shared vertex.
        assert!(share_vertex(
            &O,
            &X,
            &Y,
            &[1.0, 1.0, 0.0],
            &[-1.0, 2.0, 0.0]
        ));
        // Piercing: B's opposite edge passes through A.
        assert!(share_vertex(
            &O,
            &X,
            &Y,
            &[0.2, 0.2, -1.0],
            &[0.2, 0.2, 1.0]
        ));
        // A segment (repeated index) along an edge of B, from the shared vertex.
        assert!(share_vertex(&O, &O, &[0.5, 0.0, 0.0], &X, &Y));
        assert!(!share_vertex(&O, &O, &[-0.5, 0.0, 0.0], &X, &Y));
    }
}
