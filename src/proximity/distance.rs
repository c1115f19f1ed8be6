//! The distance query: per pose, the minimum distance between the two meshes, a witness
//! pair of triangles and its two closest points, by branch and bound over the k-DOP
//! hierarchies.
//!
//! # Method
//!
//! Best first over node pairs (a binary heap keyed by a lower bound of the distance between
//! the two nodes' triangles), the usual branch and bound of distance queries over bounding
//! volume hierarchies (Larsen, Gottschalk, Lin and Manocha, *Fast Proximity Queries with
//! Swept Sphere Volumes*, 1999, section 5; the Freiburg lecture's "proximity" query):
//!
//! - **Lower bound of a node pair**: the largest gap between A's k-DOP and B's tumbled
//!   k-DOP along any slab direction, divided by the direction's length
//!   ([`kdop_gap_lower`]), rounded down. The volumes contain their triangles, so no two
//!   points of them are closer.
//! - **Upper bound**: the best witness so far ([`TriDistance::upper`]). Coherence: each pose
//!   of a chunk first measures the previous pose's witness pair at this pose, so a motion
//!   path starts with a tight bound.
//! - A node pair whose lower bound exceeds the upper bound is pruned; the search stops when
//!   the heap's smallest lower bound exceeds it.
//! - **Leaves**: every triangle pair is measured exactly ([`tri_tri_distance`]), and the
//!   best is kept by the exact order of the distances ([`TriDistance::cmp_exact`]), ties
//!   broken by the smaller `(tri_a, tri_b)` in file numbering.
//!
//! # What is exact
//!
//! The witness pair is **the exact minimum**: a pair is pruned only when a certified lower
//! bound of its distance exceeds a certified upper bound of a pair already found, strictly,
//! so every pair whose exact distance is the minimum reaches the leaf test, and of those the
//! exact comparison keeps the first in `(distance, tri_a, tri_b)` order. The witness is
//! therefore the same whatever the traversal order, the chunking of the poses or the
//! bound the previous pose gave. The reported distance is that pair's exact distance
//! rounded once ([`TriDistance::value`]), so within half an ulp of the true minimum; the
//! points are the exact closest points of the pair, each coordinate rounded once.
//!
//! `upto`: node pairs whose lower bound exceeds `D` are pruned too; a pose whose witness is
//! farther than `D` (decided exactly, [`crate::proximity::tri_tri_within`]) reports no
//! witness and an infinite distance.

use crate::bv::Kdop;
use crate::bvh::Bvh;
use crate::pose::Pose;
use crate::scene::{Counters, TumbleMethod};
use crate::tri::distance::{TriDistance, tri_tri_distance};
use crate::tumble::{FlyingHierarchy, TumbleWorkspace};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// The closest pair of one pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Witness {
    /// A's triangle (file numbering).
    pub tri_a: u32,
    /// B's triangle (file numbering).
    pub tri_b: u32,
    /// The closest point on A's triangle (A's frame), each coordinate rounded once.
    pub a: [f64; 3],
    /// The closest point on B's triangle as posed, each coordinate rounded once.
    pub b: [f64; 3],
}

/// The answer of one pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoseDistance {
    /// The minimum distance between the meshes at the pose, the witness pair's exact
    /// distance rounded once (0 when they intersect); infinite when a mesh has no triangle
    /// or, with `upto`, when the meshes are farther apart than it.
    pub distance: f64,
    /// The closest pair; `None` exactly when `distance` is infinite.
    pub witness: Option<Witness>,
    /// Nv: node pairs bounded; Np: triangle pairs measured; Nu: B's k-DOPs tumbled.
    pub counters: Counters,
}

impl PoseDistance {
    /// No witness: the distance is infinite.
    pub fn none(counters: Counters) -> PoseDistance {
        PoseDistance {
            distance: f64::INFINITY,
            witness: None,
            counters,
        }
    }
}

