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
//! - **Lower bound of a node pair**: the certified separating gap of the nodes' oriented
//!   boxes ([`crate::proximity::boxes`]: the face axes of each box combined, the cross
//!   products and the centres' direction), rounded down; for two single triangles also
//!   their gap along the centroids' direction
//!   ([`crate::proximity::triangle_gap::projected_gap_lower`]). The boxes contain their
//!   triangles, so no two points of them are closer. The boxes replaced the k-DOP slabs
//!   and node spheres of the first version, whose bounds grow with the first power of a
//!   node's width: 79.2 M node pairs → 4.4 k per pose on the bunny at three extents
//!   (`docs/notebook/proximity.md`, "Boxes").
//! - **Upper bound**: the best witness so far ([`TriDistance::upper`]). Coherence: each pose
//!   of a chunk first measures the previous pose's witness pair at this pose, so a motion
//!   path starts with a tight bound; and the node pairs the previous pose expanded are
//!   expanded again without their test (`MEMO_REFRESH`).
//! - A node pair whose lower bound exceeds the upper bound is pruned; the search stops when
//!   the heap's smallest lower bound exceeds it. A heap grown past `HEAP_LIMIT` pairs
//!   hands the rest of the search to a depth-first stack (nearer child first).
//! - **Leaves**: every triangle pair is measured exactly ([`tri_tri_distance`]), and the
//!   best is kept by the exact order of the distances ([`TriDistance::cmp_shared`]: the
//!   certified bounds, then sign tests where the pairs share their closest features, then
//!   exact rationals), ties broken by the smaller `(tri_a, tri_b)` in file numbering.
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

use crate::bvh::Bvh;
use crate::pose::{Pose, step_reach};
use crate::proximity::boxes::{BoxPose, NodeBoxes, PosedBox, box_gap_lower};
use crate::proximity::triangle_gap::projected_gap_lower;
use crate::scene::Counters;
use crate::tri::distance::{TriDistance, tri_tri_distance};
use rustc_hash::FxHashSet;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

mod bounded;
mod frontier;
mod oracle;
pub use bounded::{BEAM, distance_of_pairs, distance_upper};
use frontier::{HEAP_LIMIT, MEMO_REFRESH, MEMO_STEP, Pending, pair_key};
pub use oracle::brute_force_distance;

/// The refusal of a hierarchy the distance query cannot run on (its message names the
/// ones it can; the tree's name follows).
pub const DISTANCE_TREES: &str = "the distance query runs on the k-DOP, dual, OBB and sphere trees (auto, kdop6, kdop14, kdop18, kdop26, dual6, dual14, dual18, dual26, obb, sphere); this collider's hierarchy is";

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

/// The best pair found so far: its exact distance and `(tri_a, tri_b)` in file numbering,
/// with the positions of its triangles in the hierarchies' order (for the next pose's
/// first bound).
struct Best {
    d: TriDistance,
    tri: (u32, u32),
    pos: (u32, u32),
}

impl Best {
    /// The pose's answer with this pair as the witness: its exact distance and closest
    /// points, each rounded once.
    fn answer(&self, counters: Counters) -> PoseDistance {
        let (a, b) = self.d.points();
        PoseDistance {
            distance: self.d.value(),
            witness: Some(Witness {
                tri_a: self.tri.0,
                tri_b: self.tri.1,
                a,
                b,
            }),
            counters,
        }
    }

    /// Whether `(d, tri)` comes before this one in `(exact distance, tri_a, tri_b)` order.
    fn beaten_by(&self, d: &TriDistance, tri: (u32, u32)) -> bool {
        if d.lower() > self.d.upper() {
            return false;
        }
        match d.cmp_shared(&self.d) {
            Ordering::Less => true,
            Ordering::Equal => tri < self.tri,
            Ordering::Greater => false,
        }
    }
}

