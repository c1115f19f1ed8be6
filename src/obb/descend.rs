//! The traversal of the volume trees: the simultaneous depth-first descent of A and B
//! (explicit stack), descending the node whose volume is larger (Gottschalk's OBBTree rule,
//! as `Descent::Larger` of the k-DOPs: A on ties, the other side when one is a leaf), and at
//! two leaves the exact triangle test on B's triangles moved by [`Pose::apply`] (the truth).
//!
//! Unlike `crate::traverse` nothing is tumbled: B's volume is posed (moved rigidly, in
//! f64) on its first test in a pose and kept for the pose's later tests.

use crate::bvh::Bvh;
use crate::pose::Pose;
use crate::scene::{Counters, Mode, NoSub};
use crate::traverse::FrontTrack;
use crate::tri::tri_tri_intersect;

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
}

/// Per-thread scratch state: the stack, B's volumes posed for the current pose and B's
/// triangles moved for it (each valid while its node's stamp is the pose's).
#[derive(Debug)]
pub struct Workspace<P> {
    stack: Vec<(u32, u32)>,
    stamp: u32,
    leaf_stamp: Vec<u32>,
    moved: Vec<[[f64; 3]; 3]>,
    posed_stamp: Vec<u32>,
    posed: Vec<P>,
    /// Temporal coherence's fronts and off-switch.
    pub(crate) track: FrontTrack,
}

impl<P: Copy + Default> Workspace<P> {
    /// A workspace for B's tree.
    pub fn new<const H: usize>(fly: &Bvh<H>) -> Self {
        Workspace {
            stack: Vec::with_capacity(256),
            stamp: 0,
            leaf_stamp: vec![0; fly.nodes.len()],
            moved: vec![[[0.0; 3]; 3]; fly.triangle_count()],
            posed_stamp: vec![0; fly.nodes.len()],
            posed: vec![P::default(); fly.nodes.len()],
            track: FrontTrack::default(),
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
pub(crate) fn descend<const H: usize, T: PairTest>(
    env: &Bvh<H>,
    fly: &Bvh<H>,
    pose: &Pose,
    mode: Mode,
    test: &T,
    ws: &mut Workspace<T::Posed>,
    out: &mut Vec<(u32, u32)>,
) -> Counters<NoSub> {
    ws.begin();
    ws.stack.clear();
    ws.stack.push((0, 0));
    descend_from(env, fly, pose, mode, test, ws, out, false)
}

/// [`descend`] in all-contacts mode from the chunk's previous front (the roots at its
/// start), recording this pose's front for the next (temporal coherence, the rule of
/// [`FrontTrack`]).
pub(crate) fn descend_coherent<const H: usize, T: PairTest>(
    env: &Bvh<H>,
    fly: &Bvh<H>,
    pose: &Pose,
    test: &T,
    ws: &mut Workspace<T::Posed>,
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
#[inline]
fn disjoint<T: PairTest>(
    test: &T,
    ws: &mut Workspace<T::Posed>,
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
pub(crate) fn begin_pose<P: Copy + Default>(ws: &mut Workspace<P>) {
    ws.begin();
}

/// One level of a breadth-first descent for `crate::auto`'s probe: every pair of `front`
/// is tested; an overlapping pair's children (by the descent rule of [`descend`]) go to
/// `next`, an overlapping leaf pair to `leaves` (its triangles untested). `next` and
/// `leaves` together with the pairs found disjoint partition what `front` covered, so a
/// [`descend_from`] over `next` and `leaves` finishes the pose with its pairs.
pub(crate) fn expand_level<const H: usize, T: PairTest>(
    env: &Bvh<H>,
    fly: &Bvh<H>,
    test: &T,
    ws: &mut Workspace<T::Posed>,
    front: &[(u32, u32)],
    next: &mut Vec<(u32, u32)>,
    leaves: &mut Vec<(u32, u32)>,
) -> Counters<NoSub> {
    let mut c = Counters::default();
    for &(e, f) in front {
        let (e, f) = (e as usize, f as usize);
        if disjoint(test, ws, e, f, &mut c) {
            continue;
        }
        let (ne, nf) = (&env.nodes[e], &fly.nodes[f]);
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

/// [`descend`] from the pairs already on the workspace's stack (after [`begin_pose`]),
/// without starting a new pose: any start that partitions the triangle pairs gives the
/// same contacts (`crate::traverse::descend_from`'s argument). With `record`, the pairs
/// where it stops (disjoint, and leaf pairs) go to the workspace's [`FrontTrack`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn descend_from<const H: usize, T: PairTest>(
    env: &Bvh<H>,
    fly: &Bvh<H>,
    pose: &Pose,
    mode: Mode,
    test: &T,
    ws: &mut Workspace<T::Posed>,
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
        let (ne, nf) = (&env.nodes[e], &fly.nodes[f]);
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
        if leaf_pair(env, fly, pose, mode, ws, e, f, out, &mut c) {
            break 'outer;
        }
    }
    c
}

/// The triangle tests of the leaf pair `(e, f)`, whose volumes overlap (B's triangles moved
/// by [`Pose::apply`] once per pose); true when `mode` stops at the contact found.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn leaf_pair<const H: usize, P>(
    env: &Bvh<H>,
    fly: &Bvh<H>,
    pose: &Pose,
    mode: Mode,
    ws: &mut Workspace<P>,
    e: usize,
    f: usize,
    out: &mut Vec<(u32, u32)>,
    c: &mut Counters<NoSub>,
) -> bool {
    let (ne, nf) = (&env.nodes[e], &fly.nodes[f]);
    let r = nf.first as usize..(nf.first + nf.count) as usize;
    if ws.leaf_stamp[f] != ws.stamp {
        for p in r.clone() {
            ws.moved[p] = fly.tris.corners_f64(p).map(|x| pose.apply(x));
        }
        ws.leaf_stamp[f] = ws.stamp;
    }
    for pa in ne.first..ne.first + ne.count {
        let ta = env.tris.corners_f64(pa as usize);
        for pb in r.clone() {
            c.tri_tests += 1;
            if tri_tri_intersect(&ta, &ws.moved[pb]) {
                out.push((env.tri_index[pa as usize], fly.tri_index[pb]));
                if mode == Mode::First {
                    return true;
                }
            }
        }
    }
    false
}

/// Sets the stack to `start`, popped in its order.
pub(crate) fn set_stack<P>(ws: &mut Workspace<P>, start: &[(u32, u32)]) {
    ws.stack.clear();
    ws.stack.extend(start.iter().rev());
}
