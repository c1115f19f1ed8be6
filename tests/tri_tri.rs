//! End-to-end checks of the exact triangle–triangle test.
//!
//! Every expectation is either the independent integer oracle
//! (`meshcollide::tri::oracle`, origin-in-Minkowski-difference in `i128`) or a geometric
//! fact stated next to the case; no expected value is copied from a run.
//!
//! Property-test case counts default to a few thousand and can be raised with
//! `MESHCOLLIDE_PROPTEST_CASES=<n>`.

mod common;

use meshcollide::tri::oracle::tri_tri_intersect_i64;
use meshcollide::tri::{tri_tri_general, tri_tri_intersect, tri_tri_intersect_f32};
use proptest::prelude::*;

type ITri = [[i64; 3]; 3];
type FTri = [[f64; 3]; 3];

fn to_f64(t: &ITri) -> FTri {
    t.map(|p| p.map(|c| c as f64))
}

/// `t · s + d`, exact in f64 for the ranges used (power-of-two `s`, integer `d`).
fn affine(t: &ITri, s: f64, d: [i64; 3]) -> FTri {
    t.map(|p| [0, 1, 2].map(|k| p[k] as f64 * s + d[k] as f64))
}

fn tri_in(lo: i64, hi: i64) -> impl Strategy<Value = ITri> {
    prop::array::uniform3(prop::array::uniform3(lo..=hi))
}

/// Grid triangles that are mostly degenerate: a point, a segment (third vertex repeated or
/// on the line, possibly outside `pq`, listed in any position), or a proper triangle.
fn degenerate_heavy() -> impl Strategy<Value = ITri> {
    let pt = || prop::array::uniform3(-3i64..=3);
    (pt(), pt(), -1i64..=2, 0usize..3, 0u8..4).prop_map(|(p, q, k, pos, kind)| {
        let on_line = [0, 1, 2].map(|i| p[i] + k * (q[i] - p[i]));
        let r = match kind {
            0 => return [p, p, p],
            1 => on_line,
            2 => p,
            _ => [q[1], q[2], q[0]], // usually off the line
        };
        let mut t = [p, q, q];
        t[pos] = r;
        t[(pos + 1) % 3] = p;
        t[(pos + 2) % 3] = q;
        t
    })
}

/// The 6 vertex orders of a triangle.
fn perms<T: Copy>(t: &[T; 3]) -> [[T; 3]; 6] {
    let [a, b, c] = *t;
    [
        [a, b, c],
        [a, c, b],
        [b, a, c],
        [b, c, a],
        [c, a, b],
        [c, b, a],
    ]
}

/// A vertex of the second triangle, built relative to the first (A, with even coordinates)
/// so that shared vertices, shared edges, vertices on edges or faces and coplanar
/// configurations are frequent even with large coordinates.
#[derive(Debug, Clone)]
enum Vert {
    /// A vertex of A.
    OfA(usize),
    /// `a0 + (i (a1 − a0) + j (a2 − a0)) / 2`: a point of A's plane on a half-lattice
    /// (edge midpoints, vertices, interior and exterior points).
    InPlane(i64, i64),
    /// Anywhere.
    Free([i64; 3]),
}

fn vert() -> impl Strategy<Value = Vert> {
    prop_oneof![
        (0usize..3).prop_map(Vert::OfA),
        (-2i64..=4, -2i64..=4).prop_map(|(i, j)| Vert::InPlane(i, j)),
        prop::array::uniform3(-2000i64..=2000).prop_map(Vert::Free),
    ]
}

fn realize(a: &ITri, v: &Vert) -> [i64; 3] {
    match *v {
        Vert::OfA(k) => a[k],
        Vert::InPlane(i, j) => {
            [0, 1, 2].map(|k| a[0][k] + (i * (a[1][k] - a[0][k]) + j * (a[2][k] - a[0][k])) / 2)
        }
        Vert::Free(p) => p,
    }
}

