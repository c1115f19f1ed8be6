//! Exact distance between closed triangles: the predicate [`tri_tri_within`] and the
//! distance with a witness, [`tri_tri_distance`].
//!
//! # Definition
//!
//! The distance of two closed triangles `A`, `B` (possibly degenerate: a zero-area triangle
//! *is* the segment or point it covers) is `min |x − y|` over `x ∈ A`, `y ∈ B`, on the exact
//! f64 coordinates as written. Every decision below is exact; floating point is only a
//! certified filter in front of exact arithmetic ([`super::exact`]).
//!
//! # Candidates
//!
//! Distance 0 is decided by [`tri_tri_intersect`]. Otherwise the distance is the least of
//! 42 *candidates*, each a pair of features (vertex, open edge, face) of the two triangles
//! with a closed-form squared distance `num/den` and sign conditions saying that the two
//! closest points of their affine hulls lie in the features ([`Feature`] lists them in
//! their fixed order):
//!
//! * vertex–vertex `(p, q)`: `|p − q|² / 1`, always valid;
//! * vertex `p` – edge `[q, q + d]` (9 each way): with `w = p − q`, valid iff `w·d > 0` and
//!   `(p − q − d)·d < 0` (the projection is strictly inside the edge; a zero-length edge
//!   fails `w·d > 0`), value `|w × d|² / |d|²` (`= (|w|²|d|² − (w·d)²)/|d|²` by Lagrange's
//!   identity, the square of the distance to the line);
//! * edge `[p0, p0 + d1]` – edge `[q0, q0 + d2]` (9): with `c = d1 × d2`, `D = |c|²`,
//!   `r = p0 − q0`, the lines' closest points are at `s = (b·e − |d2|²·(d1·r))/D`,
//!   `t = (|d1|²·e − b·(d1·r))/D` (`b = d1·d2`, `e = d2·r`; the normal equations of
//!   `min |r + s d1 − t d2|²`, whose determinant is `|d1|²|d2|² − b² = D`); valid iff
//!   `D > 0` and both numerators lie strictly between 0 and `D`, value `(r·c)² / D`;
//! * vertex `p` – face of a proper triangle `(t0, t1, t2)` with normal `n = (t1 − t0) ×
//!   (t2 − t0)` (3 each way): valid iff `|n|² > 0` and `n·(e_j × (p − t_j)) ≥ 0` for the
//!   three edges `e_j = t_{j+1} − t_j` (the projection `x` of `p` is in the closed triangle:
//!   the expression is unchanged by moving `p` along `n`, as `(e_j × n)·n = 0`, and for `x`
//!   in the plane it is `|n|²` times `x`'s barycentric coordinate opposite `e_j`), value
//!   `(n·(p − t0))² / |n|²`.
//!
//! Every valid candidate's value is the squared distance of two actual points of `A` and
//! `B`, so no candidate is below the distance. **Why one attains it** (disjoint `A`, `B`):
//! as a polytope, a triangle's faces are among its vertices, its edges (for a segment-shaped
//! triangle, the edge joining the two extreme vertices) and, if proper, the triangle itself.
//! Take a closest pair `x ∈ A`, `y ∈ B`, `x ≠ y`, and the faces `F ∋ x`, `G ∋ y` of least
//! dimension, so that `x` and `y` are in their relative interiors. Then `x − y` is orthogonal
//! to the directions of `F` and of `G` (else moving `x` or `y` inside its face would get
//! closer). If `F` and `G` share a direction `u ≠ 0` (always the case when `dim F + dim G ≥
//! 3` in 3D, or for two parallel edges), move both points by `τu`: `x − y` is unchanged, so
//! the pair stays closest, until one point reaches the relative boundary of its face
//! (bounded faces, so this happens), which lowers `dim F + dim G`. Repeating ends with
//! directions of `F` and `G` independent and `dim F + dim G ≤ 2`: vertex–vertex,
//! vertex–edge with `x` or `y` strictly inside the edge, two non-parallel edges with both
//! points strictly inside (so the lines' unique closest points, with `0 < s, t < 1`), or a
//! vertex and a face with the vertex's projection in the face. Each is a valid candidate
//! with value `|x − y|²`. A degenerate triangle has no face candidate (`|n|² = 0`) and is
//! covered by its vertices and edges; repeated vertices give zero-length edges, which fail
//! their conditions and are covered by the vertex–vertex candidates.
//!
//! # Filter, then exact
//!
//! The candidates are written once over [`Arith`] and run first in [`Iv`] (certified
//! intervals), then only what the intervals left undecided in [`Dyadic`] (exact). A
//! candidate's conditions combine three-valued (certainly holds, certainly fails,
//! undecided); `eps²` is `eps · eps` in the arithmetic at hand, so exact in [`Dyadic`],
//! never a rounded square.
//!
//! In front of the candidates, a cheaper certified shortcut (`fast_bounds`): the least
//! candidate *guessed* in plain f64, its value certified in intervals as an upper bound,
//! and a lower bound from the guessed direction between the closest points (a separating
//! direction). It answers most disjoint pairs (bounds within `2^-20` relative, usually a few
//! ulps) in a fraction of the full interval evaluation. Measured on random unit triangles
//! on a shared 2-core machine (`tests::timing`, noisy): `tri_tri_within` about 0.5–1 µs
//! (bounding boxes reject most), `tri_tri_distance` about 5–8 µs; anything that needs the
//! exact value (`value()`, `points()`) about 70–110 µs.
//!
//! # Range
//!
//! The interval and dyadic arithmetics are sound for all finite coordinates (overflow and
//! underflow only make intervals undecided). The one inherited limit is
//! [`tri_tri_intersect`]'s: its predicates are exact when nonzero coordinates have
//! magnitudes in `[2^-256, 2^256]` (see [`super`]).

