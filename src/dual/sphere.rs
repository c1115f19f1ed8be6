//! Bounding spheres of the dual hierarchy: the smallest enclosing sphere of a node's
//! triangle corners (Fang, Jiang and Xu, *Efficient Collision Detection Using a Dual
//! k-DOP-Sphere Bounding Volume Hierarchy*, section III.A: "the first method is to
//! construct the smallest enclosing sphere ... We choose the first method"), made
//! conservative for our arithmetic.
//!
//! Centre: Welzl's algorithm (randomized incremental, the nested-loop form with at most four
//! support points) in f64, rounded to f32. Radius: *not* Welzl's, but the largest f64
//! distance from the stored f32 centre to any corner, plus `2⁻⁵⁰·m` (`m` the largest
//! coordinate magnitude), times `1 + 2⁻⁴⁰`, rounded up to f32. Corners are local f64
//! coordinates ([`crate::frame`]), each within `2⁻⁵³` relative of the real local corner, so
//! the real corner is within `√3·2⁻⁵³·m < 2⁻⁵⁰·m` of the given one; the f64 distance has a
//! relative error below 7·2⁻⁵³ (three differences, three products, two sums, one square
//! root), far below 2⁻⁴⁰, so every real corner is provably inside the stored closed ball,
//! whatever Welzl's own rounding or degenerate support sets (collinear, coplanar) did to the
//! centre.

use crate::frame::LocalPose;
use crate::geom::{cross, dist, dist2, dot, sub};

/// Relative widening of every radius (stored and posed): covers the f64 rounding of the
/// distance and sphere-test computations with room to spare.
pub const SPHERE_REL_MARGIN: f64 = 1.0 / (1u64 << 40) as f64;

/// A closed ball, f32 as stored per node (16 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Sphere {
    /// Centre (local coordinates of the node's hierarchy).
    pub c: [f32; 3],
    /// Radius, rounded up so every real corner is inside.
    pub r: f32,
}

impl Sphere {
    /// The radius grown by `ε`, rounded up to f32 ([`crate::proximity::f32_up`] of an
    /// upward sum), for a tolerance query: the ball of radius `r + ε` holds every point
    /// within `ε` of the ball of radius `r`, by the triangle inequality.
    pub fn widened(&self, eps: f64) -> Sphere {
        use crate::proximity::{add_up, f32_up};
        Sphere {
            r: f32_up(add_up(self.r as f64, eps)),
            ..*self
        }
    }

    /// The conservative stored sphere of local f64 points (at least one), see the module
    /// docs.
    pub fn enclosing(pts: &[[f64; 3]]) -> Sphere {
        let (c, _) = min_sphere(pts);
        let c = c.map(|x| x as f32);
        let cf = c.map(f64::from);
        let r = pts.iter().map(|p| dist(*p, cf)).fold(0.0, f64::max);
        let m = pts.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
        let r = r + m * (1.0 / (1u64 << 50) as f64);
        Sphere {
            c,
            r: crate::bv::kdop::round_up(r * (1.0 + SPHERE_REL_MARGIN)),
        }
    }

    /// Whether the f64 point is inside (closed), in f64 arithmetic (tests, validators).
    pub fn contains(&self, p: [f64; 3]) -> bool {
        dist(p, self.c.map(f64::from)) <= self.r as f64
    }

