//! Independent exact oracle for [`super::tri_tri_intersect`] on small integer coordinates.
//!
//! It shares no code or method with the main test: two closed convex sets `A`, `B`
//! intersect iff `0 ∈ A − B`, and for triangles `A − B = conv{a_i − b_j}` (9 points).
//! Membership of the origin in the convex hull is decided with exact `i128` arithmetic by
//! searching for a supporting hyperplane of the hull (through points of the set) that has
//! the origin strictly on its outer side. Degenerate triangles need no special handling.
//!
//! Brute force (84 planes × 9 points); meant for tests only.

/// Largest allowed `|coordinate|`: the 9 points are below `2^21`, their differences below
/// `2^22`, plane normals below `2^45`, in-plane edge normals below `2^68` and every dot
/// product below `2^91`, far from `i128` overflow.
pub const MAX_COORD: i64 = 1 << 20;

type V = [i128; 3];

/// Exact test whether two closed integer triangles intersect (`|coordinates| <= 2^20`).
pub fn tri_tri_intersect_i64(a: &[[i64; 3]; 3], b: &[[i64; 3]; 3]) -> bool {
    debug_assert!(
        a.iter()
            .chain(b.iter())
            .flatten()
            .all(|c| c.abs() <= MAX_COORD),
        "oracle coordinates must satisfy |c| <= 2^20"
    );
    let mut pts = [[0i128; 3]; 9];
    for i in 0..3 {
        for j in 0..3 {
            pts[3 * i + j] = sub(&a[i].map(i128::from), &b[j].map(i128::from));
        }
    }
    origin_in_hull(&pts)
}

/// The integer arithmetic the oracle needs: `i128` here, any exact big integer in tests
/// (`num_bigint::BigInt` for f64 coordinates far apart in magnitude).
pub trait ExactInt:
    Clone
    + PartialEq
    + PartialOrd
    + From<i32>
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
{
}

impl<T> ExactInt for T where
    T: Clone
        + PartialEq
        + PartialOrd
        + From<i32>
        + std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<Output = T>
{
}

/// `0 ∈ conv(pts)`, exactly, by the dimension of the affine hull of `pts`.
pub fn origin_in_hull(pts: &[V]) -> bool {
    origin_in_hull_exact(pts)
}

/// [`origin_in_hull`] in any exact integer type.
pub fn origin_in_hull_exact<T: ExactInt>(pts: &[[T; 3]]) -> bool {
    let zero = || T::from(0);
    let is_zero = |v: &[T; 3]| v.iter().all(|c| *c == zero());
    let p0 = pts[0].clone();
    let Some(p1) = pts.iter().find(|p| **p != p0).cloned() else {
        return is_zero(&p0); // a single point
    };
    let e = sub(&p1, &p0);
    let Some(n) = pts
        .iter()
        .map(|p| cross(&e, &sub(p, &p0)))
        .find(|n| !is_zero(n))
    else {
        // Collinear along e: 0 must be on the line (p0 × e = 0) and between the extremes.
        if !is_zero(&cross(&p0, &e)) {
            return false;
        }
        let t: Vec<T> = pts.iter().map(|p| dot(&e, p)).collect();
        let lo = t.iter().any(|x| *x <= zero());
        let hi = t.iter().any(|x| *x >= zero());
        return lo && hi;
    };
    if pts.iter().any(|p| dot(&n, &sub(p, &p0)) != zero()) {
        // Full-dimensional: the hull is the intersection of its facet half-spaces, and each
        // facet plane passes through three affinely independent points of the set.
        for (i, pi) in pts.iter().enumerate() {
            for (j, pj) in pts.iter().enumerate().skip(i + 1) {
                for pk in pts.iter().skip(j + 1) {
                    let n = cross(&sub(pj, pi), &sub(pk, pi));
                    if !is_zero(&n) && separates(pts, &n, dot(&n, pi)) {
                        return false;
                    }
                }
            }
        }
        return true;
    }
    // Planar with normal n: 0 must be in the plane, then not cut off by any edge line; each
    // edge of the hull polygon passes through two points of the set, and its in-plane outer
    // normal is ±n × (pj − pi).
    if dot(&n, &p0) != zero() {
        return false;
    }
    for (i, pi) in pts.iter().enumerate() {
        for pj in pts.iter().skip(i + 1) {
            let m = cross(&n, &sub(pj, pi));
            if !is_zero(&m) && separates(pts, &m, dot(&m, pi)) {
                return false;
            }
        }
    }
    true
}

