//! A certified lower bound of the distance between two triangles, cheaper than the exact
//! distance: the distance query's last filter before [`crate::tri::distance`].

use super::{add_up, mul_up, sub_down};

type P3 = [f64; 3];

/// `1 + 2⁻⁴⁹`: covers the relative error of a computed Euclidean length.
const LENGTH_UP: f64 = 1.0 + 1.0 / 562_949_953_421_312.0;

/// A lower bound of the distance between two triangles (corners as written, B's posed):
/// their gap along the direction `u` from A's centroid to B's, `(min_j u·b_j − max_i
/// u·a_i)/|u|`, rounded down; 0 or less when it proves nothing. Any `u` gives a bound
/// (`u·(q − p) ≤ |u||q − p|` for `p ∈ a`, `q ∈ b`, by Cauchy–Schwarz, and the extreme
/// projections of a triangle are at its corners); the centroids' direction makes it tight
/// for small triangles far apart, where a box's bound is short by the triangles' extents.
///
/// Rounding: each computed `u·v` is within `γ₃·Σₖ|uₖvₖ| < 2⁻⁵⁰·Σₖ|uₖvₖ|` of the real value
/// (three products, two additions, correctly rounded, no underflow within the supported
/// coordinate range), so each corner's projection is moved by that much the safe way
/// before the difference is taken, the difference is rounded down and the quotient by
/// `|u|`'s computed length times `1 + 2⁻⁴⁹` rounded down: each of the subtraction, the
/// squares, the two additions and the square root is correctly rounded, so the computed
/// length is within a factor `(1 + u)⁶ < 1 + 2⁻⁴⁹` of the real one (`u = 2⁻⁵³`; no square
/// underflows below the normal range or overflows within the supported coordinates).
#[inline(always)]
pub fn projected_gap_lower(a: &[P3; 3], b: &[P3; 3]) -> f64 {
    let third = |t: &[P3; 3], k: usize| (t[0][k] + t[1][k] + t[2][k]) / 3.0;
    let u: P3 = std::array::from_fn(|k| third(b, k) - third(a, k));
    let au = u.map(f64::abs);
    const ERR: f64 = 1.0 / 1_125_899_906_842_624.0; // 2⁻⁵⁰
    let proj = |v: &P3| {
        let d = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
        let e = (au[0] * v[0].abs() + au[1] * v[1].abs() + au[2] * v[2].abs()) * ERR;
        (d, e.next_up())
    };
    let mut hi_a = f64::NEG_INFINITY;
    for v in a {
        let (d, e) = proj(v);
        hi_a = hi_a.max(add_up(d, e));
    }
    let mut lo_b = f64::INFINITY;
    for v in b {
        let (d, e) = proj(v);
        lo_b = lo_b.min(sub_down(d, e));
    }
    let gap = sub_down(lo_b, hi_a);
    if gap <= 0.0 {
        return 0.0;
    }
    let len = mul_up(crate::geom::dist(u, [0.0; 3]), LENGTH_UP);
    (gap / len).next_down()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The projected gap never exceeds the exact distance (the rational oracle of
    /// `tri::distance`), on random pairs near and far from the origin, and it is close to
    /// it for small triangles far apart.
    #[test]
    fn projected_gap_is_a_lower_bound() {
        let mut rng = Rng::new(3);
        let mut tight = 0;
        for i in 0..4000 {
            let off = [0.0, 1e7, -2.5e3][i % 3];
            let scale = [1.0, 0.01, 1e-4][i / 3 % 3];
            let far = rng.f64() * 4.0;
            let mut tri = |shift: f64| -> [P3; 3] {
                std::array::from_fn(|_| {
                    [
                        off + shift + scale * (rng.f64() - 0.5),
                        off + scale * (rng.f64() - 0.5),
                        scale * (rng.f64() - 0.5),
                    ]
                })
            };
            let a = tri(0.0);
            let b = tri(far * scale);
            let g = projected_gap_lower(&a, &b);
            let d = crate::tri::distance::tri_tri_distance(&a, &b);
            assert!(g <= d.lower(), "{a:?} {b:?}: {g} > {}", d.lower());
            if g > 0.5 * d.lower() {
                tight += 1;
            }
        }
        assert!(tight > 100, "{tight}");
    }
}