/// `1/|nᵢ|` rounded down for the slab directions of a k-DOP with `H` slabs.
fn inv_norms_down<const H: usize>() -> [f64; H] {
    let axes = crate::bv::axes(H);
    std::array::from_fn(|i| {
        let n2: i32 = axes[i].iter().map(|&c| c as i32 * c as i32).sum();
        // √ is correctly rounded, so next_up bounds |n| from above, and the quotient
        // rounded then moved down bounds 1/|n| from below.
        (1.0 / (n2 as f64).sqrt().next_up()).next_down()
    })
}

/// A lower bound of the distance between any point of the k-DOP `a` and any point of
/// `b`: the largest slab gap `max(a.minᵢ − b.maxᵢ, b.minᵢ − a.maxᵢ)` over `|nᵢ|`, 0 when they
/// overlap. `inv` is `inv_norms_down`'s.
///
/// Proof. For `p ∈ a`, `q ∈ b`: `nᵢ·(p − q) ≥ a.minᵢ − b.maxᵢ`, so `|p − q| ≥ (a.minᵢ −
/// b.maxᵢ)/|nᵢ|` (Cauchy–Schwarz), and the same for the other side. The difference of the
/// two f32 bounds is taken in f64 and moved one step down (the real difference lies
/// between the neighbours of its rounding), so it is a lower bound; a positive lower
/// bound times `inv ≤ 1/|nᵢ|`, rounded then moved down, stays one. NaN gaps (infinite
/// bounds) give 0.
#[inline]
#[allow(clippy::needless_range_loop)] // four arrays indexed together
pub fn kdop_gap_lower<const H: usize>(a: &Kdop<H>, b: &Kdop<H>, inv: &[f64; H]) -> f64 {
    let mut lb = 0.0f64;
    for i in 0..H {
        let g = (a.min[i] as f64 - b.max[i] as f64).max(b.min[i] as f64 - a.max[i] as f64);
        let g = g.next_down();
        if g > 0.0 {
            lb = lb.max((g * inv[i]).next_down());
        }
    }
    lb
}

/// A node pair waiting in the heap: smallest lower bound first, then the pair (so the
/// order of equal bounds does not depend on the heap's history).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Pending {
    lb: f64,
    e: u32,
    f: u32,
}

impl Eq for Pending {}

impl Ord for Pending {
    fn cmp(&self, o: &Pending) -> Ordering {
        // BinaryHeap is a max-heap: the smallest bound must compare greatest.
        o.lb.total_cmp(&self.lb)
            .then_with(|| (o.e, o.f).cmp(&(self.e, self.f)))
    }
}

impl PartialOrd for Pending {
    fn partial_cmp(&self, o: &Pending) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// The best pair found so far: its exact distance and `(tri_a, tri_b)` in file numbering,
/// with the positions of its triangles in the hierarchies' order (for the next pose's
/// first bound).
struct Best {
    d: TriDistance,
    tri: (u32, u32),
    pos: (u32, u32),
}

impl Best {
    /// Whether `(d, tri)` comes before this one in `(exact distance, tri_a, tri_b)` order.
    fn beaten_by(&self, d: &TriDistance, tri: (u32, u32)) -> bool {
        if d.lower() > self.d.upper() {
            return false;
        }
        match d.cmp_exact(&self.d) {
            Ordering::Less => true,
            Ordering::Equal => tri < self.tri,
            Ordering::Greater => false,
        }
    }
}

/// Per-thread scratch state of the distance query over k-DOP hierarchies with `H` slabs.
#[derive(Debug)]
pub struct DistanceWorkspace<const H: usize> {
    tumble: TumbleWorkspace<H>,
    heap: BinaryHeap<Pending>,
    /// The previous pose's witness, as positions in the hierarchies' triangle order.
    prev: Option<(u32, u32)>,
}

impl<const H: usize> DistanceWorkspace<H> {
    /// A workspace for B's hierarchy.
    pub fn new(fly: &FlyingHierarchy<H>) -> Self {
        DistanceWorkspace {
            tumble: TumbleWorkspace::new(fly),
            heap: BinaryHeap::new(),
            prev: None,
        }
    }

