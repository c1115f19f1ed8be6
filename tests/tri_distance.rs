//! End-to-end checks of the exact triangle distance (`meshcollide::tri::distance`).
//!
//! Every expectation comes from an independent rational oracle in this file, or from a
//! geometric fact stated next to the case; no expected value is copied from a run.
//!
//! The oracle shares no formula with the library: the distance of two triangles is the
//! least of `min |x − y|` over every pair of vertex subsets `F` of `a` and `G` of `b` (1, 2
//! or 3 vertices each), taken over their affine hulls in barycentric form, when that
//! least-squares problem has a unique solution (Gram matrix of the edge vectors nonsingular,
//! solved by Cramer's rule in big integers) whose barycentric coordinates are all `≥ 0`.
//! Every such solution is a pair of actual points; and a closest pair always has one (take
//! faces of least dimension containing a closest pair, slide the pair along a shared
//! direction until the faces' directions are independent; for intersecting triangles, take
//! an extreme point of the intersection). Coordinates are scaled to integers by a common
//! power of two (exact), so the oracle's squared distance is `num / den · 2^s` exactly.

mod common;

use common::mantissa_exponent;
use meshcollide::rng::Rng;
use meshcollide::tri::distance::{
    Feature, TriDistance, tri_tri_distance, tri_tri_within, tri_tri_within_exact,
};
use meshcollide::tri::tri_tri_intersect;
use num_bigint::BigInt;
use std::cmp::Ordering;

type FTri = [[f64; 3]; 3];
type Z = BigInt;
type ZV = [Z; 3];

// ---------------------------------------------------------------------------------------
// The oracle.

/// An exact squared distance `num / den · 2^s`, `den > 0`.
#[derive(Debug, Clone)]
struct Od {
    num: Z,
    den: Z,
    s: i64,
}

fn z(x: i64) -> Z {
    Z::from(x)
}

fn sub(a: &ZV, b: &ZV) -> ZV {
    [&a[0] - &b[0], &a[1] - &b[1], &a[2] - &b[2]]
}

fn dot(a: &ZV, b: &ZV) -> Z {
    &a[0] * &b[0] + &a[1] * &b[1] + &a[2] * &b[2]
}

/// Determinant of an `n × n` matrix, `n ≤ 3`, by cofactor expansion (`1` for `n = 0`).
fn det(m: &[Vec<Z>]) -> Z {
    match m.len() {
        0 => z(1),
        1 => m[0][0].clone(),
        2 => &m[0][0] * &m[1][1] - &m[0][1] * &m[1][0],
        _ => {
            let minor = |c: usize| -> Z {
                let rows: Vec<Vec<Z>> = m[1..]
                    .iter()
                    .map(|r| {
                        r.iter()
                            .enumerate()
                            .filter(|(j, _)| *j != c)
                            .map(|(_, x)| x.clone())
                            .collect()
                    })
                    .collect();
                det(&rows)
            };
            &m[0][0] * minor(0) - &m[0][1] * minor(1) + &m[0][2] * minor(2)
        }
    }
}

