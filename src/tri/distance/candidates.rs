//! The 42 candidate feature pairs of two triangles (see the parent module's documentation),
//! generic over the arithmetic ([`Arith`]): the interval filter, the exact fallback and the
//! f64 guess of a direction all evaluate the same formulas, so they cannot drift apart.

use super::super::P3;
use super::super::exact::{Arith, Iv, div_down, div_up};
use std::cmp::Ordering;

/// The pair of features that attains a distance: indices are vertex `i` of a triangle, or
/// its edge from vertex `i` to vertex `(i + 1) % 3`, or its face; `a` always names the
/// first triangle's feature and `b` the second's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feature {
    /// The triangles intersect (distance 0).
    Intersect,
    /// Vertex of `a`, vertex of `b`.
    VertexVertex {
        /// Vertex of the first triangle.
        a: usize,
        /// Vertex of the second triangle.
        b: usize,
    },
    /// Vertex of `a`, the interior of an edge of `b`.
    VertexEdge {
        /// Vertex of the first triangle.
        a: usize,
        /// Edge of the second triangle.
        b: usize,
    },
    /// The interior of an edge of `a`, vertex of `b`.
    EdgeVertex {
        /// Edge of the first triangle.
        a: usize,
        /// Vertex of the second triangle.
        b: usize,
    },
    /// Interior points of an edge of `a` and an edge of `b` (non-parallel).
    EdgeEdge {
        /// Edge of the first triangle.
        a: usize,
        /// Edge of the second triangle.
        b: usize,
    },
    /// Vertex of `a` over the face of `b`.
    VertexFace {
        /// Vertex of the first triangle.
        a: usize,
    },
    /// The face of `a` under vertex of `b`.
    FaceVertex {
        /// Vertex of the second triangle.
        b: usize,
    },
}

/// Number of candidates: 9 vertex–vertex, 9 + 9 vertex–edge, 9 edge–edge, 3 + 3 vertex–face.
pub(super) const CANDIDATES: usize = 42;

impl Feature {
    /// The `k`-th candidate, in the fixed order that breaks ties ([`Feature`]'s variants in
    /// order, then `a`, then `b`).
    pub(super) fn of_index(k: usize) -> Feature {
        let (i, j) = ((k % 9) / 3, k % 3);
        match k {
            0..9 => Feature::VertexVertex { a: i, b: j },
            9..18 => Feature::VertexEdge { a: i, b: j },
            18..27 => Feature::EdgeVertex { a: i, b: j },
            27..36 => Feature::EdgeEdge { a: i, b: j },
            36..39 => Feature::VertexFace { a: k - 36 },
            _ => Feature::FaceVertex { b: k - 39 },
        }
    }
}

// ---------------------------------------------------------------------------------------
// The candidates, generic over the arithmetic.

pub(super) type V<N> = [N; 3];

#[inline(always)]
pub(super) fn vsub<N: Arith>(a: &V<N>, b: &V<N>) -> V<N> {
    [a[0].sub(&b[0]), a[1].sub(&b[1]), a[2].sub(&b[2])]
}

#[inline(always)]
pub(super) fn dot<N: Arith>(a: &V<N>, b: &V<N>) -> N {
    a[0].mul(&b[0]).add(&a[1].mul(&b[1])).add(&a[2].mul(&b[2]))
}

#[inline(always)]
pub(super) fn cross<N: Arith>(a: &V<N>, b: &V<N>) -> V<N> {
    [
        a[1].mul(&b[2]).sub(&a[2].mul(&b[1])),
        a[2].mul(&b[0]).sub(&a[0].mul(&b[2])),
        a[0].mul(&b[1]).sub(&a[1].mul(&b[0])),
    ]
}

#[inline(always)]
pub(super) fn norm2<N: Arith>(a: &V<N>) -> N {
    a[0].sqr().add(&a[1].sqr()).add(&a[2].sqr())
}

pub(super) fn is<N: Arith>(x: &N, want: impl Fn(Ordering) -> bool) -> Option<bool> {
    x.sign().map(want)
}