    /// Forgets the previous pose (start of a chunk: results never depend on which poses a
    /// workspace saw before, and the witness does not depend on the first bound).
    pub fn restart(&mut self) {
        self.tumble.restart();
        self.prev = None;
    }
}

/// The distance query of one pose (see the module docs), A's hierarchy `env` against B's
/// `fly` tumbled by `method`.
pub fn distance_pose<const H: usize>(
    env: &Bvh<H>,
    fly: &FlyingHierarchy<H>,
    pose: &Pose,
    method: TumbleMethod,
    upto: Option<f64>,
    ws: &mut DistanceWorkspace<H>,
) -> PoseDistance {
    let mut c = Counters::default();
    if env.triangle_count() == 0 || fly.bvh.triangle_count() == 0 {
        return PoseDistance::none(c);
    }
    ws.tumble
        .begin(fly, &fly.local_pose(env.frame(), pose), method);
    let inv = inv_norms_down::<H>();
    let limit = upto.unwrap_or(f64::INFINITY);
    let mut best: Option<Best> = None;
    // The previous pose's witness first: an upper bound before the first node pair.
    if let Some((pa, pb)) = ws.prev {
        let ta = env.tris.corners_f64(pa as usize);
        let tb = fly.bvh.tris.corners_f64(pb as usize).map(|p| pose.apply(p));
        c.tri_tests += 1;
        best = Some(Best {
            d: tri_tri_distance(&ta, &tb),
            tri: (env.tri_index[pa as usize], fly.bvh.tri_index[pb as usize]),
            pos: (pa, pb),
        });
    }
    let bound = |best: &Option<Best>| best.as_ref().map_or(limit, |b| b.d.upper().min(limit));
    ws.heap.clear();
    ws.heap.push(Pending {
        lb: 0.0,
        e: 0,
        f: 0,
    });
    while let Some(Pending { lb, e, f }) = ws.heap.pop() {
        if lb > bound(&best) {
            break;
        }
        let (e, f) = (e as usize, f as usize);
        c.bv_tests += 1;
        let lb = kdop_gap_lower(&env.nodes[e].bv, ws.tumble.node_bv(fly, f), &inv);
        if lb > bound(&best) {
            continue;
        }
        let (ne, nf) = (&env.nodes[e], &fly.bvh.nodes[f]);
        let split_a =
            !ne.is_leaf() && (nf.is_leaf() || ne.bv.size() >= ws.tumble.node_bv(fly, f).size());
        if split_a {
            for k in [ne.first, ne.first + 1] {
                ws.heap.push(Pending {
                    lb,
                    e: k,
                    f: f as u32,
                });
            }
            continue;
        }
        if !nf.is_leaf() {
            for k in [nf.first, nf.first + 1] {
                ws.heap.push(Pending {
                    lb,
                    e: e as u32,
                    f: k,
                });
            }
            continue;
        }
        let first_b = nf.first as usize;
        let tris_b = ws.tumble.leaf_triangles(fly, pose, f);
        for pa in ne.first..ne.first + ne.count {
            let ta = env.tris.corners_f64(pa as usize);
            for (j, tb) in tris_b.iter().enumerate() {
                let pb = (first_b + j) as u32;
                if best.as_ref().is_some_and(|b| b.pos == (pa, pb)) {
                    continue; // the previous pose's witness, measured already
                }
                c.tri_tests += 1;
                let d = tri_tri_distance(&ta, tb);
                if d.lower() > limit {
                    continue;
                }
                let tri = (env.tri_index[pa as usize], fly.bvh.tri_index[pb as usize]);
                if best.as_ref().is_none_or(|b| b.beaten_by(&d, tri)) {
                    best = Some(Best {
                        d,
                        tri,
                        pos: (pa, pb),
                    });
                }
            }
        }
    }
    c.bv_updates = ws.tumble.updates;
    ws.prev = best.as_ref().map(|b| b.pos);
    let Some(b) = best else {
        return PoseDistance::none(c);
    };
    if let Some(d) = upto {
        let ta = env.tris.corners_f64(b.pos.0 as usize);
        let tb = fly
            .bvh
            .tris
            .corners_f64(b.pos.1 as usize)
            .map(|p| pose.apply(p));
        if !crate::proximity::tri_tri_within(&ta, &tb, d) {
            return PoseDistance::none(c);
        }
    }
    let (a, bp) = b.d.points();
    PoseDistance {
        distance: b.d.value(),
        witness: Some(Witness {
            tri_a: b.tri.0,
            tri_b: b.tri.1,
            a,
            b: bp,
        }),
        counters: c,
    }
}

/// The oracle: every triangle pair measured, the first in `(exact distance, tri_a, tri_b)`
/// order kept; the same answer [`distance_pose`] must give, field for field.
pub fn brute_force_distance(
    a: &crate::mesh::Mesh,
    b: &crate::mesh::Mesh,
    pose: &Pose,
    upto: Option<f64>,
) -> PoseDistance {
    let tb: Vec<[[f64; 3]; 3]> = (0..b.triangle_count())
        .map(|j| b.triangle(j).map(|p| pose.apply(p)))
        .collect();
    let mut best: Option<(TriDistance, (u32, u32))> = None;
    for i in 0..a.triangle_count() {
        let ta = a.triangle(i);
        for (j, t) in tb.iter().enumerate() {
            let d = tri_tri_distance(&ta, t);
            let tri = (i as u32, j as u32);
            let better = match &best {
                None => true,
                Some((bd, bt)) => match d.cmp_exact(bd) {
                    Ordering::Less => true,
                    Ordering::Equal => tri < *bt,
                    Ordering::Greater => false,
                },
            };
            if better {
                best = Some((d, tri));
            }
        }
    }
    let c = Counters::default();
    let Some((d, (i, j))) = best else {
        return PoseDistance::none(c);
    };
    if let Some(lim) = upto
        && !crate::proximity::tri_tri_within(&a.triangle(i as usize), &tb[j as usize], lim)
    {
        return PoseDistance::none(c);
    }
    let (pa, pb) = d.points();
    PoseDistance {
        distance: d.value(),
        witness: Some(Witness {
            tri_a: i,
            tri_b: j,
            a: pa,
            b: pb,
        }),
        counters: c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gap bound at the edge: boxes 0.5 apart along x, and 14-DOPs whose diagonal slab
    /// is the only separating one (the bound divides by |(1,1,1)| = √3).
    #[test]
    fn kdop_gap_lower_bounds_the_distance() {
        let inv = inv_norms_down::<3>();
        let a = Kdop::<3> {
            min: [0.0; 3],
            max: [1.0; 3],
        };
        let b = Kdop::<3> {
            min: [1.5, 0.0, 0.0],
            max: [2.5, 1.0, 1.0],
        };
        let lb = kdop_gap_lower(&a, &b, &inv);
        assert!(lb <= 0.5 && lb > 0.5 * (1.0 - 1e-15), "{lb}");
        assert_eq!(kdop_gap_lower(&b, &a, &inv), lb);
        assert_eq!(kdop_gap_lower(&a, &a, &inv), 0.0);
        let inv7 = inv_norms_down::<7>();
        // The unit cube's 14-DOP and a point at (2, 2, 2): along (1,1,1) the gap is
        // 6 − 3 = 3, a distance of √3 (the true distance, to the corner (1,1,1)).
        let cube = crate::bv::Kdop::<7>::from_points([[0.0; 3], [1.0; 3]]);
        let far = crate::bv::Kdop::<7>::from_points([[2.0; 3]]);
        let lb = kdop_gap_lower(&cube, &far, &inv7);
        let real = 3f64.sqrt();
        assert!(lb <= real && lb > real * (1.0 - 1e-6), "{lb}");
    }

    #[test]
    fn pending_pops_the_smallest_bound_first() {
        let mut h = BinaryHeap::new();
        for (lb, e) in [(2.0, 1), (0.5, 2), (1.0, 3), (0.5, 0)] {
            h.push(Pending { lb, e, f: 0 });
        }
        let order: Vec<u32> = std::iter::from_fn(|| h.pop()).map(|p| p.e).collect();
        assert_eq!(order, [0, 2, 3, 1]);
    }
}
