//! The traversal of the volume trees: the simultaneous depth-first descent of A and B
//! (explicit stack), descending the node whose volume is larger (Gottschalk's OBBTree rule,
//! as `Descent::Larger` of the k-DOPs: A on ties, the other side when one is a leaf), and at
//! two leaves the exact triangle test on B's triangles moved by [`Pose::apply`] (the truth).
//!
//! Unlike `crate::traverse` nothing is tumbled: B's volume is posed (moved rigidly, in
//! f64) on its first test in a pose and kept for the pose's later tests.
//!
//! The loops ([`descend_from`], [`expand_level`]) are [`crate::isa_variants!`]s, run compiled for
//! x86-64-v3 where the CPU has it, each with the node test inlined (`#[inline(always)]`
//! down to `sat_lanes`): faster than the baseline's code on the side-by-side's near-miss
//! bunny (`benches/peers`) and on single queries of nested spheres, where one shared
//! out-of-line variant of the node test was slower than the inlined loops (measured in
//! `docs/notebook/cpu-speed-2-lanes-isa-node-order-batches.md`, "Every pose posed on lanes,
//! the hot loops in x86-64-v3").

use crate::bvh::Bvh;
use crate::obb::sat::PoseCheck;
use crate::pose::Pose;
use crate::prefetch::{AHEAD, prefetch};
use crate::scene::{Counters, Mode, NoSub};
use crate::traverse::FrontTrack;
use crate::tri::tri_tri_intersect;

/// A node's children or triangles as the descent reads them (`KdopNode`'s `first` and
/// `count`: internal when `count` is 0, children `first` and `first + 1`), 8 bytes: a node
/// test reads A's volume and an eighth of a cache line of topology, where the tree's own
/// node (its 6-DOP beside) takes half a line or, straddling, two.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Link {
    /// First child, or first triangle of a leaf (reordered).
    pub first: u32,
    /// Triangles of a leaf; 0 for an internal node.
    pub count: u32,
}

impl Link {
    /// The links of `bvh`'s nodes, indexed alike.
    pub fn of<const H: usize>(bvh: &Bvh<H>) -> Vec<Link> {
        bvh.nodes
            .iter()
            .map(|n| Link {
                first: n.first,
                count: n.count,
            })
            .collect()
    }

    #[inline(always)]
    pub(crate) fn is_leaf(&self) -> bool {
        self.count > 0
    }
}

/// One side of a descent: the tree (its triangles and their numbering) and its topology.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tree<'a> {
    pub bvh: &'a Bvh<3>,
    pub links: &'a [Link],
}

/// A node-pair test of two volume trees for one pose.
pub(crate) trait PairTest {
    /// B's volume at the pose.
    type Posed: Copy + Default;
    /// Poses node `f` of B.
    fn pose(&self, f: usize) -> Self::Posed;
    /// Whether node `e` of A and B's posed node are certainly disjoint.
    fn disjoint(&self, e: usize, b: &Self::Posed) -> bool;
    /// With both nodes internal, whether to descend A (the larger volume; A on ties).
    fn prefer_a(&self, e: usize, f: usize) -> bool;
    /// Asks for A's volume `e` and B's unposed volume `f` ahead of their test ([`prefetch`]:
    /// posing and the descent rule read B's; its posed volume is the workspace's, which
    /// [`prefetch_pair`] asks for).
    fn prefetch(&self, _e: usize, _f: usize) {}
    /// The exact test of two triangles at a leaf pair: intersection, or for a tolerance
    /// query ([`crate::proximity`]) the distance test its volumes were grown for.
    #[inline(always)]
    fn tri_hit(&self, a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> bool {
        tri_tri_intersect(a, b)
    }
}

/// Per-thread scratch state: the stack, B's volumes posed for the current pose and B's
/// triangles moved for it (each valid while its node's stamp is the pose's).
#[derive(Debug)]
pub struct VolumeWorkspace<P> {
    stack: Vec<(u32, u32)>,
    stamp: u32,
    leaf_stamp: Vec<u32>,
    moved: Vec<[[f64; 3]; 3]>,
    posed_stamp: Vec<u32>,
    posed: Vec<P>,
    /// [`descend_levels`]' fronts (this level, the next, the overlapping leaf pairs).
    levels: [Vec<(u32, u32)>; 3],
    /// Temporal coherence's fronts and off-switch.
    pub(crate) track: FrontTrack,
    /// The last pose's node-test set-up, kept for its other calls (`crate::auto`'s probe
    /// makes several a pose: its first levels, each sample, the finish).
    pub(crate) check: Option<Box<(Pose, PoseCheck)>>,
    /// A budgeted pose's frontier ([`crate::budget`]).
    pub(crate) frontier: crate::budget::Frontier,
}

impl<P: Copy + Default> VolumeWorkspace<P> {
    /// A workspace for B's tree.
    pub fn new<const H: usize>(fly: &Bvh<H>) -> Self {
        VolumeWorkspace {
            stack: Vec::with_capacity(256),
            stamp: 0,
            leaf_stamp: vec![0; fly.nodes.len()],
            moved: vec![[[0.0; 3]; 3]; fly.triangle_count()],
            posed_stamp: vec![0; fly.nodes.len()],
            posed: vec![P::default(); fly.nodes.len()],
            levels: Default::default(),
            track: FrontTrack::default(),
            check: None,
            frontier: Default::default(),
        }
    }