/// The quantities the candidates share, computed once per pair of triangles.
pub(super) struct Pre<N> {
    /// Vertices of the two triangles.
    pub(super) v: [[V<N>; 3]; 2],
    /// `e[t][i] = v[t][i + 1] − v[t][i]`.
    pub(super) e: [[V<N>; 3]; 2],
    /// `|e[t][i]|²`.
    pub(super) l: [[N; 3]; 2],
    /// Normals `(v1 − v0) × (v2 − v0) = e2 × e0`.
    pub(super) n: [V<N>; 2],
    /// `|n[t]|²`.
    pub(super) nn: [N; 2],
    /// `w[i][j] = a_i − b_j`.
    pub(super) w: [[V<N>; 3]; 3],
}

impl<N: Arith> Pre<N> {
    pub(super) fn new(a: &[P3; 3], b: &[P3; 3]) -> Pre<N> {
        let lift = |t: &[P3; 3]| t.map(|p| p.map(N::from_f64));
        let v = [lift(a), lift(b)];
        let edges = |v: &[V<N>; 3]| [0, 1, 2].map(|i| vsub(&v[(i + 1) % 3], &v[i]));
        let e = [edges(&v[0]), edges(&v[1])];
        let l = [0, 1].map(|t| [0, 1, 2].map(|i| norm2(&e[t][i])));
        let n = [0, 1].map(|t| cross(&e[t][2], &e[t][0]));
        let nn = [norm2(&n[0]), norm2(&n[1])];
        let w = [0, 1, 2].map(|i| [0, 1, 2].map(|j| vsub(&v[0][i], &v[1][j])));
        Pre { v, e, l, n, nn, w }
    }
}

impl Pre<Iv> {
    /// What candidate `k` reads (its edges, their lengths, normals and vertex differences),
    /// the rest NaN: [`fast_bounds`] certifies one candidate, and the intervals of all the
    /// others were a third of its time (the nested spheres, `distance`). Safe by
    /// construction even if a field were missed: a NaN interval has no sign, so the
    /// candidate would come out uncertain and the caller would take the full evaluation.
    pub(super) fn for_candidate(a: &[P3; 3], b: &[P3; 3], k: usize) -> Pre<Iv> {
        let nan = Iv::NAN;
        let v = [a, b].map(|t| t.map(|p| p.map(Iv::point)));
        let mut p = Pre {
            v,
            e: [[[nan; 3]; 3]; 2],
            l: [[nan; 3]; 2],
            n: [[nan; 3]; 2],
            nn: [nan; 2],
            w: [[[nan; 3]; 3]; 3],
        };
        let edge = |p: &mut Pre<Iv>, t: usize, i: usize| {
            p.e[t][i] = vsub(&p.v[t][(i + 1) % 3], &p.v[t][i]);
            p.l[t][i] = norm2(&p.e[t][i]);
        };
        let diff = |p: &mut Pre<Iv>, i: usize, j: usize| {
            p.w[i][j] = vsub(&p.v[0][i], &p.v[1][j]);
        };
        match Feature::of_index(k) {
            Feature::VertexVertex { a, b } => diff(&mut p, a, b),
            Feature::VertexEdge { a, b } => {
                edge(&mut p, 1, b);
                diff(&mut p, a, b);
                diff(&mut p, a, (b + 1) % 3);
            }
            Feature::EdgeVertex { a, b } => {
                edge(&mut p, 0, a);
                diff(&mut p, a, b);
                diff(&mut p, (a + 1) % 3, b);
            }
            Feature::EdgeEdge { a, b } => {
                edge(&mut p, 0, a);
                edge(&mut p, 1, b);
                diff(&mut p, a, b);
            }
            Feature::VertexFace { a } => {
                for j in 0..3 {
                    edge(&mut p, 1, j);
                    diff(&mut p, a, j);
                }
                p.n[1] = cross(&p.e[1][2], &p.e[1][0]);
                p.nn[1] = norm2(&p.n[1]);
            }
            Feature::FaceVertex { b } => {
                for i in 0..3 {
                    edge(&mut p, 0, i);
                    diff(&mut p, i, b);
                }
                p.n[0] = cross(&p.e[0][2], &p.e[0][0]);
                p.nn[0] = norm2(&p.n[0]);
            }
            Feature::Intersect => {}
        }
        p
    }
}