/// Both paths against the oracle: the plane-sign fast path ([`tri_tri_intersect`]) and the
/// by-shape path it hands coplanar and degenerate pairs to ([`tri_tri_general`]), so a
/// fast path that took a pair it must not take, or reused a wrong sign, fails here.
fn check(a: &ITri, b: &ITri) -> Result<(), TestCaseError> {
    let want = tri_tri_intersect_i64(a, b);
    let (fa, fb) = (to_f64(a), to_f64(b));
    prop_assert_eq!(
        tri_tri_intersect(&fa, &fb),
        want,
        "a = {:?}, b = {:?}",
        a,
        b
    );
    prop_assert_eq!(
        tri_tri_general(&fa, &fb),
        want,
        "general: a = {:?}, b = {:?}",
        a,
        b
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::proptest_cases(4000)))]

    /// Tiny grid: coplanar, touching, shared and degenerate configurations are common.
    #[test]
    fn small_grid_matches_oracle(a in tri_in(-3, 3), b in tri_in(-3, 3)) {
        check(&a, &b)?;
    }

    /// Even tinier grid with one triangle pinned near the other, for many more contacts.
    #[test]
    fn tiny_grid_matches_oracle(a in tri_in(0, 2), b in tri_in(0, 2)) {
        check(&a, &b)?;
    }

    /// Points and segments against each other and against proper triangles.
    #[test]
    fn degenerate_grid_matches_oracle(a in degenerate_heavy(), b in degenerate_heavy()) {
        check(&a, &b)?;
    }

    #[test]
    fn large_random_matches_oracle(a in tri_in(-1000, 1000), b in tri_in(-1000, 1000)) {
        check(&a, &b)?;
    }

    /// Large coordinates with the second triangle built from the first's vertices and plane.
    #[test]
    fn large_structured_matches_oracle(
        a in tri_in(-500, 500),
        vs in prop::array::uniform3(vert()),
    ) {
        let a = a.map(|p| p.map(|c| 2 * c));
        let b = vs.map(|v| realize(&a, &v));
        check(&a, &b)?;
        check(&b, &a)?;
    }

    /// Intersection is invariant under scaling by a power of two and integer translation;
    /// both are exact in f64 here, so the result must equal the oracle on the raw grid.
    #[test]
    fn scaled_translated_grid_matches_oracle(
        a in tri_in(-3, 3),
        b in tri_in(-3, 3),
        e in -40i32..=20,
        d in prop::array::uniform3(-(1i64 << 10)..=(1i64 << 10)),
    ) {
        let s = 2f64.powi(e);
        let got = tri_tri_intersect(&affine(&a, s, d), &affine(&b, s, d));
        prop_assert_eq!(got, tri_tri_intersect_i64(&a, &b), "a={:?} b={:?} e={} d={:?}", a, b, e, d);
    }

    /// Swapping the triangles or reordering the vertices of either never changes the answer.
    #[test]
    fn symmetric_and_permutation_invariant(a in tri_in(-2, 2), b in tri_in(-2, 2)) {
        let (fa, fb) = (to_f64(&a), to_f64(&b));
        let want = tri_tri_intersect(&fa, &fb);
        for pa in perms(&fa) {
            for pb in perms(&fb) {
                prop_assert_eq!(tri_tri_intersect(&pa, &pb), want);
                prop_assert_eq!(tri_tri_intersect(&pb, &pa), want);
            }
        }
    }

    /// The f32 entry point agrees with the f64 one on the exactly widened input, and with
    /// the oracle on grid input.
    #[test]
    fn f32_wrapper_agrees(
        a in tri_in(-3, 3),
        b in tri_in(-3, 3),
        e in -20i32..=20,
        noise in prop::array::uniform3(prop::array::uniform3(-1.0e3f32..1.0e3)),
    ) {
        let s = 2f32.powi(e);
        let fa = a.map(|p| p.map(|c| c as f32 * s));
        let fb = b.map(|p| p.map(|c| c as f32 * s));
        prop_assert_eq!(tri_tri_intersect_f32(&fa, &fb), tri_tri_intersect_i64(&a, &b));
        let widen = |t: &[[f32; 3]; 3]| t.map(|p| p.map(f64::from));
        prop_assert_eq!(
            tri_tri_intersect_f32(&fa, &noise),
            tri_tri_intersect(&widen(&fa), &widen(&noise))
        );
    }

    /// Any finite input, including huge, tiny and subnormal values outside the exactness
    /// range, must not panic. Values come from a small pool so degenerate paths are hit.
    #[test]
    fn never_panics(ia in tri_in(0, 7), ib in tri_in(0, 7), pool in prop::array::uniform8(any::<f64>())) {
        let extreme = [0.0, -0.0, f64::MAX, -f64::MAX, f64::MIN_POSITIVE, 5e-324, 1e300, -1e-300];
        let pick = |i: i64, k: usize| {
            let v = pool[i as usize];
            if v.is_finite() { v } else { extreme[(i as usize + k) % 8] }
        };
        let a = ia.map(|p| [pick(p[0], 0), pick(p[1], 1), pick(p[2], 2)]);
        let b = ib.map(|p| [pick(p[0], 0), pick(p[1], 1), pick(p[2], 2)]);
        let e = ia.map(|p| [extreme[p[0] as usize], extreme[p[1] as usize], extreme[p[2] as usize]]);
        let _ = tri_tri_intersect(&a, &b);
        let _ = tri_tri_intersect(&a, &e);
        let _ = tri_tri_intersect(&e, &b);
    }
}