/// The certified volumes of both hierarchies' nodes that the lower bounds read, built
/// once per pair of hierarchies (a [`crate::Collider`] keeps them between calls).
#[derive(Debug)]
pub struct DistanceVolumes {
    /// A's and B's node boxes.
    pub boxes: [NodeBoxes; 2],
    /// A's and B's triangle positions in the trees' order by file number (the inverse of
    /// `Bvh::tri_index`): [`distance_of_pairs`] measures pairs given in file numbering.
    pub positions: [Vec<u32>; 2],
}

impl DistanceVolumes {
    /// The volumes of A's hierarchy `env` and B's `fly`.
    pub fn new<const H: usize>(env: &Bvh<H>, fly: &Bvh<H>) -> DistanceVolumes {
        let (a, b) = rayon::join(|| NodeBoxes::new(env), || NodeBoxes::new(fly));
        let positions = |t: &Bvh<H>| {
            let mut p = vec![0u32; t.tri_index.len()];
            for (pos, &file) in t.tri_index.iter().enumerate() {
                p[file as usize] = pos as u32;
            }
            p
        };
        DistanceVolumes {
            boxes: [a, b],
            positions: [positions(env), positions(fly)],
        }
    }
}

/// Per-thread scratch state of the distance query (B's posed boxes and triangles, the heap).
#[derive(Debug)]
pub struct DistanceWorkspace {
    heap: BinaryHeap<Pending>,
    /// The search's pairs once the heap grew past `heap_limit`, depth first.
    stack: Vec<Pending>,
    /// Pairs the memo expands untested, under the least bound waiting: they go before the
    /// heap.
    ready: Vec<Pending>,
    /// [`HEAP_LIMIT`] (smaller in tests, to reach the depth-first path on small meshes).
    heap_limit: usize,
    /// The node pairs the previous pose of the run expanded, and this pose's.
    expanded: [FxHashSet<u64>; 2],
    /// Poses since the run's start; every [`MEMO_REFRESH`]-th (from the first) tests every
    /// pair (`memo_refresh`, 1 in tests that turn the memo off).
    age: u32,
    memo_refresh: u32,
    /// The previous pose of the run and an upper bound of its distance: the memo is used
    /// only after a step short against that distance ([`MEMO_STEP`]).
    prev_pose: Option<(Pose, f64)>,
    /// The previous pose's witness, as positions in the hierarchies' triangle order.
    prev: Option<(u32, u32)>,
    /// B's node boxes posed, valid where `box_stamp` equals `stamp`.
    posed: Vec<PosedBox>,
    box_stamp: Vec<u32>,
    /// B's triangles posed ([`Pose::apply`] of the corners as written, in the tree's
    /// order), valid for the leaves whose `leaf_stamp` equals `stamp`.
    tri_world: Vec<[[f64; 3]; 3]>,
    leaf_stamp: Vec<u32>,
    stamp: u32,
    /// B's boxes posed at the current pose (Nu).
    posed_count: u64,
}

impl DistanceWorkspace {
    /// A workspace for B's hierarchy.
    pub fn new<const H: usize>(fly: &Bvh<H>) -> Self {
        let n = fly.nodes.len();
        DistanceWorkspace {
            heap: BinaryHeap::new(),
            stack: Vec::new(),
            ready: Vec::new(),
            heap_limit: HEAP_LIMIT,
            expanded: Default::default(),
            age: 0,
            memo_refresh: MEMO_REFRESH,
            prev_pose: None,
            prev: None,
            // Zeroed, not filled: untouched pages cost nothing until a pose reads them
            // (`box_stamp` guards every read).
            posed: bytemuck::zeroed_vec(n),
            box_stamp: vec![0; n],
            tri_world: bytemuck::zeroed_vec(fly.triangle_count()),
            leaf_stamp: vec![0; n],
            stamp: 0,
            posed_count: 0,
        }
    }