/// Candidate `k`: `None` when its conditions certainly fail, else `(certain, num, den)`
/// with `certain` false when some condition is undecided; the value is `num / den` with
/// `den > 0` whenever the conditions hold.
pub(super) fn candidate<N: Arith>(p: &Pre<N>, k: usize) -> Option<(bool, N, N)> {
    let mut certain = true;
    macro_rules! req {
        ($c:expr) => {
            match $c {
                Some(true) => {}
                Some(false) => return None,
                None => certain = false,
            }
        };
    }
    let pos = |s: Ordering| s == Ordering::Greater;
    let neg = |s: Ordering| s == Ordering::Less;
    let (num, den) = match Feature::of_index(k) {
        Feature::VertexVertex { a, b } => (norm2(&p.w[a][b]), N::from_f64(1.0)),
        Feature::VertexEdge { a, b } => {
            // Vertex a_a against edge b_b → b_{b+1}: w = a_a − b_b.
            let d = &p.e[1][b];
            req!(is(&dot(&p.w[a][b], d), pos));
            req!(is(&dot(&p.w[a][(b + 1) % 3], d), neg));
            (norm2(&cross(&p.w[a][b], d)), p.l[1][b].clone())
        }
        Feature::EdgeVertex { a, b } => {
            // Vertex b_b against edge a_a → a_{a+1}: its w is −w[a][b].
            let d = &p.e[0][a];
            req!(is(&dot(&p.w[a][b], d), neg));
            req!(is(&dot(&p.w[(a + 1) % 3][b], d), pos));
            (norm2(&cross(&p.w[a][b], d)), p.l[0][a].clone())
        }
        Feature::EdgeEdge { a, b } => {
            let (d1, d2, r) = (&p.e[0][a], &p.e[1][b], &p.w[a][b]);
            let c = cross(d1, d2);
            let dd = norm2(&c);
            req!(is(&dd, pos));
            let (bb, dr, er) = (dot(d1, d2), dot(d1, r), dot(d2, r));
            let s = bb.mul(&er).sub(&p.l[1][b].mul(&dr));
            req!(is(&s, pos));
            req!(is(&s.sub(&dd), neg));
            let t = p.l[0][a].mul(&er).sub(&bb.mul(&dr));
            req!(is(&t, pos));
            req!(is(&t.sub(&dd), neg));
            (dot(r, &c).sqr(), dd)
        }
        Feature::VertexFace { a } => {
            // p − b_j = w[a][j].
            req!(is(&p.nn[1], pos));
            for j in 0..3 {
                req!(is(&dot(&p.n[1], &cross(&p.e[1][j], &p.w[a][j])), |s| !neg(
                    s
                )));
            }
            (dot(&p.n[1], &p.w[a][0]).sqr(), p.nn[1].clone())
        }
        Feature::FaceVertex { b } => {
            // p − a_i = −w[i][b].
            req!(is(&p.nn[0], pos));
            for i in 0..3 {
                req!(is(&dot(&p.n[0], &cross(&p.e[0][i], &p.w[i][b])), |s| !pos(
                    s
                )));
            }
            (dot(&p.n[0], &p.w[0][b]).sqr(), p.nn[0].clone())
        }
        Feature::Intersect => unreachable!("not a candidate"),
    };
    Some((certain, num, den))
}