    /// Maps the pages of the per-node and per-triangle arrays ([`crate::tumble::touch_pages`]).
    pub(crate) fn prefault(&mut self) {
        use crate::tumble::touch_pages;
        touch_pages(&mut self.leaf_stamp);
        touch_pages(&mut self.moved);
        touch_pages(&mut self.posed_stamp);
        touch_pages(&mut self.posed);
    }

    fn begin(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.leaf_stamp.fill(0);
            self.posed_stamp.fill(0);
            self.stamp = 1;
        }
    }
}

/// One pose: appends `(tri_a, tri_b)` in the meshes' own numbering (unsorted) to `out`.
/// Nv = node pairs tested, Np = triangle pairs tested, Nu = B's volumes posed (each node
/// once per pose, on first use).
pub(crate) fn descend<T: PairTest>(
    env: Tree,
    fly: Tree,
    pose: &Pose,
    mode: Mode,
    test: &T,
    ws: &mut VolumeWorkspace<T::Posed>,
    out: &mut Vec<(u32, u32)>,
) -> Counters<NoSub> {
    ws.begin();
    ws.stack.clear();
    ws.stack.push((0, 0));
    descend_from(env, fly, pose, mode, test, ws, out, false)
}

/// The widest front `descend_levels` expands level by level in a query (64 KiB of
/// pairs). Chosen on the side-by-side's nested spheres (`benches/peers`), single queries:
/// 20k triangles, α = 0.01, ms: depth first 2.04–2.13, levels without a limit 1.82–1.92,
/// 8,192 1.72–1.80, 2,048 2.01–2.12; α = 0.001: 15.4, 17.0–17.5, 15.3–15.7, 14.8–15.4.
pub const LEVEL_FRONT: usize = 8192;

/// Above this many bytes of nodes and volumes (A's and B's together) the volume trees'
/// descents that start a call's poses (`crate::auto`'s probe) run level by level
/// (`descend_levels`): smaller trees stay in the 4 MiB L2 of the machines measured,
/// where level order was 5–10 % slower (nested spheres of 2k triangles, 0.8 MB).
pub const LEVELS_ABOVE_BYTES: usize = 2 << 20;

/// [`descend_from`] in all-contacts mode from `start` (after [`begin_pose`]), level by
/// level: the same node pairs and triangle pairs tested (so the same counters and
/// contacts, in another order), but each level's pairs are known in advance, so their
/// nodes are asked for [`AHEAD`] tests early ([`expand_level`]), where a depth-first stack
/// knows only the next pair. That pays when the trees are not in cache (a call's first
/// poses, which `crate::auto`'s probe runs); warm, depth first is as fast or faster (its
/// leaf pairs reuse B's moved triangles while they are in cache). A front of more than
/// `limit` pairs ([`LEVEL_FRONT`] in the queries) is finished depth first from there:
/// wide fronts leave the cache themselves and scatter the leaf pairs' triangle tests.
#[allow(clippy::too_many_arguments)]
pub(crate) fn descend_levels<T: PairTest>(
    env: Tree,
    fly: Tree,
    pose: &Pose,
    test: &T,
    ws: &mut VolumeWorkspace<T::Posed>,
    start: &[(u32, u32)],
    limit: usize,
    out: &mut Vec<(u32, u32)>,
) -> Counters<NoSub> {
    let [mut front, mut next, mut leaves] = std::mem::take(&mut ws.levels);
    front.clear();
    leaves.clear();
    front.extend_from_slice(start);
    let mut c = Counters::default();
    while !front.is_empty() && front.len() <= limit {
        next.clear();
        c += expand_level(env, fly, test, ws, &front, &mut next, &mut leaves);
        std::mem::swap(&mut front, &mut next);
    }
    for &(e, f) in &leaves {
        leaf_pair(
            env,
            fly,
            pose,
            Mode::All,
            test,
            ws,
            e as usize,
            f as usize,
            out,
            &mut c,
        );
    }
    if !front.is_empty() {
        set_stack(ws, &front);
        c += descend_from(env, fly, pose, Mode::All, test, ws, out, false);
    }
    ws.levels = [front, next, leaves];
    c
}