    /// A new pose: every posed box is stale.
    fn next_pose(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.box_stamp.fill(0);
            self.leaf_stamp.fill(0);
            self.stamp = 1;
        }
        self.posed_count = 0;
    }

    /// B's box of node `f` at the current pose, posed on first use.
    #[inline(always)]
    fn posed_box(&mut self, f: usize, b: &NodeBoxes, pose: &Pose, bp: &BoxPose) -> &PosedBox {
        if self.box_stamp[f] != self.stamp {
            self.posed[f] = PosedBox::new(&b.nodes[f], pose, bp);
            self.box_stamp[f] = self.stamp;
            self.posed_count += 1;
        }
        &self.posed[f]
    }

    /// B's triangles of leaf `node` posed, on first use at the current pose.
    #[inline]
    fn leaf_triangles<const H: usize>(
        &mut self,
        fly: &Bvh<H>,
        pose: &Pose,
        node: usize,
    ) -> &[[[f64; 3]; 3]] {
        let n = &fly.nodes[node];
        let r = n.first as usize..(n.first + n.count) as usize;
        if self.leaf_stamp[node] != self.stamp {
            for p in r.clone() {
                self.tri_world[p] = fly.tris.corners_f64(p).map(|c| pose.apply(c));
            }
            self.leaf_stamp[node] = self.stamp;
        }
        &self.tri_world[r]
    }

    /// Forgets the previous pose (start of a chunk: results never depend on which poses a
    /// workspace saw before, and the witness does not depend on the first bound).
    pub fn restart(&mut self) {
        self.prev = None;
        self.expanded[0].clear();
        self.age = 0;
        self.prev_pose = None;
    }
}

/// The two child pairs of the node pair `(e, f)` (not both leaves) the search descends
/// into: A's children when B's node is a leaf or A's box is at least as large
/// ([`NodeBox::size`](crate::proximity::boxes::NodeBox)), else B's.
#[inline]
fn children<const H: usize>(
    env: &Bvh<H>,
    fly: &Bvh<H>,
    vols: &DistanceVolumes,
    e: usize,
    f: usize,
) -> [(usize, usize); 2] {
    let (ne, nf) = (&env.nodes[e], &fly.nodes[f]);
    let [ba, bb] = &vols.boxes;
    if !ne.is_leaf() && (nf.is_leaf() || ba.nodes[e].size >= bb.nodes[f].size) {
        let a = ne.first as usize;
        [(a, f), (a + 1, f)]
    } else {
        let b = nf.first as usize;
        [(e, b), (e, b + 1)]
    }
}