use super::exact::{Arith, Dyadic, Iv, cmp_ratio, round_ratio, sqrt_down, sqrt_ratio, sqrt_up};
use super::{P3, tri_tri_intersect};
use std::cmp::Ordering;
use std::sync::OnceLock;

mod candidates;
mod common;
mod guess;
#[cfg(test)]
mod tests;
mod ties;

pub use candidates::Feature;
use candidates::*;
pub use common::common_point;

#[cfg(test)]
thread_local! {
    /// How many times this thread's filters fell back to exact arithmetic (unit tests).
    static EXACT_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[inline]
fn note_exact() {
    #[cfg(test)]
    EXACT_RUNS.with(|c| c.set(c.get() + 1));
}

// ---------------------------------------------------------------------------------------
// Within.

/// Exactly whether the distance of two closed triangles is at most `eps`
/// (`dist(a, b) ≤ eps`; touching counts, zero-area triangles are the segment or point they
/// cover). `eps = 0` is [`tri_tri_intersect`]; a negative or NaN `eps` gives `false`, `+∞`
/// gives `true`.
///
/// Order of work, cheapest first: the bounding boxes' gap (a lower bound of the distance,
/// certified by rounding down) rejects far pairs; [`tri_tri_intersect`] accepts
/// intersecting ones; then the 42 candidates (module documentation) in interval
/// arithmetic, stopping at the first certainly within `eps`; only candidates the intervals
/// left undecided are decided again exactly.
pub fn tri_tri_within(a: &[P3; 3], b: &[P3; 3], eps: f64) -> bool {
    if eps.is_nan() || eps < 0.0 {
        return false;
    }
    if eps == f64::INFINITY {
        return true;
    }
    let e2 = Iv::point(eps).sqr();
    if box_gap2_lower(a, b) > e2.hi {
        return false;
    }
    // Two corners within ε accept at once (most pairs of a tolerance query that are within
    // it are, and this costs far less than the intersection test). The computed `|p − q|²`
    // is within a factor `1 ± 4u` of the real one (`u = 2⁻⁵³`; three subtractions, three
    // squares and two additions, each correctly rounded, and no underflow: coordinates as
    // written and as posed are multiples of 2⁻³¹² of magnitude below 2¹⁰¹, so a nonzero
    // difference squared is a normal number), hence `fl(d2·(1 + 2⁻⁵⁰)) ≤ e2.lo ≤ ε²`, with
    // the product moved one step up, proves `|p − q| ≤ ε`.
    const UP: f64 = 1.0 + 1.0 / 1_125_899_906_842_624.0;
    for p in a {
        for q in b {
            let (x, y, z) = (p[0] - q[0], p[1] - q[1], p[2] - q[2]);
            if ((x * x + y * y + z * z) * UP).next_up() <= e2.lo {
                return true;
            }
        }
    }
    if tri_tri_intersect(a, b) {
        return true;
    }
    if let Some((lo2, hi2)) = fast_bounds(a, b) {
        if lo2 > e2.hi {
            return false;
        }
        if hi2 <= e2.lo {
            return true;
        }
    }
    let pre = Pre::<Iv>::new(a, b);
    let mut undecided = [false; CANDIDATES];
    for (k, u) in undecided.iter_mut().enumerate() {
        match candidate_within(&pre, k, &e2) {
            Some(true) => return true,
            Some(false) => {}
            None => *u = true,
        }
    }
    if !undecided.contains(&true) {
        return false;
    }
    note_exact();
    let pre = Pre::<Dyadic>::new(a, b);
    let e2 = Dyadic::from_f64(eps).sqr();
    (0..CANDIDATES).any(|k| undecided[k] && candidate_within(&pre, k, &e2) == Some(true))
}

/// [`tri_tri_within`] with every candidate decided in exact arithmetic, no interval filter:
/// the reference the filtered path is tested against.
pub fn tri_tri_within_exact(a: &[P3; 3], b: &[P3; 3], eps: f64) -> bool {
    if eps.is_nan() || eps < 0.0 {
        return false;
    }
    if eps == f64::INFINITY || tri_tri_intersect(a, b) {
        return true;
    }
    let pre = Pre::<Dyadic>::new(a, b);
    let e2 = Dyadic::from_f64(eps).sqr();
    (0..CANDIDATES).any(|k| candidate_within(&pre, k, &e2) == Some(true))
}

/// A lower bound of the squared gap between the two triangles' bounding boxes, itself a
/// lower bound of the squared distance (along each axis, any two points of the triangles
/// are at least the boxes' gap apart). Differences and squares rounded down.
fn box_gap2_lower(a: &[P3; 3], b: &[P3; 3]) -> f64 {
    let mut s = Iv::point(0.0);
    for k in 0..3 {
        let lo = |t: &[P3; 3]| t[0][k].min(t[1][k]).min(t[2][k]);
        let hi = |t: &[P3; 3]| t[0][k].max(t[1][k]).max(t[2][k]);
        let g1 = Iv::point(lo(b)).sub(&Iv::point(hi(a))).lo;
        let g2 = Iv::point(lo(a)).sub(&Iv::point(hi(b))).lo;
        let g = g1.max(g2).max(0.0);
        s = s.add(&Iv::point(g).sqr());
    }
    if s.lo.is_nan() { 0.0 } else { s.lo }
}

// ---------------------------------------------------------------------------------------
// Distance with a witness.

/// The exact distance of two closed triangles, with certified f64 bounds (for branch and
/// bound: [`TriDistance::lower`], [`TriDistance::upper`], [`TriDistance::cmp_exact`] are
/// usually answered by the interval filter alone) and, computed lazily in exact
/// arithmetic, the exact squared distance as a rational, the attaining [`Feature`] and a
/// closest pair of points.
///
/// The exact squared distance is the least valid candidate `num/den` (module
/// documentation), compared by cross-multiplying; among equal candidates the first in
/// [`Feature`]'s order is the witness, so the witness depends only on the exact values,
/// never on which arithmetic found it.
#[derive(Debug, Clone)]
pub struct TriDistance {
    a: [P3; 3],
    b: [P3; 3],
    zero: bool,
    /// Certified bounds of the exact squared distance.
    lo2: f64,
    hi2: f64,
    /// Certified bounds of the exact distance.
    lo: f64,
    hi: f64,
    /// The witness, when the filter already proved it (a unique least candidate).
    filter_feature: Option<Feature>,
    /// A feature pair that attains the distance, found as cheaply as it can be
    /// ([`TriDistance::attaining_feature`]).
    attaining: OnceLock<Feature>,
    exact: OnceLock<Exact>,
}

/// The exact answer: squared distance `num / den` (`den > 0`), witness and closest points.
#[derive(Debug, Clone)]
struct Exact {
    num: Dyadic,
    den: Dyadic,
    feature: Feature,
    points: (P3, P3),
}

/// The distance of two closed triangles ([`TriDistance`]).
///
/// [`tri_tri_intersect`] decides distance 0. Otherwise `fast_bounds` usually gives the
/// bounds (and leaves the witness to the exact path, lazily). Failing that, each candidate
/// is evaluated in intervals: `lo2` is the least lower bound `num.lo / den.hi` (rounded
/// down) over the candidates not certainly invalid, `hi2` the least upper bound over the
/// certainly valid ones (vertex–vertex candidates always are). Both are sound: the exact
/// minimum is over a subset of the first set, and is at most any certainly valid
/// candidate. The witness is proved when one certainly valid candidate's upper bound is
/// below every other candidate's lower bound. When an undecided candidate is what lowers
/// `lo2`, a certainly valid candidate overflowed, or the bounds are not finite and positive
/// (overflow, underflow), the exact value is computed at once and the bounds are its
/// roundings down and up, so the bounds are always tight except through ordinary interval
/// rounding.
pub fn tri_tri_distance(a: &[P3; 3], b: &[P3; 3]) -> TriDistance {
    let mut d = TriDistance {
        a: *a,
        b: *b,
        zero: false,
        lo2: 0.0,
        hi2: 0.0,
        lo: 0.0,
        hi: 0.0,
        filter_feature: None,
        attaining: OnceLock::new(),
        exact: OnceLock::new(),
    };
    if tri_tri_intersect(a, b) {
        d.zero = true;
        d.filter_feature = Some(Feature::Intersect);
        return d;
    }
    if let Some((lo2, hi2)) = fast_bounds(a, b) {
        (d.lo2, d.hi2) = (lo2, hi2);
        (d.lo, d.hi) = (sqrt_down(lo2), sqrt_up(hi2));
        return d;
    }
    let IntervalBounds {
        bounds,
        lo2,
        lo2_certain,
        hi2,
        best,
    } = interval_bounds(a, b);
    // A certainly valid candidate whose value overflowed (infinite upper bound) but might be
    // the least: its lower bound is loose too.
    let overflowed = bounds
        .iter()
        .any(|&(lo, hi, present, certain)| present && certain && hi == f64::INFINITY && lo < hi2);
    if lo2 < lo2_certain || overflowed || lo2.is_nan() || lo2 <= 0.0 || !hi2.is_finite() {
        note_exact();
        let e = d.exact();
        let (num, den) = (e.num.clone(), e.den.clone());
        let one = Dyadic::from_f64(1.0);
        // Round down and up from the nearest float, by exact comparison (an infinite
        // rounding means the value is beyond MAX).
        let r = round_ratio(&num, &den);
        (d.lo2, d.hi2) = if r.is_infinite() {
            (f64::MAX, f64::INFINITY)
        } else {
            match cmp_ratio(&Dyadic::from_f64(r), &one, &num, &den) {
                Ordering::Greater => (r.next_down().max(0.0), r),
                Ordering::Less => (r, r.next_up()),
                Ordering::Equal => (r, r),
            }
        };
        let v = sqrt_ratio(&num, &den);
        (d.lo, d.hi) = if v.is_infinite() {
            (f64::MAX, f64::INFINITY)
        } else {
            let v2 = Dyadic::from_f64(v).sqr();
            match cmp_ratio(&v2, &one, &num, &den) {
                Ordering::Greater => (v.next_down().max(0.0), v),
                Ordering::Less => (v, v.next_up()),
                Ordering::Equal => (v, v),
            }
        };
        return d;
    }
    d.lo2 = lo2;
    d.hi2 = hi2;
    d.lo = sqrt_down(lo2);
    d.hi = sqrt_up(hi2);
    d.filter_feature = unique_least(&bounds, best).map(Feature::of_index);
    d
}

impl TriDistance {
    /// A certified lower bound of the exact distance, rounded down.
    pub fn lower(&self) -> f64 {
        self.lo
    }

    /// A certified upper bound of the exact distance, rounded up.
    pub fn upper(&self) -> f64 {
        self.hi
    }

    /// Certified bounds `(lo, hi)` of the exact *squared* distance.
    pub fn squared_bounds(&self) -> (f64, f64) {
        (self.lo2, self.hi2)
    }

    /// The triangles intersect (distance exactly 0).
    pub fn is_zero(&self) -> bool {
        self.zero
    }

    /// Exact comparison of two exact distances: the certified squared bounds first, exact
    /// rationals only when they overlap (and are not the same single value).
    pub fn cmp_exact(&self, other: &TriDistance) -> Ordering {
        self.cmp_bounds(other).unwrap_or_else(|| {
            let (x, y) = (self.exact(), other.exact());
            cmp_ratio(&x.num, &x.den, &y.num, &y.den)
        })
    }

    /// The order of the two distances when their certified bounds decide it.
    fn cmp_bounds(&self, other: &TriDistance) -> Option<Ordering> {
        if self.hi2 < other.lo2 {
            return Some(Ordering::Less);
        }
        if self.lo2 > other.hi2 {
            return Some(Ordering::Greater);
        }
        if self.lo2 == self.hi2 && other.lo2 == other.hi2 {
            return Some(Ordering::Equal); // both exactly known, and neither below the other
        }
        None
    }

    /// The same exact order as [`TriDistance::cmp_exact`], cheaper when the bounds overlap
    /// because the pairs share their closest features (on a mesh, the triangles around a
    /// closest vertex or edge are all at exactly the same distance): when one pair's
    /// attaining feature lies in the other pair's triangles, a few sign tests decide
    /// (the `ties` module); exact rationals otherwise.
    pub fn cmp_shared(&self, other: &TriDistance) -> Ordering {
        if let Some(o) = self.cmp_bounds(other) {
            return o;
        }
        if !self.zero && !other.zero {
            let (me, them) = ((&self.a, &self.b), (&other.a, &other.b));
            if let Some(o) = ties::cmp_sharing(other.attaining_feature(), them, me) {
                return o;
            }
            if let Some(o) = ties::cmp_sharing(self.attaining_feature(), me, them) {
                return o.reverse();
            }
        }
        self.cmp_exact(other)
    }

    /// How the exact distance of the triangles `(a, b)` compares with this one, when this
    /// pair's closest features (a vertex, edge or face of each triangle, [`Feature`]) are
    /// corners of `a` and of `b`: `Less` or `Equal`, decided by a few sign tests (the
    /// `ties` module); `None` when they are not, or when this distance is 0.
    pub fn shared_order(&self, a: &[P3; 3], b: &[P3; 3]) -> Option<Ordering> {
        if self.zero {
            return None;
        }
        ties::cmp_sharing(self.attaining_feature(), (&self.a, &self.b), (a, b))
    }

    /// A pair of features that attains the distance: the witness when the filter proved
    /// it, else the unique least candidate in intervals, else the exact witness.
    fn attaining_feature(&self) -> Feature {
        *self.attaining.get_or_init(|| {
            if let Some(f) = self.filter_feature {
                return f;
            }
            if let Some(e) = self.exact.get() {
                return e.feature;
            }
            let iv = interval_bounds(&self.a, &self.b);
            match unique_least(&iv.bounds, iv.best) {
                Some(k) => Feature::of_index(k),
                None => self.exact().feature,
            }
        })
    }

    /// The exact distance rounded once to the nearest f64 (ties to even): the correctly
    /// rounded square root of the exact rational squared distance.
    pub fn value(&self) -> f64 {
        if self.zero {
            return 0.0;
        }
        if self.lo == self.hi {
            return self.lo; // the distance is this float
        }
        if self.lo2 == self.hi2 && self.hi2.is_finite() {
            return self.lo2.sqrt(); // the squared distance is this float; IEEE √ is correctly rounded
        }
        let e = self.exact();
        sqrt_ratio(&e.num, &e.den)
    }

    /// The pair of features that attains the distance (first in [`Feature`]'s order among
    /// equals).
    pub fn feature(&self) -> Feature {
        self.filter_feature.unwrap_or_else(|| self.exact().feature)
    }

    /// [`TriDistance::feature`] from the exact computation alone (for tests of the filter).
    pub fn feature_exact(&self) -> Feature {
        self.exact().feature
    }

    /// A closest pair `(on a, on b)` at the witness [`TriDistance::feature`], each coordinate
    /// the exact rational value rounded once to the nearest f64. When the triangles
    /// intersect, both are the same common point ([`common_point`]).
    pub fn points(&self) -> (P3, P3) {
        self.exact().points
    }

    /// The exact squared distance as `(num, den)`, `den > 0`.
    pub fn exact_squared(&self) -> (Dyadic, Dyadic) {
        let e = self.exact();
        (e.num.clone(), e.den.clone())
    }

    fn exact(&self) -> &Exact {
        self.exact
            .get_or_init(|| exact_distance(&self.a, &self.b, self.zero))
    }
}

/// The exact minimum over the candidates, in [`Dyadic`]. Only the candidates that the
/// intervals leave possibly least are evaluated exactly: one certainly invalid in [`Iv`]
/// is invalid, and one whose lower bound exceeds a certainly valid candidate's upper
/// bound is strictly above the minimum, so it can be neither the minimum nor a candidate
/// equal to it (the witness, first in [`Feature`]'s order among equals, is unchanged).
fn exact_distance(a: &[P3; 3], b: &[P3; 3], zero: bool) -> Exact {
    let one = Dyadic::from_f64(1.0);
    // Without a common point (unreachable within the predicates' range, module
    // documentation), the nearest features below stand in.
    if zero && let Some((num, den)) = common_point(a, b) {
        let p = [0, 1, 2].map(|k| round_ratio(&num[k], &den));
        return Exact {
            num: Dyadic::zero(),
            den: one,
            feature: Feature::Intersect,
            points: (p, p),
        };
    }
    let iv = interval_bounds(a, b);
    let pre = Pre::<Dyadic>::new(a, b);
    let mut best: Option<(Dyadic, Dyadic, usize)> = None;
    for k in 0..CANDIDATES {
        let (lo, _, present, _) = iv.bounds[k];
        if !present || lo > iv.hi2 {
            continue;
        }
        if let Some((_, num, den)) = candidate(&pre, k) {
            let better = match &best {
                None => true,
                Some((bn, bd, _)) => cmp_ratio(&num, &den, bn, bd) == Ordering::Less,
            };
            if better {
                best = Some((num, den, k));
            }
        }
    }
    let (num, den, k) = best.expect("vertex–vertex candidates are always valid");
    let feature = Feature::of_index(k);
    Exact {
        points: points_of(&pre, feature),
        num,
        den,
        feature,
    }
}

/// `(p0 · den + tn · d) / den`, coordinate by coordinate, rounded once: the point at
/// parameter `tn / den` along `p0 + t·d`.
fn along(p0: &V<Dyadic>, d: &V<Dyadic>, tn: &Dyadic, den: &Dyadic) -> P3 {
    [0, 1, 2].map(|k| round_ratio(&p0[k].mul(den).add(&tn.mul(&d[k])), den))
}

fn exact_point(v: &V<Dyadic>) -> P3 {
    v.clone().map(|c| c.to_f64())
}

/// The closest points of a valid candidate, from the same quantities as its value.
fn points_of(p: &Pre<Dyadic>, f: Feature) -> (P3, P3) {
    match f {
        Feature::VertexVertex { a, b } => (exact_point(&p.v[0][a]), exact_point(&p.v[1][b])),
        Feature::VertexEdge { a, b } => {
            let d = &p.e[1][b];
            let q = along(&p.v[1][b], d, &dot(&p.w[a][b], d), &p.l[1][b]);
            (exact_point(&p.v[0][a]), q)
        }
        Feature::EdgeVertex { a, b } => {
            let d = &p.e[0][a];
            let q = along(&p.v[0][a], d, &dot(&p.w[a][b], d).neg(), &p.l[0][a]);
            (q, exact_point(&p.v[1][b]))
        }
        Feature::EdgeEdge { a, b } => {
            let (d1, d2, r) = (&p.e[0][a], &p.e[1][b], &p.w[a][b]);
            let dd = norm2(&cross(d1, d2));
            let (bb, dr, er) = (dot(d1, d2), dot(d1, r), dot(d2, r));
            let s = bb.mul(&er).sub(&p.l[1][b].mul(&dr));
            let t = p.l[0][a].mul(&er).sub(&bb.mul(&dr));
            (
                along(&p.v[0][a], d1, &s, &dd),
                along(&p.v[1][b], d2, &t, &dd),
            )
        }
        Feature::VertexFace { a } => {
            let h = dot(&p.n[1], &p.w[a][0]).neg();
            let q = along(&p.v[0][a], &p.n[1], &h, &p.nn[1]);
            (exact_point(&p.v[0][a]), q)
        }
        Feature::FaceVertex { b } => {
            // b_b − a_0 = −w[0][b]; the foot is b_b − n (n·(b_b − a_0))/|n|².
            let h = dot(&p.n[0], &p.w[0][b]);
            let q = along(&p.v[1][b], &p.n[0], &h, &p.nn[0]);
            (q, exact_point(&p.v[1][b]))
        }
        Feature::Intersect => unreachable!("not a candidate"),
    }
}