/// The oracle on integer triangles: `(num, den)` of the squared distance.
fn oracle_int(a: &[ZV; 3], b: &[ZV; 3]) -> (Z, Z) {
    const SUBSETS: [&[usize]; 7] = [&[0], &[1], &[2], &[0, 1], &[0, 2], &[1, 2], &[0, 1, 2]];
    let mut best: Option<(Z, Z)> = None;
    for f in SUBSETS {
        for g in SUBSETS {
            let (nf, ng) = (f.len() - 1, g.len() - 1);
            if nf + ng > 3 {
                continue; // four directions in 3D are never independent
            }
            // x − y = r + Σ s_k (a_fk − a_f0) + Σ t_l (b_g0 − b_gl)
            let r = sub(&a[f[0]], &b[g[0]]);
            let mut cols: Vec<ZV> = f[1..].iter().map(|&i| sub(&a[i], &a[f[0]])).collect();
            cols.extend(g[1..].iter().map(|&j| sub(&b[g[0]], &b[j])));
            let m = cols.len();
            let gram: Vec<Vec<Z>> = (0..m)
                .map(|i| (0..m).map(|j| dot(&cols[i], &cols[j])).collect())
                .collect();
            let rhs: Vec<Z> = cols.iter().map(|c| -dot(c, &r)).collect();
            let mut d = det(&gram);
            if d == z(0) {
                continue;
            }
            let mut sol: Vec<Z> = (0..m)
                .map(|i| {
                    let mut gi = gram.clone();
                    for (row, x) in gi.iter_mut().zip(&rhs) {
                        row[i] = x.clone();
                    }
                    det(&gi)
                })
                .collect();
            if d < z(0) {
                d = -d;
                sol.iter_mut().for_each(|x| *x = -x.clone());
            }
            let sum = |xs: &[Z]| xs.iter().fold(z(0), |acc, x| acc + x);
            if sol.iter().any(|x| *x < z(0)) || sum(&sol[..nf]) > d || sum(&sol[nf..]) > d {
                continue; // outside the faces
            }
            let v: ZV = [0, 1, 2].map(|k| {
                let mut c = &r[k] * &d;
                for (col, s) in cols.iter().zip(&sol) {
                    c += &col[k] * s;
                }
                c
            });
            let (num, den) = (dot(&v, &v), &d * &d);
            let better = match &best {
                None => true,
                Some((bn, bd)) => &num * bd < bn * &den,
            };
            if better {
                best = Some((num, den));
            }
        }
    }
    best.expect("vertex pairs always qualify")
}

/// The exact squared distance of two f64 triangles.
fn oracle(a: &FTri, b: &FTri) -> Od {
    let e_min = a
        .iter()
        .chain(b)
        .flatten()
        .filter(|x| **x != 0.0)
        .map(|&x| mantissa_exponent(x).1)
        .min()
        .unwrap_or(0);
    let int = |x: f64| -> Z {
        if x == 0.0 {
            return z(0);
        }
        let (m, e) = mantissa_exponent(x);
        Z::from(m) << ((e - e_min) as usize)
    };
    let big = |t: &FTri| t.map(|p| p.map(int));
    let (num, den) = oracle_int(&big(a), &big(b));
    Od {
        num,
        den,
        s: 2 * i64::from(e_min),
    }
}

/// A dyadic `m · 2^e`.
#[derive(Debug, Clone)]
struct Dy(Z, i64);

fn dy(x: f64) -> Dy {
    if x == 0.0 {
        return Dy(z(0), 0);
    }
    let (m, e) = mantissa_exponent(x);
    Dy(Z::from(m), i64::from(e))
}

/// `(x + y) / 2`.
fn midpoint(x: f64, y: f64) -> Dy {
    let (Dy(mx, ex), Dy(my, ey)) = (dy(x), dy(y));
    let e = ex.min(ey);
    Dy((mx << (ex - e) as usize) + (my << (ey - e) as usize), e - 1)
}

/// `a · 2^p` vs `b · 2^q` for integers.
fn cmp_scaled(a: Z, p: i64, b: Z, q: i64) -> Ordering {
    let m = p.min(q);
    (a << (p - m) as usize).cmp(&(b << (q - m) as usize))
}

impl Od {
    fn is_zero(&self) -> bool {
        self.num == z(0)
    }

    /// `x²` against the squared distance.
    fn cmp_square_of(&self, x: &Dy) -> Ordering {
        let Dy(m, e) = x;
        cmp_scaled(m * m * &self.den, 2 * e, self.num.clone(), self.s)
    }

    /// `d ≤ eps`, exactly.
    fn within(&self, eps: f64) -> bool {
        eps >= 0.0 && self.cmp_square_of(&dy(eps)) != Ordering::Less
    }

    fn cmp(&self, o: &Od) -> Ordering {
        cmp_scaled(&self.num * &o.den, self.s, &o.num * &self.den, o.s)
    }

    /// `v` is the nearest f64 to the distance (ties to even), checked by squaring the
    /// midpoints to its neighbours.
    fn is_rounding(&self, v: f64) -> bool {
        if v.is_nan() || v < 0.0 || v.is_infinite() {
            return false;
        }
        let even = v.to_bits() & 1 == 0;
        let up = self.cmp_square_of(&midpoint(v, v.next_up()));
        if up == Ordering::Less || (up == Ordering::Equal && !even) {
            return false;
        }
        if v == 0.0 {
            return true;
        }
        let down = self.cmp_square_of(&midpoint(v.next_down(), v));
        !(down == Ordering::Greater || (down == Ordering::Equal && !even))
    }

