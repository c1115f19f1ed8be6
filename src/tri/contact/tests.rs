//! Known configurations whose intersection sets are worked out by hand (exact f64
//! endpoints), for [`super::contact_geometry`]. The random and degenerate pairs against an
//! independent clipping oracle are in `tests/contact_geometry.rs`.

use super::*;

fn tri(p: [[f64; 3]; 3]) -> [P3; 3] {
    p
}

/// A in z = 0; B in the plane y = 1 crossing it: B's cross-section at z = 0 is x ∈ [1, 2]
/// (its edge at x = 1, its slanted edge through (2, 1, 0)), inside A (x + y ≤ 4).
#[test]
fn crossing_triangles_give_the_segment() {
    let a = tri([[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]]);
    let b = tri([[1.0, 1.0, -1.0], [3.0, 1.0, -1.0], [1.0, 1.0, 1.0]]);
    let want = Contact::Segment([1.0, 1.0, 0.0], [2.0, 1.0, 0.0]);
    assert_eq!(contact_geometry(&a, &b), Some(want.clone()));
    // Either order of the triangles, any order of their vertices: the same segment.
    assert_eq!(contact_geometry(&b, &a), Some(want.clone()));
    let b2 = [b[2], b[0], b[1]];
    let a2 = [a[1], a[0], a[2]];
    assert_eq!(contact_geometry(&a2, &b2), Some(want));
}

/// A segment endpoint that is no f64: B's edge from (0, 0, −1) to (3, 1, 2) crosses z = 0
/// at t = 1/3, the point (1, 1/3, 0); 1/3 rounds once to `1.0 / 3.0` (IEEE division is
/// correctly rounded).
#[test]
fn a_rational_endpoint_is_rounded_once() {
    let a = tri([[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]]);
    let b = tri([[0.0, 0.0, -1.0], [3.0, 1.0, 2.0], [0.0, 0.0, 2.0]]);
    // B ∩ {z = 0}: from (0, 0, 0) (the edge x = y = 0) to (1, 1/3, 0).
    let c = contact_geometry(&a, &b).unwrap();
    assert_eq!(c, Contact::Segment([0.0, 0.0, 0.0], [1.0, 1.0 / 3.0, 0.0]));
}

#[test]
fn touching_vertex_and_crossing_edges_give_a_point() {
    let a = tri([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]);
    // B's vertex on A's face, the rest above.
    let b = tri([[0.5, 0.5, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 2.0]]);
    assert_eq!(
        contact_geometry(&a, &b),
        Some(Contact::Point([0.5, 0.5, 0.0]))
    );
    // B's edge through (1, 0, 0) on A's edge y = 0; B's other crossing of z = 0 is at
    // (5/3, −5/3, 0), outside A.
    let b = tri([[1.0, -1.0, -1.0], [1.0, 1.0, 1.0], [5.0, -5.0, 5.0]]);
    assert_eq!(
        contact_geometry(&a, &b),
        Some(Contact::Point([1.0, 0.0, 0.0]))
    );
    // Moved off by one ulp in z: no contact, as the exact predicate says.
    let up = |p: P3| [p[0], p[1], p[2] + f64::EPSILON];
    let b = tri([[0.5, 0.5, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 2.0]]).map(up);
    assert!(!super::super::tri_tri_intersect(&a, &b));
    assert_eq!(contact_geometry(&a, &b), None);
}

#[test]
fn identical_triangles_give_their_edges() {
    let a = tri([[3.0, 0.0, 1.0], [0.0, 2.0, 1.0], [1.0, 1.0, 5.0]]);
    let c = contact_geometry(&a, &a).unwrap();
    // From the lexicographically least vertex (0, 2, 1), wound like A.
    assert_eq!(c, Contact::Polygon(vec![a[1], a[2], a[0]]));
    assert_eq!(c.edges(), vec![(a[1], a[2]), (a[2], a[0]), (a[0], a[1])]);
    // A wound the other way: the same vertices the other way round.
    let r = [a[0], a[2], a[1]];
    assert_eq!(
        contact_geometry(&r, &a),
        Some(Contact::Polygon(vec![a[1], a[0], a[2]]))
    );
}

/// A = x, y ≥ 0, x + y ≤ 4 and B = x, y ≥ 1, x + y ≤ 6 in z = 2 overlap in x, y ≥ 1,
/// x + y ≤ 4: the triangle (1, 1), (3, 1), (1, 3).
#[test]
fn coplanar_overlap_is_the_polygon() {
    let a = tri([[0.0, 0.0, 2.0], [4.0, 0.0, 2.0], [0.0, 4.0, 2.0]]);
    let b = tri([[1.0, 1.0, 2.0], [5.0, 1.0, 2.0], [1.0, 5.0, 2.0]]);
    assert_eq!(
        contact_geometry(&a, &b),
        Some(Contact::Polygon(vec![
            [1.0, 1.0, 2.0],
            [3.0, 1.0, 2.0],
            [1.0, 3.0, 2.0]
        ]))
    );
    // A star of David, A = (0,0),(6,0),(3,6) pointing up, B = (0,4),(3,−2),(6,4) down: A's
    // base y = 0 meets B's sides x = (4 − y)/2, x = 6 − (4 − y)/2 at x = 2, 4; B's top
    // y = 4 meets A's sides x = y/2, x = 6 − y/2 at x = 2, 4; the left sides meet at
    // (1, 2), the right ones at (5, 2).
    let a = tri([[0.0, 0.0, 0.0], [6.0, 0.0, 0.0], [3.0, 6.0, 0.0]]);
    let b = tri([[0.0, 4.0, 0.0], [3.0, -2.0, 0.0], [6.0, 4.0, 0.0]]);
    let c = contact_geometry(&a, &b).unwrap();
    assert_eq!(
        c,
        Contact::Polygon(vec![
            [1.0, 2.0, 0.0],
            [2.0, 0.0, 0.0],
            [4.0, 0.0, 0.0],
            [5.0, 2.0, 0.0],
            [4.0, 4.0, 0.0],
            [2.0, 4.0, 0.0],
        ])
    );
    assert_eq!(c.edges().len(), 6);
}

#[test]
fn degenerate_triangles_are_their_segment_or_point() {
    let a = tri([[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]]);
    // A vertical segment through A's face.
    let b = tri([[1.0, 1.0, -1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 0.5]]);
    assert_eq!(
        contact_geometry(&a, &b),
        Some(Contact::Point([1.0, 1.0, 0.0]))
    );
    // A segment in A's plane, crossing it: clipped to A.
    let b = tri([[-1.0, 1.0, 0.0], [5.0, 1.0, 0.0], [2.0, 1.0, 0.0]]);
    assert_eq!(
        contact_geometry(&a, &b),
        Some(Contact::Segment([0.0, 1.0, 0.0], [3.0, 1.0, 0.0]))
    );
    // A point-triangle on A's edge; two equal points.
    let p = [2.0, 2.0, 0.0];
    assert_eq!(contact_geometry(&a, &[p; 3]), Some(Contact::Point(p)));
    assert_eq!(contact_geometry(&[p; 3], &[p; 3]), Some(Contact::Point(p)));
    // Two collinear overlapping segments.
    let s = tri([[1.0, 1.0, 1.0], [3.0, 3.0, 3.0], [1.0, 1.0, 1.0]]);
    let t = tri([[2.0, 2.0, 2.0], [2.0, 2.0, 2.0], [7.0, 7.0, 7.0]]);
    assert_eq!(
        contact_geometry(&s, &t),
        Some(Contact::Segment([2.0, 2.0, 2.0], [3.0, 3.0, 3.0]))
    );
}
