//! Unit tests of the building blocks; the end-to-end checks against the oracle are in
//! `tests/tri_tri.rs`.

use super::oracle::tri_tri_intersect_i64;
use super::*;

fn c(x: f64, y: f64) -> Coord<f64> {
    Coord { x, y }
}

fn f(t: &[[i64; 3]; 3]) -> [P3; 3] {
    t.map(|p| p.map(|x| x as f64))
}

#[test]
fn classify() {
    let t = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    assert_eq!(Shape::of(&t), Shape::Tri(t));
    // Collinear along a direction with negative components: the middle point is dropped
    // whatever its position in the input.
    let (a, m, b) = ([2.0, -1.0, 5.0], [1.0, 0.0, 5.0], [0.0, 1.0, 5.0]);
    for s in [[a, m, b], [m, a, b], [a, b, m], [b, m, a]] {
        assert_eq!(Shape::of(&s), Shape::Seg(b, a));
    }
    // Direction with zero x: y decides.
    let s = [[3.0, 4.0, 1.0], [3.0, 2.0, 2.0], [3.0, 6.0, 0.0]];
    assert_eq!(Shape::of(&s), Shape::Seg(s[1], s[2]));
    let p = [1.5, -2.0, 7.0];
    assert_eq!(Shape::of(&[p, p, p]), Shape::Point(p));
    assert_eq!(Shape::of(&[p, p, a]), Shape::Seg(p, a));
}