// ---------------------------------------------------------------------------------------
// Named hard cases. Each asserts the stated geometric fact, and (for integer input) that
// the oracle agrees with that fact, under all vertex orders and both argument orders.

/// Asserts `tri_tri_intersect == want` for every vertex order and argument order.
fn expect(a: &FTri, b: &FTri, want: bool) {
    for pa in perms(a) {
        for pb in perms(b) {
            assert_eq!(tri_tri_intersect(&pa, &pb), want, "a = {pa:?}, b = {pb:?}");
            assert_eq!(tri_tri_intersect(&pb, &pa), want, "a = {pb:?}, b = {pa:?}");
        }
    }
}

/// Integer case: the oracle must state the same fact, then the exact test is checked.
fn expect_i(a: &ITri, b: &ITri, want: bool) {
    assert_eq!(
        tri_tri_intersect_i64(a, b),
        want,
        "oracle disagrees with the stated fact"
    );
    expect(&to_f64(a), &to_f64(b), want);
}

const T: ITri = [[0, 0, 0], [4, 0, 0], [0, 4, 0]];

fn shift(t: &ITri, d: [i64; 3]) -> ITri {
    t.map(|p| [p[0] + d[0], p[1] + d[1], p[2] + d[2]])
}

#[test]
fn shared_vertex() {
    expect_i(&T, &[[4, 0, 0], [8, 1, 3], [6, -2, 5]], true);
    // Same vertex, other triangle on the far side of it in-plane.
    expect_i(&T, &[[4, 0, 0], [8, 1, 0], [8, -1, 0]], true);
}

#[test]
fn shared_edge() {
    // Hinged about the hypotenuse, out of plane.
    expect_i(&T, &[[4, 0, 0], [0, 4, 0], [4, 4, 7]], true);
    // Coplanar, on the other side of the shared edge.
    expect_i(&T, &[[4, 0, 0], [0, 4, 0], [4, 4, 0]], true);
}

#[test]
fn vertex_touches_face_interior() {
    expect_i(&T, &[[1, 1, 0], [3, 5, 5], [6, -1, 4]], true);
    // Same, lifted by one unit: disjoint.
    expect_i(&T, &[[1, 1, 1], [3, 5, 5], [6, -1, 4]], false);
}

#[test]
fn edge_edge_crossing_in_3d() {
    // B's edge (1,-1,1)-(1,1,-1) crosses A's edge y = 0 at (1, 0, 0); B's third vertex is
    // far above, so only that edge point is shared.
    expect_i(&T, &[[1, -1, 1], [1, 1, -1], [1, -5, 9]], true);
    // Moved by one unit along x past the vertex (4,0,0): misses.
    expect_i(&T, &[[5, -1, 1], [5, 1, -1], [5, -5, 9]], false);
}

#[test]
fn non_coplanar_piercing_and_near_miss() {
    expect_i(&T, &[[1, 1, -3], [1, 1, 3], [9, 9, 9]], true);
    // The line x = y = 3 meets the plane outside the triangle (x + y = 6 > 4).
    expect_i(&T, &[[3, 3, -3], [3, 3, 3], [9, 9, 9]], false);
}

#[test]
fn coplanar_overlapping() {
    expect_i(&T, &shift(&T, [1, 1, 0]), true);
    expect_i(&T, &[[2, -1, 0], [3, 3, 0], [-1, 2, 0]], true);
}