    /// The sphere of B's node at the local pose `lp`, in A's local frame and f64: the centre
    /// moved by `lp.pose` (the arithmetic of [`crate::Pose::apply`]), the radius widened so
    /// the posed ball contains the truth of every corner. `R·x + t` rounded errs per
    /// coordinate by below 4·2⁻⁵³·(|x|₁ + |t|∞) (|R| entries ≤ 1 up to 2⁻⁵⁰), R stretches
    /// lengths by at most 1 + 2⁻⁴⁸ (a normalized quaternion in f64), and the truth is within
    /// `abs_err` per coordinate of the real local image, so `r·(1 + 2⁻⁴⁰) + 2⁻⁴⁰·(|c|₁ + 2r
    /// + |t|∞) + 2·abs_err` bounds the distance of every posed corner (`√3 < 2`).
    #[inline]
    pub fn posed(&self, lp: &LocalPose) -> [f64; 4] {
        let pose = &lp.pose;
        let c = pose.apply(self.c.map(f64::from));
        let r = self.r as f64;
        let c1: f64 = self.c.iter().map(|&x| (x as f64).abs()).sum();
        let t = pose.t.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let w = r * (1.0 + SPHERE_REL_MARGIN)
            + SPHERE_REL_MARGIN * (c1 + 2.0 * r + t)
            + 2.0 * lp.abs_err;
        [c[0], c[1], c[2], w]
    }

    /// The sphere of B's node at a pose, in f32 only: the local pose as the GPU has it (`r`,
    /// `t`, `t_err`: [`crate::tumble::PoseFrame`]'s f32 rotation and translation and the
    /// local pose's error bound). WGSL twin:
    /// `sphere_posed` in `shaders/shared/dual.wgsl`; the CPU traversal uses this one too, so both
    /// make the same decisions (the GPU parity tests compare their counters).
    ///
    /// The centre is `q = transform_f32(r, t, c)`, the triangle filter's transform, whose
    /// error against the truth of `c` is at most `e = transform_error_bound(c, t, t_err)` per
    /// coordinate (`tri::filter`, fused multiply-adds or not; `c` is exact, no input
    /// rounding). For a real corner `p` of the node, `|p − c| ≤ r`, so its truth is within
    /// `r·(1 + 2⁻⁴⁷) + √3·e` of `q` (R stretches by at most 1 + 2⁻⁴⁸; `e` covers the f32
    /// transform of `c` and the local pose's error, which moves `p`'s truth and `c`'s alike
    /// up to `abs_err`, counted once more inside `e ≥ t_err ≥ 2·abs_err`), below
    /// `r·(1 + 2⁻⁴⁷) + 1.75·e`. The returned
    /// radius `fl(fl(r·(1 + 2⁻²⁰)) + 2e)` is at least `r·(1 + 2⁻²¹) + 1.99·e` after its two
    /// roundings (a flushed `r·(1 + 2⁻²⁰)` is below 2⁻¹²⁶, covered by `e ≥ 2⁻¹⁰⁰`): the
    /// posed ball contains every posed corner. An overflowing radius is +∞ (never disjoint).
    #[inline]
    pub fn posed_f32(&self, r: &[f32; 9], t: &[f32; 3], t_err: f32) -> Sphere {
        use crate::bv::slab::ftz;
        use crate::tri::filter::{transform_error_bound, transform_f32};
        let q = transform_f32(r, t, self.c);
        let e = transform_error_bound(self.c, t, t_err);
        let w = ftz(ftz(self.r * SPHERE_GROW) + ftz(e + e));
        Sphere { c: q, r: w }
    }

    /// A's stored sphere as f64 `[cx, cy, cz, r]` (exact conversion).
    #[inline]
    pub fn as_f64(&self) -> [f64; 4] {
        [
            self.c[0] as f64,
            self.c[1] as f64,
            self.c[2] as f64,
            self.r as f64,
        ]
    }
}

/// Whether two closed balls `[cx, cy, cz, r]` are certainly disjoint: `|ca − cb| > ra + rb`
/// with a relative margin of 2⁻⁴⁰ on the right side, above the f64 rounding of the test
/// (a few 2⁻⁵³ relative), so "disjoint" is never said of touching or overlapping balls.
/// Touching balls are not disjoint: closed triangles may touch there.
#[inline]
pub fn disjoint(a: &[f64; 4], b: &[f64; 4]) -> bool {
    let d2 = dist2([a[0], a[1], a[2]], [b[0], b[1], b[2]]);
    let s = (a[3] + b[3]) * (1.0 + SPHERE_REL_MARGIN);
    d2 > s * s
}