    /// A float near the distance (within a few ulps), for probing.
    fn approx(&self) -> f64 {
        let f = |x: &Z| -> (f64, i64) {
            let shift = x.bits().saturating_sub(60) as i64;
            let top: Z = x >> shift as usize;
            (i64::try_from(&top).unwrap() as f64, shift)
        };
        let ((n, sn), (d, sd)) = (f(&self.num), f(&self.den));
        let mut e = sn - sd + self.s;
        let mut q = n / d;
        if e % 2 != 0 {
            q *= 2.0;
            e -= 1;
        }
        q.sqrt() * 2f64.powi((e / 2) as i32)
    }
}

// ---------------------------------------------------------------------------------------
// Checks.

/// Everything the library says about `(a, b)` against the oracle; returns the oracle.
fn check_pair(a: &FTri, b: &FTri) -> Od {
    let od = oracle(a, b);
    let d = tri_tri_distance(a, b);
    let ctx = || format!("a = {a:?}, b = {b:?}, oracle {od:?}");
    // Distance 0 is exactly intersection, and eps = 0 is the intersection test.
    assert_eq!(od.is_zero(), tri_tri_intersect(a, b), "{}", ctx());
    assert_eq!(d.is_zero(), od.is_zero(), "{}", ctx());
    assert_eq!(tri_tri_within(a, b, 0.0), od.is_zero(), "{}", ctx());
    // Bounds bracket the exact distance.
    assert!(d.lower() <= d.upper());
    assert_ne!(
        od.cmp_square_of(&dy(d.lower())),
        Ordering::Greater,
        "{}",
        ctx()
    );
    assert_ne!(
        od.cmp_square_of(&dy(d.upper())),
        Ordering::Less,
        "{}",
        ctx()
    );
    // The value is the correctly rounded distance.
    let v = d.value();
    assert!(od.is_rounding(v), "value {v:e}: {}", ctx());
    // The filter's witness is the exact one.
    assert_eq!(d.feature(), d.feature_exact(), "{}", ctx());
    // Within at and around the distance, filtered and exact.
    let approx = od.approx();
    for eps in [
        v,
        v.next_down(),
        v.next_up(),
        approx,
        approx.next_down(),
        approx.next_up(),
        d.lower(),
        d.upper(),
        2.0 * v,
        0.5 * v,
    ] {
        let want = od.within(eps);
        assert_eq!(tri_tri_within(a, b, eps), want, "eps {eps:e}: {}", ctx());
        assert_eq!(
            tri_tri_within(b, a, eps),
            want,
            "swapped, eps {eps:e}: {}",
            ctx()
        );
        assert_eq!(
            tri_tri_within_exact(a, b, eps),
            want,
            "exact, eps {eps:e}: {}",
            ctx()
        );
    }
    check_points(a, b, &d, &od);
    od
}