#[test]
fn coplanar_touching_at_an_edge() {
    // Mirror image across the leg x = 0 (shares the edge).
    expect_i(&T, &[[0, 0, 0], [-4, 0, 0], [0, 4, 0]], true);
    // Touching along part of an edge only (collinear edge overlap).
    expect_i(&T, &[[1, 0, 0], [3, 0, 0], [2, -5, 0]], true);
    // Vertex of B on the middle of A's hypotenuse, B outside.
    expect_i(&T, &[[2, 2, 0], [5, 5, 0], [3, 6, 0]], true);
}

#[test]
fn coplanar_disjoint() {
    expect_i(&T, &shift(&T, [5, 0, 0]), false);
    // Just beyond the hypotenuse (x + y = 5 > 4).
    expect_i(&T, &[[3, 2, 0], [6, 6, 0], [2, 3, 0]], false);
}

#[test]
fn coplanar_one_inside_the_other() {
    let big: ITri = [[-10, -10, 0], [30, -10, 0], [-10, 30, 0]];
    expect_i(&big, &T, true);
    // Strictly inside, no boundary contact.
    expect_i(&T, &[[1, 1, 0], [2, 1, 0], [1, 2, 0]], true);
}

#[test]
fn degenerate_segment_piercing_a_triangle() {
    // Collinear "triangle" (middle vertex listed last) through the interior.
    expect_i(&T, &[[1, 1, -2], [1, 1, 2], [1, 1, 0]], true);
    // Same segment ending exactly on the face.
    expect_i(&T, &[[1, 1, 0], [1, 1, 2], [1, 1, 1]], true);
    // Same segment stopping one unit short.
    expect_i(&T, &[[1, 1, 1], [1, 1, 3], [1, 1, 2]], false);
    // In-plane segment crossing the triangle with both ends outside.
    expect_i(&T, &[[-1, 1, 0], [9, 1, 0], [4, 1, 0]], true);
}

#[test]
fn degenerate_point_on_an_edge() {
    let p = |q: [i64; 3]| [q, q, q];
    expect_i(&T, &p([2, 0, 0]), true);
    expect_i(&T, &p([2, 2, 0]), true);
    expect_i(&T, &p([4, 0, 0]), true);
    expect_i(&T, &p([5, 0, 0]), false);
    expect_i(&T, &p([3, 2, 0]), false);
    // Point on a degenerate (segment) triangle, and point vs point.
    expect_i(&[[0, 0, 0], [2, 2, 2], [4, 4, 4]], &p([3, 3, 3]), true);
    expect_i(&[[0, 0, 0], [2, 2, 2], [4, 4, 4]], &p([3, 3, 2]), false);
    expect_i(&p([1, 2, 3]), &p([1, 2, 3]), true);
    expect_i(&p([1, 2, 3]), &p([1, 2, 4]), false);
}

#[test]
fn degenerate_segments_in_3d() {
    // Crossing diagonals of a skewed quad in a common plane.
    expect_i(
        &[[0, 0, 0], [4, 4, 4], [2, 2, 2]],
        &[[0, 4, 0], [4, 0, 4], [2, 2, 2]],
        true,
    );
    // Skew.
    expect_i(
        &[[0, 0, 0], [4, 4, 4], [2, 2, 2]],
        &[[0, 4, 1], [4, 0, 5], [0, 4, 1]],
        false,
    );
    // T-touch: an endpoint of one segment on the interior of the other, both argument
    // orders and both endpoint roles (checked by `expect`).
    expect_i(
        &[[0, 0, 0], [4, 4, 4], [0, 0, 0]],
        &[[2, 2, 2], [5, 1, 2], [5, 1, 2]],
        true,
    );
    expect_i(
        &[[0, 0, 0], [4, 4, 4], [0, 0, 0]],
        &[[-1, 3, 2], [2, 2, 2], [2, 2, 2]],
        true,
    );
    expect_i(
        &[[0, 0, 0], [4, 4, 4], [0, 0, 0]],
        &[[-1, 3, 2], [1, 3, 2], [1, 3, 2]],
        false,
    );
    // Coplanar, one endpoint on the other's line but outside it, other endpoint off the
    // line: the lexicographic extents overlap, yet the segments are disjoint.
    let x: ITri = [[0, 0, 0], [4, 0, 0], [0, 0, 0]];
    expect_i(&x, &[[5, 0, 0], [3, 1, 0], [5, 0, 0]], false);
    expect_i(&x, &[[5, 0, 0], [3, -1, 2], [5, 0, 0]], false);
    expect_i(&x, &[[-1, 0, 0], [2, 1, 0], [-1, 0, 0]], false);
    expect_i(&x, &[[4, 0, 0], [3, 1, 0], [4, 0, 0]], true);
    // Collinear, overlapping / touching / apart.
    let s = [[0, 0, 0], [2, 2, 2], [0, 0, 0]];
    expect_i(&s, &[[1, 1, 1], [3, 3, 3], [3, 3, 3]], true);
    expect_i(&s, &[[2, 2, 2], [3, 3, 3], [3, 3, 3]], true);
    expect_i(&s, &[[3, 3, 3], [4, 4, 4], [3, 3, 3]], false);
}