crate::isa_variants! {
/// The distance query of one pose (see the module docs), A's hierarchy `env` against B's
/// `fly` (their triangles; the bounds are `vols`'s).
pub fn distance_pose[const H: usize](
    env: &Bvh<H>,
    fly: &Bvh<H>,
    vols: &DistanceVolumes,
    pose: &Pose,
    upto: Option<f64>,
    ws: &mut DistanceWorkspace,
) -> PoseDistance {
    let mut c = Counters::default();
    if env.triangle_count() == 0 || fly.triangle_count() == 0 {
        return PoseDistance::none(c);
    }
    ws.next_pose();
    let [ba, bb] = &vols.boxes;
    let bpose = BoxPose::new(pose, bb.reach);
    let limit = upto.unwrap_or(f64::INFINITY);
    let mut best: Option<Best> = None;
    // The previous pose's witness first: an upper bound before the first node pair.
    if let Some((pa, pb)) = ws.prev {
        let ta = env.tris.corners_f64(pa as usize);
        let tb = fly.tris.corners_f64(pb as usize).map(|p| pose.apply(p));
        c.tri_tests += 1;
        best = Some(Best {
            d: tri_tri_distance(&ta, &tb),
            tri: (env.tri_index[pa as usize], fly.tri_index[pb as usize]),
            pos: (pa, pb),
        });
    }
    let bound = |best: &Option<Best>| best.as_ref().map_or(limit, |b| b.d.upper().min(limit));
    // A node pair's lower bound (Nv counts them): the boxes' ([`box_gap_lower`]); for two
    // single triangles also their projected gap, which needs no box and is tried first. A
    // function, not a closure: inlined, it runs in this variant's instruction set.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn node_lower<const H: usize>(
        env: &Bvh<H>,
        fly: &Bvh<H>,
        vols: &DistanceVolumes,
        pose: &Pose,
        bpose: &BoxPose,
        e: usize,
        f: usize,
        cap: f64,
        ws: &mut DistanceWorkspace,
    ) -> f64 {
        let (ne, nf) = (&env.nodes[e], &fly.nodes[f]);
        let mut lb = 0.0f64;
        if ne.count == 1 && nf.count == 1 {
            let ta = env.tris.corners_f64(ne.first as usize);
            let tb = &ws.leaf_triangles(fly, pose, f)[0];
            lb = projected_gap_lower(&ta, tb);
            if lb > cap {
                return lb;
            }
        }
        let [ba, bb] = &vols.boxes;
        box_gap_lower(&ba.nodes[e], ws.posed_box(f, bb, pose, bpose), cap).max(lb)
    }
    ws.heap.clear();
    ws.ready.clear();
    c.bv_tests += 1;
    let lb = node_lower(env, fly, vols, pose, &bpose, 0, 0, bound(&best), ws);
    if lb <= bound(&best) {
        ws.heap.push(Pending::new(lb, 0, 0));
    }
    // Best first: a pair's children are bounded when it is split and queued only if their
    // bound does not exceed the best so far (ties are kept: see "What is exact"). A child
    // that would be the heap's next pop is taken at once instead (`next`), and pairs the
    // memo expands untested go before the heap (`ready`): without their pushes and pops,
    // and in bound order but for those (any order finds the exact witness).
    let mut next: Option<Pending> = None;
    let mut depth_first = false;
    ws.stack.clear();
    let coherent = ws.prev_pose.as_ref().is_some_and(|&(p0, d0)| {
        let (lo, hi) = bb.root_box();
        step_reach(&p0, pose, lo, hi) <= MEMO_STEP * d0
    });
    // Recorded at a run's first pose and after coherent steps (a path goes on), not after
    // a jump (random poses: recording would only cost).
    let record = coherent || ws.prev_pose.is_none();
    ws.prev_pose = None;
    let use_memo = coherent && !ws.age.is_multiple_of(ws.memo_refresh);
    ws.age = if coherent { ws.age + 1 } else { 1 };
    ws.expanded[1].clear();
    loop {
        // `least`: `p` is the least bound waiting (the heap's top with nothing else waiting),
        // so a prune of it ends the search. Pairs from `ready` and `next` skip the heap and
        // need not be least (a child's bound may be below its parent's).
        let (p, least) = if depth_first {
            (ws.stack.pop(), false)
        } else if let Some(q) = ws.ready.pop().or_else(|| next.take()) {
            (Some(q), false)
        } else {
            (ws.heap.pop(), true)
        };
        let Some(p) = p else { break };
        if !depth_first && ws.heap.len() >= ws.heap_limit {
            // The rest depth first, the heap's pairs stacked so that the best pops first.
            depth_first = true;
            ws.stack.extend(ws.heap.drain());
            ws.stack.append(&mut ws.ready);
            ws.stack.extend(next.take());
            ws.stack.sort_unstable();
            ws.stack.push(p);
            continue;
        }
        if p.lb() > bound(&best) {
            if least {
                break;
            }
            continue; // pruned; others wait with smaller bounds
        }
        let (e, f) = p.pair();
        // The pair after this one is known now (the heap's top or the stack's): ask for its
        // nodes while this one is worked on (a hint, it changes nothing).
        if let Some(q) = if depth_first { ws.stack.last() } else { ws.heap.peek() } {
            let (e, f) = q.pair();
            crate::prefetch::prefetch(&env.nodes[e]);
            crate::prefetch::prefetch(&fly.nodes[f]);
            crate::prefetch::prefetch(&ba.nodes[e]);
            crate::prefetch::prefetch(&bb.nodes[f]);
        }
        let (ne, nf) = (&env.nodes[e], &fly.nodes[f]);
        if !(ne.is_leaf() && nf.is_leaf()) {
            if record {
                ws.expanded[1].insert(pair_key(e, f));
            }
            let mut kept = [None; 2];
            for (slot, (e2, f2)) in kept.iter_mut().zip(children(env, fly, vols, e, f)) {
                if use_memo && ws.expanded[0].contains(&pair_key(e2, f2)) {
                    // Expanded at the previous pose: expanded again untested, under its
                    // parent's bound (see `MEMO_REFRESH`), and soon: it skips the heap
                    // (its parent's bound was about the least waiting; see `least`).
                    let q = Pending::new(p.lb(), e2 as u32, f2 as u32);
                    if depth_first {
                        *slot = Some(q);
                    } else {
                        ws.ready.push(q);
                    }
                    continue;
                }
                c.bv_tests += 1;
                let cap = bound(&best);
                let lb = node_lower(env, fly, vols, pose, &bpose, e2, f2, cap, ws);
                if lb <= cap {
                    *slot = Some(Pending::new(lb, e2 as u32, f2 as u32));
                }
            }
            // `Pending`'s order is the heap's: the greater pops first.
            let [x, y] = kept;
            let (first, other) = if x >= y { (x, y) } else { (y, x) };
            // The nearer child is worked on next (depth first, or the heap's next pop,
            // usually): ask for its children's boxes now (a hint).
            if let Some(q) = first {
                let (e2, f2) = q.pair();
                let (n2, m2) = (&env.nodes[e2], &fly.nodes[f2]);
                if !n2.is_leaf() {
                    let c = n2.first as usize;
                    crate::prefetch::prefetch(&ba.nodes[c]);
                    crate::prefetch::prefetch(&ba.nodes[c + 1]);
                }
                if !m2.is_leaf() {
                    let c = m2.first as usize;
                    crate::prefetch::prefetch(&ws.posed[c]);
                    crate::prefetch::prefetch(&ws.posed[c + 1]);
                    crate::prefetch::prefetch(&ws.box_stamp[c]);
                }
            }
            if depth_first {
                ws.stack.extend(other);
                ws.stack.extend(first); // the nearer child pops first
                continue;
            }
            if let Some(o) = other {
                ws.heap.push(o);
            }
            if let Some(q) = first {
                if next.is_none() && ws.heap.peek().is_none_or(|top| q >= *top) {
                    next = Some(q);
                } else {
                    ws.heap.push(q);
                }
            }
            continue;
        }
        let first_b = nf.first as usize;
        let tris_b = ws.leaf_triangles(fly, pose, f);
        for pa in ne.first..ne.first + ne.count {
            let ta = env.tris.corners_f64(pa as usize);
            for (j, tb) in tris_b.iter().enumerate() {
                let pb = (first_b + j) as u32;
                if best.as_ref().is_some_and(|b| b.pos == (pa, pb)) {
                    continue; // the previous pose's witness, measured already
                }
                c.tri_tests += 1;
                // Most pairs of a leaf pair within the bound are not: a cheap certified
                // bound first ([`projected_gap_lower`]).
                if projected_gap_lower(&ta, tb) > bound(&best) {
                    continue;
                }
                let tri = (env.tri_index[pa as usize], fly.tri_index[pb as usize]);
                // A pair around the best pair's closest features is at most as far: when it
                // ties and comes later in `(tri_a, tri_b)` order it changes nothing, and a few
                // sign tests say so without measuring it ([`TriDistance::shared_order`]).
                if best.as_ref().is_some_and(|b| {
                    tri > b.tri && b.d.shared_order(&ta, tb) == Some(Ordering::Equal)
                }) {
                    continue;
                }
                let d = tri_tri_distance(&ta, tb);
                if d.lower() > limit {
                    continue;
                }
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
    c.bv_updates = ws.posed_count;
    ws.expanded.swap(0, 1);
    ws.prev_pose = best.as_ref().map(|b| (*pose, b.d.upper()));
    ws.prev = best.as_ref().map(|b| b.pos);
    let Some(b) = best else {
        return PoseDistance::none(c);
    };
    if let Some(d) = upto {
        let ta = env.tris.corners_f64(b.pos.0 as usize);
        let tb = fly
            .tris
            .corners_f64(b.pos.1 as usize)
            .map(|p| pose.apply(p));
        if !crate::proximity::tri_tri_within(&ta, &tb, d) {
            return PoseDistance::none(c);
        }
    }
    b.answer(c)
}
}

#[cfg(test)]
mod tests;