/// The largest magnitude of a point's coordinates.
fn max_abs(p: &[f64; 3]) -> f64 {
    p.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

/// `points()`: each within rounding of its triangle, their distance within rounding of the
/// distance, equal when the triangles intersect.
fn check_points(a: &FTri, b: &FTri, d: &TriDistance, od: &Od) {
    let (pa, pb) = d.points();
    let ctx = || format!("points {pa:?} {pb:?}, a = {a:?}, b = {b:?}");
    // Rounding each coordinate once moves a point by at most √3/2 ulp of its largest
    // coordinate; allow one ulp (the ulp of the largest coordinate bounds each one's).
    let ulp = |p: &[f64; 3]| {
        let m = max_abs(p);
        m.next_up() - m
    };
    let (ra, rb) = (ulp(&pa), ulp(&pb));
    let point = |p: [f64; 3]| [p, p, p];
    assert!(oracle(&point(pa), a).within(ra), "on a: {}", ctx());
    assert!(oracle(&point(pb), b).within(rb), "on b: {}", ctx());
    if od.is_zero() {
        assert_eq!(pa, pb, "{}", ctx());
        return;
    }
    // | |pa − pb| − d | ≤ ra + rb: checked as squares, exactly, with the bound rounded up.
    let dp = oracle(&point(pa), &point(pb));
    let (lo, hi) = (
        d.lower() - (ra + rb) * 1.0001,
        d.upper() + (ra + rb) * 1.0001,
    );
    assert!(dp.within(hi), "{}", ctx());
    assert!(lo <= 0.0 || !dp.within(lo.next_down()), "{}", ctx());
}

// ---------------------------------------------------------------------------------------
// Generators.

fn rand_int(r: &mut Rng, lo: i64, hi: i64) -> f64 {
    (lo + r.below((hi - lo + 1) as u64) as i64) as f64
}

/// Grid triangles, mostly degenerate: points, segments (third vertex on the line, maybe
/// outside, in any position), or proper triangles.
fn grid_tri(r: &mut Rng, span: i64) -> FTri {
    let mut pt = || [0; 3].map(|_| rand_int(r, -span, span));
    let (p, q, s) = (pt(), pt(), pt());
    let k = rand_int(r, -1, 2);
    let on_line = [0, 1, 2].map(|i| p[i] + k * (q[i] - p[i]));
    let t = match r.below(6) {
        0 => [p, p, p],
        1 => [p, q, on_line],
        2 => [p, q, q],
        _ => [p, q, s],
    };
    let rot = r.below(3) as usize;
    [t[rot], t[(rot + 1) % 3], t[(rot + 2) % 3]]
}

/// An exact change of coordinates.
type Move = fn(f64) -> f64;

fn map(t: &FTri, f: impl Fn(f64) -> f64) -> FTri {
    t.map(|p| p.map(&f))
}

// ---------------------------------------------------------------------------------------
// Tests.

/// Configurations at distance exactly 5 (offsets (3, 4, 0) and (0, 0, 5)), one per kind of
/// closest features, also translated to 1e7 and scaled by 2^±200 (both exact): `within` is
/// true at 5 and false at its predecessor.
#[test]
fn pythagorean_boundaries() {
    let point = |p: [f64; 3]| [p, p, p];
    let cases: Vec<(FTri, FTri, &str)> = vec![
        (point([0.0; 3]), point([3.0, 4.0, 0.0]), "vertex–vertex"),
        (
            [[-1.0, -5.0, 0.0], [0.0, 0.0, 0.0], [-5.0, -1.0, 0.0]],
            [[3.0, 4.0, 0.0], [9.0, 4.0, 1.0], [3.0, 9.0, -1.0]],
            "vertex–vertex, triangles",
        ),
        (
            [[0.0, 0.0, -10.0], [0.0, 0.0, 10.0], [0.0, 0.0, 3.0]],
            point([3.0, 4.0, 1.0]),
            "vertex–edge, segment",
        ),
        (
            [[0.0, 0.0, 0.0], [10.0, 0.0, 0.0], [0.0, 10.0, 0.0]],
            [[1.0, 1.0, 5.0], [2.0, 1.0, 9.0], [1.0, 2.0, 9.0]],
            "vertex–face",
        ),
        (
            // Face in the plane 3x + 4y = 0; the point's foot (2, −1.5, 1) is inside.
            [[0.0, 0.0, 0.0], [4.0, -3.0, 0.0], [0.0, 0.0, 7.0]],
            point([5.0, 2.5, 1.0]),
            "vertex–face, tilted",
        ),
        (
            [[-5.0, 0.0, 0.0], [5.0, 0.0, 0.0], [0.0, 0.0, -7.0]],
            [[0.0, -5.0, 5.0], [0.0, 5.0, 5.0], [0.0, 0.0, 12.0]],
            "edge–edge, skew",
        ),
        (
            // Edges along z, 3 apart in x and 4 in y after a diagonal edge: (0,0,t) and
            // (3, 4, t) for overlapping t: parallel, the distance is attained along a whole
            // interval (a tie).
            [[0.0, 0.0, -2.0], [0.0, 0.0, 2.0], [-3.0, -4.0, 0.0]],
            [[3.0, 4.0, -1.0], [3.0, 4.0, 3.0], [6.0, 8.0, 0.0]],
            "parallel edges",
        ),
        (
            [[0.0, 0.0, 0.0], [8.0, 0.0, 0.0], [0.0, 8.0, 0.0]],
            [[1.0, 1.0, 5.0], [5.0, 1.0, 5.0], [1.0, 5.0, 5.0]],
            "parallel faces",
        ),
    ];
    let moves: [(Move, &str); 5] = [
        (|x| x, "as is"),
        (|x| x + 1e7, "at 1e7"),
        (|x| x * 2f64.powi(200), "× 2^200"),
        (|x| x * 2f64.powi(-200), "× 2^-200"),
        (|x| x / 8.0 - 3e6, "÷ 8 at −3e6"),
    ];
    for (a, b, what) in &cases {
        for (f, how) in &moves {
            let (a, b) = (map(a, f), map(b, f));
            let five = f(5.0) - f(0.0); // exact: the moves are exact on these values
            let od = check_pair(&a, &b);
            assert!(
                od.within(five) && !od.within(five.next_down()),
                "{what} {how}"
            );
            assert!(tri_tri_within(&a, &b, five), "{what} {how}");
            assert!(!tri_tri_within(&a, &b, five.next_down()), "{what} {how}");
            let d = tri_tri_distance(&a, &b);
            assert_eq!(d.value(), five, "{what} {how}");
            assert_eq!((d.lower(), d.upper()), (five, five), "{what} {how}");
        }
    }
}

/// Random grid soups (many degenerate, touching, coplanar and parallel pairs).
#[test]
fn grid_soups() {
    let mut r = Rng::new(0x5eed);
    let mut zero = 0;
    for i in 0..1500 {
        let span = if i % 3 == 0 { 2 } else { 5 };
        let (a, b) = (grid_tri(&mut r, span), grid_tri(&mut r, span));
        if check_pair(&a, &b).is_zero() {
            zero += 1;
        }
    }
    assert!(zero > 100, "few intersecting pairs: {zero}");
}

/// The same soups far from the origin and at extreme scales (exact transformations).
#[test]
fn grid_soups_moved() {
    let mut r = Rng::new(7);
    for i in 0..600 {
        let (a, b) = (grid_tri(&mut r, 3), grid_tri(&mut r, 3));
        let f: fn(f64) -> f64 = match i % 4 {
            0 => |x| x / 16.0 + 1e7,
            1 => |x| x * 2f64.powi(200),
            2 => |x| x * 2f64.powi(-200),
            _ => |x| x * 0.375 - 12345.0,
        };
        check_pair(&map(&a, f), &map(&b, f));
    }
}

/// Random real coordinates: the interval filter sees inexact operations.
#[test]
fn random_real_soups() {
    let mut r = Rng::new(11);
    for i in 0..800 {
        let scale = [1.0, 1e-3, 1e5][i % 3];
        let mut tri =
            |c: [f64; 3]| [0; 3].map(|_| [0, 1, 2].map(|k| c[k] + scale * r.range(-1.0, 1.0)));
        let offset = if i % 2 == 0 { 1e7 } else { 0.0 };
        let a = tri([offset; 3]);
        let b = tri([offset + scale * 0.5; 3]);
        check_pair(&a, &b);
    }
}

/// Nearly touching: a vertex one ulp above, on and below a face; edges one ulp apart.
#[test]
fn one_ulp_gaps() {
    let t = [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]];
    for z in [
        f64::from_bits(1),
        0.0,
        -f64::from_bits(1),
        1e-300,
        2f64.powi(-60),
    ] {
        let p = [[1.0, 1.0, z], [1.0, 1.0, z + 1.0], [2.0, 1.0, z + 1.0]];
        let od = check_pair(&t, &p);
        assert_eq!(od.is_zero(), z <= 0.0);
        if z > 0.0 {
            assert!(tri_tri_within(&t, &p, z) && !tri_tri_within(&t, &p, z.next_down()));
            assert_eq!(tri_tri_distance(&t, &p).value(), z);
        }
    }
    let e = [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [4.0, 0.0, 0.0]];
    for y in [1e-9, 2f64.powi(-1000), 2f64.powi(-1074)] {
        let f = [[2.0, y, -1.0], [2.0, y, 1.0], [2.0, y, 1.0]];
        check_pair(&e, &f);
        assert!(!tri_tri_within(&e, &f, y.next_down()) && tri_tri_within(&e, &f, y));
    }
}