/// [`descend`] in all-contacts mode from the chunk's previous front (the roots at its
/// start), recording this pose's front for the next (temporal coherence, the rule of
/// [`FrontTrack`]).
pub(crate) fn descend_coherent<T: PairTest>(
    env: Tree,
    fly: Tree,
    pose: &Pose,
    test: &T,
    ws: &mut VolumeWorkspace<T::Posed>,
    out: &mut Vec<(u32, u32)>,
) -> Counters<NoSub> {
    ws.begin();
    let from_roots = ws.track.seed(&mut ws.stack);
    let c = descend_from(env, fly, pose, Mode::All, test, ws, out, true);
    ws.track.finish(from_roots, c.bv_tests);
    c
}

/// Whether B's posed volume `f` (posed now if not yet in this pose, counted in `c`) is
/// disjoint from A's `e`.
#[inline(always)]
pub(super) fn disjoint<T: PairTest>(
    test: &T,
    ws: &mut VolumeWorkspace<T::Posed>,
    e: usize,
    f: usize,
    c: &mut Counters<NoSub>,
) -> bool {
    c.bv_tests += 1;
    if ws.posed_stamp[f] != ws.stamp {
        ws.posed[f] = test.pose(f);
        ws.posed_stamp[f] = ws.stamp;
        c.bv_updates += 1;
    }
    test.disjoint(e, &ws.posed[f])
}

/// Starts a pose for [`expand_level`] and [`descend_from`] (B's posed volumes of an
/// earlier pose are stale from here on).
pub(crate) fn begin_pose<P: Copy + Default>(ws: &mut VolumeWorkspace<P>) {
    ws.begin();
}

/// Asks for everything the test of the pair `(e, f)` reads ([`prefetch`]).
#[inline(always)]
fn prefetch_pair<T: PairTest>(
    env: Tree,
    fly: Tree,
    test: &T,
    ws: &VolumeWorkspace<T::Posed>,
    e: usize,
    f: usize,
) {
    prefetch(&env.links[e]);
    prefetch(&fly.links[f]);
    prefetch(&ws.posed_stamp[f]);
    prefetch(&ws.posed[f]);
    test.prefetch(e, f);
}

/// One level of a breadth-first descent: every pair of `front` is tested; an overlapping
/// pair's children (by the descent rule of [`descend`]) go to `next`, an overlapping leaf
/// pair to `leaves` (its triangles untested). `next` and `leaves` together with the pairs
/// found disjoint partition what `front` covered, so a [`descend_from`] over `next` and
/// `leaves` finishes the pose with its pairs.
#[inline(always)]
fn level<T: PairTest>(
    env: Tree,
    fly: Tree,
    test: &T,
    ws: &mut VolumeWorkspace<T::Posed>,
    front: &[(u32, u32)],
    next: &mut Vec<(u32, u32)>,
    leaves: &mut Vec<(u32, u32)>,
) -> Counters<NoSub> {
    let mut c = Counters::default();
    for (i, &(e, f)) in front.iter().enumerate() {
        if let Some(&(e, f)) = front.get(i + AHEAD) {
            prefetch_pair(env, fly, test, ws, e as usize, f as usize);
        }
        let (e, f) = (e as usize, f as usize);
        if disjoint(test, ws, e, f, &mut c) {
            continue;
        }
        let (ne, nf) = (env.links[e], fly.links[f]);
        if !ne.is_leaf() && (nf.is_leaf() || test.prefer_a(e, f)) {
            next.push((ne.first, f as u32));
            next.push((ne.first + 1, f as u32));
        } else if !nf.is_leaf() {
            next.push((e as u32, nf.first));
            next.push((e as u32, nf.first + 1));
        } else {
            leaves.push((e as u32, f as u32));
        }
    }
    c
}

crate::isa_variants! {
/// One [`level`], for [`descend_levels`] and the level calls of `crate::auto`'s probe.
pub(crate) fn expand_level[T: PairTest](
    env: Tree,
    fly: Tree,
    test: &T,
    ws: &mut VolumeWorkspace<T::Posed>,
    front: &[(u32, u32)],
    next: &mut Vec<(u32, u32)>,
    leaves: &mut Vec<(u32, u32)>,
) -> Counters<NoSub> {
    level(env, fly, test, ws, front, next, leaves)
}
}