#[test]
fn identical_triangles() {
    expect_i(&T, &T, true);
    let tilted: ITri = [[1, 2, 3], [7, -2, 5], [-3, 4, 9]];
    expect_i(&tilted, &tilted, true);
}

// Non-integer inputs: the fact is geometric, the scale is far below any epsilon a
// tolerance-based test would use.

/// A tilted triangle with normal direction (-1, -1, 4) and in-plane direction (4, 0, 1).
const TILTED: FTri = [[0.0, 0.0, 0.0], [4.0, 0.0, 1.0], [0.0, 4.0, 1.0]];

fn shift_f(t: &FTri, d: [f64; 3]) -> FTri {
    t.map(|p| [p[0] + d[0], p[1] + d[1], p[2] + d[2]])
}

#[test]
fn tiny_translation_along_normal_is_disjoint() {
    let h = 2f64.powi(-40);
    for base in [[0.0; 3], [1024.0, -4096.0, 512.0]] {
        let t = shift_f(&TILTED, base);
        for sign in [1.0, -1.0] {
            let moved = shift_f(&t, [-h * sign, -h * sign, 4.0 * h * sign]);
            expect(&t, &moved, false);
        }
    }
}

#[test]
fn tiny_translation_in_plane_intersects() {
    let h = 2f64.powi(-40);
    for base in [[0.0; 3], [1024.0, -4096.0, 512.0]] {
        let t = shift_f(&TILTED, base);
        expect(&t, &shift_f(&t, [4.0 * h, 0.0, h]), true);
        expect(&t, &shift_f(&t, [0.0, -4.0 * h, -h]), true);
    }
}

#[test]
fn one_ulp_decisions() {
    // A segment ending 2^-200 above the plane z = 0 misses; ending on it or below it hits.
    let t = to_f64(&T);
    let tiny = 2f64.powi(-200);
    let seg = |z: f64| [[1.0, 1.0, z], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]];
    expect(&t, &seg(tiny), false);
    expect(&t, &seg(0.0), true);
    expect(&t, &seg(-tiny), true);

    // Large triangle; a point on the hypotenuse hits, one ulp of 2^29 further does not.
    let big = 2f64.powi(30);
    let t: FTri = [[0.0, 0.0, 0.0], [big, 0.0, 0.0], [0.0, big, 0.0]];
    let half = big / 2.0;
    let ulp = 2f64.powi(29 - 52);
    let pt = |p: [f64; 3]| [p, p, p];
    expect(&t, &pt([half, half, 0.0]), true);
    expect(&t, &pt([half + ulp, half, 0.0]), false);
    expect(&t, &pt([half - ulp, half, 0.0]), true);
    // Vertical segments through those points.
    let vs = |x: f64| [[x, half, -1.0], [x, half, 1.0], [x, half, 1.0]];
    expect(&t, &vs(half), true);
    expect(&t, &vs(half + ulp), false);
}

#[test]
fn f32_named_cases() {
    let t = [[0.0f32, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]];
    let up = |z: f32| [[1.0f32, 1.0, z], [1.0, 1.0, 1.0], [2.0, 1.0, 1.0]];
    assert!(tri_tri_intersect_f32(&t, &up(0.0)));
    assert!(!tri_tri_intersect_f32(&t, &up(f32::from_bits(1)))); // smallest subnormal
    assert!(tri_tri_intersect_f32(&t, &up(-f32::from_bits(1))));
}