/// `cmp_exact` agrees with the oracle's order, including exact ties (a pair and its integer
/// translate, a pair and its swap).
#[test]
fn cmp_exact_is_the_oracle_order() {
    let mut r = Rng::new(3);
    let mut items: Vec<(TriDistance, Od)> = Vec::new();
    for i in 0..160 {
        let (a, b) = if i % 4 == 3 {
            let f = |t: &FTri| map(t, |x| x + 0.1);
            (f(&grid_tri(&mut r, 3)), f(&grid_tri(&mut r, 3)))
        } else {
            (grid_tri(&mut r, 3), grid_tri(&mut r, 3))
        };
        let od = oracle(&a, &b);
        items.push((tri_tri_distance(&a, &b), od.clone()));
        // Translated by 7 and swapped: the same distance when the translation is exact
        // (grid coordinates), else its own oracle.
        let t = |x: f64| x + 7.0;
        let (ta, tb) = (map(&a, t), map(&b, t));
        let od = if i % 4 == 3 { oracle(&tb, &ta) } else { od };
        items.push((tri_tri_distance(&tb, &ta), od));
    }
    let mut equal = 0;
    for (i, (d1, o1)) in items.iter().enumerate() {
        for (d2, o2) in items.iter().skip(i).step_by(7) {
            let want = o1.cmp(o2);
            assert_eq!(d1.cmp_exact(d2), want);
            assert_eq!(d2.cmp_exact(d1), want.reverse());
            equal += (want == Ordering::Equal) as usize;
        }
    }
    assert!(equal > 50, "few ties: {equal}");
}