/// `1 + 2⁻²⁰`: widening of a posed radius ([`Sphere::posed_f32`]).
pub const SPHERE_GROW: f32 = 1.0 + 1.0 / (1u32 << 20) as f32;
/// `1 + 2⁻¹⁸`: widening of the squared radius sum in [`disjoint_f32`].
pub const SPHERE_TEST_GROW: f32 = 1.0 + 1.0 / (1u32 << 18) as f32;

/// [`disjoint`] in f32 only, the test both the CPU traversal and the GPU make (WGSL twin:
/// `sphere_disjoint` in `shaders/shared/dual.wgsl`). With the centres' differences, squares and sums
/// each rounded (relative error of `d²` at most ≈ 6·2⁻²⁴, of `(ra + rb)²` at most
/// ≈ 3·2⁻²⁴), `d² > (ra + rb)²·(1 + 2⁻¹⁸)` proves the exact balls disjoint with a wide
/// margin. Flushing subnormals only lowers `d²` (safe) or `(ra + rb)²`, whose floor 2⁻¹⁰⁰
/// covers it. An infinite `d²` (overflow) answers "not disjoint", so does any NaN.
#[inline]
pub fn disjoint_f32(a: &Sphere, b: &Sphere) -> bool {
    use crate::bv::slab::{SLAB_ABS_MARGIN, ftz};
    let dx = ftz(a.c[0] - b.c[0]);
    let dy = ftz(a.c[1] - b.c[1]);
    let dz = ftz(a.c[2] - b.c[2]);
    let d2 = ftz(ftz(ftz(dx * dx) + ftz(dy * dy)) + ftz(dz * dz));
    let s = ftz(a.r + b.r);
    let ss = ftz(ftz(s * s) * SPHERE_TEST_GROW);
    d2 > ss.max(SLAB_ABS_MARGIN) && d2 <= f32::MAX
}

/// `(centre, radius)` of a candidate sphere.
type Ball = ([f64; 3], f64);

/// Relative slack of Welzl's containment test (only steers the search; the stored radius is
/// recomputed exactly, see the module doc).
const SLACK: f64 = 1e-12;

#[inline]
fn inside(b: &Ball, p: &[f64; 3]) -> bool {
    dist2(b.0, *p) <= b.1 * b.1 * (1.0 + SLACK) + 1e-300
}