/// The plane `m·x = c` has all of `pts` on one closed side and the origin strictly on the
/// other (both orientations tried).
fn separates<T: ExactInt>(pts: &[[T; 3]], m: &[T; 3], c: T) -> bool {
    let zero = T::from(0);
    (c < zero && pts.iter().all(|p| dot(m, p) <= c))
        || (c > zero && pts.iter().all(|p| dot(m, p) >= c))
}

fn sub<T: ExactInt>(a: &[T; 3], b: &[T; 3]) -> [T; 3] {
    [
        a[0].clone() - b[0].clone(),
        a[1].clone() - b[1].clone(),
        a[2].clone() - b[2].clone(),
    ]
}

fn dot<T: ExactInt>(a: &[T; 3], b: &[T; 3]) -> T {
    a[0].clone() * b[0].clone() + a[1].clone() * b[1].clone() + a[2].clone() * b[2].clone()
}

fn cross<T: ExactInt>(a: &[T; 3], b: &[T; 3]) -> [T; 3] {
    [
        a[1].clone() * b[2].clone() - a[2].clone() * b[1].clone(),
        a[2].clone() * b[0].clone() - a[0].clone() * b[2].clone(),
        a[0].clone() * b[1].clone() - a[1].clone() * b[0].clone(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: [[i64; 3]; 3] = [[0, 0, 0], [4, 0, 0], [0, 4, 0]];

    fn shift(t: &[[i64; 3]; 3], d: [i64; 3]) -> [[i64; 3]; 3] {
        t.map(|p| [p[0] + d[0], p[1] + d[1], p[2] + d[2]])
    }

    #[test]
    fn known_cases() {
        let i = tri_tri_intersect_i64;
        assert!(i(&T, &T));
        assert!(i(&T, &shift(&T, [4, 0, 0]))); // shared vertex
        assert!(!i(&T, &shift(&T, [5, 0, 0])));
        assert!(i(&T, &shift(&T, [1, 1, 0]))); // coplanar overlap
        assert!(!i(&T, &shift(&T, [0, 0, 1]))); // parallel planes
        assert!(i(&T, &[[1, 1, -1], [1, 1, 1], [9, 9, 9]])); // edge pierces
        assert!(i(&T, &[[1, 1, 0], [5, 5, 3], [9, 9, 9]])); // vertex on face
        assert!(!i(&T, &[[3, 3, -1], [3, 3, 1], [9, 9, 9]])); // passes outside hypotenuse
        assert!(i(&T, &[[2, 2, -1], [2, 2, 1], [9, 9, 9]])); // through the hypotenuse
    }

    #[test]
    fn degenerate_cases() {
        let i = tri_tri_intersect_i64;
        let pt = |p: [i64; 3]| [p, p, p];
        assert!(i(&T, &pt([1, 1, 0])));
        assert!(i(&T, &pt([2, 2, 0])));
        assert!(!i(&T, &pt([3, 2, 0])));
        assert!(!i(&T, &pt([1, 1, 1])));
        assert!(i(&pt([7, 7, 7]), &pt([7, 7, 7])));
        assert!(!i(&pt([7, 7, 7]), &pt([7, 7, 6])));
        let seg = |p: [i64; 3], q: [i64; 3]| [p, q, p];
        assert!(i(&seg([0, 0, 0], [4, 4, 4]), &seg([0, 4, 0], [4, 0, 4]))); // crossing
        assert!(!i(&seg([0, 0, 0], [4, 4, 4]), &seg([0, 4, 1], [4, 0, 5]))); // skew
        assert!(i(&seg([0, 0, 0], [2, 2, 2]), &seg([2, 2, 2], [3, 3, 3]))); // collinear touch
        assert!(!i(&seg([0, 0, 0], [2, 2, 2]), &seg([3, 3, 3], [4, 4, 4])));
        assert!(i(&seg([0, 0, 0], [4, 4, 4]), &pt([1, 1, 1])));
        assert!(!i(&seg([0, 0, 0], [4, 4, 4]), &pt([1, 1, 2])));
        assert!(!i(&seg([0, 0, 0], [4, 4, 4]), &pt([5, 5, 5])));
    }
}