/// The witness is deterministic and, where the closest pair is unique, of the expected kind.
#[test]
fn witnesses() {
    let t = [[0.0, 0.0, 0.0], [10.0, 0.0, 0.0], [0.0, 10.0, 0.0]];
    let above = [[1.0, 1.0, 5.0], [2.0, 1.0, 9.0], [1.0, 2.0, 9.0]];
    assert_eq!(
        tri_tri_distance(&t, &above).feature(),
        Feature::FaceVertex { b: 0 }
    );
    assert_eq!(
        tri_tri_distance(&above, &t).feature(),
        Feature::VertexFace { a: 0 }
    );
    let skew = (
        [[-5.0, 0.0, 0.0], [5.0, 0.0, 0.0], [0.0, 0.0, -7.0]],
        [[0.0, -5.0, 5.0], [0.0, 5.0, 5.0], [0.0, 0.0, 12.0]],
    );
    assert_eq!(
        tri_tri_distance(&skew.0, &skew.1).feature(),
        Feature::EdgeEdge { a: 0, b: 0 }
    );
    assert_eq!(tri_tri_distance(&t, &t).feature(), Feature::Intersect);
    // Parallel faces: ties everywhere; the witness is the first in the fixed order.
    let par = [[1.0, 1.0, 5.0], [5.0, 1.0, 5.0], [1.0, 5.0, 5.0]];
    let d = tri_tri_distance(&t, &par);
    assert_eq!(d.feature(), Feature::FaceVertex { b: 0 });
    assert_eq!(d.points(), ([1.0, 1.0, 0.0], [1.0, 1.0, 5.0]));
}

/// Intersecting pairs: one common point, equal on both sides, exact where representable.
#[test]
fn common_points() {
    let t = [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]];
    let pierce = [[1.0, 1.0, -1.0], [1.0, 1.0, 3.0], [9.0, 9.0, 9.0]];
    assert_eq!(
        tri_tri_distance(&t, &pierce).points(),
        ([1.0, 1.0, 0.0], [1.0, 1.0, 0.0])
    );
    // Coplanar crossing edges, no vertex inside the other: a star of David.
    let up = [[0.0, 0.0, 0.0], [6.0, 0.0, 0.0], [3.0, 6.0, 0.0]];
    let down = [[0.0, 4.0, 0.0], [6.0, 4.0, 0.0], [3.0, -2.0, 0.0]];
    let (p, q) = tri_tri_distance(&up, &down).points();
    assert_eq!(p, q);
    check_pair(&up, &down);
    // A crossing at a point that is not a float: x = 1/3.
    let a = [[0.0, 0.0, -1.0], [1.0, 0.0, 2.0], [1.0, 0.0, 2.0]];
    let b = [[-1.0, -1.0, 0.0], [2.0, -1.0, 0.0], [-1.0, 2.0, 0.0]];
    let (p, q) = tri_tri_distance(&a, &b).points();
    assert_eq!(p, q);
    assert_eq!(p, [1.0 / 3.0, 0.0, 0.0]);
}
