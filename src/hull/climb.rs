//! Hill climbing on the hull's vertex graph: [`ConvexHull::climb`] with the exact
//! comparison [`dot_cmp`], the brute-force [`ConvexHull::extreme`], and the cube-map
//! [`ClimbTable`] of start vertices.

use super::ConvexHull;
use std::cmp::Ordering;

#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// Exact comparison of `d·a` with `d·b` (for finite inputs without underflow in the
/// products). A floating-point filter decides almost always; near ties fall back to an
/// exact sum of the twelve error-free products (Shewchuk's Grow-Expansion).
pub fn dot_cmp(d: &[f64; 3], a: &[f64; 3], b: &[f64; 3]) -> Ordering {
    let pa = [d[0] * a[0], d[1] * a[1], d[2] * a[2]];
    let pb = [d[0] * b[0], d[1] * b[1], d[2] * b[2]];
    let diff = (pa[0] + pa[1] + pa[2]) - (pb[0] + pb[1] + pb[2]);
    let mag = pa[0].abs() + pa[1].abs() + pa[2].abs() + pb[0].abs() + pb[1].abs() + pb[2].abs();
    // Each 3-term dot product errs by at most ~3.3e-16 * its absolute sum; the
    // subtraction adds one more rounding. 8 units of 2^-53 is a safe margin.
    let bound = 8.0 * f64::EPSILON * 0.5 * mag + f64::MIN_POSITIVE;
    if diff > bound {
        return Ordering::Greater;
    }
    if diff < -bound {
        return Ordering::Less;
    }
    let mut e = [0.0f64; 12];
    let mut len = 0;
    for i in 0..3 {
        for (x, y) in [(d[i], a[i]), (-d[i], b[i])] {
            let p = x * y;
            let err = x.mul_add(y, -p);
            for t in [err, p] {
                let mut q = t;
                for ei in e.iter_mut().take(len) {
                    let (s, h) = two_sum(q, *ei);
                    *ei = h;
                    q = s;
                }
                e[len] = q;
                len += 1;
            }
        }
    }
    // Nonoverlapping expansion with increasing magnitude: the sign is that of the most
    // significant nonzero component.
    match e[..len].iter().rev().find(|x| **x != 0.0) {
        Some(x) if *x > 0.0 => Ordering::Greater,
        Some(_) => Ordering::Less,
        None => Ordering::Equal,
    }
}

impl ConvexHull {
    /// Hill climbing (Klosowski et al., *Efficient Collision Detection Using Bounding
    /// Volume Hierarchies of k-DOPs*, 1998, section 4.1, method 1): from `start`,
    /// repeatedly move to the neighbour with the largest `d·v` while that strictly
    /// increases `d·v` (compared exactly). Returns the final vertex and the number of
    /// moves. The result maximises `d·v` over all input points (a local maximum on a
    /// polytope's edge graph is global). Deterministic: ties go to the first neighbour in
    /// stored order. Panics if `start` is not a vertex.
    ///
    /// Each vertex's `d·v` is computed once per visit and compared with the current best's
    /// under [`dot_cmp`]'s own filter (the same difference and a bound from the same
    /// absolute terms, summed in another order: its margin, twice what the roundings need,
    /// covers that), the exact expansion only on near ties: every decision is
    /// [`dot_cmp`]'s, at about half its cost.
    pub fn climb(&self, d: [f64; 3], start: u32) -> (u32, u32) {
        let dot = |p: &[f64; 3]| {
            let q = [d[0] * p[0], d[1] * p[1], d[2] * p[2]];
            (q[0] + q[1] + q[2], q[0].abs() + q[1].abs() + q[2].abs())
        };
        let mut v = start;
        let mut moves = 0;
        let mut at = dot(&self.points[v as usize]);
        loop {
            let (mut best, mut best_at) = (v, at);
            for &u in self.neighbors(v) {
                let here = dot(&self.points[u as usize]);
                let diff = here.0 - best_at.0;
                let bound = 8.0 * f64::EPSILON * 0.5 * (here.1 + best_at.1) + f64::MIN_POSITIVE;
                let greater = if diff > bound {
                    true
                } else if diff < -bound {
                    false
                } else {
                    dot_cmp(&d, &self.points[u as usize], &self.points[best as usize])
                        == Ordering::Greater
                };
                if greater {
                    (best, best_at) = (u, here);
                }
            }
            if best == v {
                return (v, moves);
            }
            (v, at) = (best, best_at);
            moves += 1;
        }
    }