#[test]
fn drop_axis_is_injective_choice() {
    // Triangle in the plane x = y: dropping x or y is injective, dropping z is not.
    let t = [[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let k = drop_axis(&t[0], &t[1], &t[2]).unwrap();
    assert_ne!(k, 2);
    assert!(drop_axis(&[0.0; 3], &[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]).is_none());
}

#[test]
fn point_in_triangle_2d_closed_both_orientations() {
    let ccw = [c(0.0, 0.0), c(4.0, 0.0), c(0.0, 4.0)];
    let cw = [ccw[0], ccw[2], ccw[1]];
    for t in [ccw, cw] {
        assert!(point_in_triangle_2d(c(1.0, 1.0), &t)); // interior
        assert!(point_in_triangle_2d(c(2.0, 2.0), &t)); // on hypotenuse
        assert!(point_in_triangle_2d(c(0.0, 0.0), &t)); // vertex
        assert!(point_in_triangle_2d(c(0.0, 3.0), &t)); // on leg
        assert!(!point_in_triangle_2d(c(2.0, 2.0 + f64::EPSILON * 2.0), &t));
        assert!(!point_in_triangle_2d(c(-1.0, 1.0), &t));
        assert!(!point_in_triangle_2d(c(5.0, 0.0), &t)); // on edge's line, beyond
    }
}

#[test]
fn segment_segment_2d_cases() {
    let s = |a: (f64, f64), b: (f64, f64), p: (f64, f64), q: (f64, f64)| {
        segment_segment_2d(c(a.0, a.1), c(b.0, b.1), c(p.0, p.1), c(q.0, q.1))
    };
    assert!(s((0., 0.), (2., 2.), (0., 2.), (2., 0.))); // crossing
    assert!(s((0., 0.), (2., 2.), (1., 1.), (3., 0.))); // T-touch
    assert!(s((0., 0.), (2., 2.), (2., 2.), (3., 0.))); // shared endpoint
    assert!(s((0., 0.), (2., 2.), (1., 1.), (3., 3.))); // collinear overlap
    assert!(s((0., 0.), (2., 2.), (2., 2.), (3., 3.))); // collinear touch
    assert!(!s((0., 0.), (2., 2.), (3., 3.), (4., 4.))); // collinear apart
    assert!(!s((0., 0.), (2., 2.), (2., 0.), (3., 0.))); // line hits, segment doesn't
    assert!(!s((0., 0.), (2., 0.), (0., 1.), (2., 1.))); // parallel
    assert!(s((1., 1.), (1., 1.), (0., 0.), (2., 2.))); // point on segment
    assert!(!s((1., 1.), (1., 1.), (0., 0.), (2., 2.1))); // point off segment
    assert!(s((1., 1.), (1., 1.), (1., 1.), (1., 1.))); // equal points
    assert!(!s((1., 1.), (1., 1.), (1., 2.), (1., 2.)));
}

#[test]
fn segment_triangle_2d_cases() {
    let t = [c(0.0, 0.0), c(4.0, 0.0), c(0.0, 4.0)];
    assert!(segment_triangle_2d(c(1.0, 1.0), c(9.0, 9.0), &t)); // endpoint inside
    assert!(segment_triangle_2d(c(-1.0, 1.0), c(9.0, 1.0), &t)); // passes through
    assert!(segment_triangle_2d(c(-1.0, 4.0), c(1.0, 4.0), &t)); // touches a vertex
    assert!(segment_triangle_2d(c(-1.0, -1.0), c(5.0, 5.0), &t)); // through, ends outside
    assert!(!segment_triangle_2d(c(3.0, 3.0), c(9.0, -3.0), &t)); // parallel, outside
    assert!(segment_triangle_2d(c(1.0, 1.0), c(1.0, 1.0), &t)); // degenerate segment
}

#[test]
fn segment_triangle_3d_cases() {
    let t = [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]];
    let st = |p: P3, q: P3| segment_triangle(&p, &q, &t);
    assert!(st([1.0, 1.0, -1.0], [1.0, 1.0, 1.0])); // pierces interior
    assert!(st([1.0, 1.0, 0.0], [1.0, 1.0, 1.0])); // endpoint on face
    assert!(st([2.0, 2.0, -1.0], [2.0, 2.0, 1.0])); // pierces an edge
    assert!(st([4.0, 0.0, -1.0], [4.0, 0.0, 1.0])); // pierces a vertex
    assert!(!st([3.0, 3.0, -1.0], [3.0, 3.0, 1.0])); // misses
    assert!(!st([1.0, 1.0, 0.5], [1.0, 1.0, 1.0])); // stops short
    assert!(st([-1.0, 1.0, 0.0], [9.0, 1.0, 0.0])); // coplanar, through
    assert!(!st([-1.0, 5.0, 0.0], [9.0, 5.0, 0.0])); // coplanar, misses
    assert!(st([1.0, 1.0, 0.0], [1.0, 1.0, 0.0])); // degenerate, on face
}

#[test]
fn point_and_segment_3d_cases() {
    let (p, q) = ([0.0, 0.0, 0.0], [2.0, -4.0, 6.0]);
    assert!(point_segment(&[1.0, -2.0, 3.0], &p, &q));
    assert!(point_segment(&q, &p, &q));
    assert!(point_segment(&[1.0, -2.0, 3.0], &q, &p));
    assert!(!point_segment(&[3.0, -6.0, 9.0], &p, &q));
    assert!(!point_segment(&[1.0, -2.0, 3.5], &p, &q));
    let (r, s) = ([0.0, -4.0, 0.0], [2.0, 0.0, 6.0]); // crosses pq at (1, -2, 3)
    assert!(segment_segment(&p, &q, &r, &s));
    assert!(!segment_segment(&p, &q, &r, &[2.0, 0.0, 6.5])); // skew
    assert!(segment_segment(
        &p,
        &q,
        &[1.0, -2.0, 3.0],
        &[4.0, -8.0, 12.0]
    )); // overlap
    assert!(!segment_segment(
        &p,
        &q,
        &[3.0, -6.0, 9.0],
        &[4.0, -8.0, 12.0]
    ));
    assert!(segment_segment(&p, &q, &q, &[4.0, -8.0, 12.0])); // touch end to end
}

#[test]
fn small_grid_sample_matches_oracle() {
    // A deterministic sweep over a tiny grid (coordinates 0..=2), dense in degeneracies.
    // Also checks that the sample really exercises the hard paths (lower bounds only).
    let mut rng = crate::rng::Rng::new(7);
    let mut g = || rng.below(3) as i64;
    let n = 20_000;
    let (mut hits, mut degenerate, mut coplanar) = (0, 0, 0);
    for _ in 0..n {
        let a = [[g(), g(), g()], [g(), g(), g()], [g(), g(), g()]];
        let b = [[g(), g(), g()], [g(), g(), g()], [g(), g(), g()]];
        let (fa, fb) = (f(&a), f(&b));
        let got = tri_tri_intersect(&fa, &fb);
        assert_eq!(got, tri_tri_intersect_i64(&a, &b), "{a:?} {b:?}");
        hits += got as usize;
        match (Shape::of(&fa), Shape::of(&fb)) {
            (Shape::Tri(ta), Shape::Tri(tb)) => {
                coplanar += tb.iter().all(|p| o3(&ta[0], &ta[1], &ta[2], p) == 0.0) as usize
            }
            _ => degenerate += 1,
        }
    }
    // Coplanar proper pairs are rarer here; `tests/tri_tri.rs` generates them on purpose.
    for (what, count, per) in [
        ("intersecting", hits, 50),
        ("disjoint", n - hits, 50),
        ("degenerate", degenerate, 50),
        ("coplanar", coplanar, 400),
    ] {
        assert!(count * per >= n, "only {count} of {n} pairs are {what}");
    }
}

/// `plane_signs` against Shewchuk's exact `orient3d` (the oracle for a sign): random
/// points, points exactly on the plane (integer grids, also scaled and moved to 1e6 where
/// the rounded differences err), and points one or a few ulps off it, where the filter must
/// hand over to the exact predicate. A filter without its margin fails the last two.
/// The same for `o3_inline`, the orientation `intervals_meet` takes.
#[test]
fn plane_signs_are_orient3d_signs() {
    let sign = |x: f64| (x > 0.0) as i8 - (x < 0.0) as i8;
    let mut rng = crate::rng::Rng::new(7);
    let mut r = |lo: f64, hi: f64| rng.range(lo, hi);
    let mut near = 0;
    for case in 0..20_000 {
        let offset = [0.0, 1e6, 3.3e9][case % 3];
        let scale = [1.0, 0.1, 1e-3][(case / 3) % 3];
        let g = |r: &mut dyn FnMut(f64, f64) -> f64| {
            [0; 3].map(|_| offset + scale * r(-8.0, 8.0).round())
        };
        let t = [g(&mut r), g(&mut r), g(&mut r)];
        let mut pts = [[0.0; 3]; 3];
        for q in pts.iter_mut() {
            *q = match case % 4 {
                0 => g(&mut r),
                _ => {
                    // On the plane: t0 + i·(t1 − t0) + j·(t2 − t0) on the grid, then a few
                    // ulps away along one axis.
                    let (i, j) = (r(-2.0, 2.0).round(), r(-2.0, 2.0).round());
                    let mut q =
                        [0; 3].map(|k| t[0][k] + i * (t[1][k] - t[0][k]) + j * (t[2][k] - t[0][k]));
                    let k = (r(0.0, 2.99) as usize).min(2);
                    for _ in 0..(case % 4 - 1) {
                        q[k] = f64::from_bits(q[k].to_bits() + 1);
                    }
                    q
                }
            };
        }
        let got = plane_signs(&t, &pts);
        for (q, g) in pts.iter().zip(got) {
            let want = o3(&t[0], &t[1], &t[2], q);
            near += (want.abs() < 1e-3) as usize;
            assert_eq!(sign(g), sign(want), "t = {t:?}, p = {q:?}");
            // `o3_inline`'s own filter, on the same near-plane cases.
            let inline = o3_inline(&t[0], &t[1], &t[2], q);
            assert_eq!(sign(inline), sign(want), "o3_inline: t = {t:?}, p = {q:?}");
        }
    }
    assert!(near > 10_000, "{near}");
}