crate::isa_variants! {
/// [`level`] after level while `front` is not empty and holds, with `leaves`, fewer than
/// `limit` pairs; `front` ends as the last level's (`next` is scratch): the first levels of
/// `crate::auto`'s probe in one call, where a call per level cost a near miss (about 90
/// node tests in a dozen levels) 0.06 µs of its 1.42
/// (`docs/notebook/cpu-speed-3-first-calls-warm-up-obb-fit.md`, "The first call of every
/// library").
#[allow(clippy::too_many_arguments)]
pub(crate) fn expand_levels_below[T: PairTest](
    env: Tree,
    fly: Tree,
    test: &T,
    ws: &mut VolumeWorkspace<T::Posed>,
    front: &mut Vec<(u32, u32)>,
    next: &mut Vec<(u32, u32)>,
    leaves: &mut Vec<(u32, u32)>,
    limit: usize,
) -> Counters<NoSub> {
    let mut c = Counters::default();
    while !front.is_empty() && front.len() + leaves.len() < limit {
        next.clear();
        c += level(env, fly, test, ws, front, next, leaves);
        std::mem::swap(front, next);
    }
    c
}
}

crate::isa_variants! {
/// [`descend`] from the pairs already on the workspace's stack (after [`begin_pose`]),
/// without starting a new pose: any start that partitions the triangle pairs gives the
/// same contacts (`crate::traverse::descend_from`'s argument). With `record`, the pairs
/// where it stops (disjoint, and leaf pairs) go to the workspace's [`FrontTrack`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn descend_from[T: PairTest](
    env: Tree,
    fly: Tree,
    pose: &Pose,
    mode: Mode,
    test: &T,
    ws: &mut VolumeWorkspace<T::Posed>,
    out: &mut Vec<(u32, u32)>,
    record: bool,
) -> Counters<NoSub> {
    let mut c = Counters::default();
    'outer: while let Some((e, f)) = ws.stack.pop() {
        let (e, f) = (e as usize, f as usize);
        if disjoint(test, ws, e, f, &mut c) {
            if record {
                ws.track.next.push((e as u32, f as u32));
            }
            continue;
        }
        let (ne, nf) = (env.links[e], fly.links[f]);
        if !ne.is_leaf() && (nf.is_leaf() || test.prefer_a(e, f)) {
            ws.stack.push((ne.first + 1, f as u32));
            ws.stack.push((ne.first, f as u32));
            continue;
        }
        if !nf.is_leaf() {
            ws.stack.push((e as u32, nf.first + 1));
            ws.stack.push((e as u32, nf.first));
            continue;
        }
        if record {
            ws.track.next.push((e as u32, f as u32));
        }
        if leaf_pair(env, fly, pose, mode, test, ws, e, f, out, &mut c) {
            break 'outer;
        }
    }
    c
}
}

/// The triangle tests of the leaf pair `(e, f)`, whose volumes overlap (B's triangles moved
/// by [`Pose::apply`] once per pose); true when `mode` stops at the contact found.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn leaf_pair<T: PairTest>(
    env: Tree,
    fly: Tree,
    pose: &Pose,
    mode: Mode,
    test: &T,
    ws: &mut VolumeWorkspace<T::Posed>,
    e: usize,
    f: usize,
    out: &mut Vec<(u32, u32)>,
    c: &mut Counters<NoSub>,
) -> bool {
    let (ne, nf) = (env.links[e], fly.links[f]);
    let r = nf.first as usize..(nf.first + nf.count) as usize;
    if ws.leaf_stamp[f] != ws.stamp {
        for p in r.clone() {
            ws.moved[p] = fly.bvh.tris.corners_f64(p).map(|x| pose.apply(x));
        }
        ws.leaf_stamp[f] = ws.stamp;
    }
    for pa in ne.first..ne.first + ne.count {
        let ta = env.bvh.tris.corners_f64(pa as usize);
        for pb in r.clone() {
            c.tri_tests += 1;
            if test.tri_hit(&ta, &ws.moved[pb]) {
                out.push((env.bvh.tri_index[pa as usize], fly.bvh.tri_index[pb]));
                if mode == Mode::First {
                    return true;
                }
            }
        }
    }
    false
}

/// Sets the stack to `start`, popped in its order.
pub(crate) fn set_stack<P>(ws: &mut VolumeWorkspace<P>, start: &[(u32, u32)]) {
    ws.stack.clear();
    ws.stack.extend(start.iter().rev());
}