/// Candidate `k` is valid with value `≤ e2`, three-valued (`None`: undecided).
pub(super) fn candidate_within<N: Arith>(p: &Pre<N>, k: usize, e2: &N) -> Option<bool> {
    let Some((certain, num, den)) = candidate(p, k) else {
        return Some(false);
    };
    match is(&num.sub(&e2.mul(&den)), |s| s != Ordering::Greater) {
        Some(false) => Some(false),
        Some(true) if certain => Some(true),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------
// Fast bounds: a guess in plain f64, certified by a separating direction.

/// Certified bounds `(lo2, hi2)` of the squared distance of two disjoint triangles, cheaply,
/// or `None` when the shortcut does not give tight ones.
///
/// 1. Guess the least candidate `k` and the direction between its closest points in plain
///    f64 ([`super::guess::closest_features`]).
/// 2. Upper bound: candidate `k` in intervals, if its conditions certainly hold (then its
///    value is a squared distance of two points of the triangles).
/// 3. Lower bound: for any vector `v ≠ 0` and `x ∈ a`, `y ∈ b`, `v·(y − x) ≤ |v|·|y − x|`, so
///    the distance is at least `(min_j v·(b_j − a_0) − max_i v·(a_i − a_0)) / |v|` (the
///    triangles are the convex hulls of their vertices). With `v` the guessed direction between the closest
///    points (the exact direction makes this the distance), evaluated in intervals.
///
/// Taken only when `lo2 ≥ hi2 · (1 − 2^-20)`; otherwise the caller evaluates every
/// candidate.
pub(super) fn fast_bounds(a: &[P3; 3], b: &[P3; 3]) -> Option<(f64, f64)> {
    let (k, v) = super::guess::closest_features(a, b)?;
    if !v.iter().all(|x| x.is_finite()) || v == [0.0; 3] {
        return None;
    }
    let iv = Pre::<Iv>::for_candidate(a, b, k);
    let (true, num, den) = candidate(&iv, k)? else {
        return None;
    };
    if den.lo.is_nan() || den.lo <= 0.0 || !num.hi.is_finite() {
        return None;
    }
    let hi2 = div_up(num.hi, den.lo);
    // Projections relative to a_0, so that far from the origin only the (small, often
    // exact) differences are rounded.
    let vv = v.map(Iv::point);
    let o = &iv.v[0][0];
    let proj = |t: &[V<Iv>; 3]| t.map(|x| dot(&vv, &vsub(&x, o)));
    let (pa, pb) = (proj(&iv.v[0]), proj(&iv.v[1]));
    let max_a = pa.iter().fold(f64::NEG_INFINITY, |m, x| m.max(x.hi));
    let min_b = pb.iter().fold(f64::INFINITY, |m, x| m.min(x.lo));
    let gap = Iv::point(min_b).sub(&Iv::point(max_a)).lo;
    if gap.is_nan() || gap <= 0.0 {
        return None;
    }
    let lo2 = div_down(Iv::point(gap).sqr().lo, norm2(&vv).hi);
    if lo2.is_finite() && hi2.is_finite() && lo2 > 0.0 && lo2 >= hi2 * (1.0 - 1.0 / 1048576.0) {
        Some((lo2, hi2))
    } else {
        None
    }
}

// ---------------------------------------------------------------------------------------
// Every candidate in intervals.

/// Every candidate's certified bounds in [`Iv`]: per candidate `(lo, hi, present,
/// certain)` (`present`: not certainly invalid; `hi` finite only for a certainly valid
/// one), the least `lo` over the present ones and over the certain ones, the least `hi`
/// and the candidate that has it.
pub(super) struct IntervalBounds {
    pub(super) bounds: [(f64, f64, bool, bool); CANDIDATES],
    pub(super) lo2: f64,
    pub(super) lo2_certain: f64,
    pub(super) hi2: f64,
    pub(super) best: Option<usize>,
}

pub(super) fn interval_bounds(a: &[P3; 3], b: &[P3; 3]) -> IntervalBounds {
    let pre = Pre::<Iv>::new(a, b);
    let mut bounds = [(f64::INFINITY, f64::INFINITY, false, false); CANDIDATES];
    let (mut lo2, mut lo2_certain, mut hi2) = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    let mut best = None;
    for (k, slot) in bounds.iter_mut().enumerate() {
        let Some((certain, num, den)) = candidate(&pre, k) else {
            continue;
        };
        if den.hi <= 0.0 && !den.hi.is_nan() {
            continue; // den ≤ 0: the conditions (which imply den > 0) fail
        }
        let lo = if den.hi.is_nan() || num.lo.is_nan() {
            0.0
        } else {
            div_down(num.lo.max(0.0), den.hi).max(0.0)
        };
        let hi = if certain && den.lo > 0.0 && !num.hi.is_nan() {
            div_up(num.hi, den.lo)
        } else {
            f64::INFINITY
        };
        *slot = (lo, hi, true, certain);
        lo2 = lo2.min(lo);
        if certain {
            lo2_certain = lo2_certain.min(lo);
            if hi < hi2 {
                hi2 = hi;
                best = Some(k);
            }
        }
    }
    IntervalBounds {
        bounds,
        lo2,
        lo2_certain,
        hi2,
        best,
    }
}

/// `best` (the certainly valid candidate with the least upper bound) when its upper bound
/// is below every other present candidate's lower bound: then it is the unique least
/// candidate, the witness.
pub(super) fn unique_least(
    bounds: &[(f64, f64, bool, bool); CANDIDATES],
    best: Option<usize>,
) -> Option<usize> {
    let k = best?;
    let h = bounds[k].1;
    bounds
        .iter()
        .enumerate()
        .all(|(j, &(lo, _, present, _))| j == k || !present || h < lo)
        .then_some(k)
}