    /// Brute-force argmax of `d·v` over all hull vertices (exact comparison; the first
    /// maximiser wins). Panics on an empty hull.
    pub fn extreme(&self, d: [f64; 3]) -> u32 {
        assert!(!self.points.is_empty(), "extreme() on an empty hull");
        let mut best = 0;
        for v in 1..self.points.len() {
            if dot_cmp(&d, &self.points[v], &self.points[best]) == Ordering::Greater {
                best = v;
            }
        }
        best as u32
    }
}

/// Where hill climbing starts for a pose that has no previous pose to start from (the
/// first of a batch chunk, or a single query): the extreme vertex of the centre direction
/// of each cell of a cube map (6 faces × [`ClimbTable::CELLS`]² cells), looked up from the
/// query direction. A climb ends at a maximiser of `d·v` whatever its start
/// ([`ConvexHull::climb`]), so the table changes the work, not the answer: a start within a
/// cell's angle of the query needs a few moves instead of a walk across the hull.
#[derive(Debug, Clone, Default)]
pub struct ClimbTable {
    start: Vec<u32>,
}

impl ClimbTable {
    /// Cells per face side (384 cells, at most ≈ 7° from any direction to its cell's centre).
    pub const CELLS: usize = 8;

    /// The table of `hull` (empty for an empty hull). Each cell's climb starts from the
    /// previous cell's answer.
    pub fn new(hull: &ConvexHull) -> ClimbTable {
        if hull.vertices().is_empty() {
            return ClimbTable::default();
        }
        let n = Self::CELLS;
        let mut start = Vec::with_capacity(6 * n * n);
        let mut v = 0;
        for face in 0..6 {
            for iu in 0..n {
                for iv in 0..n {
                    let k = face / 2;
                    let mut d = [0.0; 3];
                    d[k] = if face % 2 == 0 { 1.0 } else { -1.0 };
                    d[(k + 1) % 3] = (iu as f64 + 0.5) / n as f64 * 2.0 - 1.0;
                    d[(k + 2) % 3] = (iv as f64 + 0.5) / n as f64 * 2.0 - 1.0;
                    v = hull.climb(d, v).0;
                    start.push(v);
                }
            }
        }
        ClimbTable { start }
    }