/// Smallest enclosing sphere of `points` (non-empty) by Welzl's algorithm in its
/// move-free nested-loop form; the points are visited in a fixed pseudo-random order
/// (deterministic, expected linear time).
pub fn min_sphere(points: &[[f64; 3]]) -> Ball {
    if points.is_empty() {
        return ([0.0; 3], 0.0);
    }
    let mut p: Vec<[f64; 3]> = points.to_vec();
    let mut rng = crate::rng::Rng::new(p.len() as u64);
    for i in (1..p.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        p.swap(i, j);
    }
    let mut b: Ball = (p[0], 0.0);
    for i in 1..p.len() {
        if !inside(&b, &p[i]) {
            b = (p[i], 0.0);
            for j in 0..i {
                if !inside(&b, &p[j]) {
                    b = ball2(&p[i], &p[j]);
                    for k in 0..j {
                        if !inside(&b, &p[k]) {
                            b = ball3(&p[i], &p[j], &p[k]);
                            for l in 0..k {
                                if !inside(&b, &p[l]) {
                                    b = ball4(&p[i], &p[j], &p[k], &p[l]);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    b
}

/// The ball with `a` and `b` on a diameter.
pub fn ball2(a: &[f64; 3], b: &[f64; 3]) -> Ball {
    let c = [0, 1, 2].map(|k| 0.5 * (a[k] + b[k]));
    (c, 0.5 * dist(*a, *b))
}

/// The smallest ball with `a`, `b`, `c` on its boundary: the circumcircle's ball; for
/// (near-)collinear points the smallest ball through the two farthest apart.
pub fn ball3(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3]) -> Ball {
    let (u, v) = (sub(*b, *a), sub(*c, *a));
    let n = cross(u, v);
    let n2 = dot(n, n);
    let scale = dot(u, u) * dot(v, v);
    if n2 <= 1e-24 * scale || n2 == 0.0 {
        return widest_pair(&[*a, *b, *c]);
    }
    // Circumcentre a + ((|u|² v − |v|² u) × n) / (2 |n|²).
    let (uu, vv) = (dot(u, u), dot(v, v));
    let w = [0, 1, 2].map(|k| uu * v[k] - vv * u[k]);
    let x = cross(w, n);
    let cc = [0, 1, 2].map(|k| a[k] + x[k] / (2.0 * n2));
    let r = dist(cc, *a).max(dist(cc, *b)).max(dist(cc, *c));
    (cc, r)
}

/// The ball through four points (circumsphere); for (near-)coplanar points, the smallest of
/// the two- and three-point balls that contains all four.
pub fn ball4(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3], d: &[f64; 3]) -> Ball {
    let (u, v, w) = (sub(*b, *a), sub(*c, *a), sub(*d, *a));
    let det = dot(u, cross(v, w));
    let scale = (dot(u, u) * dot(v, v) * dot(w, w)).sqrt();
    if det.abs() > 1e-12 * scale {
        let (uu, vv, ww) = (dot(u, u), dot(v, v), dot(w, w));
        let (vw, wu, uv) = (cross(v, w), cross(w, u), cross(u, v));
        let x = [0, 1, 2].map(|k| (uu * vw[k] + vv * wu[k] + ww * uv[k]) / (2.0 * det));
        let cc = [0, 1, 2].map(|k| a[k] + x[k]);
        let r = [a, b, c, d]
            .iter()
            .map(|p| dist(cc, **p))
            .fold(0.0, f64::max);
        return (cc, r);
    }
    let pts = [*a, *b, *c, *d];
    smallest_by_support(&pts).unwrap_or_else(|| widest_pair(&pts))
}

/// Smallest of the balls spanned by 2 or 3 of `pts` that contains all of them.
fn smallest_by_support(pts: &[[f64; 3]]) -> Option<Ball> {
    let n = pts.len();
    let mut best: Option<Ball> = None;
    let mut consider = |b: Ball| {
        if pts.iter().all(|p| inside(&b, p)) && best.is_none_or(|o| b.1 < o.1) {
            best = Some(b);
        }
    };
    for i in 0..n {
        for j in i + 1..n {
            consider(ball2(&pts[i], &pts[j]));
            for k in j + 1..n {
                consider(ball3(&pts[i], &pts[j], &pts[k]));
            }
        }
    }
    best
}

/// The ball on the farthest pair's diameter, grown to contain every point.
fn widest_pair(pts: &[[f64; 3]]) -> Ball {
    let mut best = (0, 0, -1.0);
    for i in 0..pts.len() {
        for j in i + 1..pts.len() {
            let d = dist2(pts[i], pts[j]);
            if d > best.2 {
                best = (i, j, d);
            }
        }
    }
    let (c, r) = ball2(&pts[best.0], &pts[best.1]);
    let r = pts.iter().map(|p| dist(c, *p)).fold(r, f64::max);
    (c, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pose::Pose;
    use crate::rng::Rng;

    /// Independent oracle for small sets: the smallest of all balls spanned by 2, 3 or 4 of
    /// the points (diametral, circumcircle, circumsphere) that contains them all. The
    /// minimum enclosing ball is always spanned by at most four points on its boundary.
    fn oracle(pts: &[[f64; 3]]) -> f64 {
        let n = pts.len();
        let mut best = f64::INFINITY;
        let ok = |b: &Ball| {
            pts.iter()
                .all(|p| dist(b.0, *p) <= b.1 * (1.0 + 1e-9) + 1e-12)
        };
        for i in 0..n {
            for j in i + 1..n {
                let b = ball2(&pts[i], &pts[j]);
                if ok(&b) {
                    best = best.min(b.1);
                }
                for k in j + 1..n {
                    let b = ball3(&pts[i], &pts[j], &pts[k]);
                    if ok(&b) {
                        best = best.min(b.1);
                    }
                    for l in k + 1..n {
                        let b = ball4(&pts[i], &pts[j], &pts[k], &pts[l]);
                        if ok(&b) {
                            best = best.min(b.1);
                        }
                    }
                }
            }
        }
        if n == 1 { 0.0 } else { best }
    }

    fn random_set(rng: &mut Rng, n: usize, grid: bool) -> Vec<[f32; 3]> {
        (0..n)
            .map(|_| {
                [0; 3].map(|_| {
                    if grid {
                        rng.below(3) as f32 - 1.0
                    } else {
                        rng.range(-2.0, 2.0) as f32
                    }
                })
            })
            .collect()
    }

    #[test]
    fn welzl_matches_the_support_oracle_and_contains_all_points() {
        let mut rng = Rng::new(5);
        for case in 0..3000 {
            let n = 1 + rng.below(8) as usize;
            let grid = case % 3 == 0; // duplicates, collinear and coplanar sets
            let mut pts = random_set(&mut rng, n, grid);
            if case % 5 == 1 {
                // Coplanar: flatten z.
                for p in &mut pts {
                    p[2] = 0.25;
                }
            }
            let p64: Vec<[f64; 3]> = pts.iter().map(|p| p.map(f64::from)).collect();
            let s = Sphere::enclosing(&p64);
            for p in &p64 {
                assert!(s.contains(*p), "case {case}: {p:?} outside {s:?}");
            }
            let want = oracle(&p64);
            let (_, got) = min_sphere(&p64);
            assert!(
                got <= want * (1.0 + 1e-9) + 1e-12,
                "case {case}: welzl {got} > oracle {want} for {p64:?}"
            );
            // The stored radius is the Welzl radius up to rounding (the centre moved to f32).
            assert!((s.r as f64) <= want * (1.0 + 1e-5) + 1e-5, "case {case}");
        }
    }

    #[test]
    fn larger_sets_are_contained_and_not_looser_than_the_box_ball() {
        let mut rng = Rng::new(9);
        for _ in 0..50 {
            let pts = random_set(&mut rng, 500, false);
            let p64: Vec<[f64; 3]> = pts.iter().map(|p| p.map(f64::from)).collect();
            let s = Sphere::enclosing(&p64);
            assert!(p64.iter().all(|p| s.contains(*p)));
            // The ball around the bounding box's centre with the farthest point as radius
            // is a valid enclosing ball: the minimum can be no larger.
            let k = crate::bv::Kdop::<3>::from_points(p64.iter().copied());
            let c = [0, 1, 2].map(|i| 0.5 * (k.min[i] as f64 + k.max[i] as f64));
            let rb = p64.iter().map(|p| dist(*p, c)).fold(0.0, f64::max);
            assert!((s.r as f64) <= rb * (1.0 + 1e-6));
        }
    }

    #[test]
    fn posed_sphere_contains_posed_points_and_disjoint_is_closed() {
        let mut rng = Rng::new(11);
        for _ in 0..200 {
            let pts: Vec<[f64; 3]> = random_set(&mut rng, 12, false)
                .iter()
                .map(|p| p.map(f64::from))
                .collect();
            let s = Sphere::enclosing(&pts);
            let pose = Pose::new(rng.unit_quaternion(), [0; 3].map(|_| rng.range(-1e3, 1e3)));
            let ps = s.posed(&LocalPose::exact(&pose));
            for p in &pts {
                let q = pose.apply(*p);
                assert!(dist(q, [ps[0], ps[1], ps[2]]) <= ps[3]);
            }
        }
        // Exactly touching balls are not disjoint; a gap is.
        let a = [0.0, 0.0, 0.0, 1.0];
        assert!(!disjoint(&a, &[2.0, 0.0, 0.0, 1.0]));
        assert!(disjoint(&a, &[2.001, 0.0, 0.0, 1.0]));
        assert!(!disjoint(&a, &[0.5, 0.5, 0.0, 0.1]));
    }

    /// The GPU's f32 sphere (`posed_f32`) contains the f64 truth of every posed corner and is
    /// not loose; `disjoint_f32` never calls overlapping or touching balls disjoint, and
    /// agrees with the f64 test once the gap exceeds 10⁻⁵ relative.
    #[test]
    fn f32_posed_spheres_contain_posed_corners_and_f32_disjoint_is_safe() {
        let mut rng = Rng::new(12);
        for case in 0..600 {
            let scale = [1e-3, 1.0, 1e4][case % 3];
            let shift = [0.0, 10.0, 1e4][case / 3 % 3] * scale;
            let pts: Vec<[f64; 3]> = random_set(&mut rng, 10, case % 5 == 0)
                .iter()
                .map(|p| p.map(|x| x as f64 * scale + shift))
                .collect();
            let s = Sphere::enclosing(&pts);
            let t = [0; 3].map(|_| rng.range(-1e3, 1e3) * scale);
            let pose = Pose::new(rng.unit_quaternion(), t);
            let (r32, t32, te) = crate::tumble::pose_f32(&LocalPose::exact(&pose));
            let ps = s.posed_f32(&r32, &t32, te);
            let c = ps.c.map(f64::from);
            for p in &pts {
                assert!(dist(pose.apply(*p), c) <= ps.r as f64, "case {case}");
            }
            let slack = 1e-5 * (s.r as f64 + shift.abs() + 1e3 * scale);
            assert!((ps.r as f64) <= s.r as f64 + slack, "case {case}: loose");
        }
        let rel_gap = |a: &Sphere, b: &Sphere| {
            let d = dist(a.c.map(f64::from), b.c.map(f64::from));
            d / (a.r as f64 + b.r as f64) - 1.0
        };
        let mut said = 0;
        for case in 0..20_000 {
            let r = [1e-6, 1.0, 1e5][case % 3];
            let a = Sphere {
                c: [0; 3].map(|_| (rng.range(-2.0, 2.0) * r) as f32),
                r: (rng.f64() * r) as f32,
            };
            // b's centre at a chosen relative gap from a's ball, on a random direction.
            let gap = rng.range(-1e-4, 1e-4) * [1.0, 1e-2, 1e2][(case / 3) % 3];
            let rb = (rng.f64() * r) as f32;
            let dir = [0; 3].map(|_| rng.range(-1.0, 1.0));
            let n = dir.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-9);
            let d = (a.r as f64 + rb as f64) * (1.0 + gap);
            let b = Sphere {
                c: [0, 1, 2].map(|k| (a.c[k] as f64 + dir[k] / n * d) as f32),
                r: rb,
            };
            let g = rel_gap(&a, &b);
            if disjoint_f32(&a, &b) {
                assert!(g > 1e-12, "case {case}: gap {g} said disjoint");
                said += 1;
            } else {
                assert!(g <= 1e-5, "case {case}: gap {g} not said disjoint");
            }
        }
        assert!(said > 1000, "the test must exercise both answers");
        let unit = |x: f32, r: f32| Sphere {
            c: [x, 0.0, 0.0],
            r,
        };
        assert!(!disjoint_f32(&unit(0.0, 1.0), &unit(2.0, 1.0)));
        assert!(disjoint_f32(&unit(0.0, 1.0), &unit(2.001, 1.0)));
        assert!(!disjoint_f32(&unit(0.0, 0.0), &unit(0.0, 0.0)));
        assert!(!disjoint_f32(
            &unit(0.0, f32::MAX),
            &unit(f32::MAX, f32::MAX)
        ));
    }
}