    /// The start vertex for direction `d` (any length, not zero): the table entry of the
    /// cube-map cell `d` points into. Vertex 0 for an empty table or a zero direction.
    pub fn start(&self, d: [f64; 3]) -> u32 {
        if self.start.is_empty() {
            return 0;
        }
        let a = d.map(f64::abs);
        let k = if a[0] >= a[1] && a[0] >= a[2] {
            0
        } else if a[1] >= a[2] {
            1
        } else {
            2
        };
        if a[k].is_nan() || a[k] <= 0.0 {
            return self.start[0];
        }
        let n = Self::CELLS;
        let face = 2 * k + usize::from(d[k] < 0.0);
        let cell = |x: f64| (((x / a[k] + 1.0) * 0.5 * n as f64) as usize).min(n - 1);
        self.start[(face * n + cell(d[(k + 1) % 3])) * n + cell(d[(k + 2) % 3])]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Exact value of `d·a - d·b` for dyadic inputs `k * 2^e`, via i128 at scale 2^-60.
    fn exact_sign(d: &[(i64, i32); 3], a: &[(i64, i32); 3], b: &[(i64, i32); 3]) -> Ordering {
        let term = |x: (i64, i32), y: (i64, i32)| {
            let s = x.1 + y.1 + 60;
            (x.0 as i128 * y.0 as i128) << s
        };
        let sum: i128 = (0..3).map(|i| term(d[i], a[i]) - term(d[i], b[i])).sum();
        sum.cmp(&0)
    }

    #[test]
    fn dot_cmp_is_exact_on_near_ties() {
        let mut rng = Rng::new(7);
        let dyadic = |rng: &mut Rng| {
            let k = rng.below(1 << 20) as i64 - (1 << 19);
            let e = -(rng.below(31) as i32);
            (k, e)
        };
        let val = |x: (i64, i32)| x.0 as f64 * 2f64.powi(x.1);
        let mut decided_exactly = 0;
        for _ in 0..20000 {
            let d: [(i64, i32); 3] = std::array::from_fn(|_| dyadic(&mut rng));
            let a: [(i64, i32); 3] = std::array::from_fn(|_| dyadic(&mut rng));
            let mut b = a;
            // Perturb one coordinate of `a` minimally, and sometimes compensate with another,
            // so that the difference is tiny or exactly zero.
            let i = rng.below(3) as usize;
            b[i].0 += rng.below(3) as i64 - 1;
            if rng.below(2) == 0 {
                let j = (i + 1) % 3;
                b[j] = (rng.below(1 << 20) as i64 - (1 << 19), b[j].1);
            }
            let fd = d.map(val);
            let (fa, fb) = (a.map(val), b.map(val));
            let want = exact_sign(&d, &a, &b);
            assert_eq!(dot_cmp(&fd, &fa, &fb), want, "{d:?} {a:?} {b:?}");
            assert_eq!(dot_cmp(&fd, &fb, &fa), want.reverse());
            if want == Ordering::Equal {
                decided_exactly += 1;
            }
        }
        assert!(decided_exactly > 100);
    }

    /// The climb with every comparison a whole [`dot_cmp`] (the form before the cached
    /// values): the oracle for [`ConvexHull::climb`]'s vertex and move count.
    fn climb_reference(h: &ConvexHull, d: [f64; 3], start: u32) -> (u32, u32) {
        let (mut v, mut moves) = (start, 0);
        loop {
            let mut best = v;
            for &u in h.neighbors(v) {
                if dot_cmp(&d, &h.points[u as usize], &h.points[best as usize]) == Ordering::Greater
                {
                    best = u;
                }
            }
            if best == v {
                return (v, moves);
            }
            v = best;
            moves += 1;
        }
    }

    /// Same vertex and moves as the reference on a lattice hull (many coplanar faces and
    /// exact ties along axis and diagonal directions), on points far from the origin (where
    /// the filter is unsure more often) and on random directions.
    #[test]
    fn climb_decides_like_dot_cmp() {
        let mut rng = Rng::new(11);
        let mut lattice = Vec::new();
        for x in -3..=3 {
            for y in -3..=3 {
                for z in -3..=3 {
                    if x * x + y * y + z * z <= 10 {
                        lattice.push([x as f64, y as f64, z as f64]);
                    }
                }
            }
        }
        let far: Vec<[f64; 3]> = (0..400)
            .map(|_| [0; 3].map(|_| 1e9 + rng.range(-1.0, 1.0)))
            .collect();
        // The lattice moved to 1e9 at a spacing of 0.1 (not binary): ties are near ties there,
        // which the rounded dot products alone order wrongly.
        let far_lattice: Vec<[f64; 3]> = lattice.iter().map(|p| p.map(|x| 1e9 + 0.1 * x)).collect();
        let mut ties = 0;
        for pts in [lattice, far, far_lattice] {
            let h = ConvexHull::new(&pts);
            let n = h.points.len() as u64;
            for i in 0..4000 {
                let d = if i % 2 == 0 {
                    // Axis and diagonal directions: exact ties between hull vertices.
                    [0; 3].map(|_| rng.below(3) as f64 - 1.0)
                } else {
                    [0; 3].map(|_| rng.range(-1.0, 1.0))
                };
                if d == [0.0; 3] {
                    continue;
                }
                let start = rng.below(n) as u32;
                let got = h.climb(d, start);
                assert_eq!(
                    got,
                    climb_reference(&h, d, start),
                    "d = {d:?}, start {start}"
                );
                ties += h.neighbors(got.0).iter().any(|&u| {
                    dot_cmp(&d, &h.points[u as usize], &h.points[got.0 as usize]) == Ordering::Equal
                }) as usize;
            }
        }
        assert!(ties > 500, "{ties}");
    }
}
